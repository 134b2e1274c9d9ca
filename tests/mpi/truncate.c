/* Truncation: a message longer than the receive buffer gives MPI_ERR_TRUNCATE (with
 * MPI_ERRORS_RETURN) from Recv, Wait, Test, Mrecv, and MPI_ERR_IN_STATUS from Waitall with
 * the class in that status's MPI_ERROR; nothing past the receive buffer is written; eager and
 * large messages; communication goes on normally afterwards. Rank 0 sends to rank 1 (or to
 * itself when alone). */
#include "mpitest.h"

#define GUARD 64

static int guard_ok(const unsigned char *b, size_t from)
{
    for (size_t i = from; i < from + GUARD; i++)
        if (b[i] != 0xab)
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int to = mt_size > 1 ? 1 : 0;
    size_t sizes[] = {100, 5000, 100000, (2u << 20) + 5};
    for (int i = 0; i < 4; i++) {
        size_t n = sizes[i], small = n / 2;
        unsigned char *s = mt_malloc(n), *r = mt_malloc(small + GUARD);
        MPI_Request sreq = MPI_REQUEST_NULL;
        mt_fill(s, n, (unsigned)i);
        for (int how = 0; how < 5; how++) {
            int tag = i * 10 + how;
            if (mt_rank == 0)
                MPI_OK(MPI_Isend(s, (int)n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &sreq));
            if (mt_rank == to) {
                MPI_Status st;
                MPI_Request rr;
                int rc = MPI_SUCCESS, flag = 0;
                memset(r, 0xab, small + GUARD);
                switch (how) {
                case 0:
                    rc = MPI_Recv(r, (int)small, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
                    CHECK_CLASS(rc, MPI_ERR_TRUNCATE, "Recv of a long message");
                    break;
                case 1:
                    MPI_OK(MPI_Irecv(r, (int)small, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rr));
                    rc = MPI_Wait(&rr, &st);
                    CHECK_CLASS(rc, MPI_ERR_TRUNCATE, "Irecv + Wait of a long message");
                    break;
                case 2:
                    MPI_OK(MPI_Irecv(r, (int)small, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                                     MPI_COMM_WORLD, &rr));
                    while (!flag && rc == MPI_SUCCESS)
                        rc = MPI_Test(&rr, &flag, &st);
                    CHECK_CLASS(rc, MPI_ERR_TRUNCATE, "Irecv + Test of a long message");
                    break;
                case 3: {
                    MPI_Request two[2];
                    MPI_Status sts[2];
                    int x = -1;
                    MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &two[0]));
                    MPI_OK(MPI_Irecv(r, (int)small, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &two[1]));
                    rc = MPI_Waitall(2, two, sts);
                    CHECK_CLASS(rc, MPI_ERR_IN_STATUS, "Waitall with a truncated receive");
                    if (rc != MPI_SUCCESS) {
                        CHECK_CLASS(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE,
                                    "MPI_ERROR of the truncated receive in Waitall");
                        CHECK(sts[0].MPI_ERROR == MPI_SUCCESS ||
                                  sts[0].MPI_ERROR == MPI_ERR_PENDING,
                              "MPI_ERROR of the good request in Waitall: %d", sts[0].MPI_ERROR);
                    }
                    st = sts[1];
                    break;
                }
                default: {
                    MPI_Message m;
                    MPI_OK(MPI_Mprobe(0, tag, MPI_COMM_WORLD, &m, &st));
                    rc = MPI_Mrecv(r, (int)small, MPI_BYTE, &m, &st);
                    CHECK_CLASS(rc, MPI_ERR_TRUNCATE, "Mrecv of a long message");
                    break;
                }
                }
                CHECK(guard_ok(r, small), "truncated receive %d of %zu bytes wrote past the buffer",
                      how, n);
                CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == tag,
                      "truncated receive %d: status source %d tag %d", how, st.MPI_SOURCE,
                      st.MPI_TAG);
            }
            if (mt_rank == 0)
                MPI_Wait(&sreq, MPI_STATUS_IGNORE); /* the sender's outcome is not specified */
            /* Communication goes on: an exact-size message afterwards. */
            if (mt_rank == 0)
                MPI_OK(MPI_Isend(s, (int)small, MPI_BYTE, to, 999, MPI_COMM_WORLD, &sreq));
            if (mt_rank == to) {
                memset(r, 0, small);
                MPI_OK(
                    MPI_Recv(r, (int)small, MPI_BYTE, 0, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK_DATA(r, small, (unsigned)i, "message after a truncation");
            }
            if (mt_rank == 0)
                MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
        }
        free(s);
        free(r);
    }
    return mt_finish();
}
