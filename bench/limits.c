/*
 * limits.c - the physical limits an MPI transport on this machine works under.
 *
 * No MPI: plain C11 + POSIX threads, so the numbers do not depend on any MPI.
 *
 * phys.memcpy     single-thread memcpy bandwidth by buffer size (1 KiB ... 64 MiB).
 *                 One copy of `size` bytes from one buffer to another; both buffers
 *                 are touched first. Bandwidth = bytes copied / time (GB/s, 1 GB =
 *                 10^9 bytes; bytes *copied*, not bytes read + written). Small
 *                 sizes stay in cache, so the curve shows the cache levels. Each
 *                 size is timed in batches of copies (>= ~2 ms each); the reported
 *                 value is the median batch, the best batch goes in `best=`.
 *
 * phys.cacheline  one-way latency of a cache line bounced between two threads
 *                 pinned to CPU 0 and CPU 1. Thread A stores an odd counter value
 *                 into an atomic flag and spins until B has stored the next (even)
 *                 value; one round trip = two cache-line transfers, one-way latency
 *                 = round trip / 2 (ns). This is the floor of any shared-memory
 *                 ping-pong: an MPI small-message latency is some multiple of it.
 *                 Median of batches again. If the machine has one CPU, or pinning
 *                 fails, the threads run unpinned and the line says `pinned=0`.
 *
 * phys.yieldbarrier
 *                 the floor of a barrier when processes outnumber cores: P forked
 *                 processes (P = 2, 4, 8; -P), not threads, because MPI ranks are
 *                 processes with their own address spaces and a switch between two
 *                 of them costs more than between threads. They share one anonymous
 *                 MAP_SHARED mapping and run a counter barrier in a loop: each
 *                 fetch-adds a shared counter; the last to arrive resets it and bumps
 *                 a generation word; the others poll the generation and call
 *                 sched_yield() between polls (no futex, nothing sleeps). With more
 *                 processes than cores every process must be scheduled once per
 *                 barrier, so the time is that of the context switches alone: the
 *                 floor under any MPI barrier, and under an allreduce of a few bytes,
 *                 on this machine when ranks outnumber cores. µs per barrier, the
 *                 median of 15 batches of 10 ms as timed by process 0 (`best=` the
 *                 best batch).
 *                 `switches=`: context switches (voluntary and not) of all P processes
 *                 per barrier over the whole run; P - 1, the fewest possible, when every
 *                 process but the last to arrive gives up its core once per barrier.
 *                 `cpus=`: online CPUs; `cpus_used=`: how many of them the processes
 *                 ran barriers on. The processes are not pinned (Ferry's mpiexec does
 *                 not pin ranks either); processes that never sleep stay where fork put
 *                 them, and on the shared 2-core VM that was one CPU for all of them,
 *                 even at P = 2, so the switches ran one after the other. Spread over k
 *                 cores the same barrier could take down to ~1/k of that (pinned round
 *                 robin, P = 4 took 2 us against 4, but its batches swung from 2 to 250
 *                 us when other programs ran): an MPI whose ranks the scheduler spreads
 *                 can go below this floor, by at most the number of cores.
 *                 On a shared machine each switch also hands the core to other programs,
 *                 so compare the floor only with MPI numbers taken at about the same
 *                 time (bench/run.sh runs limits once, first).
 *
 * phys.yieldbarrier_flags
 *                 the same with flags instead of a counter: each process stores its
 *                 round number in its own cache line and waits (yielding) until every
 *                 line holds at least that round. No read-modify-write, but each
 *                 process reads P lines per barrier.
 *
 * Usage: limits [-m] [-x max_size] [-r rounds] [-P list] [-B]
 *   -B   only the cache-line bounce, quickly (2,000 round trips per batch): its median in ns
 *        as a bare number, for run.sh to tag every run with the state of the host (on the
 *        EPYC guest of Nov 2026 it flipped between about 30 and 160 ns from minute to minute)
 *   -m   machine-readable output (RESULT lines; see bench/README.md)
 *   -x   largest memcpy size, K/M suffixes (default 64M)
 *   -r   cache-line round trips per batch (default 20000)
 *   -P   process counts of the yielding barriers, comma-separated (default 2,4,8;
 *        each 2 ... 256; 0 skips them)
 */
