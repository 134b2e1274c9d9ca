/*
 * osc.c - one-sided communication (RMA): MPI_Put and MPI_Get latency and bandwidth under each
 * synchronisation, the latency of accumulates and atomics, and a contended counter.
 *
 * The measurements follow the definitions of the OSU one-sided benchmarks (osu_put_latency,
 * osu_get_latency, osu_put_bw, osu_get_bw, osu_acc_latency, osu_fop_latency, osu_cas_latency,
 * osu_get_acc_latency); the code is ours. Rank 0 is the origin and rank 1 the target; other
 * ranks (of the counter, or a larger job) only join the collectives. The window is made by
 * MPI_Win_allocate (default) or, with -c, by MPI_Win_create over page-aligned malloc'd memory,
 * displacement unit 1, at least as large as the largest size.
 *
 * Synchronisations (-p selects one per run; bench names end in it):
 *   fence     latency of Put: a ping-pong, rank 0 puts to 1, fence, rank 1 puts to 0, fence;
 *             one way = round trip / 2. Get: rank 0 gets, fence (rank 1 only fences).
 *             Bandwidth: rank 0 issues a window of W operations, fence.
 *   lock      rank 0: MPI_Win_lock(SHARED, 1), one operation (bandwidth: W), MPI_Win_unlock.
 *   lock_all  rank 0 holds MPI_Win_lock_all through the measurement; one operation (bandwidth:
 *             W), MPI_Win_flush(1). The passive-target mode of issue 14's targets.
 *   pscw      latency of Put: a ping-pong, rank 0 start/put/complete then post/wait, rank 1
 *             post/wait then start/put/complete; one way = round trip / 2. Get: rank 0
 *             start/get/complete, rank 1 post/wait. Bandwidth: W operations per access epoch.
 * Sizes are 1 B .. -x (default 4 MiB), powers of two. Bandwidth = size * W / time of a window
 * (MB/s, 1 MB = 10^6 B); every operation of a window reads the same origin buffer and writes
 * its own slot of the target window (slot j at j * size modulo the window).
 *
 * -p atomic: under lock_all + flush, one operation and a flush per timed unit:
 *   osc.acc_latency.lock_all.double   MPI_Accumulate(MPI_SUM) of size/8 doubles (8 B .. -X)
 *   osc.acc_latency.lock_all.int      MPI_Accumulate(MPI_SUM) of size/4 ints (8 B .. -X)
 *   osc.get_acc_latency.lock_all      MPI_Get_accumulate(MPI_SUM) of size/8 doubles
 *   osc.fop_latency.lock_all          MPI_Fetch_and_op(MPI_SUM) of one int64_t (8 B)
 *   osc.cas_latency.lock_all          MPI_Compare_and_swap of one int64_t (8 B)
 * -p counter: every rank, rank 0 included, does MPI_Fetch_and_op(MPI_SUM, 1) on one int64_t of
 *   rank 0's window, each followed by MPI_Win_flush(0), under MPI_Win_lock_all. Timed warm-up
 *   rounds (-w operations per rank, then 4 times as many while a round took under -t / 4)
 *   size the batches: each rank does as many operations per batch as fill -t seconds at the
 *   warm-up's rate, at least 10 and at most -o (so the number of operations is bounded, and
 *   the barriers around a batch weigh alike in a fast and a slow MPI). Rate = all ranks'
 *   operations / the batch's time on rank 0, from a barrier before to a barrier after (ops/s,
 *   bench=osc.counter, unit opsps, size 8; the value is the median batch, max= and min= the
 *   best and worst).
 *
 * Every measurement is split into batches (-b) timed on their own: the value is the median
 * batch; p10/p50/p90 are those of single units (one operation, one round trip / 2, or one
 * window). Iterations are scaled down above 8 KiB (latency) and 64 KiB (bandwidth). With -T, a
 * measurement ends after the first batch that finds its budget spent (agreed over the ranks
 * between batches, outside the timed units), as latency.c does; under lock and lock_all, where
 * the target takes no part, rank 0 also ends the batch it is in, and the warm-up after a
 * quarter of the budget.
 *
 * Verification (each measurement, after it, untimed): a Put's target slot holds the origin's
 * pattern (both ways for the ping-pongs); a Get's result holds the target's pattern; after N
 * accumulates of ones every target element is N (and Get_accumulate's last result N - 1);
 * Fetch_and_op returns 0, 1, 2, ... in turn and Compare_and_swap (compare k, swap in k + 1)
 * returns k every time; the contended counter ends at exactly the number of operations done,
 * every rank's fetched values increase, and their sum over all ranks is 0 + 1 + ... + (T - 1).
 * A wrong answer prints status=FAILED and the program exits 1. A call refused with
 * MPI_ERR_UNSUPPORTED_OPERATION prints status=unsupported (value 0); another error FAILED with
 * error=<the MPI error string>. FERRY_OSC_CORRUPT=put|counter spoils that verification on
 * purpose (the harness's own tests).
 *
 * Usage: osc [-m] [-p part] [-c] [-i iters] [-w warmup] [-b batches] [-W window] [-n windows]
 *            [-x max] [-X max_acc] [-o ops] [-t seconds] [-T seconds]
 *   -m   machine-readable output: "RESULT bench=osc.<op>_<latency|bw>.<sync>[.<type>] ranks=N
 *        size=S value=<median batch> unit=<us|MBps|opsps> status=ok|FAILED|unsupported
 *        p10=.. p50=.. p90=.. units=<timed units> win=<allocate|create>"
 *   -p   fence, lock, lock_all, pscw, atomic, counter, or all (default: all but counter)
 *   -c   MPI_Win_create instead of MPI_Win_allocate
 *   -i   latency: operations timed for sizes <= 8 KiB (default 5000)
 *   -w   latency: untimed operations before each size (default 100; bandwidth: windows / 10 + 1)
 *   -b   batches per measurement (default 10)
 *   -W   bandwidth: operations per window (default 32)
 *   -n   bandwidth: windows timed for sizes <= 64 KiB (default 100)
 *   -x   largest Put/Get size (default 4M); -X largest accumulate size (default 64K)
 *   -o   counter: at most this many operations per rank per batch (default 100000; -w timed
 *        warm-up ones before); -t the time a batch should take (default 0.05 s; 0: always -o)
 *   -T   time budget per measurement in seconds (default 0 = none)
 */
