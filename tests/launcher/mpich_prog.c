/* An MPI program built with MPICH's mpicc (mpicc.mpich), run under Ferry's mpiexec to check
 * that the launcher serves what MPICH's own PMI-1 client needs.
 *
 *   mpich_prog hello      allreduce, bcast, barrier; rank 0 prints "No Errors"
 *   mpich_prog abort N    rank 1 (or 0 when alone) calls MPI_Abort(MPI_COMM_WORLD, N)
 *   mpich_prog spawn      MPI_Comm_spawn must fail with an error, not hang
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "hello";
    int rank, size, errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (strcmp(mode, "hello") == 0) {
        int sum = 0, token = rank == 0 ? 4242 : 0, *usize, flag = 0;
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &usize, &flag);
        if (sum != size * (size - 1) / 2 || token != 4242 || !flag || *usize != size) {
            printf("rank %d: sum %d token %d universe %d\n", rank, sum, token, flag ? *usize : -1);
            errors++;
        }
        printf("hello from rank %d of %d\n", rank, size);
    } else if (strcmp(mode, "abort") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == (size > 1 ? 1 : 0))
            MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 1);
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait here until killed */
    } else if (strcmp(mode, "spawn") == 0) {
        MPI_Comm child;
        int errcode = 0;
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child,
                                &errcode);
        if (rc == MPI_SUCCESS) {
            printf("rank %d: spawn unexpectedly succeeded\n", rank);
            errors++;
        }
    }
    MPI_Finalize();
    if (errors == 0 && rank == 0)
        printf("No Errors\n");
    return errors != 0;
}
