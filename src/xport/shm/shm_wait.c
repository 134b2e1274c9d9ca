/* Doorbells: how a rank sleeps instead of spinning, and how a peer wakes it.
 *
 * The sleeper announces itself (sleepers++, a full barrier), reads the futex word, then looks
 * at its queues once more before futex_wait. A producer writes its record, issues a full
 * barrier, and only if it sees a sleeper bumps the word and calls futex_wake. Either the
 * sleeper's last look sees the record, or the producer sees the sleeper: no wake-up is lost,
 * and a producer whose peer is awake pays one fence and one load, no system call.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fy_xport.h"
#include "shm_seg.h"

static _Thread_local unsigned sleep_seq;

static long futex(atomic_uint *addr, int op, unsigned val, const struct timespec *ts)
{
    return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

void fy_shm_ring_bell(int dst)
{
    fy_bell_t *b = &fy_shm.bell[dst];
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&b->sleepers, memory_order_relaxed) != 0) {
        atomic_fetch_add(&b->seq, 1);
        futex(&b->seq, FUTEX_WAKE, INT_MAX, NULL);
    }
}

void fy_shm_wake_self(void)
{
    if (fy_shm.base)
        fy_shm_ring_bell(fy_shm.rank);
}

void fy_shm_sleep_prepare(void)
{
    if (!fy_shm.base)
        return;
    fy_bell_t *b = &fy_shm.bell[fy_shm.rank];
    atomic_fetch_add(&b->sleepers, 1);
    sleep_seq = atomic_load(&b->seq);
}

void fy_shm_sleep(int timeout_ms)
{
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    if (!fy_shm.base) {
        nanosleep(&ts, NULL);
        return;
    }
    futex(&fy_shm.bell[fy_shm.rank].seq, FUTEX_WAIT, sleep_seq, &ts);
}

void fy_shm_sleep_done(void)
{
    if (fy_shm.base)
        atomic_fetch_sub(&fy_shm.bell[fy_shm.rank].sleepers, 1);
}
