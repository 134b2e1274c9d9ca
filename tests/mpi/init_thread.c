/* MPI_Init_thread at the level named by FY_TEST_THREAD_LEVEL (single, funneled, serialized,
 * multiple): provided is a valid level, Query_thread returns it, Is_thread_main is true on the
 * main thread and false on another thread (checked when provided allows that call), and
 * point-to-point and a reduction work afterwards. */
#include "mpitest.h"
#include <pthread.h>

static int other_flag = -1, other_rc = -1;

static void *other_thread(void *arg)
{
    (void)arg;
    other_rc = MPI_Is_thread_main(&other_flag);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *name = getenv("FY_TEST_THREAD_LEVEL");
    int required = MPI_THREAD_SINGLE, provided = -1, pre_errs = 0;
    if (!name || !strcmp(name, "single"))
        required = MPI_THREAD_SINGLE;
    else if (!strcmp(name, "funneled"))
        required = MPI_THREAD_FUNNELED;
    else if (!strcmp(name, "serialized"))
        required = MPI_THREAD_SERIALIZED;
    else if (!strcmp(name, "multiple"))
        required = MPI_THREAD_MULTIPLE;
    else {
        printf("FAIL unknown FY_TEST_THREAD_LEVEL '%s'\n", name);
        pre_errs++;
    }

    if (MPI_Init_thread(&argc, &argv, required, &provided) != MPI_SUCCESS) {
        printf("FAIL MPI_Init_thread(%d) did not return MPI_SUCCESS\n", required);
        return 1;
    }
    mt_setup();
    mt_errs += pre_errs;

    CHECK(provided == MPI_THREAD_SINGLE || provided == MPI_THREAD_FUNNELED ||
              provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE,
          "MPI_Init_thread(%d): provided %d is not a thread level", required, provided);
    if (provided < required && mt_rank == 0)
        printf("note: MPI_Init_thread(%d) provided only %d\n", required, provided);

    int level = -1, flag = -1;
    MPI_OK(MPI_Query_thread(&level));
    CHECK(level == provided, "MPI_Query_thread %d, MPI_Init_thread provided %d", level, provided);
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "MPI_Is_thread_main on the main thread: %d", flag);
    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized after MPI_Init_thread: %d", flag);

    if (provided >= MPI_THREAD_SERIALIZED) {
        /* The main thread waits, so calls are serialized. */
        pthread_t th;
        if (pthread_create(&th, NULL, other_thread, NULL) == 0) {
            pthread_join(th, NULL);
            CHECK(other_rc == MPI_SUCCESS, "MPI_Is_thread_main on another thread returned %d",
                  other_rc);
            CHECK(other_flag == 0, "MPI_Is_thread_main on another thread: flag %d", other_flag);
        }
    }

    /* Point-to-point and a reduction still work. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int out = mt_rank * 10 + required, in = -1;
    MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, next, 5, &in, 1, MPI_INT, prev, 5, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK(in == prev * 10 + required, "ring value %d from %d", in, prev);
    int max = -1;
    MPI_OK(MPI_Allreduce(&provided, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(max >= provided, "MPI_Allreduce(MAX) of provided: %d", max);
    return mt_finish();
}
