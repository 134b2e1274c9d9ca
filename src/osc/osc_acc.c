/* Accumulate, Get_accumulate, Fetch_and_op and Compare_and_swap on targets reached directly.
 *
 * Atomicity. The standard makes concurrent accumulates to one location with the same basic
 * type behave as if done one at a time, element by element. Two ways keep that:
 *   - on memory this process has mapped (SELF, MAPPED), elements of 1, 2, 4 or 8 bytes that are
 *     naturally aligned are updated with CPU atomics, one element at a time: fetch-add, -and,
 *     -or, -xor and exchange where the operator is one of those on integers, a compare-and-swap
 *     loop around the operator's kernel otherwise (floating-point sums, MIN, MAX, PROD, the
 *     logical operators). No lock, so a counter updated by every rank at once scales with the
 *     cache line's bouncing only;
 *   - everything else (pair types, long double and double complex, misaligned elements, and
 *     every accumulate on a CMA target, which is not mapped) takes the target's stripe locks
 *     for the cache lines it touches and does read-modify-write.
 * Which way a location takes depends only on the target and the basic type, so the two never
 * meet on one location (the standard asks concurrent accumulates there to use the same type).
 *
 * Ordering. Each operation is complete when the call returns, so accumulates from one origin
 * to one target are applied in program order, whatever accumulate_ordering says. */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "fy_err.h"
#include "fy_op.h"
#include "fy_osc.h"

static const fy_dtype_t *basic_of[FY_B_COUNT_];
static bool int_kind(fy_basic_t k);

const fy_dtype_t *fy_acc_basic_type(fy_basic_t k)
{
    if (!basic_of[k]) {
        for (int i = 0; i < 256 && !basic_of[k]; i++) {
            const fy_dtype_t *d = fy_dtype_by_low_byte[i];
            if (d && d->basic == k && d->contig)
                basic_of[k] = d;
        }
        for (int i = 0; i < 5 && !basic_of[k]; i++)
            if (fy_dtype_pairs[i].basic == k)
                basic_of[k] = &fy_dtype_pairs[i];
    }
    return basic_of[k];
}

static bool pair_kind(fy_basic_t k)
{
    return k == FY_B_FLOAT_INT || k == FY_B_DOUBLE_INT || k == FY_B_LONG_INT ||
           k == FY_B_SHORT_INT || k == FY_B_2INT || k == FY_B_LDOUBLE_INT ||
           k == FY_B_2FLOAT || k == FY_B_2DOUBLE;
}

bool fy_acc_atomic_kind(fy_basic_t k)
{
    if (k == FY_B_NONE || pair_kind(k))
        return false;
    size_t s = fy_basic_size(k);
    return s == 1 || s == 2 || s == 4 || s == 8;
}

bool fy_acc_cas_kind(fy_basic_t k)
{
    return fy_acc_atomic_kind(k) && (int_kind(k) || k == FY_B_BOOL);
}

static bool int_kind(fy_basic_t k)
{
    switch (k) {
    case FY_B_CHAR: case FY_B_SCHAR: case FY_B_UCHAR: case FY_B_SHORT: case FY_B_USHORT:
    case FY_B_INT: case FY_B_UINT: case FY_B_LONG: case FY_B_ULONG: case FY_B_LLONG:
    case FY_B_ULLONG: case FY_B_I8: case FY_B_I16: case FY_B_I32: case FY_B_I64: case FY_B_U8:
    case FY_B_U16: case FY_B_U32: case FY_B_U64: case FY_B_BYTE:
        return true;
    default:
        return false;
    }
}

/* Loops over n elements of T, the operator chosen once outside the loop: a CPU instruction
 * where there is one (fetch-add, -and, -or, -xor, exchange, load on integers), a
 * compare-and-swap loop with the arithmetic inline for floating-point SUM, PROD, MIN, MAX, and
 * one around the operator's kernel for the rest. `in` and `old` may be unaligned (packed
 * streams): they are read and written with memcpy. */
#define LOAD_IN(T, x, i)                                                                           \
    T x = 0;                                                                                       \
    if (in)                                                                                        \
        memcpy(&x, (const char *)in + (i) * sizeof(T), sizeof(T))
#define STORE_OLD(T, v, i)                                                                         \
    if (old)                                                                                       \
    memcpy((char *)old + (i) * sizeof(T), &v, sizeof(T))

