/* The receive side: posted and unexpected queues per context, matching in arrival order, and
 * delivery of eager, rendezvous and streamed messages into the user's buffer. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_p2p_stats.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

/* Indexed by wire context id (2 per communicator id). Kept apart from the communicator so that
 * a message may arrive before this process has created the communicator it belongs to. */
static fy_queue_t posted[2 * FY_MAX_COMMS];
static fy_queue_t unexpected[2 * FY_MAX_COMMS];

static inline bool matches(const fy_req_t *r, int src, int tag)
{
    return (r->peer == src || r->peer == MPI_ANY_SOURCE) &&
           (r->tag == tag || r->tag == MPI_ANY_TAG);
}

/* Bytes [off, off + n) of the message land in the user's buffer: copied, or unpacked into a
 * non-contiguous type's layout as they arrive. */
static inline void land(fy_req_t *r, size_t off, const void *src, size_t n)
{
    if (n == 0)
        return;
    if (r->dt->contig)
        memcpy((char *)r->buf + r->dt->lb + off, src, n);
    else
        fy_dtype_unpack_range(r->dt, r->buf, r->count, off, src, n);
}

/* A remote read of n bytes into the user's buffer. A non-contiguous type reads through a
 * bounce buffer small enough to stay in cache, unpacking each piece as it comes, so a large
 * message costs no allocation and no cold staging copy. */
enum { BOUNCE = 256 * 1024 };
static int remote_read(fy_peer_t *p, int src, uint64_t addr, fy_req_t *r, size_t n)
{
    fy_p2p_stats.rndv_pulled += n;
    static unsigned char *bounce;
    if (!r->dt->contig && !bounce && !(bounce = malloc(BOUNCE)))
        return FY_XPORT_NOTSUP; /* streaming needs no buffer */
    fy_busy_t busy = fy_p2p_busy_begin(n);
    int rc = 0;
    if (r->dt->contig)
        rc = p->ops->get(src, addr, (char *)r->buf + r->dt->lb, n);
    for (size_t off = 0; !r->dt->contig && rc == 0 && off < n; off += BOUNCE) {
        size_t k = n - off < BOUNCE ? n - off : BOUNCE;
        rc = p->ops->get(src, addr + off, bounce, k);
        if (rc == 0)
            fy_dtype_unpack_range(r->dt, r->buf, r->count, off, bounce, k);
    }
    fy_p2p_busy_end(busy);
    return rc;
}

void fy_p2p_recv_finish(fy_req_t *r, size_t got)
{
    r->status.count_lo = (int)(got & 0xffffffffu);
    r->status.count_hi_and_cancelled = (int)((got >> 32) & 0x7fffffff);
    fy_req_complete(r);
}

static void set_envelope(fy_req_t *r, const fy_hdr_t *h)
{
    r->status.MPI_SOURCE = h->src;
    r->status.MPI_TAG = h->tag;
    r->status.MPI_ERROR = MPI_SUCCESS;
    if (h->len > r->bytes) {
        fy_err_set(MPI_ERR_TRUNCATE,
                   "message truncated: %llu bytes from rank %d (tag %d) do not fit "
                   "the receive buffer of %zu bytes",
                   (unsigned long long)h->len, h->src, h->tag, r->bytes);
        r->error = fy_err_code_for_message(MPI_ERR_TRUNCATE);
        r->status.MPI_ERROR = r->error;
    }
}

