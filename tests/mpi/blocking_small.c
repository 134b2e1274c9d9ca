/* Blocking sends and receives of small messages, where Ferry takes a path without requests
 * (src/p2p: fy_p2p_send_now, fy_p2p_recv_now): whatever arrives first, every receive gets the
 * message MPI says it must, with the right status.
 *   - a ping-pong of every size from 0 to 2 KiB, data and status (source, tag, count) checked,
 *     MPI_ERROR left as the caller set it (only multi-completion calls set it);
 *   - messages that arrive before the one wanted: another tag, another communicator, a
 *     synchronous send, one too long for the buffer (MPI_ERR_TRUNCATE, then the rest still in
 *     order);
 *   - MPI_ANY_TAG and a derived contiguous type with a lower bound.
 * Ranks pair up (0-1, 2-3, ...); an odd last rank only takes part in the final check. */
#include "mpitest.h"

#define MAXN 2048

static void check_status(const MPI_Status *st, int src, int tag, int count, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(st->MPI_SOURCE == src && st->MPI_TAG == tag && n == count,
          "%s: status source %d tag %d count %d, expected %d %d %d", what, st->MPI_SOURCE,
          st->MPI_TAG, n, src, tag, count);
    CHECK(st->MPI_ERROR == 12345, "%s: MPI_ERROR changed to %d by a single receive", what,
          st->MPI_ERROR);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int peer = mt_rank ^ 1;
    MPI_Comm dup; /* collective: every rank makes it */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    if (peer < mt_size) {
        unsigned char *buf = mt_malloc(MAXN), *want = mt_malloc(MAXN);
        MPI_Status st;
        /* Ping-pong of every size. */
        for (int n = 0; n <= MAXN; n += n < 64 ? 1 : 61) {
            mt_fill(want, (size_t)n, (unsigned)n);
            if (mt_rank < peer) {
                MPI_OK(MPI_Send(want, n, MPI_BYTE, peer, n % 7, MPI_COMM_WORLD));
                memset(buf, 0, MAXN);
                st.MPI_ERROR = 12345;
                MPI_OK(MPI_Recv(buf, MAXN, MPI_BYTE, peer, n % 5, MPI_COMM_WORLD, &st));
            } else {
                memset(buf, 0, MAXN);
                st.MPI_ERROR = 12345;
                MPI_OK(MPI_Recv(buf, MAXN, MPI_BYTE, peer, n % 7, MPI_COMM_WORLD, &st));
                check_status(&st, peer, n % 7, n, "ping");
                CHECK(memcmp(buf, want, (size_t)n) == 0, "ping of %d bytes: data differ", n);
                MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, n % 5, MPI_COMM_WORLD));
                continue;
            }
            check_status(&st, peer, n % 5, n, "pong");
            CHECK(memcmp(buf, want, (size_t)n) == 0, "pong of %d bytes: data differ", n);
        }

        /* Arrivals before the wanted message. */
        MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        int v[8];
        if (mt_rank < peer) {
            int a = 1, b = 2, c = 3, d = 4, e[4] = {5, 6, 7, 8}, f = 9;
            MPI_OK(MPI_Send(&a, 1, MPI_INT, peer, 2, MPI_COMM_WORLD)); /* another tag */
            MPI_OK(MPI_Send(&b, 1, MPI_INT, peer, 1, dup));            /* another comm */
            MPI_OK(MPI_Send(&c, 1, MPI_INT, peer, 1, MPI_COMM_WORLD)); /* the wanted one */
            MPI_Request r;
            MPI_OK(MPI_Issend(&d, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &r)); /* synchronous */
            MPI_OK(MPI_Send(e, 4, MPI_INT, peer, 4, MPI_COMM_WORLD)); /* too long for 2 ints */
            MPI_OK(MPI_Send(&f, 1, MPI_INT, peer, 5, MPI_COMM_WORLD));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
            st.MPI_ERROR = 12345;
            MPI_OK(MPI_Recv(v, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &st));
            CHECK(v[0] == 3, "tag 1 on COMM_WORLD: got %d, expected 3", v[0]);
            check_status(&st, peer, 1, (int)sizeof(int), "tag 1 after tag 2");
            MPI_OK(MPI_Recv(v, 1, MPI_INT, peer, 1, dup, MPI_STATUS_IGNORE));
            CHECK(v[0] == 2, "tag 1 on the dup: got %d, expected 2", v[0]);
            MPI_OK(MPI_Recv(v, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            CHECK(v[0] == 1 && st.MPI_TAG == 2, "ANY_TAG: got %d tag %d, expected 1 tag 2", v[0],
                  st.MPI_TAG);
            MPI_OK(MPI_Recv(v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v[0] == 4, "synchronous send: got %d, expected 4", v[0]);
            int rc = MPI_Recv(v, 2, MPI_INT, peer, 4, MPI_COMM_WORLD, &st);
            int cls = -1;
            MPI_Error_class(rc, &cls);
            CHECK(cls == MPI_ERR_TRUNCATE, "16 bytes into 8: error class %d, expected TRUNCATE",
                  cls);
            /* A contiguous type whose data starts at byte 4 (its lower bound): it lands there. */
            MPI_Datatype t;
            MPI_Aint at = sizeof(int);
            MPI_OK(MPI_Type_create_hindexed_block(1, 1, &at, MPI_INT, &t));
            MPI_OK(MPI_Type_commit(&t));
            v[0] = v[1] = 0;
            MPI_OK(MPI_Recv(v, 1, t, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(v[0] == 0 && v[1] == 9, "type with lb 4: got %d %d, expected 0 9", v[0], v[1]);
            MPI_Type_free(&t);
        }
        free(buf);
        free(want);
    }
    MPI_OK(MPI_Comm_free(&dup));
    return mt_finish();
}
