/* The RMA operations: checks common to all (epoch, target range, type signatures), then Put and
 * Get on targets reached directly (SELF, MAPPED: copies through the pack engine; CMA:
 * process_vm_writev/readv over the target type's runs). Accumulates are in osc_acc.c; targets
 * on other hosts go to osc_am.c. Every direct operation is complete when it returns. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>

#include "fy_err.h"
#include "fy_op.h"
#include "fy_osc.h"

static int epoch_check(fy_win_t *w, const fy_rma_op_t *op)
{
    const fy_win_target_t *t = &w->t[op->target];
    /* Request-based operations belong to passive-target epochs only (MPI-4.1 12.3.5). */
    if (op->req && t->lock == FY_WLOCK_NONE && !(w->epoch & FY_EPOCH_LOCK_ALL))
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: request-based operations need a passive-target epoch (MPI_Win_lock "
                          "or MPI_Win_lock_all) on target rank %d of %s",
                          op->fn, op->target, fy_win_text(w));
    if (w->epoch & (FY_EPOCH_FENCE | FY_EPOCH_LOCK_ALL) || t->lock != FY_WLOCK_NONE ||
        (w->epoch & FY_EPOCH_PSCW && t->started))
        return MPI_SUCCESS;
    if (w->epoch & FY_EPOCH_PSCW)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: target rank %d is not in the group of the access epoch that "
                          "MPI_Win_start opened on %s",
                          op->fn, op->target, fy_win_text(w));
    return fy_err_set(MPI_ERR_RMA_SYNC,
                      "%s: no access epoch is open on %s for target rank %d (start one with "
                      "MPI_Win_fence, MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all)",
                      op->fn, fy_win_text(w), op->target);
}

/* Bytes [lo, hi) that `count` elements of d at offset 0 touch. */
static void span_of(const fy_dtype_t *d, MPI_Aint count, int64_t *lo, int64_t *hi)
{
    int64_t a = d->true_lb, b = (int64_t)(count - 1) * d->extent + d->true_lb;
    *lo = a < b ? a : b;
    *hi = (a < b ? b : a) + d->true_extent;
}

/* A dynamic window: [lo, hi) (absolute addresses) must lie in one region attached by target t
 * of this host. The table is read under its sequence count. */
static bool dyn_inside(fy_win_t *w, const fy_win_target_t *t, uint64_t lo, uint64_t hi)
{
    fy_osc_rank_meta_t *m = &w->meta[t->local];
    for (;;) {
        uint32_t s0 = atomic_load_explicit(&m->dyn_seq, memory_order_acquire);
        if (s0 & 1)
            continue;
        bool in = false;
        uint32_t n = m->dyn_n < FY_OSC_DYN_MAX ? m->dyn_n : FY_OSC_DYN_MAX;
        for (uint32_t i = 0; i < n && !in; i++)
            in = lo >= m->dyn[i].base && hi <= m->dyn[i].base + m->dyn[i].len;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&m->dyn_seq, memory_order_relaxed) == s0)
            return in;
    }
}

/* The target range: byte offset *off_p from the target's base (dynamic: the address). */
static int range_check(fy_win_t *w, fy_rma_op_t *op, int64_t *off_p)
{
    const fy_win_target_t *t = &w->t[op->target];
    if (op->tcount == 0) {
        *off_p = 0;
        return MPI_SUCCESS;
    }
    int64_t lo, hi;
    span_of(op->tdt, op->tcount, &lo, &hi);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        int64_t a = (int64_t)op->toff;
        *off_p = a;
        if (t->reach == FY_REACH_AM)
            return MPI_SUCCESS; /* the target checks against its table */
        if (!dyn_inside(w, t, (uint64_t)(a + lo), (uint64_t)(a + hi)))
            return fy_err_set(MPI_ERR_RMA_RANGE,
                              "%s: target address 0x%lx + [%ld, %ld) is not inside a region "
                              "rank %d attached to the dynamic window (MPI_Win_attach)",
                              op->fn, (unsigned long)a, (long)lo, (long)hi, op->target);
        return MPI_SUCCESS;
    }
    if (op->toff < 0)
        return fy_err_set(MPI_ERR_DISP, "%s: invalid target displacement %ld (negative)",
                          op->fn, (long)op->toff);
    int64_t off = (int64_t)op->toff * (int64_t)t->disp_unit;
    *off_p = off;
    if (off + lo < 0 || off + hi > (int64_t)t->size)
        return fy_err_set(MPI_ERR_RMA_RANGE,
                          "%s: target displacement %ld (disp_unit %ld) with %ld element%s of %s "
                          "reaches bytes [%ld, %ld), outside rank %d's window of %ld bytes",
                          op->fn, (long)op->toff, (long)t->disp_unit, (long)op->tcount,
                          op->tcount == 1 ? "" : "s", op->tdt->name ? op->tdt->name : "a derived type",
                          (long)(off + lo), (long)(off + hi), op->target, (long)t->size);
    return MPI_SUCCESS;
}

