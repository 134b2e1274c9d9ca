/*
 * fft2d.c - 2-D complex FFT of an N x N array (N a power of two) by
 * row transforms, a global transpose with MPI_Alltoall, and row transforms
 * again (the "transpose algorithm").
 *
 * Each of P ranks holds N/P consecutive rows (P must divide N). Forward:
 *   1. radix-2 FFT of every local row (our own iterative Cooley-Tukey);
 *   2. pack an (N/P) x (N/P) block for every rank, MPI_Alltoall, and
 *      transpose each received block, so each rank now holds N/P columns;
 *   3. FFT of every local row again (= the columns of the original).
 * The result stays transposed: rank r holds X(u, v) for v in its block.
 * The inverse runs the same steps with the conjugate twiddles and scales by
 * 1/N^2, returning to the original layout.
 *
 * Time (the value reported): one forward plus one inverse 2-D transform,
 * from a barrier to a barrier (fwd= and inv= report the two halves).
 *
 * Verification (after timing): (a) the round trip must reproduce the input
 * to 1e-10 (max abs error; inputs are in [-1, 1)); (b) three points of the
 * forward result per rank are compared with a direct O(N^2) DFT of the
 * input, to a relative error of 1e-9 of the input's 2-norm. Results of all
 * ranks are combined with MPI_Allreduce.
 *
 * An MPI without MPI_Alltoall (MPI_ERR_UNSUPPORTED_OPERATION) gets
 * status=unsupported and no time.
 *
 * Usage: fft2d [-m] [-q] [-n N]
 *   -m   machine-readable RESULT lines
 *   -q   quick: N = 2048 (about 1 s at 1 rank)
 *   -n   array order, a power of two (default 4096)
 */
#include "apps_common.h"

typedef struct fft_plan {
    int n, logn;
    int *rev;   /* bit reversal permutation */
    double *tw; /* tw[2k], tw[2k+1] = cos, -sin of 2 pi k / n, k < n/2 */
} fft_plan_t;

static void plan_init(fft_plan_t *pl, int n)
{
    pl->n = n;
    pl->logn = 0;
    while ((1 << pl->logn) < n)
        pl->logn++;
    pl->rev = app_alloc((size_t)n * sizeof(int));
    pl->tw = app_alloc((size_t)(n / 2 + 1) * 2 * sizeof(double));
    for (int i = 0; i < n; i++) {
        int r = 0;
        for (int b = 0; b < pl->logn; b++)
            if (i & (1 << b))
                r |= 1 << (pl->logn - 1 - b);
        pl->rev[i] = r;
    }
    const double two_pi = 6.283185307179586476925286766559;
    for (int k = 0; k < n / 2; k++) {
        pl->tw[2 * k] = cos(two_pi * k / n);
        pl->tw[2 * k + 1] = -sin(two_pi * k / n);
    }
}

/* In-place FFT of n interleaved complex values; sign -1 forward, +1 inverse
 * (unscaled). */
