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
/* A process without the segment (a singleton) still has threads that sleep and wake. */
static fy_bell_t local_bell;

static inline fy_bell_t *my_bell(void)
{
    return fy_shm.base ? &fy_shm.bell[fy_shm.rank] : &local_bell;
}

static long futex(atomic_uint *addr, int op, unsigned val, const struct timespec *ts)
{
    return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

static void ring(fy_bell_t *b)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&b->sleepers, memory_order_relaxed) != 0) {
        atomic_fetch_add(&b->seq, 1);
        futex(&b->seq, FUTEX_WAKE, INT_MAX, NULL);
    }
}

void fy_shm_ring_bell(int dst)
{
    ring(&fy_shm.bell[dst]);
}

void fy_shm_wake_self(void)
{
    ring(my_bell());
}

void fy_shm_sleep_prepare(void)
{
    fy_bell_t *b = my_bell();
    atomic_fetch_add(&b->sleepers, 1);
    sleep_seq = atomic_load(&b->seq);
}

void fy_shm_sleep(int timeout_ms)
{
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    futex(&my_bell()->seq, FUTEX_WAIT, sleep_seq, &ts);
}

void fy_shm_sleep_done(void)
{
    atomic_fetch_sub(&my_bell()->sleepers, 1);
}
