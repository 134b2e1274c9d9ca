/* Split rendezvous: a large contiguous message that whichever side runs can finish.
 *
 * The sender takes a slot in the receiver's table (fy_rndv_slot_t, in the shared segment),
 * writes the message's length and chunk size there and sends RTS naming the slot. The
 * receiver that matches it takes the last chunk, reads it with process_vm_readv, publishes its
 * buffer's address in the slot and keeps taking chunks from the back. A sender that runs
 * meanwhile (its wait polls progress) sees the address and takes chunks from the front,
 * writing them into the receiver's buffer with process_vm_writev. Each chunk is taken by one
 * compare-and-swap on the slot's claim word, so the two ends meet wherever their speeds put
 * them: a sender that never runs leaves the receiver to copy everything (as a plain single
 * copy), a receiver that is descheduled after its first chunk leaves the rest to the sender.
 * Whoever adds the last bytes to `done` tells the other: the receiver answers FIN, the sender
 * sends RDONE.
 *
 * Slot lifetime: the sender gives the slot back when its send ends (FIN, RDONE sent, CTS,
 * cancel). The receiver's last touch of the slot is its own add to `done`, which comes after
 * its last claim attempt (it tries for the next chunk before counting the one it copied), so
 * the total cannot be reached, nor the slot reused, while it may still touch it. */
#include <stdlib.h>

#include "fy_err.h"
#include "fy_p2p_stats.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

int fy_split_pushing;
static fy_req_t **pushing; /* sends holding a slot, until they end */
static int pushing_cap;

static fy_rndv_slot_t *slot_of_send(const fy_req_t *r)
{
    return fy_shm_rndv_slot(r->world_peer, (int)r->hdr.frag);
}

static uint64_t chunks(uint64_t len, uint64_t chunk)
{
    return (len + chunk - 1) / chunk;
}

static uint64_t piece(const fy_rndv_slot_t *s, uint64_t c)
{
    uint64_t off = c * s->chunk;
    return s->len - off < s->chunk ? s->len - off : s->chunk;
}

void fy_p2p_split_offer(fy_req_t *r, fy_hdr_t *h)
{
    if (!(r->hdr.flags & FY_MSGF_SPLIT)) {
        if (fy_rndv_mode != FY_RNDV_SPLIT || fy_peers[r->world_peer].ops != &fy_xport_shm ||
            !fy_shm_cma_usable())
            return;
        if (fy_split_pushing == pushing_cap) {
            int cap = pushing_cap ? 2 * pushing_cap : 64;
            fy_req_t **p = realloc(pushing, (size_t)cap * sizeof *p);
            if (!p)
                return; /* a plain rendezvous needs no list */
            pushing = p;
            pushing_cap = cap;
        }
        int slot = fy_shm_rndv_take(r->world_peer);
        if (slot < 0)
            return; /* every slot of this receiver is in use: plain single copy */
        r->hdr.flags = FY_MSGF_SPLIT;
        r->hdr.frag = (uint32_t)slot;
        fy_rndv_slot_t *s = slot_of_send(r);
        s->len = r->bytes;
        s->chunk = fy_rndv_chunk;
        s->rreq = 0;
        atomic_store_explicit(&s->done, 0, memory_order_relaxed);
        atomic_store_explicit(&s->raddr, 0, memory_order_relaxed);
        /* Published to the receiver by the RTS record's release. */
        atomic_store_explicit(&s->claim, chunks(s->len, s->chunk) << 32, memory_order_relaxed);
        pushing[fy_split_pushing++] = r;
    }
    h->flags |= FY_MSGF_SPLIT;
    h->frag = r->hdr.frag;
}

static void pushing_remove(fy_req_t *r)
{
    for (int i = 0; i < fy_split_pushing; i++)
        if (pushing[i] == r) {
            pushing[i] = pushing[--fy_split_pushing];
            return;
        }
}

void fy_p2p_split_release(fy_req_t *r)
{
    pushing_remove(r);
    fy_shm_rndv_give(r->world_peer, (int)r->hdr.frag);
    r->hdr.flags = 0;
}

/* The next chunk from the front (sender) or the back (receiver); -1 when none is left. */
static int64_t take_front(fy_rndv_slot_t *s)
{
    uint64_t c = atomic_load_explicit(&s->claim, memory_order_relaxed);
    while ((uint32_t)c < (uint32_t)(c >> 32))
        if (atomic_compare_exchange_weak_explicit(&s->claim, &c, c + 1, memory_order_acq_rel,
                                                  memory_order_relaxed))
            return (int64_t)(uint32_t)c;
    return -1;
}

static int64_t take_back(fy_rndv_slot_t *s)
{
    uint64_t c = atomic_load_explicit(&s->claim, memory_order_relaxed);
    while ((uint32_t)c < (uint32_t)(c >> 32))
        if (atomic_compare_exchange_weak_explicit(&s->claim, &c, c - (1ull << 32),
                                                  memory_order_acq_rel, memory_order_relaxed))
            return (int64_t)(c >> 32) - 1;
    return -1;
}

