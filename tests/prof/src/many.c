/* Many small calls, for the trace's size cap, a full disk and a killed rank
 * (tests/prof/cap.sh, enospc.sh, killed.sh).
 * usage: many ITERATIONS [KILL_AT]   each iteration: a message to the next rank and one from
 * the previous (MPI_Sendrecv), and an MPI_Allreduce; with KILL_AT, rank 1 sends itself SIGKILL
 * at that iteration, after a pause that lets the recorder's writer flush what it has. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1000, kill_at = argc > 2 ? atol(argv[2]) : -1;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (long i = 0; i < n; i++) {
        int out = (int)i, in = 0, sum = 0;
        MPI_Sendrecv(&out, 1, MPI_INT, next, 1, &in, 1, MPI_INT, prev, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (i == kill_at && rank == 1) {
            struct timespec ts = {1, 0}; /* the writer flushes every 200 ms */
            nanosleep(&ts, NULL);
            kill(getpid(), SIGKILL);
        }
    }
    if (rank == 0)
        printf("many done\n");
    MPI_Finalize();
    return 0;
}
