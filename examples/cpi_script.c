#!/usr/bin/env -S ferry run -n 4
/* Parallel pi as a script: `chmod +x cpi_script.c; ./cpi_script.c [intervals]` compiles it on
 * the first run (ferry run caches the binary) and runs it on 4 ranks; `ferry run -n 8
 * cpi_script.c 1000` chooses another count. The #! line is blanked for the compiler, so the
 * line numbers of its messages are this file's. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = 10000000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0 && argc > 1)
        n = atoi(argv[1]) > 0 ? atoi(argv[1]) : n;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    /* Midpoint rule for the integral of 4/(1+x^2) over [0,1]; intervals dealt round-robin. */
    double h = 1.0 / n, sum = 0.0;
    for (int i = rank + 1; i <= n; i += size) {
        double x = h * (i - 0.5);
        sum += 4.0 / (1.0 + x * x);
    }
    double mine = h * sum, pi = 0.0;
    MPI_Reduce(&mine, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("pi is approximately %.16f, error %.2e (%d intervals, %d ranks)\n", pi,
               fabs(pi - 3.141592653589793238462643), n, size);
    MPI_Finalize();
    return 0;
}
