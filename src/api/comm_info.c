/* Info hints on communicators: MPI_Comm_set_info, MPI_Comm_get_info, MPI_Comm_dup_with_info.
 *
 * A communicator keeps its hints as a private info object (fy_comm_t.info, NULL when none).
 * Ferry acts on no hint yet, but keeps every key it is given, known or not, and returns them
 * from MPI_Comm_get_info: the standard allows dropping unknown keys, but users expect to read
 * back what they set. MPI_Comm_set_info adds to the hints already there (a key given again
 * takes its new value); MPI_Comm_dup copies them; MPI_Comm_dup_with_info gives the new
 * communicator the info passed instead of the parent's hints. MPI_INFO_NULL stands for no
 * hints in both calls that take an info. */
#include "fy_api.h"
#include "fy_info.h"

/* The hints in `h`: NULL for MPI_INFO_NULL (*i_p too), else a valid info. */
static int hints_arg(const char *fn, MPI_Info h, fy_info_t **i_p)
{
    *i_p = NULL;
    if (h == MPI_INFO_NULL)
        return MPI_SUCCESS;
    if (!(*i_p = fy_info_get(h)))
        return fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x (freed, or not an info object)", fn,
                          (unsigned)h);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    const char *fn = "MPI_Comm_set_info";
    fy_comm_t *c;
    fy_info_t *given = NULL;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_lock();
    rc = hints_arg(fn, info, &given);
    if (rc == MPI_SUCCESS && given && given->n) {
        if (!c->info)
            c->info = fy_info_new();
        if (!c->info || fy_info_merge(c->info, given) != MPI_SUCCESS)
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* A new info object holding the hints in use; the user frees it. */
int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    const char *fn = "MPI_Comm_get_info";
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && !info_used)
        rc = fy_err_set(MPI_ERR_ARG, "%s: info_used is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_lock();
    fy_info_t *copy = c->info ? fy_info_dup(c->info) : fy_info_new();
    if (!copy || (rc = fy_info_publish(copy, info_used)) != MPI_SUCCESS)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* MPI_Comm_dup (attributes, error handler, topology) with the given hints in place of the
 * parent's. The info is checked before the collective part, on every process alike. */
int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_dup_with_info";
    fy_comm_t *c;
    fy_info_t *given = NULL;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && !newcomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = hints_arg(fn, info, &given);
        fy_unlock();
    }
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);

    MPI_Comm h;
    rc = PMPI_Comm_dup(comm, &h); /* raised its own errors */
    if (rc != MPI_SUCCESS)
        return rc;
    fy_lock();
    fy_comm_t *n = fy_comm_get(h);
    fy_info_free(n->info);
    n->info = NULL;
    rc = hints_arg(fn, info, &given); /* again: the lock was let go meanwhile */
    if (rc == MPI_SUCCESS && given && given->n && !(n->info = fy_info_dup(given)))
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc != MPI_SUCCESS)
        fy_comm_release(n);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *newcomm = h;
    return MPI_SUCCESS;
}
