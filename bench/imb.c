/*
 * imb.c - the classic Pallas/IMB-MPI1 measurements, written from their
 * definitions, in one program that runs at any number of ranks.
 *
 * Benchmarks (names for -b; RESULT lines say bench=imb.<name>):
 *
 *   pingpong    ranks 0 and 1: Send then Recv / Recv then Send.
 *               value = round trip / 2 (us); MBps = X / value.
 *   pingping    ranks 0 and 1 at once: Isend to the other, Recv, Wait.
 *               value = one iteration (us); MBps = X / value.
 *   sendrecv    every rank: Sendrecv to the right, from the left neighbour
 *               (periodic chain). value = one iteration, MAX over ranks;
 *               MBps = 2X / value (each rank sends and receives X).
 *   exchange    every rank: Irecv from both neighbours, Isend to both,
 *               Waitall. value = one iteration, MAX over ranks; MBps = 4X / value.
 *   uniband     pairs (i, i + n/2): i posts a window of W Isends of X bytes
 *               (one send buffer), the partner W Irecvs into W distinct
 *               buffers and answers a zero-byte ack (not in IMB: it keeps
 *               windows from piling up). value = aggregate MB/s over all
 *               pairs (W * pairs * X / time); msgps= the aggregate rate.
 *   biband      the same pairs, both sides post W Irecvs and W Isends and
 *               wait for all 2W. value = aggregate MB/s (both directions).
 *   msgrate     pairs (0,1), (2,3), ...: even ranks send windows of W small
 *               messages (sizes up to 8 KiB only), odd ranks ack each window.
 *               value = aggregate messages/s over all pairs.
 *   barrier     value = one Barrier (us), MAX over ranks; size 0 only.
 *   bcast       X bytes from a root that rotates every iteration.
 *   reduce      X/4 floats, MPI_SUM, to a rotating root.
 *   allreduce   X/4 floats, MPI_SUM.
 *   allgather   X bytes from every rank; every rank receives n*X.
 *   alltoall    X bytes from every rank to every rank (buffers of n*X).
 *   reduce_scatter  MPI_Reduce_scatter_block, MPI_SUM: a vector of n*X/4
 *               floats; each rank keeps its X/4 floats (X per rank, as IMB).
 *   gather      X bytes from every rank to a rotating root.
 *   scatter     X bytes to every rank from a rotating root.
 *   For collectives value = one operation: each rank's average over the
 *   iterations, MAX over ranks (tmin= and tavg= give the MIN and the mean).
 *   Sizes: 0, 1, 2, 4 ... max (4 MiB); reductions skip sizes that are not a
 *   multiple of 4 (a float).
 *
 * Timing: for each benchmark and size, one iteration then a short warm-up
 * (in up to 5 chunks; the median chunk counts), both untimed and used to
 * pick the iteration count: the base count (-i, default 1000) up to 4 KiB,
 * scaled down in proportion above it, and capped so that one repetition
 * lasts about the time budget (-t, default 0.05 s; at least 2 iterations,
 * 1 in quick mode). Then `reps` repetitions (-r, default 5), each after a
 * Barrier; the reported value is the MEDIAN over repetitions of the
 * per-repetition value (MAX over ranks), with min= and max= over
 * repetitions. Numbers are printed, never judged.
 * Run time on the 2-core dev VM: -q takes 1-2 s at 2 ranks and 6-8 s at 8
 * (Ferry, Open MPI); MPICH, which polls without yielding, needs 30 s at 4
 * and 75 s at 8 ranks. A full sweep takes 2-3 minutes at 2 ranks.
 *
 * Verification: before every repetition each rank fills its send buffers
 * with contents derived from its rank, the destination and the repetition,
 * and clears its receive buffers; after the repetition every rank checks
 * all that it received in the last iteration (reductions against the closed
 * form of the sum: floats that are small integers, so sums are exact). Any
 * mismatch prints the first wrong element on stderr and makes that size
 * status=FAILED. The warm-up data are checked too. To see a failure, run
 * with FERRY_IMB_CORRUPT=<name>: every rank then spoils one received
 * byte before its check (a self-test of the checking, nothing else).
 *
 * Errors: MPI_ERRORS_RETURN is set on MPI_COMM_WORLD and every call checked.
 * A benchmark whose call returns the class MPI_ERR_UNSUPPORTED_OPERATION is
 * reported once as status=unsupported (value=0, no time) and the program
 * goes on with the next one; another error is status=FAILED for that
 * benchmark (its remaining sizes are skipped).
 *
 * Usage: imb [-m] [-q] [-b list] [-x max] [-i iters] [-r reps] [-t secs] [-W window]
 *   -m   also print one machine-readable line per measurement:
 *        RESULT bench=imb.<name> ranks=<n> size=<X> value=<v> unit=<us|MBps|msgps>
 *               status=<ok|FAILED|unsupported> min= max= iters= reps= [tmin= tavg= MBps= msgps=]
 *   -q   quick: sizes 0, 8, 1K, 64K, 1M only, base 100 iterations, budget 0.01 s
 *   -b   comma-separated benchmarks (default all), e.g. -b pingpong,allreduce;
 *        case and an "imb." prefix are ignored
 *   -x   largest size, K/M suffixes allowed (default 4M)
 *   -i   base iterations for sizes <= 4 KiB (default 1000, quick 100)
 *   -r   repetitions, median reported (default 5)
 *   -t   time budget of one repetition in seconds, 0 = no cap (default 0.05)
 *   -W   window of the uniband/biband/msgrate benchmarks (default 64)
 *
 * Build and run with any MPI, e.g.
 *   mpicc -O2 -std=c11 -o imb bench/imb.c && mpiexec -n 4 ./imb -q -m
 * Ranks beyond the ones a point-to-point benchmark uses wait in the next
 * collective (as in IMB); n = 1 runs the collectives only.
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#include <stdint.h>
#include <strings.h>
#include <unistd.h>

#define MAX_WINDOW 1024
#define MSGRATE_MAX ((size_t)8192)
#define SCALE_FROM ((size_t)4096)
#define MIN_ITERS 2
#define MAX_REPS 1000

enum { TAG_DATA = 10, TAG_TO_RIGHT = 11, TAG_TO_LEFT = 12, TAG_ACK = 13 };
enum unit { UNIT_US, UNIT_MBPS, UNIT_MSGPS };
enum bench_id {
    B_PINGPONG,
    B_PINGPING,
    B_SENDRECV,
    B_EXCHANGE,
    B_UNIBAND,
    B_BIBAND,
    B_MSGRATE,
    B_BARRIER,
    B_BCAST,
    B_REDUCE,
    B_ALLREDUCE,
    B_ALLGATHER,
    B_ALLTOALL,
    B_REDUCE_SCATTER,
    B_GATHER,
    B_SCATTER,
    B_COUNT
};
/* Outcome of a call, agreed over ranks with MAX: the worst wins. */
enum { ST_OK = 0, ST_UNSUPPORTED = 1, ST_ERROR = 2 };

