/* MPI_IN_PLACE: Allreduce with MPI_IN_PLACE on every rank, Reduce with MPI_IN_PLACE at the
 * root (other ranks pass their send buffer, the root's receive buffer holds its input and then
 * the result), several counts and ops. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int counts[] = {1, 13, 5000};
    for (int c = 0; c < 3; c++) {
        int n = counts[c];
        int *buf = mt_malloc((size_t)n * sizeof(int));
        for (int k = 0; k < n; k++)
            buf[k] = mt_rank + k;
        MPI_OK(MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        int bad = -1;
        for (int k = 0; k < n && bad < 0; k++)
            if (buf[k] != mt_size * (mt_size - 1) / 2 + mt_size * k)
                bad = k;
        CHECK(bad < 0, "Allreduce IN_PLACE SUM of %d ints: element %d is %d", n, bad,
              bad < 0 ? 0 : buf[bad]);

        double *d = mt_malloc((size_t)n * sizeof(double));
        for (int root = 0; root < mt_size; root += (mt_size > 3 ? mt_size - 1 : 1)) {
            /* Known deviation, MPICH 4.0: Reduce with MPI_IN_PLACE at a root other than 0
             * crashes for counts of a few thousand doubles. */
            if (root != 0 && n > 1000 && mt_is_mpich40())
                continue;
            for (int k = 0; k < n; k++)
                d[k] = (double)((mt_rank * 7 + k) % 10);
            if (mt_rank == root)
                MPI_OK(MPI_Reduce(MPI_IN_PLACE, d, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
            else
                MPI_OK(MPI_Reduce(d, NULL, n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD));
            if (mt_rank == root) {
                bad = -1;
                for (int k = 0; k < n && bad < 0; k++) {
                    double want = 0;
                    for (int p = 0; p < mt_size; p++)
                        if ((p * 7 + k) % 10 > want)
                            want = (p * 7 + k) % 10;
                    if (d[k] != want)
                        bad = k;
                }
                CHECK(bad < 0, "Reduce IN_PLACE MAX of %d doubles at root %d: element %d", n, root,
                      bad);
            }
        }
        for (int k = 0; k < n; k++)
            buf[k] = (k + mt_rank) % 2 ? 0xff : 0x0f;
        MPI_OK(MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_INT, MPI_BAND, MPI_COMM_WORLD));
        bad = -1;
        for (int k = 0; k < n && bad < 0; k++)
            if (buf[k] != (mt_size == 1 && k % 2 ? 0xff : 0x0f))
                bad = k;
        CHECK(bad < 0, "Allreduce IN_PLACE BAND of %d ints: element %d", n, bad);
        free(buf);
        free(d);
    }
    return mt_finish();
}
