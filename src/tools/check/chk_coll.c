/* Collective mismatches: before each blocking collective every member contributes a descriptor
 * (which collective, root, predefined operator, the signature that must agree) to one small
 * PMPI_Allreduce(MPI_MAX) on the shadow communicator, over the values and their negations (so
 * one reduction gives both the maximum and the minimum). When they differ, the descriptors and
 * the calls' locations are gathered at the communicator's rank 0, which prints one report naming
 * every rank's call, and the job is aborted: going on would hang or corrupt data. */
#include "chk.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { D_COLL, D_ROOT, D_OP, D_HASH, D_NELEM, D_N };

typedef struct {
    int64_t v[D_N];
    uint64_t off;
    char module[256];
} where_desc_t;

#define NB_BASE 100 /* a nonblocking collective's id: its blocking one's plus this */

static const char *coll_name(int64_t id, char *buf, size_t len)
{
    bool nb = id >= NB_BASE;
    if (nb)
        id -= NB_BASE;
    const char *n = id >= 0 && id < chk_ncoll_names ? chk_coll_names[id] : "?";
    if (!nb || strncmp(n, "MPI_", 4) != 0)
        return n;
    snprintf(buf, len, "MPI_I%c%s", n[4] + ('a' - 'A'), n + 5); /* MPI_Bcast -> MPI_Ibcast */
    return buf;
}

