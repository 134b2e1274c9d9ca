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

#include "fy_coll.h"

typedef struct fy_sel {
    fy_comm_t *comm;
    int p;        /* communicator size */
    bool pof2;    /* p is a power of two */
    bool commute; /* the operator is commutative (true when there is none) */
    bool vector;  /* a v-form: counts per rank (or per block) */
    bool sched;   /* choosing for a schedule (nonblocking or persistent) */
    size_t bytes; /* the size measure, per collective:
                   *   Bcast, Reduce, Allreduce: the message (count * type size)
                   *   Allgather(v): one rank's block (v: the average over ranks)
                   *   Alltoall: one block (v: 0, unknown everywhere)
                   *   Reduce_scatter: the whole vector; Gather, Scatter: one block (v: 0) */
    size_t total; /* the data one rank ends with (Allgather: p blocks), else = bytes */
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

/* Reads FERRY_COLL_<NAME> for every table (at MPI_Init, once): MPI_SUCCESS, or MPI_ERR_OTHER
 * with a message listing the valid names when one names no algorithm of its collective. */
int fy_select_init(void);
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

fy_reduce_scatter_fn_t fy_reduce_scatter_pairwise;
fy_reduce_scatter_sched_fn_t fy_reduce_scatter_pairwise_sched;

fy_gather_fn_t fy_gatherv_linear;
fy_gather_sched_fn_t fy_gatherv_linear_sched;

fy_scatter_fn_t fy_scatterv_linear;
fy_scatter_sched_fn_t fy_scatterv_linear_sched;

#endif
