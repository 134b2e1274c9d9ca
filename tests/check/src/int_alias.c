/* C integer types of one size and signedness are one representation: long long sent, long or
 * int64_t received (what mpi4py does with a NumPy/DLPack buffer it knows as "<i8"), int sent as
 * int32_t, in point-to-point and in a collective. No report. With the argument "sign", a long
 * sent is received as unsigned long: still a type mismatch (another representation). */
#include <mpi.h>
#include <stdint.h>
#include <string.h>

int main(int argc, char **argv)
{
    int sign = argc > 1 && strcmp(argv[1], "sign") == 0;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long q[3] = {1, 2, 3};
    long l[3];
    int64_t i64[3];
    int i[2] = {4, 5};
    int32_t i32[2];
    int peer = size > 1 ? 1 - rank : 0;
    if (rank < 2) {
        MPI_Sendrecv(q, 3, MPI_LONG_LONG, peer, 0, l, 3, MPI_LONG, peer, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(q, 3, MPI_LONG_LONG, peer, 1, i64, 3, MPI_INT64_T, peer, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(i, 2, MPI_INT32_T, peer, 2, i32, 2, MPI_INT, peer, 2, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (sign) {
            unsigned long ul[3];
            MPI_Sendrecv(l, 3, MPI_LONG, peer, 3, ul, 3, MPI_UNSIGNED_LONG, peer, 3, /* SIGN */
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    /* the same reduction, named differently on different ranks */
    long long s = rank, t = 0;
    MPI_Allreduce(&s, &t, 1, rank % 2 ? MPI_INT64_T : MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return l[2] == 3 && i64[0] == 1 && i32[1] == 5 && t == (long long)size * (size - 1) / 2 ? 0 : 1;
}
