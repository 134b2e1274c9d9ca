/*
 * cpi.c - parallel pi by numerical integration (the classic first MPI program).
 *
 * pi = integral_0^1 4 / (1 + x^2) dx, approximated by the midpoint rule on n
 * intervals. Rank 0 broadcasts n (MPI_Bcast); every rank sums a contiguous
 * block of the intervals; MPI_Reduce(MPI_SUM) brings the partial sums to
 * rank 0. Time = Bcast + local sum + Reduce, between two barriers.
 *
 * Verification: |pi_computed - pi| must be below the midpoint rule's error
 * bound (about 1/(12 n^2), doubled) plus a rounding allowance of n * 1e-16 + 1e-12.
 *
 * Usage: cpi [-m] [-q] [-n intervals]
 *   -m   machine-readable RESULT lines
 *   -q   quick: 1e9 intervals (about 1 s at 1 rank)
 *   -n   intervals (default 4e9)
 */
#include "apps_common.h"

static double partial_sum(long n, long lo, long hi)
{
    const double h = 1.0 / (double)n;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    long i = lo;
    for (; i + 4 <= hi; i += 4) { /* four independent sums: shorter dependency chains */
        double x0 = h * ((double)i + 0.5), x1 = h * ((double)i + 1.5);
        double x2 = h * ((double)i + 2.5), x3 = h * ((double)i + 3.5);
        s0 += 4.0 / (1.0 + x0 * x0);
        s1 += 4.0 / (1.0 + x1 * x1);
        s2 += 4.0 / (1.0 + x2 * x2);
        s3 += 4.0 / (1.0 + x3 * x3);
    }
    for (; i < hi; i++) {
        double x = h * ((double)i + 0.5);
        s0 += 4.0 / (1.0 + x * x);
    }
    return h * ((s0 + s1) + (s2 + s3));
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "cpi");
    if (app_parse(argc, argv, "[-m] [-q] [-n intervals]", &o)) {
        MPI_Finalize();
        return 2;
    }
    long n = o.n ? o.n : (o.quick ? 1000000000L : 4000000000L);
    const double pi_ref = 3.14159265358979323846;
    double t0 = 0, t1 = 0, mypi, pi = 0.0;
    long nb = n;

    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t0 = MPI_Wtime();
    APP_CHECK(MPI_Bcast(&nb, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    long lo = nb / app_size * app_rank + (app_rank < nb % app_size ? app_rank : nb % app_size);
    long hi = lo + nb / app_size + (app_rank < nb % app_size ? 1 : 0);
    mypi = partial_sum(nb, lo, hi);
    APP_CHECK(MPI_Reduce(&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t1 = MPI_Wtime();

    double err = fabs(pi - pi_ref);
    double tol = 2.0 / (12.0 * (double)n * (double)n) + 1e-16 * (double)n + 1e-12;
    int ok = app_rank != 0 || err < tol; /* only rank 0 holds the sum */
    if (app_rank == 0) {
        app_note(&o, "cpi: pi=%.16f error=%.3e tolerance=%.3e", pi, err, tol);
        char extra[128];
        snprintf(extra, sizeof extra, " error=%.3e", err);
        app_report(&o, n, t1 - t0, ok, extra);
    }
    MPI_Finalize();
    return ok ? 0 : 1;

unsupported:
    app_report_unsupported(&o, n, "");
    MPI_Finalize();
    return 0;
}