static int sig_check(const fy_rma_op_t *op, const char *what, MPI_Aint count,
                     const fy_dtype_t *d)
{
    size_t a = fy_dtype_bytes(d, count), b = fy_dtype_bytes(op->tdt, op->tcount);
    if (a == b)
        return MPI_SUCCESS;
    return fy_err_set(MPI_ERR_TYPE,
                      "%s: the %s buffer holds %zu bytes (%ld x %ld) but the target side %zu "
                      "(%ld x %ld): the type signatures must match",
                      op->fn, what, a, (long)count, (long)d->size, b, (long)op->tcount,
                      (long)op->tdt->size);
}

static int acc_type_check(const fy_rma_op_t *op)
{
    /* An empty accumulate moves nothing: MPICH and Open MPI accept it whatever the operator and
     * type (mpi4py's suite calls MPI_SUM on zero MPI_BYTEs), so only the operator must exist. */
    if (op->tcount == 0 || (op->kind == FY_RMA_ACC && op->ocount == 0))
        return fy_op_get(op->op) ? MPI_SUCCESS
                                 : fy_err_set(MPI_ERR_OP, "%s: invalid operator 0x%x", op->fn,
                                              (unsigned)op->op);
    int rc = fy_op_check(op->fn, op->op, op->tdt);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_op_t *o = fy_op_get(op->op);
    if (!o->predef)
        return fy_err_set(MPI_ERR_OP,
                          "%s: %s is a user operator; one-sided accumulates take only predefined "
                          "operators",
                          op->fn, fy_op_name(op->op));
    if (op->tdt->basic == FY_B_NONE && op->tcount > 0)
        return fy_err_set(MPI_ERR_TYPE,
                          "%s: the target datatype's elements are not all of one predefined "
                          "type, which accumulate operations require",
                          op->fn);
    const fy_dtype_t *others[2] = {op->obuf && o->predef != FY_OP_NO_OP ? op->odt : NULL,
                                   op->kind == FY_RMA_GACC ? op->rdt : NULL};
    for (int i = 0; i < 2; i++)
        if (others[i] && op->tcount > 0 && others[i]->basic != op->tdt->basic &&
            fy_basic_size(others[i]->basic) != fy_basic_size(op->tdt->basic))
            return fy_err_set(MPI_ERR_TYPE,
                              "%s: the %s datatype's basic type differs from the target's", op->fn,
                              i ? "result" : "origin");
    return MPI_SUCCESS;
}

/* ---- CMA: a target type's runs as remote iovecs -------------------------------------------- */

typedef struct {
    fy_win_t *w;
    struct iovec *v;
    size_t n, cap;
    int oom;
} runs_t;

