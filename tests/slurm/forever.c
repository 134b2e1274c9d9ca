/* A job that runs until it is ended from outside (tests/slurm/scancel.sh, nodefail.sh): every
 * rank says where it runs once all are in MPI, then they loop over an Allreduce with a short
 * sleep, so that at any moment ranks are inside MPI waiting for each other. With the argument
 * "talk", each rank also sends to the rank half the job away (on another host at 2 x 2) before
 * its sleep and receives after it, so that data lies unread in the ranks' TCP sockets most of
 * the time: a rank killed then makes its peers' connections fail (reset) rather than close.
 * Each rank says "looping" after 50 rounds. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, len, one = 1, sum, out = 0, in;
    int talk = argc > 1 && strcmp(argv[1], "talk") == 0;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ready %d %s\n", rank, host);
    fflush(stdout);
    int to = (rank + size / 2) % size, from = (rank + size - size / 2) % size;
    for (long i = 1;; i++) {
        MPI_Request req = MPI_REQUEST_NULL;
        if (talk)
            MPI_Isend(&out, 1, MPI_INT, to, 0, MPI_COMM_WORLD, &req);
        usleep(10000);
        if (talk) {
            MPI_Recv(&in, 1, MPI_INT, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (sum != size) {
            printf("rank %d: sum %d, expected %d\n", rank, sum, size);
            return 1;
        }
        if (i == 50) { /* steady: the exchanges of "talk" are under way */
            printf("looping %d\n", rank);
            fflush(stdout);
        }
    }
}