typedef struct ctx ctx_t;
typedef int (*run_fn)(ctx_t *c, long iters);

typedef struct bench {
    const char *name;
    enum bench_id id;
    enum unit unit;
    int p2p;         /* needs at least 2 ranks; some ranks may sit out */
    int floats;      /* size counts bytes of floats: multiples of 4 only */
    double time_div; /* operations per iteration (pingpong: 2 one-way trips) */
    double bw_bytes; /* MBps key = bw_bytes * X / time (0: no key) */
    run_fn run;
} bench_t;

struct ctx {
    const bench_t *b;
    MPI_Comm comm;
    int rank, n;
    size_t size; /* X, the message size in bytes */
    int count;   /* elements per call: bytes, or floats for reductions */
    int rcount;  /* reduce_scatter: floats each rank keeps */
    int active;  /* this rank takes part (point-to-point) */
    int peer, left, right, sender;
    int window;
    char *sbuf, *rbuf;
    MPI_Request *req;
    MPI_Status *stat; /* real statuses: GCC 12 warns on MPI_STATUSES_IGNORE */
    long iter;        /* iterations so far: the root of the next one */
    int last_root, was_root;
    unsigned seed;
};

typedef struct options {
    int machine, quick, reps, window, min_iters;
    long iters;
    double budget;
    size_t max_size;
    int want[B_COUNT];
} options_t;

/* --- data: what a block holds, so that the receiver can check it --------- */

/* Byte j of a block identified by `key` (sender, destination) in
 * repetition `seed`; neighbouring keys, seeds and bytes all differ. */
static inline unsigned char pattern(unsigned key, unsigned seed, size_t j)
{
    return (unsigned char)(key * 29u + seed * 101u + (unsigned)j * 7u + (unsigned)(j >> 8) * 3u +
                           1u);
}

static void fill_bytes(char *p, size_t len, unsigned key, unsigned seed)
{
    for (size_t j = 0; j < len; j++)
        p[j] = (char)pattern(key, seed, j);
}

/* Element j of rank k's contribution to a reduction: a small integer. */
static inline float fvalue(int k, unsigned seed, size_t j)
{
    return (float)(k + 1 + (int)(j % 17) + (int)(seed % 7));
}

/* The sum of fvalue over ranks 0..n-1, in closed form (exact in a float). */
static inline float fsum(int n, unsigned seed, size_t j)
{
    return (float)(n * (n + 1) / 2 + n * ((int)(j % 17) + (int)(seed % 7)));
}

static size_t check_bytes(const ctx_t *c, const char *p, size_t len, unsigned key, const char *what)
{
    for (size_t j = 0; j < len; j++) {
        unsigned char want = pattern(key, c->seed, j);
        if ((unsigned char)p[j] != want) {
            size_t bad = 0;
            for (size_t k = j; k < len; k++)
                bad += (unsigned char)p[k] != pattern(key, c->seed, k);
            fprintf(stderr,
                    "imb: rank %d: VERIFICATION FAILED imb.%s size %zu: %s byte %zu is 0x%02x, "
                    "expected 0x%02x (%zu wrong bytes)\n",
                    c->rank, c->b->name, c->size, what, j, (unsigned char)p[j], want, bad);
            return bad;
        }
    }
    return 0;
}

