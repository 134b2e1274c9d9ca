/* A rank says where it runs and what it can see, for the tests of the portal's hosts and
 * slurm backends (sandbox_hosts.sh, sandbox_slurm.sh). Every rank prints
 *   rank R on HOST uid U home absent|present[ state absent|present]
 * The first argument chooses:
 *   /PATH...   " state ..." tells whether PATH exists; each later argument is echoed by
 *              every rank as "rank R arg I [TEXT]" (arguments must arrive as given)
 *   s          sleep 100 s after the line (a job to cancel)
 *   f          exit with status 3 (a failing job) */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    const char *mode = argc > 1 ? argv[1] : "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Get_processor_name(host, &len);
    printf("rank %d on %s uid %d home %s", rank, host, (int)getuid(),
           access("/home", F_OK) ? "absent" : "present");
    if (mode[0] == '/') {
        printf(" state %s\n", access(mode, F_OK) ? "absent" : "present");
        for (int i = 2; i < argc; i++)
            printf("rank %d arg %d [%s]\n", rank, i, argv[i]);
    } else {
        printf("\n");
    }
    fflush(stdout);
    if (mode[0] == 's')
        sleep(100);
    MPI_Finalize();
    return mode[0] == 'f' ? 3 : 0;
}
