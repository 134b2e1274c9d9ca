/* The profiling interface: this program defines its own MPI_Send and MPI_Recv, which count
 * calls and forward to PMPI_Send and PMPI_Recv. The wrappers must see every call the program
 * makes, and none of the library's own traffic (collectives, Sendrecv).
 *
 * Rank 0 prints "No Errors" when the count on every rank is what the program expects.
 */
#include <mpi.h>
#include <stdio.h>

static int send_calls;
static int send_bytes;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int size = 0;
    send_calls++;
    PMPI_Type_size(type, &size);
    send_bytes += count * size;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

/* A wrapper for a second function, reached from a collective: the library's Bcast must not
 * go through the user's MPI_Recv either. */
static int recv_calls;

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    recv_calls++;
    return PMPI_Recv(buf, count, type, src, tag, comm, status);
}

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int v[8] = {0};
    const int rounds = 3;
    for (int i = 0; i < rounds; i++) {
        if (rank == 0) {
            for (int dst = 1; dst < size; dst++)
                MPI_Send(v, 8, MPI_INT, dst, i, MPI_COMM_WORLD);
        } else {
            MPI_Recv(v, 8, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    /* Collectives and Sendrecv are implemented inside the library; none of their traffic may
     * reach the wrappers above. */
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(v, 8, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 50, &got, 1, MPI_INT, left, 50, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (got != left || sum != size * (size - 1) / 2) {
        printf("rank %d: wrong results: Sendrecv got %d, Allreduce %d\n", rank, got, sum);
        errs++;
    }

    int want_sends = rank == 0 ? rounds * (size - 1) : 0;
    int want_recvs = rank == 0 ? 0 : rounds;
    if (send_calls != want_sends || send_bytes != want_sends * 8 * 4 || recv_calls != want_recvs) {
        printf("rank %d: MPI_Send wrapper saw %d calls (%d bytes), MPI_Recv wrapper %d calls; "
               "expected %d, %d and %d\n",
               rank, send_calls, send_bytes, recv_calls, want_sends, want_sends * 32, want_recvs);
        errs++;
    }
    fflush(stdout);
    int total = 0;
    PMPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && total == 0)
        printf("No Errors\n");
    MPI_Finalize();
    return total != 0;
}
