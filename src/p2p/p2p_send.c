/* The send side: choosing eager or rendezvous, queueing records a full transport refused
 * (in order, per peer), control records, and completion. */
#include <stdlib.h>
#include <string.h>

#include "fy_bsend.h"
#include "fy_clock.h"
#include "fy_err.h"
#include "fy_knobs.h"
#include "fy_p2p_stats.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

fy_peer_t *fy_peers;
int fy_pending_total;
int fy_inflight_total;

/* A message is one block of bytes (contiguous type, or a buffered send's packed copy), or is
 * packed from the user's layout piece by piece as it goes out. */
static inline bool source_is_block(const fy_req_t *r)
{
    return r->packed || r->dt->contig;
}

static const void *send_source(const fy_req_t *r)
{
    if (r->packed)
        return r->packed;
    return (const char *)r->buf + r->dt->lb;
}

/* Packs the next piece of a non-contiguous message into the transport's buffer; r->streamed
 * says where the piece starts. */
static void fill_packed(void *arg, void *dst, size_t len)
{
    const fy_req_t *r = arg;
    fy_dtype_pack_range(r->dt, r->buf, r->count, r->streamed, dst, len);
}

static int send_payload(fy_req_t *r, const fy_hdr_t *h, size_t off, size_t len)
{
    fy_peer_t *p = &fy_peers[r->world_peer];
    if (source_is_block(r) || len == 0)
        return p->ops->send(r->world_peer, h, (const char *)send_source(r) + off, len);
    r->streamed = off;
    return p->ops->send_fill(r->world_peer, h, len, fill_packed, r);
}

/* Eager or single copy, by what copying into the ring costs now. The eager limit assumes the
 * sender's copy into the ring runs at cache speed, and it does while the host keeps the two
 * CPUs close; in other minutes of the same machine (the EPYC guest, Nov 2026) it ran at memory
 * speed or below, and a window of 64 KiB eager sends moved 2.3-6 GB/s where single copy moved
 * 10 and MPICH 10 (32 KiB: 2.3 against 7.6). So the sender times its copies of large eager
 * messages (above an eighth of the limit, where one system call and a round trip are small
 * against the slow copy) and, while they run at under half the calibrated single copy's rate,
 * sends such messages by rendezvous instead (64 KiB window: 5.3 -> 7-10 GB/s; 128 KiB: 2.3-5.5
 * -> 10.5), still copying one in PROBE_EVERY eagerly to notice when the machine is fast again
 * (one in 16 halved the window's rate: a slow eager copy holds up the rendezvous behind it).
 * FERRY_EAGER_MAX set by the user turns this off. */
enum { PROBE_EVERY = 256, TIME_EVERY = 8 };
static double eager_ns_per_byte; /* moving average of large eager copies; 0: none yet */
static unsigned eager_skipped;

static bool large_eager(const fy_req_t *r)
{
    return r->bytes > fy_eager_max / 8 && source_is_block(r) && fy_rndv_mode != FY_RNDV_STREAM &&
           fy_peers[r->world_peer].ops == &fy_xport_shm && fy_shm_cma_usable() &&
           !fy_knob_is_set(FY_KNOB_EAGER_MAX);
}

/* Slower than twice the single copy: an eager message costs two copies (in and out of the
 * ring) against one, but they overlap in a stream; at about the single copy's rate (beside busy
 * loops, 0.081-0.087 ns/B against 0.083) a 128 KiB ping-pong still took 40 us eager and 49 by
 * rendezvous. The slow minutes ran at 0.37. */
static bool eager_is_slow(void)
{
    return eager_ns_per_byte > 2 * fy_copy_ns_per_byte;
}

static bool eager_slow_now(const fy_req_t *r)
{
    if (!eager_is_slow() || !large_eager(r))
        return false;
    if (++eager_skipped % PROBE_EVERY == 0)
        return false; /* this one goes eager, and is timed */
    return true;
}

static void eager_timed(size_t bytes, int64_t ns)
{
    /* A copy that lasted a scheduler slice was preempted, not slow: beside busy loops such
     * samples switched a 128 KiB ping-pong to rendezvous (50 us against 40 eager). */
    if (ns > 1000000)
        return;
    double v = (double)ns / (double)bytes;
    if (v > 1.0)
        v = 1.0; /* one odd sample moves the average by a quarter of 1 ns/B at most */
    eager_ns_per_byte = eager_ns_per_byte > 0 ? eager_ns_per_byte + (v - eager_ns_per_byte) / 4 : v;
}

