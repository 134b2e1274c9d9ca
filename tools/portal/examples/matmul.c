/* Matrix multiply C = A B (N x N doubles) by blocks of rows: rank 0 makes A and B, scatters
 * A's rows, broadcasts B; every rank computes its rows of C; rank 0 gathers C, checks it
 * against the exact result (A and B are chosen so that C is known in closed form) and
 * writes the row sums of C to matmul.csv.
 * Arguments: [N] (default 400; rounded up to a multiple of the number of ranks). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 400;
    if (n < size)
        n = size;
    n = (n + size - 1) / size * size;
    int rows = n / size;
    double *a = NULL, *c = NULL;
    double *b = malloc(sizeof(double) * n * n);
    double *la = malloc(sizeof(double) * rows * n), *lc = malloc(sizeof(double) * rows * n);
    if (rank == 0) {
        a = malloc(sizeof(double) * n * n);
        c = malloc(sizeof(double) * n * n);
        /* A(i,j) = i + 1, B(i,j) = 1 / n: then C(i,j) = i + 1 exactly (up to rounding). */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                a[(size_t)i * n + j] = i + 1;
                b[(size_t)i * n + j] = 1.0 / n;
            }
    }
    double t0 = MPI_Wtime();
    MPI_Scatter(a, rows * n, MPI_DOUBLE, la, rows * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Bcast(b, n * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++)
                s += la[(size_t)i * n + k] * b[(size_t)k * n + j];
            lc[(size_t)i * n + j] = s;
        }
    MPI_Gather(lc, rows * n, MPI_DOUBLE, c, rows * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    printf("rank %d computed rows %d to %d\n", rank, rank * rows, (rank + 1) * rows - 1);
    if (rank == 0) {
        double err = 0.0;
        FILE *f = fopen("matmul.csv", "w");
        if (f)
            fprintf(f, "row,sum\n");
        for (int i = 0; i < n; i++) {
            double sum = 0.0;
            for (int j = 0; j < n; j++) {
                double e = fabs(c[(size_t)i * n + j] - (i + 1));
                if (e > err)
                    err = e;
                sum += c[(size_t)i * n + j];
            }
            if (f)
                fprintf(f, "%d,%.6g\n", i, sum);
        }
        if (f)
            fclose(f);
        printf("C = A B with N = %d on %d ranks: %.3f s, %.2f GFLOP/s, max error %.2e %s\n", n,
               size, t, 2.0 * n * n * (double)n / t / 1e9, err, err < 1e-9 * n ? "ok" : "WRONG");
    }
    free(a);
    free(b);
    free(c);
    free(la);
    free(lc);
    MPI_Finalize();
    return 0;
}
