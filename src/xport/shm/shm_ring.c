/* Moving records through the per-pair rings (layout in shm_seg.h).
 *
 * Each side keeps its own position in process memory and reads the other side's position from
 * the shared line only when it must (a producer when its cached view of the ring is full, a
 * consumer once per poll), so an idle ring costs one cache-line read per poll.
 */
#include <string.h>

#include "fy_xport.h"
#include "shm_seg.h"

int fy_shm_get(int src, uint64_t raddr, void *dst, size_t len);

/* Process-local halves of each ring's state, indexed by peer. */
typedef struct {
    uint64_t tail;       /* next position we write */
    uint64_t head_cache; /* last head we read from the consumer */
} prod_t;
typedef struct {
    uint64_t head;
} cons_t;

enum { MAX_LOCAL = 4096 };
static prod_t prod[MAX_LOCAL];
static cons_t cons[MAX_LOCAL];

static inline uint64_t rec_bytes(size_t payload)
{
    return (sizeof(fy_hdr_t) + payload + FY_CACHELINE - 1) & ~(uint64_t)(FY_CACHELINE - 1);
}

static inline size_t payload_len(const fy_hdr_t *h)
{
    if (h->kind == FY_MSG_EAGER)
        return (size_t)h->len;
    if (h->kind == FY_MSG_DATA)
        return h->frag;
    return 0;
}

/* Reserves a record of `len` payload bytes in the ring to dst and returns where the payload
 * goes, or NULL when the ring is full; publish() makes it visible. */
static unsigned char *reserve(int dst, const fy_hdr_t *h, size_t len)
{
    fy_ring_t *r = fy_shm_ring(dst, fy_shm.rank);
    prod_t *p = &prod[dst];
    const uint64_t size = fy_shm.ring_bytes;
    uint64_t need = rec_bytes(len);
    uint64_t off = p->tail & (size - 1);
    uint64_t pad = (off + need > size) ? size - off : 0;

    if (p->tail + pad + need - p->head_cache > size) {
        p->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
        if (p->tail + pad + need - p->head_cache > size) {
            atomic_store_explicit(&r->producer_waiting, 1, memory_order_relaxed);
            /* The consumer may have drained everything before seeing the flag. */
            fy_shm_fence_slow();
            p->head_cache = atomic_load(&r->head);
            if (p->tail + pad + need - p->head_cache > size)
                return NULL;
        }
    }
    if (pad) {
        fy_hdr_t *ph = (fy_hdr_t *)(r->data + off);
        ph->kind = FY_MSG_PAD;
        p->tail += pad;
        off = 0;
    }
    memcpy(r->data + off, h, sizeof *h);
    return r->data + off + sizeof *h;
}

static void publish(int dst, size_t len)
{
    fy_ring_t *r = fy_shm_ring(dst, fy_shm.rank);
    prod_t *p = &prod[dst];
    p->tail += rec_bytes(len);
    atomic_store_explicit(&r->tail, p->tail, memory_order_release);
    fy_shm_ring_bell(dst);
}

static int shm_send(int dst, const fy_hdr_t *h, const void *payload, size_t len)
{
    unsigned char *at = reserve(dst, h, len);
    if (!at)
        return FY_XPORT_AGAIN;
    if (len)
        memcpy(at, payload, len);
    publish(dst, len);
    return 0;
}

static int shm_send_fill(int dst, const fy_hdr_t *h, size_t len, fy_xport_fill_fn fill, void *arg)
{
    unsigned char *at = reserve(dst, h, len);
    if (!at)
        return FY_XPORT_AGAIN;
    if (len)
        fill(arg, at, len);
    publish(dst, len);
    return 0;
}

/* Half a ring, so that one large record never waits for the ring to empty completely. */
static size_t shm_max_payload(void)
{
    return fy_shm.ring_bytes / 2 - sizeof(fy_hdr_t);
}

int fy_shm_progress(void)
{
    if (!fy_shm.base)
        return 0;
    const int me = fy_shm.rank, n = fy_shm.n;
    const uint64_t size = fy_shm.ring_bytes;
    int handled = 0;
    for (int src = 0; src < n; src++) {
        if (src == me)
            continue;
        fy_ring_t *r = fy_shm_ring(me, src);
        uint64_t head = cons[src].head;
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head == tail)
            continue;
        while (head != tail) {
            uint64_t off = head & (size - 1);
            const fy_hdr_t *h = (const fy_hdr_t *)(r->data + off);
            if (h->kind == FY_MSG_PAD) {
                head += size - off;
                continue;
            }
            size_t len = payload_len(h);
            fy_xport_deliver(h, (const unsigned char *)h + sizeof *h);
            head += rec_bytes(len);
            handled++;
        }
        cons[src].head = head;
        atomic_store_explicit(&r->head, head, memory_order_release);
        fy_shm_fence_fast();
        if (atomic_load_explicit(&r->producer_waiting, memory_order_relaxed)) {
            atomic_store(&r->producer_waiting, 0);
            fy_shm_ring_bell(src);
        }
    }
    return handled;
}

const fy_xport_ops_t fy_xport_shm = {
    .name = "shm",
    .send = shm_send,
    .send_fill = shm_send_fill,
    .get = fy_shm_get,
    .max_payload = shm_max_payload,
};
