/* Moving records through the per-pair rings (layout in shm_seg.h).
 *
 * Each side keeps its own position in process memory and reads the other side's position from
 * the shared line only when it must (a producer when its cached view of the ring is full, a
 * consumer once per poll), so an idle ring costs one cache-line read per poll.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#include "fy_xport.h"
#include "shm_seg.h"

int fy_shm_get(int src, uint64_t raddr, void *dst, size_t len);

/* Process-local halves of each ring's state, indexed by peer. */
typedef struct {
    uint64_t tail;       /* next position we write */
    uint64_t head_cache; /* last head we read from the consumer */
    int hot_missed;      /* this lap, the consumer lagged when we tried to wrap early */
    int populated;       /* the ring's pages are mapped (fy_shm_ring_arm) */
} prod_t;
typedef struct {
    uint64_t head;
    unsigned ahead; /* lines past the stamp's that the last record from this peer had */
} cons_t;
/* Prefetching the lines of the record a consumer waits for (fy_shm_progress), after a record of
 * up to 1 + AHEAD_MAX lines; after a larger one, none: the copy's own misses overlap and the
 * prefetcher streams, and in a stream of such records the prefetches took lines from under the
 * producer (4-8 KiB windows with 160 ns lines: 2.4-3.1 GB/s, 3.0-4.2 without). */
enum { AHEAD_MAX = 4 };
/* A drain dates this rank's beat every BEAT_EVERY bytes of records (fy_shm_beat_refresh): a few
 * microseconds of copying, well inside FY_WAIT_STALE_NS, for one clock read. */
enum { BEAT_EVERY = 64 * 1024 };

enum { MAX_LOCAL = FY_SHM_MAX_RANKS };
static prod_t prod[MAX_LOCAL];
static cons_t cons[MAX_LOCAL];

/* Early wrap (fy_shm_set_hot): once past the first hot_bytes of the ring, a producer whose
 * consumer has caught up and polls wraps to 0 instead of walking on through the whole ring. Small
 * messages then cycle through a few KiB whose lines stay in both cores' L1, where a walk
 * through 1 MiB brought every line from L3: a 1 KiB ping-pong took 0.19-0.21 us in a 4 KiB
 * ring and 0.29-0.30 in 1 MiB (Open MPI 0.25-0.30, EPYC guest, Nov 2026). A burst the consumer
 * has not drained still finds the whole ring. 0: off. */
static uint64_t hot_bytes;

void fy_shm_set_hot(size_t bytes)
{
    hot_bytes = fy_shm.ring_bytes >= 4 * (uint64_t)bytes ? bytes : 0;
}

/* Pair rings are populated on first contact, not at MPI_Init: a rank of an n-rank job used to
 * map all 2n - 1 of its rings there, so the job faulted in all n^2 rings (82 MiB at 64 ranks,
 * half its start-up time on 2 CPUs) whether or not the pairs ever talked. Arming sets each
 * producer's cached head a whole ring behind its tail, so that the first send to a peer finds
 * the ring "full", leaves send_hot and reaches reserve()'s reload of the head, which is off the
 * hot path: there it maps the ring once (MADV_POPULATE_WRITE), and the streaming path still never
 * faults. The consumer's side maps its incoming rings by reading them (the kernel maps the pages
 * around a read fault together). */
void fy_shm_ring_arm(void)
{
    for (int d = 0; d < fy_shm.n; d++)
        prod[d].head_cache = (uint64_t)0 - fy_shm.ring_bytes;
}

static void first_contact(int dst, prod_t *p)
{
    p->populated = 1;
    madvise(fy_shm_ring(dst, fy_shm.rank), fy_shm.ring_stride, MADV_POPULATE_WRITE);
}

static inline uint64_t rec_bytes(size_t payload)
{
    return (sizeof(fy_hdr_t) + payload + FY_CACHELINE - 1) & ~(uint64_t)(FY_CACHELINE - 1);
}

