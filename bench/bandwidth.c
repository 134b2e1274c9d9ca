/*
 * bandwidth.c - windowed bandwidth between ranks 0 and 1: one way (default), both ways at
 * once (-B) or as a rate of small messages (-R).
 *
 * One iteration: rank 0 starts a window of W (default 64) MPI_Isend of the
 * same size and waits for all of them; rank 1 pre-posts W matching MPI_Irecv
 * into W distinct buffers, waits for all of them, then sends a 4-byte ack
 * that rank 0 receives before the next window. After warm-up iterations,
 * rank 0 times `iters` iterations (the last ack included) and reports
 *
 *     bandwidth = size * W * iters / elapsed / 1e6     (MB/s, 1 MB = 10^6 B)
 *
 * The timed windows are split into batches (default 20) timed on their own;
 * the reported bandwidth is that of the median batch, robust against a
 * stray preemption of a rank. The best batch and the overall average
 * (total bytes / total time) are printed too, and p10/p50/p90 of the rate of
 * single windows (each timed on its own; p10 is the slow end).
 *
 * -B (bidirectional): both ranks post W MPI_Irecv into distinct buffers and W
 * MPI_Isend of their own, and wait for all 2W; no ack (the exchange paces
 * itself). bandwidth = 2 * size * W * iters / elapsed, both directions
 * together; RESULT lines say bench=bibw.
 *
 * -R (message rate): the windows of the default mode, counted in messages:
 * rate = W * iters / elapsed (messages/s, unit msgps; bench=msgrate), for
 * small sizes (default 8 B .. 4 KiB) and a deeper window is usual (-W 256).
 *
 * Iterations are scaled down above 128 KiB. All sends of a window read the
 * same buffer (allowed since MPI-3); a receiver needs W * size bytes
 * (256 MiB at 4 MiB). The benchmark never judges its numbers.
 *
 * Usage: bandwidth [-m] [-B|-R] [-i iters] [-w warmup] [-b batches] [-W window] [-n min] [-x max]
 *   -m   machine-readable output, one line per size: "RESULT bench=bandwidth ranks=N
 *        size=S value=<median batch MB/s> unit=MBps status=ok max=.. avg=.. p10=.. p50=.. p90=.."
 *        (bench=bibw with -B; bench=msgrate, unit=msgps with -R)
 *   -B   bidirectional;  -R   message rate
 *   -i   windows timed for sizes <= 128 KiB (default 200)
 *   -w   untimed windows before each size (default 10)
 *   -b   batches the timed windows are split into (default 20)
 *   -W   messages in flight per window (default 64)
 *   -n   smallest size (default 1, -R 8), -x largest size (default 4M, -R 4K); K/M suffixes
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#define TAG_DATA 10
#define TAG_ACK 11
#define SCALE_FROM (128 * 1024)
#define MIN_ITERS 5

typedef struct options {
    int machine;
    int bidir;
    int rate;
    int iters;
    int warmup;
    int batches;
    int window;
    size_t min_size;
    size_t max_size;
} options_t;

static int parse_options(int argc, char **argv, options_t *opt_p)
{
    options_t opt = {0, 0, 0, 200, 10, 20, 64, 0, 0}; /* sizes 0: the mode's default */
    const bench_opt_t opts[] = {
        {'m', BENCH_OPT_FLAG, &opt.machine, 0},    {'B', BENCH_OPT_FLAG, &opt.bidir, 0},
        {'R', BENCH_OPT_FLAG, &opt.rate, 0},       {'i', BENCH_OPT_INT, &opt.iters, 1},
        {'w', BENCH_OPT_INT, &opt.warmup, 0},      {'b', BENCH_OPT_INT, &opt.batches, 1},
        {'W', BENCH_OPT_INT, &opt.window, 1},      {'n', BENCH_OPT_SIZE, &opt.min_size, 1},
        {'x', BENCH_OPT_SIZE, &opt.max_size, 0},
    };
    if (bench_getopt(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0]))) != 0)
        return -1;
    if (opt.min_size == 0)
        opt.min_size = opt.rate ? 8 : 1;
    if (opt.max_size == 0)
        opt.max_size = opt.rate ? 4096 : (size_t)4 << 20;
    if ((opt.bidir && opt.rate) || opt.max_size > ((size_t)1 << 30) ||
        opt.max_size * (size_t)opt.window > ((size_t)4 << 30))
        return -1;
    *opt_p = opt;
    return 0;
}

/* One window as seen by `rank`; rank 0 sends, rank 1 receives and acks; with -B both send
 * and receive a window (reqs holds 2W requests). */
