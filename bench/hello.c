/*
 * hello.c - the smallest complete MPI job: MPI_Init, one MPI_Barrier, MPI_Finalize. bench/hosts.sh
 * and bench/startup.sh time whole launches of it (mpiexec start to exit) as the startup time of a
 * job. With -m rank 0 prints one RESULT line: value = the ranks that met in the barrier, ready_ns =
 * the machine's real-time clock (ns) when rank 0 left it, so that a harness on the same machine
 * (the test hosts share one kernel and its clock) can tell the time to a job whose every rank has
 * passed MPI_Init from the time of the whole launch.
 *
 * With -t FILE every rank also appends one line "rank init_start init_end fin_start fin_end" (the
 * real-time clock in ns around its MPI_Init and its MPI_Finalize) to FILE, in one write(2) with
 * O_APPEND so that the lines of concurrent ranks do not mix. The time inside MPI_Finalize can only
 * be known after it, when the ranks can no longer talk: the harness (bench/startup.sh) reduces
 * the file. The real-time clock, not the monotonic one: the test hosts are namespaces of one
 * kernel, and either clock is then one clock, but the harness's own stamps are real-time.
 */
#define _POSIX_C_SOURCE 200112L
#include "bench_common.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const char *times = NULL;
    int measure = 0;
    for (int i = 1; i < argc; i++) { /* before MPI_Init: its start is what -t times */
        if (strcmp(argv[i], "-m") == 0)
            measure = 1;
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            times = argv[++i];
    }
    long long init0 = now_ns();
    MPI_Init(&argc, &argv);
    long long init1 = now_ns();
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    long long ready = now_ns();
    if (rank == 0 && measure)
        printf("RESULT bench=hello ranks=%d size=0 value=%d unit=ranks status=ok ready_ns=%lld\n",
               size, size, ready);
    long long fin0 = now_ns();
    bench_finalize(rank);
    long long fin1 = now_ns();
    if (times) {
        char line[128];
        int len = snprintf(line, sizeof line, "%d %lld %lld %lld %lld\n", rank, init0, init1, fin0,
                           fin1);
        int fd = open(times, O_WRONLY | O_APPEND | O_CREAT, 0644);
        if (fd < 0 || write(fd, line, (size_t)len) != len)
            fprintf(stderr, "hello: rank %d cannot write its times to %s\n", rank, times);
        if (fd >= 0)
            close(fd);
    }
    return 0;
}
