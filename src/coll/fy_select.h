/* Choosing a collective's algorithm (select.c): one table per collective, rows in order of
 * preference, the first row whose predicates hold is taken. The entry points of fy_coll.h
 * (fy_allreduce, fy_allreduce_sched, ...) are the dispatchers: they describe the call in an
 * fy_sel_t, pick a row and call its function, so the blocking form and the schedule builder of
 * one call see the same choice.
 *
 * A row is one line (FY_ALGO below):
 *     FY_ALGO(allreduce, "ring", need_commute, long_vector, fy_allreduce_ring),
 * names the algorithm (what FERRY_COLL_ALLREDUCE=ring asks for), its hard requirement `can`
 * (NULL: none; checked for a forced algorithm too: when it fails, the table decides and nothing
 * is said), its place in the table `when` (NULL: always; ignored when forced), and the blocking
 * function, whose schedule builder is the same name with _sched. A row without a builder (a
 * blocking-only algorithm) is written out: {"shm", shm_ok, NULL, {.allreduce = f}, {NULL}}; it
 * is then skipped when a schedule is built. A name may appear on several rows (different
 * thresholds); forcing it uses its first row. The last row of every table must take anything.
 *
 * Everything a predicate looks at must be the same on every member for one call (all members
 * must choose the same algorithm): the communicator, its size, the size measure of the call,
 * the operator's commutativity, whether per-rank counts are in play. Never a rank's own count
 * of a v-form, never MPI_IN_PLACE (a root-only option in some collectives). */
#ifndef FY_SELECT_H
#define FY_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fy_coll.h"
#include "fy_op.h"

typedef struct fy_sel {
    fy_comm_t *comm;
    int p;                /* communicator size */
    bool pof2;            /* p is a power of two */
    bool commute;         /* the operator is commutative (true when there is none) */
    bool vector;          /* a v-form: counts per rank (or per block) */
    bool sched;           /* choosing for a schedule (nonblocking or persistent) */
    size_t bytes;         /* the size measure, per collective:
                           *   Bcast, Reduce, Allreduce: the message (count * type size)
                           *   Allgather(v): one rank's block (v: the average over ranks)
                           *   Alltoall: one block (v: 0, unknown everywhere)
                           *   Reduce_scatter: the whole vector; Gather, Scatter: one block (v: 0) */
    size_t total;         /* the data one rank ends with (Allgather: p blocks), else = bytes */
    const fy_dtype_t *dt; /* Reduce, Allreduce: the datatype (the same on every member) */
} fy_sel_t;

typedef bool fy_sel_pred_t(const fy_sel_t *s);

enum {
    FY_COLL_BARRIER,
    FY_COLL_BCAST,
    FY_COLL_REDUCE,
    FY_COLL_ALLREDUCE,
    FY_COLL_ALLGATHER,
    FY_COLL_ALLTOALL,
    FY_COLL_REDUCE_SCATTER,
    FY_COLL_GATHER,
    FY_COLL_SCATTER,
    FY_COLL_NTABLES
};

/* The signatures of each collective's algorithms: those of the dispatchers in fy_coll.h. */
typedef int fy_barrier_fn_t(fy_comm_t *c);
typedef void fy_barrier_sched_fn_t(fy_sched_t *s);
typedef int fy_bcast_fn_t(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c);
typedef void fy_bcast_sched_fn_t(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt,
                                 int root);
typedef int fy_reduce_fn_t(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                           MPI_Op op, int root, fy_comm_t *c);
typedef void fy_reduce_sched_fn_t(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                                  const fy_dtype_t *dt, MPI_Op op, int root);
typedef int fy_allreduce_fn_t(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                              MPI_Op op, fy_comm_t *c);
typedef void fy_allreduce_sched_fn_t(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                                     const fy_dtype_t *dt, MPI_Op op);
typedef int fy_allgather_fn_t(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                              MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                              const fy_dtype_t *rdt, fy_comm_t *c);
typedef void fy_allgather_sched_fn_t(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                     const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                     const MPI_Aint *rcounts, const MPI_Aint *displs,
                                     const fy_dtype_t *rdt);
