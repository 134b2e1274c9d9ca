/* Moved to later issues (collectives): MPI_Gather, MPI_Scan (done with point-to-point here). */
/* cpi-like integration of 4/(1+x^2) over [0,1] with a fixed reduction order: each rank
 * sums its strided share, rank 0 receives the partial sums and adds them in rank order, so
 * the printed digits depend only on the number of ranks. Then the same partial sums are
 * collected again with MPI_ANY_SOURCE receives filed by status.MPI_SOURCE, and go through
 * the integer and exact-in-double reductions (Reduce, Allreduce, MAXLOC/MINLOC); a prefix
 * sum travels a chain of ranks with point-to-point. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* Rank 0 receives one value of type t from every rank with MPI_ANY_SOURCE, in whatever
 * order they arrive, and files each at out[status.MPI_SOURCE]. */
static void collect_any(const void *mine, void *out, int bytes, MPI_Datatype t, int tag)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank != 0) {
        MPI_Send(mine, 1, t, 0, tag, MPI_COMM_WORLD);
        return;
    }
    memcpy(out, mine, (size_t)bytes);
    for (int i = 1; i < size; i++) {
        char tmp[64];
        MPI_Status st;
        int count = -1;
        MPI_Recv(tmp, 1, t, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, t, &count);
        if (count != 1 || st.MPI_SOURCE < 1 || st.MPI_SOURCE >= size)
            printf("collect: bad status source=%d count=%d\n", st.MPI_SOURCE, count);
        else
            memcpy((char *)out + (size_t)st.MPI_SOURCE * bytes, tmp, (size_t)bytes);
    }
}

static double f(double x)
{
    return 4.0 / (1.0 + x * x);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int n = 0;
    if (rank == 0)
        n = 100000;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double h = 1.0 / n, part = 0.0;
    for (int i = rank + 1; i <= n; i += size)
        part += f(h * (i - 0.5));
    part *= h;

    if (rank == 0) {
        double pi = part;
        for (int src = 1; src < size; src++) {
            double p;
            MPI_Recv(&p, 1, MPI_DOUBLE, src, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pi += p;
        }
        printf("n=%d pi=%.15f\n", n, pi);
    } else {
        MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }

    double parts[64];
    collect_any(&part, parts, sizeof part, MPI_DOUBLE, 1);
    if (rank == 0)
        for (int i = 0; i < size; i++)
            printf("part[%d]=%.17g\n", i, parts[i]);

    /* Reductions whose results are exact whatever the order. */
    long cnt = 0;
    for (int i = rank + 1; i <= n; i += size)
        cnt += i;
    long total = 0;
    MPI_Reduce(&cnt, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    double ex[2] = {rank + 1.0, 1.0 / 8 * rank}, exs[2];
    MPI_Allreduce(ex, exs, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    struct {
        double v;
        int i;
    } in = {part, rank}, mx, mn;
    MPI_Allreduce(&in, &mx, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&in, &mn, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    int scan = 0;
    int one = rank + 1;
    /* Inclusive prefix sum along the chain 0 -> 1 -> ... -> size-1. */
    if (rank > 0)
        MPI_Recv(&scan, 1, MPI_INT, rank - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    scan += one;
    if (rank < size - 1)
        MPI_Send(&scan, 1, MPI_INT, rank + 1, 2, MPI_COMM_WORLD);
    int scans[64];
    collect_any(&scan, scans, sizeof scan, MPI_INT, 3);
    if (rank == 0) {
        printf("sum(i)=%ld exact=%.4f,%.4f maxloc=%.17g@%d minloc=%.17g@%d\n", total, exs[0],
               exs[1], mx.v, mx.i, mn.v, mn.i);
        printf("scan:");
        for (int i = 0; i < size; i++)
            printf(" %d", scans[i]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
