/*
 * matmul.c - master/worker dense matrix multiply C = A B (N x N doubles).
 *
 * Rank 0 (the master) builds A and B. B goes to every rank with MPI_Bcast.
 * A is cut into blocks of `rows` rows; the master hands one block to each
 * worker, and whenever a worker returns its block of C it gets the next
 * block (on demand, so faster workers do more), until a stop message.
 * Every message is one array of doubles whose first element is the block
 * index (-1 = stop), then the rows; the master receives results with
 * MPI_ANY_SOURCE. With one rank the master multiplies alone. The master
 * does not compute when it has workers (the classic scheme), so 2 ranks
 * are expected to run about as fast as 1.
 *
 * Time: from a barrier before the Bcast of B until the master holds all of C.
 *
 * Verification (rank 0, after timing): for a random vector x,
 * C x must equal A (B x) (Freivalds' identity, O(N^2)) to a relative error
 * of 1e-12 in the max norm; and row 0 and row N-1 of C are recomputed
 * directly.
 *
 * Usage: matmul [-m] [-q] [-n N] [-k rows_per_task]
 *   -m   machine-readable RESULT lines
 *   -q   quick: N = 1100 (about 1 s at 1 rank)
 *   -n   matrix order (default 2000)
 *   -k   rows per task (default: about 4 tasks per worker, at least 1)
 */
#include "apps_common.h"

#define TAG_TASK 11
#define TAG_RESULT 12

/* c[r][:] = a[r][:] B for `nrows` rows; i-k-j order so the inner loop streams. */
static void multiply_rows(int n, int nrows, const double *a, const double *b, double *c)
{
    for (int r = 0; r < nrows; r++) {
        double *cr = c + (size_t)r * n;
        for (int j = 0; j < n; j++)
            cr[j] = 0.0;
        for (int k = 0; k < n; k++) {
            const double ark = a[(size_t)r * n + k];
            const double *bk = b + (size_t)k * n;
            for (int j = 0; j < n; j++)
                cr[j] += ark * bk[j];
        }
    }
}

