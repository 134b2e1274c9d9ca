/* hello at many ranks: MPI_Init, a barrier, an allreduce, MPI_Finalize; and what the job's
 * memory costs. Rank 0 prints the size of the shared-memory segment, the sum over all ranks
 * of its proportional resident share (Pss) of the segment (= the segment's pages in memory),
 * the sum of every rank's total Pss, and the sum of their peak RSS (VmHWM). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void segment(long long *size_kb, long long *pss_kb)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4096];
    int in = 0;
    unsigned long lo, hi;
    *size_kb = *pss_kb = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '/') != NULL) {
            in = strstr(line, "/dev/shm/fy-") != NULL;
            if (in)
                *size_kb += (long long)(hi - lo) >> 10;
        } else if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = 0;
        } else if (in && strncmp(line, "Pss:", 4) == 0) {
            long long v;
            if (sscanf(line + 4, "%lld", &v) == 1)
                *pss_kb += v;
        }
    }
    if (f)
        fclose(f);
}

static long long field(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[512];
    long long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0)
            sscanf(line + n, "%lld", &v);
    if (f)
        fclose(f);
    return v;
}

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
