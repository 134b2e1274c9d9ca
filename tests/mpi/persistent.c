/* Persistent requests: Send_init, Bsend_init, Ssend_init, Rsend_init and Recv_init, started
 * several times with Start and Startall, with new data each round; Wait and Test on an
 * inactive persistent request return at once with an empty status; Request_free of inactive
 * requests; a persistent receive from MPI_ANY_SOURCE; persistent requests with PROC_NULL. Ring
 * pattern: each rank sends to next and receives from prev. */
#include "mpitest.h"

#define ROUNDS 6
#define N 1000

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int sbuf[4][N], rbuf[4][N];
    MPI_Request sreq[4], rreq[4];
    void *bb = mt_malloc(4 * (N * sizeof(int) + MPI_BSEND_OVERHEAD));
    MPI_OK(MPI_Buffer_attach(bb, (int)(4 * (N * sizeof(int) + MPI_BSEND_OVERHEAD))));

    MPI_OK(MPI_Send_init(sbuf[0], N, MPI_INT, next, 0, MPI_COMM_WORLD, &sreq[0]));
    MPI_OK(MPI_Bsend_init(sbuf[1], N, MPI_INT, next, 1, MPI_COMM_WORLD, &sreq[1]));
    MPI_OK(MPI_Ssend_init(sbuf[2], N, MPI_INT, next, 2, MPI_COMM_WORLD, &sreq[2]));
    MPI_OK(MPI_Rsend_init(sbuf[3], N, MPI_INT, next, 3, MPI_COMM_WORLD, &sreq[3]));
    for (int k = 0; k < 3; k++)
        MPI_OK(MPI_Recv_init(rbuf[k], N, MPI_INT, prev, k, MPI_COMM_WORLD, &rreq[k]));
    MPI_OK(MPI_Recv_init(rbuf[3], N, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &rreq[3]));
    MPI_Comm tokens; /* "my receives are posted" tokens travel apart from the data */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &tokens));

    /* Inactive persistent requests: Wait and Test return at once with an empty status. */
    MPI_Status st;
    int flag = 0;
    MPI_OK(MPI_Wait(&sreq[0], &st));
    CHECK(sreq[0] != MPI_REQUEST_NULL, "MPI_Wait freed an inactive persistent request");
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "MPI_Wait on an inactive persistent send");
    MPI_OK(MPI_Test(&rreq[1], &flag, &st));
    CHECK(flag && rreq[1] != MPI_REQUEST_NULL, "MPI_Test on an inactive persistent receive");
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "MPI_Test on an inactive persistent receive");

    /* Inactive persistent requests in arrays count as null: Waitany/Testany skip them,
     * Waitall/Testall give empty statuses, Waitsome reports MPI_UNDEFINED when all are
     * inactive, Request_get_status says complete. */
    int idx = -5, outcount = -5, idxs[4];
    MPI_Status sts4[4];
    MPI_OK(MPI_Waitany(4, sreq, &idx, &st));
    CHECK(idx == MPI_UNDEFINED, "Waitany over inactive persistent requests: index %d", idx);
    flag = 0;
    MPI_OK(MPI_Testany(4, rreq, &idx, &flag, &st));
    CHECK(flag && idx == MPI_UNDEFINED, "Testany over inactive requests: flag %d index %d", flag,
          idx);
    MPI_OK(MPI_Waitsome(4, rreq, &outcount, idxs, sts4));
    CHECK(outcount == MPI_UNDEFINED, "Waitsome over inactive requests: outcount %d", outcount);
    MPI_OK(MPI_Testall(4, sreq, &flag, sts4));
    CHECK(flag, "Testall over inactive requests: flag %d", flag);
    CHECK_EMPTY(&sts4[3], MPI_ANY_SOURCE, "Testall status of an inactive request");
    MPI_OK(MPI_Request_get_status(rreq[0], &flag, &st));
    CHECK(flag, "Request_get_status of an inactive persistent request: flag %d", flag);
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "Request_get_status of an inactive persistent request");
    for (int k = 0; k < 4; k++)
        CHECK(sreq[k] != MPI_REQUEST_NULL && rreq[k] != MPI_REQUEST_NULL,
              "a completion call freed inactive persistent request %d", k);

    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < N; i++) {
                sbuf[k][i] = mt_rank * 1000000 + round * 10000 + k * 1000 + i;
                rbuf[k][i] = -1;
            }
        /* Receives first; the ready-mode send starts only after the next rank has posted its
         * receive, which a zero-byte token says. */
        if (round % 2 == 0) {
            MPI_OK(MPI_Startall(4, rreq));
        } else {
            for (int k = 3; k >= 0; k--)
                MPI_OK(MPI_Start(&rreq[k]));
        }
        MPI_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, prev, 77, NULL, 0, MPI_BYTE, next, 77, tokens,
                            MPI_STATUS_IGNORE));
        if (round % 3 == 0) {
            MPI_OK(MPI_Startall(3, sreq));
        } else {
            for (int k = 0; k < 3; k++)
                MPI_OK(MPI_Start(&sreq[k]));
        }
        if (round % 2) {
            MPI_OK(MPI_Waitall(3, rreq, MPI_STATUSES_IGNORE));
        } else {
            /* Waitany: each of the three completes once; then only inactive ones remain (the
             * receive for tag 3 is active and not matched yet, so it is left out). */
            int seen = 0;
            for (int k = 0; k < 3; k++) {
                MPI_OK(MPI_Waitany(3, rreq, &idx, &st));
                CHECK(idx >= 0 && idx < 3 && !(seen & (1 << idx)),
                      "round %d: Waitany gave index %d (seen %#x)", round, idx, seen);
                if (idx >= 0 && idx < 3)
                    seen |= 1 << idx;
            }
            MPI_OK(MPI_Waitany(3, rreq, &idx, &st));
            CHECK(idx == MPI_UNDEFINED, "round %d: Waitany after all completed: %d", round, idx);
        }
        MPI_OK(MPI_Start(&sreq[3]));
        MPI_OK(MPI_Waitall(4, sreq, MPI_STATUSES_IGNORE));
        MPI_OK(MPI_Wait(&rreq[3], &st));
        CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 3,
              "round %d: wildcard receive got source %d tag %d", round, st.MPI_SOURCE, st.MPI_TAG);
        for (int k = 0; k < 4; k++) {
            int bad = -1;
            for (int i = 0; i < N && bad < 0; i++)
                if (rbuf[k][i] != prev * 1000000 + round * 10000 + k * 1000 + i)
                    bad = i;
            CHECK(bad < 0, "round %d request %d: element %d is %d", round, k, bad,
                  bad < 0 ? 0 : rbuf[k][bad]);
        }
        for (int k = 0; k < 4; k++)
            CHECK(sreq[k] != MPI_REQUEST_NULL && rreq[k] != MPI_REQUEST_NULL,
                  "round %d: completing persistent request %d freed it", round, k);
    }
    for (int k = 0; k < 4; k++) {
        MPI_OK(MPI_Request_free(&sreq[k]));
        MPI_OK(MPI_Request_free(&rreq[k]));
        CHECK(sreq[k] == MPI_REQUEST_NULL && rreq[k] == MPI_REQUEST_NULL,
              "MPI_Request_free did not set request %d to NULL", k);
    }
    void *p;
    int sz;
    MPI_OK(MPI_Buffer_detach(&p, &sz));
    free(bb);

    /* A persistent request to PROC_NULL completes at once, every time. */
    MPI_Request pn[2];
    int x = 5, y = 9;
    MPI_OK(MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn[0]));
    MPI_OK(MPI_Recv_init(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &pn[1]));
    for (int round = 0; round < 3; round++) {
        MPI_Status sts[2];
        MPI_OK(MPI_Startall(2, pn));
        MPI_OK(MPI_Waitall(2, pn, sts));
        /* Known deviation, MPICH 4.0: source MPI_ANY_SOURCE instead of MPI_PROC_NULL. */
        if (!(sts[1].MPI_SOURCE == MPI_ANY_SOURCE && mt_is_mpich40()))
            CHECK_EMPTY(&sts[1], MPI_PROC_NULL, "persistent receive from PROC_NULL");
        CHECK(y == 9, "persistent receive from PROC_NULL changed the buffer");
    }
    MPI_OK(MPI_Request_free(&pn[0]));
    MPI_OK(MPI_Request_free(&pn[1]));
    MPI_OK(MPI_Comm_free(&tokens));
    return mt_finish();
}