#define _GNU_SOURCE
#include "bench_opt.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 15
#define BATCH_NS 2000000.0 /* aim for >= 2 ms per memcpy batch */
/* Barrier batches are longer: a batch must span many scheduler decisions, or one
 * preemption by another program decides its time. */
#define YB_BATCH_NS 10000000.0
#define YB_MAX_P 256

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double median_sorted(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int parse_size(const char *s, size_t *out_p)
{
    size_t v;
    if (bench_parse_size(s, &v) != 0 || v == 0)
        return -1;
    *out_p = v;
    return 0;
}

/* Keeps the compiler from proving the copies useless. */
static volatile unsigned char sink;

static void memcpy_sweep(int machine, size_t max_size)
{
    unsigned char *src = NULL, *dst = NULL;
    if (posix_memalign((void **)&src, 4096, max_size) ||
        posix_memalign((void **)&dst, 4096, max_size)) {
        fprintf(stderr, "limits: cannot allocate 2 x %zu bytes\n", max_size);
        exit(2);
    }
    memset(src, 1, max_size);
    memset(dst, 2, max_size);
    if (!machine)
        printf("# %10s %12s %12s %8s\n", "size (B)", "median GB/s", "best GB/s", "copies");
    for (size_t size = 1024; size <= max_size; size *= 2) {
        /* Calibrate: copies per batch so that a batch lasts about BATCH_NS. */
        double t0 = now_ns();
        memcpy(dst, src, size);
        double one = now_ns() - t0;
        long per = (long)(BATCH_NS / (one > 1.0 ? one : 1.0));
        if (per < 1)
            per = 1;
        for (long i = 0; i < per / 4 + 1; i++) /* warm up */
            memcpy(dst, src, size);
        t0 = now_ns();
        for (long i = 0; i < per; i++)
            memcpy(dst, src, size);
        double t = now_ns() - t0; /* recalibrate after warm-up */
        per = (long)((double)per * BATCH_NS / (t > 1.0 ? t : 1.0));
        if (per < 1)
            per = 1;
        double gbps[BATCHES];
        for (int b = 0; b < BATCHES; b++) {
            t0 = now_ns();
            for (long i = 0; i < per; i++) {
                memcpy(dst, src, size);
                __asm__ __volatile__("" ::: "memory");
            }
            t = now_ns() - t0;
            gbps[b] = (double)size * (double)per / t; /* bytes per ns = GB/s */
        }
        sink = dst[size - 1];
        double med = median_sorted(gbps, BATCHES);
        double best = gbps[BATCHES - 1];
        if (machine)
            printf("RESULT bench=phys.memcpy ranks=1 size=%zu value=%.3f unit=GBps status=ok "
                   "best=%.3f copies=%ld\n",
                   size, med, best, per * BATCHES);
        else
            printf("  %10zu %12.3f %12.3f %8ld\n", size, med, best, per * BATCHES);
        fflush(stdout);
    }
    free(src);
    free(dst);
}

/* The bounced line: its own 64-byte-aligned cache line (128 to avoid the adjacent-line
 * prefetcher pulling a neighbour). */
static struct {
    _Alignas(128) atomic_long flag;
    char pad[128 - sizeof(atomic_long)];
} line;

typedef struct bounce_arg {
    int cpu;
    long rounds; /* round trips per batch */
    int batches;
    int pinned;    /* out: 1 if pinning worked */
    double ns[64]; /* out (thread A only): one-way ns per batch */
} bounce_arg_t;

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

/* Thread B: waits for each odd value, answers with the next even one. */
static void *bounce_b(void *p)
{
    bounce_arg_t *a = p;
    a->pinned = pin_to(a->cpu);
    long total = a->rounds * (a->batches + 1);
    for (long i = 0; i < total; i++) {
        long want = 2 * i + 1;
        while (atomic_load_explicit(&line.flag, memory_order_acquire) != want)
            ;
        atomic_store_explicit(&line.flag, want + 1, memory_order_release);
    }
    return NULL;
}

/* Thread A (the caller): the first batch is warm-up. */
static void bounce_a(bounce_arg_t *a)
{
    a->pinned = pin_to(a->cpu);
    long i = 0;
    for (int b = 0; b <= a->batches; b++) {
        double t0 = now_ns();
        for (long k = 0; k < a->rounds; k++, i++) {
            atomic_store_explicit(&line.flag, 2 * i + 1, memory_order_release);
            while (atomic_load_explicit(&line.flag, memory_order_acquire) != 2 * i + 2)
                ;
        }
        double t = now_ns() - t0;
        if (b > 0)
            a->ns[b - 1] = t / (2.0 * (double)a->rounds);
    }
}

static int cacheline_bounce(int machine, long rounds, int bare)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    bounce_arg_t a = {.cpu = 0, .rounds = rounds, .batches = BATCHES};
    bounce_arg_t b = {.cpu = ncpu > 1 ? 1 : 0, .rounds = rounds, .batches = BATCHES};
    pthread_t tb;
    atomic_store(&line.flag, 0);
    if (pthread_create(&tb, NULL, bounce_b, &b) != 0) {
        fprintf(stderr, "limits: pthread_create failed\n");
        return 1;
    }
    bounce_a(&a);
    pthread_join(tb, NULL);
    int pinned = a.pinned && b.pinned && ncpu > 1;
    double best = a.ns[0];
    for (int i = 1; i < BATCHES; i++)
        best = a.ns[i] < best ? a.ns[i] : best;
    double med = median_sorted(a.ns, BATCHES);
    if (bare)
        printf("%.0f\n", med);
    else if (machine)
        printf("RESULT bench=phys.cacheline ranks=2 size=64 value=%.2f unit=ns status=ok "
               "best=%.2f pinned=%d cpus=0,%d\n",
               med, best, pinned, b.cpu);
    else
        printf("# cache-line one-way latency, CPU 0 <-> CPU %d%s: median %.2f ns, best %.2f ns\n",
               b.cpu, pinned ? "" : " (not pinned)", med, best);
    return 0;
}

