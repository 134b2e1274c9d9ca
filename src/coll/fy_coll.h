/* Collectives built on point-to-point, in the communicator's collective context. Each file
 * holds one collective: its blocking form (hand-written, small fixed tags FY_TAG_*) and its
 * schedule builder for the nonblocking and persistent forms (fy_sched.h), and says what its
 * algorithm costs. */
#ifndef FY_COLL_H
#define FY_COLL_H

#include "fy_comm.h"
#include "fy_dtype.h"
#include "fy_sched.h"
#include "mpi.h"

int fy_barrier(fy_comm_t *c);
int fy_bcast(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c);
int fy_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
              int root, fy_comm_t *c);
int fy_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                 fy_comm_t *c);
/* Inclusive (exclusive = false) or exclusive prefix reduction; sbuf == MPI_IN_PLACE takes the
 * input from rbuf. The exclusive form leaves rank 0's rbuf untouched. */
int fy_scan(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
            bool exclusive, fy_comm_t *c);

/* Point-to-point inside collectives: blocking, on the collective context. */
int fy_coll_send(const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag,
                 fy_comm_t *c);
int fy_coll_recv(void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag, fy_comm_t *c);
int fy_coll_sendrecv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, int dst, void *rbuf,
                     MPI_Aint rcount, const fy_dtype_t *rdt, int src, int tag, fy_comm_t *c);
/* Nonblocking forms: NULL when out of memory. fy_coll_waitall waits for and frees them (NULL
 * entries skipped) and returns the first error. */
struct fy_req;
struct fy_req *fy_coll_isend(const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer,
                             int tag, fy_comm_t *c);
struct fy_req *fy_coll_irecv(void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag,
                             fy_comm_t *c);
int fy_coll_waitall(struct fy_req **reqs, int n);
/* Scratch space reused across calls (slot 0 or 1: an algorithm may need two at once); valid
 * until the next call with the same slot. NULL when out of memory (message set). A collective
 * that used scratch calls fy_coll_scratch_done before returning (it frees the per-call
 * buffers of MPI_THREAD_MULTIPLE and does nothing otherwise). */
void *fy_coll_scratch(int slot, size_t bytes);
/* Scratch for `n` vectors of `count` elements of dt, each in dt's own layout (its true extent,
 * so derived types with holes or a nonzero lower bound fit): returns the origin of vector 0;
 * vector i starts *stride_p bytes further (stride_p may be NULL when n is 1). */
char *fy_coll_scratch_typed(int slot, const fy_dtype_t *dt, MPI_Aint count, int n,
                            size_t *stride_p);
void fy_coll_scratch_done(void);
void fy_coll_fini(void);
/* A rank's own contribution copied between two typed buffers (MPI_ERR_TRUNCATE if too big). */
int fy_coll_copy(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                 MPI_Aint rcount, const fy_dtype_t *rdt);

/* The data-movement collectives. Counts and displacements are per rank (NULL counts: all
 * equal to the scalar count; NULL displacements: packed blocks). MPI_IN_PLACE is passed as
 * itself (a NULL buffer is a legal empty one). */
int fy_gatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
               MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
               const fy_dtype_t *rdt, int root, fy_comm_t *c);
int fy_scatterv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts, const MPI_Aint *displs,
                const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount, const fy_dtype_t *rdt, int root,
                fy_comm_t *c);
int fy_allgatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                  MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                  const fy_dtype_t *rdt, fy_comm_t *c);
int fy_alltoallv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                 const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                 const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                 fy_comm_t *c);
int fy_reduce_scatter(const void *sbuf, void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                      const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c);

/* Schedule builders (fy_sched.h): the same algorithms as the blocking forms above, added to s as
 * rounds, for the nonblocking and persistent collectives. Arguments as for the blocking forms
 * (MPI_IN_PLACE passed as itself where the blocking form takes it so; the reductions other
 * than scan take sbuf already resolved). Counts and displacement arrays are read while
 * building, never kept. */
void fy_barrier_sched(fy_sched_t *s);
void fy_bcast_sched(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt, int root);
void fy_reduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                     const fy_dtype_t *dt, MPI_Op op, int root);
void fy_allreduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                        const fy_dtype_t *dt, MPI_Op op);
void fy_scan_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                   const fy_dtype_t *dt, MPI_Op op, bool exclusive);
void fy_gatherv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                      void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                      const fy_dtype_t *rdt, int root);
void fy_scatterv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                       const MPI_Aint *displs, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                       const fy_dtype_t *rdt, int root);
void fy_allgatherv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                         void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                         const MPI_Aint *displs, const fy_dtype_t *rdt);
void fy_alltoallv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                        const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                        const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt);
/* Alltoallw: a type per block, displacements in bytes (sbuf MPI_IN_PLACE: the send side is
 * the receive side's blocks; sdts and its arrays are then ignored). */
void fy_alltoallw_sched(fy_sched_t *s, const void *sbuf, const MPI_Aint *scounts,
                        const MPI_Aint *sdispls, const fy_dtype_t *const *sdts, void *rbuf,
                        const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                        const fy_dtype_t *const *rdts);
void fy_reduce_scatter_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint rcount,
                             const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op);

enum {
    FY_TAG_BARRIER = 1,
    FY_TAG_BCAST,
    FY_TAG_REDUCE,
    FY_TAG_ALLREDUCE,
    FY_TAG_GATHER,
    FY_TAG_SCATTER,
    FY_TAG_ALLGATHER,
    FY_TAG_ALLTOALL,
    FY_TAG_REDUCE_SCATTER,
    FY_TAG_SCAN,
};

/* Count and displacement of block i (the v-forms' arrays, or the uniform defaults). */
static inline MPI_Aint fy_coll_count(MPI_Aint count, const MPI_Aint *counts, int i)
{
    return counts ? counts[i] : count;
}
static inline MPI_Aint fy_coll_displ(MPI_Aint count, const MPI_Aint *displs, int i)
{
    return displs ? displs[i] : count * i;
}

#endif
