/* The measurement behind the calibrated fields of fy_machine_t (fy_machine.h).
 *
 * The work is bounded, not the time, so that a loaded machine takes longer rather than
 * measuring less: memcpy of a buffer a quarter of L2 (8 MiB copied in all); memcpy (5 rounds)
 * and process_vm_readv (3 rounds) of 8 MiB evicted from the caches before each round (where
 * the CPU cannot evict: 3 and 2 rounds between buffers of together 1.5x the last-level cache,
 * at most 64 MiB); and 7 futex wake-ups between two threads. Rates are the best round of several, since what the
 * thresholds need is what the machine can do, not what a neighbour left it this millisecond;
 * the wake-up time is the median, since it is a distribution and its tail is load. */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fy_clock.h"
#include "fy_machine.h"

#define MIB ((size_t)1 << 20)
#define WAKE_ROUNDS 7

/* Keeps the compiler from dropping copies whose result nobody reads. */
static inline void touched(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* n bytes (a multiple of 2 MiB) on 2 MiB boundaries, so that transparent huge pages can back
 * them: first touch is then ~5x cheaper, and first touch is most of what measuring costs.
 * *base_p and *len_p are what to munmap. */
#define HUGE ((size_t)2 << 20)
static char *map_bytes(size_t n, void **base_p, size_t *len_p)
{
    size_t len = n + HUGE;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
#ifdef MADV_HUGEPAGE
    madvise(a, n, MADV_HUGEPAGE);
#endif
    *base_p = p;
    *len_p = len;
    return a;
}

/* Evicts [p, p+n) from every cache level, so that the next copy reads and writes memory: a
 * buffer of a few MiB then measures what one larger than the last-level cache would, without
 * faulting in (and, on a virtual machine, without the host backing) tens of MiB. Where the
 * architecture has no unprivileged way to do it (CAN_EVICT 0), large buffers do it instead. */
#if defined(__x86_64__)
#define CAN_EVICT 1
#else
#define CAN_EVICT 0
#endif
static void evict(const void *p, size_t n)
{
#if CAN_EVICT
    for (size_t i = 0; i < n; i += 64)
        __builtin_ia32_clflush((const char *)p + i); /* SSE2: every x86-64 has it */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);         /* clflush is ordered by mfence */
#else
    (void)p;
    (void)n;
#endif
}

/* GB/s of the best of `rounds` rounds of `reps` copies of n bytes; `cold`: both buffers are
 * evicted from the caches before each round (outside the timing). */
static double copy_rate(void *dst, const void *src, size_t n, int reps, int rounds, int cold)
{
    int64_t best = 0;
    for (int r = 0; r < rounds; r++) {
        if (cold) {
            evict(src, n);
            evict(dst, n);
        }
        int64_t t0 = fy_now_ns();
        for (int k = 0; k < reps; k++) {
            memcpy(dst, src, n);
            touched(dst);
        }
        int64_t t = fy_now_ns() - t0;
        if (t > 0 && (best == 0 || t < best))
            best = t;
    }
    return best > 0 ? (double)n * reps / (double)best : 0;
}

/* process_vm_readv from this process to itself: the kernel's copy (page pinning included),
 * which is what a receiver pulling from a peer pays. 0 when the kernel refuses it. */
static double cma_rate(void *dst, void *src, size_t n, int rounds, int cold)
{
    int64_t best = 0;
    pid_t self = getpid();
    for (int r = 0; r < rounds; r++) {
        if (cold) {
            evict(src, n);
            evict(dst, n);
        }
        int64_t t0 = fy_now_ns();
        size_t done = 0;
        while (done < n) {
            struct iovec l = {(char *)dst + done, n - done};
            struct iovec rv = {(char *)src + done, n - done};
            ssize_t got = process_vm_readv(self, &l, 1, &rv, 1, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0)
                return 0; /* EPERM (seccomp), ENOSYS: no single copy here */
            done += (size_t)got;
        }
        touched(dst);
        int64_t t = fy_now_ns() - t0;
        if (t > 0 && (best == 0 || t < best))
            best = t;
    }
    return best > 0 ? (double)n / (double)best : 0;
}

/* ---- Wake-up time -------------------------------------------------------------------------- */

typedef struct {
    _Atomic uint32_t word;  /* the futex: 1 when the sleeper may go */
    _Atomic int armed;      /* rounds the sleeper has gone to sleep for */
    _Atomic int done;       /* rounds it has woken from (armed <= done + 1) */
    _Atomic int64_t woke;   /* when the sleeper ran again */
    _Atomic int tid;
} wake_t;