/* ---- barriers of processes that yield -------------------------------------------- */

typedef struct yb_line {
    _Alignas(128) atomic_long v;
    char pad[128 - sizeof(atomic_long)];
} yb_line_t;

/* The shared mapping: every word on its own line, so that arrivals on the counter do
 * not disturb the pollers of the generation, and the flags do not share lines. */
typedef struct yb_shared {
    yb_line_t count;               /* arrivals in the current round (counter barrier) */
    yb_line_t gen;                 /* rounds completed (counter barrier) */
    yb_line_t done;                /* the last round, set by process 0 before it arrives there */
    yb_line_t flag[YB_MAX_P];      /* each process's last round (flag barrier) */
    long csw[YB_MAX_P];            /* out: each process's context switches during the run */
    unsigned long where[YB_MAX_P]; /* out: the CPUs (mod 64) each process ran barriers on */
} yb_shared_t;

enum yb_kind { YB_COUNTER, YB_FLAGS };

static void yb_counter(yb_shared_t *s, int p)
{
    /* Read before arriving: the generation cannot move until this process arrives. */
    long g = atomic_load_explicit(&s->gen.v, memory_order_acquire);
    if (atomic_fetch_add_explicit(&s->count.v, 1, memory_order_acq_rel) == p - 1) {
        /* The reset is ordered before the bump, and nobody arrives again before
         * seeing the bump, so no arrival of the next round is lost. */
        atomic_store_explicit(&s->count.v, 0, memory_order_relaxed);
        atomic_store_explicit(&s->gen.v, g + 1, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&s->gen.v, memory_order_acquire) == g)
        sched_yield();
}