#define _POSIX_C_SOURCE 200112L
#include <stdint.h>

#include "bench_common.h"

#define LAT_SCALE_FROM 8192
#define BW_SCALE_FROM (64 * 1024)
#define MIN_ITERS 10
#define CLOCK_EVERY 16 /* latency units per clock reading (measure(): why) */
#define MIN_WINDOWS 4

enum { ST_OK = 0, ST_UNSUPPORTED = 1, ST_ERROR = 2 };

typedef enum sync_mode { SYNC_FENCE, SYNC_LOCK, SYNC_LOCK_ALL, SYNC_PSCW, NSYNC } sync_mode_t;
static const char *const sync_names[NSYNC] = {"fence", "lock", "lock_all", "pscw"};

typedef enum op_kind {
    OP_PUT,
    OP_GET,
    OP_ACC_DOUBLE,
    OP_ACC_INT,
    OP_GET_ACC,
    OP_FOP,
    OP_CAS,
} op_kind_t;
/* Name in the bench name, the type suffix, and the element size of the accumulates. */
static const struct op_desc {
    const char *name;
    const char *type;
    size_t elem;
} op_descs[] = {
    [OP_PUT] = {"put", "", 1},           [OP_GET] = {"get", "", 1},
    [OP_ACC_DOUBLE] = {"acc", ".double", 8}, [OP_ACC_INT] = {"acc", ".int", 4},
    [OP_GET_ACC] = {"get_acc", "", 8},   [OP_FOP] = {"fop", "", 8},
    [OP_CAS] = {"cas", "", 8},
};

typedef struct options {
    int machine;
    const char *part;
    int create;
    int iters;
    int warmup;
    int batches;
    int window;
    int windows;
    size_t max_size;
    size_t max_acc;
    int ops;
    double batch_s;
    double budget;
} options_t;

typedef struct meas {
    op_kind_t op;
    sync_mode_t sync;
    int bw; /* a window of W operations per timed unit (else one) */
    size_t size;
} meas_t;

typedef struct ctx {
    options_t opt;
    int rank, nranks;
    MPI_Win win;
    unsigned char *base; /* this rank's window memory */
    unsigned char *own;  /* with -c: the memory given to MPI_Win_create */
    size_t win_bytes;
    unsigned char *obuf, *rbuf; /* origin and result buffers */
    MPI_Group peer;             /* PSCW: the other of ranks 0 and 1 */
    int st;                     /* the worst outcome of the current measurement (ST_*) */
    char err[96];
    int bad;                    /* this rank saw wrong data in the current measurement */
    double *unit_s, *batch_s;   /* timings */
} ctx_t;

static int g_failed; /* some line said FAILED: exit 1 */

static int corrupt_wanted(const char *what)
{
    const char *v = getenv("FERRY_OSC_CORRUPT");
    return v != NULL && strcmp(v, what) == 0;
}

/* Records the outcome of an MPI call: the first error's string is kept (spaces made '_', so
 * that it stays one key=value word). */
