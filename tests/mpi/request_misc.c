/* Request_free of active requests (a freed send still delivers; a freed receive is not
 * allowed by good practice, so only sends), Request_get_status (does not free the request, the
 * request completes normally afterwards), Request_get_status on MPI_REQUEST_NULL, and requests
 * in flight across many outstanding operations. Pairs of ranks (0,1), (2,3). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Status st;
    int flag = 0;

    MPI_OK(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
    CHECK(flag == 1, "Request_get_status(MPI_REQUEST_NULL): flag %d", flag);
    CHECK_EMPTY(&st, MPI_ANY_SOURCE, "Request_get_status(MPI_REQUEST_NULL)");

    int peer = mt_rank ^ 1;
    if (peer < mt_size) {
        size_t sizes[3] = {4, 5000, 400000};
        for (int i = 0; i < 3; i++) {
            size_t n = sizes[i];
            unsigned char *b = mt_malloc(n);
            if (mt_rank < peer) {
                /* Freed active send: the message still arrives; a reply says it did. */
                MPI_Request r;
                mt_fill(b, n, (unsigned)i);
                MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, peer, i, MPI_COMM_WORLD, &r));
                MPI_OK(MPI_Request_free(&r));
                CHECK(r == MPI_REQUEST_NULL, "Request_free of an active send left the handle");
                int ack = 0;
                MPI_OK(
                    MPI_Recv(&ack, 1, MPI_INT, peer, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CHECK(ack == 1, "peer says the freed send's message was wrong");
                /* Only now is the buffer known to be free. */
            } else {
                memset(b, 0, n);
                MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                int ok = mt_verify(b, n, (unsigned)i) < 0;
                CHECK(ok, "message of a freed Isend of %zu bytes is wrong", n);
                MPI_OK(MPI_Send(&ok, 1, MPI_INT, peer, 100 + i, MPI_COMM_WORLD));
            }
            free(b);
        }

        /* Request_get_status polls without freeing. */
        int v = -1, w = 4242;
        MPI_Request r;
        if (mt_rank < peer) {
            MPI_OK(MPI_Irecv(&v, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Request_get_status(r, &flag, &st));
            CHECK(flag == 0, "Request_get_status of an unmatched receive: flag %d", flag);
            MPI_OK(MPI_Send(&w, 1, MPI_INT, peer, 8, MPI_COMM_WORLD)); /* "send now" */
            flag = 0;
            while (!flag)
                MPI_OK(MPI_Request_get_status(r, &flag, &st));
            CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed the request");
            CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 7, "Request_get_status status: %d %d",
                  st.MPI_SOURCE, st.MPI_TAG);
            MPI_OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
            CHECK(flag == 1, "Request_get_status a second time: flag %d", flag);
            MPI_OK(MPI_Wait(&r, &st));
            CHECK(r == MPI_REQUEST_NULL && st.MPI_TAG == 7 && v == 4343,
                  "Wait after Request_get_status: tag %d value %d", st.MPI_TAG, v);
        } else {
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            w = v + 101;
            MPI_OK(MPI_Isend(&w, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r));
            flag = 0;
            while (!flag)
                MPI_OK(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
            CHECK(r != MPI_REQUEST_NULL, "Request_get_status freed a send request");
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
            CHECK(r == MPI_REQUEST_NULL, "Wait did not free the send request");
        }

        /* Freed persistent request that is inactive; freed active persistent send. */
        int x = 9, y = -1;
        if (mt_rank < peer) {
            MPI_OK(MPI_Send_init(&x, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, &r));
            MPI_OK(MPI_Start(&r));
            MPI_OK(MPI_Request_free(&r));
            MPI_OK(MPI_Recv(&y, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(y == 9, "freed active persistent send: peer got %d", y);
        } else {
            MPI_OK(MPI_Recv(&y, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Send(&y, 1, MPI_INT, peer, 12, MPI_COMM_WORLD));
        }
    }
    return mt_finish();
}
