/* Communicators: size/rank, Comm_dup (same size and rank, new context: messages on a dup never
 * match receives on the original or another dup), Comm_free sets the handle to COMM_NULL, dups
 * of dups, freeing in any order, traffic on COMM_SELF. */
#include "mpitest.h"

#define NDUPS 5

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int size = -1, rank = -1;
    MPI_Comm dups[NDUPS];

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dups[0]));
    for (int i = 1; i < NDUPS; i++)
        MPI_OK(MPI_Comm_dup(dups[i - 1], &dups[i]));
    for (int i = 0; i < NDUPS; i++) {
        CHECK(dups[i] != MPI_COMM_WORLD && dups[i] != MPI_COMM_NULL, "dup %d handle", i);
        MPI_OK(MPI_Comm_size(dups[i], &size));
        MPI_OK(MPI_Comm_rank(dups[i], &rank));
        CHECK(size == mt_size && rank == mt_rank, "dup %d: size %d rank %d, expected %d %d", i,
              size, rank, mt_size, mt_rank);
        for (int j = 0; j < i; j++)
            CHECK(dups[i] != dups[j], "dups %d and %d have the same handle", i, j);
    }

    /* Each rank sends to the next rank on every dup in reverse order, then on WORLD, all with the
     * same tag; the receiver receives on WORLD first with wildcards: it must get the WORLD
     * message, then each dup's message. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int vals[NDUPS + 1];
    MPI_Request reqs[NDUPS + 1];
    for (int i = NDUPS - 1; i >= 0; i--) {
        vals[i] = 1000 * (i + 1) + mt_rank;
        MPI_OK(MPI_Isend(&vals[i], 1, MPI_INT, next, 7, dups[i], &reqs[i]));
    }
    vals[NDUPS] = mt_rank;
    MPI_OK(MPI_Isend(&vals[NDUPS], 1, MPI_INT, next, 7, MPI_COMM_WORLD, &reqs[NDUPS]));

    int in = -1;
    MPI_Status st;
    MPI_OK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(in == prev, "WORLD receive matched %d, expected the WORLD message %d", in, prev);
    CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 7, "WORLD status source %d tag %d", st.MPI_SOURCE,
          st.MPI_TAG);
    for (int i = 0; i < NDUPS; i++) {
        in = -1;
        MPI_OK(MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dups[i], &st));
        CHECK(in == 1000 * (i + 1) + prev, "dup %d receive got %d, expected %d", i, in,
              1000 * (i + 1) + prev);
    }
    MPI_OK(MPI_Waitall(NDUPS + 1, reqs, MPI_STATUSES_IGNORE));

    /* A pending receive on WORLD is not matched by a send on a dup. */
    MPI_Request r;
    int got = -1, out = 42;
    int flag = 0;
    MPI_Request sreq;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, prev, 9, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, next, 9, dups[2], &sreq));
    int in2 = -1;
    MPI_OK(MPI_Recv(&in2, 1, MPI_INT, prev, 9, dups[2], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK(in2 == 42, "dup message got %d", in2);
    MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    CHECK(!flag, "a receive on WORLD was matched by a send on a dup");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends on WORLD before every rank tested */
    out = 43;
    MPI_OK(MPI_Isend(&out, 1, MPI_INT, next, 9, MPI_COMM_WORLD, &sreq));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    CHECK(got == 43, "WORLD receive got %d, expected 43", got);

    /* Free in a scrambled order. */
    int order[NDUPS] = {2, 0, 4, 1, 3};
    for (int i = 0; i < NDUPS; i++) {
        MPI_OK(MPI_Comm_free(&dups[order[i]]));
        CHECK(dups[order[i]] == MPI_COMM_NULL, "Comm_free did not set dup %d to COMM_NULL",
              order[i]);
    }

    /* Many dup/free cycles (context ids are reused or not, either way it must work). */
    for (int i = 0; i < (mt_size > 4 ? 10 : 50); i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        int v = i + mt_rank, w = -1;
        MPI_OK(
            MPI_Sendrecv(&v, 1, MPI_INT, next, i, &w, 1, MPI_INT, prev, i, c, MPI_STATUS_IGNORE));
        CHECK(w == i + prev, "dup/free cycle %d: got %d", i, w);
        MPI_OK(MPI_Comm_free(&c));
    }

    /* COMM_SELF, and a dup of it. */
    MPI_Comm self2;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &self2));
    MPI_OK(MPI_Comm_size(self2, &size));
    MPI_OK(MPI_Comm_rank(self2, &rank));
    CHECK(size == 1 && rank == 0, "dup of SELF: size %d rank %d", size, rank);
    int a = 5, b = 6, ra = -1, rb = -1;
    MPI_Request sr[2];
    MPI_OK(MPI_Isend(&a, 1, MPI_INT, 0, 0, MPI_COMM_SELF, &sr[0]));
    MPI_OK(MPI_Isend(&b, 1, MPI_INT, 0, 0, self2, &sr[1]));
    MPI_OK(MPI_Recv(&rb, 1, MPI_INT, 0, 0, self2, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(&ra, 1, MPI_INT, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Waitall(2, sr, MPI_STATUSES_IGNORE));
    CHECK(ra == 5 && rb == 6, "SELF / dup of SELF got %d %d, expected 5 6", ra, rb);
    MPI_OK(MPI_Comm_free(&self2));
    return mt_finish();
}