/* Copies what the sender can take of r's message; true when it ended the send. */
static bool push(fy_req_t *r, fy_rndv_slot_t *s, uint64_t raddr)
{
    const char *src = r->packed ? (const char *)r->packed : (const char *)r->buf + r->dt->lb;
    int64_t c;
    bool last = false;
    uint64_t left = s->len - atomic_load_explicit(&s->done, memory_order_relaxed);
    fy_busy_t busy = fy_p2p_busy_begin(left);
    while ((c = take_front(s)) >= 0) {
        uint64_t off = (uint64_t)c * s->chunk, k = piece(s, (uint64_t)c);
        if (fy_shm_put(r->world_peer, raddr + off, src + off, k) != 0)
            fy_fatal(MPI_ERR_OTHER,
                     "MPI_Send: process_vm_writev into the receiver was refused although reading "
                     "it was allowed; set FERRY_RNDV=cma (receiver-only single copy)");
        fy_p2p_stats.rndv_pushed += k;
        last = atomic_fetch_add_explicit(&s->done, k, memory_order_acq_rel) + k == s->len;
    }
    fy_p2p_busy_end(busy);
    if (!last)
        return false; /* the receiver finishes, and its FIN ends the send */
    fy_hdr_t h = {.kind = FY_MSG_RDONE, .rreq = s->rreq, .world_src = fy_rt.rank};
    fy_p2p_send_ctrl(r->world_peer, &h);
    fy_p2p_inflight_remove(r);
    fy_p2p_send_done(r); /* gives the slot back */
    return true;
}

int fy_p2p_split_progress(void)
{
    int n = 0;
    for (int i = 0; i < fy_split_pushing;) {
        fy_req_t *r = pushing[i];
        fy_rndv_slot_t *s = slot_of_send(r);
        uint64_t raddr = atomic_load_explicit(&s->raddr, memory_order_acquire);
        if (!raddr) {
            i++;
            continue;
        }
        /* Nothing more for the sender to do after one pass: out of the list either way. */
        pushing[i] = pushing[--fy_split_pushing];
        push(r, s, raddr);
        n++;
    }
    return n;
}

/* Publishes the receiver's buffer, and wakes the sender if it sleeps: it has chunks to copy
 * now, and on a busy machine its CPU share is half of what can move this message. */
static void publish(fy_rndv_slot_t *s, fy_req_t *r, int src, char *buf)
{
    s->rreq = (uint64_t)(uintptr_t)r;
    atomic_store_explicit(&s->raddr, (uint64_t)(uintptr_t)buf, memory_order_release);
    fy_shm_ring_bell(src);
}

int fy_p2p_split_pull(fy_req_t *r, const fy_hdr_t *h)
{
    int src = h->world_src;
    fy_peer_t *p = &fy_peers[src];
    fy_rndv_slot_t *s = fy_shm_rndv_slot(fy_rt.rank, (int)h->frag);
    char *buf = (char *)r->buf + r->dt->lb;
    uint64_t claim0 = atomic_load_explicit(&s->claim, memory_order_relaxed);
    /* The sender cannot take anything before the address is published: this always works,
     * and holding a chunk keeps the slot ours until we count it (see the slot lifetime). */
    uint64_t c = (uint64_t)take_back(s);
    uint64_t off = c * s->chunk, k = piece(s, c);
    fy_busy_t busy = fy_p2p_busy_begin(h->len);
    /* Once single copy from this peer has worked, the buffer is published before the first
     * chunk is copied, so that a running sender starts from the front at once: in a
     * ping-pong of four chunks the two ends then copy two each, not three chunk-times. The
     * first time, the first read proves that the kernel lets us read each other before the
     * sender may try to write. */
    bool early = p->single_copy;
    if (early)
        publish(s, r, src, buf);
    int rc = p->ops->get(src, h->addr + off, buf + off, k);
    if (rc != 0 && early)
        fy_fatal(MPI_ERR_OTHER, "MPI_Recv: process_vm_readv from the sender failed although it "
                                "had worked before");
    if (rc != 0) {
        fy_p2p_busy_end(busy);
        atomic_store_explicit(&s->claim, claim0, memory_order_relaxed);
        return rc; /* nothing published: the caller answers CTS, the sender streams */
    }
    if (!early) {
        p->single_copy = true;
        publish(s, r, src, buf);
    }
    bool last;
    for (;;) {
        int64_t next = take_back(s); /* before counting c: see the slot lifetime above */
        fy_p2p_stats.rndv_pulled += k;
        last = atomic_fetch_add_explicit(&s->done, k, memory_order_acq_rel) + k == h->len;
        if (next < 0)
            break;
        c = (uint64_t)next;
        off = c * s->chunk;
        k = piece(s, c);
        if (p->ops->get(src, h->addr + off, buf + off, k) != 0)
            fy_fatal(MPI_ERR_OTHER, "MPI_Recv: process_vm_readv from the sender failed midway "
                                    "through a message");
    }
    fy_p2p_busy_end(busy);
    r->hdr = *h;
    if (last) {
        fy_hdr_t fin = {.kind = FY_MSG_FIN, .sreq = h->sreq, .world_src = fy_rt.rank};
        fy_p2p_send_ctrl(src, &fin);
        fy_p2p_recv_finish(r, (size_t)h->len);
    }
    return 0; /* else the sender is copying the last chunks; its RDONE completes r */
}

void fy_p2p_on_rdone(const fy_hdr_t *h)
{
    fy_req_t *r = (fy_req_t *)(uintptr_t)h->rreq;
    fy_p2p_recv_finish(r, (size_t)r->hdr.len);
}

bool fy_p2p_send_helps(const fy_req_t *r)
{
    return r->kind == FY_REQ_SEND && !fy_req_is_done(r) && (r->hdr.flags & FY_MSGF_SPLIT);
}
