/* MPI_Comm_get_parent is MPI_COMM_NULL in a job mpiexec started. MPI_Comm_disconnect on a
 * duplicate of world and on an intercommunicator: the handle becomes MPI_COMM_NULL; pending
 * communication completes first: a nonblocking send whose request was freed, and buffered
 * sends, are all received before the receivers
 * disconnect; world and self cannot be disconnected. */
#include "mpitest.h"

#define N 5000

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Comm parent = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_get_parent(&parent));
    CHECK(parent == MPI_COMM_NULL, "Comm_get_parent: 0x%x, expected MPI_COMM_NULL",
          (unsigned)parent);

    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int to = (mt_rank + 1) % mt_size, from = (mt_rank + mt_size - 1) % mt_size;
    static int big[N], got[N], small[4], sgot[4];
    for (int i = 0; i < N; i++)
        big[i] = i * 3 + mt_rank;
    for (int i = 0; i < 4; i++)
        small[i] = 100 + i + mt_rank;
    int bsize = 4 * (int)sizeof small + 4 * MPI_BSEND_OVERHEAD;
    char *bbuf = malloc((size_t)bsize);
    MPI_OK(MPI_Buffer_attach(bbuf, bsize));
    MPI_Request r;
    MPI_OK(MPI_Isend(big, N, MPI_INT, to, 1, c, &r));
    MPI_OK(MPI_Request_free(&r)); /* only Comm_disconnect now knows when it is done */
    for (int i = 0; i < 4; i++)
        MPI_OK(MPI_Bsend(&small[i], 1, MPI_INT, to, 2 + i, c));
    MPI_OK(MPI_Recv(got, N, MPI_INT, from, 1, c, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        MPI_OK(MPI_Recv(&sgot[i], 1, MPI_INT, from, 2 + i, c, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_disconnect(&c));
    CHECK(c == MPI_COMM_NULL, "disconnected handle 0x%x", (unsigned)c);
    for (int i = 0; i < N; i++)
        if (got[i] != i * 3 + from) {
            CHECK(0, "element %d: %d, expected %d", i, got[i], i * 3 + from);
            break;
        }
    for (int i = 0; i < 4; i++)
        CHECK(sgot[i] == 100 + i + from, "buffered %d: %d", i, sgot[i]);
    void *back;
    MPI_OK(MPI_Buffer_detach(&back, &bsize));
    free(bbuf);

    /* An intercommunicator between the even and odd ranks. */
    if (mt_size >= 2) {
        MPI_Comm half, inter;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &half));
        MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, mt_rank % 2 ? 0 : 1, 7, &inter));
        int v = mt_rank, w = -1, rs;
        MPI_Comm_remote_size(inter, &rs);
        int rr;
        MPI_Comm_rank(inter, &rr);
        if (rr < rs) {
            MPI_OK(MPI_Isend(&v, 1, MPI_INT, rr, 3, inter, &r));
            MPI_OK(MPI_Request_free(&r));
            MPI_OK(MPI_Recv(&w, 1, MPI_INT, rr, 3, inter, MPI_STATUS_IGNORE));
        }
        MPI_OK(MPI_Comm_disconnect(&inter));
        CHECK(inter == MPI_COMM_NULL, "disconnected intercommunicator 0x%x", (unsigned)inter);
        MPI_OK(MPI_Comm_free(&half));
    }

    /* Known deviation, MPICH 4.0: it disconnects MPI_COMM_WORLD, then fails an assertion. */
    MPI_Comm w = MPI_COMM_WORLD;
    if (!mt_is_mpich40())
        CHECK_CLASS(MPI_Comm_disconnect(&w), MPI_ERR_COMM, "disconnect MPI_COMM_WORLD");
    return mt_finish();
}