static int check(ctx_t *c, int rc)
{
    if (rc == MPI_SUCCESS)
        return 0;
    int cls = MPI_ERR_OTHER, len = 0;
    MPI_Error_class(rc, &cls);
    int st = cls == MPI_ERR_UNSUPPORTED_OPERATION ? ST_UNSUPPORTED : ST_ERROR;
    if (st > c->st) {
        char msg[MPI_MAX_ERROR_STRING];
        if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
            len = snprintf(msg, sizeof(msg), "error_code_%d", rc);
        msg[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = '\0';
        size_t n = strlen(msg) < sizeof(c->err) - 1 ? strlen(msg) : sizeof(c->err) - 1;
        memcpy(c->err, msg, n);
        c->err[n] = '\0';
        for (char *p = c->err; *p; p++)
            if (*p == ' ' || *p == '\t' || *p == '\n' || *p == ',' || *p == '=')
                *p = '_';
        c->st = st;
    }
    return 1;
}

static const char *status_name(int st)
{
    return st == ST_OK ? "ok" : st == ST_UNSUPPORTED ? "unsupported" : "FAILED";
}

/* The bytes a Put or Get of `size` moves: differ from size to size and between the two
 * directions of a ping-pong (seed), never all zero. */
static unsigned char pattern(size_t i, size_t size, int seed)
{
    return (unsigned char)((i * 31u + size * 7u + (size_t)seed * 101u) % 255u + 1u);
}

static void fill_pattern(unsigned char *p, size_t size, int seed)
{
    for (size_t i = 0; i < size; i++)
        p[i] = pattern(i, size, seed);
}

static int has_pattern(const unsigned char *p, size_t size, int seed)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != pattern(i, size, seed))
            return 0;
    return 1;
}

/* This rank's own window memory, read or written outside any epoch: in an exclusive lock
 * epoch on itself (portable in both memory models). */
static void local_begin(ctx_t *c)
{
    check(c, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, c->rank, 0, c->win));
}

static void local_end(ctx_t *c)
{
    check(c, MPI_Win_unlock(c->rank, c->win));
}

static int pingpong(const meas_t *m)
{
    return !m->bw && m->op == OP_PUT && (m->sync == SYNC_FENCE || m->sync == SYNC_PSCW);
}

/* One operation of m to `target`, slot j; k: its number in the measurement (atomics). */
static void do_op(ctx_t *c, const meas_t *m, int target, int j, int64_t k)
{
    size_t size = m->size;
    MPI_Aint disp = (MPI_Aint)(((size_t)j * size) % c->win_bytes);
    int n = (int)size, count = (int)(size / op_descs[m->op].elem);
    int64_t *o64 = (int64_t *)(void *)c->obuf;
    switch (m->op) {
    case OP_PUT:
        check(c, MPI_Put(c->obuf, n, MPI_BYTE, target, disp, n, MPI_BYTE, c->win));
        break;
    case OP_GET:
        check(c, MPI_Get(c->rbuf, n, MPI_BYTE, target, disp, n, MPI_BYTE, c->win));
        break;
    case OP_ACC_DOUBLE:
        check(c, MPI_Accumulate(c->obuf, count, MPI_DOUBLE, target, 0, count, MPI_DOUBLE, MPI_SUM,
                                c->win));
        break;
    case OP_ACC_INT:
        check(c,
              MPI_Accumulate(c->obuf, count, MPI_INT, target, 0, count, MPI_INT, MPI_SUM, c->win));
        break;
    case OP_GET_ACC:
        check(c, MPI_Get_accumulate(c->obuf, count, MPI_DOUBLE, c->rbuf, count, MPI_DOUBLE, target,
                                    0, count, MPI_DOUBLE, MPI_SUM, c->win));
        break;
    case OP_FOP:
        o64[0] = 1;
        check(c, MPI_Fetch_and_op(&o64[0], c->rbuf, MPI_INT64_T, target, 0, MPI_SUM, c->win));
        break;
    case OP_CAS:
        o64[0] = k + 1; /* the new value */
        o64[1] = k;     /* the expected one */
        check(c, MPI_Compare_and_swap(&o64[0], &o64[1], c->rbuf, MPI_INT64_T, target, 0, c->win));
        break;
    }
}

/* After an atomic's epoch or flush: the value it fetched must be the k-th. */
static void check_fetched(ctx_t *c, const meas_t *m, int64_t k)
{
    if (m->op == OP_FOP || m->op == OP_CAS) {
        int64_t got;
        memcpy(&got, c->rbuf, sizeof(got));
        if (got != k)
            c->bad = 1;
    }
}

/* One timed unit of m (one operation, one ping-pong or one window) as seen by this rank; k
 * counts the units of the measurement. */