static const char *op_name(MPI_Op op)
{
    static const struct {
        MPI_Op op;
        const char *name;
    } ops[] = {{MPI_MAX, "MPI_MAX"}, {MPI_MIN, "MPI_MIN"}, {MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"},
               {MPI_LAND, "MPI_LAND"}, {MPI_BAND, "MPI_BAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_BOR, "MPI_BOR"},
               {MPI_LXOR, "MPI_LXOR"}, {MPI_BXOR, "MPI_BXOR"}, {MPI_MINLOC, "MPI_MINLOC"},
               {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (ops[i].op == op)
            return ops[i].name;
    return "(user)";
}

static void mismatch(const char *call, const void *ra, chk_comm_t *c, uint64_t seq, const int64_t *v)
{
    int rank, size;
    PMPI_Comm_rank(c->shadow, &rank);
    PMPI_Comm_size(c->shadow, &size);
    where_desc_t mine = {0}, *all = NULL;
    memcpy(mine.v, v, sizeof mine.v);
    const char *m = chk_module_of(ra, &mine.off);
    snprintf(mine.module, sizeof mine.module, "%s", m);
    if (rank == 0)
        all = malloc(sizeof *all * (size_t)size);
    PMPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, c->shadow);
    if (rank == 0) {
        size_t cap = 256 + (size_t)size * 200, used = 0;
        char *msg = malloc(cap), name[MPI_MAX_OBJECT_NAME + 32];
        used += (size_t)snprintf(msg, cap, "collective mismatch on %s (call %llu there):",
                                 chk_comm_name(c, name, sizeof name), (unsigned long long)seq);
        for (int r = 0; r < size && used < cap; r++) {
            char w[600], extra[160] = "", nm[64];
            const int64_t *d = all[r].v;
            int n = 0;
            if (d[D_ROOT] >= 0)
                n += snprintf(extra + n, sizeof extra - (size_t)n, " root %lld", (long long)d[D_ROOT]);
            if (d[D_NELEM] != INT64_MIN && n < (int)sizeof extra)
                n += snprintf(extra + n, sizeof extra - (size_t)n, " %lld element%s", (long long)d[D_NELEM],
                              d[D_NELEM] == 1 ? "" : "s");
            if (d[D_OP] && n < (int)sizeof extra)
                snprintf(extra + n, sizeof extra - (size_t)n, " op %s", op_name((MPI_Op)d[D_OP]));
            used += (size_t)snprintf(msg + used, cap - used, "%s rank %d %s%s at %s", r ? "," : "", r,
                                     coll_name(d[D_COLL], nm, sizeof nm), extra,
                                     chk_where_remote(all[r].module, all[r].off, w, sizeof w));
        }
        chk_report(call, ra, "%s", msg);
        free(msg);
        free(all);
        fflush(NULL);
        PMPI_Abort(MPI_COMM_WORLD, 3);
    }
    /* The others wait for rank 0's abort. */
    PMPI_Barrier(c->shadow);
    PMPI_Abort(MPI_COMM_WORLD, 3);
}

static bool is_predefined_op(MPI_Op op)
{
    return (((unsigned)op >> 30) & 3u) == 1;
}

static void sig_of_mode(int mode, bool root, MPI_Datatype t1, MPI_Count c1, MPI_Datatype t2, MPI_Count c2,
                        const void *sbuf, int64_t *hash, int64_t *nelem)
{
    MPI_Datatype t = t1;
    MPI_Count c = c1;
    switch (mode) {
    case 2:
        if (root)
            t = t2, c = c2;
        break;
    case 3:
        if (!root)
            t = t2, c = c2;
        break;
    case 4:
        if (sbuf == MPI_IN_PLACE)
            t = t2, c = c2;
        break;
    default:
        break;
    }
    if (mode == 0 || t == MPI_DATATYPE_NULL) {
        *hash = *nelem = INT64_MIN;
        return;
    }
    chk_sigsum_t s;
    chk_sig_of(t, c, &s);
    if (s.anything) {
        *hash = *nelem = INT64_MIN;
        return;
    }
    *hash = (int64_t)(s.hash & 0x7fffffffffffffffull);
    *nelem = s.nelem;
}

static void overlap_check(const char *call, const void *ra, chk_comm_t *c, int mode, bool root,
                          MPI_Datatype t1, MPI_Count c1, MPI_Datatype t2, MPI_Count c2, const void *sbuf,
                          const void *rbuf)
{
    if (!sbuf || !rbuf || sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE || c1 <= 0 ||
        !chk_valid(CHK_K_TYPE, t1) || (t2 != MPI_DATATYPE_NULL && !chk_valid(CHK_K_TYPE, t2)))
        return;
    if ((mode == 2 || mode == 3) && !root)
        return;
    MPI_Datatype rt = t2 != MPI_DATATYPE_NULL ? t2 : t1;
    MPI_Count rc = t2 != MPI_DATATYPE_NULL ? c2 * (mode == 3 ? 1 : c->size) : c1;
    MPI_Count sc = mode == 3 ? c1 * c->size : c1;
    MPI_Count lb, ext, tlb, text;
    PMPI_Type_get_extent_c(t1, &lb, &ext);
    PMPI_Type_get_true_extent_c(t1, &tlb, &text);
    uintptr_t slo = (uintptr_t)sbuf + (uintptr_t)tlb, shi = slo + (uintptr_t)((sc - 1) * ext + text);
    PMPI_Type_get_extent_c(rt, &lb, &ext);
    PMPI_Type_get_true_extent_c(rt, &tlb, &text);
    if (rc <= 0)
        return;
    uintptr_t rlo = (uintptr_t)rbuf + (uintptr_t)tlb, rhi = rlo + (uintptr_t)((rc - 1) * ext + text);
    if (slo < rhi && rlo < shi)
        chk_report(call, ra, "overlapping buffers: the send and receive buffers overlap (use MPI_IN_PLACE)");
}

typedef struct {
    MPI_Request req;
    int64_t v[D_N], in[2 * D_N], out[2 * D_N];
    const char *call;
    const void *ra;
    chk_comm_t *c;
    uint64_t seq;
} ncoll_t;

static void descriptor(int64_t *v, int cid, int root, MPI_Op op, int mode, bool isroot, MPI_Datatype t1,
                       MPI_Count c1, MPI_Datatype t2, MPI_Count c2, const void *sbuf)
{
    v[D_COLL] = cid;
    v[D_ROOT] = root;
    v[D_OP] = is_predefined_op(op) ? (int64_t)(uint32_t)op : 0;
    sig_of_mode(mode, isroot, t1, c1, t2, c2, sbuf, &v[D_HASH], &v[D_NELEM]);
}

void *chk_coll_check_nb(const char *call, int cid, const void *ra, MPI_Comm comm, int root, MPI_Op op,
                        int mode, MPI_Datatype t1, MPI_Count c1, MPI_Datatype t2, MPI_Count c2,
                        const void *sbuf, const void *rbuf)
{
    if (chk_state != 1 && chk_sessions == 0) /* the wrapper reported it */
        return NULL;
    if (!chk_valid(CHK_K_COMM, comm) || (t1 != MPI_DATATYPE_NULL && !chk_valid(CHK_K_TYPE, t1)) ||
        (t2 != MPI_DATATYPE_NULL && !chk_valid(CHK_K_TYPE, t2)))
        return NULL;
    chk_comm_t *c = chk_comm_get(comm);
    if (!c || c->inter)
        return NULL;
    int me = -1;
    if (root >= 0)
        PMPI_Comm_rank(comm, &me);
    bool isroot = root >= 0 && me == root;
    if (chk_on & CHK_C_BUFFER)
        overlap_check(call, ra, c, mode, isroot, t1, c1, t2, c2, sbuf, rbuf);
    if (!(chk_on & CHK_C_COLL) || c->shadow == MPI_COMM_NULL)
        return NULL;
    ncoll_t *n = calloc(1, sizeof *n);
    n->call = call;
    n->ra = ra;
    n->c = c;
    /* (the request's number on the communicator is taken by chk_req_other, in the same order) */
    n->seq = c->nsent_coll + 1;
    descriptor(n->v, cid + NB_BASE, root, op, mode, isroot, t1, c1, t2, c2, sbuf);
    for (int i = 0; i < D_N; i++) {
        n->in[i] = n->v[i];
        n->in[D_N + i] = n->v[i] == INT64_MIN ? INT64_MIN : -n->v[i];
    }
    PMPI_Iallreduce(n->in, n->out, 2 * D_N, MPI_INT64_T, MPI_MAX, c->shadow, &n->req);
    return n;
}

static bool nb_compare(ncoll_t *n)
{
    for (int i = 0; i < D_N; i++) {
        int64_t mx = n->out[i], mn = n->out[D_N + i] == INT64_MIN ? INT64_MIN : -n->out[D_N + i];
        if (mx != mn)
            mismatch(n->call, n->ra, n->c, n->seq, n->v);
    }
    free(n);
    return true;
}

/* Descriptors not complete when their request was waited for: tested at later waits, waited
 * for at MPI_Finalize (when every rank has posted all of its own). */
static ncoll_t **pending;
static int npending, cappending;

void chk_coll_nb_poll(bool final)
{
    for (int i = 0; i < npending;) {
        int flag = 0;
        chk_lock();
        ncoll_t *n = i < npending ? pending[i] : NULL;
        chk_unlock();
        if (!n)
            break;
        if (final)
            PMPI_Wait(&n->req, MPI_STATUS_IGNORE), flag = 1;
        else
            PMPI_Test(&n->req, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            i++;
            continue;
        }
        chk_lock();
        pending[i] = pending[--npending];
        chk_unlock();
        nb_compare(n);
    }
}

/* Before the request is waited for: the descriptor's reduction, given a little while (every
 * rank posted it with the collective, so it usually is there, and a mismatched collective
 * would never complete); never waited for without bound here (a leaf of a reduction may
 * complete before the others start: waiting could add a deadlock). */
void chk_coll_nb_done(void *p)
{
    ncoll_t *n = p;
    if (!n)
        return;
    for (int i = 0; i < 400; i++) {
        int flag = 0;
        PMPI_Test(&n->req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            nb_compare(n);
            return;
        }
        if (i >= 200) {
            struct timespec ts = {0, 1000};
            nanosleep(&ts, NULL);
        }
    }
    chk_lock();
    if (npending == cappending) {
        cappending = cappending ? 2 * cappending : 16;
        pending = realloc(pending, sizeof *pending * (size_t)cappending);
    }
    pending[npending++] = n;
    chk_unlock();
}

static __thread bool in_coll;

void chk_coll_check(const char *call, int cid, const void *ra, MPI_Comm comm, int root, MPI_Op op,
                    int mode, MPI_Datatype t1, MPI_Count c1, MPI_Datatype t2, MPI_Count c2,
                    const void *sbuf, const void *rbuf)
{
    in_coll = false;
    if (chk_state != 1 && chk_sessions == 0) /* the wrapper reported it */
        return;
    chk_use(CHK_K_COMM, comm, call, "comm", ra);
    if (t1 != MPI_DATATYPE_NULL)
        chk_use(CHK_K_TYPE, t1, call, t2 != MPI_DATATYPE_NULL ? "sendtype" : "datatype", ra);
    if (t2 != MPI_DATATYPE_NULL)
        chk_use(CHK_K_TYPE, t2, call, "recvtype", ra);
    if (op != MPI_OP_NULL)
        chk_use(CHK_K_OP, op, call, "op", ra);
    chk_comm_t *c = chk_comm_get(comm);
    if (!c)
        return;
    uint64_t seq = __atomic_add_fetch(&c->nsent_coll, 1, __ATOMIC_RELAXED);
    int me = -1;
    if (root >= 0 && !c->inter)
        PMPI_Comm_rank(comm, &me);
    bool isroot = root >= 0 && me == root;
    if ((chk_on & CHK_C_BUFFER) && !c->inter)
        overlap_check(call, ra, c, mode, isroot, t1, c1, t2, c2, sbuf, rbuf);
    if ((chk_on & CHK_C_COLL) && !c->inter && c->shadow != MPI_COMM_NULL) {
        int64_t v[D_N], in[2 * D_N], out[2 * D_N];
        descriptor(v, cid, root, op, mode, isroot, t1, c1, t2, c2, sbuf);
        for (int i = 0; i < D_N; i++) {
            in[i] = v[i];
            in[D_N + i] = v[i] == INT64_MIN ? INT64_MIN : -v[i];
        }
        if (chk_on & CHK_C_WATCH) {
            chk_item_t it = {.kind = CHK_W_COLL, .peer = -1, .tag = -1, .comm = c->id, .coll = call, .seq = seq};
            chk_watch_block(call, ra, true, 1, &it);
        }
        PMPI_Allreduce(in, out, 2 * D_N, MPI_INT64_T, MPI_MAX, c->shadow);
        if (chk_on & CHK_C_WATCH)
            chk_watch_unblock();
        for (int i = 0; i < D_N; i++) {
            int64_t mx = out[i], mn = out[D_N + i] == INT64_MIN ? INT64_MIN : -out[D_N + i];
            if (mx != mn)
                mismatch(call, ra, c, seq, v);
        }
    }
    if (chk_on & CHK_C_WATCH) {
        chk_item_t it = {.kind = CHK_W_COLL, .peer = -1, .tag = -1, .comm = c->id, .coll = call, .seq = seq};
        chk_watch_block(call, ra, true, 1, &it);
        in_coll = true;
    }
}

void chk_coll_leave(void)
{
    if (in_coll) {
        in_coll = false;
        chk_watch_unblock();
    }
}
