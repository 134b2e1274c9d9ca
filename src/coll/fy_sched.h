/* Schedules (sched.c; the header is fy_sched.h because src/coll is on the include path and
 * <sched.h> is a system header): a collective as data, run by the progress engine.
 *
 * A schedule is a sequence of rounds; a round is a list of operations: sends and receives on
 * the communicator's collective context, local reductions (inout = in o inout, fy_op_apply or
 * the user's function), typed copies, and calls of a local function. Starting a round runs its
 * operations in the order they were added: local ones at once (so a local operation may use
 * what an earlier local operation of the same round produced, never what a message of the same
 * round brings), messages are started and run together. The next round starts when every
 * message of the current one has completed. A builder therefore writes "receive; then reduce
 * and send on" as a round with the receive, followed by a round that starts with the reduction.
 *
 * Every schedule carries one tag, made from the communicator's collective sequence number at
 * the call that built it (FY_TAG_SCHED), so the messages of outstanding collectives never
 * match each other's receives: MPI orders collectives on a communicator the same way on every
 * member, so the k-th collective has the same number everywhere. Within one schedule the
 * messages between two ranks match in the order they were sent, and the algorithms post them
 * in the same order on both sides.
 *
 * A schedule owns its scratch buffers (freed with it) and holds references to its
 * communicator, its datatypes and its user operator, so that MPI_Comm_free, MPI_Type_free and
 * MPI_Op_free while it runs are safe. Builders never fail: running out of memory while adding
 * is remembered and reported by fy_sched_start, which then frees the schedule. All of this
 * runs under the library lock. */
#ifndef FY_SCHED_H
#define FY_SCHED_H

#include <stdbool.h>
#include <stddef.h>

#include "fy_comm.h"
#include "fy_dtype.h"
#include "mpi.h"

typedef struct fy_sched fy_sched_t;
struct fy_req;

/* Tags of scheduled collectives: negative (the blocking algorithms use small positive tags,
 * communicator creation 0x10000000 and up), never MPI_ANY_TAG. 2^30 collectives on one
 * communicator pass before a number comes back. */
static inline int fy_tag_sched(uint32_t seq)
{
    return (int)(0x80000000u | (seq & 0x3fffffffu));
}

/* A local step: MPI_SUCCESS, an error class (message set), or FY_SCHED_REWIND, which restarts
 * the schedule at its first round once the messages of the current round have completed (the
 * id agreement of MPI_Comm_idup retries this way). */
#define FY_SCHED_REWIND (-20)
typedef int (*fy_sched_fn_t)(fy_sched_t *s, void *arg);

/* A new, empty schedule for collective `fn` (an MPI function name, for messages) on c: takes
 * c's next sequence number (and, on an intercommunicator, c->local's next one too: below) and
 * a reference to c. NULL when out of memory (message set). */
fy_sched_t *fy_sched_new(fy_comm_t *c, const char *fn);
/* The communicator the operations being added address (ranks of sends and receives name its
 * members): the schedule's, or its local group's after fy_sched_local(s, true). */
fy_comm_t *fy_sched_comm(const fy_sched_t *s);
/* Intercommunicator schedules. On an intercommunicator c, ranks name the remote group; between
 * fy_sched_local(s, true) and fy_sched_local(s, false) the operations added address c's local
 * group instead, through the hidden intracommunicator c->local, and fy_sched_comm returns
 * c->local, so an intracommunicator builder called meanwhile (fy_bcast_sched, ...) adds its
 * phase inside the group. Those messages travel on c->local's collective context under a tag
 * of c->local's own sequence (taken by fy_sched_new): each member of the group makes the same
 * schedules on c in the same order, so they meet neither other schedules on c nor anything
 * else on c->local. Does nothing on an intracommunicator. */