/* Checks count floats that hold elements first.. of the vector sum. */
static size_t check_sum(const ctx_t *c, const float *v, int count, size_t first)
{
    size_t bad = 0, where = 0;
    for (int i = 0; i < count; i++) {
        if (v[i] != fsum(c->n, c->seed, first + (size_t)i)) {
            if (bad++ == 0)
                where = (size_t)i;
        }
    }
    if (bad)
        fprintf(stderr,
                "imb: rank %d: VERIFICATION FAILED imb.%s size %zu: element %zu is %g, "
                "expected %g (%zu wrong)\n",
                c->rank, c->b->name, c->size, first + where, (double)v[where],
                (double)fsum(c->n, c->seed, first + where), bad);
    return bad;
}

/* Fills the send side for repetition c->seed and clears the receive side. */
static void fill(ctx_t *c)
{
    size_t x = c->size;
    int n = c->n, me = c->rank;
    c->was_root = 0;
    switch (c->b->id) {
    case B_PINGPONG:
    case B_PINGPING:
    case B_SENDRECV:
    case B_EXCHANGE:
    case B_UNIBAND:
    case B_BIBAND:
    case B_MSGRATE:
        if (!c->active)
            return;
        fill_bytes(c->sbuf, x, (unsigned)me, c->seed);
        memset(c->rbuf, 0,
               x * (size_t)(c->b->id == B_EXCHANGE  ? 2
                            : c->b->id >= B_UNIBAND ? c->window
                                                    : 1));
        return;
    case B_BARRIER: return;
    case B_BCAST: /* only the next root has the data: every bcast must move it */
        if (c->iter % n == me)
            fill_bytes(c->sbuf, x, 0, c->seed);
        else
            memset(c->sbuf, 0, x);
        return;
    case B_REDUCE:
    case B_ALLREDUCE:
    case B_REDUCE_SCATTER: {
        float *s = (float *)(void *)c->sbuf;
        size_t len = (size_t)c->count * (size_t)(c->b->id == B_REDUCE_SCATTER ? n : 1);
        for (size_t i = 0; i < len; i++)
            s[i] = fvalue(me, c->seed, i);
        memset(c->rbuf, 0,
               (size_t)(c->b->id == B_REDUCE_SCATTER ? c->rcount : c->count) * sizeof(float));
        return;
    }
    case B_ALLGATHER:
    case B_GATHER:
        fill_bytes(c->sbuf, x, (unsigned)me, c->seed);
        memset(c->rbuf, 0, x * (size_t)n);
        return;
    case B_ALLTOALL:
    case B_SCATTER:
        for (int d = 0; d < n; d++)
            fill_bytes(c->sbuf + (size_t)d * x, x, (unsigned)(me * n + d), c->seed);
        memset(c->rbuf, 0, x * (size_t)(c->b->id == B_ALLTOALL ? n : 1));
        return;
    case B_COUNT: return;
    }
}

/* Test hook: FERRY_IMB_CORRUPT=<name> makes every rank spoil the first
 * byte it received before checking, to show what a failure looks like. */
static void corrupt_for_test(ctx_t *c)
{
    const char *victim = getenv("FERRY_IMB_CORRUPT");
    if (victim == NULL || strcmp(victim, c->b->name) != 0 || c->size == 0 || !c->active)
        return;
    char *p = c->b->id == B_BCAST ? c->sbuf : c->rbuf;
    if (c->b->id == B_BARRIER || (c->b->id == B_REDUCE && !c->was_root) ||
        (c->b->id == B_GATHER && !c->was_root) ||
        (c->b->id == B_REDUCE_SCATTER && c->rcount == 0) || (c->b->floats && c->count == 0))
        return;
    p[0] ^= 0x5a;
}

/* Checks what this rank received in the last iteration; returns wrong elements. */
static size_t check(ctx_t *c)
{
    size_t x = c->size, bad = 0;
    int n = c->n, me = c->rank;
    switch (c->b->id) {
    case B_PINGPONG:
    case B_PINGPING:
        return c->active ? check_bytes(c, c->rbuf, x, (unsigned)c->peer, "message") : 0;
    case B_SENDRECV: return check_bytes(c, c->rbuf, x, (unsigned)c->left, "message from the left");
    case B_EXCHANGE:
        bad = check_bytes(c, c->rbuf, x, (unsigned)c->left, "message from the left");
        return bad + check_bytes(c, c->rbuf + x, x, (unsigned)c->right, "message from the right");
    case B_UNIBAND:
    case B_MSGRATE:
    case B_BIBAND:
        if (!c->active || (c->b->id != B_BIBAND && c->sender))
            return 0;
        for (int w = 0; w < c->window && bad == 0; w++)
            bad += check_bytes(c, c->rbuf + (size_t)w * x, x, (unsigned)c->peer, "window message");
        return bad;
    case B_BARRIER: return 0;
    case B_BCAST: return check_bytes(c, c->sbuf, x, 0, "broadcast buffer");
    case B_REDUCE:
        return c->was_root ? check_sum(c, (const float *)(void *)c->rbuf, c->count, 0) : 0;
    case B_ALLREDUCE: return check_sum(c, (const float *)(void *)c->rbuf, c->count, 0);
    case B_REDUCE_SCATTER:
        return check_sum(c, (const float *)(void *)c->rbuf, c->rcount,
                         (size_t)me * (size_t)c->rcount);
    case B_ALLGATHER:
    case B_GATHER:
        if (c->b->id == B_GATHER && !c->was_root)
            return 0;
        for (int s = 0; s < n && bad == 0; s++)
            bad += check_bytes(c, c->rbuf + (size_t)s * x, x, (unsigned)s, "block");
        return bad;
    case B_ALLTOALL:
        for (int s = 0; s < n && bad == 0; s++)
            bad += check_bytes(c, c->rbuf + (size_t)s * x, x, (unsigned)(s * n + me), "block");
        return bad;
    case B_SCATTER: return check_bytes(c, c->rbuf, x, (unsigned)(c->last_root * n + me), "block");
    case B_COUNT: break;
    }
    return 0;
}

