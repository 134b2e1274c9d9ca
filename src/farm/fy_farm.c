/*
 * fy_farm.c - the task farm of ferry/farm.h (libferry_farm).
 *
 * Standard C11 + MPI only, so bench/apps/taskfarm.c can compile this file along with itself
 * against MPICH and Open MPI. No Ferry internals.
 *
 * Wire format, on a duplicate of the user's communicator (tags below), all byte messages:
 *   master -> worker TAG_ITEMS   u32 n, then n times { i64 index, u32 len, len bytes }
 *   master -> worker TAG_STOP    empty: no more items for you; return from run
 *   worker -> master TAG_RESULTS u32 n, then n times { i64 index, i32 status, u32 len, bytes }
 * A worker answers each TAG_ITEMS message with one TAG_RESULTS message (the answer is also its
 * request for more). The master keeps at most `depth` ITEMS messages in flight per worker and
 * never blocks in a send (Isend; a worker blocked sending results to a master blocked sending
 * it items would deadlock with large messages). Messages between one pair arrive in order, so
 * a worker handles its items, then its STOP.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "ferry/farm.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_ITEMS 7201
#define TAG_STOP 7202
#define TAG_RESULTS 7203

/* While the master polls (tick_ms > 0) it naps between two looks, from POLL_MIN_NS doubling up
 * to an eighth of the recent time between results, within [POLL_MIN_NS, POLL_MAX_NS]: short
 * tasks are not held up by a long nap, long ones do not wake the master for nothing. */
#define POLL_MIN_NS 20000L
#define POLL_MAX_NS 1000000L

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
} buf_t;

typedef struct worker {
    int inflight;       /* ITEMS messages not yet answered */
    long given;         /* items handed to it */
    long sent;          /* ITEMS messages sent (picks the send slot) */
    int stopped;        /* STOP sent */
    int idle;           /* `next` said LATER when it asked */
    buf_t *slot;        /* depth send buffers */
    MPI_Request *req;   /* and their requests */
} worker_t;

struct ferry_farm {
    MPI_Comm comm;
    int rank, size, master;
    ferry_farm_opts_t opts;
    long items_out, results_in;
    /* master, during run */
    worker_t *w;
    int ended, stopping, err;
    long inflight_total;
    double last_result, gap; /* when the last result came, and the recent gap between them */
};

void ferry_farm_opts_init(ferry_farm_opts_t *opts)
{
    if (opts == NULL)
        return;
    opts->chunk = 1;
    opts->depth = 1;
    opts->max_per_worker = 0;
    opts->tick_ms = 0;
}

static int buf_reserve(buf_t *b, size_t more)
{
    if (b->len + more <= b->cap)
        return 0;
    if (b->len + more > (size_t)INT_MAX)
        return -1; /* an MPI count is an int */
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more)
        cap *= 2;
    if (cap > (size_t)INT_MAX)
        cap = (size_t)INT_MAX;
    unsigned char *p = realloc(b->p, cap);
    if (p == NULL)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

static void buf_put(buf_t *b, const void *src, size_t n)
{
    if (n)
        memcpy(b->p + b->len, src, n);
    b->len += n;
}

static int check_mpi(int rc, const char *fn, const char *call)
{
    if (rc == MPI_SUCCESS)
        return FERRY_FARM_OK;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "error %d", rc);
    fprintf(stderr, "%s: %s failed: %s\n", fn, call, msg);
    return FERRY_FARM_ERR_MPI;
}

