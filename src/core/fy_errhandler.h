/* Error handler objects: the three predefined ones and those made by
 * MPI_Comm_create_errhandler, kept in a small table that only grows. */
#ifndef FY_ERRHANDLER_H
#define FY_ERRHANDLER_H

#include "mpi.h"

/* The kind of object a user handler was made for (MPI_x_create_errhandler): its function
 * takes that object's handle. Predefined handlers fit every kind. */
enum { FY_EH_COMM, FY_EH_SESSION, FY_EH_WIN };

typedef struct fy_errhandler {
    MPI_Errhandler handle;
    MPI_Comm_errhandler_function *fn; /* called through the type of `obj` */
    int obj;
    int refs;
} fy_errhandler_t;

/* NULL when not a valid handle. Predefined handlers have fn == NULL. */
fy_errhandler_t *fy_errhandler_get(MPI_Errhandler h);
int fy_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *h_p);
/* The same for another kind of object (FY_EH_*); fn is called through that kind's type. */
int fy_errhandler_create_for(int obj, void (*fn)(void), MPI_Errhandler *h_p);
/* Whether h may be attached to an object of kind obj (a predefined handler, or one made for
 * that kind). */
int fy_errhandler_fits(MPI_Errhandler h, int obj);
void fy_errhandler_ref(MPI_Errhandler h);
void fy_errhandler_unref(MPI_Errhandler h);
void fy_errhandler_fini(void);

#endif