static void make_header(const fy_req_t *r, fy_hdr_t *h, bool rts)
{
    bool eager = !rts && r->bytes <= fy_peers[r->world_peer].max_payload &&
                 r->bytes <= fy_eager_max && !(r->pstate != FY_PS_QUEUED && eager_slow_now(r));
    h->kind = eager ? FY_MSG_EAGER : FY_MSG_RTS;
    h->flags = r->mode == FY_MODE_SYNC ? FY_MSGF_SYNC : 0;
    if (h->kind == FY_MSG_RTS && !source_is_block(r))
        h->flags |= FY_MSGF_STREAM;
    h->reserved = 0;
    h->src = r->comm->rank;
    h->tag = r->tag;
    h->ctx = r->ctx;
    h->len = r->bytes;
    /* Only a message that waits for an answer names its request: a plain eager send's request
     * is recycled at once, and a stale id could be mistaken for a live one (MPI_Cancel). */
    h->sreq = (h->kind == FY_MSG_EAGER && !h->flags) ? 0 : (uint64_t)(uintptr_t)r;
    h->rreq = 0;
    h->addr = source_is_block(r) ? (uint64_t)(uintptr_t)send_source(r) : 0;
    h->world_src = fy_rt.rank;
    h->frag = 0;
}

/* Gives back what a rendezvous offer held for the receiver to read us: a split-rendezvous
 * slot or a run table. */
static void release_offer(fy_req_t *r)
{
    if (r->hdr.flags & FY_MSGF_SPLIT)
        fy_p2p_split_release(r);
    else if (r->hdr.flags & FY_MSGF_IOV)
        fy_p2p_iov_release(r);
}

void fy_p2p_send_done(fy_req_t *r)
{
    release_offer(r);
    if (r->internal) { /* a buffered send: the user's request completed long ago */
        fy_bsend_release(r);
        fy_req_free(r);
        return;
    }
    if (r->packed && r->mode != FY_MODE_BUFFERED) {
        free(r->packed);
        r->packed = NULL;
    }
    fy_req_complete(r);
}

/* Sends that wait for an answer are listed per peer, so that a peer that leaves
 * (MPI_Finalize) fails them instead of leaving them waiting forever (p2p_gone.c). */
static void inflight_add(fy_req_t *r)
{
    fy_queue_push(&fy_peers[r->world_peer].inflight, r);
    fy_inflight_total++;
}

void fy_p2p_inflight_remove(fy_req_t *r)
{
    fy_queue_remove(&fy_peers[r->world_peer].inflight, r);
    fy_inflight_total--;
}

/* Puts r's first record on the wire as eager (when size and state allow) or as RTS. 0 when
 * sent, FY_XPORT_AGAIN when full. */
static int try_as(fy_req_t *r, bool rts)
{
    fy_hdr_t h;
    make_header(r, &h, rts);
    if (h.kind == FY_MSG_RTS && source_is_block(r))
        fy_p2p_split_offer(r, &h); /* kept across retries: the slot is taken once */
    else if (h.kind == FY_MSG_RTS)
        fy_p2p_iov_offer(r, &h);
    /* The state must be set before the send: the self transport delivers, and may answer,
     * inside the call. */
    r->pstate = h.kind == FY_MSG_RTS ? FY_PS_WAIT_FIN : (h.flags ? FY_PS_WAIT_ACK : 0);
    if (r->pstate) /* before the send, for the same reason */
        inflight_add(r);
    /* While copies are fast, one in TIME_EVERY is timed (two clock reads are 2-5 % of a fast
     * 32-64 KiB copy); while they are slow, every eager one is a probe. */
    static unsigned to_time;
    bool timed = h.kind == FY_MSG_EAGER && large_eager(r) &&
                 (eager_is_slow() || ++to_time % TIME_EVERY == 1);
    int64_t t0 = timed ? fy_now_ns() : 0;
    int rc = send_payload(r, &h, 0, h.kind == FY_MSG_EAGER ? r->bytes : 0);
    if (timed && rc == 0)
        eager_timed(r->bytes, fy_now_ns() - t0);
    if (rc != 0) {
        if (r->pstate)
            fy_p2p_inflight_remove(r);
        r->pstate = FY_PS_QUEUED;
        return rc;
    }
    fy_p2p_stats.rndv_sent += h.kind == FY_MSG_RTS;
    if (h.kind == FY_MSG_EAGER && !h.flags)
        fy_p2p_send_done(r);
    return 0;
}

/* Tries to put r's first record on the wire. 0 when sent, FY_XPORT_AGAIN when full. While
 * other work takes turns with our ranks on the CPUs, a large eager message that finds the
 * ring full goes as a rendezvous instead of waiting for room: room comes only when the
 * receiver runs and drains, then the sender must run again to refill, one ring per pair of
 * turns, where the receiver can read a rendezvous alone whenever it runs. Beside a busy loop
 * per core a window of 64 KiB sends moved 2.4-3.0 GB/s eager and 5.2 by rendezvous (MPICH
 * 4.9-5.0); a ping-pong never finds the ring full and stays eager (128 KiB: 21 us eager, 48
 * by rendezvous, under the same load). On a quiet machine the eager stream is faster. */
