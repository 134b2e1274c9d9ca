/* N-body: N stars under gravity (softened), leapfrog integration. Each rank owns a block of
 * bodies and computes their forces from all positions, which MPI_Allgatherv shares after
 * every step. Rank 0 writes the total energy at every step to nbody.csv (it should stay
 * nearly constant: a check of the integrator) and the final positions to nbody.svg.
 * Arguments: [N] [steps] (default 400 bodies, 200 steps). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define G 1.0
#define SOFT 0.05
#define DT 0.002

static int n, rank, size, *counts, *displs;
static double *pos, *vel, *mass, *acc;

static void forces(int lo, int hi)
{
    for (int i = lo; i < hi; i++) {
        double ax = 0, ay = 0;
        for (int j = 0; j < n; j++) {
            double dx = pos[2 * j] - pos[2 * i], dy = pos[2 * j + 1] - pos[2 * i + 1];
            double r2 = dx * dx + dy * dy + SOFT * SOFT, inv = 1.0 / (r2 * sqrt(r2));
            ax += G * mass[j] * dx * inv;
            ay += G * mass[j] * dy * inv;
        }
        acc[2 * i] = ax;
        acc[2 * i + 1] = ay;
    }
}

static double energy(int lo, int hi) /* this rank's share; summed by the caller */
{
    double e = 0;
    for (int i = lo; i < hi; i++) {
        e += 0.5 * mass[i] * (vel[2 * i] * vel[2 * i] + vel[2 * i + 1] * vel[2 * i + 1]);
        for (int j = i + 1; j < n; j++) {
            double dx = pos[2 * j] - pos[2 * i], dy = pos[2 * j + 1] - pos[2 * i + 1];
            e -= G * mass[i] * mass[j] / sqrt(dx * dx + dy * dy + SOFT * SOFT);
        }
    }
    return e;
}

static void svg(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-2 -2 4 4\" "
               "width=\"480\" height=\"480\">\n<rect x=\"-2\" y=\"-2\" width=\"4\" height=\"4\" "
               "fill=\"#0b1020\"/>\n");
    for (int i = 0; i < n; i++) {
        int owner = 0;
        while (owner + 1 < size && i >= displs[owner + 1] / 2)
            owner++;
        fprintf(f, "<circle cx=\"%.4f\" cy=\"%.4f\" r=\"%.4f\" fill=\"hsl(%d,80%%,65%%)\"/>\n",
                pos[2 * i], pos[2 * i + 1], 0.01 + 0.02 * mass[i] * n, owner * 360 / size);
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 400;
    int steps = argc > 2 ? atoi(argv[2]) : 200;
    if (n < size)
        n = size;
    pos = malloc(sizeof(double) * 2 * n);
    vel = malloc(sizeof(double) * 2 * n);
    acc = malloc(sizeof(double) * 2 * n);
    mass = malloc(sizeof(double) * n);
    counts = malloc(sizeof(int) * size);
    displs = malloc(sizeof(int) * size);
    for (int r = 0, at = 0; r < size; r++) {
        int k = n / size + (r < n % size);
        counts[r] = 2 * k;
        displs[r] = 2 * at;
        at += k;
    }
    int lo = displs[rank] / 2, hi = lo + counts[rank] / 2;
    /* A rotating disc: the same on every rank (a fixed generator, no communication). */
    unsigned s = 12345;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        double rr = 0.1 + 0.9 * ((s >> 8) & 0xffff) / 65536.0;
        s = s * 1103515245u + 12345u;
        double th = 6.283185307 * ((s >> 8) & 0xffff) / 65536.0;
        pos[2 * i] = rr * cos(th);
        pos[2 * i + 1] = rr * sin(th);
        double v = sqrt(G * rr) * 0.9;
        vel[2 * i] = -v * sin(th);
        vel[2 * i + 1] = v * cos(th);
        mass[i] = 1.0 / n;
    }
    FILE *f = rank == 0 ? fopen("nbody.csv", "w") : NULL;
    if (f)
        fprintf(f, "step,energy\n");
    double t0 = MPI_Wtime(), e0 = 0;
    forces(lo, hi);
    for (int step = 0; step <= steps; step++) {
        double e = energy(lo, hi), etot;
        MPI_Reduce(&e, &etot, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            if (step == 0)
                e0 = etot;
            if (f)
                fprintf(f, "%d,%.10f\n", step, etot);
            if (step % 50 == 0)
                printf("step %d: energy %.8f (drift %.2e)\n", step, etot, (etot - e0) / fabs(e0));
        }
        if (step == steps)
            break;
        /* Kick, drift (own bodies), share positions, kick. */
        for (int i = lo; i < hi; i++) {
            vel[2 * i] += 0.5 * DT * acc[2 * i];
            vel[2 * i + 1] += 0.5 * DT * acc[2 * i + 1];
            pos[2 * i] += DT * vel[2 * i];
            pos[2 * i + 1] += DT * vel[2 * i + 1];
        }
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, pos, counts, displs, MPI_DOUBLE,
                       MPI_COMM_WORLD);
        forces(lo, hi);
        for (int i = lo; i < hi; i++) {
            vel[2 * i] += 0.5 * DT * acc[2 * i];
            vel[2 * i + 1] += 0.5 * DT * acc[2 * i + 1];
        }
    }
    printf("rank %d moved bodies %d to %d\n", rank, lo, hi - 1);
    if (rank == 0) {
        svg("nbody.svg");
        printf("%d bodies, %d steps on %d ranks: %.3f s\n", n, steps, size, MPI_Wtime() - t0);
    }
    if (f)
        fclose(f);
    free(pos);
    free(vel);
    free(acc);
    free(mass);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
