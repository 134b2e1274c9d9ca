/* MPI_Win_get_name of MPI_WIN_NULL: from MPI 4.1 the null handle has a name, and mpi4py, which
 * supplies it itself for older versions, asks the library once the version says 4.1. Windows
 * themselves belong to the one-sided issue: until then every real window handle is answered
 * as not supported, like the rest of one-sided communication. */
#include <stdio.h>

#include "fy_api.h"

int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    if (win == MPI_WIN_NULL && win_name && resultlen) {
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        return MPI_SUCCESS;
    }
    return fy_err_unsupported("MPI_Win_get_name", MPI_COMM_SELF);
}
