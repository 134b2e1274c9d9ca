/* The live view's rank side (prof_monitor.c): with FERRY_MONITOR_ADDR and FERRY_MONITOR_KEY
 * in the environment (mpiexec --monitor sets them), a thread that sends this rank's prof_live
 * (prof_live.h) to mpiexec once a second. Without them (a singleton, the library preloaded by
 * hand) both calls do nothing.
 *
 * The wire, after the handshake of src/common/fy_auth.h (proto FERRY-MONITOR): text lines,
 *   H <host> <program>                      once, first
 *   S <t_ns> <call|-> <in_call_ns> <calls> <mpi_ns> <msgs_sent> <bytes_sent> <msgs_recv>
 *     <bytes_recv> <coll_calls>             a snapshot: t_ns since the thread started,
 *                                           mpi_ns including the call the rank is in now
 *   BYE                                     after the last snapshot, at MPI_Finalize
 * Numbers are decimal; the server ignores lines it does not know (later versions). */
#ifndef PROF_MONITOR_H
#define PROF_MONITOR_H

/* After PMPI_Init (MPI_Init, MPI_Init_thread): world rank and size. Connects and starts the
 * thread; a failure to reach mpiexec is said once on stderr and the rank runs on unwatched. */
void prof_monitor_start(int rank, int size);

/* In MPI_Finalize, before PMPI_Finalize: the last snapshot, BYE, and the thread is joined
 * (a few milliseconds at most: it is woken, not waited for). */
void prof_monitor_stop(void);

#endif
