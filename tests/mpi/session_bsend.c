/* A session's buffer for buffered sends (MPI 4.1: MPI_Session_attach_buffer and its detach,
 * flush and iflush forms). No process buffer is attached, so a buffered send on a communicator
 * made from the session's group can only succeed through the session's buffer:
 *   - bsends around a ring on that communicator, then Session_flush_buffer and
 *     Session_iflush_buffer, detach giving back the same address and size;
 *   - the same communicator with the session's buffer detached: MPI_Bsend fails (no buffer),
 *     and a communicator of the world model never sees the session's buffer;
 *   - MPI_BUFFER_AUTOMATIC attached and detached;
 *   - a second attach is an error, detach with none attached gives NULL and 0, an invalid
 *     session is MPI_ERR_SESSION;
 *   - MPI_Session_finalize with a buffer still attached (it is detached, as at MPI_Finalize). */
#include "mpitest.h"

#define MSGS 8
#define LEN 1000

static void ring(MPI_Comm comm, int seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    static char out[MSGS][LEN], in[LEN];
    for (int m = 0; m < MSGS; m++) {
        mt_fill(out[m], LEN, (unsigned)(seed + m + 100 * rank));
        MPI_OK(MPI_Bsend(out[m], LEN, MPI_CHAR, (rank + 1) % size, m, comm));
    }
    /* The sends are buffered: overwriting the user buffers cannot change what arrives. */
    memset(out, 0, sizeof out);
    int from = (rank + size - 1) % size;
    for (int m = 0; m < MSGS; m++) {
        MPI_OK(MPI_Recv(in, LEN, MPI_CHAR, from, m, comm, MPI_STATUS_IGNORE));
        CHECK_DATA(in, LEN, (unsigned)(seed + m + 100 * from), "ring message %d", m);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Session s;
    MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Group g;
    MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    MPI_Comm comm;
    MPI_OK(MPI_Comm_create_from_group(g, "ferry.test.session_bsend", MPI_INFO_NULL,
                                      MPI_ERRORS_RETURN, &comm));
    MPI_Group_free(&g);

    int bytes = MSGS * (LEN + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)bytes);
    MPI_OK(MPI_Session_attach_buffer(s, buf, bytes));
    CHECK_CLASS(MPI_Session_attach_buffer(s, buf, bytes), MPI_ERR_BUFFER,
                "a second MPI_Session_attach_buffer");
    ring(comm, 1);
    MPI_OK(MPI_Session_flush_buffer(s));
    ring(comm, 2);
    MPI_Request req;
    MPI_OK(MPI_Session_iflush_buffer(s, &req));
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    void *addr = NULL;
    int size = 0;
    MPI_OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == buf && size == bytes, "detach gave %p/%d, attached %p/%d", addr, size,
          (void *)buf, bytes);

    /* Nothing attached anywhere now: buffered sends have no buffer. */
    char one = 'x';
    CHECK_CLASS(MPI_Bsend(&one, 1, MPI_CHAR, 0, 99, comm), MPI_ERR_BUFFER,
                "MPI_Bsend with the session's buffer detached");
    MPI_OK(MPI_Session_attach_buffer(s, buf, bytes));
    CHECK_CLASS(MPI_Bsend(&one, 1, MPI_CHAR, 0, 99, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                "MPI_Bsend on MPI_COMM_WORLD with only a session's buffer");
    MPI_OK(MPI_Session_detach_buffer(s, &addr, &size));
    /* As MPI_Buffer_detach with nothing attached (MPICH and Open MPI alike): NULL and 0. */
    MPI_OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == NULL && size == 0, "detach with none attached gave %p/%d", addr, size);

    MPI_OK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    ring(comm, 3);
    MPI_Count csize = -1;
    MPI_OK(MPI_Session_detach_buffer_c(s, &addr, &csize));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "detach of the automatic buffer gave %p", addr);

    CHECK_CLASS(MPI_Session_flush_buffer(MPI_SESSION_NULL), MPI_ERR_SESSION,
                "MPI_Session_flush_buffer(MPI_SESSION_NULL)");

    /* A bsend, its receive, then finalizing with the buffer still attached. */
    MPI_OK(MPI_Session_attach_buffer_c(s, buf, bytes));
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    static char last[LEN];
    mt_fill(last, LEN, 77u + (unsigned)rank);
    MPI_OK(MPI_Bsend(last, LEN, MPI_CHAR, (rank + 1) % n, 7, comm));
    MPI_Request rr;
    static char got[LEN];
    MPI_OK(MPI_Irecv(got, LEN, MPI_CHAR, (rank + n - 1) % n, 7, comm, &rr));
    MPI_OK(MPI_Wait(&rr, MPI_STATUS_IGNORE));
    CHECK_DATA(got, LEN, 77u + (unsigned)((rank + n - 1) % n), "last message");
    MPI_OK(MPI_Comm_free(&comm));
    MPI_OK(MPI_Session_finalize(&s));
    CHECK(s == MPI_SESSION_NULL, "MPI_Session_finalize left the handle 0x%x", (unsigned)s);
    free(buf);
    return mt_finish();
}