static int block_rows(int n, int rows, int blk)
{
    int lo = blk * rows;
    return lo + rows <= n ? rows : n - lo;
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "matmul");
    if (app_parse(argc, argv, "[-m] [-q] [-n N] [-k rows_per_task]", &o)) {
        MPI_Finalize();
        return 2;
    }
    int n = (int)(o.n ? o.n : (o.quick ? 1100 : 2000));
    int workers = app_size - 1;
    int rows = (int)(o.k ? o.k : (workers > 0 ? (n + 4 * workers - 1) / (4 * workers) : n));
    if (rows < 1)
        rows = 1;
    if (rows > n)
        rows = n;
    int nblocks = (n + rows - 1) / rows;
    size_t nn = (size_t)n * n;
    double *b = app_alloc(nn * sizeof(double));
    double *a = NULL, *c = NULL;
    double *msg = app_alloc(((size_t)rows * n + 1) * sizeof(double));
    double *out = app_alloc(((size_t)rows * n + 1) * sizeof(double));
    double t0 = 0, t1 = 0;
    int ok = 1;

    if (app_rank == 0) {
        a = app_alloc(nn * sizeof(double));
        c = app_alloc(nn * sizeof(double));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                a[(size_t)i * n + j] = app_rand2(1, (uint64_t)i * n + j);
                b[(size_t)i * n + j] = app_rand2(2, (uint64_t)i * n + j);
            }
    }

    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t0 = MPI_Wtime();
    APP_CHECK(MPI_Bcast(b, n * n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (app_rank == 0 && workers == 0) {
        multiply_rows(n, n, a, b, c);
    } else if (app_rank == 0) {
        int next = 0, active = 0;
        for (int w = 1; w <= workers; w++) { /* one block to each worker, or stop */
            if (next < nblocks) {
                int nr = block_rows(n, rows, next);
                msg[0] = next;
                memcpy(msg + 1, a + (size_t)next * rows * n, (size_t)nr * n * sizeof(double));
                APP_CHECK(MPI_Send(msg, nr * n + 1, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD));
                next++;
                active++;
            } else {
                msg[0] = -1;
                APP_CHECK(MPI_Send(msg, 1, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD));
            }
        }
        while (active > 0) {
            MPI_Status st;
            APP_CHECK(MPI_Recv(out, rows * n + 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT,
                               MPI_COMM_WORLD, &st));
            int blk = (int)out[0], cnt = 0;
            APP_CHECK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
            if (blk < 0 || blk >= nblocks || cnt != block_rows(n, rows, blk) * n + 1) {
                fprintf(stderr, "matmul: bad result message (block %d, %d doubles)\n", blk, cnt);
                ok = 0;
            } else {
                memcpy(c + (size_t)blk * rows * n, out + 1, (size_t)(cnt - 1) * sizeof(double));
            }
            active--;
            int w = st.MPI_SOURCE;
            if (next < nblocks) {
                int nr = block_rows(n, rows, next);
                msg[0] = next;
                memcpy(msg + 1, a + (size_t)next * rows * n, (size_t)nr * n * sizeof(double));
                APP_CHECK(MPI_Send(msg, nr * n + 1, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD));
                next++;
                active++;
            } else {
                msg[0] = -1;
                APP_CHECK(MPI_Send(msg, 1, MPI_DOUBLE, w, TAG_TASK, MPI_COMM_WORLD));
            }
        }
    } else {
        for (;;) {
            MPI_Status st;
            int cnt = 0;
            APP_CHECK(MPI_Recv(msg, rows * n + 1, MPI_DOUBLE, 0, TAG_TASK, MPI_COMM_WORLD, &st));
            APP_CHECK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
            if (msg[0] < 0)
                break;
            int nr = (cnt - 1) / n;
            out[0] = msg[0];
            multiply_rows(n, nr, msg + 1, b, out + 1);
            APP_CHECK(MPI_Send(out, nr * n + 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD));
        }
    }
    t1 = MPI_Wtime();
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    if (app_rank == 0) {
        /* Freivalds: C x == A (B x). */
        double *x = app_alloc((size_t)n * sizeof(double));
        double *bx = app_alloc((size_t)n * sizeof(double));
        double maxerr = 0.0, maxval = 0.0;
        for (int j = 0; j < n; j++)
            x[j] = app_rand2(3, (uint64_t)j);
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++)
                s += b[(size_t)i * n + j] * x[j];
            bx[i] = s;
        }
        for (int i = 0; i < n; i++) {
            double cx = 0.0, abx = 0.0;
            for (int j = 0; j < n; j++) {
                cx += c[(size_t)i * n + j] * x[j];
                abx += a[(size_t)i * n + j] * bx[j];
            }
            maxerr = fmax(maxerr, fabs(cx - abx));
            maxval = fmax(maxval, fabs(abx));
        }
        double rel = maxerr / (maxval > 0 ? maxval : 1.0);
        /* Two rows recomputed entry by entry. */
        double rowerr = 0.0;
        int check_rows[2] = {0, n - 1};
        for (int t = 0; t < 2; t++) {
            int i = check_rows[t];
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int k = 0; k < n; k++)
                    s += a[(size_t)i * n + k] * b[(size_t)k * n + j];
                rowerr = fmax(rowerr, fabs(s - c[(size_t)i * n + j]));
            }
        }
        if (!(rel < 1e-12) || !(rowerr < 1e-10))
            ok = 0;
        app_note(&o, "matmul: N=%d rows/task=%d tasks=%d Freivalds rel.err=%.2e row err=%.2e", n,
                 rows, nblocks, rel, rowerr);
        double secs = t1 - t0;
        char extra[160];
        snprintf(extra, sizeof extra, " gflops=%.3f rows_per_task=%d tasks=%d",
                 2.0 * n * (double)n * n / secs * 1e-9, rows, nblocks);
        app_report(&o, n, secs, ok, extra);
        free(x);
        free(bx);
    }
    free(a);
    free(b);
    free(c);
    free(msg);
    free(out);
    MPI_Finalize();
    return ok ? 0 : 1;

unsupported:
    app_report_unsupported(&o, n, "");
    MPI_Finalize();
    return 0;
}
