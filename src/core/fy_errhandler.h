/* Error handler objects: the three predefined ones and those made by
 * MPI_Comm_create_errhandler, kept in a small table that only grows. */
#ifndef FY_ERRHANDLER_H
#define FY_ERRHANDLER_H

#include "mpi.h"

typedef struct fy_errhandler {
    MPI_Errhandler handle;
    MPI_Comm_errhandler_function *fn;
    int refs;
} fy_errhandler_t;

/* NULL when not a valid handle. Predefined handlers have fn == NULL. */
fy_errhandler_t *fy_errhandler_get(MPI_Errhandler h);
int fy_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *h_p);
void fy_errhandler_ref(MPI_Errhandler h);
void fy_errhandler_unref(MPI_Errhandler h);
void fy_errhandler_fini(void);

#endif
