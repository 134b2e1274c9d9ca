/* A rank hanging in MPI_Recv, for a bounded while (tests/monitor/*.sh): rank 0 computes until
 * the file argv[1] exists (the test creates it once it has seen what it looks for), then sends
 * to rank 1, which waits in MPI_Recv all that time. The other ranks wait in MPI_Barrier. Rank
 * 0 writes FERRY_MONITOR_ADDR to argv[2] if given (for the test's client without the key), rank 1
 * its pid to GO_FILE.rank1 (for a test that kills it); rank 0 prints a line when GO_FILE.say
 * appears (output between the monitor's blocks). It gives up after 100 s without the file
 * (the test has failed by then). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2+ hang GO_FILE [ADDR_FILE]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0) {
        if (argc > 2) {
            const char *a = getenv("FERRY_MONITOR_ADDR");
            FILE *f = fopen(argv[2], "w");
            if (f != NULL) {
                fprintf(f, "%s\n", a ? a : "");
                fclose(f);
            }
        }
        int waited = 0, said = 0;
        char say[4096];
        snprintf(say, sizeof(say), "%s.say", argv[1]);
        while (access(argv[1], F_OK) != 0) {
            if (!said && access(say, F_OK) == 0) {
                printf("said by rank 0\n");
                fflush(stdout);
                said = 1;
            }
            struct timespec ts = {0, 20 * 1000 * 1000};
            nanosleep(&ts, NULL);
            if (++waited > 100 * 50) {
                fprintf(stderr, "hang: %s never appeared\n", argv[1]);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
        }
        v = 42;
        MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        char path[4096];
        snprintf(path, sizeof(path), "%s.rank1", argv[1]);
        FILE *f = fopen(path, "w");
        if (f != NULL) {
            fprintf(f, "%ld\n", (long)getpid());
            fclose(f);
        }
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1 && v != 42)
        fprintf(stderr, "hang: rank 1 received %d\n", v);
    MPI_Finalize();
    return rank == 1 && v != 42;
}