static int try_first_record(fy_req_t *r)
{
    /* A rendezvous offer made on an earlier attempt (a split slot, a run table) stays one. */
    bool offered = (r->hdr.flags & (FY_MSGF_SPLIT | FY_MSGF_IOV)) != 0;
    int rc = try_as(r, offered);
    if (rc == FY_XPORT_AGAIN && !offered && fy_p2p_contended && r->bytes <= fy_eager_max &&
        large_eager(r))
        rc = try_as(r, true);
    return rc;
}

/* Streams DATA fragments until done or the transport is full. */
static int stream_more(fy_req_t *r)
{
    fy_peer_t *p = &fy_peers[r->world_peer];
    while (r->streamed < r->bytes) {
        size_t n = r->bytes - r->streamed;
        if (n > p->max_payload)
            n = p->max_payload;
        /* Smaller pieces keep both copies busy at once on shared memory; over TCP the
         * transport's own size (fewer headers and system calls). */
        size_t cap = p->ops == &fy_xport_tcp ? fy_tcp_frag() : fy_frag_max;
        if (n > cap)
            n = cap;
        fy_hdr_t h = {.kind = FY_MSG_DATA,
                      .rreq = r->rreq,
                      .addr = r->streamed,
                      .frag = (uint32_t)n,
                      .world_src = fy_rt.rank,
                      .len = r->bytes};
        size_t at = r->streamed;
        if (send_payload(r, &h, at, n) != 0) {
            r->streamed = at;
            return FY_XPORT_AGAIN;
        }
        r->streamed = at + n;
    }
    if (p->ops->holds && p->ops->holds(r->world_peer))
        return FY_XPORT_AGAIN; /* the last fragment is still being written from our buffer */
    fy_p2p_send_done(r);
    return 0;
}

static void enqueue_pending(int dst, fy_req_t *r)
{
    fy_queue_push(&fy_peers[dst].pending, r);
    fy_pending_total++;
}

int fy_p2p_isend(fy_req_t *r)
{
    r->bytes = fy_dtype_bytes(r->dt, r->count);
    r->hdr.flags = 0; /* no split-rendezvous slot yet */
    if (r->peer == MPI_PROC_NULL) {
        fy_p2p_send_done(r);
        return MPI_SUCCESS;
    }
    r->world_peer = fy_comm_peer_world(r->comm, r->peer);
    int xp = fy_p2p_xp(r->world_peer);
    fy_p2p_stats.msgs_sent[xp]++;
    fy_p2p_stats.bytes_sent[xp] += r->bytes;
    fy_peer_t *p = &fy_peers[r->world_peer];
    if (p->pending.head || try_first_record(r) != 0) {
        r->pstate = FY_PS_QUEUED;
        enqueue_pending(r->world_peer, r);
    }
    return MPI_SUCCESS;
}

/* A blocking standard send of a small contiguous message goes straight into the transport,
 * with no request: in a ping-pong everything the sender does before the record is out is on
 * the critical path, and the general path's request, state and completion were 555
 * instructions per MPI_Send (callgrind, 8-byte ping-pong, Nov 2026), this one about 150.
 * Only below the sizes whose copies are timed (large_eager), and only with nothing queued for
 * the peer, so that order and the adaptive eager limit stay the general path's. */
int fy_p2p_send_now(fy_comm_t *c, const void *src, size_t bytes, int dest, int tag)
{
    if (bytes > fy_eager_max / 8)
        return FY_XPORT_AGAIN;
    int w = fy_comm_peer_world(c, dest);
    fy_peer_t *p = &fy_peers[w];
    if (p->pending.head || bytes > p->max_payload)
        return FY_XPORT_AGAIN;
    fy_hdr_t h = {.kind = FY_MSG_EAGER,
                  .src = c->rank,
                  .tag = tag,
                  .ctx = FY_CTX_P2P(c),
                  .len = bytes,
                  .addr = (uint64_t)(uintptr_t)src,
                  .world_src = fy_rt.rank};
    if (p->ops->send(w, &h, src, bytes) != 0)
        return FY_XPORT_AGAIN;
    int xp = fy_p2p_xp(w);
    fy_p2p_stats.msgs_sent[xp]++;
    fy_p2p_stats.bytes_sent[xp] += bytes;
    return 0;
}

