/* MPI_Isendrecv and MPI_Isendrecv_replace (and the _c forms) around a ring: small (eager) and
 * large (rendezvous) messages, a derived (strided) datatype on the receive side and in place,
 * MPI_PROC_NULL on either side or both, the status of the receive (source, tag, count), many
 * outstanding at once completed by Waitall in reverse order, one completed by Test polling,
 * one freed with MPI_Request_free before it completes (its data still arrive), and the
 * replace buffer reused by the caller only after completion. */
#include "mpitest.h"

#define BIG 100000 /* ints: above the eager limit */
#define NOUT 16

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    MPI_Status st;
    MPI_Request r;
    int cnt;

    /* Small and large, plain. */
    for (int n = 1; n <= BIG; n *= 100) {
        int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) {
            out[i] = mt_rank * 1000003 + i;
            in[i] = -1;
        }
        MPI_OK(MPI_Isendrecv(out, n, MPI_INT, to, 5, in, n, MPI_INT, from, 5, MPI_COMM_WORLD,
                             &r));
        MPI_OK(MPI_Wait(&r, &st));
        MPI_Get_count(&st, MPI_INT, &cnt);
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 5 && cnt == n,
              "n=%d: status (%d,%d,count %d)", n, st.MPI_SOURCE, st.MPI_TAG, cnt);
        for (int i = 0; i < n; i++)
            if (in[i] != from * 1000003 + i) {
                CHECK(0, "n=%d: element %d is %d", n, i, in[i]);
                break;
            }
        /* The same in place, with the large count form. */
        for (int i = 0; i < n; i++)
            in[i] = mt_rank * 7 + i;
        MPI_OK(MPI_Isendrecv_replace_c(in, n, MPI_INT, to, 6, from, 6, MPI_COMM_WORLD, &r));
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Test(&r, &flag, &st));
        CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 6, "replace n=%d: status (%d,%d)", n,
              st.MPI_SOURCE, st.MPI_TAG);
        for (int i = 0; i < n; i++)
            if (in[i] != from * 7 + i) {
                CHECK(0, "replace n=%d: element %d is %d", n, i, in[i]);
                break;
            }
        free(out);
        free(in);
    }

    /* A strided type: every other int of 2*m. */
    enum { M = 3000 };
    MPI_Datatype strided;
    MPI_Type_vector(M, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    static int sv[2 * M], rv[2 * M];
    for (int i = 0; i < 2 * M; i++) {
        sv[i] = mt_rank * 100000 + i;
        rv[i] = -7;
    }
    MPI_OK(MPI_Isendrecv_c(sv, M, MPI_INT, to, 8, rv, 1, strided, from, 8, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < 2 * M; i++) {
        int want = i % 2 ? -7 : from * 100000 + i / 2;
        if (rv[i] != want) {
            CHECK(0, "strided receive: element %d is %d, expected %d", i, rv[i], want);
            break;
        }
    }
    /* Replace with the strided type: odd elements must stay untouched. */
    for (int i = 0; i < 2 * M; i++)
        sv[i] = mt_rank * 100000 + i;
    MPI_OK(MPI_Isendrecv_replace(sv, 1, strided, to, 9, from, 9, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_Get_count(&st, strided, &cnt);
    CHECK(cnt == 1, "strided replace: count %d", cnt);
    for (int i = 0; i < 2 * M; i++) {
        int want = i % 2 ? mt_rank * 100000 + i : from * 100000 + i;
        if (sv[i] != want) {
            CHECK(0, "strided replace: element %d is %d, expected %d", i, sv[i], want);
            break;
        }
    }
    MPI_Type_free(&strided);

    /* MPI_PROC_NULL on the receive side, the send side, both. */
    int one = mt_rank, got = -5;
    MPI_OK(MPI_Isendrecv(&one, 1, MPI_INT, to, 10, &got, 1, MPI_INT, MPI_PROC_NULL, 10,
                         MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0 && got == -5,
          "receive from MPI_PROC_NULL: status (%d,%d,count %d), buffer %d", st.MPI_SOURCE,
          st.MPI_TAG, cnt, got);
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, from, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(got == from, "the send half reached %d", got);
    MPI_OK(MPI_Send(&one, 1, MPI_INT, to, 11, MPI_COMM_WORLD));
    MPI_OK(MPI_Isendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 11, &got, 1, MPI_INT, from,
                         11, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(got == from && st.MPI_SOURCE == from, "send to MPI_PROC_NULL: got %d from %d", got,
          st.MPI_SOURCE);
    got = -5;
    MPI_OK(MPI_Isendrecv_replace(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_PROC_NULL, 0,
                                 MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(got == -5 && st.MPI_SOURCE == MPI_PROC_NULL, "replace with MPI_PROC_NULL both sides");

    /* Many outstanding, completed in reverse order. */
    MPI_Request reqs[NOUT];
    int outv[NOUT], inv[NOUT];
    for (int k = 0; k < NOUT; k++) {
        outv[k] = mt_rank * 100 + k;
        MPI_OK(MPI_Isendrecv(&outv[k], 1, MPI_INT, to, 20 + k, &inv[k], 1, MPI_INT, from,
                             20 + (NOUT - 1 - k), MPI_COMM_WORLD, &reqs[NOUT - 1 - k]));
    }
    MPI_Status sts[NOUT];
    MPI_OK(MPI_Waitall(NOUT, reqs, sts));
    for (int k = 0; k < NOUT; k++) {
        CHECK(inv[k] == from * 100 + (NOUT - 1 - k), "outstanding %d: got %d", k, inv[k]);
        CHECK(sts[NOUT - 1 - k].MPI_TAG == 20 + (NOUT - 1 - k), "outstanding %d: tag %d", k,
              sts[NOUT - 1 - k].MPI_TAG);
    }

    /* Freed before completion: the exchange still happens. */
    static int fo[BIG], fi[BIG];
    for (int i = 0; i < BIG; i++)
        fo[i] = i ^ mt_rank;
    MPI_OK(MPI_Isendrecv(fo, BIG, MPI_INT, to, 40, fi, BIG, MPI_INT, from, 40, MPI_COMM_WORLD,
                         &r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL, "Request_free left the handle");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* not enough by itself: wait for the data below */
    int done = 0;
    MPI_OK(MPI_Sendrecv(&one, 1, MPI_INT, to, 41, &done, 1, MPI_INT, from, 41, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    return mt_finish();
}
