/* The core's start and stop; api/runtime.c calls these in order with the other layers'. */
#ifndef FY_INIT_H
#define FY_INIT_H

/* Fills the runtime record (thread level, clock, host) and connects to the process manager
 * (rank, size, appnum). An error class after fy_err_set; the message does not name a call. */
int fy_core_init(int required);
/* Frees the core's tables: communicators, groups, error handlers, keyvals, the request pool. */
void fy_core_fini(void);
/* Tells the launcher this process is done with MPI; last of all. */
void fy_core_pmi_fini(void);

#endif
