/* Collectives on intercommunicators (inter.c): the blocking forms and the schedule builders
 * of the nonblocking and persistent ones, the same algorithm each (inter.c says which and what
 * it costs).
 *
 * Messages between the groups go over the intercommunicator (ranks name the remote group),
 * phases inside a group over its hidden intracommunicator c->local with the intracommunicator
 * collectives of fy_coll.h (schedules: fy_sched_local). Local rank 0 of each group is its
 * leader.
 *
 * `root` is the caller's argument, already checked: MPI_ROOT at the root, MPI_PROC_NULL at the
 * other members of the root's group, the root's rank in the remote group everywhere else.
 * Count and displacement arrays index the remote group, except Reduce_scatter's, which index
 * the local one (each group scatters the other group's result among its own members). Buffers
 * are never MPI_IN_PLACE (the API refuses it on intercommunicators). */
#ifndef FY_INTER_H
#define FY_INTER_H

#include "fy_coll.h"

int fy_inter_barrier(fy_comm_t *c);
int fy_inter_bcast(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c);
int fy_inter_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                    int root, fy_comm_t *c);
int fy_inter_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                       MPI_Op op, fy_comm_t *c);
int fy_inter_gatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                     MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                     const fy_dtype_t *rdt, int root, fy_comm_t *c);
int fy_inter_scatterv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                      const MPI_Aint *displs, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                      const fy_dtype_t *rdt, int root, fy_comm_t *c);
int fy_inter_allgatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                        MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                        const fy_dtype_t *rdt, fy_comm_t *c);
int fy_inter_alltoallv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                       const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                       const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                       fy_comm_t *c);
/* rcounts NULL: every member of the local group gets rcount elements (Reduce_scatter_block). */
int fy_inter_reduce_scatter(const void *sbuf, void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                            const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c);

/* Schedule builders: s was made on the intercommunicator (fy_sched_new); arrays are read while
 * building, never kept. Alltoallw has no hand-written blocking form: it runs this schedule. */
void fy_inter_barrier_sched(fy_sched_t *s);
void fy_inter_bcast_sched(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt, int root);
void fy_inter_reduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                           const fy_dtype_t *dt, MPI_Op op, int root);
void fy_inter_allreduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                              const fy_dtype_t *dt, MPI_Op op);
void fy_inter_gatherv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                            void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                            const MPI_Aint *displs, const fy_dtype_t *rdt, int root);
void fy_inter_scatterv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                             const MPI_Aint *scounts, const MPI_Aint *displs, const fy_dtype_t *sdt,
                             void *rbuf, MPI_Aint rcount, const fy_dtype_t *rdt, int root);
void fy_inter_allgatherv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                               const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                               const MPI_Aint *rcounts, const MPI_Aint *displs,
                               const fy_dtype_t *rdt);
void fy_inter_alltoallv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                              const MPI_Aint *scounts, const MPI_Aint *sdispls,
                              const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                              const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                              const fy_dtype_t *rdt);
/* Alltoallw: a type per block, displacements in bytes. */
void fy_inter_alltoallw_sched(fy_sched_t *s, const void *sbuf, const MPI_Aint *scounts,
                              const MPI_Aint *sdispls, const fy_dtype_t *const *sdts, void *rbuf,
                              const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                              const fy_dtype_t *const *rdts);
void fy_inter_reduce_scatter_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint rcount,
                                   const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op);

#endif