#define NATIVE_LOOP(T, CALL)                                                                       \
    for (size_t i = 0; i < n; i++) {                                                               \
        T *p = (T *)(void *)((char *)tgt + i * sizeof(T));                                         \
        LOAD_IN(T, x, i);                                                                          \
        T v = CALL;                                                                                \
        (void)x;                                                                                   \
        STORE_OLD(T, v, i);                                                                        \
    }

#define INT_LOOPS(T)                                                                               \
    do {                                                                                           \
        if (cmp) {                                                                                 \
            NATIVE_LOOP(T, (__extension__({                                                        \
                            T e;                                                                   \
                            memcpy(&e, (const char *)cmp + i * sizeof(T), sizeof(T));              \
                            __atomic_compare_exchange_n(p, &e, x, false, __ATOMIC_SEQ_CST,         \
                                                        __ATOMIC_SEQ_CST);                         \
                            e;                                                                     \
                        })))                                                                       \
        } else if (predef == FY_OP_NO_OP) {                                                        \
            NATIVE_LOOP(T, __atomic_load_n(p, __ATOMIC_SEQ_CST))                                   \
        } else if (predef == FY_OP_REPLACE) {                                                      \
            NATIVE_LOOP(T, __atomic_exchange_n(p, x, __ATOMIC_SEQ_CST))                            \
        } else if (ints && predef == FY_OP_SUM) {                                                  \
            NATIVE_LOOP(T, __atomic_fetch_add(p, x, __ATOMIC_SEQ_CST))                             \
        } else if (ints && predef == FY_OP_BAND) {                                                 \
            NATIVE_LOOP(T, __atomic_fetch_and(p, x, __ATOMIC_SEQ_CST))                             \
        } else if (ints && predef == FY_OP_BOR) {                                                  \
            NATIVE_LOOP(T, __atomic_fetch_or(p, x, __ATOMIC_SEQ_CST))                              \
        } else if (ints && predef == FY_OP_BXOR) {                                                 \
            NATIVE_LOOP(T, __atomic_fetch_xor(p, x, __ATOMIC_SEQ_CST))                             \
        } else {                                                                                   \
            NATIVE_LOOP(T, (__extension__({                                                        \
                            T c = __atomic_load_n(p, __ATOMIC_RELAXED), nv;                        \
                            do {                                                                   \
                                nv = c;                                                            \
                                fy_op_apply(op, b, &x, &nv, 1);                                    \
                            } while (!__atomic_compare_exchange_n(p, &c, nv, true,                 \
                                                                  __ATOMIC_SEQ_CST,                \
                                                                  __ATOMIC_RELAXED));              \
                            c;                                                                     \
                        })))                                                                       \
        }                                                                                          \
    } while (0)

/* Floating-point SUM, PROD, MIN, MAX: the arithmetic on the value, the CAS on its bits. */
#define FLOAT_LOOP(F, U, EXPR)                                                                     \
    for (size_t i = 0; i < n; i++) {                                                               \
        U *p = (U *)(void *)((char *)tgt + i * sizeof(U));                                         \
        F x;                                                                                       \
        memcpy(&x, (const char *)in + i * sizeof(F), sizeof(F));                                   \
        U c = __atomic_load_n(p, __ATOMIC_RELAXED), nu;                                            \
        do {                                                                                       \
            F a;                                                                                   \
            memcpy(&a, &c, sizeof a);                                                              \
            F r = EXPR;                                                                            \
            memcpy(&nu, &r, sizeof nu);                                                            \
        } while (!__atomic_compare_exchange_n(p, &c, nu, true, __ATOMIC_SEQ_CST,                  \
                                              __ATOMIC_RELAXED));                                  \
        STORE_OLD(U, c, i);                                                                        \
    }

#define FLOAT_OPS(F, U)                                                                            \
    switch (predef) {                                                                              \
    case FY_OP_SUM:                                                                                \
        FLOAT_LOOP(F, U, x + a);                                                                   \
        return;                                                                                    \
    case FY_OP_PROD:                                                                               \
        FLOAT_LOOP(F, U, x * a);                                                                   \
        return;                                                                                    \
    case FY_OP_MAX:                                                                                \
        FLOAT_LOOP(F, U, x > a ? x : a);                                                           \
        return;                                                                                    \
    case FY_OP_MIN:                                                                                \
        FLOAT_LOOP(F, U, x < a ? x : a);                                                           \
        return;                                                                                    \
    default:                                                                                       \
        break;                                                                                     \
    }

