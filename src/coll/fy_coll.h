/* Collectives built on point-to-point, in the communicator's collective context. This
 * release has the four that classic programs need; each file holds one collective and says
 * what its algorithm costs. */
#ifndef FY_COLL_H
#define FY_COLL_H

#include "fy_comm.h"
#include "fy_dtype.h"
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
