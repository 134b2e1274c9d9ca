/* Large messages in every send mode: 64 KiB, 1 MiB + 3, 16 MiB + 13 (not multiples of the page
 * size), rank 0 to each other rank and back; with FY_TEST_LARGE_QUICK set only the first two. */
#include "modes.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    size_t sizes[] = {65536, (1u << 20) + 3, (16u << 20) + 13};
    int nsizes = getenv("FY_TEST_LARGE_QUICK") ? 2 : 3;
    void *bbuf = mt_attach(sizes[nsizes - 1], 1);
    int tag = 0;
    for (int peer = 1; peer < mt_size; peer++)
        for (int mode = 0; mode < M_NMODES; mode++)
            for (int i = 0; i < nsizes; i++) {
                unsigned seed = (unsigned)(peer * 100 + mode * 10 + i);
                tag++;
                mt_xfer(mode, 0, peer, sizes[i], seed, tag, MPI_COMM_WORLD, mode & 1);
                mt_xfer(mode, peer, 0, sizes[i], seed + 3, tag, MPI_COMM_WORLD, !(mode & 1));
            }
    mt_detach(bbuf);
    return mt_finish();
}
