/* Groups: MPI_Comm_group, MPI_Comm_remote_group and the MPI_Group_* calls. The work is in
 * src/core/fy_group.c; here are the handle and pointer checks, the lock and the error handler
 * (MPI_COMM_SELF's, since a group is no communicator; MPI_Comm_group raises on its communicator).
 */
#include "fy_api.h"
#include "fy_group.h"

/* A live group handle (lock held). `what` names the argument. */
static int group_arg(const char *fn, const char *what, MPI_Group h, fy_group_t **g_p)
{
    int rc = fy_api_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_group_t *g = fy_group_get(h);
    if (!g) {
        if (h == MPI_GROUP_NULL)
            return fy_err_set(MPI_ERR_GROUP, "%s: %s is MPI_GROUP_NULL", fn, what);
        return fy_err_set(MPI_ERR_GROUP, "%s: %s 0x%x is not a valid group", fn, what, (unsigned)h);
    }
    *g_p = g;
    return MPI_SUCCESS;
}

static int out_arg(const char *fn, const char *what, const void *p)
{
    return p ? MPI_SUCCESS : fy_err_set(MPI_ERR_ARG, "%s: %s is NULL", fn, what);
}

/* Gives a new group its handle (lock held); on failure the group is released. */
static int publish(const char *fn, fy_group_t *g, MPI_Group *newgroup)
{
    int rc = fy_group_register(fn, g);
    if (rc != MPI_SUCCESS) {
        fy_group_release(g);
        return rc;
    }
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

static int raise_self(int rc)
{
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    const char *fn = "MPI_Comm_group";
    fy_comm_t *c;
    fy_group_t *g;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "group", group);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_group_from_comm(fn, c, &g);
        if (rc == MPI_SUCCESS)
            rc = publish(fn, g, group);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    const char *fn = "MPI_Comm_remote_group";
    fy_comm_t *c;
    fy_group_t *g;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && !c->inter)
        rc = fy_err_set(MPI_ERR_COMM, "%s: %s is not an intercommunicator", fn,
                        c->name[0] ? c->name : "the communicator");
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "group", group);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_group_from_map(fn, c->peer_size, c->peer_world_of, &g);
        if (rc == MPI_SUCCESS)
            rc = publish(fn, g, group);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    const char *fn = "MPI_Group_size";
    fy_group_t *g;
    fy_lock();
    int rc = group_arg(fn, "group", group, &g);
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "size", size);
    if (rc == MPI_SUCCESS)
        *size = fy_group_size(g);
    fy_unlock();
    return raise_self(rc);
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    const char *fn = "MPI_Group_rank";
    fy_group_t *g;
    fy_lock();
    int rc = group_arg(fn, "group", group, &g);
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "rank", rank);
    if (rc == MPI_SUCCESS)
        *rank = g->rank;
    fy_unlock();
    return raise_self(rc);
}

int PMPI_Group_free(MPI_Group *group)
{
    const char *fn = "MPI_Group_free";
    fy_group_t *g;
    int rc = out_arg(fn, "group", group);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = group_arg(fn, "group", *group, &g);
        /* MPI_GROUP_EMPTY is what every empty result is, so programs free it as they free any
         * group they were given; like MPICH and Open MPI, that succeeds and does nothing. */
        if (rc == MPI_SUCCESS)
            fy_group_free_handle(g);
        fy_unlock();
    }
    if (rc != MPI_SUCCESS)
        return raise_self(rc);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    const char *fn = "MPI_Group_compare";
    fy_group_t *a, *b;
    fy_lock();
    int rc = group_arg(fn, "group1", group1, &a);
    if (rc == MPI_SUCCESS)
        rc = group_arg(fn, "group2", group2, &b);
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "result", result);
    if (rc == MPI_SUCCESS)
        *result = fy_group_compare(a, b);
    fy_unlock();
    return raise_self(rc);
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    fy_group_t *a, *b;
    fy_lock();
    int rc = group_arg(fn, "group1", group1, &a);
    if (rc == MPI_SUCCESS)
        rc = group_arg(fn, "group2", group2, &b);
    if (rc == MPI_SUCCESS)
        rc = fy_group_translate(fn, a, n, ranks1, b, ranks2);
    fy_unlock();
    return raise_self(rc);
}

/* The set operations share everything but the operation. */
typedef int set_op_fn(const char *fn, const fy_group_t *a, const fy_group_t *b, fy_group_t **g_p);

static int set_op(const char *fn, set_op_fn *op, MPI_Group group1, MPI_Group group2,
                  MPI_Group *newgroup)
{
    fy_group_t *a, *b, *g;
    fy_lock();
    int rc = group_arg(fn, "group1", group1, &a);
    if (rc == MPI_SUCCESS)
        rc = group_arg(fn, "group2", group2, &b);
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "newgroup", newgroup);
    if (rc == MPI_SUCCESS)
        rc = op(fn, a, b, &g);
    if (rc == MPI_SUCCESS)
        rc = publish(fn, g, newgroup);
    fy_unlock();
    return raise_self(rc);
}

int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", fy_group_union, group1, group2, newgroup);
}

int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", fy_group_intersection, group1, group2, newgroup);
}

int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", fy_group_difference, group1, group2, newgroup);
}

/* Inclusion and exclusion, by list or by ranges. */
typedef int list_op_fn(const char *fn, const fy_group_t *g, int n, const int *ranks,
                       fy_group_t **g_p);
typedef int range_op_fn(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3],
                        fy_group_t **g_p);

static int subset_op(const char *fn, list_op_fn *list_op, range_op_fn *range_op, MPI_Group group,
                     int n, const int *ranks, const int (*ranges)[3], MPI_Group *newgroup)
{
    fy_group_t *g, *ng;
    fy_lock();
    int rc = group_arg(fn, "group", group, &g);
    if (rc == MPI_SUCCESS)
        rc = out_arg(fn, "newgroup", newgroup);
    if (rc == MPI_SUCCESS)
        rc = list_op ? list_op(fn, g, n, ranks, &ng) : range_op(fn, g, n, ranges, &ng);
    if (rc == MPI_SUCCESS)
        rc = publish(fn, ng, newgroup);
    fy_unlock();
    return raise_self(rc);
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return subset_op("MPI_Group_incl", fy_group_incl, NULL, group, n, ranks, NULL, newgroup);
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return subset_op("MPI_Group_excl", fy_group_excl, NULL, group, n, ranks, NULL, newgroup);
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return subset_op("MPI_Group_range_incl", NULL, fy_group_range_incl, group, n, NULL,
                     (const int(*)[3])ranges, newgroup);
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return subset_op("MPI_Group_range_excl", NULL, fy_group_range_excl, group, n, NULL,
                     (const int(*)[3])ranges, newgroup);
}
