/* Communicators from groups: MPI_Comm_create (collective over the parent: every member agrees
 * the id, those outside the group get MPI_COMM_NULL) and MPI_Comm_create_group (collective
 * over the group only: the id is agreed among its members, point to point on the parent's
 * collective context, tagged with the user's tag so that concurrent creations on overlapping
 * groups keep apart). */
#include <stdlib.h>

#include "fy_api.h"
#include "fy_errhandler.h"
#include "fy_group.h"
#include "fy_session.h"

/* The group's members must all belong to the communicator. */
static int check_subset(const char *fn, const fy_comm_t *c, const fy_group_t *g)
{
    if (!c->world_of && c->size == fy_rt.size) { /* all of world: any group's members */
        return MPI_SUCCESS;
    }
    for (int r = 0; r < fy_group_size(g); r++) {
        int w = fy_group_world_rank(g, r), found = 0;
        for (int i = 0; i < c->size && !found; i++)
            found = fy_comm_world_rank(c, i) == w;
        if (!found)
            return fy_err_set(MPI_ERR_GROUP,
                              "%s: member %d of the group (world rank %d) is not in the "
                              "communicator",
                              fn, r, w);
    }
    return MPI_SUCCESS;
}

static int args(const char *fn, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm,
                bool intra_only, fy_comm_t **c_p, fy_group_t **g_p)
{
    int rc = fy_api_comm(fn, comm, c_p);
    if (rc == MPI_SUCCESS && (*c_p)->inter && intra_only)
        rc = fy_err_set(MPI_ERR_COMM,
                        "%s: comm is an intercommunicator (MPI_Comm_create_group takes an "
                        "intracommunicator)",
                        fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        *g_p = fy_group_get(group);
        if (*g_p)
            fy_group_ref(*g_p);
        fy_unlock();
        if (!*g_p)
            rc = fy_err_set(MPI_ERR_GROUP, "%s: invalid group 0x%x", fn, (unsigned)group);
    }
    if (rc == MPI_SUCCESS && !newcomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    return rc;
}

/* The new communicator over g's members, this process being a member. */
static int make(const char *fn, fy_comm_t *parent, const fy_group_t *g, const uint64_t *agreed,
                MPI_Comm *newcomm)
{
    int *world_of = NULL;
    int rc = fy_group_world_of(fn, g, &world_of);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_comm_t *nc;
    rc = fy_comm_create(parent, fy_group_size(g), fy_group_rank_of_world(g, fy_rt.rank), world_of,
                        agreed, &nc);
    if (rc == MPI_SUCCESS)
        *newcomm = nc->handle;
    return rc;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    fy_comm_t *c = NULL;
    fy_group_t *g = NULL;
    int rc = args(fn, comm, group, newcomm, false, &c, &g);
    if (rc == MPI_SUCCESS)
        rc = check_subset(fn, c, g);
    if (rc == MPI_SUCCESS && c->inter) {
        /* The local group's members in the group's order against the remote group's choice
         * (MPI 4.1 7.4.2): the split of the intercommunicator with color "in the group". */
        int me = fy_group_rank_of_world(g, fy_rt.rank);
        fy_lock();
        rc = fy_api_intercomm_split(fn, c, me == MPI_UNDEFINED ? MPI_UNDEFINED : 0, me, newcomm);
        fy_unlock();
    } else if (rc == MPI_SUCCESS) {
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_lock();
        rc = fy_api_agree_cid(c, agreed);
        if (rc == MPI_SUCCESS) {
            if (fy_group_rank_of_world(g, fy_rt.rank) == MPI_UNDEFINED)
                *newcomm = MPI_COMM_NULL;
            else
                rc = make(fn, c, g, agreed, newcomm);
        }
        fy_unlock();
    }
    if (g) {
        fy_lock();
        fy_group_release(g);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* Tags of the agreement on the parent's collective context: clear of the collectives' own. */
#define CREATE_GROUP_TAG(t) (0x40000000 | ((t)&0x3fffffff))

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    fy_comm_t *c = NULL;
    fy_group_t *g = NULL;
    int rc = args(fn, comm, group, newcomm, true, &c, &g);
    if (rc == MPI_SUCCESS && tag < 0)
        rc = fy_err_set(MPI_ERR_TAG, "%s: invalid tag %d", fn, tag);
    if (rc == MPI_SUCCESS)
        rc = check_subset(fn, c, g);
    int me = rc == MPI_SUCCESS ? fy_group_rank_of_world(g, fy_rt.rank) : MPI_UNDEFINED;
    if (rc == MPI_SUCCESS && me == MPI_UNDEFINED)
        rc = fy_err_set(MPI_ERR_GROUP, "%s: the calling process is not in the group", fn);
    if (rc == MPI_SUCCESS && fy_group_size(g) == 0)
        *newcomm = MPI_COMM_NULL;
    else if (rc == MPI_SUCCESS) {
        /* The group seen as a communicator on the parent's contexts, for the agreement. */
        int *world_of = NULL;
        rc = fy_group_world_of(fn, g, &world_of);
        if (rc == MPI_SUCCESS) {
            fy_comm_t view = *c;
            view.rank = me;
            view.size = view.peer_size = fy_group_size(g);
            view.world_of = view.peer_world_of = world_of;
            uint64_t agreed[FY_CID_MASK_WORDS];
            fy_lock();
            rc = fy_api_agree_cid_tagged(&view,
                                         ((int64_t)c->cid << 32) | 0x80000000 | (tag & 0x3fffffff),
                                         CREATE_GROUP_TAG(tag), agreed);
            if (rc == MPI_SUCCESS)
                rc = make(fn, c, g, agreed, newcomm);
            fy_unlock();
            free(world_of);
        }
    }
    if (g) {
        fy_lock();
        fy_group_release(g);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

/* ---- MPI-4: communicators from a group alone (no parent communicator) ----
 * Every group here is a set of world ranks, so the agreement runs on MPI_COMM_WORLD's
 * collective context, among the group's members, under a tag derived from the string tag
 * (distinct string tags keep concurrent creations apart, as the standard asks). */

uint32_t fy_api_stringtag_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

int fy_api_comm_from_group(const char *fn, MPI_Group group, const char *stringtag,
                           MPI_Errhandler errhandler, fy_comm_t **out_p)
{
    fy_comm_t *world = fy_comm_get(MPI_COMM_WORLD);
    int rc = MPI_SUCCESS;
    if (!stringtag)
        rc = fy_err_set(MPI_ERR_ARG, "%s: stringtag is NULL", fn);
    if (rc == MPI_SUCCESS && errhandler != MPI_ERRHANDLER_NULL &&
        !fy_errhandler_fits(errhandler, FY_EH_COMM))
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid errhandler 0x%x", fn, (unsigned)errhandler);
    fy_lock();
    fy_group_t *g = rc == MPI_SUCCESS ? fy_group_get(group) : NULL;
    if (g)
        fy_group_ref(g);
    fy_unlock();
    if (rc == MPI_SUCCESS && !g)
        rc = fy_err_set(MPI_ERR_GROUP, "%s: invalid group 0x%x", fn, (unsigned)group);
    int me = rc == MPI_SUCCESS ? fy_group_rank_of_world(g, fy_rt.rank) : MPI_UNDEFINED;
    if (rc == MPI_SUCCESS && me == MPI_UNDEFINED)
        rc = fy_err_set(MPI_ERR_GROUP, "%s: the calling process is not in the group", fn);
    int *world_of = NULL;
    if (rc == MPI_SUCCESS)
        rc = fy_group_world_of(fn, g, &world_of);
    if (rc == MPI_SUCCESS) {
        int tag = (int)(0x20000000u | (fy_api_stringtag_hash(stringtag) & 0x1fffffffu));
        fy_comm_t view = *world, *nc = NULL;
        view.rank = me;
        view.size = view.peer_size = fy_group_size(g);
        view.world_of = view.peer_world_of = world_of;
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_lock();
        rc = fy_api_agree_cid_tagged(&view, ((int64_t)1 << 62) | (uint32_t)tag, tag, agreed);
        if (rc == MPI_SUCCESS) {
            rc = fy_comm_create(world, view.size, me, world_of, agreed, &nc);
            world_of = NULL; /* taken over */
        }
        fy_session_t *s = rc == MPI_SUCCESS ? fy_session_get(g->session) : NULL;
        if (s)
            nc->bsend_session = &s->bsend; /* its buffered sends may use the session's buffer */
        if (rc == MPI_SUCCESS && errhandler != MPI_ERRHANDLER_NULL) {
            fy_errhandler_unref(nc->errhandler);
            nc->errhandler = errhandler;
            fy_errhandler_ref(errhandler);
        }
        fy_unlock();
        if (rc == MPI_SUCCESS)
            *out_p = nc;
    }
    free(world_of);
    if (g) {
        fy_lock();
        fy_group_release(g);
        fy_unlock();
    }
    return rc;
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_from_group";
    fy_comm_t *nc;
    (void)info; /* no hints are recognised yet */
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !newcomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_comm_from_group(fn, group, stringtag, errhandler, &nc);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *newcomm = nc->handle;
    return MPI_SUCCESS;
}
