/*
 * footprint.c - the memory a hello-world job occupies, per rank count.
 *
 * Every rank initializes MPI and sends its process id to rank 0; then, while all other
 * ranks wait in MPI_Barrier (so every rank is fully set up and still alive), rank 0 reads
 * /proc/<pid>/smaps_rollup of every rank and sums
 *
 *   Pss        the proportional set size: private pages whole, each shared page divided by
 *              the number of processes mapping it, so the sum over all ranks counts every
 *              page once (the job's real memory, launcher not included)
 *   Pss_Shmem  the part of Pss in shared memory (tmpfs files under /dev/shm, memfd, shared
 *              anonymous mappings): summed over the ranks, the job's shared-memory footprint
 *
 * Kernels without the Pss_Shmem line (before 5.x) get the sum of Pss over the mappings of
 * /proc/<pid>/smaps named /dev/shm/..., /memfd:... or /SYSV..., the same pages in practice.
 *
 * Output (-m): RESULT bench=footprint.pss / footprint.shm ranks=N size=0 value=<MiB> unit=MiB
 * status=ok per_rank_kib=<KiB>, and footprint.rss (the plain sum of Rss, which counts shared
 * pages once per rank, for comparison). A rank whose files cannot be read makes the line
 * status=FAILED (unreadable=<count>). The program never judges the numbers.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"

#include <sys/types.h>

typedef struct mem_sum {
    double pss_kib, shm_kib, rss_kib;
} mem_sum_t;

/* Reads "<key>: <n> kB" lines of one smaps_rollup. Returns 0, or -1 when unreadable. */
static int read_rollup(long pid, mem_sum_t *m, int *have_shm_p)
{
    char path[64], line[256];
    snprintf(path, sizeof(path), "/proc/%ld/smaps_rollup", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    double v;
    *have_shm_p = 0;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "Pss: %lf kB", &v) == 1)
            m->pss_kib += v;
        else if (sscanf(line, "Rss: %lf kB", &v) == 1)
            m->rss_kib += v;
        else if (sscanf(line, "Pss_Shmem: %lf kB", &v) == 1) {
            m->shm_kib += v;
            *have_shm_p = 1;
        }
    }
    fclose(f);
    return 0;
}

/* The older way: Pss of the shared-memory mappings listed in /proc/<pid>/smaps. */
static int read_smaps_shm(long pid, mem_sum_t *m)
{
    char path[64], line[512];
    snprintf(path, sizeof(path), "/proc/%ld/smaps", pid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    int in_shm = 0;
    double v;
    while (fgets(line, sizeof(line), f)) {
        /* A mapping's header line: "start-end perms offset dev inode [path]". */
        unsigned long a, b;
        if (sscanf(line, "%lx-%lx ", &a, &b) == 2) {
            in_shm = strstr(line, " /dev/shm/") != NULL || strstr(line, "/memfd:") != NULL ||
                     strstr(line, "/SYSV") != NULL;
            continue;
        }
        if (in_shm && sscanf(line, "Pss: %lf kB", &v) == 1)
            m->shm_kib += v;
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    int rank, nranks, machine = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const bench_opt_t opts[] = {{'m', BENCH_OPT_FLAG, &machine, 0}};
    if (bench_getopt(argc, argv, opts, 1) != 0)
        bench_die(rank, "usage: footprint [-m]");

    long me = (long)getpid();
    long *pids = rank == 0 ? malloc(sizeof(long) * (size_t)nranks) : NULL;
    if (rank == 0 && pids == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Gather(&me, 1, MPI_LONG, pids, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank is through MPI_Init and its first collectives */

    if (rank == 0) {
        mem_sum_t m = {0, 0, 0};
        int unreadable = 0;
        for (int r = 0; r < nranks; r++) {
            int have_shm = 0;
            if (read_rollup(pids[r], &m, &have_shm) != 0 ||
                (!have_shm && read_smaps_shm(pids[r], &m) != 0))
                unreadable++;
        }
        const char *st = unreadable ? "FAILED" : "ok";
        if (!machine)
            printf("# Ferry bench: footprint of a hello-world job of %d ranks (sums over ranks)\n",
                   nranks);
        bench_print_library();
        const char *names[3] = {"footprint.pss", "footprint.shm", "footprint.rss"};
        double kib[3] = {m.pss_kib, m.shm_kib, m.rss_kib};
        for (int i = 0; i < 3; i++)
            printf("RESULT bench=%s ranks=%d size=0 value=%.2f unit=MiB status=%s "
                   "per_rank_kib=%.1f unreadable=%d\n",
                   names[i], nranks, kib[i] / 1024.0, st, kib[i] / nranks, unreadable);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the others wait here while rank 0 reads */
    free(pids);
    MPI_Finalize();
    return 0;
}