int ferry_farm_create(MPI_Comm comm, int master, const ferry_farm_opts_t *opts,
                      ferry_farm_t **farm_p)
{
    static const char fn[] = "ferry_farm_create";
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized) {
        fprintf(stderr, "%s: MPI is %s\n", fn, inited ? "finalized" : "not initialized");
        return FERRY_FARM_ERR_ARG;
    }
    if (comm == MPI_COMM_NULL) {
        fprintf(stderr, "%s: comm is MPI_COMM_NULL\n", fn);
        return FERRY_FARM_ERR_ARG;
    }
    int size = 0, rank = 0, inter = 0;
    int rc = check_mpi(MPI_Comm_test_inter(comm, &inter), fn, "MPI_Comm_test_inter");
    if (rc)
        return rc;
    if (inter) {
        fprintf(stderr, "%s: comm is an intercommunicator (an intracommunicator is needed)\n", fn);
        return FERRY_FARM_ERR_ARG;
    }
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);

    /* Every rank checks what it was given; all fail together, so no rank is left waiting in
     * ferry_farm_run for a master that never comes. */
    ferry_farm_opts_t o;
    ferry_farm_opts_init(&o);
    if (opts != NULL)
        o = *opts;
    int ok = 1;
    if (farm_p == NULL) {
        fprintf(stderr, "%s: farm_p is NULL\n", fn);
        ok = 0;
    }
    if (master < 0 || master >= size) {
        fprintf(stderr, "%s: master = %d: not a rank of comm (size %d)\n", fn, master, size);
        ok = 0;
    }
    if (o.chunk < 1) {
        fprintf(stderr, "%s: opts->chunk = %d: must be at least 1\n", fn, o.chunk);
        ok = 0;
    }
    if (o.depth < 1) {
        fprintf(stderr, "%s: opts->depth = %d: must be at least 1\n", fn, o.depth);
        ok = 0;
    }
    if (o.max_per_worker < 0) {
        fprintf(stderr, "%s: opts->max_per_worker = %ld: must be 0 (no limit) or more\n", fn,
                o.max_per_worker);
        ok = 0;
    }
    if (o.tick_ms < 0) {
        fprintf(stderr, "%s: opts->tick_ms = %d: must be 0 (never) or more\n", fn, o.tick_ms);
        ok = 0;
    }
    int local_rc = ok ? FERRY_FARM_OK : FERRY_FARM_ERR_ARG;
    ferry_farm_t *f = ok ? calloc(1, sizeof *f) : NULL;
    if (ok && f == NULL) {
        fprintf(stderr, "%s: out of memory\n", fn);
        ok = 0;
        local_rc = FERRY_FARM_ERR_NOMEM;
    }
    int all_ok = 0;
    rc = check_mpi(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm), fn, "MPI_Allreduce");
    if (rc == FERRY_FARM_OK && !all_ok)
        rc = ok ? FERRY_FARM_ERR_ARG : local_rc; /* ours was fine: another rank's was not */
    if (rc == FERRY_FARM_OK)
        rc = check_mpi(MPI_Comm_dup(comm, &f->comm), fn, "MPI_Comm_dup");
    if (rc != FERRY_FARM_OK) {
        free(f);
        return rc;
    }
    f->rank = rank;
    f->size = size;
    f->master = master;
    f->opts = o;
    *farm_p = f;
    return FERRY_FARM_OK;
}

int ferry_farm_is_master(const ferry_farm_t *farm)
{
    return farm != NULL && farm->rank == farm->master;
}

int ferry_farm_workers(const ferry_farm_t *farm)
{
    return farm != NULL ? farm->size - 1 : 0;
}

long ferry_farm_items_out(const ferry_farm_t *farm)
{
    return farm != NULL ? farm->items_out : 0;
}

