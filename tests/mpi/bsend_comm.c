/* The MPI-4.1 buffered-send calls: MPI_Comm_attach_buffer (a communicator's buffer is used
 * before the process's: a message too large for it fails on that communicator but not on
 * another), MPI_Buffer_iflush / MPI_Comm_iflush_buffer (incomplete while a large buffered
 * message waits for its receiver, complete once received), MPI_Buffer_flush, detach giving
 * back what was attached, MPI_BUFFER_AUTOMATIC (the library's buffer grows: 40 messages of
 * 100 KB wait at once; detach returns MPI_BUFFER_AUTOMATIC and 0), attaching twice is
 * MPI_ERR_BUFFER, flushing with no buffer attached returns at once, and a communicator freed
 * with buffered messages in flight still delivers them. */
#include "mpitest.h"

#define BIG (1 << 20) /* bytes: rendezvous, so it waits for the receiver */
#define NAUTO 40
#define AUTOSZ 100000

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int peer = mt_rank ^ 1;
    if (peer >= mt_size)
        peer = mt_rank;
    int self = peer == mt_rank, sender = mt_rank <= peer;
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);

    /* The communicator's buffer first: room for 100 bytes there, 2 MiB for the process. */
    int csize = 100 + MPI_BSEND_OVERHEAD, psize = 2 * BIG + 2 * MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)csize), *pbuf = malloc((size_t)psize);
    char *big = malloc(BIG), *in = malloc(BIG);
    MPI_OK(MPI_Comm_attach_buffer(c, cbuf, csize));
    MPI_OK(MPI_Buffer_attach(pbuf, psize));
    CHECK_CLASS(MPI_Comm_attach_buffer(c, cbuf, csize), MPI_ERR_BUFFER, "second attach on c");
    CHECK_CLASS(MPI_Buffer_attach(pbuf, psize), MPI_ERR_BUFFER, "second process attach");
    if (sender) {
        CHECK_CLASS(MPI_Bsend(big, 1000, MPI_BYTE, peer, 1, c), MPI_ERR_BUFFER,
                    "1000 bytes through c's 100-byte buffer");
        MPI_OK(MPI_Bsend(big, 100, MPI_BYTE, peer, 2, c));
        mt_fill(big, BIG, 3);
        MPI_OK(MPI_Bsend(big, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
        memset(big, 0, BIG); /* the copy is the library's */
        MPI_Request fl, cfl;
        MPI_OK(MPI_Buffer_iflush(&fl));
        MPI_OK(MPI_Comm_iflush_buffer(c, &cfl));
        int flag = 1;
        MPI_OK(MPI_Test(&fl, &flag, MPI_STATUS_IGNORE));
        CHECK(!flag, "Buffer_iflush complete before the receiver posted anything");
        if (!self) /* tell the receiver to go ahead */
            MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
        else
            MPI_OK(MPI_Recv(in, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&fl, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&cfl, MPI_STATUS_IGNORE));
        if (self) {
            long bad = mt_verify(in, BIG, 3);
            CHECK(bad < 0, "big message to self: byte %ld", bad);
            MPI_OK(MPI_Recv(in, 100, MPI_BYTE, peer, 2, c, MPI_STATUS_IGNORE));
        }
        MPI_OK(MPI_Buffer_flush());
        MPI_OK(MPI_Comm_flush_buffer(c));
    } else {
        MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Recv(in, BIG, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        long bad = mt_verify(in, BIG, 3);
        CHECK(bad < 0, "big buffered message: byte %ld", bad);
        MPI_OK(MPI_Recv(in, 100, MPI_BYTE, peer, 2, c, MPI_STATUS_IGNORE));
    }
    void *back;
    int bsize;
    MPI_OK(MPI_Comm_detach_buffer(c, &back, &bsize));
    CHECK(back == cbuf && bsize == csize, "Comm_detach_buffer: %p/%d, attached %p/%d", back,
          bsize, (void *)cbuf, csize);
    MPI_Count bsize_c;
    MPI_OK(MPI_Buffer_detach_c(&back, &bsize_c));
    CHECK(back == pbuf && bsize_c == psize, "Buffer_detach_c: %p/%lld", back,
          (long long)bsize_c);
    /* Nothing attached: flushes return at once. */
    MPI_Request fl;
    MPI_OK(MPI_Buffer_flush());
    MPI_OK(MPI_Comm_iflush_buffer(c, &fl));
    MPI_OK(MPI_Wait(&fl, MPI_STATUS_IGNORE));

    /* Automatic: many large messages wait at once. */
    MPI_OK(MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0));
    if (sender) {
        for (int i = 0; i < NAUTO; i++) {
            mt_fill(big, AUTOSZ, 100u + (unsigned)i);
            MPI_OK(MPI_Bsend(big, AUTOSZ, MPI_BYTE, peer, 10 + i, c));
        }
        MPI_Request fr;
        MPI_OK(MPI_Comm_iflush_buffer(c, &fr));
        if (self)
            for (int i = 0; i < NAUTO; i++)
                MPI_OK(MPI_Recv(in + 0, AUTOSZ, MPI_BYTE, peer, 10 + i, c, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    } else {
        for (int i = NAUTO - 1; i >= 0; i--) {
            MPI_OK(MPI_Recv(in, AUTOSZ, MPI_BYTE, peer, 10 + i, c, MPI_STATUS_IGNORE));
            long bad = mt_verify(in, AUTOSZ, 100u + (unsigned)i);
            CHECK(bad < 0, "automatic buffer message %d: byte %ld", i, bad);
        }
    }
    MPI_OK(MPI_Comm_detach_buffer(c, &back, &bsize));
    CHECK(back == MPI_BUFFER_AUTOMATIC && bsize == 0, "automatic detach: %p/%d", back, bsize);
    MPI_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
    MPI_OK(MPI_Buffer_detach(&back, &bsize));
    CHECK(back == MPI_BUFFER_AUTOMATIC && bsize == 0, "automatic process detach: %p/%d", back,
          bsize);

    /* Freed with messages in flight: they still arrive. The buffer is the library's now. */
    MPI_Comm d;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_attach_buffer(d, MPI_BUFFER_AUTOMATIC, 0));
    if (sender) {
        mt_fill(big, BIG, 77);
        MPI_OK(MPI_Bsend(big, BIG, MPI_BYTE, peer, 50, d));
        if (self)
            MPI_OK(MPI_Recv(in, BIG, MPI_BYTE, peer, 50, d, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Comm_free(&d));
    } else {
        MPI_OK(MPI_Recv(in, BIG, MPI_BYTE, peer, 50, d, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Comm_free(&d));
    }
    if (!sender || self) {
        long bad = mt_verify(in, BIG, 77);
        CHECK(bad < 0, "message of a freed communicator: byte %ld", bad);
    }
    MPI_OK(MPI_Comm_free(&c));
    free(cbuf);
    free(pbuf);
    free(big);
    free(in);
    return mt_finish();
}
