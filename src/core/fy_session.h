/* Sessions (MPI-4 Sessions Model): a handle that keeps the library running, with its own error
 * handler and hints. The process sets a session offers are fixed: "mpi://WORLD" (every process
 * of the job) and "mpi://SELF" (this process alone).
 *
 * Handles are kind DIRECT, class SESSION, indexing a table whose freed slots are reused. Callers
 * hold fy_lock() around every call. */
#ifndef FY_SESSION_H
#define FY_SESSION_H

#include <stdbool.h>

#include "fy_info.h"
#include "mpi.h"

typedef struct fy_session {
    MPI_Session handle;
    MPI_Errhandler errhandler;
    int thread_level; /* what the session asked for, raised to what the process provides */
    fy_info_t *hints; /* the info given to MPI_Session_init (a private copy) */
    /* The buffer attached for buffered sends (p2p/fy_bsend.h), NULL when none; communicators
     * made from the session's groups point at this slot (fy_comm_t.bsend_session). */
    struct fy_bsend_buf *bsend;
} fy_session_t;

/* NULL when h is not a live session handle. */
fy_session_t *fy_session_get(MPI_Session h);
/* A new session with a handle; MPI_ERR_NO_MEM (message written) when out of memory. */
int fy_session_new(fy_session_t **s_p);
void fy_session_free(fy_session_t *s);
/* Frees the table once the library stops. */
void fy_session_fini(void);

/* The process sets: how many, the name of the nth, and the size of one by name (-1 when no
 * such set). Names compare exactly, as the standard's are URIs. */
int fy_session_num_psets(void);
const char *fy_session_pset_name(int n);
int fy_session_pset_size(const char *name);

/* Runs the session's error handler for `code` (as fy_err_invoke_comm does for communicators);
 * an invalid session gets MPI_COMM_SELF's handler. Returns the code. */
int fy_err_invoke_session(MPI_Session h, int code);
/* Turns the pending message into a code of class `cls` and runs the handler. */
int fy_err_raise_session(MPI_Session h, int cls);

#endif