long ferry_farm_results_in(const ferry_farm_t *farm)
{
    return farm != NULL ? farm->results_in : 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Applies what a callback returned: > 0 stops handing out, < 0 also fails the run. */
static void callback_said(ferry_farm_t *f, int rc)
{
    if (rc > 0)
        f->stopping = 1;
    if (rc < 0) {
        f->stopping = 1;
        f->err = FERRY_FARM_ERR_CALLBACK;
    }
}

/* ---- the master alone: computes every item itself --------------------------------------- */

static int run_alone(ferry_farm_t *f, const ferry_farm_ops_t *ops, void *user)
{
    double next_tick = f->opts.tick_ms > 0 ? now_s() + f->opts.tick_ms * 1e-3 : 0;
    long max = f->opts.max_per_worker;
    while (!f->stopping) {
        if (max > 0 && f->items_out >= max)
            return FERRY_FARM_INCOMPLETE;
        const void *data = NULL;
        size_t len = 0;
        int rc = ops->next(user, f->items_out, f->rank, &data, &len);
        if (rc == FERRY_FARM_END || rc == FERRY_FARM_LATER) /* LATER with nothing in flight */
            break;
        if (rc != FERRY_FARM_ITEM) {
            f->err = FERRY_FARM_ERR_CALLBACK;
            break;
        }
        long index = f->items_out++;
        const void *res = NULL;
        size_t rlen = 0;
        int status = ops->work(user, index, data, len, &res, &rlen);
        f->results_in++;
        if (ops->result != NULL)
            callback_said(f, ops->result(user, index, f->rank, status, res, rlen));
        if (next_tick > 0 && ops->tick != NULL && now_s() >= next_tick) {
            callback_said(f, ops->tick(user));
            next_tick = now_s() + f->opts.tick_ms * 1e-3;
        }
    }
    if (f->err)
        return f->err;
    return f->stopping ? FERRY_FARM_STOPPED : FERRY_FARM_OK;
}

/* ---- the master with workers ------------------------------------------------------------- */

static int send_stop(ferry_farm_t *f, int r)
{
    worker_t *w = &f->w[r];
    if (w->stopped)
        return FERRY_FARM_OK;
    w->stopped = 1;
    return check_mpi(MPI_Send(NULL, 0, MPI_BYTE, r, TAG_STOP, f->comm), "ferry_farm_run",
                     "MPI_Send");
}

/* Hands worker r items until it has `limit` (<= depth) messages in flight or there are none
 * for it. */
static int fill(ferry_farm_t *f, int r, int limit, const ferry_farm_ops_t *ops, void *user)
{
    worker_t *w = &f->w[r];
    const long max = f->opts.max_per_worker;
    w->idle = 0;
    while (!w->stopped && w->inflight < limit && !f->ended && !f->stopping &&
           (max == 0 || w->given < max)) {
        int slot = (int)(w->sent % f->opts.depth);
        buf_t *b = &w->slot[slot];
        /* The slot's previous message was answered (it is older than every message in
         * flight), so the worker has received it and this wait returns at once. */
        int rc = check_mpi(MPI_Wait(&w->req[slot], MPI_STATUS_IGNORE), "ferry_farm_run",
                           "MPI_Wait");
        if (rc)
            return rc;
        b->len = 0;
        if (buf_reserve(b, 4))
            goto nomem;
        b->len = 4;
        uint32_t n = 0;
        int later = 0;
        while ((int)n < f->opts.chunk && (max == 0 || w->given < max)) {
            const void *data = NULL;
            size_t len = 0;
            int got = ops->next(user, f->items_out, r, &data, &len);
            if (got == FERRY_FARM_END) {
                f->ended = 1;
                break;
            }
            if (got == FERRY_FARM_LATER) {
                later = 1;
                break;
            }
            if (got != FERRY_FARM_ITEM) {
                f->err = FERRY_FARM_ERR_CALLBACK;
                f->stopping = 1;
                break;
            }
            if (len > (size_t)INT_MAX - 64) {
                fprintf(stderr, "ferry_farm_run: item %ld: %zu bytes (at most %d)\n",
                        f->items_out, len, INT_MAX - 64);
                f->err = FERRY_FARM_ERR_ARG;
                f->stopping = 1;
                break;
            }
            int64_t index = f->items_out;
            uint32_t l32 = (uint32_t)len;
            if (buf_reserve(b, 12 + len))
                goto nomem;
            buf_put(b, &index, 8);
            buf_put(b, &l32, 4);
            buf_put(b, data, len);
            f->items_out++;
            w->given++;
            n++;
        }
        if (n == 0) {
            if (later)
                w->idle = 1;
            break;
        }
        memcpy(b->p, &n, 4);
        rc = check_mpi(MPI_Isend(b->p, (int)b->len, MPI_BYTE, r, TAG_ITEMS, f->comm,
                                 &w->req[slot]),
                       "ferry_farm_run", "MPI_Isend");
        if (rc)
            return rc;
        w->sent++;
        w->inflight++;
        f->inflight_total++;
        if (later) {
            w->idle = 1;
            break;
        }
    }
    /* Nothing more will come its way: release it (it handles what it has first). */
    if (w->inflight == 0 && !w->idle)
        return send_stop(f, r);
    return FERRY_FARM_OK;
nomem:
    fprintf(stderr, "ferry_farm_run: out of memory for a message to worker %d\n", r);
    f->stopping = 1;
    return FERRY_FARM_ERR_NOMEM;
}

/* Parses one TAG_RESULTS message from worker r and hands each result to ops->result. */
static int take_results(ferry_farm_t *f, int r, const buf_t *b, const ferry_farm_ops_t *ops,
                        void *user)
{
    size_t at = 4;
    uint32_t n = 0;
    if (b->len < 4)
        goto bad;
    memcpy(&n, b->p, 4);
    for (uint32_t k = 0; k < n; k++) {
        int64_t index;
        int32_t status;
        uint32_t len;
        if (b->len - at < 16)
            goto bad;
        memcpy(&index, b->p + at, 8);
        memcpy(&status, b->p + at + 8, 4);
        memcpy(&len, b->p + at + 12, 4);
        at += 16;
        if (b->len - at < len)
            goto bad;
        f->results_in++;
        if (ops->result != NULL)
            callback_said(f, ops->result(user, (long)index, r, (int)status,
                                         len ? b->p + at : NULL, len));
        at += len;
    }
    return FERRY_FARM_OK;
bad:
    fprintf(stderr, "ferry_farm_run: a malformed result message from worker %d (%zu bytes)\n",
            r, b->len);
    return FERRY_FARM_ERR_MPI;
}

/* Waits for the next result message: blocking in MPI, or polling with ticks. */
static int wait_result(ferry_farm_t *f, const ferry_farm_ops_t *ops, void *user, MPI_Status *st,
                       double *next_tick)
{
    if (f->opts.tick_ms == 0 || ops->tick == NULL)
        return check_mpi(MPI_Probe(MPI_ANY_SOURCE, TAG_RESULTS, f->comm, st), "ferry_farm_run",
                         "MPI_Probe");
    long cap = (long)(f->gap / 8 * 1e9);
    cap = cap < POLL_MIN_NS ? POLL_MIN_NS : cap > POLL_MAX_NS ? POLL_MAX_NS : cap;
    long nap = POLL_MIN_NS;
    for (;;) {
        int flag = 0;
        int rc = check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, TAG_RESULTS, f->comm, &flag, st),
                           "ferry_farm_run", "MPI_Iprobe");
        if (rc || flag)
            return rc;
        double t = now_s();
        if (t >= *next_tick) {
            callback_said(f, ops->tick(user));
            *next_tick = t + f->opts.tick_ms * 1e-3;
        }
        struct timespec ts = {0, nap};
        nanosleep(&ts, NULL);
        nap = nap * 2 > cap ? cap : nap * 2;
    }
}

