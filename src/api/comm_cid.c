/* Agreeing a context id for a new communicator when several may be in the making at once.
 *
 * Each creation ANDs the members' free-id masks. Two threads of one process creating
 * communicators at the same time (MPI_THREAD_MULTIPLE; the lock is released while a
 * collective waits) must not both pick the same free id, so a process lends its mask to one
 * creation at a time: the token. The others contribute an empty mask, which makes their round
 * fail everywhere, and try again. Who gets the token is decided the same way on every process
 * (the lowest id of the parent communicator among the creations in progress), so the one
 * creation all processes favour finishes first and nobody waits forever. A single-threaded
 * program always holds the token: one allreduce, as before. An extra word of the mask says
 * whether every member lent its mask.
 *
 * MPI_Comm_idup runs the same agreement as a schedule (below), so a creation in progress may
 * also be a nonblocking one: it holds the token from its first round to its end. */
#include <stdlib.h>
#include <string.h>

#include "coll_api.h"
#include "fy_api.h"
#include "fy_attr.h"
#include "fy_coll.h"
#include "fy_info.h"

static int64_t *pending; /* keys of the creations in progress */
static int npending, pending_cap;
static int64_t holder = -1; /* key of the creation holding the token, or -1 */

static void enlist(int64_t key)
{
    if (npending == pending_cap) {
        int ncap = pending_cap ? 2 * pending_cap : 16;
        int64_t *n = realloc(pending, sizeof *n * (size_t)ncap);
        if (!n)
            fy_fatal(MPI_ERR_NO_MEM, "out of memory creating a communicator");
        pending = n;
        pending_cap = ncap;
    }
    pending[npending++] = key;
}

static void delist(int64_t key)
{
    for (int i = 0; i < npending; i++)
        if (pending[i] == key) {
            pending[i] = pending[--npending];
            break;
        }
    if (holder == key)
        holder = -1;
}

static int64_t lowest_pending(void)
{
    int64_t m = -1;
    for (int i = 0; i < npending; i++)
        if (m < 0 || pending[i] < m)
            m = pending[i];
    return m;
}

void fy_api_cid_contribution(int64_t key, uint64_t *mask)
{
    if (holder < 0 && lowest_pending() == key)
        holder = key;
    if (holder == key) {
        memcpy(mask, fy_comm_free_cids(), sizeof(uint64_t) * FY_CID_MASK_WORDS);
        mask[FY_CID_MASK_WORDS] = 1;
    } else {
        memset(mask, 0, sizeof(uint64_t) * (FY_CID_MASK_WORDS + 1));
    }
}

void fy_api_cid_begin(int64_t key)
{
    enlist(key);
}

void fy_api_cid_end(int64_t key)
{
    delist(key);
}

void fy_api_cid_round_failed(int64_t key)
{
    if (holder == key)
        holder = -1;
}

/* AND of every member's words over c, by dissemination (AND is idempotent, so any number of
 * members works without fix-ups): in round k each sends what it has to rank + 2^k and ANDs in
 * what comes from rank - 2^k. */
static int band_dissemination(fy_comm_t *c, int tag, uint64_t *words, int n)
{
    const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
    uint64_t in[FY_CID_MASK_WORDS + 1];
    for (int dist = 1; dist < c->size; dist *= 2) {
        int rc = fy_coll_sendrecv(words, n, u64, (c->rank + dist) % c->size, in, n, u64,
                                  (c->rank - dist + c->size) % c->size, tag, c);
        if (rc != MPI_SUCCESS)
            return rc;
        for (int i = 0; i < n; i++)
            words[i] &= in[i];
    }
    return MPI_SUCCESS;
}

int fy_api_agree_cid_tagged(fy_comm_t *c, int64_t key, int tag, uint64_t *agreed)
{
    uint64_t mine[FY_CID_MASK_WORDS + 1], all[FY_CID_MASK_WORDS + 1];
    const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
    int rc;
    fy_api_cid_begin(key);
    for (;;) {
        fy_api_cid_contribution(key, mine);
        if (tag < 0) {
            rc = fy_allreduce(mine, all, FY_CID_MASK_WORDS + 1, u64, MPI_BAND, c);
            fy_coll_scratch_done();
        } else {
            memcpy(all, mine, sizeof all);
            rc = band_dissemination(c, tag, all, FY_CID_MASK_WORDS + 1);
        }
        if (rc != MPI_SUCCESS || all[FY_CID_MASK_WORDS])
            break;
        fy_api_cid_round_failed(key);
    }
    if (rc == MPI_SUCCESS)
        memcpy(agreed, all, sizeof(uint64_t) * FY_CID_MASK_WORDS);
    /* The caller creates the communicator before the lock is next released, so the id is
     * marked used before anyone else can lend the mask again. */
    fy_api_cid_end(key);
    return rc;
}

int fy_api_agree_cid(fy_comm_t *parent, uint64_t *agreed)
{
    return fy_api_agree_cid_tagged(parent, (int64_t)parent->cid << 32, -1, agreed);
}