/* A message (EAGER or RTS, live or taken from the unexpected queue) meets its receive. */
static void deliver_matched(fy_req_t *r, const fy_hdr_t *h, const void *payload)
{
    int xp = fy_p2p_xp(h->world_src);
    fy_p2p_stats.msgs_recv[xp]++;
    fy_p2p_stats.bytes_recv[xp] += h->len;
    set_envelope(r, h);
    size_t n = h->len < r->bytes ? (size_t)h->len : r->bytes;
    if (h->kind == FY_MSG_EAGER) {
        land(r, 0, payload, n);
        if (h->flags & FY_MSGF_SYNC) {
            fy_hdr_t ack = {.kind = FY_MSG_ACK, .sreq = h->sreq, .world_src = fy_rt.rank};
            fy_p2p_send_ctrl(h->world_src, &ack);
        }
        fy_p2p_recv_finish(r, n);
        return;
    }
    /* Rendezvous: split between both sides when the sender offered it and the whole
     * message lands in one block here; else one remote copy, unless streaming is preferred
     * (or the copy is refused). */
    fy_peer_t *p = &fy_peers[h->world_src];
    int rc = FY_XPORT_NOTSUP;
    if ((h->flags & FY_MSGF_SPLIT) && n == h->len && r->dt->contig && n > 0) {
        rc = fy_p2p_split_pull(r, h);
        if (rc == 0)
            return; /* completes there, or on the sender's RDONE */
    } else if ((h->flags & FY_MSGF_IOV) && n == h->len && r->dt->contig && n > 0) {
        rc = fy_p2p_iov_pull(r, h); /* a non-contiguous sender's pieces, read remotely */
    } else if (n == 0) {
        rc = 0;
    } else if (!(h->flags & FY_MSGF_STREAM) &&
               (fy_rndv_mode != FY_RNDV_STREAM || p->ops == &fy_xport_self)) {
        rc = remote_read(p, h->world_src, h->addr, r, n);
        if (rc != 0)
            fy_p2p_stats.rndv_pulled -= n;
    }
    if (rc == 0) {
        fy_hdr_t fin = {.kind = FY_MSG_FIN, .sreq = h->sreq, .world_src = fy_rt.rank};
        fy_p2p_send_ctrl(h->world_src, &fin);
        fy_p2p_recv_finish(r, n);
        return;
    }
    /* Streaming fallback: remember the whole length; DATA beyond the buffer is dropped. */
    r->hdr = *h;
    r->streamed = 0;
    fy_hdr_t cts = {.kind = FY_MSG_CTS,
                    .sreq = h->sreq,
                    .rreq = (uint64_t)(uintptr_t)r,
                    .world_src = fy_rt.rank};
    fy_p2p_send_ctrl(h->world_src, &cts);
}

/* fy_xport_place: a fragment for a contiguous buffer, wholly inside it, goes straight there. */
void *fy_p2p_data_place(const fy_hdr_t *h)
{
    const fy_req_t *r = (const fy_req_t *)(uintptr_t)h->rreq;
    size_t off = (size_t)h->addr, len = h->frag;
    if (!r->dt->contig || off + len > r->bytes)
        return NULL;
    return (char *)r->buf + r->dt->lb + off;
}

void fy_p2p_on_data(const fy_hdr_t *h, const void *payload)
{
    fy_req_t *r = (fy_req_t *)(uintptr_t)h->rreq;
    size_t off = (size_t)h->addr, len = h->frag;
    fy_p2p_stats.rndv_streamed += len;
    if (off < r->bytes && !(h->flags & FY_MSGF_PLACED))
        land(r, off, payload, off + len <= r->bytes ? len : r->bytes - off);
    r->streamed += len;
    if (r->streamed == r->hdr.len)
        fy_p2p_recv_finish(r, r->hdr.len < r->bytes ? (size_t)r->hdr.len : r->bytes);
}

int fy_posted_total;

void fy_p2p_on_message(const fy_hdr_t *h, const void *payload)
{
    fy_queue_t *q = &posted[h->ctx];
    for (fy_req_t *r = q->head; r; r = r->next)
        if (matches(r, h->src, h->tag)) {
            fy_queue_remove(q, r);
            fy_posted_total--;
            deliver_matched(r, h, payload);
            return;
        }
    fy_req_t *u = fy_req_alloc(FY_REQ_UNEXP);
    if (!u)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory queueing an unexpected message");
    u->hdr = *h;
    u->ubuf = NULL;
    if (h->kind == FY_MSG_EAGER && h->len) {
        u->ubuf = fy_ubuf_get((size_t)h->len);
        if (!u->ubuf)
            fy_fatal(MPI_ERR_NO_MEM, "out of memory queueing an unexpected message");
        memcpy(u->ubuf, payload, (size_t)h->len);
    }
    fy_queue_push(&unexpected[h->ctx], u);
    if (++fy_p2p_stats.unexp_len > fy_p2p_stats.unexp_hwm)
        fy_p2p_stats.unexp_hwm = fy_p2p_stats.unexp_len;
}

