/* hello at many ranks: MPI_Init, a barrier, an allreduce, MPI_Finalize; and what the job's
 * memory costs. Rank 0 prints the size of the shared-memory segment, the sum over all ranks
 * of its proportional resident share (Pss) of the segment (= the segment's pages in memory),
 * the sum of every rank's total Pss, and the sum of their peak RSS (VmHWM). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "footprint.h"

int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long long mine[4], tot[4];
    segment(&mine[0], &mine[1]);
    mine[2] = field("/proc/self/smaps_rollup", "Pss:");
    mine[3] = field("/proc/self/status", "VmHWM:");
    MPI_Reduce(mine, tot, 4, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d sum %d segment_kb %lld segment_pss_sum_kb %lld pss_sum_kb %lld "
               "hwm_sum_kb %lld\n",
               size, sum, mine[0], tot[1], tot[2], tot[3]);
    MPI_Finalize();
    if (rank == 0 && sum == size)
        printf("No Errors\n");
    return 0;
}
