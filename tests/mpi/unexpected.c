/* Unexpected messages: every other rank starts many Isends to rank 0 (1000 small ones in
 * total per sender, plus a few eager-sized and large ones) before rank 0 posts any receive;
 * rank 0 waits for an "all sent" note from each sender, then receives them in an order
 * unrelated to the sending order (reverse tag order), checking every byte. */
#include "mpitest.h"

#define NSMALL 1000
#define NBIG 8
#define DONE_TAG 30000

static size_t big_size(int j)
{
    return j % 2 ? 70000 + (size_t)j : 5000 + (size_t)j;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int nsmall = NSMALL;
    if (mt_size > 4)
        nsmall = NSMALL / 4; /* keep 8 ranks on 2 cores quick */
    if (mt_rank != 0) {
        int *small = mt_malloc((size_t)nsmall * 2 * sizeof(int));
        unsigned char *big[NBIG];
        MPI_Request *reqs = mt_malloc((size_t)(nsmall + NBIG) * sizeof *reqs);
        for (int i = 0; i < nsmall; i++) {
            small[2 * i] = i;
            small[2 * i + 1] = mt_rank;
            MPI_OK(MPI_Isend(&small[2 * i], 2, MPI_INT, 0, i, MPI_COMM_WORLD, &reqs[i]));
        }
        for (int j = 0; j < NBIG; j++) {
            big[j] = mt_malloc(big_size(j));
            mt_fill(big[j], big_size(j), (unsigned)(mt_rank * 100 + j));
            MPI_OK(MPI_Isend(big[j], (int)big_size(j), MPI_BYTE, 0, 20000 + j, MPI_COMM_WORLD,
                             &reqs[nsmall + j]));
        }
        MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 0, DONE_TAG, MPI_COMM_WORLD));
        MPI_OK(MPI_Waitall(nsmall + NBIG, reqs, MPI_STATUSES_IGNORE));
        for (int j = 0; j < NBIG; j++)
            free(big[j]);
        free(small);
        free(reqs);
    } else {
        for (int src = 1; src < mt_size; src++)
            MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, src, DONE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        /* Let the small messages settle in the unexpected queue. */
        double t0 = MPI_Wtime();
        while (MPI_Wtime() - t0 < 0.05)
            ;
        for (int src = 1; src < mt_size; src++) {
            /* Large ones first, in reverse. */
            for (int j = NBIG - 1; j >= 0; j--) {
                size_t n = big_size(j);
                unsigned char *b = mt_malloc(n);
                MPI_Status st;
                int count = -1;
                MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, src, 20000 + j, MPI_COMM_WORLD, &st));
                MPI_Get_count(&st, MPI_BYTE, &count);
                CHECK(count == (int)n, "big %d from %d: count %d", j, src, count);
                CHECK_DATA(b, n, (unsigned)(src * 100 + j), "big message %d from %d", j, src);
                free(b);
            }
            /* Small ones: nonblocking, posted in reverse tag order, completed with Waitall. */
            int *vals = mt_malloc((size_t)nsmall * 2 * sizeof(int));
            MPI_Request *reqs = mt_malloc((size_t)nsmall * sizeof *reqs);
            for (int i = nsmall - 1; i >= 0; i--)
                MPI_OK(MPI_Irecv(&vals[2 * i], 2, MPI_INT, src, i, MPI_COMM_WORLD, &reqs[i]));
            MPI_OK(MPI_Waitall(nsmall, reqs, MPI_STATUSES_IGNORE));
            int bad = -1;
            for (int i = 0; i < nsmall && bad < 0; i++)
                if (vals[2 * i] != i || vals[2 * i + 1] != src)
                    bad = i;
            CHECK(bad < 0, "small message with tag %d from %d holds %d/%d", bad, src,
                  bad < 0 ? 0 : vals[2 * bad], bad < 0 ? 0 : vals[2 * bad + 1]);
            free(vals);
            free(reqs);
        }
        int flag = 1;
        MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "a message is left over after all were received");
    }
    return mt_finish();
}