/* A record in a pair ring: the stamp and the header fill the first line, the payload starts on
 * the next. The producer stores the stamp last (release) and the consumer polls the stamp at
 * its head, so a message costs the consumer one cache line in series where a shared tail cost
 * two (the tail's line, then the record's): on the EPYC guest (Nov 2026) a standalone
 * ping-pong with a 56-byte header went from 68-72 to 63-67 ns one-way in minutes when a cache
 * line crossed between the vCPUs in 30 ns, and Ferry's 0-16 B ping-pong from 0.38 to 0.30-0.33
 * us in minutes when it took 160 ns. The stamp is the record's position XOR the job's random
 * odd ring_key: a record of an older lap has another position, so another stamp, and payload
 * bytes left at the position would have to hold a value nobody outside the job knows, so the
 * consumer never clears what it read. */
typedef struct {
    _Atomic uint64_t stamp;
    fy_hdr_t h;
} rec_t;
_Static_assert(sizeof(rec_t) == FY_CACHELINE, "a record's stamp and header are one line");

_Static_assert(offsetof(fy_hdr_t, rreq) == FY_HDR_EAGER_BYTES, "eager fields come first");

/* Where a record's payload starts: an eager message of up to 16 bytes right after the fields
 * it uses, over rreq and addr, so that it shares the stamp's line (one transfer where two
 * were: with 160 ns lines, 1-16 B ping-pong 0.36 -> 0.30-0.33 us); any other on the next line,
 * since copies of whole lines run at full speed only between equally aligned buffers (at 48
 * bytes into a line, windows of 16-128 KiB fell from 25-31 to 11-12 GB/s). */
enum { INLINE_MAX = sizeof(fy_hdr_t) - FY_HDR_EAGER_BYTES };
static inline size_t payload_at(uint8_t kind, size_t len)
{
    return kind == FY_MSG_EAGER && len <= INLINE_MAX ? offsetof(rec_t, h) + FY_HDR_EAGER_BYTES
                                                     : sizeof(rec_t);
}

static inline uint64_t ring_rec_bytes(uint8_t kind, size_t payload)
{
    return (payload_at(kind, payload) + payload + FY_CACHELINE - 1) &
           ~(uint64_t)(FY_CACHELINE - 1);
}

static inline rec_t *ring_rec(fy_ring_t *r, uint64_t pos)
{
    return (rec_t *)(r->data + (pos & (fy_shm.ring_bytes - 1)));
}

/* Waiting for the record at rec: asks for its payload lines too, when the last record from
 * this peer was small, so that they travel with the stamp's line instead of after it. */
static inline void await_lines(const rec_t *rec, unsigned ahead)
{
    for (unsigned k = 1; k <= ahead; k++)
        __builtin_prefetch((const char *)rec + k * FY_CACHELINE);
}

