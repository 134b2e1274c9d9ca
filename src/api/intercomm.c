/* Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge, MPI_Comm_remote_size,
 * MPI_Comm_test_inter, and duplicating one.
 *
 * An intercommunicator's context id must be free in both groups. Each group agrees its own
 * mask (allreduce BAND over its local group), the two leaders swap masks and AND them, and
 * each leader broadcasts the result to its group. The local group is kept as a hidden
 * intracommunicator (fy_comm_t.local) so that these agreements, and later collectives, have
 * a communicator to run on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_api.h"
#include "fy_coll.h"
#include "fy_errhandler.h"
#include "fy_group.h"
#include "fy_p2p.h"

/* What a leader tells the other: group size, its mask, the `high` of Intercomm_merge, and the
 * group's world ranks (after the fixed part). */
enum { HDR_SIZE = 0, HDR_HIGH, HDR_LEADER, HDR_INTS };
/* The leaders' tag on an intercommunicator's collective context, apart from the collectives'. */
enum { TAG_LEADERS = 0x7ffe, TAG_SPLIT = 0x7ffd };
typedef struct {
    int hdr[HDR_INTS];
    uint64_t mask[FY_CID_WORDS]; /* the agreement's words (comm_cid.c) */
} leader_msg_t;

static int wait_free(fy_req_t *r)
{
    fy_wait_req(r);
    int err = r->error;
    fy_req_free(r);
    return err == MPI_SUCCESS ? MPI_SUCCESS : (err & 0xff);
}

