/* Sendrecv and Sendrecv_replace: ring shifts in both directions with sizes 0 to 1 MiB, with
 * PROC_NULL on either side, to self, with wildcard source and tag on the receive side. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    size_t sizes[] = {0, 1, 13, 4096, 70001, (1u << 20) + 7};
    MPI_Comm wild; /* only the wildcard receives' messages travel here */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &wild));
    for (int i = 0; i < 6; i++) {
        size_t n = sizes[i];
        unsigned char *s = mt_malloc(n), *r = mt_malloc(n);
        MPI_Status st;
        int count = -1;
        mt_fill(s, n, (unsigned)(mt_rank * 10 + i));
        MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, next, i, r, (int)n, MPI_BYTE, prev, i,
                            MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == i && count == (int)n,
              "Sendrecv %zu: source %d tag %d count %d", n, st.MPI_SOURCE, st.MPI_TAG, count);
        CHECK_DATA(r, n, (unsigned)(prev * 10 + i), "Sendrecv of %zu bytes", n);

        /* The other way, wildcards on the receive. */
        MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, prev, 100 + i, r, (int)n, MPI_BYTE, MPI_ANY_SOURCE,
                            MPI_ANY_TAG, wild, &st));
        CHECK(st.MPI_SOURCE == next && st.MPI_TAG == 100 + i, "Sendrecv wildcard: source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        CHECK_DATA(r, n, (unsigned)(next * 10 + i), "Sendrecv backwards of %zu bytes", n);

        /* Sendrecv_replace: one shift brings the previous rank's data. */
        mt_fill(s, n, (unsigned)(mt_rank * 10 + i + 5));
        MPI_OK(MPI_Sendrecv_replace(s, (int)n, MPI_BYTE, next, 200 + i, prev, 200 + i,
                                    MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(st.MPI_SOURCE == prev && count == (int)n, "Sendrecv_replace: source %d count %d",
              st.MPI_SOURCE, count);
        CHECK_DATA(s, n, (unsigned)(prev * 10 + i + 5), "Sendrecv_replace of %zu bytes", n);

        /* To self on COMM_SELF. */
        mt_fill(s, n, 3);
        MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, 0, 1, r, (int)n, MPI_BYTE, 0, 1, MPI_COMM_SELF,
                            MPI_STATUS_IGNORE));
        CHECK_DATA(r, n, 3, "Sendrecv to self of %zu bytes", n);
        MPI_OK(MPI_Sendrecv_replace(s, (int)n, MPI_BYTE, 0, 2, 0, 2, MPI_COMM_SELF,
                                    MPI_STATUS_IGNORE));
        CHECK_DATA(s, n, 3, "Sendrecv_replace to self of %zu bytes", n);
        free(s);
        free(r);
    }

    /* PROC_NULL on either side. */
    int x = 11, y = -1;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                        MPI_COMM_WORLD, &st));
    CHECK(y == -1, "Sendrecv from PROC_NULL changed the buffer");
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Sendrecv from PROC_NULL");
    /* A line: rank 0 has no left neighbour, the last rank no right one. */
    int left = mt_rank > 0 ? mt_rank - 1 : MPI_PROC_NULL;
    int right = mt_rank < mt_size - 1 ? mt_rank + 1 : MPI_PROC_NULL;
    x = mt_rank;
    y = -1;
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, right, 3, &y, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &st));
    if (left == MPI_PROC_NULL) {
        CHECK(y == -1, "line shift: rank 0 buffer changed");
        CHECK_EMPTY(&st, MPI_PROC_NULL, "line shift from PROC_NULL");
    } else {
        CHECK(y == left && st.MPI_SOURCE == left, "line shift: got %d from %d", y, st.MPI_SOURCE);
    }
    x = mt_rank;
    MPI_OK(MPI_Sendrecv_replace(&x, 1, MPI_INT, left, 4, right, 4, MPI_COMM_WORLD, &st));
    if (right == MPI_PROC_NULL) {
        CHECK(x == mt_rank, "Sendrecv_replace from PROC_NULL changed the buffer");
        CHECK_EMPTY(&st, MPI_PROC_NULL, "Sendrecv_replace from PROC_NULL");
    } else {
        CHECK(x == right, "Sendrecv_replace line: got %d, expected %d", x, right);
    }
    MPI_OK(MPI_Comm_free(&wild));
    return mt_finish();
}