/* What a consumer prefetches after a record of `step` bytes (AHEAD_MAX). */
static inline unsigned ahead_after(uint64_t step)
{
    unsigned lines = (unsigned)(step / FY_CACHELINE) - 1;
    return lines <= AHEAD_MAX ? lines : 0;
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
 * goes, or NULL when the ring is full; publish() writes the header and the stamp. */
static unsigned char *reserve(int dst, const fy_hdr_t *h, size_t len)
{
    fy_ring_t *r = fy_shm_ring(dst, fy_shm.rank);
    prod_t *p = &prod[dst];
    const uint64_t size = fy_shm.ring_bytes;
    uint64_t need = ring_rec_bytes(h->kind, len);
    uint64_t off = p->tail & (size - 1);
    uint64_t pad = (off + need > size) ? size - off : 0;

    if (!pad && hot_bytes && off >= hot_bytes && off >= need && !p->hot_missed) {
        /* Until the consumer reads the PAD, the ring holds only what lies below `off`. So wrap
         * early only when that costs nothing: the consumer has read everything (a look at
         * head once per lap) and is polling now, so it will read the PAD at once; and only if
         * the record fits below `off`. Else walk on through the ring this lap. */
        if (p->head_cache != p->tail)
            p->head_cache = atomic_load_explicit(&r->head, memory_order_acquire);
        if (p->head_cache == p->tail &&
            atomic_load_explicit(&fy_shm.bell[dst].in_wait, memory_order_relaxed))
            pad = size - off;
        else
            p->hot_missed = 1;
    }
    if (p->tail + pad + need - p->head_cache > size) {
        if (!p->populated)
            first_contact(dst, p);
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
        rec_t *pr = ring_rec(r, p->tail);
        pr->h.kind = FY_MSG_PAD;
        atomic_store_explicit(&pr->stamp, p->tail ^ fy_shm.ring_key, memory_order_release);
        p->tail += pad;
        p->hot_missed = 0;
    }
    return (unsigned char *)ring_rec(r, p->tail) + payload_at(h->kind, len);
}

/* Inboxes (wide jobs, layout in shm_seg.h): reserves a record of `len` payload bytes in
 * dst's inbox and writes its header with kind 0; inbox_publish() sets the kind. NULL when
 * full: our bit in `waiting` asks the consumer to ring our bell once it has made room. */
_Static_assert(offsetof(fy_hdr_t, kind) == 0, "a record is published by its first byte");
static unsigned char *inbox_reserve(int dst, const fy_hdr_t *h, size_t len)
{
    fy_inbox_t *q = fy_shm_inbox(dst);
    unsigned char *data = fy_shm_inbox_data(dst);
    prod_t *p = &prod[dst];
    const int64_t size = (int64_t)fy_shm.ring_bytes;
    const uint64_t need = rec_bytes(len);
    uint64_t t = atomic_load_explicit(&q->tail, memory_order_relaxed), off, pad;
    int flagged = 0;
    for (;;) {
        off = t & (uint64_t)(size - 1);
        pad = (off + need > (uint64_t)size) ? (uint64_t)size - off : 0;
        /* Signed: a head read after t may be past a stale t; the CAS then fails and
         * reloads it. */
        if ((int64_t)(t + pad + need - p->head_cache) > size) {
            p->head_cache = atomic_load_explicit(&q->head, memory_order_acquire);
            if ((int64_t)(t + pad + need - p->head_cache) > size) {
                if (flagged)
                    return NULL;
                const int me = fy_shm.rank;
                atomic_fetch_or(&q->waiting[me / 64], 1ull << (me % 64));
                atomic_store(&q->waiting_any, 1);
                fy_shm_fence_slow(); /* the consumer may have drained before seeing the bit */
                flagged = 1;
                p->head_cache = atomic_load(&q->head);
                t = atomic_load(&q->tail);
                continue;
            }
        }
        if (atomic_compare_exchange_weak_explicit(&q->tail, &t, t + pad + need,
                                                  memory_order_relaxed, memory_order_relaxed))
            break;
    }
    if (pad) {
        fy_hdr_t *ph = (fy_hdr_t *)(data + off);
        __atomic_store_n(&ph->kind, (uint8_t)FY_MSG_PAD_INBOX, __ATOMIC_RELEASE);
        off = 0;
    }
    fy_hdr_t *rh = (fy_hdr_t *)(data + off);
    memcpy((unsigned char *)rh + 1, (const unsigned char *)h + 1, sizeof *h - 1);
    return (unsigned char *)rh + sizeof *h;
}

static void inbox_publish(int dst, const fy_hdr_t *h, unsigned char *payload)
{
    fy_hdr_t *rh = (fy_hdr_t *)(payload - sizeof *h);
    __atomic_store_n(&rh->kind, h->kind, __ATOMIC_RELEASE);
    fy_shm_ring_bell_local(dst);
}

/* The header goes in after the payload, right before the stamp: the consumer polls this line,
 * and a header written first was taken back by its polls while the payload was copied, so the
 * stamp cost the producer a second transfer of the line (4-16 KiB windows with 160 ns lines:
 * 0.55-0.78x of the tail ring until this order). */
static inline void publish_at(int dst, prod_t *p, rec_t *rec, const fy_hdr_t *h, size_t at,
                              uint64_t need)
{
    if (at < sizeof *rec) /* two constant sizes: both copies inline */
        memcpy(&rec->h, h, FY_HDR_EAGER_BYTES);
    else
        memcpy(&rec->h, h, sizeof *h);
    atomic_store_explicit(&rec->stamp, p->tail ^ fy_shm.ring_key, memory_order_release);
    p->tail += need;
    fy_shm_ring_bell_local(dst);
}

static void publish(int dst, const fy_hdr_t *h, size_t len)
{
    prod_t *p = &prod[dst];
    publish_at(dst, p, ring_rec(fy_shm_ring(dst, fy_shm.rank), p->tail), h,
               payload_at(h->kind, len), ring_rec_bytes(h->kind, len));
}

/* The common case of shm_send in one piece: a small record inside the hot part of a ring with
 * room, which is every message of a ping-pong; reserve() and publish() in general (PAD, full
 * ring, early wrap) took 130 instructions for a 0-byte message, this about 40. */
static inline bool send_hot(int dst, const fy_hdr_t *h, const void *payload, size_t len)
{
    prod_t *p = &prod[dst];
    const size_t at = payload_at(h->kind, len);
    const uint64_t need = ring_rec_bytes(h->kind, len);
    const uint64_t off = p->tail & (fy_shm.ring_bytes - 1);
    if (off >= hot_bytes || p->tail + need - p->head_cache > fy_shm.ring_bytes)
        return false;
    rec_t *rec = (rec_t *)(fy_shm_ring(dst, fy_shm.rank)->data + off);
    if (len)
        memcpy((unsigned char *)rec + at, payload, len);
    publish_at(dst, p, rec, h, at, need);
    return true;
}

static int shm_send(int dst, const fy_hdr_t *h, const void *payload, size_t len)
{
    dst = fy_shm_lr(dst);
    if (!fy_shm.inbox && send_hot(dst, h, payload, len))
        return 0;
    if (fy_shm.inbox) {
        unsigned char *at = inbox_reserve(dst, h, len);
        if (!at)
            return FY_XPORT_AGAIN;
        if (len)
            memcpy(at, payload, len);
        inbox_publish(dst, h, at);
        return 0;
    }
    unsigned char *at = reserve(dst, h, len);
    if (!at)
        return FY_XPORT_AGAIN;
    if (len)
        memcpy(at, payload, len);
    publish(dst, h, len);
    return 0;
}

static int shm_send_fill(int dst, const fy_hdr_t *h, size_t len, fy_xport_fill_fn fill, void *arg)
{
    dst = fy_shm_lr(dst);
    if (fy_shm.inbox) {
        unsigned char *at = inbox_reserve(dst, h, len);
        if (!at)
            return FY_XPORT_AGAIN;
        if (len)
            fill(arg, at, len);
        inbox_publish(dst, h, at);
        return 0;
    }
    unsigned char *at = reserve(dst, h, len);
    if (!at)
        return FY_XPORT_AGAIN;
    if (len)
        fill(arg, at, len);
    publish(dst, h, len);
    return 0;
}

/* Half a ring, so that one large record never waits for the ring to empty completely. */
static size_t shm_max_payload(void)
{
    return fy_shm.ring_bytes / 2 - sizeof(rec_t);
}

/* Clears the first byte of every line of a consumed span (see fy_inbox_t). */
static inline void clear_lines(unsigned char *at, uint64_t bytes)
{
    for (uint64_t o = 0; o < bytes; o += FY_CACHELINE)
        at[o] = 0;
}

static uint64_t inbox_head;

static int inbox_progress(void)
{
    const int me = fy_shm.rank;
    fy_inbox_t *q = fy_shm_inbox(me);
    unsigned char *data = fy_shm_inbox_data(me);
    const uint64_t size = fy_shm.ring_bytes;
    uint64_t head = inbox_head;
    int handled = 0;
    for (;;) {
        uint64_t off = head & (size - 1);
        fy_hdr_t *h = (fy_hdr_t *)(data + off);
        uint8_t kind = __atomic_load_n(&h->kind, __ATOMIC_ACQUIRE);
        if (kind == 0)
            break;
        uint64_t step;
        if (kind == FY_MSG_PAD_INBOX) {
            step = size - off;
        } else {
            step = rec_bytes(payload_len(h));
            fy_xport_deliver(h, (const unsigned char *)h + sizeof *h);
            handled++;
        }
        clear_lines(data + off, step);
        head += step;
    }
    if (!handled && head == inbox_head)
        return 0;
    inbox_head = head;
    atomic_store_explicit(&q->head, head, memory_order_release);
    fy_shm_fence_fast();
    if (atomic_load_explicit(&q->waiting_any, memory_order_relaxed) &&
        atomic_exchange(&q->waiting_any, 0)) {
        for (int w = 0; w < (fy_shm.n + 63) / 64; w++) {
            uint64_t bits = atomic_load_explicit(&q->waiting[w], memory_order_relaxed);
            if (bits)
                bits = atomic_exchange(&q->waiting[w], 0);
            while (bits) {
                int b = __builtin_ctzll(bits);
                bits &= bits - 1;
                fy_shm_ring_bell_local(w * 64 + b);
            }
        }
    }
    return handled;
}

static void release(fy_ring_t *r, int src, uint64_t head);

int fy_shm_progress(void)
{
    if (!fy_shm.base)
        return 0;
    if (fy_shm.inbox)
        return inbox_progress();
    const int me = fy_shm.rank, n = fy_shm.n;
    const uint64_t size = fy_shm.ring_bytes, key = fy_shm.ring_key;
    int handled = 0;
    uint64_t drained = 0; /* bytes of records since the last beat of this pass */
    for (int src = 0; src < n; src++) {
        if (src == me)
            continue;
        fy_ring_t *r = fy_shm_ring(me, src);
        uint64_t head = cons[src].head;
        rec_t *rec = ring_rec(r, head);
        uint64_t step = 0;
        if (atomic_load_explicit(&rec->stamp, memory_order_acquire) != (head ^ key)) {
            await_lines(rec, cons[src].ahead);
            continue;
        }
        do {
            if (rec->h.kind == FY_MSG_PAD) {
                head += size - (head & (size - 1));
            } else {
                uint8_t kind = rec->h.kind;
                size_t len = payload_len(&rec->h);
                /* A rendezvous offer may mean a single copy of the whole message here. */
                drained += kind == FY_MSG_RTS ? rec->h.len : 0;
                fy_xport_deliver(&rec->h, (const unsigned char *)rec + payload_at(kind, len));
                step = ring_rec_bytes(kind, len);
                head += step;
                handled++;
                if ((drained += step) >= BEAT_EVERY) {
                    fy_shm_beat_refresh();
                    drained = 0;
                }
            }
            rec = ring_rec(r, head);
        } while (atomic_load_explicit(&rec->stamp, memory_order_acquire) == (head ^ key));
        if (step)
            cons[src].ahead = ahead_after(step);
        release(r, src, head);
    }
    return handled;
}

/* Consumed up to `head` on the ring from src: the shared head for the producer's flow control,
 * and its bell if it waits for room. */
static void release(fy_ring_t *r, int src, uint64_t head)
{
    cons[src].head = head;
    atomic_store_explicit(&r->head, head, memory_order_release);
    fy_shm_fence_fast();
    if (atomic_load_explicit(&r->producer_waiting, memory_order_relaxed)) {
        atomic_store(&r->producer_waiting, 0);
        fy_shm_ring_bell_local(src);
    }
}

static int shm_peek(int src, const fy_hdr_t **h, const void **payload)
{
    if (fy_shm.inbox)
        return 0;
    src = fy_shm_lr(src);
    fy_ring_t *r = fy_shm_ring(fy_shm.rank, src);
    const uint64_t size = fy_shm.ring_bytes, key = fy_shm.ring_key;
    uint64_t head = cons[src].head;
    for (;;) {
        rec_t *rec = ring_rec(r, head);
        if (atomic_load_explicit(&rec->stamp, memory_order_acquire) != (head ^ key)) {
            await_lines(rec, cons[src].ahead);
            return 0;
        }
        if (rec->h.kind != FY_MSG_PAD) {
            *h = &rec->h;
            *payload = (const unsigned char *)rec + payload_at(rec->h.kind, payload_len(&rec->h));
            return 1;
        }
        head += size - (head & (size - 1));
        release(r, src, head);
    }
}

static void shm_take(int src)
{
    src = fy_shm_lr(src);
    fy_ring_t *r = fy_shm_ring(fy_shm.rank, src);
    uint64_t head = cons[src].head;
    const rec_t *rec = ring_rec(r, head);
    uint64_t step = ring_rec_bytes(rec->h.kind, payload_len(&rec->h));
    cons[src].ahead = ahead_after(step);
    release(r, src, head + step);
}

const fy_xport_ops_t fy_xport_shm = {
    .name = "shm",
    .send = shm_send,
    .send_fill = shm_send_fill,
    .get = fy_shm_get,
    .max_payload = shm_max_payload,
    .peek = shm_peek,
    .take = shm_take,
};