static void yb_flags(yb_shared_t *s, int p, int me, long round)
{
    atomic_store_explicit(&s->flag[me].v, round, memory_order_release);
    for (int j = 0; j < p; j++)
        while (atomic_load_explicit(&s->flag[j].v, memory_order_acquire) < round)
            sched_yield();
}

static void yb_barrier(yb_shared_t *s, enum yb_kind kind, int p, int me, long round)
{
    if (kind == YB_COUNTER)
        yb_counter(s, p);
    else
        yb_flags(s, p, me, round);
}

/* The scheduler places the processes, and one core or several changes the time by up to
 * the number of cores, so each process notes where it ran (in a local word: the shared
 * array is written once, at the end, or it would add line transfers to the barrier). */
static unsigned long cpu_bit(void)
{
    int cpu = sched_getcpu();
    return cpu < 0 ? 0 : 1UL << (cpu % 64);
}

static long csw_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_nvcsw + ru.ru_nivcsw;
}

/* Processes 1 .. p-1: barriers until the round process 0 announced as the last. Once
 * a process has passed round r, process 0's announcement of r (made before it arrived
 * at r) is visible; an announcement seen early names a later round and is waited for. */
static void yb_member(yb_shared_t *s, enum yb_kind kind, int p, int me)
{
    long c0 = csw_now();
    unsigned long where = 0;
    for (long r = 1;; r++) {
        yb_barrier(s, kind, p, me, r);
        where |= cpu_bit();
        if (atomic_load_explicit(&s->done.v, memory_order_acquire) == r)
            break;
    }
    s->where[me] = where;
    s->csw[me] = csw_now() - c0;
}

/* Process 0: one warm-up batch, then BATCHES timed ones, then it announces the last
 * round. A batch is as many barriers as fit in YB_BATCH_NS: only process 0 needs to know
 * where batches end, and a count fixed in advance by a calibration would be wrong after
 * one stall of the calibration (or would run for seconds after one of a batch). Returns
 * the rounds run; us[] gets µs per barrier of each batch. */
static long yb_leader(yb_shared_t *s, enum yb_kind kind, int p, double *us)
{
    long c0 = csw_now(), r = 0;
    unsigned long where = 0;
    for (int b = -1; b < BATCHES; b++) {
        long n = 0;
        double t0 = now_ns(), t;
        do {
            yb_barrier(s, kind, p, 0, ++r);
            where |= cpu_bit();
            n++;
            t = now_ns() - t0;
        } while (t < YB_BATCH_NS);
        if (b >= 0)
            us[b] = t / 1000.0 / (double)n;
    }
    atomic_store_explicit(&s->done.v, r + 1, memory_order_release);
    yb_barrier(s, kind, p, 0, ++r);
    s->where[0] = where;
    s->csw[0] = csw_now() - c0;
    return r;
}

