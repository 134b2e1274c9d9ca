/* Point-to-point: matching of messages to receives, and the protocols that move them.
 *
 * Eager: a message of at most eager_max bytes travels inline in one record; the sender's
 * request completes at once (or on ACK for a synchronous send). Rendezvous: the sender
 * announces its buffer (RTS); the matching receiver copies it through the transport's get
 * (process_vm_readv on shared memory, memcpy to self) and answers FIN. A split rendezvous
 * (p2p_rndv.c) lets a running sender copy from the other end at the same time, so whichever
 * side runs finishes the message; where get is refused, the receiver answers CTS and the
 * sender streams DATA fragments.
 */
#ifndef FY_P2P_H
#define FY_P2P_H

#include <stdbool.h>

#include "fy_request.h"

int fy_p2p_init(void);
void fy_p2p_fini(void);
/* The process went to MPI_THREAD_MULTIPLE after fy_p2p_init (a session asked for it): a
 * completion wakes the threads sleeping in a wait from then on. */
void fy_p2p_threads_on(void);

/* Start an operation described by r's user fields (buf, count, dt, peer, tag, comm, ctx,
 * mode). Return an MPI error class after fy_err_set, or MPI_SUCCESS. */
int fy_p2p_isend(fy_req_t *r);
int fy_p2p_irecv(fy_req_t *r);
/* Sends a small contiguous message at once, without a request (a blocking standard send's
 * fast path): 0 when sent, FY_XPORT_AGAIN when the caller must take the general path. */
int fy_p2p_send_now(fy_comm_t *c, const void *src, size_t bytes, int dest, int tag);
/* Receives a small eager message from one source at once, without a request (a blocking
 * receive's fast path, for a contiguous buffer of cap bytes): 0 when received (status filled
 * unless ignored; MPI_ERROR untouched), FY_XPORT_AGAIN when the caller must take the general
 * path. */
int fy_p2p_recv_now(fy_comm_t *c, void *buf, size_t cap, int src, int tag, MPI_Status *status);

/* Probe: the first unexpected message matching (src, tag) in ctx, or NULL. With `take`, it
 * is removed from the queue (matched probe); then fy_p2p_mrecv delivers it into r. */
fy_req_t *fy_p2p_probe(uint32_t ctx, int src, int tag, bool take);
int fy_p2p_mrecv(fy_req_t *r, fy_req_t *msg);

/* Cancels a receive that has not matched; false when it is too late. */
bool fy_p2p_cancel_recv(fy_req_t *r);
/* Starts withdrawing a send that may not have matched yet: a queued one is cancelled at once;
 * one the receiver holds unmatched is withdrawn when its answer arrives; the request then
 * completes either way (cancelled, or normally once matched). */
void fy_p2p_cancel_send(fy_req_t *r);

/* Announces that this rank has entered MPI_Finalize: peers' sends and receives that wait for
 * it fail from now on instead of hanging (p2p_gone.c). After the last user message. */
void fy_p2p_leave(void);
/* Fails what waits for peers that have left; returns how much changed. Cheap when nothing
 * did: called by the waiting loop when idle. */
int fy_p2p_check_gone(void);

/* One pass over every transport and queued send; returns how much happened. */
int fy_progress(void);
/* A pass that polls the sockets too, whatever the pass count says (fy_progress polls them on
 * one pass in 8 when the rank has shared-memory peers): for waits that sleep between single
 * passes, where one pass in 8 would leave a network message unread for 8 sleeps. */
int fy_progress_full(void);
/* Called by every fy_progress pass while set: the collective layer sets it while schedules are
 * running (and clears it when none is), so an idle pass costs one load and a branch. Returns
 * how much happened. */
extern int (*fy_progress_hook)(void);
/* The same for one-sided communication (src/osc/osc_am.c): set while a window serves active
 * messages, so that targets answer them from every wait. Separate from fy_progress_hook, which
 * the collective layer owns; p2p knows nothing of what is behind either. */
extern int (*fy_progress_osc_hook)(void);

/* Progresses until done(arg), spinning briefly and then sleeping until woken (FERRY_WAIT).
 * Called with the library lock held; the lock is dropped while sleeping. */
void fy_wait_until(bool (*done)(void *), void *arg);
void fy_wait_req(fy_req_t *r);
/* For the wait policy: whether r is a send that copies part of its own message while its
 * waiter polls (a split rendezvous: polling makes it finish sooner, sleeping leaves the copy
 * to the receiver). */
bool fy_p2p_send_helps(const fy_req_t *r);
/* The world rank the next wait (of this thread) most likely needs, for the wait policy to look
 * at; a done() callback may update it as it learns more. Unset, the wait looks at the rank that
 * sent the latest message. Reset when the wait ends. */
void fy_wait_hint(int world_rank);

/* Tunables, chosen at init from the machine and the environment (p2p_thresholds.c). */
enum { FY_RNDV_AUTO, FY_RNDV_STREAM, FY_RNDV_CMA, FY_RNDV_SPLIT }; /* FERRY_RNDV's words */
extern size_t fy_eager_max;
extern int fy_rndv_mode;     /* FY_RNDV_STREAM, _CMA or _SPLIT (auto resolved) */
extern size_t fy_frag_max;   /* largest DATA fragment */
extern size_t fy_rndv_chunk; /* the unit a split rendezvous claims */

#endif
