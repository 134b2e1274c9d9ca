/*
 * taskfarm.c - a master hands out many tiny independent tasks to workers on
 * demand and collects their results.
 *
 * Task i is "apply the splitmix64 mixer w times to i" (a few microseconds
 * for the default w). Rank 0, the master, first sends `depth` tasks to each
 * worker (a task message is one long: the index), then loops: MPI_Probe on
 * MPI_ANY_SOURCE for a result, MPI_Recv it from the probed source, and send
 * that worker its next task, or a stop message (tag TAG_STOP) when none are
 * left. Workers receive, compute, and send back (index, value) as two
 * unsigned long longs. With one rank the master computes every task itself.
 * The master does not compute when it has workers, so 2 ranks measure the
 * round-trip overhead of one worker against doing the work locally.
 *
 * Time (value): from a barrier to the last result at the master; rate= is
 * tasks per second.
 *
 * Verification (master, after timing): every task index came back exactly
 * once, and the wrapping 64-bit sum of the results equals the sum the
 * master recomputes serially.
 *
 * Usage: taskfarm [-m] [-q] [-n tasks] [-w work] [-k depth]
 *   -m   machine-readable RESULT lines (size = tasks; work= and depth= are extra keys)
 *   -q   quick: 100000 tasks (about 1 s at 1 rank)
 *   -n   number of tasks (default 400000)
 *   -w   mixer rounds per task (default 1000)
 *   -k   tasks outstanding per worker (default 1: the classic farm)
 */
#include "apps_common.h"

#define TAG_TASK 41
#define TAG_STOP 42
#define TAG_RESULT 43

static unsigned long long task(long i, long w)
{
    uint64_t z = (uint64_t)i;
    for (long r = 0; r < w; r++)
        z = app_mix64(z);
    return (unsigned long long)z;
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
    const int workers = app_size - 1;
    unsigned char *seen = NULL;
    unsigned long long sum = 0;
    long received = 0, dup = 0;
    int ok = 1;
    long *per_worker = NULL;

    if (app_rank == 0) {
        seen = app_alloc((size_t)ntasks);
        per_worker = app_alloc((size_t)(workers + 1) * sizeof(long));
    }
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    if (app_rank == 0 && workers == 0) {
        for (long i = 0; i < ntasks; i++) {
            sum += task(i, work);
            seen[i]++;
        }
        received = ntasks;
    } else if (app_rank == 0) {
        long next = 0, outstanding = 0;
        for (int d = 0; d < depth; d++)
            for (int wk = 1; wk <= workers && next < ntasks; wk++, next++, outstanding++)
                APP_CHECK(MPI_Send(&next, 1, MPI_LONG, wk, TAG_TASK, MPI_COMM_WORLD));
        while (outstanding > 0) {
            MPI_Status st;
            unsigned long long res[2];
            APP_CHECK(MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st));
            APP_CHECK(MPI_Recv(res, 2, MPI_UNSIGNED_LONG_LONG, st.MPI_SOURCE, TAG_RESULT,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            outstanding--;
            received++;
            per_worker[st.MPI_SOURCE]++;
            if (res[0] < (unsigned long long)ntasks) {
                if (seen[res[0]]++)
                    dup++;
            } else {
                dup++;
            }
            sum += res[1];
            if (next < ntasks) {
                APP_CHECK(MPI_Send(&next, 1, MPI_LONG, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD));
                next++;
                outstanding++;
            }
        }
        for (int wk = 1; wk <= workers; wk++)
            APP_CHECK(MPI_Send(&next, 0, MPI_LONG, wk, TAG_STOP, MPI_COMM_WORLD));
    } else {
        for (;;) {
            MPI_Status st;
            long i = 0;
            APP_CHECK(MPI_Recv(&i, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            if (st.MPI_TAG == TAG_STOP)
                break;
            unsigned long long res[2] = {(unsigned long long)i, task(i, work)};
            APP_CHECK(MPI_Send(res, 2, MPI_UNSIGNED_LONG_LONG, 0, TAG_RESULT, MPI_COMM_WORLD));
        }
    }
    double t1 = MPI_Wtime();
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    if (app_rank == 0) {
        unsigned long long expect = 0;
        long missing = 0;
        for (long i = 0; i < ntasks; i++) {
            expect += task(i, work);
            missing += seen[i] == 0;
        }
        ok = received == ntasks && dup == 0 && missing == 0 && sum == expect;
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
        char extra[160];
        snprintf(extra, sizeof extra,
                 " rate=%.4g work=%ld depth=%d tasks_per_worker_min=%ld tasks_per_worker_max=%ld",
                 (double)ntasks / (t1 - t0), work, depth, mn, mx);
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