static void window_pass(int rank, const options_t *opt, char *sbuf, char *rbuf, size_t size,
                        MPI_Request *reqs, MPI_Status *stats)
{
    int count = (int)size;
    int ack = 0;
    if (opt->bidir) {
        if (rank > 1)
            return;
        int peer = 1 - rank;
        for (int i = 0; i < opt->window; i++)
            MPI_Irecv(rbuf + (size_t)i * size, count, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD,
                      &reqs[i]);
        for (int i = 0; i < opt->window; i++)
            MPI_Isend(sbuf, count, MPI_CHAR, peer, TAG_DATA, MPI_COMM_WORLD,
                      &reqs[opt->window + i]);
        MPI_Waitall(2 * opt->window, reqs, stats);
    } else if (rank == 0) {
        for (int i = 0; i < opt->window; i++)
            MPI_Isend(sbuf, count, MPI_CHAR, 1, TAG_DATA, MPI_COMM_WORLD, &reqs[i]);
        MPI_Waitall(opt->window, reqs, stats);
        MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < opt->window; i++)
            MPI_Irecv(rbuf + (size_t)i * size, count, MPI_CHAR, 0, TAG_DATA, MPI_COMM_WORLD,
                      &reqs[i]);
        MPI_Waitall(opt->window, reqs, stats);
        MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
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
        bench_die(rank, "usage: bandwidth [-m] [-B|-R] [-i iters] [-w warmup] [-b batches] "
                        "[-W window] [-n min_size] [-x max_size<=1G]");
    if (nranks < 2)
        bench_die(rank, "bandwidth: needs at least 2 ranks");

    int sends = rank == 0 || (opt.bidir && rank == 1), recvs = rank == 1 || (opt.bidir && rank == 0);
    char *sbuf = sends ? bench_alloc(opt.max_size) : NULL;
    char *rbuf = recvs ? bench_alloc(opt.max_size * (size_t)opt.window) : NULL;
    /* Real status arrays rather than MPI_STATUSES_IGNORE: GCC 12 warns about the
     * latter with MPICH's headers, and the cost is the same for every library. */
    MPI_Request *reqs = malloc(sizeof(*reqs) * 2 * (size_t)opt.window);
    MPI_Status *stats = malloc(sizeof(*stats) * 2 * (size_t)opt.window);
    double *batch_sec = malloc(sizeof(double) * (size_t)opt.batches);
    double *win_sec = malloc(sizeof(double) * ((size_t)opt.iters + (size_t)opt.batches));
    if (reqs == NULL || stats == NULL || batch_sec == NULL || win_sec == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);

    const char *bench = opt.bidir ? "bibw" : opt.rate ? "msgrate" : "bandwidth";
    const char *unit = opt.rate ? "msgps" : "MBps";
    if (rank == 0) {
        if (opt.bidir)
            printf("# Ferry bench: bidirectional bandwidth (ranks 0 <-> 1, each a window of %d "
                   "Isend and %d Irecv, %d ranks)\n",
                   opt.window, opt.window, nranks);
        else
            printf("# Ferry bench: %s (rank 0 -> rank 1, window of %d Isend/Irecv + ack, "
                   "%d ranks)\n",
                   opt.rate ? "message rate" : "bandwidth", opt.window, nranks);
        bench_print_library();
        if (opt.rate)
            printf("# messages/s; median of %d batches\n", opt.batches);
        else
            printf("# MB/s with 1 MB = 10^6 bytes%s; median of %d batches\n",
                   opt.bidir ? ", both directions together" : "", opt.batches);
        if (!opt.machine)
            printf("# %12s %12s %12s %12s %10s %10s %10s %8s\n", "size (B)",
                   opt.rate ? "median msg/s" : "median MB/s", opt.rate ? "max msg/s" : "max MB/s",
                   opt.rate ? "avg msg/s" : "avg MB/s", "p10", "p50", "p90", "windows");
        fflush(stdout);
    }

    int bad_data = 0;
    for (size_t size = opt.min_size; size <= opt.max_size; size *= 2) {
        int iters = bench_scaled(opt.iters, size, SCALE_FROM, MIN_ITERS);
        int warmup = bench_scaled(opt.warmup, size, SCALE_FROM, 1);
        char mark = (char)(size % 251 + 1);

        /* Sanity only: the last message of a window must land in the last slot. */
        if (sends)
            sbuf[size - 1] = mark;
        for (int i = 0; i < warmup; i++)
            window_pass(rank, &opt, sbuf, rbuf, size, reqs, stats);
        if (recvs && warmup > 0 && rbuf[(size_t)opt.window * size - 1] != mark)
            bad_data = 1;

        int nbatch = iters < opt.batches ? iters : opt.batches;
        int per_batch = (iters + nbatch - 1) / nbatch;
        MPI_Barrier(MPI_COMM_WORLD);
        int nwin = 0;
        for (int b = 0; b < nbatch; b++) {
            double t0 = MPI_Wtime(), prev = t0;
            for (int i = 0; i < per_batch; i++) {
                window_pass(rank, &opt, sbuf, rbuf, size, reqs, stats);
                double now = MPI_Wtime();
                win_sec[nwin++] = now - prev;
                prev = now;
            }
            batch_sec[b] = prev - t0;
        }

        if (rank == 0) {
            /* Seconds per batch: the median time is the median rate, the minimum the best. */
            double median, min, mean, pct[3];
            bench_stats(batch_sec, nbatch, &median, &min, &mean);
            bench_p10_50_90(win_sec, nwin, pct); /* window times: p90 time = p10 rate */
            /* What one window moves: MB (both directions with -B), or messages with -R. */
            double wunits = opt.rate ? (double)opt.window
                                     : (double)size * opt.window * (opt.bidir ? 2 : 1) / 1e6;
            double units = wunits * per_batch;
            double r10 = wunits / pct[2], r50 = wunits / pct[1], r90 = wunits / pct[0];
            if (opt.machine)
                printf("RESULT bench=%s ranks=%d size=%zu value=%.2f unit=%s status=ok "
                       "max=%.2f avg=%.2f p10=%.6g p50=%.6g p90=%.6g\n",
                       bench, nranks, size, units / median, unit, units / min, units / mean, r10,
                       r50, r90);
            else
                printf("  %12zu %12.2f %12.2f %12.2f %10.2f %10.2f %10.2f %8d\n", size,
                       units / median, units / min, units / mean, r10, r50, r90,
                       per_batch * nbatch);
            fflush(stdout);
        }
    }
    if (bad_data)
        fprintf(stderr, "bandwidth: WARNING: rank %d received wrong data; numbers are suspect\n",
                rank);

    free(win_sec);
    free(batch_sec);
    free(stats);
    free(reqs);
    free(rbuf);
    free(sbuf);
    bench_finalize(rank);
    return 0;
}
