/* Communicators carved from others by color and key: MPI_Comm_split and MPI_Comm_split_type,
 * and MPI_Comm_compare. Every member of the parent takes part in agreeing the new context id,
 * whatever its color, so the parent's collective context stays in step. */
#include <stdlib.h>
#include <string.h>

#include "fy_api.h"
#include "fy_coll.h"
#include "fy_info.h"

typedef struct {
    int key, rank;
} member_t;

static int by_key(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Collective over c: the members of each color, ordered by key then parent rank. */
static int split(const char *fn, fy_comm_t *c, int color, int key, MPI_Comm *newcomm)
{
    if (c->inter)
        return fy_api_intercomm_split(fn, c, color, key, newcomm);
    int rc = MPI_SUCCESS;
    int mine[2] = {color, key};
    int *all = malloc(sizeof(int) * 2 * (size_t)c->size);
    member_t *m = malloc(sizeof(member_t) * (size_t)c->size);
    uint64_t agreed[FY_CID_MASK_WORDS];
    if (!all || !m) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    const fy_dtype_t *ti = fy_dtype_get(MPI_INT);
    rc = fy_allgatherv(mine, 2, ti, all, 2, NULL, NULL, ti, c);
    fy_coll_scratch_done();
    if (rc == MPI_SUCCESS)
        rc = fy_api_agree_cid(c, agreed);
    if (rc != MPI_SUCCESS)
        goto out;
    if (color == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        goto out;
    }
    int n = 0;
    for (int r = 0; r < c->size; r++)
        if (all[2 * r] == color)
            m[n++] = (member_t){all[2 * r + 1], r};
    qsort(m, (size_t)n, sizeof *m, by_key);
    int *world_of = malloc(sizeof(int) * (size_t)n);
    if (!world_of) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    int me = 0;
    for (int i = 0; i < n; i++) {
        world_of[i] = fy_comm_world_rank(c, m[i].rank);
        if (m[i].rank == c->rank)
            me = i;
    }
    fy_comm_t *nc;
    rc = fy_comm_create(c, n, me, world_of, agreed, &nc);
    if (rc == MPI_SUCCESS)
        *newcomm = nc->handle;
out:
    free(all);
    free(m);
    return rc;
}

/* The end of both entry points: the last check, the split under the lock, the error handler. */
static int split_entry(const char *fn, MPI_Comm comm, fy_comm_t *c, int rc, int color, int key,
                       MPI_Comm *newcomm)
{
    if (rc == MPI_SUCCESS && !newcomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = split(fn, c, color, key, newcomm);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split";
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && color < 0 && color != MPI_UNDEFINED)
        rc = fy_err_set(MPI_ERR_ARG, "%s: color %d is negative (and not MPI_UNDEFINED)", fn, color);
    return split_entry(fn, comm, c, rc, color, key, newcomm);
}

/* The colour of an MPI_COMM_TYPE_HW_GUIDED split: MPI 4.1 sec. 7.4.2 names the level by the
 * info key "mpi_hw_resource_type" and gives MPI_COMM_NULL when the key is absent or names a
 * level the implementation does not know. Ferry knows one, "mpi_shared_memory", which holds
 * one host's ranks (the same as MPI_COMM_TYPE_SHARED). */
static int hw_guided_color(const char *fn, MPI_Info info, int *color_p)
{
    *color_p = MPI_UNDEFINED;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    const fy_info_t *i = fy_info_get(info);
    if (!i)
        return fy_err_set(MPI_ERR_INFO, "%s: invalid info object 0x%x", fn, (unsigned)info);
    int k = fy_info_find(i, "mpi_hw_resource_type");
    if (k >= 0 && strcmp(i->kv[k].value, "mpi_shared_memory") == 0)
        *color_p = fy_rt.host;
    return MPI_SUCCESS;
}

/* COMM_TYPE_SHARED keeps the ranks of one host together (the host the launcher started each
 * under: fy_hosts.c); the hardware-guided split knows the one level it can name, shared
 * memory, which is the same. */
int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split_type";
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    int color = 0;
    /* MPI 4.1: a resource-guided split names its level with the same info keys as a
     * hardware-guided one, and Ferry's levels are all hardware ones. */
    if (split_type == MPI_COMM_TYPE_RESOURCE_GUIDED)
        split_type = MPI_COMM_TYPE_HW_GUIDED;
    switch (split_type) {
    case MPI_UNDEFINED: color = MPI_UNDEFINED; break;
    case MPI_COMM_TYPE_SHARED: color = fy_rt.host; break;
    case MPI_COMM_TYPE_HW_GUIDED:
        if (rc == MPI_SUCCESS)
            rc = hw_guided_color(fn, info, &color);
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED: color = MPI_UNDEFINED; break; /* no finer level known */
    default:
        if (rc == MPI_SUCCESS)
            rc = fy_err_set(MPI_ERR_ARG,
                            "%s: split_type %d is not MPI_COMM_TYPE_SHARED, _HW_GUIDED, "
                            "_HW_UNGUIDED or MPI_UNDEFINED",
                            fn, split_type);
    }
    return split_entry(fn, comm, c, rc, color, key, newcomm);
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    const char *fn = "MPI_Comm_compare";
    fy_comm_t *a, *b;
    int rc = fy_api_comm(fn, comm1, &a);
    if (rc == MPI_SUCCESS)
        rc = fy_api_comm(fn, comm2, &b);
    if (rc == MPI_SUCCESS && !result)
        rc = fy_err_set(MPI_ERR_ARG, "%s: result is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm1, rc);
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->size != b->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    bool same_order = true;
    for (int i = 0; i < a->size && same_order; i++)
        same_order = fy_comm_world_rank(a, i) == fy_comm_world_rank(b, i);
    if (same_order) {
        *result = MPI_CONGRUENT;
        return MPI_SUCCESS;
    }
    /* Same members in another order? Mark a's members, then look for b's. */
    int *wa = malloc(sizeof(int) * (size_t)a->size), *wb = malloc(sizeof(int) * (size_t)a->size);
    if (!wa || !wb) {
        free(wa);
        free(wb);
        return fy_err_raise_comm(comm1, fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn));
    }
    for (int i = 0; i < a->size; i++) {
        wa[i] = fy_comm_world_rank(a, i);
        wb[i] = fy_comm_world_rank(b, i);
    }
    qsort(wa, (size_t)a->size, sizeof(int), by_int);
    qsort(wb, (size_t)a->size, sizeof(int), by_int);
    *result = memcmp(wa, wb, sizeof(int) * (size_t)a->size) ? MPI_UNEQUAL : MPI_SIMILAR;
    free(wa);
    free(wb);
    return MPI_SUCCESS;
}
