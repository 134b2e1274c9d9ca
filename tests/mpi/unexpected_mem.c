/* Many small messages that arrive before their receives are posted must cost memory in
 * proportion to their size, not to the eager limit: 5000 early 4-byte messages may not make
 * the receiver grow by more than 48 MiB (one eager-sized block each would be hundreds). */
#include "mpitest.h"

/* The data segment: blocks count when allocated, touched or not (RSS would miss them). */
static long vm_data_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    enum { N = 5000 };
    int v = 7;
    long before = vm_data_kib();
    if (mt_size >= 2 && mt_rank == 0)
        for (int i = 0; i < N; i++)
            MPI_OK(MPI_Send(&v, 1, MPI_INT, 1, i, MPI_COMM_WORLD));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* all N are now unexpected at rank 1 */
    if (mt_size >= 2 && mt_rank == 1) {
        long grown = vm_data_kib() - before;
        for (int i = 0; i < N; i++) {
            int got = -1;
            MPI_OK(MPI_Recv(&got, 1, MPI_INT, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(got == 7, "message %d carried %d", i, got);
        }
        CHECK(grown < 48 * 1024, "%d unexpected 4-byte messages grew the receiver by %ld MiB", N,
              grown / 1024);
    }
    return mt_finish();
}
