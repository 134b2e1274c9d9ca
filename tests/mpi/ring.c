/* Rings: a token passed around the ring several times with blocking Send/Recv (values
 * accumulate); then every rank shifts arrays of several sizes (up to 256 KiB) to its right
 * neighbour with Irecv/Isend/Waitall, several laps, so after `size` shifts each rank holds its
 * own data again. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    const int laps = 5;

    /* Token ring: rank 0 starts; each rank adds its rank + 1. */
    for (int lap = 0; lap < laps; lap++) {
        long tok = 0;
        if (mt_rank == 0) {
            tok = lap * 1000;
            if (mt_size > 1) {
                MPI_OK(MPI_Send(&tok, 1, MPI_LONG, next, lap, MPI_COMM_WORLD));
                MPI_OK(MPI_Recv(&tok, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            }
            long want = lap * 1000 + (long)mt_size * (mt_size + 1) / 2 - 1;
            CHECK(mt_size == 1 || tok == want, "token lap %d: %ld, expected %ld", lap, tok, want);
        } else {
            MPI_OK(MPI_Recv(&tok, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            tok += mt_rank + 1;
            MPI_OK(MPI_Send(&tok, 1, MPI_LONG, next, lap, MPI_COMM_WORLD));
        }
    }

    /* Shifts: after k shifts, a rank holds the data of rank (me - k). */
    size_t sizes[] = {1, 100, 8000, 262144 + 3};
    for (int s = 0; s < 4; s++) {
        size_t n = sizes[s];
        unsigned char *a = mt_malloc(n), *b = mt_malloc(n);
        mt_fill(a, n, (unsigned)(mt_rank + 17 * s));
        int shifts = mt_size > 4 ? mt_size : 2 * mt_size;
        for (int k = 1; k <= shifts; k++) {
            MPI_Request r[2];
            MPI_OK(MPI_Irecv(b, (int)n, MPI_BYTE, prev, k, MPI_COMM_WORLD, &r[0]));
            MPI_OK(MPI_Isend(a, (int)n, MPI_BYTE, next, k, MPI_COMM_WORLD, &r[1]));
            MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
            unsigned char *t = a;
            a = b;
            b = t;
            int owner = ((mt_rank - k) % mt_size + mt_size) % mt_size;
            CHECK_DATA(a, n, (unsigned)(owner + 17 * s), "shift %d of %zu bytes", k, n);
        }
        free(a);
        free(b);
    }
    return mt_finish();
}
