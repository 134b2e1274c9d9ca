#!/usr/bin/env -S ferry run -n 4 -I matrixmultiply -L matrixmultiply -lmatrixmultiply
/* C = A * B, rows of A scattered over the ranks, B broadcast, each block multiplied by the
 * precompiled matrixmultiply() of examples/matrixmultiply/ (make -C matrixmultiply first), the
 * rows of C gathered on rank 0, which checks them against the exact product of these integer
 * matrices. Run from examples/: `./mm_parallel.c [N]`, or from anywhere:
 *   ferry run -n 4 -I DIR -L LIBDIR -lmatrixmultiply mm_parallel.c [N]
 * (the #! line's -I and -L are relative to the directory ferry run is started in). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "matrixmultiply.h"

int main(int argc, char **argv)
{
    int rank, size, n = 256;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && atoi(argv[1]) > 0)
        n = atoi(argv[1]);
    /* Rows per rank; the last ranks may get one fewer. */
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
    for (int r = 0, off = 0; r < size; r++) {
        int rows = n / size + (r < n % size);
        counts[r] = rows * n;
        displs[r] = off;
        off += counts[r];
    }
    int myrows = counts[rank] / n;
    double *a = NULL, *c = NULL, *b = malloc(sizeof(double) * n * n);
    double *mya = malloc(sizeof(double) * (myrows ? myrows : 1) * n);
    double *myc = malloc(sizeof(double) * (myrows ? myrows : 1) * n);
    if (rank == 0) {
        a = malloc(sizeof(double) * n * n);
        c = malloc(sizeof(double) * n * n);
        /* Small integers: every product is exact in double, so the check can be exact. */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                a[i * n + j] = (i + j) % 7 - 3;
                b[i * n + j] = (i * 3 + j) % 5 - 2;
            }
    }
    MPI_Scatterv(a, counts, displs, MPI_DOUBLE, mya, counts[rank], MPI_DOUBLE, 0,
                 MPI_COMM_WORLD);
    MPI_Bcast(b, n * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    matrixmultiply(myrows, n, n, mya, b, myc);
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Gatherv(myc, counts[rank], MPI_DOUBLE, c, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        long bad = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++)
                    s += a[i * n + k] * b[k * n + j];
                bad += s != c[i * n + j];
            }
        printf("C = A * B, %d x %d on %d ranks: %s (%.3f s in matrixmultiply)\n", n, n, size,
               bad ? "WRONG" : "correct", tmax);
        free(a);
        free(c);
        if (bad)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(mya);
    free(myc);
    free(b);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
