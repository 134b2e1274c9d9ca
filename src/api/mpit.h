/* The MPI tool information interface (MPI_T), shared by mpit.c (init, control variables, enums,
 * categories, events) and mpit_pvar.c (performance variables and their sessions). MPI_T calls
 * return their error codes and never run an error handler (MPI-4.1 15.3.10); they are usable
 * before MPI_Init and after MPI_Finalize, between MPI_T_init_thread and MPI_T_finalize. */
#ifndef FY_MPIT_H
#define FY_MPIT_H

#include <pthread.h>

#include "mpi.h"

/* Every MPI_T call but init/finalize runs under this lock, after fy_mpit_enter succeeded. */
extern pthread_mutex_t fy_mpit_lock;
/* Takes the lock; MPI_T_ERR_NOT_INITIALIZED (lock released) outside init/finalize. */
int fy_mpit_enter(void);
static inline int fy_mpit_leave(int rc)
{
    pthread_mutex_unlock(&fy_mpit_lock);
    return rc;
}

/* The string convention of MPI_T: copies at most *len characters with the null, sets *len to
 * what was copied with the null; with no buffer or *len == 0, sets *len to the length needed. */
void fy_mpit_str(const char *s, char *buf, int *len);

/* Categories the performance variables belong to (their order in mpit.c's category table). */
enum {
    FY_TCAT_ROOT,
    FY_TCAT_WAIT,
    FY_TCAT_P2P,
    FY_TCAT_SELF,
    FY_TCAT_SHM,
    FY_TCAT_TCP,
    FY_TCAT_COLL,
    FY_TCAT_COLL_ONE /* + the collective's FY_COLL_* index */
};

/* Performance variables (mpit_pvar.c). */
int fy_mpit_pvar_count(void);
int fy_mpit_pvar_category(int pvar);
void fy_mpit_pvar_init(void);
void fy_mpit_pvar_fini(void); /* frees every session and handle */

#endif
