/*
 * ring.c - a token passed around all ranks of MPI_COMM_WORLD.
 *
 * Rank 0 sends the token to rank 1, every rank r > 0 receives it from r-1
 * and forwards it to (r+1) % n with blocking MPI_Recv / MPI_Send, and rank 0
 * receives it back from n-1: that is one lap of n hops. Rank 0 times every
 * lap of `laps` laps (after a few untimed warm-up laps) and reports
 *
 *     total time, and per hop = total / (laps * n)   (the mean, microseconds)
 *
 * and, as the number to compare, the per-hop time of the median of 20
 * batches of consecutive laps: a burst of unrelated load on the machine
 * lands in a few batches and moves the mean, not the median. A slow ring
 * (oversubscription) is slow in every batch, so the median still shows it.
 *
 * This is the oversubscription benchmark: with more ranks than cores only
 * the rank holding the token has work to do, so the result mostly shows how
 * quickly a waiting rank gives its core to the rank that needs it.
 *
 * The first int of the token carries the lap number, or -1 for "stop". Rank 0
 * alone decides when to stop: after `laps` laps or, with -T, once the time
 * budget for a size is spent (the laps actually done are reported, so the
 * per-hop time stays comparable). The stop token makes one more, untimed, lap.
 *
 * Usage: ring [-m] [-l laps] [-L big_laps] [-s small] [-S big] [-T seconds] [-w warmup]
 *   -m   machine-readable output, per size: "RESULT bench=ring ranks=N size=S
 *        value=<us/hop, median batch> unit=us status=ok total_s=.. laps=.. mean=.. p10=.. p50=..
 *        p90=.." (percentiles per hop of single laps)
 *   -l   laps of the small token (default 2000), -s its size (default 8 B)
 *   -L   laps of the big token (default 500),    -S its size (default 64K; 0 = skip)
 *   -T   time budget per size in seconds (default 0 = none)
 *   -w   untimed warm-up laps per size (default 10)
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#define TAG_TOKEN 20
#define TOKEN_STOP (-1)
#define BATCHES 20

typedef struct options {
    int machine;
    int laps;
    int big_laps;
    int warmup;
    size_t small;
    size_t big;
    double budget;
} options_t;

typedef struct ring_result {
    int laps;
    double seconds;
    double median_hop_usec; /* per hop, median batch of laps */
    double pct_hop_usec[3]; /* p10/p50/p90 per hop of single laps */
} ring_result_t;

static int parse_options(int argc, char **argv, options_t *opt_p)
{
    options_t opt = {0, 2000, 500, 10, 8, 64 * 1024, 0.0};
    const bench_opt_t opts[] = {
        {'m', BENCH_OPT_FLAG, &opt.machine, 0}, {'l', BENCH_OPT_INT, &opt.laps, 1},
        {'L', BENCH_OPT_INT, &opt.big_laps, 1}, {'s', BENCH_OPT_SIZE, &opt.small, 0},
        {'S', BENCH_OPT_SIZE, &opt.big, 0},     {'T', BENCH_OPT_SECONDS, &opt.budget, 0},
        {'w', BENCH_OPT_INT, &opt.warmup, 0},
    };
    if (bench_getopt(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0]))) != 0)
        return -1;
    if (opt.small < sizeof(int) || (opt.big != 0 && opt.big < sizeof(int)) ||
        opt.small > ((size_t)1 << 30) || opt.big > ((size_t)1 << 30))
        return -1;
    *opt_p = opt;
    return 0;
}

static void token_set(char *buf, int value)
{
    memcpy(buf, &value, sizeof(value));
}

static int token_get(const char *buf)
{
    int value;
    memcpy(&value, buf, sizeof(value));
    return value;
}

