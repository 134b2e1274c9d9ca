/* A correct program that is merely slow, for mpiexec --check's deadlock watch (which must not
 * report it): rank 0 computes for 3 s while the others wait in MPI_Recv and MPI_Bcast from it;
 * then large messages around a ring (rendezvous transfers that take a while with 8 ranks on 2
 * cores), synchronous sends between pairs, and an MPI_Waitall on both. Prints "No Errors". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (8 << 20) /* bytes per ring message */

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Rank 0 busy; the others blocked on it. */
    int token = 0;
    if (rank == 0) {
        double t0 = MPI_Wtime(), x = 0;
        while (MPI_Wtime() - t0 < 3)
            for (int i = 0; i < 100000; i++)
                x += i * 1e-9;
        token = x > 0 ? 42 : 41;
        for (int r = 1; r < size; r++)
            MPI_Send(&token, 1, MPI_INT, r, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    errs += token != 42;
    MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);

    /* Big messages around the ring, several times. */
    char *out = malloc(BIG), *in = malloc(BIG);
    memset(out, rank & 0xff, BIG);
    for (int round = 0; round < 3; round++) {
        MPI_Request rq[2];
        MPI_Irecv(in, BIG, MPI_CHAR, (rank + size - 1) % size, 1, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(out, BIG, MPI_CHAR, (rank + 1) % size, 1, MPI_COMM_WORLD, &rq[1]);
        MPI_Status st[2];
        MPI_Waitall(2, rq, st);
        errs += in[BIG - 1] != (char)(((rank + size - 1) % size) & 0xff);
        MPI_Sendrecv(out, BIG, MPI_CHAR, (rank + 1) % size, 2, in, BIG, MPI_CHAR,
                     (rank + size - 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    /* Synchronous sends between pairs: the lower rank sends first. */
    int peer = rank ^ 1;
    if (peer < size) {
        if (rank < peer) {
            MPI_Ssend(out, 1 << 20, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
            MPI_Recv(in, 1 << 20, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, 1 << 20, MPI_CHAR, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Ssend(out, 1 << 20, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
        }
    }
    free(out);
    free(in);
    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "Found %d errors\n" : "No Errors\n", all);
    MPI_Finalize();
    return 0;
}
