/*
 * nbody.c - direct O(N^2) gravitational N-body integration with the
 * particle blocks passed around a ring (the "systolic" scheme).
 *
 * The N particles are split into P equal blocks (the last padded with
 * mass-less particles, which exert no force and carry no energy). For each
 * force evaluation every rank starts with a copy of its own block
 * (x, y, z, m), adds the forces of the visiting block on its particles, then
 * passes the visiting block to the right neighbour with MPI_Sendrecv_replace
 * and receives one from the left, P - 1 times. Softened gravity (G = 1,
 * softening 0.05), kick-drift-kick leapfrog with dt = 1e-3. The potential
 * energy is accumulated in the same loop; energy and momentum are summed
 * with MPI_Allreduce.
 *
 * Time (value): the `steps` leapfrog steps (one force evaluation each),
 * from a barrier to a barrier; the first force evaluation, before the
 * clock starts, provides the initial accelerations and energy.
 *
 * Verification:
 *   (a) the initial accelerations of three particles per rank are recomputed
 *       by a direct sum over all N particles (regenerated from the seed):
 *       relative error < 1e-10;
 *   (b) total momentum is conserved to 1e-9 of the momentum scale;
 *   (c) total energy drifts less than 1e-5 (relative) over the run.
 *
 * Usage: nbody [-m] [-q] [-n N] [-k steps]
 *   -m   machine-readable RESULT lines (size = N; steps= is an extra key)
 *   -q   quick: N = 4096, 5 steps (about 1 s at 1 rank)
 *   -n   particles (default 8192)
 *   -k   time steps (default 5)
 */
#include "apps_common.h"

#define TAG_RING 31
#define SOFT2 (0.05 * 0.05)
#define DT 1e-3

typedef struct body {
    double m, x[3], v[3];
} body_t;

/* Initial state of global particle g (deterministic; any rank can make it). */
static body_t make_body(long g, long n)
{
    body_t b;
    if (g >= n) {
        memset(&b, 0, sizeof b);
        return b;
    }
    b.m = (1.0 + 0.5 * app_rand2(50, (uint64_t)g)) / (double)n;
    for (int d = 0; d < 3; d++) {
        b.x[d] = app_rand2(51 + d, (uint64_t)g);
        b.v[d] = 0.3 * app_rand2(54 + d, (uint64_t)g);
    }
    return b;
}

/* acc[i] += forces of the visiting block vis (x, y, z, m per particle) on the
 * local particles pos; pot[i] += potential per unit mass. `self` skips i == j. */
static void accumulate(int nb, const double *pos, const double *vis, double *acc, double *pot,
                       int self)
{
    for (int i = 0; i < nb; i++) {
        const double xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
        double ax = 0.0, ay = 0.0, az = 0.0, p = 0.0;
        for (int j = 0; j < nb; j++) {
            const double dx = vis[4 * j] - xi, dy = vis[4 * j + 1] - yi, dz = vis[4 * j + 2] - zi;
            const double r2 = dx * dx + dy * dy + dz * dz + SOFT2;
            const double inv = 1.0 / sqrt(r2);
            const double mj = (self && i == j) ? 0.0 : vis[4 * j + 3];
            const double f = mj * inv * inv * inv;
            ax += f * dx;
            ay += f * dy;
            az += f * dz;
            p -= mj * inv;
        }
        acc[3 * i] += ax;
        acc[3 * i + 1] += ay;
        acc[3 * i + 2] += az;
        pot[i] += p;
    }
}

/* Accelerations of the local block; returns this rank's potential energy. */
static int forces(int nb, const body_t *b, double *pos, double *vis, double *acc, double *pot,
                  double *epot_p)
{
    const int P = app_size, me = app_rank;
    for (int i = 0; i < nb; i++) {
        for (int d = 0; d < 3; d++)
            pos[4 * i + d] = b[i].x[d];
        pos[4 * i + 3] = b[i].m;
        acc[3 * i] = acc[3 * i + 1] = acc[3 * i + 2] = 0.0;
        pot[i] = 0.0;
    }
    memcpy(vis, pos, (size_t)nb * 4 * sizeof(double));
    for (int s = 0; s < P; s++) {
        accumulate(nb, pos, vis, acc, pot, s == 0);
        if (s + 1 < P)
            APP_CHECK(MPI_Sendrecv_replace(vis, 4 * nb, MPI_DOUBLE, (me + 1) % P, TAG_RING,
                                           (me + P - 1) % P, TAG_RING, MPI_COMM_WORLD,
                                           MPI_STATUS_IGNORE));
    }
    double e = 0.0;
    for (int i = 0; i < nb; i++)
        e += 0.5 * b[i].m * pot[i];
    *epot_p = e;
    return 0;
unsupported:
    return APP_UNSUPPORTED;
}

