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
 * whether every member lent its mask. */
#include <string.h>

#include "fy_api.h"
#include "fy_coll.h"

enum { MAX_PENDING = 64 };
static int64_t pending[MAX_PENDING]; /* keys of the creations in progress */
static int npending;
static int64_t holder = -1; /* key of the creation holding the token, or -1 */

static void enlist(int64_t key)
{
    if (npending < MAX_PENDING)
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