static void step(ctx_t *c, const meas_t *m, int64_t k)
{
    int r = c->rank, n = m->bw ? c->opt.window : 1, pp = pingpong(m);
    switch (m->sync) {
    case SYNC_FENCE:
        if (r == 0)
            for (int j = 0; j < n; j++)
                do_op(c, m, 1, j, k);
        check(c, MPI_Win_fence(0, c->win));
        if (pp) {
            if (r == 1)
                do_op(c, m, 0, 0, k);
            check(c, MPI_Win_fence(0, c->win));
        }
        break;
    case SYNC_LOCK:
        if (r == 0) {
            check(c, MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c->win));
            for (int j = 0; j < n; j++)
                do_op(c, m, 1, j, k);
            check(c, MPI_Win_unlock(1, c->win));
        }
        break;
    case SYNC_LOCK_ALL:
        if (r == 0) {
            for (int j = 0; j < n; j++)
                do_op(c, m, 1, j, k);
            check(c, MPI_Win_flush(1, c->win));
        }
        break;
    case SYNC_PSCW:
        if (r == 0) {
            check(c, MPI_Win_start(c->peer, 0, c->win));
            for (int j = 0; j < n; j++)
                do_op(c, m, 1, j, k);
            check(c, MPI_Win_complete(c->win));
            if (pp) {
                check(c, MPI_Win_post(c->peer, 0, c->win));
                check(c, MPI_Win_wait(c->win));
            }
        } else if (r == 1) {
            check(c, MPI_Win_post(c->peer, 0, c->win));
            check(c, MPI_Win_wait(c->win));
            if (pp) {
                check(c, MPI_Win_start(c->peer, 0, c->win));
                do_op(c, m, 0, 0, k);
                check(c, MPI_Win_complete(c->win));
            }
        }
        break;
    case NSYNC: break;
    }
    if (r == 0)
        check_fetched(c, m, k);
}

static void epoch_begin(ctx_t *c, const meas_t *m)
{
    if (m->sync == SYNC_FENCE)
        check(c, MPI_Win_fence(MPI_MODE_NOPRECEDE, c->win));
    else if (m->sync == SYNC_LOCK_ALL && c->rank == 0)
        check(c, MPI_Win_lock_all(0, c->win));
}

static void epoch_end(ctx_t *c, const meas_t *m)
{
    if (m->sync == SYNC_FENCE)
        check(c, MPI_Win_fence(MPI_MODE_NOSUCCEED, c->win));
    else if (m->sync == SYNC_LOCK_ALL && c->rank == 0)
        check(c, MPI_Win_unlock_all(c->win));
}

/* Whether to go on with the next batch: no rank had an error, and (with a budget) rank 0
 * started less than `limit` seconds ago. A collective call, outside the timed units. */
