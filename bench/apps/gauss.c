/*
 * gauss.c - Gaussian elimination with partial pivoting, solving A x = b
 * (N x N doubles, random entries in [-1, 1), so pivoting really swaps rows),
 * in three partitionings of the augmented matrix [A | b]:
 *
 *   -p rows    blocks of consecutive rows. Step k: every rank finds its
 *              largest |a(i,k)|, i >= k; MPI_Allreduce(MPI_MAXLOC,
 *              MPI_DOUBLE_INT) picks the pivot row p; rows k and p are
 *              swapped (MPI_Sendrecv_replace when two ranks own them); the
 *              owner of row k broadcasts it (MPI_Bcast) and every rank
 *              eliminates its own rows below k. Ranks holding the top rows
 *              run out of work early: the load imbalance is part of the test.
 *   -p cols    blocks of consecutive columns (b is column N). Step k: the
 *              owner of column k finds the pivot alone and broadcasts the
 *              pivot row index and the multipliers in one MPI_Bcast; every
 *              rank swaps rows in its own columns and updates them.
 *   -p cyclic  as cols, but column j lives on rank j mod P (balanced load).
 *
 * After elimination the ranks send their parts of the triangular system to
 * rank 0 (point-to-point), rank 0 back-substitutes and broadcasts x.
 * Time: from a barrier to every rank holding x (the matrix is generated
 * before, each rank its own part, from a hash of (i, j)).
 *
 * Verification (rank 0, after timing): A and b are regenerated and the
 * relative residual ||A x - b||_2 / ||b||_2 must be below 1e-8.
 *
 * Usage: gauss [-m] [-q] [-n N] [-p rows|cols|cyclic]
 *   -m   machine-readable RESULT lines (bench=gauss_rows, gauss_cols, gauss_cyclic)
 *   -q   quick: N = 1200 (about 1 s at 1 rank)
 *   -n   matrix order (default 2000)
 *   -p   partitioning (default rows)
 */
#include "apps_common.h"

#define TAG_SWAP 21
#define TAG_COLLECT 22

enum part { PART_ROWS, PART_COLS, PART_CYCLIC };

static double entry(int n, int i, int j) /* [A | b]; j == n is b */
{
    double v = app_rand2(10 + (j == n), (uint64_t)i * (uint64_t)(n + 1) + (uint64_t)j);
    return v;
}

/* Block distribution of `total` items over `p` ranks: first item of rank r. */
static int block_lo(int total, int p, int r)
{
    int q = total / p, rem = total % p;
    return r * q + (r < rem ? r : rem);
}

static int block_owner(int total, int p, int i)
{
    int q = total / p, rem = total % p;
    if (i < rem * (q + 1))
        return i / (q + 1);
    return rem + (i - rem * (q + 1)) / q;
}

/* Row partitioning. a: local rows [lo, hi), each n+1 wide. Fills u (rank 0,
 * n x (n+1) row-major) with the reduced system. Returns 0, APP_UNSUPPORTED,
 * or -1 when a pivot is zero. */