typedef int fy_alltoall_fn_t(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                             const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf,
                             MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                             const fy_dtype_t *rdt, fy_comm_t *c);
typedef void fy_alltoall_sched_fn_t(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                    const MPI_Aint *scounts, const MPI_Aint *sdispls,
                                    const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                    const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                                    const fy_dtype_t *rdt);
typedef int fy_reduce_scatter_fn_t(const void *sbuf, void *rbuf, MPI_Aint rcount,
                                   const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op,
                                   fy_comm_t *c);
typedef void fy_reduce_scatter_sched_fn_t(fy_sched_t *s, const void *sbuf, void *rbuf,
                                          MPI_Aint rcount, const MPI_Aint *rcounts,
                                          const fy_dtype_t *dt, MPI_Op op);
typedef int fy_gather_fn_t(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                           MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                           const fy_dtype_t *rdt, int root, fy_comm_t *c);
typedef void fy_gather_sched_fn_t(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                  const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                  const MPI_Aint *rcounts, const MPI_Aint *displs,
                                  const fy_dtype_t *rdt, int root);
typedef int fy_scatter_fn_t(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                            const MPI_Aint *displs, const fy_dtype_t *sdt, void *rbuf,
                            MPI_Aint rcount, const fy_dtype_t *rdt, int root, fy_comm_t *c);
typedef void fy_scatter_sched_fn_t(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                                   const MPI_Aint *scounts, const MPI_Aint *displs,
                                   const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                                   const fy_dtype_t *rdt, int root);

typedef union {
    void (*any)(void); /* for the NULL test only */
    fy_barrier_fn_t *barrier;
    fy_bcast_fn_t *bcast;
    fy_reduce_fn_t *reduce;
    fy_allreduce_fn_t *allreduce;
    fy_allgather_fn_t *allgather;
    fy_alltoall_fn_t *alltoall;
    fy_reduce_scatter_fn_t *reduce_scatter;
    fy_gather_fn_t *gather;
    fy_scatter_fn_t *scatter;
} fy_algo_fn_u;

typedef union {
    void (*any)(void);
    fy_barrier_sched_fn_t *barrier;
    fy_bcast_sched_fn_t *bcast;
    fy_reduce_sched_fn_t *reduce;
    fy_allreduce_sched_fn_t *allreduce;
    fy_allgather_sched_fn_t *allgather;
    fy_alltoall_sched_fn_t *alltoall;
    fy_reduce_scatter_sched_fn_t *reduce_scatter;
    fy_gather_sched_fn_t *gather;
    fy_scatter_sched_fn_t *scatter;
} fy_algo_sched_u;

typedef struct fy_algo {
    const char *name;
    fy_sel_pred_t *can;    /* hard requirement; NULL: none */
    fy_sel_pred_t *when;   /* where the table takes it; NULL: always */
    fy_algo_fn_u fn;       /* blocking form; NULL: schedules only */
    fy_algo_sched_u sched; /* schedule builder; NULL: blocking only */
} fy_algo_t;

/* A row whose builder is fn##_sched. */
#define FY_ALGO(coll, name, can, when, fn)                                                         \
    {                                                                                              \
        name, can, when, {.coll = fn},                                                             \
        {                                                                                          \
            .coll = fn##_sched                                                                     \
        }                                                                                          \
    }

/* Reads FERRY_COLL_<NAME> for every table (the knobs, fy_knobs.h; at MPI_Init, and again when
 * MPI_T writes one): MPI_SUCCESS, or MPI_ERR_OTHER with a message listing the valid names when
 * one names no algorithm of its collective. */
int fy_select_init(void);

