/* MPI_Comm_get_parent and MPI_Comm_disconnect. Ferry does not spawn processes yet, so no job has
 * a parent; disconnect works on any communicator (MPI 4.1, 11.10.4): it completes what is in
 * flight on it, then frees it, collectively. */
#include "coll_api.h"
#include "fy_api.h"
#include "fy_coll.h"
#include "fy_inter.h"
#include "fy_p2p.h"

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc = fy_api_check_init("MPI_Comm_get_parent");
    if (rc == MPI_SUCCESS && !parent)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Comm_get_parent: parent is NULL");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *parent = MPI_COMM_NULL; /* this job was started by mpiexec, not by MPI_Comm_spawn */
    return MPI_SUCCESS;
}

static bool quiet(void *arg)
{
    return !fy_req_pending_on(arg);
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_disconnect";
    fy_comm_t *c;
    int rc = comm ? fy_api_comm(fn, *comm, &c) : fy_err_set(MPI_ERR_ARG, "%s: comm is NULL", fn);
    if (rc == MPI_SUCCESS && (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF))
        rc = fy_err_set(MPI_ERR_COMM, "%s: cannot disconnect %s", fn, c->name);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm ? *comm : MPI_COMM_SELF, rc);
    fy_lock();
    /* Our own sends and receives first (buffered ones and freed requests included); the barrier
     * then tells every member that the others' are done too, so nothing more arrives on it. */
    fy_wait_until(quiet, c);
    rc = c->inter ? fy_inter_barrier(c) : fy_barrier(c);
    if (rc == MPI_SUCCESS)
        fy_comm_release(c);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(*comm, rc);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
