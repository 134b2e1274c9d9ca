/* The nonblocking collectives (MPI_I...): the same argument checks as the blocking forms
 * (coll_api.h), then a schedule started at once; the request completes when it has run. */
#include "coll_api.h"

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return fy_api_barrier("MPI_Ibarrier", comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                MPI_Request *request)
{
    return fy_api_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, FY_COLL_NONBLOCKING,
                        request);
}

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return fy_api_bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, FY_COLL_NONBLOCKING,
                        request);
}

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm,
                         FY_COLL_NONBLOCKING, request);
}

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm,
                         FY_COLL_NONBLOCKING, request);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    return fy_api_allreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm,
                            FY_COLL_NONBLOCKING, request);
}

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_allreduce("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, comm,
                            FY_COLL_NONBLOCKING, request);
}

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, MPI_Request *request)
{
    return fy_api_scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, false,
                       FY_COLL_NONBLOCKING, request);
}

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_scan("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op, comm, false,
                       FY_COLL_NONBLOCKING, request);
}

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    return fy_api_scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, true,
                       FY_COLL_NONBLOCKING, request);
}

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_scan("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype, op, comm, true,
                       FY_COLL_NONBLOCKING, request);
}

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return fy_api_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    return fy_api_gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, NULL,
                         NULL, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm, MPI_Request *request)
{
    return fy_api_gatherv_int("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                              displs, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                    int root, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_gather("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                         displs, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    return fy_api_scatter("MPI_Iscatter", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request *request)
{
    return fy_api_scatter("MPI_Iscatter_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_scatterv_int("MPI_Iscatterv", sendbuf, sendcounts, displs, sendtype, recvbuf,
                               recvcount, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_scatter("MPI_Iscatterv_c", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                          recvcount, recvtype, root, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            NULL, NULL, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    return fy_api_allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            NULL, NULL, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm, MPI_Request *request)
{
    return fy_api_allgatherv_int("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf,
                                 recvcounts, displs, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_allgather("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0,
                            recvcounts, displs, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_alltoall("MPI_Ialltoall", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                           recvcount, NULL, NULL, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    return fy_api_alltoall("MPI_Ialltoall_c", sendbuf, sendcount, NULL, NULL, sendtype, recvbuf,
                           recvcount, NULL, NULL, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_alltoallv_int("MPI_Ialltoallv", sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                recvcounts, rdispls, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *request)
{
    return fy_api_alltoall("MPI_Ialltoallv_c", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf,
                           0, recvcounts, rdispls, recvtype, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                    MPI_Request *request)
{
    return fy_api_alltoallw_int("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                recvcounts, rdispls, recvtypes, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    return fy_api_alltoallw("MPI_Ialltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                            recvcounts, rdispls, recvtypes, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_reduce_scatter_int("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, datatype,
                                     op, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return fy_api_reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, 0, recvcounts, datatype,
                                 op, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    return fy_api_reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, FY_COLL_NONBLOCKING, request);
}

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 MPI_Request *request)
{
    return fy_api_reduce_scatter("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, FY_COLL_NONBLOCKING, request);
}
