/* Agreeing a context id for a new communicator when several may be in the making at once.
 *
 * No creation ever waits for another on this process: a token held by one creation while it
 * waits for other ranks, who may themselves be waiting in a creation that needs the token here,
 * is a deadlock that legal programs reach (MPI_Comm_idup pending on one rank while it enters
 * MPI_Comm_create_group, the reverse order on another). Instead ids are reserved, two-phase:
 *
 *   round k:  every member contributes FY_CID_WORDS words: its free ids less those reserved
 *             here by other creations in progress, and a last word, 1 when it holds the
 *             candidates of round k-1 (0 in round 0). The AND of the words is formed over all
 *             members (however the caller does that: allreduce, schedule, leaders' exchange).
 *   decide:   the last word set: every member reserved the candidates; they are the new ids.
 *             Otherwise each member drops its reservation (if any), takes `need` candidates
 *             from the AND (the same on every member) and reserves them where they are still
 *             free and unreserved; that result goes out in the next round's last word.
 *
 * A candidate is free on every member when the AND is formed; it is lost only when another
 * creation in progress on some member reserved it in between. Then the round fails on every
 * member alike and the next one picks again, from a mask without the ids reserved meanwhile.
 * Round 0 takes the lowest ids (what one creation at a time always gets); later
 * rounds start their search at a point hashed from the key and the round, so two creations that
 * lost the same id to each other on different processes pick different ids next time. Every
 * round is a fixed collective step of its own agreement: nothing waits on local state, so
 * agreements on different communicators, blocking or not, in any order, cannot deadlock.
 * Round 0's last word instead says whether this member is alone (below); when all are, round 0
 * decides at once, so a single-threaded program with nothing pending creates in one round. */
#include <stdlib.h>
#include <string.h>

#include "coll_api.h"
#include "fy_api.h"
#include "fy_attr.h"
#include "fy_coll.h"
#include "fy_hier.h"
#include "fy_info.h"

static uint64_t reserved[FY_CID_MASK_WORDS]; /* ids held by creations between two rounds */
static int in_progress;                      /* agreements started and not yet abandoned */
static int claimed_alone;                    /* of those, how many said "alone" in round 0
                                              * and have not decided yet */

static bool bit(const uint64_t *m, int i)
{
    return m[i / 64] >> (i % 64) & 1;
}

void fy_api_cid_start(fy_cid_agree_t *a, int64_t key, int need, bool blocking)
{
    *a = (fy_cid_agree_t){
        .key = key, .need = need, .cand = {-1, -1}, .blocking = blocking, .counted = true};
    in_progress++;
}

/* Round 0's last word: whether nothing can touch this process's ids before the caller has
 * taken the ones decided: a blocking agreement, the only one in progress here, and no other
 * thread that could start one. When every member says so, round 0 decides at once. */
static bool alone(const fy_cid_agree_t *a)
{
    return a->blocking && in_progress == 1 && fy_rt.thread_level < MPI_THREAD_MULTIPLE;
}

void fy_api_cid_prepare(fy_cid_agree_t *a, uint64_t *words)
{
    const uint64_t *free_ids = fy_comm_free_cids();
    for (int w = 0; w < FY_CID_MASK_WORDS; w++)
        words[w] = free_ids[w] & ~reserved[w];
    words[FY_CID_MASK_WORDS] = a->round ? a->held : alone(a);
    if (a->round == 0 && words[FY_CID_MASK_WORDS] && !a->claimed) {
        a->claimed = true;
        claimed_alone++;
    }
}

static void unclaim(fy_cid_agree_t *a)
{
    if (a->claimed)
        claimed_alone--;
    a->claimed = false;
}

static void drop(fy_cid_agree_t *a)
{
    if (a->held)
        for (int i = 0; i < a->need; i++)
            reserved[a->cand[i] / 64] &= ~(1ull << (a->cand[i] % 64));
    a->held = false;
}

void fy_api_cid_abandon(fy_cid_agree_t *a)
{
    unclaim(a);
    drop(a);
    if (a->counted)
        in_progress--;
    a->counted = false;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ull;
    x ^= x >> 29;
    return x;
}

