/* Communicator queries, duplication and freeing. */
#include <stdio.h>
#include <string.h>

#include "fy_api.h"
#include "fy_attr.h"
#include "fy_coll.h"
#include "fy_info.h"

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_size", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *size = c->size;
    return MPI_SUCCESS;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_rank", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *rank = c->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    fy_comm_t *c, *n = NULL;
    int rc = fy_api_comm("MPI_Comm_dup", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    uint64_t agreed[FY_CID_MASK_WORDS];
    fy_lock();
    if (c->inter) {
        rc = fy_api_intercomm_dup(c, &n);
    } else {
        rc = fy_api_agree_cid(c, agreed);
        if (rc == MPI_SUCCESS)
            rc = fy_comm_dup(c, agreed, &n);
    }
    /* A duplicate has its parent's info hints (MPI_Comm_dup_with_info then replaces them). */
    if (rc == MPI_SUCCESS && c->info && !(n->info = fy_info_dup(c->info))) {
        fy_comm_release(n);
        rc = fy_err_set(MPI_ERR_NO_MEM, "MPI_Comm_dup: out of memory copying info hints");
    }
    if (rc == MPI_SUCCESS && (rc = fy_attr_dup(c, n)) != MPI_SUCCESS)
        fy_comm_release(n);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *newcomm = n->handle;
    return MPI_SUCCESS;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_free", *comm, &c);
    if (rc == MPI_SUCCESS && (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF))
        rc = fy_err_set(MPI_ERR_COMM, "MPI_Comm_free: cannot free %s", c->name);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(*comm, rc);
    /* The delete callbacks run now (MPI 4.1 sec. 7.7.2); when one fails, the free fails, the
     * error goes to the communicator's handler and the communicator stays usable. */
    fy_lock();
    rc = fy_attr_delete_all(c);
    if (rc == MPI_SUCCESS)
        fy_comm_release(c);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(*comm, rc);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_set_name", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    strncpy(c->name, name, MPI_MAX_OBJECT_NAME - 1);
    c->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    /* MPI-4.1: the null handle has a name too (what mpi4py asks for at 4.1). */
    if (comm == MPI_COMM_NULL && name && resultlen) {
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "MPI_COMM_NULL");
        return MPI_SUCCESS;
    }
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_get_name", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    strcpy(name, c->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
