/* Which of Ferry's transports carries a 2-rank test's messages, for the tests that check the
 * per-transport MPI_T counters (mpit.c, mpit_threads.c). */
#ifndef FY_TEST_TRANSPORT_H
#define FY_TEST_TRANSPORT_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

/* "tcp" under FERRY_NETMOD=tcp or when the ranks are on different hosts, else "shm".
 * Collective over MPI_COMM_WORLD. */
static inline const char *peer_transport(void)
{
    MPI_Comm node;
    int n, np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    const char *nm = getenv("FERRY_NETMOD");
    return (nm && strcmp(nm, "tcp") == 0) || n < np ? "tcp" : "shm";
}

#endif