/* Global energy, momentum and momentum scale (sum m |v|). */
static int totals(int nb, const body_t *b, double epot, double out[6])
{
    double loc[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < nb; i++) {
        double v2 = 0.0;
        for (int d = 0; d < 3; d++) {
            v2 += b[i].v[d] * b[i].v[d];
            loc[1 + d] += b[i].m * b[i].v[d];
        }
        loc[0] += 0.5 * b[i].m * v2;
        loc[4] += b[i].m * sqrt(v2);
    }
    loc[0] += epot;
    APP_CHECK(MPI_Allreduce(loc, out, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    return 0;
unsupported:
    return APP_UNSUPPORTED;
}

int main(int argc, char **argv)
{
    app_opts_t o;
    app_init(&argc, &argv, "nbody");
    if (app_parse(argc, argv, "[-m] [-q] [-n N] [-k steps]", &o)) {
        MPI_Finalize();
        return 2;
    }
    const long n = o.n ? o.n : (o.quick ? 4096 : 8192);
    const int steps = (int)(o.k ? o.k : 5);
    const int P = app_size, me = app_rank;
    const int nb = (int)((n + P - 1) / P);
    body_t *b = app_alloc((size_t)nb * sizeof(body_t));
    double *pos = app_alloc((size_t)nb * 4 * sizeof(double));
    double *vis = app_alloc((size_t)nb * 4 * sizeof(double));
    double *acc = app_alloc((size_t)nb * 3 * sizeof(double));
    double *pot = app_alloc((size_t)nb * sizeof(double));
    double epot = 0.0, tot0[6], tot1[6];
    for (int i = 0; i < nb; i++)
        b[i] = make_body((long)me * nb + i, n);

    /* Initial forces (untimed), checked against a direct sum. */
    if (forces(nb, b, pos, vis, acc, pot, &epot) || totals(nb, b, epot, tot0))
        goto unsupported;
    double err[2] = {0.0, 0.0}, gerr[2], ascale = 0.0, gascale = 0.0;
    int real = (int)(n - (long)me * nb < nb ? n - (long)me * nb : nb);
    for (int i = 0; i < real; i++)
        ascale += b[i].m * sqrt(acc[3 * i] * acc[3 * i] + acc[3 * i + 1] * acc[3 * i + 1] +
                                acc[3 * i + 2] * acc[3 * i + 2]);
    for (int t = 0; t < 3 && real > 0; t++) {
        int i = t == 0 ? 0 : (t == 1 ? real / 2 : real - 1);
        long gi = (long)me * nb + i;
        double ad[3] = {0, 0, 0};
        for (long g = 0; g < n; g++) {
            if (g == gi)
                continue;
            body_t q = make_body(g, n);
            double dx = q.x[0] - b[i].x[0], dy = q.x[1] - b[i].x[1], dz = q.x[2] - b[i].x[2];
            double r2 = dx * dx + dy * dy + dz * dz + SOFT2, inv = 1.0 / sqrt(r2);
            double f = q.m * inv * inv * inv;
            ad[0] += f * dx;
            ad[1] += f * dy;
            ad[2] += f * dz;
        }
        double dn = sqrt((ad[0] - acc[3 * i]) * (ad[0] - acc[3 * i]) +
                         (ad[1] - acc[3 * i + 1]) * (ad[1] - acc[3 * i + 1]) +
                         (ad[2] - acc[3 * i + 2]) * (ad[2] - acc[3 * i + 2]));
        double an = sqrt(ad[0] * ad[0] + ad[1] * ad[1] + ad[2] * ad[2]);
        err[0] = fmax(err[0], dn / (an > 0 ? an : 1.0));
    }
    APP_CHECK(MPI_Allreduce(&ascale, &gascale, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));

    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t0 = MPI_Wtime();
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < nb; i++)
            for (int d = 0; d < 3; d++) {
                b[i].v[d] += 0.5 * DT * acc[3 * i + d];
                b[i].x[d] += DT * b[i].v[d];
            }
        if (forces(nb, b, pos, vis, acc, pot, &epot))
            goto unsupported;
        for (int i = 0; i < nb; i++)
            for (int d = 0; d < 3; d++)
                b[i].v[d] += 0.5 * DT * acc[3 * i + d];
    }
    APP_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    double t1 = MPI_Wtime();

    if (totals(nb, b, epot, tot1))
        goto unsupported;
    APP_CHECK(MPI_Allreduce(err, gerr, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    double dp =
        sqrt((tot1[1] - tot0[1]) * (tot1[1] - tot0[1]) + (tot1[2] - tot0[2]) * (tot1[2] - tot0[2]) +
             (tot1[3] - tot0[3]) * (tot1[3] - tot0[3]));
    double pscale = tot0[4] + steps * DT * gascale;
    double perr = dp / pscale, eerr = fabs(tot1[0] - tot0[0]) / fabs(tot0[0]);
    int ok = gerr[0] < 1e-10 && perr < 1e-9 && eerr < 1e-5;
    if (me == 0) {
        app_note(&o,
                 "nbody: N=%ld steps=%d energy %.12f -> %.12f; direct-sum rel.err=%.2e momentum "
                 "err=%.2e energy drift=%.2e",
                 n, steps, tot0[0], tot1[0], gerr[0], perr, eerr);
        char extra[192];
        double pairs = (double)n * (double)n * steps;
        snprintf(
            extra, sizeof extra,
            " steps=%d interactions_per_s=%.4g force_err=%.2e momentum_err=%.2e energy_drift=%.2e",
            steps, pairs / (t1 - t0), gerr[0], perr, eerr);
        app_report(&o, n, t1 - t0, ok, extra);
    }
    free(b);
    free(pos);
    free(vis);
    free(acc);
    free(pot);
    MPI_Finalize();
    return ok ? 0 : 1;

unsupported:
    app_report_unsupported(&o, n, "");
    MPI_Finalize();
    return 0;
}