void fy_acc_atomic(MPI_Op op, const fy_dtype_t *b, void *tgt, const void *in, void *old,
                   const void *cmp, size_t n)
{
    fy_op_t *o = cmp ? NULL : fy_op_get(op);
    int predef = cmp ? 0 : o->predef;
    bool ints = int_kind(b->basic);
    if (!cmp && in && b->basic == FY_B_DOUBLE)
        FLOAT_OPS(double, uint64_t)
    if (!cmp && in && b->basic == FY_B_FLOAT)
        FLOAT_OPS(float, uint32_t)
    switch (b->size) {
    case 1:
        INT_LOOPS(uint8_t);
        break;
    case 2:
        INT_LOOPS(uint16_t);
        break;
    case 4:
        INT_LOOPS(uint32_t);
        break;
    default:
        INT_LOOPS(uint64_t);
        break;
    }
}

/* Operators valid on one element of kind k that the fast path takes (others: the slow way
 * checks and explains). */
static bool fast_op_ok(int predef, fy_basic_t k)
{
    switch (predef) {
    case FY_OP_REPLACE: case FY_OP_NO_OP: case FY_OP_SUM: case FY_OP_PROD: case FY_OP_MIN:
    case FY_OP_MAX:
        return int_kind(k) ? k != FY_B_CHAR && k != FY_B_BYTE
                           : k == FY_B_FLOAT || k == FY_B_DOUBLE;
    case FY_OP_BAND: case FY_OP_BOR: case FY_OP_BXOR:
        return int_kind(k) && k != FY_B_CHAR;
    default:
        return false;
    }
}

bool fy_rma_atomic_fast(fy_win_t *w, const void *in, void *out, const void *cmp,
                        const fy_dtype_t *d, int target, MPI_Aint disp, MPI_Op op)
{
    return out && fy_rma_acc_fast(w, in, out, cmp, 1, d, target, disp, op);
}

bool fy_rma_acc_fast(fy_win_t *w, const void *in, void *out, const void *cmp, MPI_Aint n,
                     const fy_dtype_t *d, int target, MPI_Aint disp, MPI_Op op)
{
    if (!w || !d || (unsigned)target >= (unsigned)w->size || disp < 0 || n <= 0 ||
        n > FY_ACC_FAST_MAX || w->flavor == MPI_WIN_FLAVOR_DYNAMIC || !d->predefined ||
        (cmp && n != 1))
        return false;
    fy_win_target_t *t = &w->t[target];
    uint64_t off = (uint64_t)disp * (uint64_t)t->disp_unit;
    if (t->reach > FY_REACH_MAPPED || !t->atomic_ok || !fy_win_epoch_covers(w, t) ||
        off + (uint64_t)d->size * (uint64_t)n > (uint64_t)t->size)
        return false;
    char *p = t->base + off;
    if (cmp ? !fy_acc_cas_kind(d->basic) : !fy_acc_atomic_kind(d->basic))
        return false;
    /* A fetching NO_OP is a plain load on x86 (every other operation here is a locked
     * instruction, a full fence). */
    if (!cmp && op == MPI_NO_OP)
        fy_osc_before_loads(w);
    if (((uintptr_t)p & ((uintptr_t)d->size - 1)) != 0)
        return false;
    if (!cmp) {
        /* Predefined operators have handles 0x58000000 | index (fy_op.h). */
        int predef = ((uint32_t)op & 0xffffff00u) == 0x58000000u ? (int)(op & 0xff) : 0;
        if (!predef || predef >= FY_OP_NPREDEF_ || !fast_op_ok(predef, d->basic) ||
            (!in && predef != FY_OP_NO_OP))
            return false;
        /* The counter's case, without the general loop. */
        if (n == 1 && out && predef == FY_OP_SUM && d->size == 8 && int_kind(d->basic)) {
            uint64_t x;
            memcpy(&x, in, 8);
            uint64_t v = __atomic_fetch_add((uint64_t *)(void *)p, x, __ATOMIC_SEQ_CST);
            memcpy(out, &v, 8);
            return true;
        }
    }
    fy_acc_atomic(op, d, p, in, out, cmp, (size_t)n);
    return true;
}

/* ---- stripe locks ---------------------------------------------------------------------- */

static uint64_t stripes_of(uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return 0;
    uint64_t first = lo >> 6, last = (hi - 1) >> 6;
    if (last - first + 1 >= FY_OSC_STRIPES)
        return ~(uint64_t)0;
    uint64_t m = 0;
    for (uint64_t s = first; s <= last; s++)
        m |= (uint64_t)1 << (s % FY_OSC_STRIPES);
    return m;
}

typedef struct {
    _Atomic uint32_t *s;
} stripe_arg_t;

static bool stripe_free(void *arg)
{
    return atomic_load(((stripe_arg_t *)arg)->s) == 0;
}

