/*
 * latency.c - blocking ping-pong latency between ranks 0 and 1.
 *
 * For each message size (0, then 1 B ... max, powers of two) rank 0 sends a
 * message with MPI_Send, rank 1 receives it with MPI_Recv and sends a message
 * of the same size back. After `warm-up` untimed round trips, `iters` round
 * trips are timed with MPI_Wtime on rank 0; the one-way latency is
 *
 *     latency = elapsed / (2 * iters)          (reported in microseconds)
 *
 * The timed round trips are split into batches (default 20), each timed on
 * its own; the reported latency is that of the median batch, which a stray
 * preemption of a rank (common on small or virtual machines) cannot move.
 * The minimum and the plain average over all iterations are printed too, and
 * p10/p50/p90 of the single round trips (each one timed on its own), so that
 * a run that switches between a fast and a slow mode shows both modes.
 *
 * Iterations are scaled down above 8 KiB so that every size moves roughly
 * the same number of bytes. With -T, a size ends after the first batch that
 * finds its budget spent (rank 0 says so to all ranks between batches, outside
 * the timed round trips), and its warm-up after a quarter of it: a transport
 * with millisecond round trips still gets through every size in bounded time.
 * Ranks other than 0 and 1 only join the barriers and those broadcasts.
 * The benchmark never judges its numbers; it only prints them.
 *
 * Usage: latency [-m] [-i iters] [-w warmup] [-b batches] [-x max_size] [-T seconds]
 *   -m   machine-readable output, one line per size:
 *        "RESULT bench=latency ranks=N size=S value=<median batch> unit=us status=ok|FAILED
 *         min=.. avg=.. p10=.. p50=.. p90=.." (percentiles of single round trips, one-way)
 *   -i   round trips timed for sizes <= 8 KiB (default 10000)
 *   -w   untimed round trips before each size (default 200)
 *   -b   batches the timed round trips are split into (default 20)
 *   -x   largest size, K/M suffixes allowed (default 4M)
 *   -T   time budget per size in seconds (default 0 = none); RESULT lines then add trips=
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#define TAG_PING 1
#define TAG_PONG 2
#define SCALE_FROM 8192 /* sizes above this get proportionally fewer iterations */
#define MIN_ITERS 10

typedef struct options {
    int machine;
    int iters;
    int warmup;
    int batches;
    size_t max_size;
    double budget;
} options_t;

static int parse_options(int argc, char **argv, options_t *opt_p)
{
    options_t opt = {0, 10000, 200, 20, (size_t)4 << 20, 0.0};
    const bench_opt_t opts[] = {
        {'m', BENCH_OPT_FLAG, &opt.machine, 0},   {'i', BENCH_OPT_INT, &opt.iters, 1},
        {'w', BENCH_OPT_INT, &opt.warmup, 0},     {'b', BENCH_OPT_INT, &opt.batches, 1},
        {'x', BENCH_OPT_SIZE, &opt.max_size, 0},  {'T', BENCH_OPT_SECONDS, &opt.budget, 0},
    };
    if (bench_getopt(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0]))) != 0 ||
        opt.max_size > ((size_t)1 << 30))
        return -1;
    *opt_p = opt;
    return 0;
}

/* With a budget: whether rank 0 started `since` less than `limit` seconds ago, as rank 0 tells
 * every rank (a collective call; without a budget always 1 and no call). */
static int in_budget(int rank, double budget, double since, double limit)
{
    if (budget <= 0.0)
        return 1;
    int go = rank == 0 && MPI_Wtime() - since < limit;
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return go;
}