static int add_run(void *arg, fy_basic_t kind, char *addr, MPI_Count n)
{
    runs_t *r = arg;
    size_t len = (size_t)n * fy_basic_size(kind);
    if (r->n && (char *)r->v[r->n - 1].iov_base + r->v[r->n - 1].iov_len == addr) {
        r->v[r->n - 1].iov_len += len;
        return 0;
    }
    if (r->n == r->cap) {
        size_t cap = r->cap * 2;
        struct iovec *v = fy_win_scratch(r->w, 2, cap * sizeof *v);
        if (!v) {
            r->oom = 1;
            return 1;
        }
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (struct iovec){addr, len};
    return 0;
}

/* The remote pieces of `count` elements of d at the target's address raddr. */
int fy_osc_runs(fy_win_t *w, const fy_dtype_t *d, MPI_Aint count, uint64_t raddr,
                struct iovec **v_p, size_t *n_p)
{
    runs_t r = {w, fy_win_scratch(w, 2, 64 * sizeof(struct iovec)), 0, 64, 0};
    if (!r.v)
        return MPI_ERR_NO_MEM;
    if (d->contig) {
        r.v[0] = (struct iovec){(void *)(uintptr_t)(raddr + (uint64_t)d->true_lb),
                                fy_dtype_bytes(d, count)};
        r.n = 1;
    } else {
        fy_dtype_walk(d, (void *)(uintptr_t)raddr, count, add_run, &r);
        if (r.oom)
            return MPI_ERR_NO_MEM;
    }
    *v_p = r.v;
    *n_p = r.n;
    return MPI_SUCCESS;
}

/* Moves between the contiguous `local` and the remote pieces v[0..n) of process pid. */
int fy_osc_cma(int pid, int write, void *local, struct iovec *v, size_t n)
{
    char *p = local;
    size_t i = 0;
    while (i < n) {
        size_t k = n - i < IOV_MAX ? n - i : IOV_MAX, want = 0;
        for (size_t j = 0; j < k; j++)
            want += v[i + j].iov_len;
        struct iovec l = {p, want};
        ssize_t got = write ? process_vm_writev(pid, &l, 1, v + i, k, 0)
                            : process_vm_readv(pid, &l, 1, v + i, k, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        /* A short transfer stops at a piece boundary or inside one: resume after what moved. */
        size_t done = (size_t)got;
        p += done;
        while (done && done >= v[i].iov_len) {
            done -= v[i].iov_len;
            i++;
        }
        if (done) {
            v[i].iov_base = (char *)v[i].iov_base + done;
            v[i].iov_len -= done;
        }
        if (got == 0 && want)
            return -1;
    }
    return 0;
}

static int cma_fail(const fy_rma_op_t *op, const fy_win_target_t *t)
{
    return fy_err_set(MPI_ERR_OTHER,
                      "%s: single-copy access to rank %d (pid %d) failed: %s", op->fn,
                      op->target, t->pid, strerror(errno));
}

/* ---- Put and Get on direct targets -------------------------------------------------------- */

static int put_get_direct(fy_win_t *w, fy_rma_op_t *op, int64_t off)
{
    fy_win_target_t *t = &w->t[op->target];
    bool get = op->kind == FY_RMA_GET;
    const fy_dtype_t *ld = get ? op->rdt : op->odt; /* the origin side */
    MPI_Aint lc = get ? op->rcount : op->ocount;
    char *lbuf = get ? op->rbuf : (char *)op->obuf;
    size_t bytes = fy_dtype_bytes(op->tdt, op->tcount);
    if (bytes == 0)
        return MPI_SUCCESS;
    if (t->reach == FY_REACH_SELF || t->reach == FY_REACH_MAPPED) {
        char *tb = t->base + off;
        const fy_dtype_t *td = op->tdt;
        if (td->contig && ld->contig) {
            if (get)
                memmove(lbuf + ld->true_lb, tb + td->true_lb, bytes);
            else
                memmove(tb + td->true_lb, lbuf + ld->true_lb, bytes);
        } else if (ld->contig) {
            if (get)
                fy_dtype_pack(td, tb, op->tcount, lbuf + ld->true_lb);
            else
                fy_dtype_unpack(td, lbuf + ld->true_lb, bytes, tb);
        } else if (td->contig) {
            if (get)
                fy_dtype_unpack(ld, tb + td->true_lb, bytes, lbuf);
            else
                fy_dtype_pack(ld, lbuf, lc, tb + td->true_lb);
        } else {
            char *s = fy_win_scratch(w, 0, bytes);
            if (!s)
                return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
            if (get) {
                fy_dtype_pack(td, tb, op->tcount, s);
                fy_dtype_unpack(ld, s, bytes, lbuf);
            } else {
                fy_dtype_pack(ld, lbuf, lc, s);
                fy_dtype_unpack(td, s, bytes, tb);
            }
        }
        return MPI_SUCCESS;
    }
    /* CMA. */
    struct iovec *v;
    size_t n;
    uint64_t raddr = (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : t->raddr) + (uint64_t)off;
    if (fy_osc_runs(w, op->tdt, op->tcount, raddr, &v, &n) != MPI_SUCCESS)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
    char *l = ld->contig ? lbuf + ld->true_lb : fy_win_scratch(w, 0, bytes);
    if (!l)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
    if (!get && !ld->contig)
        fy_dtype_pack(ld, lbuf, lc, l);
    if (fy_osc_cma(t->pid, !get, l, v, n) != 0)
        return cma_fail(op, t);
    if (get && !ld->contig)
        fy_dtype_unpack(ld, l, bytes, lbuf);
    return MPI_SUCCESS;
}

int fy_rma_issue(fy_win_t *w, fy_rma_op_t *op)
{
    int rc = epoch_check(w, op);
    if (rc != MPI_SUCCESS)
        return rc;
    int64_t off = 0;
    if ((rc = range_check(w, op, &off)) != MPI_SUCCESS)
        return rc;
    switch (op->kind) {
    case FY_RMA_PUT:
        rc = sig_check(op, "origin", op->ocount, op->odt);
        break;
    case FY_RMA_GET:
        rc = sig_check(op, "origin", op->rcount, op->rdt);
        break;
    case FY_RMA_ACC:
        rc = acc_type_check(op);
        if (rc == MPI_SUCCESS)
            rc = sig_check(op, "origin", op->ocount, op->odt);
        break;
    case FY_RMA_GACC:
        rc = acc_type_check(op);
        if (rc == MPI_SUCCESS && op->op != MPI_NO_OP)
            rc = sig_check(op, "origin", op->ocount, op->odt);
        if (rc == MPI_SUCCESS)
            rc = sig_check(op, "result", op->rcount, op->rdt);
        break;
    case FY_RMA_FOP:
        rc = acc_type_check(op);
        break;
    default:
        break;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (w->t[op->target].reach == FY_REACH_AM) {
        op->toff = (MPI_Aint)off;
        return fy_osc_am_issue(w, op);
    }
    /* Every direct operation but a Put may load target memory; the stripe-locked ones end in
     * plain stores (the unlock is one too). */
    if (op->kind != FY_RMA_PUT)
        fy_osc_before_loads(w);
    rc = op->kind == FY_RMA_PUT || op->kind == FY_RMA_GET ? put_get_direct(w, op, off)
                                                          : fy_osc_acc_direct(w, op, off);
    if (op->kind != FY_RMA_GET)
        w->dirty = true;
    if (op->req)
        fy_req_complete(op->req);
    return rc;
}