static int run_master(ferry_farm_t *f, const ferry_farm_ops_t *ops, void *user)
{
    int rc = FERRY_FARM_OK;
    buf_t in = {NULL, 0, 0};
    f->w = calloc((size_t)f->size, sizeof *f->w);
    if (f->w == NULL)
        goto nomem;
    for (int r = 0; r < f->size; r++) {
        worker_t *w = &f->w[r];
        w->stopped = r == f->rank;
        if (r == f->rank)
            continue;
        w->slot = calloc((size_t)f->opts.depth, sizeof *w->slot);
        w->req = malloc((size_t)f->opts.depth * sizeof *w->req);
        if (w->slot == NULL || w->req == NULL)
            goto nomem;
        for (int d = 0; d < f->opts.depth; d++)
            w->req[d] = MPI_REQUEST_NULL;
    }
    double next_tick = now_s() + f->opts.tick_ms * 1e-3;
    /* Round-robin start: each worker gets one message before any gets a second, so a short
     * task list spreads over every worker. */
    for (int d = 0; d < f->opts.depth && rc == FERRY_FARM_OK; d++)
        for (int r = 0; r < f->size && rc == FERRY_FARM_OK; r++)
            if (r != f->rank && f->w[r].inflight == d)
                rc = fill(f, r, d + 1, ops, user);
    /* A worker the start round left alone because the items ran out is released by fill. */
    while (rc == FERRY_FARM_OK && f->inflight_total > 0) {
        MPI_Status st;
        rc = wait_result(f, ops, user, &st, &next_tick);
        if (rc)
            break;
        int r = st.MPI_SOURCE, count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        in.len = 0;
        if (buf_reserve(&in, (size_t)count))
            goto nomem;
        rc = check_mpi(MPI_Recv(in.p, count, MPI_BYTE, r, TAG_RESULTS, f->comm,
                                MPI_STATUS_IGNORE),
                       "ferry_farm_run", "MPI_Recv");
        if (rc)
            break;
        in.len = (size_t)count;
        double t = now_s();
        if (f->last_result > 0) /* a moving average of the last few gaps */
            f->gap = 0.75 * f->gap + 0.25 * (t - f->last_result);
        f->last_result = t;
        f->w[r].inflight--;
        f->inflight_total--;
        rc = take_results(f, r, &in, ops, user);
        if (rc == FERRY_FARM_OK)
            rc = fill(f, r, f->opts.depth, ops, user);
        /* A result may have made items available again (a retry): wake idle workers. */
        for (int v = 0; v < f->size && rc == FERRY_FARM_OK; v++)
            if (f->w[v].idle && !f->w[v].stopped && v != r)
                rc = fill(f, v, f->opts.depth, ops, user);
        if (rc == FERRY_FARM_OK && f->opts.tick_ms > 0 && ops->tick != NULL &&
            now_s() >= next_tick) {
            callback_said(f, ops->tick(user));
            next_tick = now_s() + f->opts.tick_ms * 1e-3;
        }
    }
    /* Whatever happened, release every worker, so none waits forever. An idle worker with
     * nothing in flight means `next` said LATER while no result could change its mind. */
    int all_retired = 1;
    for (int r = 0; r < f->size; r++) {
        worker_t *w = &f->w[r];
        if (r == f->rank)
            continue;
        if (f->opts.max_per_worker == 0 || w->given < f->opts.max_per_worker)
            all_retired = 0;
        if (w->req != NULL)
            for (int d = 0; d < f->opts.depth; d++) {
                int wrc = check_mpi(MPI_Wait(&w->req[d], MPI_STATUS_IGNORE), "ferry_farm_run",
                                    "MPI_Wait");
                if (rc == FERRY_FARM_OK)
                    rc = wrc;
            }
        int src = send_stop(f, r);
        if (rc == FERRY_FARM_OK)
            rc = src;
    }
    if (rc == FERRY_FARM_OK && f->err)
        rc = f->err;
    if (rc == FERRY_FARM_OK && f->stopping)
        rc = FERRY_FARM_STOPPED;
    /* Every worker reached its limit before `next` said END (asking it now would take an
     * item nobody runs). */
    if (rc == FERRY_FARM_OK && !f->ended && all_retired)
        rc = FERRY_FARM_INCOMPLETE;
    goto out;
nomem:
    fprintf(stderr, "ferry_farm_run: out of memory\n");
    rc = FERRY_FARM_ERR_NOMEM;
out:
    if (f->w != NULL)
        for (int r = 0; r < f->size; r++) {
            for (int d = 0; f->w[r].slot != NULL && d < f->opts.depth; d++)
                free(f->w[r].slot[d].p);
            free(f->w[r].slot);
            free(f->w[r].req);
        }
    free(f->w);
    f->w = NULL;
    free(in.p);
    return rc;
}

