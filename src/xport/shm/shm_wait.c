/* Doorbells: how a rank sleeps instead of spinning, and how a peer wakes it.
 *
 * The sleeper announces itself (sleepers++), reads the futex word, then looks at its queues
 * once more before futex_wait. A producer writes its record and, only if it sees a sleeper,
 * bumps the word and calls futex_wake. For no wake-up to be lost, the announcement and the
 * record must be ordered against each other (a store-load pair on each side), so one side
 * needs a full barrier. A full fence on every send drains the producer's store buffer of ring
 * lines the consumer holds: a third of the cost of a small message. So the fence is made
 * asymmetric: the sleeper, already on its slow path, calls membarrier(GLOBAL_EXPEDITED),
 * which executes a full barrier on every CPU running a registered process; the producer then
 * needs only a compiler barrier. Where membarrier is missing, both sides fence.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fy_clock.h"
#include "fy_knobs.h"
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

static int asymmetric; /* membarrier registered: producers need no fence */

void fy_shm_fence_init(void)
{
    if (fy_knob_number(FY_KNOB_MEMBARRIER, 1) == 0)
        return;
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (q < 0 || !(q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) ||
        !(q & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED))
        return;
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0)
        asymmetric = 1;
}

void fy_shm_fence_fast(void)
{
    if (asymmetric)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

void fy_shm_fence_slow(void)
{
    if (asymmetric)
        syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* Our own eventfd (a rank with TCP peers), and the ones of peers we rang, by local rank:
 * -2 not yet asked for, -1 refused. */
static int own_efd = -1;
static int *peer_efd;

static int efd_of(fy_bell_t *b)
{
    if (b == my_bell())
        return own_efd;
    int l = (int)(b - fy_shm.bell);
    if (!peer_efd) {
        peer_efd = malloc(sizeof(int) * (size_t)fy_shm.n);
        for (int i = 0; peer_efd && i < fy_shm.n; i++)
            peer_efd[i] = -2;
        if (!peer_efd)
            return -1;
    }
    if (peer_efd[l] == -2) {
        int pidfd = (int)syscall(SYS_pidfd_open, b->pid, 0);
        peer_efd[l] = pidfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pidfd, atomic_load(&b->efd1) - 1, 0);
        if (pidfd >= 0)
            close(pidfd);
        if (peer_efd[l] < 0)
            atomic_store(&b->efd_refused, 1);
    }
    return peer_efd[l];
}

static void ring(fy_bell_t *b)
{
    fy_shm_fence_fast();
    if (atomic_load_explicit(&b->sleepers, memory_order_relaxed) != 0) {
        /* The slow path already: a clock read lets the sleeper time its wake-up. */
        atomic_store_explicit(&b->rung_ns, fy_now_ns(), memory_order_relaxed);
        atomic_fetch_add(&b->seq, 1);
        int efd = atomic_load_explicit(&b->efd1, memory_order_relaxed) > 0 ? efd_of(b) : -1;
        if (efd >= 0) {
            uint64_t one = 1;
            if (write(efd, &one, sizeof one) < 0) { /* full counter: it is awake anyway */
            }
        } else {
            futex(&b->seq, FUTEX_WAKE, INT_MAX, NULL);
        }
    }
}

void fy_shm_efd_fini(void)
{
    for (int i = 0; peer_efd && i < fy_shm.n; i++)
        if (peer_efd[i] >= 0)
            close(peer_efd[i]);
    free(peer_efd);
    peer_efd = NULL;
    if (own_efd >= 0)
        close(own_efd);
    own_efd = -1;
}

int fy_shm_rung(void)
{
    return atomic_load(&my_bell()->seq) != sleep_seq;
}

int fy_shm_use_eventfd(void)
{
    if (!fy_shm.base)
        return -1;
    own_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    atomic_store(&my_bell()->efd1, own_efd + 1);
    return own_efd;
}

int fy_shm_sleep_bound_ms(int timeout_ms)
{
    /* A producer could not reach our eventfd: look again soon rather than miss it long. */
    return fy_shm.base && atomic_load_explicit(&my_bell()->efd_refused, memory_order_relaxed) &&
                   timeout_ms > 1
               ? 1
               : timeout_ms;
}

void fy_shm_ring_bell_local(int l)
{
    ring(&fy_shm.bell[l]);
}

void fy_shm_ring_bell(int dst)
{
    ring(&fy_shm.bell[fy_shm_lr(dst)]);
}

void fy_shm_wake_self(void)
{
    ring(my_bell());
}

void fy_shm_sleep_prepare(void)
{
    fy_bell_t *b = my_bell();
    /* The first sleeper empties the eventfd of rings nobody slept through (they only say
     * "look again", and the caller looks once more after this); with another thread asleep,
     * a ring may be that one's wake-up, so it stays. */
    if (atomic_fetch_add(&b->sleepers, 1) == 0 && own_efd >= 0) {
        uint64_t v;
        if (read(own_efd, &v, sizeof v) < 0) { /* empty already */
        }
    }
    fy_shm_fence_slow(); /* pairs with the producers' fy_shm_fence_fast */
    sleep_seq = atomic_load(&b->seq);
}

/* Wake-up time, a moving average of the last few (1/8 weight each): what a sleep costs the
 * sleeper beyond the wait itself, so what spinning instead can save. */
static _Atomic int64_t wake_avg;

void fy_shm_sleep(int timeout_ms)
{
    struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    fy_bell_t *b = my_bell();
    if (futex(&b->seq, FUTEX_WAIT, sleep_seq, &ts) != 0 || atomic_load(&b->seq) == sleep_seq)
        return; /* timed out, interrupted, or rung before we slept: no wake-up to time */
    int64_t took = fy_now_ns() - atomic_load_explicit(&b->rung_ns, memory_order_relaxed);
    if (took <= 0 || took > 100000000) /* another thread's ring, or a clock step */
        return;
    int64_t avg = atomic_load_explicit(&wake_avg, memory_order_relaxed);
    atomic_store_explicit(&wake_avg, avg ? avg + (took - avg) / 8 : took, memory_order_relaxed);
}

int64_t fy_shm_wake_ns(void)
{
    return atomic_load_explicit(&wake_avg, memory_order_relaxed);
}

void fy_shm_beat(int64_t now_ns, int cpu)
{
    if (!fy_shm.base)
        return;
    fy_bell_t *b = &fy_shm.bell[fy_shm.rank];
    atomic_store_explicit(&b->beat_ns, now_ns, memory_order_relaxed);
    if (atomic_load_explicit(&b->cpu, memory_order_relaxed) != cpu)
        atomic_store_explicit(&b->cpu, cpu, memory_order_relaxed);
    if (!atomic_load_explicit(&b->polling, memory_order_relaxed))
        atomic_store_explicit(&b->polling, 1, memory_order_relaxed);
}

/* A rank about to copy a large message with one system call (single copy) runs, but neither
 * polls nor beats until the copy returns: a peer waiting for that message would take the
 * silence for a descheduled rank and sleep, and then the copier pays the futex wake-up (and the
 * sleeper's membarrier interrupts its copy), per message. So the copier dates its beat to the
 * copy's expected end; fy_shm_busy_end puts back what the beat said before. */
unsigned fy_shm_busy(int64_t until_ns, int cpu)
{
    if (!fy_shm.base)
        return 0;
    fy_bell_t *b = &fy_shm.bell[fy_shm.rank];
    unsigned was = atomic_load_explicit(&b->polling, memory_order_relaxed);
    fy_shm_beat(until_ns, cpu);
    return was;
}

void fy_shm_busy_end(int64_t now_ns, unsigned was_polling)
{
    if (!fy_shm.base)
        return;
    fy_bell_t *b = &fy_shm.bell[fy_shm.rank];
    atomic_store_explicit(&b->beat_ns, now_ns, memory_order_relaxed);
    atomic_store_explicit(&b->polling, was_polling, memory_order_relaxed);
}

/* A rank draining a long backlog inside a wait does not come back to its poll loop, and so
 * does not beat, until the backlog is gone: beside busy loops, a drain of 64 KiB eager records
 * and rendezvous offers (each a single copy) outlasted FY_WAIT_STALE_NS, and the waiting sender
 * took the silence for a descheduled receiver and slept, thousands of times per run. So the
 * drain refreshes the beat every so many bytes (fy_shm_progress), while it polls: 64 KiB
 * windows beside a busy loop per core 2.1-2.8 -> 3.0-4.9 GB/s (MPICH 3.4-5.0; 5 alternating
 * runs each, EPYC guest, Nov 2026). */
void fy_shm_beat_refresh(void)
{
    fy_bell_t *b = &fy_shm.bell[fy_shm.rank];
    if (atomic_load_explicit(&b->polling, memory_order_relaxed))
        atomic_store_explicit(&b->beat_ns, fy_now_ns(), memory_order_relaxed);
}

void fy_shm_in_wait(int on)
{
    if (fy_shm.base)
        atomic_store_explicit(&fy_shm.bell[fy_shm.rank].in_wait, (unsigned)on,
                              memory_order_relaxed);
}

void fy_shm_beat_end(void)
{
    if (fy_shm.base)
        atomic_store_explicit(&fy_shm.bell[fy_shm.rank].polling, 0, memory_order_relaxed);
}

int fy_shm_awake_count(void)
{
    if (!fy_shm.base)
        return 1;
    int awake = 0;
    for (int r = 0; r < fy_shm.n; r++)
        awake += atomic_load_explicit(&fy_shm.bell[r].sleepers, memory_order_relaxed) == 0 &&
                 !atomic_load_explicit(&fy_shm.bell[r].gone, memory_order_relaxed);
    return awake;
}

int fy_shm_peer_look(int r, fy_shm_look_t *look)
{
    if (!fy_shm.base || r < 0 || (r = fy_shm_lr(r)) < 0 || r == fy_shm.rank)
        return 0;
    fy_bell_t *b = &fy_shm.bell[r];
    look->sleeping = atomic_load_explicit(&b->sleepers, memory_order_relaxed) != 0;
    look->polling = (int)atomic_load_explicit(&b->polling, memory_order_relaxed);
    look->cpu = atomic_load_explicit(&b->cpu, memory_order_relaxed);
    look->beat_ns = atomic_load_explicit(&b->beat_ns, memory_order_relaxed);
    return 1;
}

void fy_shm_sleep_done(void)
{
    atomic_fetch_sub(&my_bell()->sleepers, 1);
}

void fy_shm_leave(void)
{
    if (!fy_shm.base)
        return;
    atomic_store_explicit(&fy_shm.bell[fy_shm.rank].gone, 1, memory_order_release);
    /* No wake-ups: a peer waiting for us sees this at its next timed poll (200 ms), and
     * waking every sleeper as each of 1,024 ranks finalizes would cost a million switches. */
    atomic_fetch_add(&fy_shm.hdr->finalizing, 1);
}

unsigned fy_shm_left_count(void)
{
    return fy_shm.base ? atomic_load_explicit(&fy_shm.hdr->finalizing, memory_order_acquire) : 0;
}

int fy_shm_reaches(int w)
{
    return fy_shm.base && fy_shm_lr(w) >= 0;
}

/* Alive, as far as this host's kernel says: not gone from the process table, and not a
 * zombie its parent has yet to reap. */
static int process_alive(pid_t pid)
{
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 0;
    char path[48], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno != ENOENT;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold anything */
    return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

int fy_shm_dead_peer(long long now_ns, int *pid_p)
{
    static long long next_ns;
    if (!fy_shm.base || fy_shm.n < 2)
        return -1;
    uint32_t d = atomic_load_explicit(&fy_shm.hdr->dead, memory_order_acquire);
    if (d == 0 && now_ns >= next_ns) {
        next_ns = now_ns + 1000000000LL;
        /* The next rank that has not left: one that finalized may have exited by right. */
        for (int k = 1; k < fy_shm.n; k++) {
            int lr = (fy_shm.rank + k) % fy_shm.n;
            if (atomic_load_explicit(&fy_shm.bell[lr].gone, memory_order_acquire))
                continue;
            int32_t pid = fy_shm.bell[lr].pid;
            /* Gone may have been set between the two loads: look once more after the check. */
            if (pid > 0 && !process_alive(pid) &&
                !atomic_load_explicit(&fy_shm.bell[lr].gone, memory_order_acquire)) {
                uint32_t none = 0;
                atomic_compare_exchange_strong(&fy_shm.hdr->dead, &none, (uint32_t)lr + 1);
                d = atomic_load(&fy_shm.hdr->dead);
            }
            break;
        }
    }
    if (d == 0)
        return -1;
    int lr = (int)d - 1;
    *pid_p = fy_shm.bell[lr].pid;
    return fy_shm.world_of ? fy_shm.world_of[lr] : lr;
}

int fy_shm_peer_gone(int r)
{
    return fy_shm.base && (r = fy_shm_lr(r)) >= 0 &&
           atomic_load_explicit(&fy_shm.bell[r].gone, memory_order_acquire);
}

void fy_shm_stuck(int on)
{
    if (!fy_shm.base)
        return;
    if (on) {
        atomic_fetch_add(&fy_shm.hdr->stuck, 1);
    } else {
        atomic_fetch_add(&fy_shm.hdr->moved, 1);
        atomic_fetch_sub(&fy_shm.hdr->stuck, 1);
    }
}

int fy_shm_all_stuck(unsigned *moved_p)
{
    if (!fy_shm.base)
        return 0;
    *moved_p = atomic_load(&fy_shm.hdr->moved);
    return atomic_load(&fy_shm.hdr->stuck) == (uint32_t)fy_shm.n;
}

unsigned fy_shm_reported(int add)
{
    if (!fy_shm.base)
        return 0;
    if (add)
        return atomic_fetch_add(&fy_shm.hdr->reported, 1) + 1;
    return atomic_load(&fy_shm.hdr->reported);
}
