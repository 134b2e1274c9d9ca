/* The persistent collectives (MPI-4, ..._init): the same argument checks as the blocking forms
 * (coll_api.h); the schedule is built once, bound to an inactive persistent request that
 * MPI_Start/MPI_Startall run again and again, and freed with MPI_Request_free. The info
 * argument is accepted and ignored. */
#include "coll_api.h"

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_barrier("MPI_Barrier_init", comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, FY_COLL_PERSISTENT,
                        request);
}

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, FY_COLL_PERSISTENT,
                        request);
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_reduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm,
                         FY_COLL_PERSISTENT, request);
}

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_reduce("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op, root, comm,
                         FY_COLL_PERSISTENT, request);
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_allreduce("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm,
                            FY_COLL_PERSISTENT, request);
}

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_allreduce("MPI_Allreduce_init_c", sendbuf, recvbuf, count, datatype, op, comm,
                            FY_COLL_PERSISTENT, request);
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scan("MPI_Scan_init", sendbuf, recvbuf, count, datatype, op, comm, false,
                       FY_COLL_PERSISTENT, request);
}

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scan("MPI_Scan_init_c", sendbuf, recvbuf, count, datatype, op, comm, false,
                       FY_COLL_PERSISTENT, request);
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scan("MPI_Exscan_init", sendbuf, recvbuf, count, datatype, op, comm, true,
                       FY_COLL_PERSISTENT, request);
}

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scan("MPI_Exscan_init_c", sendbuf, recvbuf, count, datatype, op, comm, true,
                       FY_COLL_PERSISTENT, request);
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_gather("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                         NULL, NULL, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_gatherv_int("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                              displs, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_gather("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scatter("MPI_Scatter_init", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scatter("MPI_Scatter_init_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scatterv_int("MPI_Scatterv_init", sendbuf, sendcounts, displs, sendtype, recvbuf,
                               recvcount, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_scatter("MPI_Scatterv_init_c", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            NULL, NULL, recvtype, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_allgather("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf,
                            recvcount, NULL, NULL, recvtype, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_allgatherv_int("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                                 recvcounts, displs, recvtype, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_allgather("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                            recvcounts, displs, recvtype, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_alltoall("MPI_Alltoall_init", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                           recvcount, NULL, NULL, recvtype, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_alltoall("MPI_Alltoall_init_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                           recvcount, NULL, NULL, recvtype, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_alltoallv_int("MPI_Alltoallv_init", sendbuf, sendcounts, sdispls, sendtype,
                                recvbuf, recvcounts, rdispls, recvtype, comm, FY_COLL_PERSISTENT,
                                request);
}

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_alltoall("MPI_Alltoallv_init_c", sendbuf, 0, sendcounts, sdispls, sendtype,
                           recvbuf, 0, recvcounts, rdispls, recvtype, comm, FY_COLL_PERSISTENT,
                           request);
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_alltoallw_int("MPI_Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes,
                                recvbuf, recvcounts, rdispls, recvtypes, comm, FY_COLL_PERSISTENT,
                                request);
}

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_alltoallw("MPI_Alltoallw_init_c", sendbuf, sendcounts, sdispls, sendtypes,
                            recvbuf, recvcounts, rdispls, recvtypes, comm, FY_COLL_PERSISTENT,
                            request);
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_reduce_scatter_int("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts,
                                     datatype, op, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_reduce_scatter("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, 0, recvcounts,
                                 datatype, op, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_reduce_scatter("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, FY_COLL_PERSISTENT, request);
}

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    (void)info; /* no hints are acted on */
    return fy_api_reduce_scatter("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, recvcount,
                                 NULL, datatype, op, comm, FY_COLL_PERSISTENT, request);
}