static long futex(_Atomic uint32_t *w, int op, uint32_t val)
{
    /* Not FUTEX_PRIVATE: ranks wait on words in shared memory, which is this path. */
    return syscall(SYS_futex, (uint32_t *)w, op, val, NULL, NULL, 0);
}

static void *sleeper(void *arg)
{
    wake_t *w = arg;
    atomic_store(&w->tid, (int)syscall(SYS_gettid));
    for (int i = 0; i < WAKE_ROUNDS; i++) {
        atomic_store(&w->armed, i + 1);
        while (atomic_load(&w->word) == 0)
            futex(&w->word, FUTEX_WAIT, 0);
        int64_t t = fy_now_ns();
        atomic_store(&w->word, 0);
        atomic_store(&w->woke, t);
        atomic_store(&w->done, i + 1);
    }
    return NULL;
}

/* Whether thread `tid` of this process is asleep ('S' in its stat): only then does the wake
 * measure a wake-up rather than a flag the sleeper had not yet gone to sleep on. */
static int asleep(int tid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1; /* no /proc: trust the pause before the wake */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' && p[2] == 'S';
}

static void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median nanoseconds from a futex wake to the woken thread running; 0 when no thread. */
static int64_t wake_time(void)
{
    wake_t w = {0};
    pthread_t th;
    if (pthread_create(&th, NULL, sleeper, &w) != 0)
        return 0;
    int64_t s[WAKE_ROUNDS];
    for (int i = 0; i < WAKE_ROUNDS; i++) {
        while (atomic_load(&w.armed) < i + 1)
            sched_yield();
        /* At most 200 looks (a few ms) for the sleeper to be in the kernel. */
        for (int k = 0; k < 200 && !asleep(atomic_load(&w.tid)); k++)
            pause_us(20);
        int64_t t0 = fy_now_ns();
        atomic_store(&w.word, 1);
        futex(&w.word, FUTEX_WAKE, 1);
        while (atomic_load(&w.done) < i + 1)
            sched_yield();
        int64_t d = atomic_load(&w.woke) - t0;
        s[i] = d > 0 ? d : 1;
    }
    pthread_join(th, NULL);
    qsort(s, WAKE_ROUNDS, sizeof s[0], cmp_i64);
    return s[WAKE_ROUNDS / 2];
}

/* ---- All of it ----------------------------------------------------------------------------- */

static size_t clamp(size_t v, size_t lo, size_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void fy_machine_measure(const fy_machine_t *facts, fy_machine_t *m)
{
    int64_t t0 = fy_now_ns();
    int busy = fy_machine_busy();
    void *base;
    size_t len;

    /* In L2: source and destination a quarter of it each, so both stay. */
    size_t small = clamp(facts->l2 ? facts->l2 / 4 : 128 * 1024, 16 * 1024, 512 * 1024);
    char *a = map_bytes(2 * small, &base, &len);
    if (a) {
        memset(a, 1, 2 * small);
        m->memcpy_cache_gbps = copy_rate(a + small, a, small, (int)(2 * MIB / small), 4, 0);
        munmap(base, len);
    }

    /* Past the caches: two buffers of 8 MiB evicted before each round where the CPU lets us;
     * elsewhere buffers of together 1.5x the last-level cache, so that each pass misses (a
     * sequential sweep of more than a cache evicts what the next pass needs). */
    int cold = CAN_EVICT;
    size_t llc = facts->l3 ? facts->l3 : facts->l2 ? 4 * facts->l2 : 16 * MIB;
    size_t half = cold ? 8 * MIB : clamp((llc + llc / 2) / 2, 4 * MIB, 32 * MIB) & ~(HUGE - 1);
    char *src = map_bytes(2 * half, &base, &len);
    if (src) {
        char *dst = src + half;
        memset(src, 1, 2 * half); /* faults both in: page faults are not memcpy */
        m->memcpy_mem_gbps = copy_rate(dst, src, half, 1, cold ? 5 : 3, cold);
        m->cma_gbps = cma_rate(dst, src, half, cold ? 3 : 2, cold);
        munmap(base, len);
    }

    int busy_mid = fy_machine_busy();
    m->wake_ns = wake_time();
    m->calib_ms = (double)(fy_now_ns() - t0) / 1e6;
    int busy_end = fy_machine_busy();
    busy = busy_mid > busy ? busy_mid : busy;
    m->calib_busy = busy_end > busy ? busy_end : busy;
}