static int eliminate_rows(int n, double *a, double *u)
{
    const int w = n + 1, P = app_size, me = app_rank;
    int lo = block_lo(n, P, me), hi = block_lo(n, P, me + 1);
    double *prow = app_alloc((size_t)w * sizeof(double));
    int rc = 0;
    for (int k = 0; k < n; k++) {
        struct {
            double v;
            int i;
        } loc = {-1.0, n}, piv;
        for (int i = (lo > k ? lo : k); i < hi; i++) {
            double v = fabs(a[(size_t)(i - lo) * w + k]);
            if (v > loc.v) {
                loc.v = v;
                loc.i = i;
            }
        }
        APP_CHECK(MPI_Allreduce(&loc, &piv, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
        if (!(piv.v > 0.0) || piv.i < k || piv.i >= n) {
            rc = -1;
            break;
        }
        int p = piv.i, ok_ = block_owner(n, P, k), op = block_owner(n, P, p);
        int len = w - k;
        if (p != k) {
            if (ok_ == op) {
                if (me == ok_) {
                    double *rk = a + (size_t)(k - lo) * w + k, *rp = a + (size_t)(p - lo) * w + k;
                    for (int j = 0; j < len; j++) {
                        double t = rk[j];
                        rk[j] = rp[j];
                        rp[j] = t;
                    }
                }
            } else if (me == ok_) {
                APP_CHECK(MPI_Sendrecv_replace(a + (size_t)(k - lo) * w + k, len, MPI_DOUBLE, op,
                                               TAG_SWAP, op, TAG_SWAP, MPI_COMM_WORLD,
                                               MPI_STATUS_IGNORE));
            } else if (me == op) {
                APP_CHECK(MPI_Sendrecv_replace(a + (size_t)(p - lo) * w + k, len, MPI_DOUBLE, ok_,
                                               TAG_SWAP, ok_, TAG_SWAP, MPI_COMM_WORLD,
                                               MPI_STATUS_IGNORE));
            }
        }
        if (me == ok_)
            memcpy(prow, a + (size_t)(k - lo) * w + k, (size_t)len * sizeof(double));
        APP_CHECK(MPI_Bcast(prow, len, MPI_DOUBLE, ok_, MPI_COMM_WORLD));
        const double pkk = prow[0];
        for (int i = (lo > k + 1 ? lo : k + 1); i < hi; i++) {
            double *ri = a + (size_t)(i - lo) * w + k;
            const double l = ri[0] / pkk;
            ri[0] = 0.0;
            for (int j = 1; j < len; j++)
                ri[j] -= l * prow[j];
        }
    }
    free(prow);
    if (rc)
        return rc;
    /* Rows to rank 0. */
    if (me == 0) {
        memcpy(u, a, (size_t)(hi - lo) * w * sizeof(double));
        for (int r = 1; r < P; r++) {
            int rlo = block_lo(n, P, r), rhi = block_lo(n, P, r + 1);
            if (rhi > rlo)
                APP_CHECK(MPI_Recv(u + (size_t)rlo * w, (rhi - rlo) * w, MPI_DOUBLE, r, TAG_COLLECT,
                                   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
    } else if (hi > lo) {
        APP_CHECK(MPI_Send(a, (hi - lo) * w, MPI_DOUBLE, 0, TAG_COLLECT, MPI_COMM_WORLD));
    }
    return 0;
unsupported:
    return APP_UNSUPPORTED;
}

/* Column partitionings. a: local columns, column-major, n entries each;
 * glob[jl] is the global index of local column jl (increasing). */
static int eliminate_cols(int n, enum part part, int nloc, const int *glob, double *a, double *u)
{
    const int P = app_size, me = app_rank;
    double *buf = app_alloc((size_t)(n + 1) * sizeof(double));
    int rc = 0, first = 0; /* first local column with glob > k */
    for (int k = 0; k < n; k++) {
        int owner = part == PART_CYCLIC ? k % P : block_owner(n + 1, P, k);
        while (first < nloc && glob[first] <= k)
            first++;
        if (me == owner) {
            double *ck = a + (size_t)(first - 1) * n; /* column k is the one just passed */
            int p = k;
            double best = fabs(ck[k]);
            for (int i = k + 1; i < n; i++)
                if (fabs(ck[i]) > best) {
                    best = fabs(ck[i]);
                    p = i;
                }
            double t = ck[k];
            ck[k] = ck[p];
            ck[p] = t;
            buf[0] = best > 0.0 ? (double)p : -1.0;
            const double pkk = ck[k];
            for (int i = k + 1; i < n; i++) {
                buf[i - k] = best > 0.0 ? ck[i] / pkk : 0.0;
                ck[i] = 0.0;
            }
        }
        APP_CHECK(MPI_Bcast(buf, n - k, MPI_DOUBLE, owner, MPI_COMM_WORLD));
        int p = (int)buf[0];
        if (p < k) {
            rc = -1;
            break;
        }
        for (int jl = first; jl < nloc; jl++) {
            double *cj = a + (size_t)jl * n;
            double t = cj[k];
            cj[k] = cj[p];
            cj[p] = t;
            const double akj = cj[k];
            if (akj != 0.0)
                for (int i = k + 1; i < n; i++)
                    cj[i] -= buf[i - k] * akj;
        }
    }
    free(buf);
    if (rc)
        return rc;
    /* Columns to rank 0, stored row-major in u. */
    const int w = n + 1;
    if (me == 0) {
        for (int r = 0; r < P; r++) {
            int rn = 0, *rg = NULL;
            double *cols = NULL;
            /* the columns of rank r, in the same order as that rank holds them */
            rg = app_alloc((size_t)w * sizeof(int));
            for (int j = 0; j < w; j++)
                if ((part == PART_CYCLIC ? j % P : block_owner(w, P, j)) == r)
                    rg[rn++] = j;
            if (r == 0) {
                cols = a;
            } else if (rn > 0) {
                cols = app_alloc((size_t)rn * n * sizeof(double));
                APP_CHECK(MPI_Recv(cols, rn * n, MPI_DOUBLE, r, TAG_COLLECT, MPI_COMM_WORLD,
                                   MPI_STATUS_IGNORE));
            }
            for (int jl = 0; jl < rn; jl++)
                for (int i = 0; i < n; i++)
                    u[(size_t)i * w + rg[jl]] = cols[(size_t)jl * n + i];
            if (r != 0)
                free(cols);
            free(rg);
        }
    } else if (nloc > 0) {
        APP_CHECK(MPI_Send(a, nloc * n, MPI_DOUBLE, 0, TAG_COLLECT, MPI_COMM_WORLD));
    }
    return 0;
unsupported:
    return APP_UNSUPPORTED;
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "gauss");
    if (app_parse(argc, argv, "[-m] [-q] [-n N] [-p rows|cols|cyclic]", &o)) {
        MPI_Finalize();
        return 2;
    }
    enum part part = PART_ROWS;
    const char *pname = o.p ? o.p : "rows";
    if (!strcmp(pname, "rows"))
        part = PART_ROWS;
    else if (!strcmp(pname, "cols"))
        part = PART_COLS;
    else if (!strcmp(pname, "cyclic"))
        part = PART_CYCLIC;
    else {
        if (app_rank == 0)
            fprintf(stderr, "gauss: -p must be rows, cols or cyclic\n");
        MPI_Finalize();
        return 2;
    }
    char bname[32];
    snprintf(bname, sizeof bname, "gauss_%s", pname);
    app_name = bname;

    const int n = (int)(o.n ? o.n : (o.quick ? 1200 : 2000));
    const int w = n + 1, P = app_size, me = app_rank;
    double *a = NULL, *u = NULL, *x = app_alloc((size_t)n * sizeof(double));
    int nloc = 0, *glob = NULL;
    if (me == 0)
        u = app_alloc((size_t)n * w * sizeof(double));
    if (part == PART_ROWS) {
        int lo = block_lo(n, P, me), hi = block_lo(n, P, me + 1);
        nloc = hi - lo;
        a = app_alloc((size_t)nloc * w * sizeof(double));
        for (int i = lo; i < hi; i++)
            for (int j = 0; j < w; j++)
                a[(size_t)(i - lo) * w + j] = entry(n, i, j);
    } else {
        glob = app_alloc((size_t)w * sizeof(int));
        for (int j = 0; j < w; j++)
            if ((part == PART_CYCLIC ? j % P : block_owner(w, P, j)) == me)
                glob[nloc++] = j;
        a = app_alloc((size_t)nloc * n * sizeof(double));
        for (int jl = 0; jl < nloc; jl++)
            for (int i = 0; i < n; i++)
                a[(size_t)jl * n + i] = entry(n, i, glob[jl]);
    }

    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    int rc =
        part == PART_ROWS ? eliminate_rows(n, a, u) : eliminate_cols(n, part, nloc, glob, a, u);
    if (rc == APP_UNSUPPORTED)
        goto unsupported;
    int singular = rc != 0;
    if (me == 0 && !singular) {
        for (int i = n - 1; i >= 0; i--) {
            const double *ui = u + (size_t)i * w;
            double s = ui[n];
            for (int j = i + 1; j < n; j++)
                s -= ui[j] * x[j];
            x[i] = s / ui[i];
        }
    }
    APP_CHECK(MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    double t1 = MPI_Wtime();
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    int ok = 1;
    if (me == 0) {
        double r2 = 0.0, b2 = 0.0;
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int j = 0; j < n; j++)
                s += entry(n, i, j) * x[j];
            double bi = entry(n, i, n);
            r2 += (s - bi) * (s - bi);
            b2 += bi * bi;
        }
        double rel = sqrt(r2) / sqrt(b2);
        ok = !singular && rel < 1e-8;
        if (singular)
            fprintf(stderr, "%s: zero pivot: the matrix is singular to working precision\n", bname);
        app_note(&o, "%s: N=%d partitioning=%s relative residual=%.3e", bname, n, pname, rel);
        char extra[96];
        snprintf(extra, sizeof extra, " part=%s residual=%.3e", pname, rel);
        app_report(&o, n, t1 - t0, ok, extra);
    }
    free(a);
    free(u);
    free(x);
    free(glob);
    MPI_Finalize();
    return ok ? 0 : 1;

unsupported:
    app_report_unsupported(&o, n, "");
    MPI_Finalize();
    return 0;
}