int fy_osc_acc_held;

void fy_acc_lock(fy_win_t *w, int t, uint64_t lo, uint64_t hi)
{
    fy_osc_acc_held++;
    fy_osc_rank_meta_t *m = &w->meta[w->t[t].local];
    uint64_t mask = stripes_of(lo, hi);
    for (int i = 0; i < FY_OSC_STRIPES; i++)
        if (mask >> i & 1) {
            stripe_arg_t a = {&m->stripe[i]};
            while (!fy_osc_take0(a.s, 1))
                fy_osc_wait(w, &m->stripe[i], &m->stripe_sleepers, stripe_free, &a);
        }
}

void fy_acc_unlock(fy_win_t *w, int t, uint64_t lo, uint64_t hi)
{
    fy_osc_rank_meta_t *m = &w->meta[w->t[t].local];
    uint64_t mask = stripes_of(lo, hi);
    for (int i = FY_OSC_STRIPES - 1; i >= 0; i--)
        if (mask >> i & 1) {
            atomic_exchange(&m->stripe[i], 0); /* seq_cst: fy_osc_wake needs it */
            fy_osc_wake(w, &m->stripe[i], &m->stripe_sleepers, -1);
        }
    fy_osc_acc_held--;
}

/* ---- packed streams ---------------------------------------------------------------------- */

int fy_acc_streams(MPI_Op op, const fy_dtype_t *b, const void *in, void *inout, size_t n,
                   fy_win_t *w)
{
    (void)w;
    if (b->size == b->extent)
        return fy_op_apply(op, b, in, inout, (MPI_Count)n);
    /* Pair types whose packed form is shorter than their layout (MPI_DOUBLE_INT: 12 bytes
     * packed, 16 in memory): through arrays in the layout the kernels expect. */
    size_t bytes = n * (size_t)b->extent;
    char *a = malloc(bytes ? bytes : 1), *c = malloc(bytes ? bytes : 1);
    if (!a || !c) {
        free(a);
        free(c);
        return MPI_ERR_NO_MEM;
    }
    fy_dtype_unpack(b, in, n * (size_t)b->size, a);
    fy_dtype_unpack(b, inout, n * (size_t)b->size, c);
    int rc = fy_op_apply(op, b, a, c, (MPI_Count)n);
    fy_dtype_pack(b, c, (MPI_Aint)n, inout);
    free(a);
    free(c);
    return rc;
}

/* ---- the operations ---------------------------------------------------------------------- */

typedef struct {
    MPI_Op op;
    const char *in;  /* origin stream (NULL: NO_OP) */
    char *old;       /* result stream (NULL: none) */
    size_t pos;
} walk_t;

static int atomic_run(void *arg, fy_basic_t kind, char *addr, MPI_Count n)
{
    walk_t *a = arg;
    const fy_dtype_t *b = fy_acc_basic_type(kind);
    fy_acc_atomic(a->op, b, addr, a->in ? a->in + a->pos : NULL, a->old ? a->old + a->pos : NULL,
                  NULL, (size_t)n);
    a->pos += (size_t)n * (size_t)b->size;
    return 0;
}

/* Stops the walk (nonzero) at an element that is not naturally aligned. */
static int misaligned_walk(void *arg, fy_basic_t kind, char *addr, MPI_Count n)
{
    (void)arg;
    (void)n;
    return ((uintptr_t)addr & (fy_basic_size(kind) - 1)) != 0;
}

