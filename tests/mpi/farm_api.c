/* The task farm's C API (ferry/farm.h, libferry_farm): items of varying sizes (empty ones
 * too) go out, each worker returns a result derived from its item, and the master checks that
 * every item came back exactly once with the right result, on several configurations: the
 * classic farm, chunks with prefetch, items larger than an eager message, a per-worker limit
 * (the run reports INCOMPLETE with items left), a stop from the result callback (results in
 * flight still arrive), retries through FERRY_FARM_LATER (an item that "fails" the first time
 * is handed out again, to another worker when there is one), and the polling master with a
 * tick. With 1 rank the master computes alone. A message of the program's own on the same
 * communicator, with the farm's tags, is not taken by the farm. Bad arguments are refused with
 * an error code on every rank (a callback missing on one rank too: no rank waits). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ferry/farm.h>

#include "mpitest.h"

typedef struct state {
    long nitems;      /* items to hand out */
    long next_item;   /* next fresh item */
    long *retry;      /* queue of items to hand out again */
    long nretry;
    unsigned char *seen;      /* per item: results received */
    unsigned char *failed_on; /* per item: 1 + the worker it failed on, 0 = not failed */
    long *item_of;    /* farm index -> item */
    long cap;
    unsigned char buf[70000];
    uint64_t res[2];
    int fail_first;   /* items with i % 7 == 3 fail once */
    long stop_after;  /* result callback stops after this many results (0 = never) */
    long out, results, ticks, bad, other_worker;
} state_t;

static size_t item_len(long i)
{
    return i % 50 == 49 ? 65000 : (size_t)(i % 13); /* some empty, some beyond eager */
}

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    return z ^ (z >> 27);
}

static int next_cb(void *user, long index, int worker, const void **data, size_t *len)
{
    state_t *s = user;
    (void)worker;
    long item;
    if (s->nretry > 0)
        item = s->retry[--s->nretry];
    else if (s->next_item < s->nitems)
        item = s->next_item++;
    else
        return s->results < s->out ? FERRY_FARM_LATER : FERRY_FARM_END;
    if (index >= s->cap) {
        s->bad++;
        return -1;
    }
    s->item_of[index] = item;
    s->out++;
    size_t n = item_len(item);
    for (size_t k = 0; k < n; k++)
        s->buf[k] = (unsigned char)(item + k);
    memcpy(s->buf, &item, n >= 8 ? 8 : 0);
    *data = s->buf;
    *len = n;
    return FERRY_FARM_ITEM;
}

/* Result: the item number (when the item holds it) and a checksum of the bytes. */
static int work_cb(void *user, long index, const void *item, size_t len, const void **result,
                   size_t *result_len)
{
    state_t *s = user;
    (void)index;
    const unsigned char *p = item;
    uint64_t sum = len;
    for (size_t k = 0; k < len; k++)
        sum = mix(sum ^ p[k]);
    s->res[0] = sum;
    s->res[1] = (uint64_t)mt_rank;
    *result = s->res;
    *result_len = sizeof s->res;
    return (int)(len % 3);
}

static int result_cb(void *user, long index, int worker, int status, const void *result,
                     size_t len)
{
    state_t *s = user;
    long item = s->item_of[index];
    uint64_t r[2];
    CHECK(len == sizeof r, "result of index %ld: %zu bytes", index, len);
    memcpy(r, result, sizeof r);
    size_t n = item_len(item);
    unsigned char tmp[70000];
    for (size_t k = 0; k < n; k++)
        tmp[k] = (unsigned char)(item + k);
    memcpy(tmp, &item, n >= 8 ? 8 : 0);
    uint64_t sum = n;
    for (size_t k = 0; k < n; k++)
        sum = mix(sum ^ tmp[k]);
    CHECK(r[0] == sum, "item %ld: wrong result", item);
    CHECK((int)r[1] == worker, "item %ld: computed by %d, reported as %d", item, (int)r[1], worker);
    CHECK(status == (int)(n % 3), "item %ld: status %d", item, status);
    s->results++;
    if (s->fail_first && item % 7 == 3 && !s->failed_on[item]) {
        s->failed_on[item] = (unsigned char)(1 + worker);
        s->retry[s->nretry++] = item;
        return 0;
    }
    if (s->fail_first && item % 7 == 3 && mt_size > 2 && s->failed_on[item] == 1 + worker)
        s->other_worker++; /* counted: next_cb does not steer, this only shows it can */
    s->seen[item]++;
    if (s->stop_after && s->results >= s->stop_after)
        return 1;
    return 0;
}

static int tick_cb(void *user)
{
    ((state_t *)user)->ticks++;
    return 0;
}

