/*
 * taskfarm.c - a master hands out many tiny independent tasks to workers on
 * demand and collects their results, through the task farm of ferry/farm.h.
 *
 * Task i is "apply the splitmix64 mixer w times to i" (a few microseconds
 * for the default w). Rank 0, the farm's master, produces item i (the index
 * as 8 bytes); a worker computes it and returns (index, value) as two
 * unsigned long longs; the farm keeps `depth` messages of `chunk` items in
 * flight per worker (ferry/farm.h says how). With one rank the master
 * computes every task itself. The master does not compute when it has
 * workers, so 2 ranks measure the round-trip overhead of one worker against
 * doing the work locally.
 *
 * The farm is standard MPI: bench/lib.sh compiles src/farm/fy_farm.c along
 * with this file, for Ferry, MPICH and Open MPI alike.
 *
 * Time (value): from a barrier to the last result at the master; rate= is
 * tasks per second.
 *
 * Verification (master, after timing): every task index came back exactly
 * once (and with the index the farm gave its item), and the wrapping 64-bit
 * sum of the results equals the sum the master recomputes serially.
 *
 * Usage: taskfarm [-m] [-q] [-n tasks] [-w work] [-k depth] [-p chunk]
 *   -m   machine-readable RESULT lines (size = tasks; work=, depth= and chunk= are extra keys)
 *   -q   quick: 100000 tasks (about 1 s at 1 rank)
 *   -n   number of tasks (default 400000)
 *   -w   mixer rounds per task (default 1000)
 *   -k   messages outstanding per worker (default 1: the classic farm)
 *   -p   tasks per message (default 1)
 */
#include "apps_common.h"

#include <ferry/farm.h>

static unsigned long long task(long i, long w)
{
    uint64_t z = (uint64_t)i;
    for (long r = 0; r < w; r++)
        z = app_mix64(z);
    return (unsigned long long)z;
}

typedef struct farm_state {
    long ntasks, work;
    long item;                   /* next item's bytes */
    unsigned long long res[2];   /* a worker's result */
    unsigned char *seen;
    long *per_worker;
    long received, dup;
    unsigned long long sum;
} farm_state_t;

static int next_item(void *user, long index, int worker, const void **data, size_t *len)
{
    farm_state_t *s = user;
    (void)worker;
    if (index >= s->ntasks)
        return FERRY_FARM_END;
    s->item = index;
    *data = &s->item;
    *len = sizeof s->item;
    return FERRY_FARM_ITEM;
}

static int work_item(void *user, long index, const void *item, size_t len, const void **result,
                     size_t *result_len)
{
    farm_state_t *s = user;
    long i = -1;
    (void)index;
    if (len == sizeof i)
        memcpy(&i, item, sizeof i);
    s->res[0] = (unsigned long long)i;
    s->res[1] = task(i, s->work);
    *result = s->res;
    *result_len = sizeof s->res;
    return 0;
}

static int take_result(void *user, long index, int worker, int status, const void *result,
                       size_t len)
{
    farm_state_t *s = user;
    unsigned long long res[2] = {~0ULL, 0};
    (void)status;
    if (len == sizeof res)
        memcpy(res, result, sizeof res);
    s->received++;
    s->per_worker[worker]++;
    if (res[0] < (unsigned long long)s->ntasks && res[0] == (unsigned long long)index) {
        if (s->seen[res[0]]++)
            s->dup++;
    } else {
        s->dup++;
    }
    s->sum += res[1];
    return 0;
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "taskfarm");
    if (app_parse(argc, argv, "[-m] [-q] [-n tasks] [-w work] [-k depth]", &o)) {
        MPI_Finalize();
        return 2;
    }
    const long ntasks = o.n ? o.n : (o.quick ? 100000 : 400000);
    const long work = o.w ? o.w : 1000;
    const int depth = (int)(o.k ? o.k : 1);
    const int chunk = o.p ? atoi(o.p) : 1;
    const int workers = app_size - 1;
    int ok = 1;
    if (chunk < 1) {
        if (app_rank == 0)
            fprintf(stderr, "taskfarm: -p %s: the chunk must be at least 1\n", o.p);
        MPI_Finalize();
        return 2;
    }
    farm_state_t s;
    memset(&s, 0, sizeof s);
    s.ntasks = ntasks;
    s.work = work;
    if (app_rank == 0) {
        s.seen = app_alloc((size_t)ntasks);
        s.per_worker = app_alloc((size_t)(workers + 1) * sizeof(long));
    }
    ferry_farm_opts_t fo;
    ferry_farm_opts_init(&fo);
    fo.chunk = chunk;
    fo.depth = depth;
    ferry_farm_t *farm = NULL;
    if (ferry_farm_create(MPI_COMM_WORLD, 0, &fo, &farm) != FERRY_FARM_OK)
        MPI_Abort(MPI_COMM_WORLD, 3);
    ferry_farm_ops_t ops = {next_item, work_item, take_result, NULL};

    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    if (ferry_farm_run(farm, &ops, &s) != FERRY_FARM_OK)
        ok = 0;
    double t1 = MPI_Wtime();
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    ferry_farm_free(&farm);
    unsigned long long sum = s.sum;
    long received = s.received, dup = s.dup;
    unsigned char *seen = s.seen;
    long *per_worker = s.per_worker;

    if (app_rank == 0) {
        unsigned long long expect = 0;
        long missing = 0;
        for (long i = 0; i < ntasks; i++) {
            expect += task(i, work);
            missing += seen[i] == 0;
        }
        ok = ok && received == ntasks && dup == 0 && missing == 0 && sum == expect;
        long mn = ntasks, mx = 0;
        for (int wk = 1; wk <= workers; wk++) {
            mn = per_worker[wk] < mn ? per_worker[wk] : mn;
            mx = per_worker[wk] > mx ? per_worker[wk] : mx;
        }
        if (workers == 0)
            mn = mx = ntasks;
        app_note(&o,
                 "taskfarm: %ld tasks of %ld rounds, %d workers (tasks per worker %ld..%ld): "
                 "received=%ld duplicates=%ld missing=%ld sum %s",
                 ntasks, work, workers, mn, mx, received, dup, missing,
                 sum == expect ? "matches" : "DIFFERS");
        char extra[200];
        snprintf(extra, sizeof extra,
                 " rate=%.4g work=%ld depth=%d tasks_per_worker_min=%ld tasks_per_worker_max=%ld"
                 " chunk=%d",
                 (double)ntasks / (t1 - t0), work, depth, mn, mx, chunk);
        app_report(&o, ntasks, t1 - t0, ok, extra);
    }
    free(seen);
    free(per_worker);
    MPI_Finalize();
    return ok ? 0 : 1;

unsupported:
    app_report_unsupported(&o, ntasks, "");
    MPI_Finalize();
    return 0;
}
