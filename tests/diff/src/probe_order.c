/* Tag matching and message ordering. Every rank but 0 sends rank 0 a fixed sequence of
 * messages with various tags and lengths. Rank 0, one source at a time in rank order, first
 * picks messages out by specific tags (the earliest message with that tag must match),
 * then drains the rest with MPI_ANY_TAG (in the order sent), using MPI_Probe and
 * MPI_Get_count to size each receive. It prints what it matched. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NMSG 8
static const int tags[NMSG] = {3, 1, 3, 2, 1, 5, 3, 4};

static void print_msg(const char *how, MPI_Status *st, const int *buf, int count)
{
    printf("%s src=%d tag=%d count=%d data=", how, st->MPI_SOURCE, st->MPI_TAG, count);
    for (int i = 0; i < count; i++)
        printf("%s%d", i ? "," : "", buf[i]);
    printf("\n");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank != 0) {
        for (int k = 0; k < NMSG; k++) {
            int len = (k * 3 + rank) % 5 + 1, buf[8];
            for (int i = 0; i < len; i++)
                buf[i] = rank * 1000 + k * 10 + i;
            MPI_Send(buf, len, MPI_INT, 0, tags[k], MPI_COMM_WORLD);
        }
        /* A zero-length message closes the sequence. */
        MPI_Send(NULL, 0, MPI_INT, 0, 99, MPI_COMM_WORLD);
    } else {
        for (int src = 1; src < size; src++) {
            int buf[8], count;
            MPI_Status st;
            /* Specific tags first: tag 3 (three of them, take two), then 4, then 1. */
            const int pick[] = {3, 3, 4, 1};
            for (unsigned j = 0; j < sizeof pick / sizeof pick[0]; j++) {
                MPI_Probe(src, pick[j], MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &count);
                MPI_Recv(buf, count, MPI_INT, src, pick[j], MPI_COMM_WORLD, &st);
                print_msg("tag", &st, buf, count);
            }
            /* The rest with MPI_ANY_TAG, in the order sent. */
            for (;;) {
                int flag = 0;
                MPI_Probe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &count);
                MPI_Recv(buf, 8, MPI_INT, src, st.MPI_TAG, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_INT, &count);
                print_msg("any", &st, buf, count);
                if (st.MPI_TAG == 99) {
                    MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
                    printf("after close: pending=%d\n", flag);
                    break;
                }
            }
        }
        /* Messages to self, matched out of order by tag. */
        MPI_Request rq[3];
        int a = 1, b = 2, c = 3, r[3];
        MPI_Status sts[3];
        MPI_Isend(&a, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &rq[1]);
        MPI_Isend(&c, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &rq[2]);
        MPI_Recv(&r[0], 1, MPI_INT, 0, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&r[1], 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&r[2], 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Waitall(3, rq, sts);
        printf("self: %d %d %d\n", r[0], r[1], r[2]);
    }
    MPI_Finalize();
    return 0;
}