static int yield_barrier(int machine, enum yb_kind kind, int p)
{
    const char *name = kind == YB_COUNTER ? "phys.yieldbarrier" : "phys.yieldbarrier_flags";
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    yb_shared_t *s =
        mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (s == MAP_FAILED) {
        fprintf(stderr, "limits: mmap of %zu bytes failed\n", sizeof(*s));
        return 1;
    }
    pid_t pid[YB_MAX_P];
    pid_t parent = getpid();
    fflush(stdout); /* or the children would write the parent's buffered lines again */
    for (int i = 1; i < p; i++) {
        pid[i] = fork();
        if (pid[i] == 0) {
            /* Stuck in a barrier forever if the parent dies (timeout): die with it. */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(1);
            yb_member(s, kind, p, i);
            _exit(0);
        }
        if (pid[i] < 0) {
            fprintf(stderr, "limits: fork failed at process %d of %d\n", i, p);
            for (int j = 1; j < i; j++) {
                kill(pid[j], SIGKILL);
                waitpid(pid[j], NULL, 0);
            }
            munmap(s, sizeof(*s));
            return 1;
        }
    }
    double us[BATCHES];
    long rounds = yb_leader(s, kind, p, us);
    int bad = 0;
    for (int i = 1; i < p; i++) {
        int st;
        if (waitpid(pid[i], &st, 0) != pid[i] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            bad = 1;
    }
    long csw = 0;
    unsigned long where = 0;
    for (int i = 0; i < p; i++) {
        csw += s->csw[i];
        where |= s->where[i];
    }
    munmap(s, sizeof(*s));
    if (bad) {
        fprintf(stderr, "limits: a process of the %d-process barrier failed\n", p);
        return 1;
    }
    double best = us[0];
    for (int i = 1; i < BATCHES; i++)
        best = us[i] < best ? us[i] : best;
    double med = median_sorted(us, BATCHES);
    double per_barrier = (double)csw / (double)rounds;
    if (machine)
        printf("RESULT bench=%s ranks=%d size=0 value=%.3f unit=us status=ok best=%.3f "
               "switches=%.2f cpus=%ld cpus_used=%d barriers=%ld\n",
               name, p, med, best, per_barrier, ncpu, __builtin_popcountl(where), rounds);
    else
        printf("# %s, %d processes on %ld CPUs (ran on %d): median %.3f us, best %.3f us, "
               "%.2f context switches per barrier\n",
               name, p, ncpu, __builtin_popcountl(where), med, best, per_barrier);
    fflush(stdout);
    return 0;
}

/* Parses "2,4,8" into ps[]; returns the count, -1 if malformed, 0 for "0". */
static int parse_procs(const char *text, int *ps, int max)
{
    int n = 0;
    const char *q = text;
    if (strcmp(text, "0") == 0)
        return 0;
    while (*q) {
        char *end = NULL;
        long v = strtol(q, &end, 10);
        if (end == q || v < 2 || v > YB_MAX_P || n == max)
            return -1;
        ps[n++] = (int)v;
        if (*end == ',')
            end++;
        else if (*end != '\0')
            return -1;
        q = end;
    }
    return n > 0 ? n : -1;
}

int main(int argc, char **argv)
{
    int machine = 0, c;
    size_t max_size = (size_t)64 << 20;
    long rounds = 20000;
    int procs[16] = {2, 4, 8}, nprocs = 3;
    while ((c = getopt(argc, argv, "mx:r:P:Bh")) != -1) {
        switch (c) {
        case 'B': return cacheline_bounce(0, 2000, 1);
        case 'm': machine = 1; break;
        case 'x':
            if (parse_size(optarg, &max_size))
                goto usage;
            break;
        case 'r':
            rounds = atol(optarg);
            if (rounds < 1)
                goto usage;
            break;
        case 'P':
            nprocs = parse_procs(optarg, procs, 16);
            if (nprocs < 0)
                goto usage;
            break;
        default: goto usage;
        }
    }
    printf("# Ferry bench: physical limits (memcpy bandwidth, cache-line bounce, yielding "
           "barriers), no MPI\n");
    fflush(stdout);
    memcpy_sweep(machine, max_size);
    int rc = cacheline_bounce(machine, rounds, 0);
    for (int i = 0; i < nprocs; i++)
        for (int k = YB_COUNTER; k <= YB_FLAGS; k++)
            rc |= yield_barrier(machine, (enum yb_kind)k, procs[i]);
    return rc;
usage:
    fprintf(stderr, "usage: limits [-m] [-x max_size] [-r rounds] [-P procs,...] [-B]\n");
    return 1;
}