int fy_api_cid_decide(fy_cid_agree_t *a, const uint64_t *all, bool *done, uint64_t *agreed)
{
    /* Round 0's last word set: every member alone, the lowest ids are safe as they are.
     * Later rounds': every member reserved the candidates. */
    bool won = all[FY_CID_MASK_WORDS] != 0;
    unclaim(a);
    drop(a);
    int start = a->round ? (int)(mix((uint64_t)a->key * 31 + (uint64_t)a->round) % FY_MAX_COMMS) : 0;
    int n = 0;
    if (!won || a->round == 0)
        for (int k = 0; k < FY_MAX_COMMS && n < a->need; k++) {
            int i = (start + k) % FY_MAX_COMMS;
            if (bit(all, i))
                a->cand[n++] = i;
        }
    else
        n = a->need;
    a->round++;
    if (n < a->need)
        return fy_err_set(MPI_ERR_OTHER,
                          "cannot create a communicator: no context id is free on every member "
                          "(%d in all; free communicators you no longer need)",
                          FY_MAX_COMMS);
    if (won) {
        memset(agreed, 0, sizeof(uint64_t) * FY_CID_MASK_WORDS);
        for (int i = 0; i < a->need; i++)
            agreed[a->cand[i] / 64] |= 1ull << (a->cand[i] % 64);
        *done = true;
        return MPI_SUCCESS;
    }
    *done = false;
    const uint64_t *free_ids = fy_comm_free_cids();
    bool ok = true;
    for (int i = 0; i < a->need; i++)
        ok = ok && bit(free_ids, a->cand[i]) && !bit(reserved, a->cand[i]);
    if (ok) {
        for (int i = 0; i < a->need; i++)
            reserved[a->cand[i] / 64] |= 1ull << (a->cand[i] % 64);
        a->held = true;
    }
    return MPI_SUCCESS;
}

/* AND of every member's words over c, by dissemination (AND is idempotent, so any number of
 * members works without fix-ups): in round k each sends what it has to rank + 2^k and ANDs in
 * what comes from rank - 2^k. */
static int band_dissemination(fy_comm_t *c, int tag, uint64_t *words, int n)
{
    const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
    uint64_t in[FY_CID_WORDS + 1];
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
    uint64_t mine[FY_CID_WORDS], all[FY_CID_WORDS];
    const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
    fy_cid_agree_t a;
    bool done = false;
    int rc = MPI_SUCCESS;
    fy_api_cid_start(&a, key, 1, true);
    while (rc == MPI_SUCCESS && !done) {
        fy_api_cid_prepare(&a, mine);
        if (tag < 0) {
            rc = fy_allreduce(mine, all, FY_CID_WORDS, u64, MPI_BAND, c);
            fy_coll_scratch_done();
        } else {
            memcpy(all, mine, sizeof all);
            rc = band_dissemination(c, tag, all, FY_CID_WORDS);
        }
        if (rc == MPI_SUCCESS)
            rc = fy_api_cid_decide(&a, all, &done, agreed);
    }
    /* The caller creates the communicator before the lock is next released, so the id is
     * marked used before anyone else can contribute it again. */
    fy_api_cid_abandon(&a);
    return rc;
}

int fy_api_agree_cid(fy_comm_t *parent, uint64_t *agreed)
{
    return fy_api_agree_cid_tagged(parent, (int64_t)parent->cid << 32, -1, agreed);
}

/* The node-aware collectives make their hidden communicators inside a blocking collective on
 * c, which may itself run inside another agreement: MPI_Comm_dup's allreduce over c, or the
 * broadcasts of an intercommunicator's creation. An agreement whose round 0 said "alone" takes
 * the lowest ids of a mask formed before it, so ids taken by a creation nested in between would
 * be taken twice. Such a pending claim on any member therefore makes this agreement answer
 * "later" (one more word in the AND, the same answer everywhere), and the collective runs a
 * flat algorithm this time. Any other agreement in progress is safe: it reserves its ids
 * before it takes them, and a reservation fails when the ids went meanwhile. Two ids, the
 * lower for the host communicators, the higher for the leaders'. */
int fy_api_agree_hier(fy_comm_t *c, int tag, uint64_t *agreed, int *outcome_p)
{
    uint64_t words[FY_CID_WORDS + 1];
    fy_cid_agree_t a;
    bool done = false;
    int rc = MPI_SUCCESS;
    *outcome_p = FY_HIER_IDS_LATER;
    fy_api_cid_start(&a, ((int64_t)c->cid << 32) | 0x20000000, 2, true);
    while (rc == MPI_SUCCESS && !done) {
        fy_api_cid_prepare(&a, words);
        words[FY_CID_WORDS] = claimed_alone == (a.claimed ? 1 : 0); /* no one else's claim */
        rc = band_dissemination(c, tag, words, FY_CID_WORDS + 1);
        if (rc != MPI_SUCCESS || !words[FY_CID_WORDS])
            break;
        if (fy_api_cid_decide(&a, words, &done, agreed) != MPI_SUCCESS) {
            *outcome_p = FY_HIER_IDS_NONE; /* no two ids free everywhere: the same on all */
            break;
        }
        if (done)
            *outcome_p = FY_HIER_IDS_OK;
    }
    fy_api_cid_abandon(&a);
    return rc;
}