static void fft1d(const fft_plan_t *pl, double *x, int sign)
{
    const int n = pl->n;
    for (int i = 0; i < n; i++) {
        int j = pl->rev[i];
        if (j > i) {
            double tr = x[2 * i], ti = x[2 * i + 1];
            x[2 * i] = x[2 * j];
            x[2 * i + 1] = x[2 * j + 1];
            x[2 * j] = tr;
            x[2 * j + 1] = ti;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        const int half = len / 2, stride = n / len;
        for (int s = 0; s < n; s += len) {
            for (int k = 0; k < half; k++) {
                const double wr = pl->tw[2 * k * stride];
                const double wi =
                    sign < 0 ? pl->tw[2 * k * stride + 1] : -pl->tw[2 * k * stride + 1];
                double *p = x + 2 * (s + k), *q = x + 2 * (s + k + half);
                const double tr = q[0] * wr - q[1] * wi, ti = q[0] * wi + q[1] * wr;
                q[0] = p[0] - tr;
                q[1] = p[1] - ti;
                p[0] += tr;
                p[1] += ti;
            }
        }
    }
}

/* a (nl rows of n complex) -> transposed into a, using s and r as buffers. */
static int transpose(int n, int nl, double *a, double *s, double *r)
{
    const int P = app_size;
    for (int d = 0; d < P; d++)
        for (int i = 0; i < nl; i++)
            memcpy(s + 2 * ((size_t)d * nl * nl + (size_t)i * nl),
                   a + 2 * ((size_t)i * n + (size_t)d * nl), (size_t)nl * 2 * sizeof(double));
    APP_CHECK(MPI_Alltoall(s, 2 * nl * nl, MPI_DOUBLE, r, 2 * nl * nl, MPI_DOUBLE, MPI_COMM_WORLD));
    /* block from rank q: r[q][i][c] = element (row q*nl+i, col me*nl+c) -> a[c][q*nl+i] */
    for (int q = 0; q < P; q++)
        for (int i = 0; i < nl; i++) {
            const double *src = r + 2 * ((size_t)q * nl * nl + (size_t)i * nl);
            for (int c = 0; c < nl; c++) {
                a[2 * ((size_t)c * n + (size_t)q * nl + i)] = src[2 * c];
                a[2 * ((size_t)c * n + (size_t)q * nl + i) + 1] = src[2 * c + 1];
            }
        }
    return 0;
unsupported:
    return APP_UNSUPPORTED;
}

static int fft2d(const fft_plan_t *pl, int nl, double *a, double *s, double *r, int sign)
{
    const int n = pl->n;
    for (int i = 0; i < nl; i++)
        fft1d(pl, a + 2 * (size_t)i * n, sign);
    if (transpose(n, nl, a, s, r))
        return APP_UNSUPPORTED;
    for (int i = 0; i < nl; i++)
        fft1d(pl, a + 2 * (size_t)i * n, sign);
    return 0;
}

static double input_re(int x, int y)
{
    return app_rand2(30, ((uint64_t)x << 32) | (uint64_t)y);
}
static double input_im(int x, int y)
{
    return app_rand2(31, ((uint64_t)x << 32) | (uint64_t)y);
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "fft2d");
    if (app_parse(argc, argv, "[-m] [-q] [-n N (power of two)]", &o)) {
        MPI_Finalize();
        return 2;
    }
    const int n = (int)(o.n ? o.n : (o.quick ? 2048 : 4096));
    const int P = app_size, me = app_rank;
    if ((n & (n - 1)) != 0 || n < 2 || n % P != 0) {
        if (me == 0)
            fprintf(stderr, "fft2d: N=%d must be a power of two and a multiple of the %d ranks\n",
                    n, P);
        MPI_Finalize();
        return 2;
    }
    const int nl = n / P;
    const size_t cnt = 2 * (size_t)nl * n;
    double *a = app_alloc(cnt * sizeof(double));
    double *s = app_alloc(cnt * sizeof(double));
    double *r = app_alloc(cnt * sizeof(double));
    double *xf = app_alloc(3 * 2 * sizeof(double)); /* 3 forward values kept for the check */
    int xu[3], xv[3];
    fft_plan_t pl;
    plan_init(&pl, n);
    for (int i = 0; i < nl; i++)
        for (int y = 0; y < n; y++) {
            a[2 * ((size_t)i * n + y)] = input_re(me * nl + i, y);
            a[2 * ((size_t)i * n + y) + 1] = input_im(me * nl + i, y);
        }

    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    if (fft2d(&pl, nl, a, s, r, -1))
        goto unsupported;
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t1 = MPI_Wtime();
    /* keep three points: local transposed row c holds X(u, v = me*nl + c) */
    for (int t = 0; t < 3; t++) {
        int c = t == 0 ? 0 : (t == 1 ? nl / 2 : nl - 1);
        xv[t] = me * nl + c;
        xu[t] = (int)(app_mix64(40 + (uint64_t)me * 3 + t) % (uint64_t)n);
        xf[2 * t] = a[2 * ((size_t)c * n + xu[t])];
        xf[2 * t + 1] = a[2 * ((size_t)c * n + xu[t]) + 1];
    }
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t2 = MPI_Wtime();
    if (fft2d(&pl, nl, a, s, r, +1))
        goto unsupported;
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t3 = MPI_Wtime();

    /* (a) round trip */
    const double scale = 1.0 / ((double)n * n);
    double err[2] = {0.0, 0.0}, gerr[2];
    for (int i = 0; i < nl; i++)
        for (int y = 0; y < n; y++) {
            double dr = a[2 * ((size_t)i * n + y)] * scale - input_re(me * nl + i, y);
            double di = a[2 * ((size_t)i * n + y) + 1] * scale - input_im(me * nl + i, y);
            err[0] = fmax(err[0], fmax(fabs(dr), fabs(di)));
        }
    /* (b) direct DFT at three points; also the input's squared 2-norm */
    double *cs = s; /* reuse: cos/sin of 2 pi k / n, k < n */
    const double two_pi = 6.283185307179586476925286766559;
    for (int k = 0; k < n; k++) {
        cs[2 * k] = cos(two_pi * k / n);
        cs[2 * k + 1] = -sin(two_pi * k / n);
    }
    double norm2 = 0.0;
    double dre[3] = {0, 0, 0}, dim[3] = {0, 0, 0};
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
            double vr = input_re(x, y), vi = input_im(x, y);
            norm2 += vr * vr + vi * vi;
            for (int t = 0; t < 3; t++) {
                size_t k = ((size_t)xu[t] * x + (size_t)xv[t] * y) % (size_t)n;
                double wr = cs[2 * k], wi = cs[2 * k + 1];
                dre[t] += vr * wr - vi * wi;
                dim[t] += vr * wi + vi * wr;
            }
        }
    for (int t = 0; t < 3; t++)
        err[1] = fmax(err[1], hypot(dre[t] - xf[2 * t], dim[t] - xf[2 * t + 1]) / sqrt(norm2));
    APP_CHECK(MPI_Allreduce(err, gerr, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    int ok = gerr[0] < 1e-10 && gerr[1] < 1e-9;
    if (me == 0) {
        double fwd = t1 - t0, inv = t3 - t2;
        double flop = 5.0 * (double)n * n * 2.0 * pl.logn; /* 5 N^2 log2(N^2) per transform */
        app_note(&o, "fft2d: N=%d round-trip max error=%.2e, direct-DFT relative error=%.2e", n,
                 gerr[0], gerr[1]);
        char extra[160];
        snprintf(extra, sizeof extra,
                 " fwd=%.6g inv=%.6g gflops=%.3f roundtrip_err=%.2e dft_err=%.2e", fwd, inv,
                 2.0 * flop / (fwd + inv) * 1e-9, gerr[0], gerr[1]);
        app_report(&o, n, fwd + inv, ok, extra);
    }
    free(a);
    free(s);
    free(r);
    free(xf);
    free(pl.rev);
    free(pl.tw);
    MPI_Finalize();
    return ok ? 0 : 1;

unsupported:
    app_report_unsupported(&o, n, "");
    MPI_Finalize();
    return 0;
}