/* For MPI_T (src/api/mpit_*.c). Rows a table may hold: */
enum { FY_SELECT_MAX_ROWS = 16 };
/* The table's name as in FERRY_COLL_<NAME> ("ALLREDUCE"). */
const char *fy_select_coll_name(int coll);
/* The distinct algorithm names of a table, in table order: stores up to max, returns how many. */
int fy_select_algos(int coll, const char **names, int max);
/* The first row named `name` (case-insensitive), or -1. */
int fy_select_algo_index(int coll, const char *name);
/* How many times this process chose algorithm `name` of a table (any of its rows). */
uint64_t fy_select_picks(int coll, const char *name);
/* The row chosen for a call described by s (never NULL). */
const fy_algo_t *fy_select(int coll, const fy_sel_t *s);
/* The algorithm forced by the environment for a collective, NULL when none (for tests and
 * benchmarks that report what ran). */
const char *fy_select_forced(int coll);

/* --- The algorithms (one file per collective; each opens with their costs). */
fy_barrier_fn_t fy_barrier_dissemination;
fy_barrier_sched_fn_t fy_barrier_dissemination_sched;

fy_bcast_fn_t fy_bcast_binomial, fy_bcast_scatter_allgather;
fy_bcast_sched_fn_t fy_bcast_binomial_sched, fy_bcast_scatter_allgather_sched;

fy_reduce_fn_t fy_reduce_binomial;
fy_reduce_sched_fn_t fy_reduce_binomial_sched;

fy_allreduce_fn_t fy_allreduce_recursive_doubling, fy_allreduce_rabenseifner, fy_allreduce_ring;
fy_allreduce_sched_fn_t fy_allreduce_recursive_doubling_sched, fy_allreduce_rabenseifner_sched,
    fy_allreduce_ring_sched;

fy_allgather_fn_t fy_allgatherv_ring, fy_allgatherv_recursive_doubling, fy_allgatherv_bruck;
fy_allgather_sched_fn_t fy_allgatherv_ring_sched, fy_allgatherv_recursive_doubling_sched,
    fy_allgatherv_bruck_sched;

fy_alltoall_fn_t fy_alltoallv_pairwise, fy_alltoallv_linear, fy_alltoall_bruck;
fy_alltoall_sched_fn_t fy_alltoallv_pairwise_sched, fy_alltoallv_linear_sched,
    fy_alltoall_bruck_sched;

fy_reduce_scatter_fn_t fy_reduce_scatter_pairwise, fy_reduce_scatter_allreduce;
fy_reduce_scatter_sched_fn_t fy_reduce_scatter_pairwise_sched, fy_reduce_scatter_allreduce_sched;

fy_gather_fn_t fy_gatherv_linear;
fy_gather_sched_fn_t fy_gatherv_linear_sched;

fy_scatter_fn_t fy_scatterv_linear;
fy_scatter_sched_fn_t fy_scatterv_linear_sched;

/* --- One algorithm, two forms. The newer algorithms are written once against this emitter,
 * which either does each step at once (the blocking form: blocking point-to-point on the
 * collective's fixed tag, scratch kept between calls, the first error remembered and every
 * later step skipped) or adds it to a schedule (s set: sends and receives join the current
 * round, fy_emit_wait ends it). So the blocking form pays no schedule bookkeeping, and both
 * forms combine the same vectors in the same order. In a schedule, a local step placed after
 * fy_emit_wait sees what the messages before it brought. */
typedef struct {
    fy_sched_t *s; /* NULL: the blocking form */
    fy_comm_t *c;
    int tag; /* the blocking form's FY_TAG_* */
    int rc;  /* the blocking form's first error */
} fy_emit_t;

static inline fy_emit_t fy_emit_blocking(fy_comm_t *c, int tag)
{
    return (fy_emit_t){NULL, c, tag, MPI_SUCCESS};
}

static inline fy_emit_t fy_emit_sched(fy_sched_t *s)
{
    return (fy_emit_t){s, fy_sched_comm(s), 0, MPI_SUCCESS};
}

/* Scratch of the blocking form's slot (0 or 1), or the schedule's. NULL when out of memory:
 * the blocking form's error is then set, a schedule remembers it; the caller just returns. */
static inline void *fy_emit_scratch(fy_emit_t *e, int slot, size_t bytes)
{
    void *p = e->s ? fy_sched_scratch(e->s, bytes) : fy_coll_scratch(slot, bytes);
    if (!p && e->rc == MPI_SUCCESS)
        e->rc = MPI_ERR_NO_MEM;
    return p;
}