/* ---- MPI_Comm_idup: the agreement as a schedule ----
 * Round 0 computes this process's words (fy_api_cid_prepare); the schedule of an
 * allreduce(BAND) over the parent follows; then a call decides. While the agreement needs
 * another round, the call rewinds the schedule to round 0: the same messages under the same
 * tag, which match in order. Once decided it creates the communicator (before the lock is next
 * let go, as above), gives it its hints and attributes, and only then sets *newcomm. The
 * schedule progresses whenever this process waits for anything, so a rank blocked in another
 * creation still completes its part of this one.
 *
 * On an intercommunicator the agreement covers both groups, as for MPI_Comm_dup of one
 * (intercomm.c): an allreduce(BAND) within each group over its hidden intracommunicator, the
 * leaders swap their groups' words and AND them, each leader broadcasts the result in its group
 * (fy_sched_local). It chooses two ids: the new intercommunicator takes the lower, the new
 * hidden intracommunicator of each group the other (free on every member of both groups, and
 * the two groups' hidden ones never share a process). */
typedef struct {
    fy_comm_t *parent;
    fy_cid_agree_t agree;
    MPI_Comm *newcomm;
    fy_info_t *info; /* the new communicator's hints (owned until given) */
    uint64_t mine[FY_CID_WORDS], all[FY_CID_WORDS];
    uint64_t theirs[FY_CID_WORDS]; /* intercommunicator: the other group's words */
} idup_t;

static void idup_free(void *p)
{
    idup_t *a = p;
    fy_api_cid_abandon(&a->agree); /* never finished (MPI_Finalize with the request pending) */
    fy_info_free(a->info);
    free(a);
}

static int idup_contribute(fy_sched_t *s, void *arg)
{
    (void)s;
    idup_t *a = arg;
    fy_api_cid_prepare(&a->agree, a->mine);
    return MPI_SUCCESS;
}

static int idup_finish(fy_sched_t *s, void *arg)
{
    idup_t *a = arg;
    uint64_t agreed[FY_CID_MASK_WORDS];
    bool done = false;
    int rc = fy_sched_error(s);
    if (rc == MPI_SUCCESS)
        rc = fy_api_cid_decide(&a->agree, a->all, &done, agreed);
    if (rc == MPI_SUCCESS && !done)
        return FY_SCHED_REWIND;
    fy_api_cid_abandon(&a->agree);
    fy_comm_t *n = NULL;
    if (rc == MPI_SUCCESS)
        rc = fy_comm_dup(a->parent, agreed, &n);
    if (rc == MPI_SUCCESS && a->parent->inter) { /* the hidden local group: the other id */
        agreed[n->cid / 64] &= ~(1ull << (n->cid % 64));
        if ((rc = fy_comm_dup(a->parent->local, agreed, &n->local)) != MPI_SUCCESS)
            fy_comm_release(n);
    }
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
        fy_api_cid_start(&a->agree,
                         ((int64_t)c->cid << 32) | 0x40000000 | (fy_sched_tag(s) & 0x3fffffff),
                         c->inter ? 2 : 1, false);
        a->newcomm = newcomm;
        if (hints && hints->n && !(a->info = fy_info_dup(hints)))
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory copying info hints", fn);
    }
    if (a && fy_sched_own(s, a, idup_free)) { /* else a is gone and s reports the failure */
        const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
        fy_sched_call(s, idup_contribute, a);
        fy_sched_local(s, true); /* an intercommunicator's group first agrees within itself */
        fy_allreduce_sched(s, a->mine, a->all, FY_CID_WORDS, u64, MPI_BAND);
        fy_sched_local(s, false);
        if (c->inter) {
            fy_sched_round(s);
            if (c->rank == 0) {
                fy_sched_recv(s, a->theirs, FY_CID_WORDS, u64, 0);
                fy_sched_send(s, a->all, FY_CID_WORDS, u64, 0);
                fy_sched_round(s);
                fy_sched_reduce(s, MPI_BAND, u64, a->theirs, a->all, FY_CID_WORDS);
            }
            fy_sched_local(s, true);
            fy_bcast_sched(s, a->all, FY_CID_WORDS, u64, 0);
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
