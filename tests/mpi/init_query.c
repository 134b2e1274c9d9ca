/* Environment queries: Initialized/Finalized before and after, Get_version (also before Init),
 * Get_library_version, Get_processor_name, Wtime/Wtick, Query_thread/Is_thread_main after plain
 * MPI_Init, Comm_size/Comm_rank on WORLD and SELF. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    int flag = -1, version = 0, subversion = -1;
    int pre_errs = 0;

    /* Allowed before MPI_Init. */
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 0) {
        printf("FAIL MPI_Initialized before MPI_Init: flag %d, expected 0\n", flag);
        pre_errs++;
    }
    flag = -1;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 0) {
        printf("FAIL MPI_Finalized before MPI_Init: flag %d, expected 0\n", flag);
        pre_errs++;
    }
    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS || version != MPI_VERSION ||
        subversion != MPI_SUBVERSION) {
        printf("FAIL MPI_Get_version before MPI_Init: %d.%d, expected %d.%d\n", version, subversion,
               MPI_VERSION, MPI_SUBVERSION);
        pre_errs++;
    }

    mt_init(&argc, &argv);
    mt_errs += pre_errs;

    MPI_OK(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized after MPI_Init: flag %d, expected 1", flag);
    MPI_OK(MPI_Finalized(&flag));
    CHECK(flag == 0, "MPI_Finalized before MPI_Finalize: flag %d, expected 0", flag);

    version = subversion = -1;
    MPI_OK(MPI_Get_version(&version, &subversion));
    CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION,
          "MPI_Get_version: %d.%d, header says %d.%d", version, subversion, MPI_VERSION,
          MPI_SUBVERSION);
    CHECK(version >= 3, "MPI_Get_version: version %d, expected at least 3", version);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    memset(lib, 'x', sizeof lib);
    MPI_OK(MPI_Get_library_version(lib, &len));
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING,
          "MPI_Get_library_version: length %d out of range", len);
    if (len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING)
        CHECK(strlen(lib) == (size_t)len, "MPI_Get_library_version: strlen %zu != resultlen %d",
              strlen(lib), len);

    char name[MPI_MAX_PROCESSOR_NAME];
    len = -1;
    memset(name, 'x', sizeof name);
    MPI_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "MPI_Get_processor_name: length %d", len);
    if (len > 0 && len < MPI_MAX_PROCESSOR_NAME)
        CHECK(strlen(name) == (size_t)len, "MPI_Get_processor_name: strlen %zu != resultlen %d",
              strlen(name), len);

    /* Wtime increases, Wtick is a plausible resolution. */
    double tick = MPI_Wtick();
    CHECK(tick > 0.0 && tick <= 0.01, "MPI_Wtick %g, expected in (0, 0.01]", tick);
    double t0 = MPI_Wtime(), t1 = t0;
    for (int i = 0; i < 1000000 && t1 - t0 < 0.02; i++)
        t1 = MPI_Wtime();
    CHECK(t1 > t0, "MPI_Wtime does not advance (%f)", t0);
    CHECK(t1 - t0 < 5.0, "MPI_Wtime jumped by %f s in a busy loop", t1 - t0);
    double prev = MPI_Wtime();
    for (int i = 0; i < 10000; i++) {
        double now = MPI_Wtime();
        if (now < prev) {
            CHECK(0, "MPI_Wtime went backwards: %f then %f", prev, now);
            break;
        }
        prev = now;
    }

    int level = -1;
    MPI_OK(MPI_Query_thread(&level));
    CHECK(level == MPI_THREAD_SINGLE || level == MPI_THREAD_FUNNELED ||
              level == MPI_THREAD_SERIALIZED || level == MPI_THREAD_MULTIPLE,
          "MPI_Query_thread after MPI_Init: %d is not a thread level", level);
    flag = -1;
    MPI_OK(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "MPI_Is_thread_main on the main thread: %d", flag);
    CHECK(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
              MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
          "thread level constants are not ordered");

    int size = -1, rank = -1;
    MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(size >= 1 && rank >= 0 && rank < size, "WORLD size %d rank %d", size, rank);
    MPI_OK(MPI_Comm_size(MPI_COMM_SELF, &size));
    MPI_OK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    CHECK(size == 1 && rank == 0, "SELF size %d rank %d, expected 1 and 0", size, rank);

    int total = 0;
    MPI_OK(MPI_Allreduce(&mt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    MPI_Finalize();

    /* After MPI_Finalize only these queries may be called. */
    int post_errs = 0;
    flag = -1;
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 1) {
        printf("[rank %d] FAIL MPI_Finalized after MPI_Finalize: flag %d\n", mt_rank, flag);
        post_errs++;
    }
    flag = -1;
    if (MPI_Initialized(&flag) != MPI_SUCCESS || flag != 1) {
        printf("[rank %d] FAIL MPI_Initialized after MPI_Finalize: flag %d\n", mt_rank, flag);
        post_errs++;
    }
    if (MPI_Get_version(&version, &subversion) != MPI_SUCCESS || version != MPI_VERSION) {
        printf("[rank %d] FAIL MPI_Get_version after MPI_Finalize\n", mt_rank);
        post_errs++;
    }
    if (mt_rank == 0 && total == 0 && post_errs == 0)
        printf("No Errors\n");
    else if (mt_rank == 0)
        printf("Found %d errors\n", total + post_errs);
    return total + post_errs != 0;
}