void fy_sched_local(fy_sched_t *s, bool local);
/* The same for any communicator t whose members are all members of the schedule's (the
 * node-aware collectives' host and leaders communicators, fy_hier.h), or the schedule's own
 * again: operations added next address t, and fy_sched_comm returns t. t's tag is taken from
 * its own sequence at the first switch to it, so every member of t must make the same
 * switches in the same order (every member of t does for the same collectives on the
 * schedule's communicator). t must live as long as the schedule's communicator. At most
 * FY_SCHED_SUBS communicators besides the schedule's own: an intercommunicator's local group,
 * and the host and leaders communicators of that group's node-aware phases. */
enum { FY_SCHED_SUBS = 3 };
void fy_sched_on(fy_sched_t *s, fy_comm_t *t);
/* The first error of the current run (a code), MPI_SUCCESS when none: for calls that must
 * know whether the messages before them arrived. */
int fy_sched_error(const fy_sched_t *s);
/* The tag of its messages (unique among the collectives outstanding on its communicator). */
int fy_sched_tag(const fy_sched_t *s);

/* Operations, added to the current round. */
void fy_sched_send(fy_sched_t *s, const void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer);
void fy_sched_recv(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt, int peer);
/* inout = in o inout over count elements of dt (both in dt's layout). */
void fy_sched_reduce(fy_sched_t *s, MPI_Op op, const fy_dtype_t *dt, const void *in, void *inout,
                     MPI_Aint count);
/* Between two typed buffers of possibly different types (fy_coll_copy: MPI_ERR_TRUNCATE when
 * the data do not fit). */
void fy_sched_copy(fy_sched_t *s, const void *src, MPI_Aint scount, const fy_dtype_t *sdt,
                   void *dst, MPI_Aint rcount, const fy_dtype_t *rdt);
/* count elements of dt from src to dst, same layout, holes untouched (fy_op_copy). */
void fy_sched_copy_same(fy_sched_t *s, const fy_dtype_t *dt, const void *src, void *dst,
                        MPI_Aint count);
void fy_sched_call(fy_sched_t *s, fy_sched_fn_t fn, void *arg);
/* Ends the current round: what is added next goes into a new one. */
void fy_sched_round(fy_sched_t *s);

/* Scratch owned by the schedule (zeroed; NULL only after an allocation failed, which
 * fy_sched_start reports). */
void *fy_sched_scratch(fy_sched_t *s, size_t bytes);
/* n vectors of count elements of dt, each in dt's own layout ((count-1)*extent + true extent,
 * the origin at -true_lb): returns the origin of vector 0; vector i starts *stride_p bytes
 * further (stride_p may be NULL when n is 1). */
char *fy_sched_scratch_typed(fy_sched_t *s, const fy_dtype_t *dt, MPI_Aint count, int n,
                             size_t *stride_p);
/* p freed by free_fn with the schedule (the argument of a call, for example). False when out
 * of memory: p has then been freed already. */
bool fy_sched_own(fy_sched_t *s, void *p, void (*free_fn)(void *));

/* Makes the request of a built schedule (kind FY_REQ_COLL, comm set) and, unless persistent,
 * starts it; a persistent one is left inactive for fy_sched_restart. On failure (an operation
 * could not be added, or no memory for the request) the schedule is freed, the message set and
 * the class returned; *req_p is set only on success. */
int fy_sched_start(fy_sched_t *s, bool persistent, struct fy_req **req_p);
/* MPI_Start of a persistent collective request (inactive). */
int fy_sched_restart(struct fy_req *r);
/* A blocking collective run as a schedule: starts it, waits, frees it; returns its error. */
int fy_sched_run(fy_sched_t *s);
/* Frees a schedule that is not running (and its request's link to it); a running one whose
 * request the user freed is freed when it completes (MPI_Request_free). */
void fy_sched_free(fy_sched_t *s);
/* MPI_Finalize: waits until the schedules whose requests the user freed have completed, then
 * frees every schedule left. */
void fy_sched_fini(void);

#endif