/* ---- MPI_Comm_idup: the agreement as a schedule ----
 * Round 0 computes this process's contribution (its free mask if it holds the token, zeros
 * otherwise); the schedule of an allreduce(BAND) over the parent follows; then a call reads
 * the token word. When some member did not lend its mask the agreement failed on every member
 * alike, and the call rewinds the schedule to round 0: the same messages under the same tag,
 * which match in order. Otherwise it creates the communicator (before the lock is next let
 * go, as above), gives it its hints and attributes, and only then sets *newcomm.
 *
 * On an intercommunicator the agreement covers both groups, as for MPI_Comm_dup of one
 * (intercomm.c): an allreduce(BAND) within each group over its hidden intracommunicator, the
 * leaders swap their groups' words and AND them, each leader broadcasts the result in its group
 * (fy_sched_local). The token word is ANDed like the rest, so both groups see the same failure
 * and rewind together. The one mask yields both ids: the new intercommunicator takes its lowest
 * free id, the new hidden intracommunicator of each group the next (free on every member of both
 * groups, and the two groups' hidden ones never share a process). */
typedef struct {
    fy_comm_t *parent;
    int64_t key;
    MPI_Comm *newcomm;
    fy_info_t *info; /* the new communicator's hints (owned until given) */
    bool ended;      /* fy_api_cid_end done */
    uint64_t mine[FY_CID_MASK_WORDS + 1], all[FY_CID_MASK_WORDS + 1];
    uint64_t theirs[FY_CID_MASK_WORDS + 1]; /* intercommunicator: the other group's words */
} idup_t;

static void idup_free(void *p)
{
    idup_t *a = p;
    if (!a->ended) /* never finished (MPI_Finalize with the request still pending) */
        fy_api_cid_end(a->key);
    fy_info_free(a->info);
    free(a);
}

static int idup_contribute(fy_sched_t *s, void *arg)
{
    (void)s;
    idup_t *a = arg;
    fy_api_cid_contribution(a->key, a->mine);
    return MPI_SUCCESS;
}

static int idup_finish(fy_sched_t *s, void *arg)
{
    idup_t *a = arg;
    int rc = fy_sched_error(s);
    if (rc == MPI_SUCCESS && !a->all[FY_CID_MASK_WORDS]) {
        fy_api_cid_round_failed(a->key);
        return FY_SCHED_REWIND;
    }
    fy_comm_t *n = NULL;
    if (rc == MPI_SUCCESS)
        rc = fy_comm_dup(a->parent, a->all, &n);
    if (rc == MPI_SUCCESS && a->parent->inter) { /* the hidden local group: the next free id */
        a->all[n->cid / 64] &= ~(1ull << (n->cid % 64));
        if ((rc = fy_comm_dup(a->parent->local, a->all, &n->local)) != MPI_SUCCESS)
            fy_comm_release(n);
    }
    fy_api_cid_end(a->key);
    a->ended = true;
    if (rc == MPI_SUCCESS) {
        n->info = a->info;
        a->info = NULL;
        if ((rc = fy_attr_dup(a->parent, n)) != MPI_SUCCESS)
            fy_comm_release(n);
    }
    *a->newcomm = rc == MPI_SUCCESS ? n->handle : MPI_COMM_NULL;
    return rc;
}

static int idup(const char *fn, MPI_Comm comm, bool with_info, MPI_Info info, MPI_Comm *newcomm,
                MPI_Request *request)
{
    fy_comm_t *c;
    fy_info_t *given = NULL;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && !newcomm)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newcomm is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_lock();
    if (with_info && info != MPI_INFO_NULL && !(given = fy_info_get(info)))
        rc = fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x (freed, or not an info object)", fn,
                        (unsigned)info);
    fy_sched_t *s = rc == MPI_SUCCESS ? fy_api_sched_new(fn, c, &rc) : NULL;
    idup_t *a = s ? calloc(1, sizeof *a) : NULL;
    if (s && !a)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (a) {
        const fy_info_t *hints = with_info ? given : c->info;
        a->parent = c;
        a->key = ((int64_t)c->cid << 32) | 0x40000000 | (fy_sched_tag(s) & 0x3fffffff);
        a->newcomm = newcomm;
        if (hints && hints->n && !(a->info = fy_info_dup(hints)))
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory copying info hints", fn);
        fy_api_cid_begin(a->key);
    }
    if (a && fy_sched_own(s, a, idup_free)) { /* else a is gone and s reports the failure */
        const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
        fy_sched_call(s, idup_contribute, a);
        fy_sched_local(s, true); /* an intercommunicator's group first agrees within itself */
        fy_allreduce_sched(s, a->mine, a->all, FY_CID_MASK_WORDS + 1, u64, MPI_BAND);
        fy_sched_local(s, false);
        if (c->inter) {
            fy_sched_round(s);
            if (c->rank == 0) {
                fy_sched_recv(s, a->theirs, FY_CID_MASK_WORDS + 1, u64, 0);
                fy_sched_send(s, a->all, FY_CID_MASK_WORDS + 1, u64, 0);
                fy_sched_round(s);
                fy_sched_reduce(s, MPI_BAND, u64, a->theirs, a->all, FY_CID_MASK_WORDS + 1);
            }
            fy_sched_local(s, true);
            fy_bcast_sched(s, a->all, FY_CID_MASK_WORDS + 1, u64, 0);
            fy_sched_local(s, false);
        }
        fy_sched_round(s);
        fy_sched_call(s, idup_finish, a);
    }
    if (s && rc != MPI_SUCCESS)
        fy_sched_free(s);
    else if (s)
        rc = fy_api_sched_go(s, FY_COLL_NONBLOCKING, request);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup", comm, false, MPI_INFO_NULL, newcomm, request);
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup_with_info", comm, true, info, newcomm, request);
}
