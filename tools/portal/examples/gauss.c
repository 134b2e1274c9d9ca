/* Gaussian elimination with partial pivoting, solving A x = b for a random N x N system.
 * Rows are dealt to the ranks cyclically (row i on rank i mod P) so the work stays balanced
 * as the matrix shrinks. At step k the ranks agree on the pivot row (MPI_Allreduce with
 * MPI_MAXLOC), the pivot and row k trade places, the pivot row is broadcast and every rank
 * eliminates its rows below k. Rank 0 then collects the triangle, solves by back
 * substitution and broadcasts x. Iterative refinement follows: r = b - A x, solve A d = r,
 * x += d; gauss.csv records the relative residual ||b - A x|| / ||b|| after each step.
 * Arguments: [N] [refinement steps] (default 300 and 3). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n, rank, size;

static double entry(int i, int j) /* A's entries in [-1, 1), the same on every rank */
{
    unsigned long long h = (unsigned long long)i * 2654435761u + (unsigned long long)j * 40503u + 7;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (double)(h % 2000001) / 1000000.0 - 1.0;
}

/* Solves A d = r (every rank gets d). a: this rank's rows, n + 1 wide (the last column is
 * the right-hand side), filled here from entry() and r. */
static void solve(const double *r, double *d, double *a, double *row)
{
    const int w = n + 1;
    int mine = 0;
    for (int i = rank; i < n; i += size, mine++) {
        for (int j = 0; j < n; j++)
            a[(size_t)mine * w + j] = entry(i, j);
        a[(size_t)mine * w + n] = r[i];
    }
    /* local row of global row i (i mod size == rank): i / size */
    for (int k = 0; k < n; k++) {
        struct {
            double v;
            int i;
        } best = {-1.0, -1}, piv;
        for (int i = k + ((rank - k % size + size) % size); i < n; i += size) {
            double v = fabs(a[(size_t)(i / size) * w + k]);
            if (v > best.v) {
                best.v = v;
                best.i = i;
            }
        }
        MPI_Allreduce(&best, &piv, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
        int p = piv.i, ok = k % size, op = p % size;
        /* The pivot row to everyone; row k's old content goes to where the pivot was. */
        if (rank == op)
            memcpy(row, a + (size_t)(p / size) * w, sizeof(double) * w);
        MPI_Bcast(row, w, MPI_DOUBLE, op, MPI_COMM_WORLD);
        if (p != k) {
            if (rank == ok && rank == op) {
                memcpy(a + (size_t)(p / size) * w, a + (size_t)(k / size) * w, sizeof(double) * w);
            } else if (rank == ok) {
                MPI_Send(a + (size_t)(k / size) * w, w, MPI_DOUBLE, op, 1, MPI_COMM_WORLD);
            } else if (rank == op) {
                MPI_Recv(a + (size_t)(p / size) * w, w, MPI_DOUBLE, ok, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            }
            if (rank == ok)
                memcpy(a + (size_t)(k / size) * w, row, sizeof(double) * w);
        }
        for (int i = k + 1 + ((rank - (k + 1) % size + size) % size); i < n; i += size) {
            double *ri = a + (size_t)(i / size) * w;
            double l = ri[k] / row[k];
            for (int j = k; j < w; j++)
                ri[j] -= l * row[j];
        }
    }
    /* The triangle to rank 0, one row at a time; back substitution there. */
    if (rank == 0) {
        double *u = malloc(sizeof(double) * (size_t)n * w);
        for (int i = 0; i < n; i++) {
            if (i % size == 0)
                memcpy(u + (size_t)i * w, a + (size_t)(i / size) * w, sizeof(double) * w);
            else
                MPI_Recv(u + (size_t)i * w, w, MPI_DOUBLE, i % size, 2, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
        for (int i = n - 1; i >= 0; i--) {
            double s = u[(size_t)i * w + n];
            for (int j = i + 1; j < n; j++)
                s -= u[(size_t)i * w + j] * d[j];
            d[i] = s / u[(size_t)i * w + i];
        }
        free(u);
    } else {
        for (int i = rank; i < n; i += size)
            MPI_Send(a + (size_t)(i / size) * w, w, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Bcast(d, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 300;
    int steps = argc > 2 ? atoi(argv[2]) : 3;
    if (n < 2)
        n = 2;
    double *a = malloc(sizeof(double) * ((size_t)(n + size - 1) / size) * (n + 1));
    double *row = malloc(sizeof(double) * (n + 1));
    double *b = malloc(sizeof(double) * n), *x = calloc(n, sizeof(double));
    double *r = malloc(sizeof(double) * n), *d = malloc(sizeof(double) * n);
    double bnorm = 0.0;
    for (int i = 0; i < n; i++) {
        b[i] = entry(i, n);
        bnorm += b[i] * b[i];
    }
    bnorm = sqrt(bnorm);
    FILE *f = rank == 0 ? fopen("gauss.csv", "w") : NULL;
    if (f)
        fprintf(f, "step,residual\n");
    double t0 = MPI_Wtime();
    memcpy(r, b, sizeof(double) * n);
    for (int step = 0; step <= steps; step++) {
        solve(r, d, a, row);
        for (int i = 0; i < n; i++)
            x[i] += d[i];
        /* r = b - A x, in long double on rank 0's behalf: every rank computes it the same. */
        double rn = 0.0;
        for (int i = 0; i < n; i++) {
            long double s = b[i];
            for (int j = 0; j < n; j++)
                s -= (long double)entry(i, j) * x[j];
            r[i] = (double)s;
            rn += r[i] * r[i];
        }
        double res = sqrt(rn) / bnorm;
        if (rank == 0) {
            printf("step %d: relative residual %.3e\n", step, res);
            if (f)
                fprintf(f, "%d,%.6e\n", step, res);
        }
    }
    if (rank == 0)
        printf("solved N = %d on %d ranks in %.3f s; x[0] = %.12f\n", n, size,
               MPI_Wtime() - t0, x[0]);
    if (f)
        fclose(f);
    free(a);
    free(row);
    free(b);
    free(x);
    free(r);
    free(d);
    MPI_Finalize();
    return 0;
}