/* ---- a worker ---------------------------------------------------------------------------- */

static int run_worker(ferry_farm_t *f, const ferry_farm_ops_t *ops, void *user)
{
    static const char fn[] = "ferry_farm_run";
    buf_t in = {NULL, 0, 0}, out = {NULL, 0, 0};
    int rc = FERRY_FARM_OK;
    for (;;) {
        MPI_Status st;
        rc = check_mpi(MPI_Probe(f->master, MPI_ANY_TAG, f->comm, &st), fn, "MPI_Probe");
        if (rc)
            break;
        int count = 0;
        MPI_Get_count(&st, MPI_BYTE, &count);
        in.len = 0;
        if (buf_reserve(&in, (size_t)count + 1))
            goto nomem;
        rc = check_mpi(MPI_Recv(in.p, count, MPI_BYTE, f->master, st.MPI_TAG, f->comm,
                                MPI_STATUS_IGNORE),
                       fn, "MPI_Recv");
        if (rc || st.MPI_TAG == TAG_STOP)
            break;
        in.len = (size_t)count;
        uint32_t n = 0;
        size_t at = 4;
        if (in.len < 4)
            goto bad;
        memcpy(&n, in.p, 4);
        out.len = 0;
        if (buf_reserve(&out, 4))
            goto nomem;
        buf_put(&out, &n, 4);
        for (uint32_t k = 0; k < n; k++) {
            int64_t index;
            uint32_t len;
            if (in.len - at < 12)
                goto bad;
            memcpy(&index, in.p + at, 8);
            memcpy(&len, in.p + at + 8, 4);
            at += 12;
            if (in.len - at < len)
                goto bad;
            const void *res = NULL;
            size_t rlen = 0;
            int32_t status = (int32_t)ops->work(user, (long)index, in.p + at, len, &res, &rlen);
            at += len;
            if (res == NULL)
                rlen = 0;
            uint32_t r32 = (uint32_t)rlen;
            if (rlen > (size_t)INT_MAX - 64 || buf_reserve(&out, 16 + rlen)) {
                fprintf(stderr, "%s: item %lld: a result of %zu bytes does not fit a message\n",
                        fn, (long long)index, rlen);
                rc = FERRY_FARM_ERR_ARG;
                goto out;
            }
            buf_put(&out, &index, 8);
            buf_put(&out, &status, 4);
            buf_put(&out, &r32, 4);
            buf_put(&out, res, rlen);
            f->items_out++;
        }
        rc = check_mpi(MPI_Send(out.p, (int)out.len, MPI_BYTE, f->master, TAG_RESULTS, f->comm),
                       fn, "MPI_Send");
        if (rc)
            break;
    }
    goto out;
bad:
    fprintf(stderr, "%s: a malformed item message from the master (%zu bytes)\n", fn, in.len);
    rc = FERRY_FARM_ERR_MPI;
    goto out;
nomem:
    fprintf(stderr, "%s: out of memory\n", fn);
    rc = FERRY_FARM_ERR_NOMEM;
out:
    free(in.p);
    free(out.p);
    return rc;
}

