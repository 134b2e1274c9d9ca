/* Wildcard receives under a protocol that makes the outcome deterministic:
 *  1. Rank 0 lets one rank at a time speak (a "go" message) and receives its answer with
 *     MPI_ANY_SOURCE/MPI_ANY_TAG, printing the status it got.
 *  2. All ranks send at once; rank 0 receives them with MPI_ANY_SOURCE in any order and
 *     files each by status.MPI_SOURCE, then prints them in rank order.
 *  3. MPI_ANY_SOURCE + MPI_ANY_TAG with Waitany over posted receives: printed by source.
 *  4. MPI_PROC_NULL as source and destination: the status it gives.
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Status st;

    /* 1 */
    if (rank == 0) {
        for (int i = 1; i < size; i++) {
            int go = i * 11, ans[4] = {0}, count;
            MPI_Send(&go, 1, MPI_INT, i, 1, MPI_COMM_WORLD);
            MPI_Recv(ans, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &count);
            printf("turn %d: src=%d tag=%d count=%d first=%d\n", i, st.MPI_SOURCE, st.MPI_TAG,
                   count, ans[0]);
        }
    } else {
        int go, ans[4];
        MPI_Recv(&go, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
        for (int i = 0; i < 4; i++)
            ans[i] = go + i;
        MPI_Send(ans, rank % 4 + 1, MPI_INT, 0, 40 + rank, MPI_COMM_WORLD);
    }

    /* Nobody starts the next phase before rank 0 has finished this one: its wildcards must
     * see only this phase's messages. */
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2 */
    if (rank == 0) {
        long got[64] = {0};
        int tags[64] = {0};
        for (int i = 1; i < size; i++) {
            long v;
            MPI_Recv(&v, 1, MPI_LONG, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
            got[st.MPI_SOURCE] = v;
            tags[st.MPI_SOURCE] = st.MPI_TAG;
        }
        printf("all:");
        for (int i = 1; i < size; i++)
            printf(" %d:%ld/%d", i, got[i], tags[i]);
        printf("\n");
    } else {
        long v = 1000L * rank + rank * rank;
        MPI_Send(&v, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD);
    }

    MPI_Barrier(MPI_COMM_WORLD);

    /* 3 */
    if (rank == 0) {
        MPI_Request rq[64];
        double vals[64];
        int n = size - 1, src_of[64];
        for (int i = 0; i < n; i++)
            MPI_Irecv(&vals[i], 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]);
        double by_src[64];
        for (int k = 0; k < n; k++) {
            int idx;
            MPI_Waitany(n, rq, &idx, &st);
            by_src[st.MPI_SOURCE] = vals[idx];
            src_of[k] = st.MPI_SOURCE;
            if (st.MPI_TAG != 300 + st.MPI_SOURCE)
                printf("wrong tag %d from %d\n", st.MPI_TAG, st.MPI_SOURCE);
        }
        (void)src_of;
        int idx;
        MPI_Waitany(n, rq, &idx, &st);
        printf("waitany: after all done idx=%s\n", idx == MPI_UNDEFINED ? "MPI_UNDEFINED" : "?");
        printf("by source:");
        for (int i = 1; i < size; i++)
            printf(" %.3f", by_src[i]);
        printf("\n");
    } else {
        double v = rank / 8.0 + 2;
        MPI_Send(&v, 1, MPI_DOUBLE, 0, 300 + rank, MPI_COMM_WORLD);
    }

    /* 4 */
    if (rank == 0) {
        int x = 5, count = -7;
        MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD);
        MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        printf("proc_null: x=%d src=%s tag=%s count=%d\n", x,
               st.MPI_SOURCE == MPI_PROC_NULL ? "MPI_PROC_NULL" : "?",
               st.MPI_TAG == MPI_ANY_TAG ? "MPI_ANY_TAG" : "?", count);
    }
    MPI_Finalize();
    return 0;
}