static void unexpected_remove(fy_queue_t *uq, fy_req_t *u)
{
    fy_queue_remove(uq, u);
    fy_p2p_stats.unexp_len--;
}

int fy_p2p_mrecv(fy_req_t *r, fy_req_t *u)
{
    deliver_matched(r, &u->hdr, u->ubuf);
    if (u->ubuf)
        fy_ubuf_put(u->ubuf, (size_t)u->hdr.len);
    fy_req_free(u);
    return MPI_SUCCESS;
}

/* A blocking receive from one source whose context has nothing posted or unexpected takes a
 * matching eager message straight from that source's queue into the user's buffer: no request,
 * no matching queue, no wait. In a ping-pong everything between the message's arrival and the
 * answer's departure is on the critical path, and the general path (delivery, matching,
 * completion, the wait's exit, the status, the request's release) was most of it. Polls the
 * queue for RECV_NOW_POLLS looks (pausing after the first few, as a wait does: some microseconds,
 * where a ping-pong's answer comes within one or two), then
 * leaves everything, including a record that is not the one wanted, to the general path. */
enum { RECV_NOW_POLLS = 256 };
int fy_p2p_recv_now(fy_comm_t *c, void *buf, size_t cap, int src, int tag, MPI_Status *status)
{
    uint32_t ctx = FY_CTX_P2P(c);
    if (posted[ctx].head || unexpected[ctx].head)
        return FY_XPORT_AGAIN;
    int w = fy_comm_peer_world(c, src);
    const fy_xport_ops_t *ops = fy_peers[w].ops;
    if (!ops->peek)
        return FY_XPORT_AGAIN;
    const fy_hdr_t *h = NULL;
    const void *payload;
    fy_shm_in_wait(1); /* polling: the producer may wrap its ring early (shm_ring.c) */
    for (unsigned i = 0; i < RECV_NOW_POLLS && !ops->peek(w, &h, &payload); i++) {
        h = NULL;
        if (i >= FY_WAIT_EAGER_POLLS)
            fy_cpu_relax();
    }
    int rc = FY_XPORT_AGAIN;
    if (h && h->kind == FY_MSG_EAGER && !h->flags && h->ctx == ctx && h->src == src &&
        (tag == MPI_ANY_TAG || h->tag == tag) && h->len <= cap) {
        size_t n = (size_t)h->len;
        if (n)
            memcpy(buf, payload, n);
        if (status != MPI_STATUS_IGNORE) {
            status->MPI_SOURCE = src;
            status->MPI_TAG = h->tag;
            status->count_lo = (int)(n & 0xffffffffu);
            status->count_hi_and_cancelled = (int)((n >> 32) & 0x7fffffff);
        }
        fy_p2p_stats.msgs_recv[FY_XP_SHM]++;
        fy_p2p_stats.bytes_recv[FY_XP_SHM] += n;
        ops->take(w);
        fy_shm_in_wait(0);
        return 0;
    }
    /* Still in_wait: the general path's wait follows at once, and a producer that saw it
     * cleared in between would not wrap early for a whole lap (4 KiB ping-pong 1.8 -> 2.5 us
     * with 160 ns lines). */
    return rc;
}

int fy_p2p_irecv(fy_req_t *r)
{
    r->bytes = fy_dtype_bytes(r->dt, r->count);
    if (r->peer == MPI_PROC_NULL) {
        fy_status_set(&r->status, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS);
        fy_req_complete(r);
        return MPI_SUCCESS;
    }
    fy_queue_t *uq = &unexpected[r->ctx];
    for (fy_req_t *u = uq->head; u; u = u->next)
        if (matches(r, u->hdr.src, u->hdr.tag)) {
            unexpected_remove(uq, u);
            return fy_p2p_mrecv(r, u);
        }
    fy_queue_push(&posted[r->ctx], r);
    fy_posted_total++;
    return MPI_SUCCESS;
}

