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
static int pending[MAX_PENDING]; /* parent ids of the creations in progress */
static int npending;
static int holder = -1; /* parent id of the creation holding the token, or -1 */

static void enlist(int key)
{
    if (npending < MAX_PENDING)
        pending[npending++] = key;
}

static void delist(int key)
{
    for (int i = 0; i < npending; i++)
        if (pending[i] == key) {
            pending[i] = pending[--npending];
            break;
        }
    if (holder == key)
        holder = -1;
}

static int lowest_pending(void)
{
    int m = -1;
    for (int i = 0; i < npending; i++)
        if (m < 0 || pending[i] < m)
            m = pending[i];
    return m;
}

void fy_api_cid_contribution(int key, uint64_t *mask)
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

void fy_api_cid_begin(int key)
{
    enlist(key);
}

void fy_api_cid_end(int key)
{
    delist(key);
}

void fy_api_cid_round_failed(int key)
{
    if (holder == key)
        holder = -1;
}

int fy_api_agree_cid(fy_comm_t *parent, uint64_t *agreed)
{
    uint64_t mine[FY_CID_MASK_WORDS + 1], all[FY_CID_MASK_WORDS + 1];
    const fy_dtype_t *u64 = fy_dtype_get(MPI_UINT64_T);
    int key = parent->cid, rc;
    fy_api_cid_begin(key);
    for (;;) {
        fy_api_cid_contribution(key, mine);
        rc = fy_allreduce(mine, all, FY_CID_MASK_WORDS + 1, u64, MPI_BAND, parent);
        fy_coll_scratch_done();
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
