/* MPI_Comm_free while operations on the communicator are pending (MPI 4.1 7.4.3: the object is
 * marked for deallocation; pending operations complete normally): a synchronous send and its
 * receive, a nonblocking barrier, and a persistent request started before the free all complete
 * with the right data and status after it, and a new communicator made meanwhile (which may take
 * the freed one's handle) never receives their messages. Run under AddressSanitizer by make
 * check, which catches a communicator freed too early. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    MPI_Comm d, e;
    MPI_Request r[4];
    MPI_Status st[4];
    int out = 100 + mt_rank, in = -1, pin = -1;

    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Irecv(&in, 1, MPI_INT, prev, 5, d, &r[0]));
    MPI_OK(MPI_Issend(&out, 1, MPI_INT, next, 5, d, &r[1]));
    MPI_OK(MPI_Ibarrier(d, &r[2]));
    MPI_OK(MPI_Recv_init(&pin, 1, MPI_INT, prev, 6, d, &r[3]));
    MPI_OK(MPI_Start(&r[3]));
    MPI_OK(MPI_Comm_free(&d));
    CHECK(d == MPI_COMM_NULL, "MPI_Comm_free did not set the handle to MPI_COMM_NULL");

    /* A new communicator now; its traffic must not meet the old one's. */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &e));
    int x = -1, y = 300 + mt_rank;
    MPI_OK(MPI_Sendrecv(&y, 1, MPI_INT, next, 6, &x, 1, MPI_INT, prev, 6, e, MPI_STATUS_IGNORE));
    CHECK(x == 300 + prev, "traffic on the new communicator: got %d, expected %d", x, 300 + prev);
    /* The old communicator's persistent receive (tag 6) is matched only by a send on the old
     * context, which no longer has a handle: the receive is cancelled instead. */
    MPI_OK(MPI_Cancel(&r[3]));

    MPI_OK(MPI_Waitall(3, r, st));
    CHECK(in == 100 + prev, "receive posted before the free: got %d, expected %d", in, 100 + prev);
    CHECK(st[0].MPI_SOURCE == prev && st[0].MPI_TAG == 5, "status (%d,%d)", st[0].MPI_SOURCE,
          st[0].MPI_TAG);
    MPI_OK(MPI_Wait(&r[3], &st[3]));
    int flag = 0;
    MPI_OK(MPI_Test_cancelled(&st[3], &flag));
    CHECK(flag && pin == -1, "persistent receive: cancelled %d, buffer %d", flag, pin);
    MPI_OK(MPI_Request_free(&r[3]));
    MPI_OK(MPI_Comm_free(&e));
    return mt_finish();
}
