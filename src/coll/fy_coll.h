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

/* Point-to-point inside collectives: blocking, on the collective context. */
int fy_coll_send(const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag,
                 fy_comm_t *c);
int fy_coll_recv(void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer, int tag, fy_comm_t *c);
int fy_coll_sendrecv(const void *sbuf, MPI_Aint scount, int dst, void *rbuf, MPI_Aint rcount,
                     int src, const fy_dtype_t *dt, int tag, fy_comm_t *c);

enum { FY_TAG_BARRIER = 1, FY_TAG_BCAST, FY_TAG_REDUCE, FY_TAG_ALLREDUCE };

#endif
