/*
 * bench_common.h - small helpers shared by the Ferry benchmarks.
 *
 * Everything here is standard C11 plus POSIX and MPI (what needs no MPI is in
 * bench_opt.h); the benchmarks must build unchanged against Ferry, MPICH and
 * Open MPI. Helpers are static inline so each benchmark stays a single
 * translation unit.
 */
#ifndef FY_BENCH_COMMON_H
#define FY_BENCH_COMMON_H

#include <mpi.h>

#include "bench_opt.h"

#define BENCH_ALIGN 4096

/* Page-aligned, zero-filled (so every page is touched before timing) buffer;
 * aborts the job on failure: a benchmark cannot do anything useful without it. */
static inline void *bench_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0)
        bytes = 1;
    if (posix_memalign(&p, BENCH_ALIGN, bytes) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, 0, bytes);
    return p;
}

/* Prints the first line of the MPI library's self-description, prefixed
 * with "# " so that machine-readable output stays parseable. */
static inline void bench_print_library(void)
{
#if defined(MPI_VERSION) && MPI_VERSION >= 3
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(text, &len) == MPI_SUCCESS) {
        text[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] =
            '\0';
        text[strcspn(text, "\r\n")] = '\0';
        printf("# MPI library: %s\n", text);
    }
#endif
}

/* Ends a job that measured: rank 0 first prints "# bench: finalizing" (flushed), so that a
 * harness can tell a job that hangs in MPI_Finalize with all its results printed (bench/hosts.sh
 * has seen MPICH over UCX's TCP do so now and then) from one that never finished. */
static inline void bench_finalize(int rank)
{
    if (rank == 0) {
        printf("# bench: finalizing\n");
        fflush(stdout);
    }
    MPI_Finalize();
}

/* Stops the whole job with a message from rank 0 (usage errors and the like). */
static inline void bench_die(int rank, const char *msg)
{
    if (rank == 0)
        fprintf(stderr, "%s\n", msg);
    MPI_Finalize();
    exit(1);
}

#endif /* FY_BENCH_COMMON_H */
