/* The collectives' argument checks and dispatch, shared by the blocking (MPI_Bcast), the
 * nonblocking (MPI_Ibcast) and the persistent (MPI_Bcast_init) entry points of each collective
 * and by their large-count (_c) forms. Each function checks the arguments, runs the collective
 * (blocking) or builds its schedule and makes the request, raises any error on the
 * communicator and returns what the entry point returns. `request` is set only on success. */
#ifndef FY_API_COLL_H
#define FY_API_COLL_H

#include "fy_api.h"
#include "fy_coll.h"

typedef enum { FY_COLL_BLOCKING, FY_COLL_NONBLOCKING, FY_COLL_PERSISTENT } fy_coll_mode_t;

/* A fresh schedule for a nonblocking or persistent collective on c; NULL with the class in
 * *rc_p (message set). */
fy_sched_t *fy_api_sched_new(const char *fn, fy_comm_t *c, int *rc_p);
/* Starts (nonblocking) or parks (persistent) a built schedule as the user's request. */
int fy_api_sched_go(fy_sched_t *s, fy_coll_mode_t mode, MPI_Request *request);

/* The root argument of a rooted collective: a rank of c (MPI_ERR_ROOT otherwise); on an
 * intercommunicator MPI_ROOT, MPI_PROC_NULL or a rank of the remote group. */
int fy_api_root(const char *fn, const fy_comm_t *c, int root);
/* MPI_ERR_BUFFER, message set: argument `arg` is MPI_IN_PLACE on intercommunicator c, where
 * MPI defines no in-place form. */
int fy_api_inter_in_place(const char *fn, const fy_comm_t *c, const char *arg);

int fy_api_barrier(const char *fn, MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_bcast(const char *fn, void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                 MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_reduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                  MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, fy_coll_mode_t mode,
                  MPI_Request *request);
int fy_api_allreduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, fy_coll_mode_t mode,
                     MPI_Request *request);
int fy_api_scan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool exclusive,
                fy_coll_mode_t mode, MPI_Request *request);

/* The data movers. The MPI_Aint-array forms serve the plain and _c entry points; the _int
 * forms widen the int arrays of the v and w entry points first. */
int fy_api_gather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                  void *rbuf, MPI_Count rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                  MPI_Datatype rtype, int root, MPI_Comm comm, fy_coll_mode_t mode,
                  MPI_Request *request);
int fy_api_gatherv_int(const char *fn, const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       const int rcounts[], const int displs[], MPI_Datatype rtype, int root,
                       MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_scatter(const char *fn, const void *sbuf, MPI_Count scount, const MPI_Aint *scounts,
                   const MPI_Aint *displs, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype, int root, MPI_Comm comm, fy_coll_mode_t mode,
                   MPI_Request *request);
int fy_api_scatterv_int(const char *fn, const void *sbuf, const int scounts[], const int displs[],
                        MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
                        MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_allgather(const char *fn, const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                     void *rbuf, MPI_Count rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                     MPI_Datatype rtype, MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_allgatherv_int(const char *fn, const void *sbuf, int scount, MPI_Datatype stype,
                          void *rbuf, const int rcounts[], const int displs[], MPI_Datatype rtype,
                          MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_alltoall(const char *fn, const void *sbuf, MPI_Count scount, const MPI_Aint *scounts,
                    const MPI_Aint *sdispls, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                    const MPI_Aint *rcounts, const MPI_Aint *rdispls, MPI_Datatype rtype,
                    MPI_Comm comm, fy_coll_mode_t mode, MPI_Request *request);
int fy_api_alltoallv_int(const char *fn, const void *sbuf, const int scounts[], const int sdispls[],
                         MPI_Datatype stype, void *rbuf, const int rcounts[], const int rdispls[],
                         MPI_Datatype rtype, MPI_Comm comm, fy_coll_mode_t mode,
                         MPI_Request *request);
int fy_api_alltoallw(const char *fn, const void *sbuf, const MPI_Aint scounts[],
                     const MPI_Aint sdispls[], const MPI_Datatype stypes[], void *rbuf,
                     const MPI_Aint rcounts[], const MPI_Aint rdispls[],
                     const MPI_Datatype rtypes[], MPI_Comm comm, fy_coll_mode_t mode,
                     MPI_Request *request);
int fy_api_alltoallw_int(const char *fn, const void *sbuf, const int scounts[], const int sdispls[],
                         const MPI_Datatype stypes[], void *rbuf, const int rcounts[],
                         const int rdispls[], const MPI_Datatype rtypes[], MPI_Comm comm,
                         fy_coll_mode_t mode, MPI_Request *request);
int fy_api_reduce_scatter(const char *fn, const void *sbuf, void *rbuf, MPI_Count rcount,
                          const MPI_Aint *rcounts, MPI_Datatype dtype, MPI_Op op, MPI_Comm comm,
                          fy_coll_mode_t mode, MPI_Request *request);
int fy_api_reduce_scatter_int(const char *fn, const void *sbuf, void *rbuf, const int rcounts[],
                              MPI_Datatype dtype, MPI_Op op, MPI_Comm comm, fy_coll_mode_t mode,
                              MPI_Request *request);

#endif