int fy_osc_acc_direct(fy_win_t *w, fy_rma_op_t *op, int64_t off)
{
    fy_win_target_t *t = &w->t[op->target];
    const fy_dtype_t *td = op->tdt;
    MPI_Aint tcount = op->tcount;
    if (op->kind == FY_RMA_FOP || op->kind == FY_RMA_CAS) {
        td = op->odt ? op->odt : op->rdt;
        tcount = 1;
    }
    size_t bytes = fy_dtype_bytes(td, tcount);
    if (bytes == 0)
        return MPI_SUCCESS;
    bool noop = op->op == MPI_NO_OP && op->kind != FY_RMA_CAS;
    bool direct = t->reach == FY_REACH_SELF || t->reach == FY_REACH_MAPPED;
    char *tb = direct ? t->base + off : NULL;

    if (direct && t->atomic_ok && fy_acc_atomic_kind(td->basic) &&
        !fy_dtype_walk(td, tb, tcount, misaligned_walk, NULL)) {
        const fy_dtype_t *b = fy_acc_basic_type(td->basic);
        if (op->kind == FY_RMA_FOP || op->kind == FY_RMA_CAS) {
            fy_acc_atomic(op->op, b, tb, noop ? NULL : op->obuf, op->rbuf,
                          op->kind == FY_RMA_CAS ? op->cbuf : NULL, 1);
            return MPI_SUCCESS;
        }
        bool res = op->kind == FY_RMA_GACC;
        if (td->contig && (noop || op->odt->contig) && (!res || op->rdt->contig)) {
            fy_acc_atomic(op->op, b, tb + td->true_lb,
                          noop ? NULL : (const char *)op->obuf + op->odt->true_lb,
                          res ? (char *)op->rbuf + op->rdt->true_lb : NULL, NULL,
                          bytes / (size_t)b->size);
            return MPI_SUCCESS;
        }
        walk_t a = {op->op, NULL, NULL, 0};
        if (!noop) {
            char *s = fy_win_scratch(w, 0, bytes);
            if (!s)
                return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
            fy_dtype_pack(op->odt, op->obuf, op->ocount, s);
            a.in = s;
        }
        if (res && !(a.old = fy_win_scratch(w, 1, bytes)))
            return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
        fy_dtype_walk(td, tb, tcount, atomic_run, &a);
        if (res)
            fy_dtype_unpack(op->rdt, a.old, bytes, op->rbuf);
        return MPI_SUCCESS;
    }

    /* Under the stripe locks: read, modify, write. */
    int64_t lo = td->true_lb, hi = (int64_t)(tcount - 1) * td->extent + td->true_lb;
    if (hi < lo) {
        int64_t x = lo;
        lo = hi;
        hi = x;
    }
    hi += td->true_extent;
    uint64_t base_off = (uint64_t)off; /* dynamic windows: an address, striped the same way */
    fy_acc_lock(w, op->target, base_off + (uint64_t)lo, base_off + (uint64_t)hi);
    int rc = MPI_SUCCESS;
    char *st = fy_win_scratch(w, 1, bytes);
    struct iovec *v = NULL;
    size_t nv = 0;
    if (!st) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
        goto out;
    }
    if (direct) {
        fy_dtype_pack(td, tb, tcount, st);
    } else {
        uint64_t raddr = (w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : t->raddr) + (uint64_t)off;
        if (fy_osc_runs(w, td, tcount, raddr, &v, &nv) != MPI_SUCCESS) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
            goto out;
        }
        /* The transfer consumes the iovecs: keep a copy for the write back. */
        struct iovec *v2 = malloc(nv * sizeof *v2);
        if (!v2) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
            goto out;
        }
        memcpy(v2, v, nv * sizeof *v2);
        int e = fy_osc_cma(t->pid, 0, st, v2, nv);
        free(v2);
        if (e != 0) {
            rc = fy_err_set(MPI_ERR_OTHER, "%s: single-copy read from rank %d failed", op->fn,
                            op->target);
            goto out;
        }
    }
    if (op->kind != FY_RMA_ACC)
        fy_dtype_unpack(op->kind == FY_RMA_GACC ? op->rdt : td, st, bytes, op->rbuf);
    bool write = false;
    if (op->kind == FY_RMA_CAS) {
        if (memcmp(st, op->cbuf, bytes) == 0) {
            memcpy(st, op->obuf, bytes);
            write = true;
        }
    } else if (!noop) {
        const char *in = op->obuf;
        const fy_dtype_t *od = op->kind == FY_RMA_FOP ? td : op->odt;
        MPI_Aint oc = op->kind == FY_RMA_FOP ? 1 : op->ocount;
        if (!od->contig) {
            char *s = fy_win_scratch(w, 0, bytes);
            if (!s) {
                rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
                goto out;
            }
            fy_dtype_pack(od, op->obuf, oc, s);
            in = s;
        } else {
            in += od->true_lb;
        }
        const fy_dtype_t *b = fy_acc_basic_type(td->basic);
        if (fy_acc_streams(op->op, b, in, st, bytes / (size_t)b->size, w) != MPI_SUCCESS) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
            goto out;
        }
        write = true;
    }
    if (write) {
        if (direct) {
            fy_dtype_unpack(td, st, bytes, tb);
        } else if (fy_osc_cma(t->pid, 1, st, v, nv) != 0) {
            rc = fy_err_set(MPI_ERR_OTHER, "%s: single-copy write to rank %d failed", op->fn,
                            op->target);
        }
    }
out:
    fy_acc_unlock(w, op->target, base_off + (uint64_t)lo, base_off + (uint64_t)hi);
    return rc;
}