int ferry_farm_run(ferry_farm_t *farm, const ferry_farm_ops_t *ops, void *user)
{
    static const char fn[] = "ferry_farm_run";
    if (farm == NULL) {
        fprintf(stderr, "%s: farm is NULL\n", fn);
        return FERRY_FARM_ERR_ARG;
    }
    int is_master = farm->rank == farm->master;
    int ok = 1, all_ok = 0;
    if (ops == NULL) {
        fprintf(stderr, "%s: ops is NULL (rank %d)\n", fn, farm->rank);
        ok = 0;
    } else if ((is_master && ops->next == NULL) ||
               ((!is_master || farm->size == 1) && ops->work == NULL)) {
        fprintf(stderr, "%s: ops->%s is NULL (rank %d, the %s)\n", fn,
                is_master && ops->next == NULL ? "next" : "work", farm->rank,
                is_master ? "master" : "worker");
        ok = 0;
    }
    /* All ranks agree first: a master that gave up would leave the workers waiting for items,
     * a worker that gave up the master waiting for results. */
    int rc = check_mpi(MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, farm->comm), fn,
                       "MPI_Allreduce");
    if (rc != FERRY_FARM_OK)
        return rc;
    if (!all_ok)
        return FERRY_FARM_ERR_ARG;
    farm->ended = farm->stopping = farm->err = 0;
    farm->inflight_total = 0;
    farm->last_result = 0;
    farm->gap = POLL_MAX_NS * 1e-9 * 8; /* until results say otherwise */
    if (!is_master)
        return run_worker(farm, ops, user);
    if (farm->size == 1)
        return run_alone(farm, ops, user);
    return run_master(farm, ops, user);
}

int ferry_farm_free(ferry_farm_t **farm_p)
{
    if (farm_p == NULL || *farm_p == NULL) {
        fprintf(stderr, "ferry_farm_free: %s is NULL\n", farm_p == NULL ? "farm_p" : "*farm_p");
        return FERRY_FARM_ERR_ARG;
    }
    ferry_farm_t *f = *farm_p;
    int rc = check_mpi(MPI_Comm_free(&f->comm), "ferry_farm_free", "MPI_Comm_free");
    free(f);
    *farm_p = NULL;
    return rc;
}
