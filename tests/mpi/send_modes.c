/* Every send mode (Send, Bsend, Ssend, Rsend, Isend, Ibsend, Issend, Irsend) with blocking and
 * nonblocking receives, for sizes 0, 1, odd, around eager limits, up to 64 KiB + 5, between
 * rank 0 and each other rank in both directions; a count 0 send with a NULL buffer. */
#include "modes.h"

static const size_t sizes[] = {0,    1,    3,    17,    100,   1000,     1024,
                               4095, 4096, 8193, 16384, 16387, 65536 + 5};
#define NSIZES (sizeof sizes / sizeof sizes[0])

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    void *bbuf = mt_attach(65536 + 5, 2);
    int tag = 0;
    for (int peer = 1; peer < mt_size; peer++) {
        for (int mode = 0; mode < M_NMODES; mode++) {
            for (size_t i = 0; i < NSIZES; i++) {
                unsigned seed = (unsigned)(peer * 1000 + mode * 50 + (int)i);
                tag++;
                mt_xfer(mode, 0, peer, sizes[i], seed, tag, MPI_COMM_WORLD, (int)i & 1);
                mt_xfer(mode, peer, 0, sizes[i], seed + 7, tag, MPI_COMM_WORLD, !((int)i & 1));
            }
        }
    }
    /* Count 0 with a NULL buffer is valid in every mode. */
    if (mt_size > 1 && mt_rank < 2) {
        int other = 1 - mt_rank;
        for (int mode = 0; mode < M_NMODES; mode++) {
            if (mt_rank == 0) {
                if (mt_is_ready(mode))
                    MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, other, MT_TOKEN_TAG, MPI_COMM_WORLD,
                                    MPI_STATUS_IGNORE));
                MPI_OK(mt_send_mode(mode, NULL, 0, MPI_INT, other, 100 + mode, MPI_COMM_WORLD));
            } else {
                MPI_Status st;
                MPI_Request r;
                MPI_OK(MPI_Irecv(NULL, 0, MPI_INT, other, 100 + mode, MPI_COMM_WORLD, &r));
                if (mt_is_ready(mode))
                    MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, other, MT_TOKEN_TAG, MPI_COMM_WORLD));
                MPI_OK(MPI_Wait(&r, &st));
                int c = -1;
                MPI_Get_count(&st, MPI_INT, &c);
                CHECK(c == 0 && st.MPI_TAG == 100 + mode, "NULL zero-count %s: count %d tag %d",
                      mt_mode_name[mode], c, st.MPI_TAG);
            }
        }
    }
    mt_detach(bbuf);
    return mt_finish();
}