/* One ping-pong round trip as seen by `rank` (only 0 and 1 take part). */
static void round_trip(int rank, char *buf, int count)
{
    if (rank == 0) {
        MPI_Send(buf, count, MPI_CHAR, 1, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(buf, count, MPI_CHAR, 1, TAG_PONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(buf, count, MPI_CHAR, 0, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, count, MPI_CHAR, 0, TAG_PONG, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    int rank, nranks;
    options_t opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (parse_options(argc, argv, &opt) != 0)
        bench_die(rank,
                  "usage: latency [-m] [-i iters] [-w warmup] [-b batches] [-x max_size<=1G] "
                  "[-T seconds]");
    if (nranks < 2)
        bench_die(rank, "latency: needs at least 2 ranks");

    char *buf = bench_alloc(opt.max_size);
    double *batch_usec = malloc(sizeof(double) * (size_t)opt.batches);
    /* One slot per timed round trip: a batch has at most iters / batches + 1 of them. */
    size_t max_trips = (size_t)opt.iters + (size_t)opt.batches;
    double *trip_usec = malloc(sizeof(double) * max_trips);
    if (batch_usec == NULL || trip_usec == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);

    if (rank == 0) {
        printf("# Ferry bench: latency (blocking ping-pong, ranks 0 <-> 1, %d ranks)\n", nranks);
        bench_print_library();
        printf("# one-way latency = round-trip time / 2, in microseconds; median of %d batches\n",
               opt.batches);
        if (!opt.machine)
            printf("# %12s %12s %12s %12s %10s %10s %10s %10s\n", "size (B)", "median (us)",
                   "min (us)", "avg (us)", "p10", "p50", "p90", "iters");
        fflush(stdout);
    }

    int bad_data = 0;
    for (size_t size = 0; size <= opt.max_size; size = size ? size * 2 : 1) {
        int count = (int)size;
        int iters = bench_scaled(opt.iters, size, SCALE_FROM, MIN_ITERS);
        int warmup = bench_scaled(opt.warmup, size, SCALE_FROM, 2);
        int nbatch = iters < opt.batches ? iters : opt.batches;
        int per_batch = (iters + nbatch - 1) / nbatch;
        unsigned char mark = (unsigned char)(size % 251 + 1);

        /* Sanity only: rank 0 stamps the ends of its buffer; rank 1 must see them. */
        if (size > 0) {
            buf[0] = buf[size - 1] = rank == 0 ? (char)mark : 0;
        }
        double size_t0 = MPI_Wtime();
        for (int i = 0; i < warmup; i++) {
            round_trip(rank, buf, count);
            if (opt.budget > 0 && i % 16 == 15 && i + 1 < warmup &&
                !in_budget(rank, opt.budget, size_t0, opt.budget / 4))
                break;
        }
        if (rank == 1 && size > 0 && warmup > 0 &&
            (buf[0] != (char)mark || buf[size - 1] != (char)mark))
            bad_data = 1;

        MPI_Barrier(MPI_COMM_WORLD);
        int ntrips = 0, nb = 0;
        double timed_t0 = MPI_Wtime();
        for (int b = 0; b < nbatch; b++) {
            /* Consecutive time stamps: the batch's time is the sum of its round trips. */
            double t0 = MPI_Wtime(), prev = t0;
            for (int i = 0; i < per_batch; i++) {
                round_trip(rank, buf, count);
                double now = MPI_Wtime();
                trip_usec[ntrips++] = (now - prev) * 1e6 / 2.0;
                prev = now;
            }
            batch_usec[b] = (prev - t0) * 1e6 / (2.0 * per_batch);
            nb++;
            if (b + 1 < nbatch && !in_budget(rank, opt.budget, timed_t0, opt.budget))
                break;
        }

        if (rank == 0) {
            double median, min, mean, pct[3];
            bench_stats(batch_usec, nb, &median, &min, &mean);
            bench_p10_50_90(trip_usec, ntrips, pct);
            if (opt.machine) {
                printf("RESULT bench=latency ranks=%d size=%zu value=%.3f unit=us status=ok "
                       "min=%.3f avg=%.3f p10=%.3f p50=%.3f p90=%.3f",
                       nranks, size, median, min, mean, pct[0], pct[1], pct[2]);
                if (opt.budget > 0)
                    printf(" trips=%d", ntrips);
                printf("\n");
            } else
                printf("  %12zu %12.3f %12.3f %12.3f %10.3f %10.3f %10.3f %10d\n", size, median,
                       min, mean, pct[0], pct[1], pct[2], ntrips);
            fflush(stdout);
        }
    }
    if (bad_data)
        fprintf(stderr, "latency: WARNING: rank 1 received wrong data; numbers are suspect\n");

    free(trip_usec);
    free(batch_usec);
    free(buf);
    bench_finalize(rank);
    return 0;
}