/* Contexts 2k are point-to-point (docs/DESIGN.md): collectives' receives are left alone. */
void fy_p2p_posted_foreach(void (*fn)(fy_req_t *r))
{
    for (size_t c = 0; c < 2 * FY_MAX_COMMS && fy_posted_total > 0; c += 2) {
        fy_req_t *r = posted[c].head;
        while (r) {
            fy_req_t *next = r->next;
            if (r->peer >= 0)
                fn(r);
            r = next;
        }
    }
}

void fy_p2p_posted_foreach_all(void (*fn)(fy_req_t *r))
{
    for (size_t c = 0; c < 2 * FY_MAX_COMMS && fy_posted_total > 0; c++)
        for (fy_req_t *r = posted[c].head; r; r = r->next)
            fn(r);
}

void fy_p2p_recv_fail(fy_req_t *r, int code)
{
    fy_queue_remove(&posted[r->ctx], r);
    fy_posted_total--;
    r->error = code;
    fy_status_set(&r->status, r->peer, r->tag, 0, code);
    fy_req_complete(r);
}

fy_req_t *fy_p2p_probe(uint32_t ctx, int src, int tag, bool take)
{
    fy_queue_t *uq = &unexpected[ctx];
    for (fy_req_t *u = uq->head; u; u = u->next)
        if ((src == MPI_ANY_SOURCE || src == u->hdr.src) &&
            (tag == MPI_ANY_TAG || tag == u->hdr.tag)) {
            if (take)
                unexpected_remove(uq, u);
            return u;
        }
    return NULL;
}

bool fy_p2p_cancel_recv(fy_req_t *r)
{
    if (fy_req_is_done(r))
        return false;
    fy_queue_t *q = &posted[r->ctx];
    for (fy_req_t *p = q->head; p; p = p->next)
        if (p == r) {
            fy_queue_remove(q, r);
            fy_posted_total--;
            r->cancelled = true;
            fy_status_set(&r->status, r->peer, r->tag, 0, MPI_SUCCESS);
            fy_status_set_cancelled(&r->status, 1);
            fy_req_complete(r);
            return true;
        }
    return false;
}

void fy_p2p_recv_fini(void)
{
    /* Empty queues are already clear: writing the 4,096 empty ones would fault in 128 KiB of
     * zero pages in every rank at MPI_Finalize. */
    if (fy_posted_total == 0 && fy_p2p_stats.unexp_len == 0)
        return;
    for (size_t c = 0; c < 2 * FY_MAX_COMMS; c++) {
        fy_req_t *u = unexpected[c].head;
        while (u) {
            fy_req_t *next = u->next;
            if (u->ubuf)
                fy_ubuf_put(u->ubuf, (size_t)u->hdr.len);
            fy_req_free(u);
            u = next;
        }
        unexpected[c].head = unexpected[c].tail = NULL;
        fy_p2p_stats.unexp_len = 0;
        posted[c].head = posted[c].tail = NULL;
    }
    fy_posted_total = 0;
}

void fy_p2p_on_cancel(const fy_hdr_t *h)
{
    fy_queue_t *uq = &unexpected[h->ctx];
    fy_hdr_t ans = {.kind = FY_MSG_CANCEL_ACK, .sreq = h->sreq, .world_src = fy_rt.rank};
    for (fy_req_t *u = uq->head; u; u = u->next)
        if (u->hdr.sreq == h->sreq && h->sreq && u->hdr.world_src == h->world_src) {
            unexpected_remove(uq, u);
            if (u->ubuf)
                fy_ubuf_put(u->ubuf, (size_t)u->hdr.len);
            fy_req_free(u);
            ans.flags = FY_MSGF_CANCELLED;
            break;
        }
    fy_p2p_send_ctrl(h->world_src, &ans);
}