static int go_on(ctx_t *c, double since, double limit)
{
    int go = c->st == ST_OK && (c->rank != 0 || limit <= 0.0 || MPI_Wtime() - since < limit);
    int all = 0;
    MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* Before a measurement: origin buffers, result buffers and window contents as its
 * verification expects them. */
static void prepare(ctx_t *c, const meas_t *m)
{
    size_t size = m->size;
    memset(c->rbuf, 0, size > 16 ? size : 16);
    switch (m->op) {
    case OP_PUT: fill_pattern(c->obuf, size, c->rank); break;
    case OP_ACC_DOUBLE:
    case OP_GET_ACC:
        for (size_t i = 0; i < size / 8; i++)
            ((double *)(void *)c->obuf)[i] = 1.0;
        break;
    case OP_ACC_INT:
        for (size_t i = 0; i < size / 4; i++)
            ((int *)(void *)c->obuf)[i] = 1;
        break;
    default: break;
    }
    if (c->rank <= 1) {
        local_begin(c);
        if (m->op == OP_GET) /* every slot a window of Gets may read */
            for (size_t off = 0; off + size <= c->win_bytes; off += size)
                fill_pattern(c->base + off, size, 1);
        else
            memset(c->base, 0, size);
        local_end(c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* After it: the data moved, as described at the top; nops = the units done, warm-up included
 * (rank 0's count, which the others receive). */
static void verify(ctx_t *c, const meas_t *m, int64_t nops)
{
    size_t size = m->size;
    MPI_Barrier(MPI_COMM_WORLD);
    if (c->st != ST_OK || nops == 0)
        return;
    if (c->rank <= 1) {
        local_begin(c);
        const unsigned char *w = c->base;
        switch (m->op) {
        case OP_PUT:
            if (c->rank == 1 || pingpong(m)) {
                if (c->rank == 1 && corrupt_wanted("put"))
                    c->base[size - 1] ^= 1;
                if (!has_pattern(w, size, 1 - c->rank))
                    c->bad = 1;
            }
            break;
        case OP_GET:
            if (c->rank == 0 && !has_pattern(c->rbuf, size, 1))
                c->bad = 1;
            break;
        case OP_ACC_DOUBLE:
        case OP_GET_ACC:
            if (c->rank == 1) {
                for (size_t i = 0; i < size / 8; i++) {
                    double v;
                    memcpy(&v, w + i * 8, sizeof(v));
                    if (v != (double)nops)
                        c->bad = 1;
                }
            }
            if (c->rank == 0 && m->op == OP_GET_ACC) {
                for (size_t i = 0; i < size / 8; i++)
                    if (((double *)(void *)c->rbuf)[i] != (double)(nops - 1))
                        c->bad = 1;
            }
            break;
        case OP_ACC_INT:
            if (c->rank == 1) {
                for (size_t i = 0; i < size / 4; i++) {
                    int v;
                    memcpy(&v, w + i * 4, sizeof(v));
                    if (v != (int)nops)
                        c->bad = 1;
                }
            }
            break;
        case OP_FOP:
        case OP_CAS:
            if (c->rank == 1) {
                int64_t v;
                memcpy(&v, w, sizeof(v));
                if (v != nops)
                    c->bad = 1;
            }
            break;
        }
        local_end(c);
    }
}

static void bench_name(char *buf, size_t len, const meas_t *m)
{
    const struct op_desc *d = &op_descs[m->op];
    snprintf(buf, len, "osc.%s_%s.%s%s", d->name, m->bw ? "bw" : "latency", sync_names[m->sync],
             d->type);
}

/* Agrees on the outcome over all ranks and prints rank 0's line. */
static void report(ctx_t *c, const meas_t *m, int nb, int nunits)
{
    int mine[2] = {c->st, c->bad}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int st = all[0] != ST_OK ? all[0] : all[1] ? ST_ERROR : ST_OK;
    if (st == ST_ERROR)
        g_failed = 1;
    if (c->rank != 0)
        return;
    char name[96];
    bench_name(name, sizeof(name), m);
    double value = 0, pct[3] = {0, 0, 0}, med = 0, min = 0, mean = 0;
    const char *unit = m->bw ? "MBps" : "us";
    if (nb > 0 && nunits > 0) {
        bench_stats(c->batch_s, nb, &med, &min, &mean);
        bench_p10_50_90(c->unit_s, nunits, pct);
        if (m->bw) {
            double bytes = (double)m->size * c->opt.window;
            value = bytes / med / 1e6;
            double p10 = bytes / pct[2] / 1e6, p90 = bytes / pct[0] / 1e6;
            pct[0] = p10; /* rates: p10 is the slow end */
            pct[1] = bytes / pct[1] / 1e6;
            pct[2] = p90;
        } else {
            value = med * 1e6;
            for (int i = 0; i < 3; i++)
                pct[i] *= 1e6;
        }
    }
    if (c->opt.machine) {
        printf("RESULT bench=%s ranks=%d size=%zu value=%.3f unit=%s status=%s", name, c->nranks,
               m->size, st == ST_UNSUPPORTED ? 0.0 : value, unit, status_name(st));
        if (st == ST_OK || all[0] == ST_OK)
            printf(" p10=%.3f p50=%.3f p90=%.3f units=%d", pct[0], pct[1], pct[2], nunits);
        printf(" win=%s", c->opt.create ? "create" : "allocate");
        if (all[0] != ST_OK && c->err[0])
            printf(" error=%s", c->err);
        printf("\n");
    } else {
        printf("  %-34s %10zu %12.3f %-5s %10.3f %10.3f %10.3f %8d %s\n", name, m->size, value,
               unit, pct[0], pct[1], pct[2], nunits, st == ST_OK ? "" : status_name(st));
    }
    fflush(stdout);
}

/* Runs one measurement on every rank and prints it. */
static void measure(ctx_t *c, const meas_t *m)
{
    const options_t *o = &c->opt;
    int units, warmup;
    if (m->bw) {
        units = bench_scaled(o->windows, m->size, BW_SCALE_FROM, MIN_WINDOWS);
        warmup = bench_scaled(o->windows / 10 + 1, m->size, BW_SCALE_FROM, 1);
    } else {
        units = bench_scaled(o->iters, m->size, LAT_SCALE_FROM, MIN_ITERS);
        warmup = bench_scaled(o->warmup, m->size, LAT_SCALE_FROM, 2);
    }
    int nbatch = units < o->batches ? units : o->batches;
    int per_batch = (units + nbatch - 1) / nbatch;
    double div = pingpong(m) ? 2.0 : 1.0;
    c->st = ST_OK;
    c->bad = 0;
    c->err[0] = '\0';

    prepare(c, m);
    int64_t k = 0;
    int nb = 0, nunits = 0;
    /* Under lock and lock_all only rank 0 acts, so it alone may end the warm-up after a quarter
     * of the budget and a batch once the budget is spent (an MPI that takes milliseconds per
     * operation then still gets through every size in bounded time); fences and PSCW epochs
     * must stay paired: every rank does the whole warm-up and whole batches. */
    int alone = c->rank == 0 && o->budget > 0 && (m->sync == SYNC_LOCK || m->sync == SYNC_LOCK_ALL);
    epoch_begin(c, m);
    double w_start = MPI_Wtime();
    for (int i = 0; i < warmup; i++) {
        step(c, m, k++);
        if (alone && MPI_Wtime() - w_start >= o->budget / 4)
            break;
    }
    double t_start = MPI_Wtime();
    int go = go_on(c, 0, 0);
    for (int b = 0; b < nbatch && go; b++) {
        double t0 = MPI_Wtime(), prev = t0;
        int done = 0;
        /* Bandwidth windows are long: each is timed. A latency unit can take 15 ns, less than
         * reading the clock (about 25 ns here), which would then weigh as much as the
         * operation in every implementation: latency units are timed in runs of CLOCK_EVERY,
         * each run one sample of the percentiles, as OSU times its whole loop. */
        int every = m->bw ? 1 : CLOCK_EVERY, run = 0;
        while (done < per_batch) {
            step(c, m, k++);
            done++;
            if (++run < every && done < per_batch)
                continue;
            double now = MPI_Wtime();
            c->unit_s[nunits++] = (now - prev) / (div * run);
            prev = now;
            run = 0;
            if (alone && now - t_start >= o->budget)
                break;
        }
        c->batch_s[nb++] = (prev - t0) / (div * done);
        if (b + 1 < nbatch)
            go = go_on(c, t_start, o->budget);
    }
    epoch_end(c, m);
    MPI_Bcast(&k, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    verify(c, m, k);
    report(c, m, nb, nunits);
}

/* --- the contended counter ---------------------------------------------------------- */

static void counter(ctx_t *c)
{
    const options_t *o = &c->opt;
    int64_t one = 1, got = 0, last = -1, sum = 0, done = 0;
    int nb = 0, nunits = 0;
    c->st = ST_OK;
    c->bad = 0;
    c->err[0] = '\0';
    if (c->rank == 0) {
        local_begin(c);
        memset(c->base, 0, sizeof(int64_t));
        local_end(c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check(c, MPI_Win_lock_all(0, c->win));
    /* One operation: fetch, flush, and the fetched value checked against this rank's last. */
#define COUNTER_OP()                                                                               \
    do {                                                                                           \
        check(c, MPI_Fetch_and_op(&one, &got, MPI_INT64_T, 0, 0, MPI_SUM, c->win));               \
        check(c, MPI_Win_flush(0, c->win));                                                        \
        if (got <= last)                                                                           \
            c->bad = 1;                                                                            \
        last = got;                                                                                \
        sum += got;                                                                                \
        done++;                                                                                    \
    } while (0)
    /* The warm-up, timed as a batch is (rank 0's clock, agreed by all), sets the batch: -w
     * operations per rank, four times as many again while that took under a quarter of -t
     * (at most -o); then as many per rank as fill -t seconds at the last rate, at least 10 and
     * at most -o, so that the barriers around a batch weigh alike in every implementation,
     * fast or slow. */
    int per = o->warmup, per_rank = o->ops;
    double wspan = 0;
    while (per > 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        double w0 = MPI_Wtime();
        for (int i = 0; i < per && c->st == ST_OK; i++)
            COUNTER_OP();
        MPI_Barrier(MPI_COMM_WORLD);
        wspan = MPI_Wtime() - w0;
        MPI_Bcast(&wspan, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (o->batch_s <= 0 || wspan >= o->batch_s / 4 || per >= o->ops)
            break;
        per = per * 4 > o->ops ? o->ops : per * 4;
    }
    if (o->batch_s > 0 && per > 0 && wspan > 0) {
        double fit = o->batch_s * (double)per / wspan;
        per_rank = fit < 10 ? 10 : fit > o->ops ? o->ops : (int)fit;
    }
    double t_start = MPI_Wtime();
    int go = go_on(c, 0, 0);
    for (int b = 0; b < o->batches && go; b++) {
        /* The batch lasts from the barrier before it to the barrier after the last rank's last
         * operation, on rank 0's clock (ranks' clocks need not agree). */
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < per_rank; i++)
            COUNTER_OP();
        MPI_Barrier(MPI_COMM_WORLD);
        double span = MPI_Wtime() - t0;
        MPI_Bcast(&span, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        c->batch_s[nb++] = span;
        c->unit_s[nunits++] = span;
        if (b + 1 < o->batches)
            go = go_on(c, t_start, o->budget);
    }
#undef COUNTER_OP
    check(c, MPI_Win_unlock_all(c->win));
    /* Exactly: the counter is the number of operations, and the fetched values were
     * 0 .. T-1 (their sum says so, with every rank's increasing). */
    int64_t in[2] = {done, sum}, tot[2] = {0, 0};
    MPI_Allreduce(in, tot, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t final = -1;
    if (c->rank == 0 && c->st == ST_OK) {
        local_begin(c);
        memcpy(&final, c->base, sizeof(final));
        local_end(c);
        if (corrupt_wanted("counter"))
            final++;
        if (final != tot[0] || tot[1] != tot[0] * (tot[0] - 1) / 2)
            c->bad = 1;
    }
    int mine[2] = {c->st, c->bad}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int st = all[0] != ST_OK ? all[0] : all[1] ? ST_ERROR : ST_OK;
    if (st == ST_ERROR)
        g_failed = 1;
    if (c->rank != 0)
        return;
    double med = 0, min = 0, mean = 0, rate = 0, best = 0, worst = 0;
    double per_batch_ops = (double)per_rank * c->nranks;
    if (nb > 0) {
        bench_stats(c->batch_s, nb, &med, &min, &mean);
        rate = per_batch_ops / med;
        best = per_batch_ops / min;
        worst = per_batch_ops / c->batch_s[nb - 1];
    }
    if (o->machine) {
        printf("RESULT bench=osc.counter ranks=%d size=8 value=%.1f unit=opsps status=%s "
               "max=%.1f min=%.1f ops=%lld counter=%lld per_rank=%d batches=%d win=%s",
               c->nranks, st == ST_UNSUPPORTED ? 0.0 : rate, status_name(st), best, worst,
               (long long)tot[0], (long long)final, per_rank, nb,
               o->create ? "create" : "allocate");
        if (all[0] != ST_OK && c->err[0])
            printf(" error=%s", c->err);
        printf("\n");
    } else {
        printf("  %-34s %10d %12.1f ops/s, %d ranks (best %.1f, worst %.1f), %lld operations, "
               "counter %lld %s\n",
               "osc.counter", 8, rate, c->nranks, best, worst, (long long)tot[0], (long long)final,
               st == ST_OK ? "" : status_name(st));
    }
    fflush(stdout);
}

/* --- setup ----------------------------------------------------------------------------- */

static int parse_options(int argc, char **argv, options_t *opt_p)
{
    options_t opt = {0,   "all", 0, 5000, 100, 10, 32, 100, (size_t)4 << 20, 64 << 10, 100000,
                     0.05, 0.0};
    const bench_opt_t opts[] = {
        {'m', BENCH_OPT_FLAG, &opt.machine, 0},  {'p', BENCH_OPT_STRING, &opt.part, 0},
        {'c', BENCH_OPT_FLAG, &opt.create, 0},   {'i', BENCH_OPT_INT, &opt.iters, 1},
        {'w', BENCH_OPT_INT, &opt.warmup, 0},    {'b', BENCH_OPT_INT, &opt.batches, 1},
        {'W', BENCH_OPT_INT, &opt.window, 1},    {'n', BENCH_OPT_INT, &opt.windows, 1},
        {'x', BENCH_OPT_SIZE, &opt.max_size, 1}, {'X', BENCH_OPT_SIZE, &opt.max_acc, 8},
        {'o', BENCH_OPT_INT, &opt.ops, 1},       {'t', BENCH_OPT_SECONDS, &opt.batch_s, 0},
        {'T', BENCH_OPT_SECONDS, &opt.budget, 0},
    };
    if (bench_getopt(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0]))) != 0 ||
        opt.max_size > ((size_t)1 << 30) || opt.max_acc > ((size_t)1 << 30))
        return -1;
    static const char *const parts[] = {"fence",  "lock",    "lock_all", "pscw",
                                        "atomic", "counter", "all"};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
        if (strcmp(opt.part, parts[i]) == 0) {
            *opt_p = opt;
            return 0;
        }
    return -1;
}

static int wants(const options_t *o, const char *part)
{
    return strcmp(o->part, part) == 0 ||
           (strcmp(o->part, "all") == 0 && strcmp(part, "counter") != 0);
}

/* The window of this run: win_bytes on every rank (0 on none). On failure the error is in
 * c->st and c->win is MPI_WIN_NULL. */
static void window_make(ctx_t *c, size_t bytes)
{
    c->win = MPI_WIN_NULL;
    c->win_bytes = bytes;
    c->own = NULL;
    if (c->opt.create) {
        c->own = bench_alloc(bytes);
        c->base = c->own;
        if (check(c, MPI_Win_create(c->base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                                    &c->win)))
            c->win = MPI_WIN_NULL;
    } else {
        void *base = NULL;
        if (check(c, MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                                      &c->win)))
            c->win = MPI_WIN_NULL;
        else
            c->base = base;
    }
    if (c->win != MPI_WIN_NULL)
        MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
    int mine = c->st, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all != ST_OK && c->st == ST_OK)
        c->st = all; /* another rank failed: report it alike */
}

static void window_free(ctx_t *c)
{
    if (c->win != MPI_WIN_NULL)
        MPI_Win_free(&c->win);
    free(c->own);
    c->own = NULL;
}

/* The measurements of a part whose window could not be made: every line says so. */
static void report_all(ctx_t *c, const meas_t *list, int n)
{
    for (int i = 0; i < n; i++) {
        int st = c->st;
        report(c, &list[i], 0, 0);
        c->st = st;
    }
}

/* The measurements of one part, in order. Returns how many were written to list. */
static int plan_part(const options_t *o, const char *part, meas_t *list, int max)
{
    int n = 0;
    for (int s = 0; s < NSYNC; s++) {
        if (strcmp(part, sync_names[s]) != 0)
            continue;
        for (int bw = 0; bw <= 1; bw++)
            for (int op = OP_PUT; op <= OP_GET; op++)
                for (size_t size = 1; size <= o->max_size && n < max; size *= 2)
                    list[n++] = (meas_t){(op_kind_t)op, (sync_mode_t)s, bw, size};
    }
    if (strcmp(part, "atomic") == 0) {
        static const op_kind_t accs[] = {OP_ACC_DOUBLE, OP_ACC_INT, OP_GET_ACC};
        for (size_t a = 0; a < sizeof(accs) / sizeof(accs[0]); a++)
            for (size_t size = 8; size <= o->max_acc && n < max; size *= 2)
                list[n++] = (meas_t){accs[a], SYNC_LOCK_ALL, 0, size};
        if (n + 2 <= max) {
            list[n++] = (meas_t){OP_FOP, SYNC_LOCK_ALL, 0, 8};
            list[n++] = (meas_t){OP_CAS, SYNC_LOCK_ALL, 0, 8};
        }
    }
    return n;
}

static void run_part(ctx_t *c, const char *part)
{
    enum { MAX_MEAS = 256 };
    meas_t list[MAX_MEAS];
    int n = plan_part(&c->opt, part, list, MAX_MEAS);
    if (n == 0)
        return;
    size_t bytes = 16;
    for (int i = 0; i < n; i++)
        while (bytes < list[i].size)
            bytes *= 2;
    c->st = ST_OK;
    c->err[0] = '\0';
    window_make(c, bytes);
    if (c->st != ST_OK) {
        report_all(c, list, n);
        return;
    }
    for (int i = 0; i < n; i++)
        measure(c, &list[i]);
    window_free(c);
}

int main(int argc, char **argv)
{
    ctx_t c;
    memset(&c, 0, sizeof(c));
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c.nranks);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (parse_options(argc, argv, &c.opt) != 0)
        bench_die(c.rank, "usage: osc [-m] [-p fence|lock|lock_all|pscw|atomic|counter|all] [-c] "
                          "[-i iters] [-w warmup] [-b batches] [-W window] [-n windows] "
                          "[-x max<=1G] [-X max_acc<=1G] [-o ops] [-t seconds] [-T seconds]");
    const options_t *o = &c.opt;
    if (c.nranks < 2 && strcmp(o->part, "counter") != 0)
        bench_die(c.rank, "osc: needs at least 2 ranks (the counter runs on 1)");

    size_t big = o->max_size > o->max_acc ? o->max_size : o->max_acc;
    c.obuf = bench_alloc(big < 16 ? 16 : big);
    c.rbuf = bench_alloc(big < 16 ? 16 : big);
    int most = o->iters > o->windows ? o->iters : o->windows;
    most = most > o->batches ? most : o->batches;
    c.unit_s = malloc(sizeof(double) * ((size_t)most + (size_t)o->batches));
    c.batch_s = malloc(sizeof(double) * (size_t)o->batches);
    if (c.unit_s == NULL || c.batch_s == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = c.rank == 0 ? 1 : 0;
    if (c.nranks >= 2)
        MPI_Group_incl(world, 1, &other, &c.peer);
    else
        c.peer = MPI_GROUP_EMPTY;
    MPI_Group_free(&world);

    if (c.rank == 0) {
        printf("# Ferry bench: osc (one-sided communication, %d ranks, window from %s)\n",
               c.nranks, o->create ? "MPI_Win_create" : "MPI_Win_allocate");
        bench_print_library();
        printf("# latency in microseconds (one operation with its synchronisation), bandwidth in "
               "MB/s (windows of %d operations), counter in operations/s; median of %d batches\n",
               o->window, o->batches);
        if (!o->machine)
            printf("# %-34s %10s %12s %-5s %10s %10s %10s %8s\n", "bench", "size (B)", "median",
                   "unit", "p10", "p50", "p90", "units");
        fflush(stdout);
    }
    static const char *const order[] = {"lock_all", "lock", "fence", "pscw", "atomic"};
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        if (wants(o, order[i]))
            run_part(&c, order[i]);
    if (strcmp(o->part, "counter") == 0) {
        c.st = ST_OK;
        window_make(&c, sizeof(int64_t));
        if (c.st == ST_OK) {
            counter(&c);
            window_free(&c);
        } else if (c.rank == 0) {
            printf(o->machine ? "RESULT bench=osc.counter ranks=%d size=8 value=0 unit=opsps "
                                "status=%s error=%s\n"
                              : "  osc.counter %d ranks: %s (%s)\n",
                   c.nranks, status_name(c.st), c.err);
            if (c.st == ST_ERROR)
                g_failed = 1;
        }
    }

    if (c.peer != MPI_GROUP_EMPTY)
        MPI_Group_free(&c.peer);
    free(c.batch_s);
    free(c.unit_s);
    free(c.rbuf);
    free(c.obuf);
    bench_finalize(c.rank);
    return g_failed ? 1 : 0;
}
