/* Requests: one struct for every operation in flight, taken from a pool that only grows, so
 * that starting a send or a receive never calls malloc once the pool is warm. */
#ifndef FY_REQUEST_H
#define FY_REQUEST_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fy_comm.h"
#include "fy_dtype.h"
#include "fy_xport.h"
#include "mpi.h"

typedef enum {
    FY_REQ_SEND,
    FY_REQ_RECV,
    FY_REQ_UNEXP, /* an arrived message nobody has asked for yet (also MPI_Message) */
    FY_REQ_COLL,  /* a nonblocking or persistent collective: `sched` runs it (coll/fy_sched.h) */
    FY_REQ_PART,  /* a partitioned send or receive: `part` runs it (p2p/fy_part.h) */
    FY_REQ_PAIR,  /* MPI_Isendrecv(_replace): completes when its two children have (below) */
    FY_REQ_GREQ,  /* a generalized request: the user's callbacks in `greq` (api/grequest.c) */
    FY_REQ_RMA,   /* MPI_Rput and the other request-based one-sided operations (src/osc) */
} fy_req_kind_t;

typedef enum { FY_MODE_STANDARD, FY_MODE_BUFFERED, FY_MODE_SYNC, FY_MODE_READY } fy_mode_t;

typedef struct fy_req fy_req_t;
struct fy_sched;
struct fy_part;
struct fy_greq;
struct fy_req {
    /* Hot fields first. */
    atomic_bool done;
    uint8_t kind;
    uint8_t mode;
    bool persistent; /* made by *_init; survives completion */
    bool active;     /* persistent: started and not yet completed */
    bool user_freed; /* MPI_Request_free while still in flight */
    bool cancelled;
    bool internal; /* owned by the library (buffered sends): freed on completion */
    int handle;
    fy_req_t *next, *prev; /* in exactly one queue at a time */

    /* The operation as the user gave it. */
    void *buf;
    MPI_Aint count;
    const fy_dtype_t *dt;
    int peer; /* rank in comm, or MPI_ANY_SOURCE */
    int tag;
    fy_comm_t *comm;
    uint32_t ctx;
    fy_req_t *parent; /* a child of an FY_REQ_PAIR request: reports to it instead of completing */

    /* Protocol state. */
    union {
        void *packed;           /* contiguous copy for non-contiguous types or buffered sends */
        struct fy_sched *sched; /* FY_REQ_COLL: the schedule, which lives as long as the request */
        struct fy_part *part;   /* FY_REQ_PART: the partitioned operation, likewise */
        struct fy_greq *greq;   /* FY_REQ_GREQ: the callbacks and their extra_state */
    };
    size_t bytes;    /* send: message bytes; recv: capacity in bytes */
    size_t streamed; /* CTS/DATA fallback: bytes sent or received so far */
    int world_peer;
    int pstate;    /* send: what is left to do (see p2p) */
    uint64_t rreq; /* send (streaming): the receiver's request */
    int error;

    /* Not cleared by fy_req_alloc: whoever uses them sets them. */
    MPI_Status status;
    fy_hdr_t hdr; /* unexpected: the header as it arrived */
    void *ubuf;   /* unexpected eager: the payload (NULL otherwise) */
};

/* The pool. fy_req_alloc never fails while memory lasts; the handle is set. */
fy_req_t *fy_req_alloc(fy_req_kind_t kind);
void fy_req_free(fy_req_t *r);
fy_req_t *fy_req_get(MPI_Request h); /* NULL when not a live request handle */
void fy_req_pool_fini(void);
/* Whether any request on c is still in flight, the library's own (buffered sends, requests
 * the user freed) included: MPI_Comm_disconnect waits for none. Scans the whole pool. */
bool fy_req_pending_on(const fy_comm_t *c);
/* Whether any request of the pool names c, in whatever state (fy_comm_release). */
bool fy_req_names(const fy_comm_t *c);

/* A fresh request for one point-to-point operation as the user (or a collective) describes it;
 * NULL when out of memory. */
static inline fy_req_t *fy_req_new_p2p(fy_req_kind_t kind, const void *buf, MPI_Aint count,
                                       const fy_dtype_t *dt, int peer, int tag, fy_comm_t *comm,
                                       uint32_t ctx, fy_mode_t mode)
{
    fy_req_t *r = fy_req_alloc(kind);
    if (r) {
        r->buf = (void *)buf;
        r->count = count;
        r->dt = dt;
        fy_dtype_ref(dt); /* MPI_Type_free while this is in flight must not pull it away */
        r->peer = peer;
        r->tag = tag;
        r->comm = comm;
        r->ctx = ctx;
        r->mode = (uint8_t)mode;
    }
    return r;
}

/* Set under MPI_THREAD_MULTIPLE: wakes this process's threads sleeping in a wait, since the
 * request one of them waits for may be completed by another thread. */
extern void (*fy_req_wake_hook)(void);

/* A child of an FY_REQ_PAIR request is done: its status (the receive's) and error pass to the
 * parent, the child is freed, and the parent completes with its last child. The parent keeps
 * the count of children in flight in `pstate` and a buffer of its own (freed then) in
 * `packed`. */
void fy_req_child_done(fy_req_t *r);

/* Marks r complete; a request the user already freed goes straight back to the pool. */
static inline void fy_req_complete(fy_req_t *r)
{
    if (r->user_freed) {
        fy_req_free(r);
        return;
    }
    if (__builtin_expect(r->parent != NULL, 0)) {
        fy_req_child_done(r);
        return;
    }
    atomic_store_explicit(&r->done, true, memory_order_release);
    if (fy_req_wake_hook)
        fy_req_wake_hook();
}
static inline bool fy_req_is_done(const fy_req_t *r)
{
    return atomic_load_explicit(&r->done, memory_order_acquire);
}

/* Status helpers (count is kept in bytes). */
static inline void fy_status_set(MPI_Status *s, int src, int tag, size_t bytes, int err)
{
    s->MPI_SOURCE = src;
    s->MPI_TAG = tag;
    s->count_lo = (int)(bytes & 0xffffffffu);
    s->count_hi_and_cancelled = (int)((bytes >> 32) & 0x7fffffff);
    s->MPI_ERROR = err;
}
static inline size_t fy_status_bytes(const MPI_Status *s)
{
    return (size_t)(uint32_t)s->count_lo | ((size_t)(s->count_hi_and_cancelled & 0x7fffffff) << 32);
}
static inline void fy_status_set_cancelled(MPI_Status *s, int flag)
{
    s->count_hi_and_cancelled =
        (s->count_hi_and_cancelled & 0x7fffffff) | (flag ? (int)0x80000000u : 0);
}

#endif