void fy_p2p_send_ctrl(int dst, const fy_hdr_t *h)
{
    fy_peer_t *p = &fy_peers[dst];
    if (!p->pending.head && p->ops->send(dst, h, NULL, 0) == 0)
        return;
    fy_req_t *c = fy_req_alloc(FY_REQ_SEND);
    if (!c)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory queueing a control message");
    c->internal = true;
    c->hdr = *h;
    c->pstate = FY_PS_CTRL;
    enqueue_pending(dst, c);
}

void fy_p2p_on_ack_or_fin(const fy_hdr_t *h)
{
    fy_req_t *r = (fy_req_t *)(uintptr_t)h->sreq;
    fy_p2p_inflight_remove(r);
    fy_p2p_send_done(r);
}

void fy_p2p_on_cts(const fy_hdr_t *h)
{
    fy_req_t *r = (fy_req_t *)(uintptr_t)h->sreq;
    fy_p2p_inflight_remove(r);
    release_offer(r); /* the receiver cannot read us: no slot or run table needed */
    r->rreq = h->rreq;
    r->streamed = 0;
    r->pstate = FY_PS_STREAM;
    fy_peer_t *p = &fy_peers[r->world_peer];
    if (p->pending.head || stream_more(r) != 0)
        enqueue_pending(r->world_peer, r);
}

int fy_p2p_drain_pending(void)
{
    int sent = 0;
    for (int d = 0; d < fy_rt.size && fy_pending_total > 0; d++) {
        fy_peer_t *p = &fy_peers[d];
        fy_req_t *r;
        while ((r = p->pending.head) != NULL) {
            /* Unlinked before the attempt: completing may free r (buffered sends). */
            fy_queue_remove(&p->pending, r);
            fy_pending_total--;
            int rc;
            if (r->pstate == FY_PS_CTRL)
                rc = p->ops->send(d, &r->hdr, NULL, 0);
            else if (r->pstate == FY_PS_STREAM)
                rc = stream_more(r);
            else
                rc = try_first_record(r);
            if (rc != 0) {
                /* Back to the front, so that order is kept. */
                r->prev = NULL;
                r->next = p->pending.head;
                if (p->pending.head)
                    p->pending.head->prev = r;
                else
                    p->pending.tail = r;
                p->pending.head = r;
                fy_pending_total++;
                break;
            }
            sent++;
            if (r->pstate == FY_PS_CTRL)
                fy_req_free(r);
        }
    }
    return sent;
}

static void complete_cancelled(fy_req_t *r)
{
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    fy_status_set_cancelled(&r->status, 1);
    r->cancelled = true;
    fy_p2p_send_done(r);
}

void fy_p2p_cancel_send(fy_req_t *r)
{
    if (fy_req_is_done(r) || r->peer == MPI_PROC_NULL || r->cancelled)
        return;
    fy_peer_t *p = &fy_peers[r->world_peer];
    if (r->pstate == FY_PS_QUEUED) {
        fy_queue_remove(&p->pending, r);
        fy_pending_total--;
        complete_cancelled(r);
        return;
    }
    if (r->pstate != FY_PS_WAIT_ACK && r->pstate != FY_PS_WAIT_FIN)
        return; /* streaming: the receiver has matched it */
    fy_hdr_t h = {.kind = FY_MSG_CANCEL,
                  .ctx = r->ctx,
                  .sreq = (uint64_t)(uintptr_t)r,
                  .world_src = fy_rt.rank};
    fy_p2p_send_ctrl(r->world_peer, &h);
}

void fy_p2p_on_cancel_ack(const fy_hdr_t *h)
{
    fy_req_t *r = (fy_req_t *)(uintptr_t)h->sreq;
    /* Not withdrawn: the receiver matched it, and its ACK/FIN completes the request. */
    if (h->flags & FY_MSGF_CANCELLED) {
        fy_p2p_inflight_remove(r);
        complete_cancelled(r);
    }
}

/* World rank w has left: the answers our point-to-point sends wait for (FIN, CTS, ACK) will
 * never come. Records still queued for it are left alone: it keeps draining its queue until
 * the final barrier ends, and its barrier may be behind them. Collective contexts too: its
 * final barrier's messages travel there. */
void fy_p2p_send_fail_gone(int w, const char *why)
{
    fy_peer_t *p = &fy_peers[w];
    fy_req_t *r = p->inflight.head;
    while (r) {
        fy_req_t *next = r->next;
        if ((r->ctx & 1) == 0) {
            fy_p2p_inflight_remove(r);
            fy_err_set(MPI_ERR_OTHER,
                       "MPI_Send: rank %d (world rank %d) %s; a message of %zu bytes (tag %d) to "
                       "it can never be delivered",
                       r->peer, w, why, r->bytes, r->tag);
            r->error = fy_err_code_for_message(MPI_ERR_OTHER);
            r->status.MPI_ERROR = r->error;
            fy_p2p_send_done(r);
        }
        r = next;
    }
}
