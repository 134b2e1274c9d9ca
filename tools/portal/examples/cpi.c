/* Parallel pi: integrate 4/(1+x^2) over [0,1] with the midpoint rule. The intervals are dealt
 * round-robin to the ranks; the partial sums are reduced to rank 0, which prints pi and its
 * error. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    const double PI25DT = 3.141592653589793238462643;
    int rank, size, n = 10000000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double t0 = MPI_Wtime();
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double h = 1.0 / n, sum = 0.0;
    for (int i = rank + 1; i <= n; i += size) {
        double x = h * (i - 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    double mypi = h * sum, pi;
    MPI_Reduce(&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pi is approximately %.16f, error %.16f (%d intervals, %d ranks, %.3f s)\n", pi,
               fabs(pi - PI25DT), n, size, MPI_Wtime() - t0);
    MPI_Finalize();
    return 0;
}
