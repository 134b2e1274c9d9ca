/* Shared by the point-to-point files; not seen above this layer. */
#ifndef FY_P2P_INTERNAL_H
#define FY_P2P_INTERNAL_H

#include "fy_cpu.h"
#include "fy_p2p.h"
#include "fy_p2p_stats.h"
#include "fy_xport.h"

typedef struct fy_queue {
    fy_req_t *head, *tail;
} fy_queue_t;

static inline void fy_queue_push(fy_queue_t *q, fy_req_t *r)
{
    r->next = NULL;
    r->prev = q->tail;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
}

static inline void fy_queue_remove(fy_queue_t *q, fy_req_t *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        q->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        q->tail = r->prev;
    r->next = r->prev = NULL;
}

/* What a sender still has to do (fy_req_t.pstate). */
enum {
    FY_PS_QUEUED = 1, /* the first record is waiting in the peer's pending queue */
    FY_PS_WAIT_ACK,   /* synchronous eager: waiting for ACK */
    FY_PS_WAIT_FIN,   /* rendezvous: waiting for FIN or CTS */
    FY_PS_STREAM,     /* rendezvous fallback: DATA fragments left to send */
    FY_PS_CTRL,       /* an internal control record (ACK/FIN/CTS) that found the queue full */
};
/* A send holding a split-rendezvous slot has FY_MSGF_SPLIT in r->hdr.flags and the slot in
 * r->hdr.frag (r->hdr is otherwise unused by sends; fy_p2p_isend clears the flags). */

typedef struct fy_peer {
    const fy_xport_ops_t *ops;
    fy_queue_t pending;  /* records that found the transport full, in order */
    fy_queue_t inflight; /* sends waiting for the receiver's answer (FIN, CTS or ACK) */
    size_t max_payload;
    bool single_copy; /* a single copy from this peer has worked (p2p_rndv.c) */
} fy_peer_t;

extern fy_peer_t *fy_peers;

/* The transport counters' index (fy_p2p_stats.h) of world rank w's transport. */
static inline int fy_p2p_xp(int w)
{
    const fy_xport_ops_t *o = fy_peers[w].ops;
    return o == &fy_xport_shm ? FY_XP_SHM : o == &fy_xport_self ? FY_XP_SELF : FY_XP_TCP;
}
extern int fy_pending_total;
extern int fy_inflight_total;
extern int fy_posted_total; /* receives posted and not matched */

/* Ends every request that waits for world rank `w`, which has left (p2p_gone.c). */
void fy_p2p_send_fail_gone(int w, const char *why);
/* Forgets which peers left (MPI_Finalize of this rank; p2p_gone.c). */
void fy_p2p_gone_fini(void);
/* Calls fn on each posted receive from a specific source on a point-to-point context. */
void fy_p2p_posted_foreach(void (*fn)(fy_req_t *r));
/* The same over every context (point-to-point and collective), any source included. */
void fy_p2p_posted_foreach_all(void (*fn)(fy_req_t *r));
/* One wait's part in the deadlock detector (p2p_deadlock.c). */
typedef struct fy_p2p_stuck {
    bool stuck;    /* counted among the stuck ranks */
    int64_t since; /* when every rank was first seen stuck with `moved` unchanged; 0: not */
    unsigned moved;
} fy_p2p_stuck_t;
/* After each pass of a wait: `progressed` when it did something, `sleeping` when it is about
 * to sleep (or has just slept) without. Ends the job when the whole job is deadlocked. */
void fy_p2p_deadlock_check(fy_p2p_stuck_t *st, bool progressed, bool sleeping);
/* Removes a posted receive and completes it with error `code`. */
void fy_p2p_recv_fail(fy_req_t *r, int code);

