/* The watch's per-rank slot (chk_watch.h). This first version only records what the rank is
 * blocked in; the thread that reports it to mpiexec's check server comes with `--check`. */
#include "chk_watch.h"

#include <stdatomic.h>
#include <string.h>

static struct {
    _Atomic uint64_t seq; /* odd while the slot is being written */
    const char *call;
    const void *ra;
    bool all;
    int n;
    chk_item_t items[CHK_WATCH_MAX_ITEMS];
    atomic_bool released;
} slot;

void chk_watch_start(int world_rank, int world_size)
{
    (void)world_rank;
    (void)world_size;
}

void chk_watch_comm(uint64_t id, int n, const int *world_ranks)
{
    (void)id;
    (void)n;
    (void)world_ranks;
}

void chk_watch_block(const char *call, const void *ra, bool all, int n, const chk_item_t *items)
{
    uint64_t s = atomic_load_explicit(&slot.seq, memory_order_relaxed);
    atomic_store_explicit(&slot.seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    slot.call = call;
    slot.ra = ra;
    slot.all = all;
    slot.n = n;
    memcpy(slot.items, items, sizeof(chk_item_t) * (size_t)(n < CHK_WATCH_MAX_ITEMS ? n : CHK_WATCH_MAX_ITEMS));
    atomic_store_explicit(&slot.released, false, memory_order_relaxed);
    atomic_store_explicit(&slot.seq, s + 2, memory_order_release);
}

void chk_watch_unblock(void)
{
    uint64_t s = atomic_load_explicit(&slot.seq, memory_order_relaxed);
    slot.call = NULL;
    atomic_store_explicit(&slot.seq, s + 2, memory_order_release);
}

bool chk_watch_released(void)
{
    return atomic_load_explicit(&slot.released, memory_order_acquire);
}

void chk_watch_stop(void)
{
}