/* --- the measured loops: one iteration each, return the first MPI error --- */

static int run_pingpong(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; c->active && i < iters && rc == MPI_SUCCESS; i++) {
        if (c->rank == 0) {
            rc = MPI_Send(c->sbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(c->rbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm,
                              MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(c->rbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm,
                          MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(c->sbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm);
        }
    }
    return rc;
}

static int run_pingping(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; c->active && i < iters && rc == MPI_SUCCESS; i++) {
        rc = MPI_Isend(c->sbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm, &c->req[0]);
        if (rc != MPI_SUCCESS)
            break;
        rc = MPI_Recv(c->rbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
        int rc2 = MPI_Wait(&c->req[0], MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = rc2;
    }
    return rc;
}

static int run_sendrecv(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Sendrecv(c->sbuf, c->count, MPI_BYTE, c->right, TAG_DATA, c->rbuf, c->count,
                          MPI_BYTE, c->left, TAG_DATA, c->comm, MPI_STATUS_IGNORE);
    return rc;
}

static int run_exchange(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    char *from_left = c->rbuf, *from_right = c->rbuf + c->size;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++) {
        /* Tags name the direction, so that with 2 ranks (left == right) the
         * two messages still land in their own buffers. */
        rc = MPI_Irecv(from_left, c->count, MPI_BYTE, c->left, TAG_TO_RIGHT, c->comm, &c->req[0]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Irecv(from_right, c->count, MPI_BYTE, c->right, TAG_TO_LEFT, c->comm,
                           &c->req[1]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Isend(c->sbuf, c->count, MPI_BYTE, c->left, TAG_TO_LEFT, c->comm, &c->req[2]);
        if (rc == MPI_SUCCESS)
            rc =
                MPI_Isend(c->sbuf, c->count, MPI_BYTE, c->right, TAG_TO_RIGHT, c->comm, &c->req[3]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(4, c->req, c->stat);
    }
    return rc;
}

/* uniband and msgrate: a window one way, a zero-byte ack back. */
static int run_window_oneway(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS, w = c->window;
    for (long i = 0; c->active && i < iters && rc == MPI_SUCCESS; i++) {
        if (c->sender) {
            for (int k = 0; k < w && rc == MPI_SUCCESS; k++)
                rc = MPI_Isend(c->sbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm, &c->req[k]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(w, c->req, c->stat);
            if (rc == MPI_SUCCESS)
                rc = MPI_Recv(NULL, 0, MPI_BYTE, c->peer, TAG_ACK, c->comm, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; k < w && rc == MPI_SUCCESS; k++)
                rc = MPI_Irecv(c->rbuf + (size_t)k * c->size, c->count, MPI_BYTE, c->peer, TAG_DATA,
                               c->comm, &c->req[k]);
            if (rc == MPI_SUCCESS)
                rc = MPI_Waitall(w, c->req, c->stat);
            if (rc == MPI_SUCCESS)
                rc = MPI_Send(NULL, 0, MPI_BYTE, c->peer, TAG_ACK, c->comm);
        }
    }
    return rc;
}

static int run_biband(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS, w = c->window;
    for (long i = 0; c->active && i < iters && rc == MPI_SUCCESS; i++) {
        for (int k = 0; k < w && rc == MPI_SUCCESS; k++)
            rc = MPI_Irecv(c->rbuf + (size_t)k * c->size, c->count, MPI_BYTE, c->peer, TAG_DATA,
                           c->comm, &c->req[k]);
        for (int k = 0; k < w && rc == MPI_SUCCESS; k++)
            rc = MPI_Isend(c->sbuf, c->count, MPI_BYTE, c->peer, TAG_DATA, c->comm, &c->req[w + k]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Waitall(2 * w, c->req, c->stat);
    }
    return rc;
}

static int run_barrier(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Barrier(c->comm);
    return rc;
}

/* The root of the next iteration of a rotating-root collective. */
static inline int next_root(ctx_t *c)
{
    int root = (int)(c->iter++ % c->n);
    c->last_root = root;
    c->was_root |= root == c->rank;
    return root;
}

static int run_bcast(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Bcast(c->sbuf, c->count, MPI_BYTE, next_root(c), c->comm);
    return rc;
}

static int run_reduce(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Reduce(c->sbuf, c->rbuf, c->count, MPI_FLOAT, MPI_SUM, next_root(c), c->comm);
    return rc;
}

static int run_allreduce(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Allreduce(c->sbuf, c->rbuf, c->count, MPI_FLOAT, MPI_SUM, c->comm);
    return rc;
}

static int run_allgather(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Allgather(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, c->comm);
    return rc;
}

static int run_alltoall(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Alltoall(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, c->comm);
    return rc;
}

static int run_reduce_scatter(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Reduce_scatter_block(c->sbuf, c->rbuf, c->rcount, MPI_FLOAT, MPI_SUM, c->comm);
    return rc;
}

static int run_gather(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Gather(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, next_root(c),
                        c->comm);
    return rc;
}

static int run_scatter(ctx_t *c, long iters)
{
    int rc = MPI_SUCCESS;
    for (long i = 0; i < iters && rc == MPI_SUCCESS; i++)
        rc = MPI_Scatter(c->sbuf, c->count, MPI_BYTE, c->rbuf, c->count, MPI_BYTE, next_root(c),
                         c->comm);
    return rc;
}

static const bench_t benches[B_COUNT] = {
    /* name             id                unit        p2p floats div bw   run */
    {"pingpong", B_PINGPONG, UNIT_US, 1, 0, 2, 1, run_pingpong},
    {"pingping", B_PINGPING, UNIT_US, 1, 0, 1, 1, run_pingping},
    {"sendrecv", B_SENDRECV, UNIT_US, 1, 0, 1, 2, run_sendrecv},
    {"exchange", B_EXCHANGE, UNIT_US, 1, 0, 1, 4, run_exchange},
    {"uniband", B_UNIBAND, UNIT_MBPS, 1, 0, 1, 0, run_window_oneway},
    {"biband", B_BIBAND, UNIT_MBPS, 1, 0, 1, 0, run_biband},
    {"msgrate", B_MSGRATE, UNIT_MSGPS, 1, 0, 1, 0, run_window_oneway},
    {"barrier", B_BARRIER, UNIT_US, 0, 0, 1, 0, run_barrier},
    {"bcast", B_BCAST, UNIT_US, 0, 0, 1, 0, run_bcast},
    {"reduce", B_REDUCE, UNIT_US, 0, 1, 1, 0, run_reduce},
    {"allreduce", B_ALLREDUCE, UNIT_US, 0, 1, 1, 0, run_allreduce},
    {"allgather", B_ALLGATHER, UNIT_US, 0, 0, 1, 0, run_allgather},
    {"alltoall", B_ALLTOALL, UNIT_US, 0, 0, 1, 0, run_alltoall},
    {"reduce_scatter", B_REDUCE_SCATTER, UNIT_US, 0, 1, 1, 0, run_reduce_scatter},
    {"gather", B_GATHER, UNIT_US, 0, 0, 1, 0, run_gather},
    {"scatter", B_SCATTER, UNIT_US, 0, 0, 1, 0, run_scatter},
};

static const char *unit_name(enum unit u)
{
    return u == UNIT_US ? "us" : u == UNIT_MBPS ? "MBps" : "msgps";
}

/* --- roles and buffers ----------------------------------------------------- */

/* Who takes part and with whom; the same for every size. */
static void set_roles(ctx_t *c)
{
    int n = c->n, me = c->rank, half = n / 2;
    c->active = 1;
    c->peer = c->sender = 0;
    c->left = (me - 1 + n) % n;
    c->right = (me + 1) % n;
    switch (c->b->id) {
    case B_PINGPONG:
    case B_PINGPING:
        c->active = me < 2;
        c->peer = 1 - me;
        break;
    case B_UNIBAND:
    case B_BIBAND:
        c->active = me < 2 * half;
        c->sender = me < half;
        c->peer = me < half ? me + half : me - half;
        break;
    case B_MSGRATE:
        c->active = (me | 1) < n;
        c->sender = me % 2 == 0;
        c->peer = me ^ 1;
        break;
    default: break;
    }
}

/* Pairs taking part in the window benchmarks (for aggregate rates). */
static int pairs_of(const ctx_t *c)
{
    return c->b->id == B_UNIBAND || c->b->id == B_BIBAND || c->b->id == B_MSGRATE ? c->n / 2 : 1;
}

static void buffer_bytes(const bench_t *b, size_t x, int n, int window, size_t *s_p, size_t *r_p)
{
    size_t s = x, r = x;
    switch (b->id) {
    case B_EXCHANGE: r = 2 * x; break;
    case B_UNIBAND:
    case B_BIBAND:
    case B_MSGRATE: r = (size_t)window * x; break;
    case B_BARRIER: s = r = 0; break;
    case B_BCAST: r = 0; break;
    case B_ALLGATHER:
    case B_GATHER: r = (size_t)n * x; break;
    case B_ALLTOALL: s = r = (size_t)n * x; break;
    case B_REDUCE_SCATTER: s = (size_t)n * x; break;
    case B_SCATTER: s = (size_t)n * x; break;
    default: break;
    }
    *s_p = s;
    *r_p = r;
}

/* --- measurement ------------------------------------------------------------ */

static int status_of(int rc, char *msg, size_t msglen)
{
    int cls = MPI_ERR_OTHER, len = 0;
    if (rc == MPI_SUCCESS)
        return ST_OK;
    MPI_Error_class(rc, &cls);
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, msglen, "error code %d", rc);
    else
        msg[len < (int)msglen ? len : (int)msglen - 1] = '\0';
    return cls == MPI_ERR_UNSUPPORTED_OPERATION ? ST_UNSUPPORTED : ST_ERROR;
}

/* Agrees over ranks on the worst status and the longest time. */
static void agree(MPI_Comm comm, int *status_p, double *t_p)
{
    double in[2] = {(double)*status_p, *t_p}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, comm);
    *status_p = (int)out[0];
    *t_p = out[1];
}

static long iters_for(const options_t *o, size_t x)
{
    if (x <= SCALE_FROM)
        return o->iters;
    long n = (long)((double)o->iters * (double)SCALE_FROM / (double)x);
    return n < 1 ? 1 : n;
}

static void print_result(const ctx_t *c, const options_t *o, const char *status, double value,
                         const char *extra)
{
    if (c->rank != 0 || !o->machine)
        return;
    printf("RESULT bench=imb.%s ranks=%d size=%zu value=%.6g unit=%s status=%s%s%s\n", c->b->name,
           c->n, c->size, value, unit_name(c->b->unit), status, extra[0] ? " " : "", extra);
    fflush(stdout);
}

/* Messages per iteration of a window benchmark, over all pairs. */
static double window_msgs(const ctx_t *c)
{
    return (double)pairs_of(c) * c->window * (c->b->id == B_BIBAND ? 2 : 1);
}

/* Converts a per-operation time (us) into the benchmark's unit. */
static double value_of(const ctx_t *c, double t_us)
{
    if (c->b->unit == UNIT_US)
        return t_us;
    if (t_us <= 0)
        return 0;
    return window_msgs(c) * (c->b->unit == UNIT_MBPS ? (double)c->size : 1e6) / t_us;
}

/* Measures one size. Returns ST_OK, or the status that ends this benchmark. */
static int measure(ctx_t *c, const options_t *o)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    char extra[256];
    double *val = malloc(sizeof(double) * 4 * (size_t)o->reps);
    if (val == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    double *tmin = val + o->reps, *tavg = tmin + o->reps, *sorted = tavg + o->reps;
    size_t bad = 0, bad_all = 0; /* wrong elements here; everywhere */

    c->seed = 1;
    fill(c);
    double t0 = MPI_Wtime();
    int st = status_of(c->b->run(c, 1), msg, sizeof(msg));
    double t1 = MPI_Wtime() - t0;
    agree(c->comm, &st, &t1);
    if (st == ST_OK) {
        /* Warm-up in up to 5 chunks; the median chunk estimates one
         * iteration: one preempted chunk cannot shrink the count, and one
         * lucky chunk cannot blow the budget when every rank is slow. */
        long wmax = iters_for(o, c->size) / 10 + 1, wmin = wmax < 5 ? wmax : 5;
        long warm = o->budget > 0 && t1 > 0 ? (long)(o->budget * 0.25 / t1) : wmax;
        warm = warm < wmin ? wmin : warm > wmax ? wmax : warm;
        int chunks = warm < 5 ? (int)warm : 5;
        long per = warm / chunks;
        double chunk_t[5];
        for (int k = 0; k < chunks && st == ST_OK; k++) {
            t0 = MPI_Wtime();
            st = status_of(c->b->run(c, per), msg, sizeof(msg));
            chunk_t[k] = (MPI_Wtime() - t0) / (double)per;
        }
        double lo_t, mean_t;
        if (st == ST_OK)
            bench_stats(chunk_t, chunks, &t1, &lo_t, &mean_t);
        agree(c->comm, &st, &t1);
        if (st == ST_OK)
            bad += check(c);
    }
    if (st != ST_OK) {
        if (st == ST_ERROR && msg[0])
            fprintf(stderr, "imb: rank %d: imb.%s size %zu: %s\n", c->rank, c->b->name, c->size,
                    msg);
        if (c->rank == 0) {
            printf("  imb.%s: %s\n", c->b->name,
                   st == ST_UNSUPPORTED
                       ? "unsupported by this MPI (MPI_ERR_UNSUPPORTED_OPERATION): skipped"
                       : "FAILED: an MPI call returned an error; remaining sizes skipped");
        }
        print_result(c, o, st == ST_UNSUPPORTED ? "unsupported" : "FAILED", 0, "");
        free(val);
        return st;
    }

    long iters = iters_for(o, c->size);
    if (o->budget > 0 && t1 > 0 && (double)iters * t1 > o->budget)
        iters = (long)(o->budget / t1);
    if (iters < o->min_iters)
        iters = o->min_iters;

    for (int r = 0; r < o->reps && st == ST_OK; r++) {
        c->seed = (unsigned)r + 2;
        fill(c);
        MPI_Barrier(c->comm);
        t0 = MPI_Wtime();
        int rc = c->b->run(c, iters);
        double t = (MPI_Wtime() - t0) * 1e6 / (double)iters / c->b->time_div;
        st = status_of(rc, msg, sizeof(msg));
        if (st == ST_OK) {
            corrupt_for_test(c);
            bad += check(c);
        }
        /* MAX over ranks of t and of -t (the MIN), the worst status; SUM of
         * t, of the ranks taking part and of the wrong elements. */
        double mx[3] = {c->active ? t : -1e300, c->active ? -t : -1e300, (double)st};
        double sm[3] = {c->active ? t : 0, (double)c->active, (double)bad}; /* bad: cumulative */
        double gmx[3], gsm[3];
        MPI_Allreduce(mx, gmx, 3, MPI_DOUBLE, MPI_MAX, c->comm);
        MPI_Allreduce(sm, gsm, 3, MPI_DOUBLE, MPI_SUM, c->comm);
        val[r] = gmx[0];
        tmin[r] = -gmx[1];
        tavg[r] = gsm[1] > 0 ? gsm[0] / gsm[1] : 0;
        st = (int)gmx[2];
        bad_all = (size_t)gsm[2];
    }
    if (st != ST_OK) {
        if (msg[0])
            fprintf(stderr, "imb: rank %d: imb.%s size %zu: %s\n", c->rank, c->b->name, c->size,
                    msg);
        if (c->rank == 0)
            printf("  imb.%s: FAILED: an MPI call returned an error; remaining sizes skipped\n",
                   c->b->name);
        print_result(c, o, "FAILED", 0, "");
        free(val);
        return ST_ERROR;
    }

    /* Median (and range) over repetitions, in the benchmark's unit. */
    double med, lo, mean, tmin_med, tavg_med, t_med;
    for (int r = 0; r < o->reps; r++)
        sorted[r] = value_of(c, val[r]);
    bench_stats(sorted, o->reps, &med, &lo, &mean);
    double hi = sorted[o->reps - 1];
    bench_stats(val, o->reps, &t_med, &mean, &mean);
    bench_stats(tmin, o->reps, &tmin_med, &mean, &mean);
    bench_stats(tavg, o->reps, &tavg_med, &mean, &mean);
    const char *status = bad_all ? "FAILED" : "ok";

    int len = snprintf(extra, sizeof(extra), "min=%.6g max=%.6g iters=%ld reps=%d", lo, hi, iters,
                       o->reps);
    if (c->b->unit == UNIT_US)
        len += snprintf(extra + len, sizeof(extra) - (size_t)len, " tmin=%.6g tavg=%.6g", tmin_med,
                        tavg_med);
    if (c->b->bw_bytes > 0)
        len += snprintf(extra + len, sizeof(extra) - (size_t)len, " MBps=%.6g",
                        med > 0 ? c->b->bw_bytes * (double)c->size / med : 0);
    if (c->b->unit == UNIT_MBPS)
        len += snprintf(extra + len, sizeof(extra) - (size_t)len, " msgps=%.6g",
                        t_med > 0 ? window_msgs(c) * 1e6 / t_med : 0);
    if (c->b->unit == UNIT_MSGPS)
        len += snprintf(extra + len, sizeof(extra) - (size_t)len, " MBps=%.6g",
                        t_med > 0 ? window_msgs(c) * (double)c->size / t_med : 0);

    if (c->rank == 0) {
        printf("  %10zu %8ld %12.3f %12.3f %12.3f", c->size, iters, med, lo, hi);
        if (c->b->unit == UNIT_US)
            printf(" %12.3f %12.3f", tmin_med, tavg_med);
        else
            printf(" %12s %12s", "", "");
        printf("  %s%s\n", status, bad_all ? "   <<<<<<<<<< VERIFICATION FAILED" : "");
        fflush(stdout);
    }
    print_result(c, o, status, med, extra);
    free(val);
    return ST_OK;
}

/* The sizes of one benchmark, in order; returns how many. */
static int sizes_of(const bench_t *b, const options_t *o, size_t *out)
{
    static const size_t quick[] = {0, 8, 1024, 65536, 1048576};
    int k = 0;
    if (b->id == B_BARRIER) {
        out[0] = 0;
        return 1;
    }
    size_t cap = b->id == B_MSGRATE && o->max_size > MSGRATE_MAX ? MSGRATE_MAX : o->max_size;
    if (o->quick) {
        for (size_t i = 0; i < sizeof(quick) / sizeof(quick[0]); i++)
            if (quick[i] <= cap)
                out[k++] = quick[i];
    } else {
        for (size_t x = 0; x <= cap; x = x ? x * 2 : 1)
            out[k++] = x;
    }
    int m = 0;
    for (int i = 0; i < k; i++)
        if (!b->floats || out[i] % sizeof(float) == 0)
            out[m++] = out[i];
    return m;
}

static void run_bench(const bench_t *b, const options_t *o, int rank, int n)
{
    ctx_t c = {.b = b, .comm = MPI_COMM_WORLD, .rank = rank, .n = n, .window = o->window};
    size_t sizes[64], sbytes, rbytes;
    int nsizes = sizes_of(b, o, sizes);
    const char *what = b->unit == UNIT_US     ? (b->p2p ? "us" : "us(max)")
                       : b->unit == UNIT_MBPS ? "MB/s"
                                              : "msg/s";

    if (b->p2p && n < 2) {
        if (rank == 0)
            printf("# imb.%s needs 2 ranks: skipped\n", b->name);
        return;
    }
    if (nsizes == 0)
        return;
    set_roles(&c);
    buffer_bytes(b, sizes[nsizes - 1], n, o->window, &sbytes, &rbytes);
    c.sbuf = bench_alloc(sbytes);
    c.rbuf = bench_alloc(rbytes);
    c.req = malloc(sizeof(MPI_Request) * (size_t)(2 * o->window + 4));
    c.stat = malloc(sizeof(MPI_Status) * (size_t)(2 * o->window + 4));
    if (c.req == NULL || c.stat == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (rank == 0) {
        printf("\n# imb.%s, %d ranks", b->name, n);
        if (b->id == B_UNIBAND || b->id == B_BIBAND || b->id == B_MSGRATE)
            printf(", %d pairs, window %d", pairs_of(&c), o->window);
        printf("\n# %10s %8s %12s %12s %12s %12s %12s  %s\n", "bytes", "iters", what, "rep-min",
               "rep-max", b->unit == UNIT_US ? "us(min)" : "", b->unit == UNIT_US ? "us(avg)" : "",
               "status");
        fflush(stdout);
    }
    for (int i = 0; i < nsizes; i++) {
        c.size = sizes[i];
        c.count = (int)(b->floats ? sizes[i] / sizeof(float) : sizes[i]);
        c.rcount = c.count; /* reduce_scatter: X per rank */
        if (measure(&c, o) != ST_OK)
            break;
    }
    free(c.stat);
    free(c.req);
    free(c.rbuf);
    free(c.sbuf);
}

/* --- options ---------------------------------------------------------------- */

static int parse_list(char *list, int *want)
{
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
        if (strncasecmp(tok, "imb.", 4) == 0)
            tok += 4;
        int found = 0;
        for (int i = 0; i < B_COUNT; i++) {
            if (strcasecmp(tok, benches[i].name) == 0 ||
                (strcasecmp(tok, "reduce_scatter_block") == 0 &&
                 benches[i].id == B_REDUCE_SCATTER)) {
                want[i] = found = 1;
            }
        }
        if (!found)
            return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options_t *o)
{
    int c, have_iters = 0, have_budget = 0, any = 0, v;
    o->machine = o->quick = 0;
    o->reps = 5;
    o->window = 64;
    o->iters = 1000;
    o->budget = 0.05;
    o->max_size = (size_t)4 << 20;
    memset(o->want, 0, sizeof(o->want));
    while ((c = getopt(argc, argv, "mqb:x:i:r:t:W:h")) != -1) {
        switch (c) {
        case 'm': o->machine = 1; break;
        case 'q': o->quick = 1; break;
        case 'b':
            if (parse_list(optarg, o->want))
                return -1;
            any = 1;
            break;
        case 'x':
            if (bench_parse_size(optarg, &o->max_size))
                return -1;
            break;
        case 'i':
            if (bench_parse_int(optarg, &v) || v < 1)
                return -1;
            o->iters = v;
            have_iters = 1;
            break;
        case 'r':
            if (bench_parse_int(optarg, &o->reps) || o->reps < 1 || o->reps > MAX_REPS)
                return -1;
            break;
        case 't':
            if (bench_parse_seconds(optarg, &o->budget))
                return -1;
            have_budget = 1;
            break;
        case 'W':
            if (bench_parse_int(optarg, &o->window) || o->window < 1 || o->window > MAX_WINDOW)
                return -1;
            break;
        default: return -1;
        }
    }
    if (optind != argc || o->max_size > ((size_t)1 << 30))
        return -1;
    if (o->quick && !have_iters)
        o->iters = 100;
    if (o->quick && !have_budget)
        o->budget = 0.01;
    o->min_iters = o->quick ? 1 : MIN_ITERS;
    if (!any)
        for (int i = 0; i < B_COUNT; i++)
            o->want[i] = 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, n;
    options_t opt;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (parse_options(argc, argv, &opt) != 0) {
        if (rank == 0) {
            fprintf(stderr,
                    "usage: imb [-m] [-q] [-b list] [-x max<=1G] [-i iters] [-r reps] [-t secs] "
                    "[-W window<=%d]\nbenchmarks:",
                    MAX_WINDOW);
            for (int i = 0; i < B_COUNT; i++)
                fprintf(stderr, " %s", benches[i].name);
            fprintf(stderr, "\n");
        }
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        printf("# Ferry bench: imb (IMB-MPI1 style), %d ranks, %s sizes up to %zu B\n", n,
               opt.quick ? "quick" : "all", opt.max_size);
        bench_print_library();
        printf("# value: median of %d repetitions (MAX over ranks of each rank's average); "
               "budget %.3g s per repetition, base %ld iterations\n",
               opt.reps, opt.budget, opt.iters);
        fflush(stdout);
    }
    for (int i = 0; i < B_COUNT; i++)
        if (opt.want[i])
            run_bench(&benches[i], &opt, rank, n);
    bench_finalize(rank);
    return 0;
}