/* Sends one control record to world rank dst, queueing it if the transport is full. */
void fy_p2p_send_ctrl(int dst, const fy_hdr_t *h);
/* Incoming records for the send side. */
void fy_p2p_on_ack_or_fin(const fy_hdr_t *h);
void fy_p2p_on_cts(const fy_hdr_t *h);
/* Retries queued records; returns how many went out. */
int fy_p2p_drain_pending(void);
/* Withdrawing a message that has not matched (MPI_Cancel of a send). */
void fy_p2p_on_cancel(const fy_hdr_t *h);
void fy_p2p_on_cancel_ack(const fy_hdr_t *h);
/* Incoming messages and DATA for the receive side. */
void fy_p2p_on_message(const fy_hdr_t *h, const void *payload);
void fy_p2p_on_data(const fy_hdr_t *h, const void *payload);
void *fy_p2p_data_place(const fy_hdr_t *h);
/* Takes a send off its peer's list of sends waiting for an answer. */
void fy_p2p_inflight_remove(fy_req_t *r);
/* Finishes a send request (completion, buffered/internal cleanup). */
void fy_p2p_send_done(fy_req_t *r);

/* Chooses eager max, rendezvous mode, fragment and chunk sizes (p2p_thresholds.c). */
void fy_p2p_thresholds(bool oversubscribed, size_t ring_payload);
/* Runnable threads outnumber the CPUs (looked at by waits, at most every 10 ms). */
extern int fy_p2p_contended;
/* What a single copy costs here, nanoseconds per byte (calibrated, else a cautious guess). */
extern double fy_copy_ns_per_byte;

/* Around one single-copy transfer of n bytes for a peer (p2p_progress.c): while it lasts, this
 * rank's beat says it runs until the copy's expected end, so that a peer waiting for it polls
 * rather than sleeps (fy_shm_busy). */
typedef struct fy_busy {
    unsigned was_polling;
    bool on;
} fy_busy_t;
fy_busy_t fy_p2p_busy_begin(size_t n);
void fy_p2p_busy_end(fy_busy_t b);

/* Split rendezvous (p2p_rndv.c). Sender: takes a slot for r if it can (sets h's flag and
 * slot); gives it back when the send ends. Receiver: pulls r's message from the back, with a
 * running sender pushing from the front; 0 when started or done (the request completes here
 * or on RDONE), else the transport's refusal (nothing copied, answer CTS). */
void fy_p2p_split_offer(fy_req_t *r, fy_hdr_t *h);
void fy_p2p_split_release(fy_req_t *r);
int fy_p2p_split_pull(fy_req_t *r, const fy_hdr_t *h);
void fy_p2p_on_rdone(const fy_hdr_t *h);
/* Sends waiting for their receiver to publish its buffer: progress pushes their chunks. */
extern int fy_split_pushing;
int fy_p2p_split_progress(void);
/* Non-contiguous rendezvous read by the receiver (p2p_iov.c): the sender offers its type's run
 * table (sets FY_MSGF_IOV in r->hdr.flags, entry in r->hdr.frag) and releases it when the send
 * ends; the receiver reads the message (0) or gets the transport's refusal (answer CTS). */
void fy_p2p_iov_offer(fy_req_t *r, fy_hdr_t *h);
void fy_p2p_iov_release(fy_req_t *r);
int fy_p2p_iov_pull(fy_req_t *r, const fy_hdr_t *h);
void fy_p2p_iov_fini(void);

/* The receive side completes a request with `got` bytes. */
void fy_p2p_recv_finish(fy_req_t *r, size_t got);

/* Buffers for unexpected eager payloads: a free list of eager_max-sized blocks. */
void *fy_ubuf_get(size_t len);
void fy_ubuf_put(void *p, size_t len);
void fy_ubuf_fini(void);

/* A pause costs 25 ns on the EPYC guest of Nov 2026, a fifth of a one-way small message, and
 * a ping-pong's answer comes within the first few polls: so the first FY_WAIT_EAGER_POLLS polls
 * of a wait (about a microsecond) do not pause (8-64 B ping-pong 0.115-0.120 -> 0.110-0.115
 * us). */
enum { FY_WAIT_EAGER_POLLS = 64 };

#endif
