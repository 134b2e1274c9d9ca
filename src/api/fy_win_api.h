/* Shared by the window entry points (win.c, win_rma.c, win_sync.c). */
#ifndef FY_WIN_API_H
#define FY_WIN_API_H

#include "fy_osc.h"
#include "mpi.h"

/* A live window, or MPI_ERR_WIN with the message written. */
int fy_api_win(const char *fn, MPI_Win h, fy_win_t **w_p);
/* Runs the window's error handler for cls (MPI_COMM_SELF's when h is not a window) and
 * returns the code; MPI_SUCCESS passes through. */
int fy_api_raise_win(MPI_Win h, int cls);

#endif