/* Rank 0's side of one lap: send `value`, get the token back. Returns what came back. */
static int lap_from_root(char *buf, int count, int value, int nranks)
{
    token_set(buf, value);
    MPI_Send(buf, count, MPI_CHAR, 1, TAG_TOKEN, MPI_COMM_WORLD);
    MPI_Recv(buf, count, MPI_CHAR, nranks - 1, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return token_get(buf);
}

/*
 * Runs warm-up plus timed laps of a `size`-byte token. Rank 0 fills *res_p;
 * the other ranks just forward until they see the stop token. Returns the
 * number of laps whose token came back with the wrong lap number (0 normally).
 */
static int run_ring(int rank, int nranks, char *buf, size_t size, int laps, const options_t *opt,
                    double *lap_sec, ring_result_t *res_p)
{
    int count = (int)size;
    int bad = 0;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) {
        int left = rank - 1, right = (rank + 1) % nranks;
        for (;;) {
            MPI_Recv(buf, count, MPI_CHAR, left, TAG_TOKEN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, count, MPI_CHAR, right, TAG_TOKEN, MPI_COMM_WORLD);
            if (token_get(buf) == TOKEN_STOP)
                break;
        }
        return 0;
    }

    /* Warm-up laps are numbered from 1 up; timed laps continue the numbering. */
    int lap = 0;
    double start = MPI_Wtime();
    for (int i = 0; i < opt->warmup; i++) {
        lap++;
        bad += lap_from_root(buf, count, lap, nranks) != lap;
        if (opt->budget > 0 && MPI_Wtime() - start > opt->budget / 4)
            break; /* a slow ring must not spend its whole budget warming up */
    }

    int done = 0;
    double t0 = MPI_Wtime();
    double prev = t0;
    while (done < laps) {
        lap++;
        bad += lap_from_root(buf, count, lap, nranks) != lap;
        double now = MPI_Wtime();
        lap_sec[done++] = now - prev;
        prev = now;
        if (opt->budget > 0 && now - t0 >= opt->budget)
            break;
    }
    lap_from_root(buf, count, TOKEN_STOP, nranks);

    /* Batches of consecutive laps; a few trailing laps may be left out of them. */
    int nbatch = done < BATCHES ? done : BATCHES;
    int per_batch = done / nbatch;
    double batch_sec[BATCHES];
    for (int b = 0; b < nbatch; b++) {
        batch_sec[b] = 0.0;
        for (int i = 0; i < per_batch; i++)
            batch_sec[b] += lap_sec[b * per_batch + i];
    }
    double median, min, mean;
    bench_stats(batch_sec, nbatch, &median, &min, &mean);

    /* Per hop of single laps (sorts lap_sec, so after the batches are summed). */
    bench_p10_50_90(lap_sec, done, res_p->pct_hop_usec);
    for (int i = 0; i < 3; i++)
        res_p->pct_hop_usec[i] *= 1e6 / nranks;
    res_p->laps = done;
    res_p->seconds = prev - t0;
    res_p->median_hop_usec = median * 1e6 / ((double)per_batch * nranks);
    return bad;
}

static void report(const options_t *opt, size_t size, int nranks, const ring_result_t *res)
{
    double mean_hop_usec = res->seconds * 1e6 / ((double)res->laps * nranks);
    if (opt->machine)
        printf("RESULT bench=ring ranks=%d size=%zu value=%.3f unit=us status=ok total_s=%.6f "
               "laps=%d mean=%.3f p10=%.3f p50=%.3f p90=%.3f\n",
               nranks, size, res->median_hop_usec, res->seconds, res->laps, mean_hop_usec,
               res->pct_hop_usec[0], res->pct_hop_usec[1], res->pct_hop_usec[2]);
    else
        printf("  %12zu %14.3f %14.3f %12.4f %8d %6d\n", size, res->median_hop_usec, mean_hop_usec,
               res->seconds, res->laps, nranks);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int rank, nranks;
    options_t opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (parse_options(argc, argv, &opt) != 0)
        bench_die(rank, "usage: ring [-m] [-l laps] [-L big_laps] [-s small>=4] [-S big|0] "
                        "[-T seconds] [-w warmup]");
    if (nranks < 2)
        bench_die(rank, "ring: needs at least 2 ranks");

    size_t sizes[2] = {opt.small, opt.big};
    int laps[2] = {opt.laps, opt.big_laps};
    int nsizes = opt.big != 0 ? 2 : 1;
    char *buf = bench_alloc(opt.small > opt.big ? opt.small : opt.big);
    int max_laps = opt.laps > opt.big_laps ? opt.laps : opt.big_laps;
    double *lap_sec = rank == 0 ? malloc(sizeof(double) * (size_t)max_laps) : NULL;
    if (rank == 0 && lap_sec == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);

    if (rank == 0) {
        long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
        printf("# Ferry bench: ring (token around %d ranks, blocking Send/Recv, %ld CPUs online)\n",
               nranks, ncpu);
        bench_print_library();
        printf("# per hop in microseconds: median of %d batches of laps, and mean = total time "
               "/ (laps * ranks)",
               BATCHES);
        if (opt.budget > 0)
            printf("; at most %.1f s per size", opt.budget);
        printf("\n");
        if (!opt.machine)
            printf("# %12s %14s %14s %12s %8s %6s\n", "size (B)", "us/hop median", "us/hop mean",
                   "total (s)", "laps", "ranks");
        fflush(stdout);
    }

    int bad = 0;
    for (int i = 0; i < nsizes; i++) {
        ring_result_t res = {0, 0.0, 0.0, {0.0, 0.0, 0.0}};
        bad += run_ring(rank, nranks, buf, sizes[i], laps[i], &opt, lap_sec, &res);
        if (rank == 0)
            report(&opt, sizes[i], nranks, &res);
    }
    if (bad)
        fprintf(stderr, "ring: WARNING: %d laps returned a wrong token; numbers are suspect\n",
                bad);

    free(lap_sec);
    free(buf);
    MPI_Finalize();
    return 0;
}
