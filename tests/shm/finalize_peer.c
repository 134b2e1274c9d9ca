/* A peer that calls MPI_Finalize while this rank still waits for it.
 *   send:  rank 0 sends a large message (rendezvous) to rank 1, which finalizes without
 *          receiving it;
 *   ssend: the same with a small synchronous send;
 *   recv:  rank 1 receives from rank 0, which finalizes without sending;
 *   late:  (3 ranks) rank 0 first waits for rank 2, which lets rank 1 finalize before it
 *          answers, and only then sends the large message to rank 1: rank 0 has seen rank 1
 *          leave while nothing of it waited for rank 1 (this used to hang).
 * With "return" the waiting rank uses MPI_ERRORS_RETURN, must get an error (printed as
 * "error: ...") and then finalizes normally; without it the job must end with a message
 * naming the rank (MPI_ERRORS_ARE_FATAL). Never a hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void report(int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS) {
        printf("unexpected success\n");
        return;
    }
    MPI_Error_string(rc, msg, &len);
    printf("error: %s\n", msg);
}

int main(int argc, char **argv)
{
    int rank, rc = MPI_SUCCESS;
    const char *mode = argc > 1 ? argv[1] : "send";
    int ret = argc > 2 && strcmp(argv[2], "return") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (ret)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int waiter = strcmp(mode, "recv") == 0 ? 1 : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "late") == 0 && rank == 2) {
        int go = 1;
        sleep(1); /* rank 1 finalizes meanwhile while rank 0 waits in MPI_Recv: an order, not a bound */
        MPI_Send(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
        /* Rank 2 stays until rank 0's send has ended: its own leaving would change what rank
         * 0 sees and hide the case. */
        MPI_Recv(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (strcmp(mode, "late") == 0 && rank == 0) {
        int go;
        MPI_Recv(&go, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank == waiter) {
        size_t n = 8 << 20;
        char *buf = calloc(n, 1);
        if (strcmp(mode, "send") == 0 || strcmp(mode, "late") == 0) {
            rc = MPI_Send(buf, (int)n, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        } else if (strcmp(mode, "ssend") == 0) {
            rc = MPI_Ssend(buf, 8, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
        } else {
            rc = MPI_Recv(buf, 8, MPI_CHAR, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        report(rc);
        free(buf);
        if (strcmp(mode, "late") == 0)
            MPI_Send(&rc, 1, MPI_INT, 2, 4, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("finalized\n");
    return 0;
}
