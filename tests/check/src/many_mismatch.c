/* Wrong on purpose, once among many right messages (more than one batch of the log scheme):
 * message 300 of 600 is sent as 3 x MPI_SHORT and received as 3 x MPI_INT; the receives are
 * posted ahead and completed out of order, some with wildcards. */
#include <mpi.h>

#define N 600

int main(int argc, char **argv)
{
    int rank;
    static int in[N][3], out[N][3];
    static short s[3];
    MPI_Request r[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < N; i += 4) {
        if (rank == 0) {
            for (int k = 0; k < 4; k++)
                if (i + k == 300)
                    MPI_Isend(s, 3, MPI_SHORT, 1, k, MPI_COMM_WORLD, &r[k]); /* ISEND */
                else
                    MPI_Isend(out[i + k], 3, MPI_INT, 1, k, MPI_COMM_WORLD, &r[k]);
            MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
        } else if (rank == 1) {
            MPI_Irecv(in[i], 3, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]); /* IRECV */
            MPI_Irecv(in[i + 1], 3, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &r[1]);
            MPI_Irecv(in[i + 2], 3, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r[2]);
            MPI_Irecv(in[i + 3], 3, MPI_INT, 0, 3, MPI_COMM_WORLD, &r[3]);
            for (int k = 3; k >= 0; k--)
                MPI_Wait(&r[k], MPI_STATUS_IGNORE);
        }
    }
    MPI_Finalize();
    return 0;
}
