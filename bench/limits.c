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
 * Usage: limits [-m] [-x max_size] [-r rounds]
 *   -m   machine-readable output (RESULT lines; see bench/README.md)
 *   -x   largest memcpy size, K/M suffixes (default 64M)
 *   -r   cache-line round trips per batch (default 20000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 15
#define BATCH_NS 2000000.0 /* aim for >= 2 ms per memcpy batch */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static int parse_size(const char *s, size_t *out_p)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end != '\0' || v == 0)
        return -1;
    *out_p = (size_t)v;
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

static int cacheline_bounce(int machine, long rounds)
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
    if (machine)
        printf("RESULT bench=phys.cacheline ranks=2 size=64 value=%.2f unit=ns status=ok "
               "best=%.2f pinned=%d cpus=0,%d\n",
               med, best, pinned, b.cpu);
    else
        printf("# cache-line one-way latency, CPU 0 <-> CPU %d%s: median %.2f ns, best %.2f ns\n",
               b.cpu, pinned ? "" : " (not pinned)", med, best);
    return 0;
}

int main(int argc, char **argv)
{
    int machine = 0, c;
    size_t max_size = (size_t)64 << 20;
    long rounds = 20000;
    while ((c = getopt(argc, argv, "mx:r:h")) != -1) {
        switch (c) {
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
        default: goto usage;
        }
    }
    printf("# Ferry bench: physical limits (memcpy bandwidth, cache-line bounce), no MPI\n");
    fflush(stdout);
    memcpy_sweep(machine, max_size);
    return cacheline_bounce(machine, rounds);
usage:
    fprintf(stderr, "usage: limits [-m] [-x max_size] [-r rounds]\n");
    return 1;
}