/* Send and receive at once with `peer` of c, in context ctx (bytes). */
static int swap(fy_comm_t *c, uint32_t ctx, int peer, int tag, const void *sbuf, size_t sbytes,
                void *rbuf, size_t rbytes)
{
    const fy_dtype_t *b = fy_dtype_get(MPI_BYTE);
    fy_req_t *rr =
        fy_req_new_p2p(FY_REQ_RECV, rbuf, (MPI_Aint)rbytes, b, peer, tag, c, ctx, FY_MODE_STANDARD);
    fy_req_t *sr =
        fy_req_new_p2p(FY_REQ_SEND, sbuf, (MPI_Aint)sbytes, b, peer, tag, c, ctx, FY_MODE_STANDARD);
    if (!rr || !sr) {
        if (rr)
            fy_req_free(rr);
        if (sr)
            fy_req_free(sr);
        return fy_err_set(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
    }
    fy_p2p_irecv(rr);
    int rc = fy_p2p_isend(sr);
    int r1 = wait_free(rr);
    int r2 = rc == MPI_SUCCESS ? wait_free(sr) : (fy_req_free(sr), rc);
    return r1 != MPI_SUCCESS ? r1 : r2;
}

/* The leaders' exchange and its broadcast. `local` is the group's intracommunicator; the
 * leader (local rank `leader`) swaps with `peer` of `via` in context ctx. On return every
 * member holds the other group's message in *theirs and its world ranks in *remote_p
 * (malloc'd), and the combined mask in agreed. */
static int exchange_once(fy_comm_t *local, int leader, fy_comm_t *via, uint32_t ctx, int peer,
                         int tag, int high, fy_cid_agree_t *a, leader_msg_t *theirs,
                         int **remote_p)
{
    const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T), *ti = fy_dtype_get(MPI_INT);
    leader_msg_t mine = {{local->size, high, 0}, {0}};
    uint64_t contribution[FY_CID_WORDS];
    int *my_ranks = NULL, *remote = NULL;
    fy_api_cid_prepare(a, contribution);
    int rc = fy_allreduce(contribution, mine.mask, FY_CID_WORDS, u64, MPI_BAND, local);
    fy_coll_scratch_done();
    if (rc != MPI_SUCCESS)
        return rc;
    if (local->rank == leader) {
        mine.hdr[HDR_LEADER] = fy_comm_world_rank(local, leader);
        rc = swap(via, ctx, peer, tag, &mine, sizeof mine, theirs, sizeof *theirs);
        if (rc == MPI_SUCCESS) {
            my_ranks = malloc(sizeof(int) * (size_t)local->size);
            remote = malloc(sizeof(int) * (size_t)theirs->hdr[HDR_SIZE]);
            if (!my_ranks || !remote)
                rc = fy_err_set(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
        }
        if (rc == MPI_SUCCESS) {
            for (int i = 0; i < local->size; i++)
                my_ranks[i] = fy_comm_world_rank(local, i);
            rc = swap(via, ctx, peer, tag, my_ranks, sizeof(int) * (size_t)local->size, remote,
                      sizeof(int) * (size_t)theirs->hdr[HDR_SIZE]);
        }
        free(my_ranks);
        for (int w = 0; w < FY_CID_WORDS; w++)
            theirs->mask[w] &= mine.mask[w];
    }
    /* The leader's failure must reach the others, or they would wait in the broadcast. */
    int ok = rc == MPI_SUCCESS;
    int rc2 = fy_bcast(&ok, 1, ti, leader, local);
    if (rc2 == MPI_SUCCESS && ok)
        rc2 = fy_bcast(theirs, sizeof *theirs, fy_dtype_get(MPI_BYTE), leader, local);
    if (rc2 == MPI_SUCCESS && ok && local->rank != leader) {
        remote = malloc(sizeof(int) * (size_t)theirs->hdr[HDR_SIZE]);
        if (!remote)
            rc2 = fy_err_set(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
    }
    if (rc2 == MPI_SUCCESS && ok)
        rc2 = fy_bcast(remote, theirs->hdr[HDR_SIZE], ti, leader, local);
    if (rc == MPI_SUCCESS && rc2 == MPI_SUCCESS && !ok)
        rc2 = fy_err_set(MPI_ERR_OTHER, "the group's leader failed to reach the other group");
    if (rc != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
        free(remote);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    *remote_p = remote;
    return MPI_SUCCESS;
}

/* Rounds of the exchange until the agreement (comm_cid.c) is decided on both groups. `key`
 * must be the same on every member of both groups (the local communicator's id for
 * MPI_Intercomm_create, where the groups are disjoint; the intercommunicator's own id, agreed by
 * both groups, for its duplicates and merges). */
static int exchange_n(fy_comm_t *local, int leader, fy_comm_t *via, uint32_t ctx, int peer,
                      int tag, int high, int64_t key, int need, leader_msg_t *theirs,
                      int **remote_p, uint64_t *agreed)
{
    fy_cid_agree_t a;
    bool done = false;
    int rc = MPI_SUCCESS;
    fy_api_cid_start(&a, key, need, true);
    while (rc == MPI_SUCCESS && !done) {
        *remote_p = NULL;
        rc = exchange_once(local, leader, via, ctx, peer, tag, high, &a, theirs, remote_p);
        if (rc == MPI_SUCCESS)
            rc = fy_api_cid_decide(&a, theirs->mask, &done, agreed);
        if (rc != MPI_SUCCESS || !done) {
            free(*remote_p);
            *remote_p = NULL;
        }
    }
    fy_api_cid_abandon(&a);
    return rc;
}

static int exchange(fy_comm_t *local, int leader, fy_comm_t *via, uint32_t ctx, int peer, int tag,
                    int high, int64_t key, leader_msg_t *theirs, int **remote_p, uint64_t *agreed)
{
    return exchange_n(local, leader, via, ctx, peer, tag, high, key, 1, theirs, remote_p, agreed);
}

/* A hidden copy of the local group (its own context ids, agreed within the group). */
static int hidden_local(fy_comm_t *c, fy_comm_t **local_p)
{
    uint64_t agreed[FY_CID_MASK_WORDS];
    int rc = fy_api_agree_cid(c, agreed);
    return rc == MPI_SUCCESS ? fy_comm_dup(c, agreed, local_p) : rc;
}

static int *copy_map(const fy_comm_t *c)
{
    int *m = malloc(sizeof(int) * (size_t)c->size);
    if (m)
        for (int i = 0; i < c->size; i++)
            m[i] = fy_comm_world_rank(c, i);
    return m;
}

/* Makes the intercommunicator over `local` (an intracommunicator whose group it takes) once
 * the remote group and the mask are known. */
static int make_inter(fy_comm_t *local, const leader_msg_t *theirs, int *remote,
                      const uint64_t *agreed, fy_comm_t **out_p)
{
    fy_comm_t *hidden = NULL, *ic = NULL;
    int *mine = copy_map(local);
    if (!mine) {
        free(remote);
        return fy_err_set(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
    }
    int rc = fy_comm_create_inter(local, local->size, local->rank, mine, theirs->hdr[HDR_SIZE],
                                  remote, agreed, &ic);
    if (rc == MPI_SUCCESS)
        rc = hidden_local(local, &hidden);
    if (rc != MPI_SUCCESS) {
        if (ic)
            fy_comm_release(ic);
        return rc;
    }
    ic->local = hidden;
    *out_p = ic;
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    fy_comm_t *lc, *pc = NULL;
    int rc = fy_api_comm(fn, local_comm, &lc);
    if (rc == MPI_SUCCESS && lc->inter)
        rc = fy_err_set(MPI_ERR_COMM, "%s: local_comm is an intercommunicator", fn);
    if (rc == MPI_SUCCESS && (local_leader < 0 || local_leader >= lc->size))
        rc = fy_err_set(MPI_ERR_RANK, "%s: local_leader %d is not a rank of local_comm (size %d)",
                        fn, local_leader, lc->size);
    if (rc == MPI_SUCCESS && lc->rank == local_leader) {
        rc = fy_api_comm(fn, peer_comm, &pc);
        if (rc == MPI_SUCCESS && (remote_leader < 0 || remote_leader >= pc->peer_size))
            rc = fy_err_set(MPI_ERR_RANK,
                            "%s: remote_leader %d is not a rank of peer_comm (size %d)", fn,
                            remote_leader, pc->peer_size);
    }
    if (rc == MPI_SUCCESS && tag < 0)
        rc = fy_err_set(MPI_ERR_TAG, "%s: invalid tag %d", fn, tag);
    if (rc == MPI_SUCCESS && !newintercomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newintercomm is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(local_comm, rc);
    fy_lock();
    leader_msg_t theirs;
    int *remote = NULL;
    uint64_t agreed[FY_CID_MASK_WORDS];
    fy_comm_t *ic = NULL;
    rc = exchange(lc, local_leader, pc, pc ? FY_CTX_P2P(pc) : 0, remote_leader, tag, 0,
                  (int64_t)lc->cid << 32, &theirs, &remote, agreed);
    if (rc == MPI_SUCCESS)
        rc = make_inter(lc, &theirs, remote, agreed, &ic);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(local_comm, rc);
    *newintercomm = ic->handle;
    return MPI_SUCCESS;
}

/* The agreement of a new communicator over both groups of intercommunicator c. */
static int inter_agree(fy_comm_t *c, int high, leader_msg_t *theirs, int **remote_p,
                       uint64_t *agreed)
{
    /* Leaders are local rank 0 of each group; they talk on c's collective context. */
    return exchange(c->local, 0, c, FY_CTX_COLL(c), 0, TAG_LEADERS, high, (int64_t)c->cid << 32,
                    theirs, remote_p, agreed);
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    const char *fn = "MPI_Intercomm_merge";
    fy_comm_t *c;
    int rc = fy_api_comm(fn, intercomm, &c);
    if (rc == MPI_SUCCESS && !c->inter)
        rc = fy_err_set(MPI_ERR_COMM, "%s: %s is not an intercommunicator", fn,
                        c->name[0] ? c->name : "the communicator");
    if (rc == MPI_SUCCESS && !newintracomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newintracomm is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(intercomm, rc);
    fy_lock();
    leader_msg_t theirs;
    int *remote = NULL;
    uint64_t agreed[FY_CID_MASK_WORDS];
    fy_comm_t *nc = NULL;
    high = high ? 1 : 0;
    rc = inter_agree(c, high, &theirs, &remote, agreed);
    if (rc == MPI_SUCCESS) {
        /* The group that said high = false goes first; a tie goes to the lower leader. */
        int my_leader = fy_comm_world_rank(c, 0);
        bool first = high != theirs.hdr[HDR_HIGH] ? !high : my_leader < theirs.hdr[HDR_LEADER];
        int n = c->size + theirs.hdr[HDR_SIZE];
        int *world_of = malloc(sizeof(int) * (size_t)n);
        if (!world_of) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        } else {
            int off_mine = first ? 0 : theirs.hdr[HDR_SIZE];
            int off_theirs = first ? c->size : 0;
            for (int i = 0; i < c->size; i++)
                world_of[off_mine + i] = fy_comm_world_rank(c, i);
            for (int i = 0; i < theirs.hdr[HDR_SIZE]; i++)
                world_of[off_theirs + i] = remote[i];
            rc = fy_comm_create(c, n, off_mine + c->rank, world_of, agreed, &nc);
        }
        free(remote);
    }
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(intercomm, rc);
    *newintracomm = nc->handle;
    return MPI_SUCCESS;
}

/* MPI_Comm_dup of an intercommunicator (called by PMPI_Comm_dup). */
int fy_api_intercomm_dup(fy_comm_t *c, fy_comm_t **out_p)
{
    leader_msg_t theirs;
    int *remote = NULL;
    uint64_t agreed[FY_CID_MASK_WORDS];
    int rc = inter_agree(c, 0, &theirs, &remote, agreed);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = make_inter(c->local, &theirs, remote, agreed, out_p);
    if (rc == MPI_SUCCESS) { /* the copy keeps c's error handler, as MPI_Comm_dup does */
        fy_errhandler_unref((*out_p)->errhandler);
        (*out_p)->errhandler = c->errhandler;
        fy_errhandler_ref(c->errhandler);
    }
    return rc;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_remote_size", comm, &c);
    if (rc == MPI_SUCCESS && !c->inter)
        rc = fy_err_set(MPI_ERR_COMM, "MPI_Comm_remote_size: %s is not an intercommunicator",
                        c->name[0] ? c->name : "the communicator");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *size = c->peer_size;
    return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    fy_comm_t *c;
    int rc = fy_api_comm("MPI_Comm_test_inter", comm, &c);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    *flag = c->inter;
    return MPI_SUCCESS;
}

/* MPI-4: the intercommunicator between two groups of world ranks, without a parent: each
 * group first becomes a communicator of its own (MPI_Comm_create_from_group), then the
 * leaders meet on MPI_COMM_WORLD's collective context under a tag from the string tag. */
int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create_from_groups";
    (void)info;
    int rc = fy_api_check_init(fn), remote_size = 0, leader_world = -1;
    if (rc == MPI_SUCCESS && (!stringtag || !newintercomm))
        rc = fy_err_set(MPI_ERR_ARG, "%s: stringtag or newintercomm is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        fy_group_t *lg = fy_group_get(local_group), *rg = fy_group_get(remote_group);
        if (!lg || !rg)
            rc = fy_err_set(MPI_ERR_GROUP, "%s: invalid %s group", fn, lg ? "remote" : "local");
        else if (local_leader < 0 || local_leader >= fy_group_size(lg))
            rc = fy_err_set(MPI_ERR_RANK,
                            "%s: local_leader %d is not a rank of local_group (size %d)", fn,
                            local_leader, fy_group_size(lg));
        else if (remote_leader < 0 || remote_leader >= fy_group_size(rg))
            rc = fy_err_set(MPI_ERR_RANK,
                            "%s: remote_leader %d is not a rank of remote_group (size %d)", fn,
                            remote_leader, fy_group_size(rg));
        if (rc == MPI_SUCCESS) {
            remote_size = fy_group_size(rg);
            leader_world = fy_group_world_rank(rg, remote_leader);
        }
        fy_unlock();
    }
    char local_tag[MPI_MAX_OBJECT_NAME + 16];
    fy_comm_t *local = NULL, *ic = NULL;
    if (rc == MPI_SUCCESS) {
        snprintf(local_tag, sizeof local_tag, "%.*s#local", MPI_MAX_OBJECT_NAME, stringtag);
        rc = fy_api_comm_from_group(fn, local_group, local_tag, errhandler, &local);
    }
    if (rc == MPI_SUCCESS) {
        /* The leaders' tag, in a range of its own. */
        int tag = (int)(0x10000000u | (fy_api_stringtag_hash(stringtag) & 0x0fffffffu));
        fy_comm_t *world = fy_comm_get(MPI_COMM_WORLD);
        leader_msg_t theirs;
        int *remote = NULL;
        uint64_t agreed[FY_CID_MASK_WORDS];
        fy_lock();
        rc = exchange(local, local_leader, world, FY_CTX_COLL(world), leader_world, tag, 0,
                      (int64_t)local->cid << 32, &theirs, &remote, agreed);
        if (rc == MPI_SUCCESS && theirs.hdr[HDR_SIZE] != remote_size) {
            free(remote);
            rc = fy_err_set(MPI_ERR_GROUP,
                            "%s: remote_group has %d members here, but the remote leader's group "
                            "has %d",
                            fn, remote_size, theirs.hdr[HDR_SIZE]);
        }
        if (rc == MPI_SUCCESS)
            rc = make_inter(local, &theirs, remote, agreed, &ic);
        if (rc == MPI_SUCCESS) {
            fy_errhandler_unref(ic->errhandler);
            ic->errhandler = local->errhandler;
            fy_errhandler_ref(ic->errhandler);
        }
        fy_comm_release(local);
        fy_unlock();
    }
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *newintercomm = ic->handle;
    return MPI_SUCCESS;
}

/* ---- MPI_Comm_split (and split_type, and MPI_Comm_create) of an intercommunicator ----
 * The result is an intercommunicator per color: its local group the members of the local group
 * with that color, its remote group those of the remote group with the same color, each ordered
 * by key, then by rank in its group. A process whose color is MPI_UNDEFINED, or whose color has
 * no member on the other side, gets MPI_COMM_NULL. Each group gathers its (color, key) pairs
 * over the hidden local communicator, the leaders swap their groups' pairs on c's collective
 * context and broadcast the other group's in their own. Every member of both groups then takes
 * part in one agreement of two ids: the new intercommunicators take the first, their hidden
 * local communicators the second (the new communicators of different colors never share a
 * process, so they may share ids). */
typedef struct {
    int key, rank;
} keyed_t;

static int by_key_rank(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* The world ranks of the members of color `color` among `n` (color, key) pairs of group g,
 * ordered by key then rank; *me_p: the position of group rank `me` (or unchanged). */
static int *members_of(const fy_comm_t *g, const int *pairs, int n, int color, int me, int *count_p,
                       int *me_p)
{
    keyed_t *m = malloc(sizeof *m * (size_t)(n ? n : 1));
    int *w = malloc(sizeof(int) * (size_t)(n ? n : 1)), k = 0;
    if (!m || !w) {
        free(m);
        free(w);
        return NULL;
    }
    for (int r = 0; r < n; r++)
        if (pairs[2 * r] == color)
            m[k++] = (keyed_t){pairs[2 * r + 1], r};
    qsort(m, (size_t)k, sizeof *m, by_key_rank);
    for (int i = 0; i < k; i++) {
        w[i] = g->inter ? fy_comm_peer_world(g, m[i].rank) : fy_comm_world_rank(g, m[i].rank);
        if (m[i].rank == me)
            *me_p = i;
    }
    free(m);
    *count_p = k;
    return w;
}

int fy_api_intercomm_split(const char *fn, fy_comm_t *c, int color, int key, MPI_Comm *newcomm)
{
    const fy_dtype_t *ti = fy_dtype_get(MPI_INT);
    fy_comm_t *local = c->local;
    int p = c->size, q = c->peer_size, mine[2] = {color, key};
    int *pairs = malloc(sizeof(int) * 2 * (size_t)p), *theirs = malloc(sizeof(int) * 2 * (size_t)q);
    if (!pairs || !theirs) {
        free(pairs);
        free(theirs);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    int rc = fy_allgatherv(mine, 2, ti, pairs, 2, NULL, NULL, ti, local);
    fy_coll_scratch_done();
    int ok = rc == MPI_SUCCESS;
    if (ok && local->rank == 0)
        ok = swap(c, FY_CTX_COLL(c), 0, TAG_SPLIT, pairs, sizeof(int) * 2 * (size_t)p, theirs,
                  sizeof(int) * 2 * (size_t)q) == MPI_SUCCESS;
    /* Whatever failed, every member still takes part in the broadcasts and the agreement. */
    int rc2 = fy_bcast(&ok, 1, ti, 0, local);
    if (rc2 == MPI_SUCCESS && ok)
        rc2 = fy_bcast(theirs, 2 * q, ti, 0, local);
    leader_msg_t tm;
    int *remote = NULL;
    uint64_t agreed[FY_CID_MASK_WORDS];
    int rc3 = exchange_n(local, 0, c, FY_CTX_COLL(c), 0, TAG_LEADERS, 0, (int64_t)c->cid << 32, 2,
                         &tm, &remote, agreed);
    free(remote);
    if (rc == MPI_SUCCESS && !ok)
        rc = fy_err_set(MPI_ERR_OTHER, "%s: the leaders failed to swap their groups' colors", fn);
    if (rc == MPI_SUCCESS)
        rc = rc2 != MPI_SUCCESS ? rc2 : rc3;
    int nl = 0, nr = 0, me = -1, unused;
    int *lw = NULL, *rw = NULL;
    if (rc == MPI_SUCCESS && color != MPI_UNDEFINED) {
        lw = members_of(local, pairs, p, color, c->rank, &nl, &me);
        rw = members_of(c, theirs, q, color, -1, &nr, &unused);
        if (!lw || !rw)
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    free(pairs);
    free(theirs);
    if (rc != MPI_SUCCESS || color == MPI_UNDEFINED || nr == 0) {
        free(lw);
        free(rw);
        if (rc == MPI_SUCCESS)
            *newcomm = MPI_COMM_NULL;
        return rc;
    }
    int *lw2 = malloc(sizeof(int) * (size_t)nl);
    if (!lw2) {
        free(lw);
        free(rw);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    memcpy(lw2, lw, sizeof(int) * (size_t)nl);
    fy_comm_t *ic = NULL;
    rc = fy_comm_create_inter(c, nl, me, lw, nr, rw, agreed, &ic);
    if (rc != MPI_SUCCESS) {
        free(lw2);
        return rc;
    }
    agreed[ic->cid / 64] &= ~(1ull << (ic->cid % 64));
    rc = fy_comm_create(local, nl, me, lw2, agreed, &ic->local);
    if (rc != MPI_SUCCESS) {
        fy_comm_release(ic);
        return rc;
    }
    *newcomm = ic->handle;
    return MPI_SUCCESS;
}