static inline char *fy_emit_scratch_typed(fy_emit_t *e, int slot, const fy_dtype_t *dt,
                                          MPI_Aint count, int n, size_t *stride_p)
{
    char *p = e->s ? fy_sched_scratch_typed(e->s, dt, count, n, stride_p)
                   : fy_coll_scratch_typed(slot, dt, count, n, stride_p);
    if (!p && e->rc == MPI_SUCCESS)
        e->rc = MPI_ERR_NO_MEM;
    return p;
}

static inline void fy_emit_send(fy_emit_t *e, const void *buf, MPI_Aint n, const fy_dtype_t *dt,
                                int peer)
{
    if (e->s)
        fy_sched_send(e->s, buf, n, dt, peer);
    else if (e->rc == MPI_SUCCESS)
        e->rc = fy_coll_send(buf, n, dt, peer, e->tag, e->c);
}

static inline void fy_emit_recv(fy_emit_t *e, void *buf, MPI_Aint n, const fy_dtype_t *dt, int peer)
{
    if (e->s)
        fy_sched_recv(e->s, buf, n, dt, peer);
    else if (e->rc == MPI_SUCCESS)
        e->rc = fy_coll_recv(buf, n, dt, peer, e->tag, e->c);
}

/* Ends the round of a schedule (the blocking form has waited already). */
static inline void fy_emit_wait(fy_emit_t *e)
{
    if (e->s)
        fy_sched_round(e->s);
}

/* A send and a receive that run together, then wait (one round of a schedule). */
static inline void fy_emit_sendrecv(fy_emit_t *e, const void *sbuf, MPI_Aint sn,
                                    const fy_dtype_t *sdt, int dst, void *rbuf, MPI_Aint rn,
                                    const fy_dtype_t *rdt, int src)
{
    if (e->s) {
        fy_sched_recv(e->s, rbuf, rn, rdt, src);
        fy_sched_send(e->s, sbuf, sn, sdt, dst);
        fy_sched_round(e->s);
    } else if (e->rc == MPI_SUCCESS) {
        e->rc = fy_coll_sendrecv(sbuf, sn, sdt, dst, rbuf, rn, rdt, src, e->tag, e->c);
    }
}

/* inout = in o inout (fy_op_apply). */
static inline void fy_emit_reduce(fy_emit_t *e, MPI_Op op, const fy_dtype_t *dt, const void *in,
                                  void *inout, MPI_Aint n)
{
    if (e->s)
        fy_sched_reduce(e->s, op, dt, in, inout, n);
    else if (e->rc == MPI_SUCCESS && n > 0)
        fy_op_apply(op, dt, in, inout, n);
}

/* n elements of dt, same layout (fy_op_copy). */
static inline void fy_emit_copy_same(fy_emit_t *e, const fy_dtype_t *dt, const void *src, void *dst,
                                     MPI_Aint n)
{
    if (e->s)
        fy_sched_copy_same(e->s, dt, src, dst, n);
    else if (e->rc == MPI_SUCCESS && n > 0)
        fy_op_copy(dt, src, dst, n);
}

/* Between two typed buffers (fy_coll_copy). */
static inline void fy_emit_copy(fy_emit_t *e, const void *src, MPI_Aint sn, const fy_dtype_t *sdt,
                                void *dst, MPI_Aint dn, const fy_dtype_t *ddt)
{
    if (e->s)
        fy_sched_copy(e->s, src, sn, sdt, dst, dn, ddt);
    else if (e->rc == MPI_SUCCESS)
        e->rc = fy_coll_copy(src, sn, sdt, dst, dn, ddt);
}

/* Where part i of n split into `parts` near-equal parts begins: floor(n * i / parts) without
 * overflow. Parts differ by at most one; with n < parts some are empty. */
static inline MPI_Aint fy_emit_cut(MPI_Aint n, int parts, int i)
{
    return n / parts * i + n % parts * i / parts;
}

#endif