static void one_run(const char *what, long nitems, int chunk, int depth, long max_per_worker,
                    int fail_first, long stop_after, int tick_ms)
{
    ferry_farm_opts_t o;
    ferry_farm_opts_init(&o);
    o.chunk = chunk;
    o.depth = depth;
    o.max_per_worker = max_per_worker;
    o.tick_ms = tick_ms;
    ferry_farm_t *farm = NULL;
    int rc = ferry_farm_create(MPI_COMM_WORLD, 0, &o, &farm);
    CHECK(rc == FERRY_FARM_OK, "%s: create returned %d", what, rc);
    if (rc != FERRY_FARM_OK)
        return;
    state_t *s = calloc(1, sizeof *s);
    s->nitems = nitems;
    s->cap = 3 * nitems + 10;
    s->retry = calloc((size_t)nitems + 1, sizeof(long));
    s->seen = calloc((size_t)nitems + 1, 1);
    s->failed_on = calloc((size_t)nitems + 1, 1);
    s->item_of = calloc((size_t)s->cap, sizeof(long));
    s->fail_first = fail_first;
    s->stop_after = stop_after;
    ferry_farm_ops_t ops = {next_cb, work_cb, result_cb, tick_ms ? tick_cb : NULL};
    CHECK(ferry_farm_is_master(farm) == (mt_rank == 0), "%s: is_master", what);
    CHECK(ferry_farm_workers(farm) == mt_size - 1, "%s: workers", what);
    rc = ferry_farm_run(farm, &ops, s);
    if (mt_rank == 0) {
        long done = 0, dup = 0;
        for (long i = 0; i < nitems; i++) {
            done += s->seen[i] != 0;
            dup += s->seen[i] > 1;
        }
        CHECK(dup == 0, "%s: %ld items came back twice", what, dup);
        CHECK(s->bad == 0, "%s: index out of range", what);
        CHECK(ferry_farm_results_in(farm) == ferry_farm_items_out(farm),
              "%s: %ld out, %ld in", what, ferry_farm_items_out(farm),
              ferry_farm_results_in(farm));
        if (stop_after) {
            CHECK(rc == FERRY_FARM_STOPPED, "%s: run returned %d, expected STOPPED", what, rc);
            CHECK(s->results >= stop_after && done < nitems, "%s: %ld results, %ld done", what,
                  s->results, done);
        } else if (max_per_worker) { /* alone, the master is the one worker */
            long cap = max_per_worker * (mt_size > 1 ? mt_size - 1 : 1);
            CHECK(rc == (cap < nitems ? FERRY_FARM_INCOMPLETE : FERRY_FARM_OK),
                  "%s: run returned %d", what, rc);
            CHECK(done == (cap < nitems ? cap : nitems), "%s: %ld done, limit %ld", what, done,
                  cap);
        } else {
            CHECK(rc == FERRY_FARM_OK, "%s: run returned %d", what, rc);
            CHECK(done == nitems, "%s: %ld of %ld items done", what, done, nitems);
            long expect = nitems + (fail_first ? (nitems + 3) / 7 : 0);
            CHECK(s->results == expect, "%s: %ld results, expected %ld", what, s->results,
                  expect);
        }
        if (tick_ms && nitems > 0 && mt_size > 1)
            CHECK(s->ticks >= 0, "%s: ticks", what);
    } else {
        CHECK(rc == FERRY_FARM_OK, "%s: worker's run returned %d", what, rc);
    }
    rc = ferry_farm_free(&farm);
    CHECK(rc == FERRY_FARM_OK && farm == NULL, "%s: free returned %d", what, rc);
    free(s->retry);
    free(s->seen);
    free(s->failed_on);
    free(s->item_of);
    free(s);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);

    /* The program's own message, sent before the farms with the farm's tags, must still be
     * there after them. */
    int mine = 12345, got = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    if (mt_size > 1 && mt_rank == 1)
        MPI_OK(MPI_Send(&mine, 1, MPI_INT, 0, 7203, MPI_COMM_WORLD));

    one_run("classic", 200, 1, 1, 0, 0, 0, 0);
    one_run("chunk 5 depth 3", 1000, 5, 3, 0, 0, 0, 0);
    one_run("chunk 64 depth 2", 20000, 64, 2, 0, 0, 0, 0);
    one_run("empty", 0, 4, 2, 0, 0, 0, 0);
    one_run("per-worker limit", 100, 3, 2, 7, 0, 0, 0);
    one_run("stop", 300, 2, 2, 0, 0, 50, 0);
    one_run("retries", 300, 1, 2, 0, 1, 0, 0);
    one_run("retries chunk 4", 300, 4, 2, 0, 1, 0, 0);
    one_run("tick", 500, 2, 2, 0, 0, 0, 1);

    if (mt_size > 1 && mt_rank == 0) {
        MPI_OK(MPI_Irecv(&got, 1, MPI_INT, 1, 7203, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CHECK(got == mine, "the program's own message: got %d", got);
    }

    /* Bad arguments: refused on every rank (no rank waits for a farm that never starts). */
    ferry_farm_opts_t bad;
    ferry_farm_opts_init(&bad);
    bad.chunk = 0;
    ferry_farm_t *farm = NULL;
    CHECK(ferry_farm_create(MPI_COMM_WORLD, 0, &bad, &farm) == FERRY_FARM_ERR_ARG && farm == NULL,
          "chunk 0 accepted");
    CHECK(ferry_farm_create(MPI_COMM_WORLD, mt_size, NULL, &farm) == FERRY_FARM_ERR_ARG,
          "master out of range accepted");
    CHECK(ferry_farm_run(NULL, NULL, NULL) == FERRY_FARM_ERR_ARG, "run(NULL) accepted");
    /* A callback missing on some ranks only: every rank is refused, none waits. */
    CHECK(ferry_farm_create(MPI_COMM_WORLD, 0, NULL, &farm) == FERRY_FARM_OK, "create");
    ferry_farm_ops_t partial = {next_cb, mt_rank == mt_size - 1 ? NULL : work_cb, NULL, NULL};
    state_t *s = calloc(1, sizeof *s);
    CHECK(ferry_farm_run(farm, &partial, s) == FERRY_FARM_ERR_ARG, "work NULL on the last rank "
                                                                   "accepted");
    free(s);
    CHECK(ferry_farm_free(&farm) == FERRY_FARM_OK, "free");
    return mt_finish();
}
