/* Integer MPI_SUM and MPI_PROD wrap around modulo 2^N, as programs (mpi4py's testAccumulate
 * among them) expect of MPICH and Open MPI, instead of being undefined behaviour in the
 * reduction kernel (UBSan stops the ASan build's run of this test if it is). Sums past
 * INT_MAX, LONG_MAX and INT64_MAX, a product past INT_MAX, and unsigned short products that
 * would overflow a promoted int, by Allreduce and by Accumulate on a window. */
#include "mpitest.h"

#include <limits.h>
#include <stdint.h>

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int i = INT_MAX, isum;
    MPI_Allreduce(&i, &isum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int iwant = (int)((unsigned)INT_MAX * (unsigned)size);
    CHECK(isum == iwant, "int sum %d, expected %d", isum, iwant);
    long l = LONG_MAX, lsum;
    MPI_Allreduce(&l, &lsum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(lsum == (long)((unsigned long)LONG_MAX * (unsigned long)size), "long sum %ld", lsum);
    int64_t q = INT64_MAX, qsum;
    MPI_Allreduce(&q, &qsum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(qsum == (int64_t)((uint64_t)INT64_MAX * (uint64_t)size), "int64 sum %lld",
          (long long)qsum);
    int p = 65536, pprod;
    MPI_Allreduce(&p, &pprod, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
    unsigned pw = 1;
    for (int r = 0; r < size; r++)
        pw *= 65536u;
    CHECK(pprod == (int)pw, "int product %d, expected %d", pprod, (int)pw);
    unsigned short us = 65535, usprod;
    MPI_Allreduce(&us, &usprod, 1, MPI_UNSIGNED_SHORT, MPI_PROD, MPI_COMM_WORLD);
    unsigned short uw = 1;
    for (int r = 0; r < size; r++)
        uw = (unsigned short)((unsigned)uw * 65535u);
    CHECK(usprod == uw, "unsigned short product %u, expected %u", usprod, uw);

    /* The same through one-sided accumulation into rank 0. */
    int *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 0;
    MPI_Win_fence(0, win);
    MPI_Accumulate(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    CHECK(rank != 0 || *base == iwant, "accumulated int sum %d, expected %d", *base, iwant);
    MPI_Win_free(&win);
    return mt_finish();
}
