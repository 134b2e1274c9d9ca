/* The shared-memory rings (src/xport/shm/shm_ring.c, layout in shm_seg.h), without a launcher.
 *
 * The segment is laid out by hand in anonymous shared memory exactly as shm_seg.c computes it.
 * One process plays both sides of the pair (dst 1, src 0): it sends as rank 0 and switches
 * fy_shm.rank to 1 to consume. The ring keeps each side's position in static arrays that a
 * test cannot reset, so every new segment starts that pair at the position where the previous
 * one ended (where its last stamped record ends). The stress case runs the producer in a forked child, since
 * fy_shm.rank is one global per process; it uses the untouched pair (dst 0, src 2).
 */
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fy_xport.h"
#include "shm_seg.h"
#include "unit.h"

/* Where each ring (dst, src) stands in the ring code's private statics of this process. */
enum { MAX_TEST_RANKS = 4 };
static uint64_t ring_pos[MAX_TEST_RANKS][MAX_TEST_RANKS];

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* A record of a pair ring as shm_ring.c lays it out: stamp and header in one line, the
 * payload from the next. */
typedef struct {
    _Atomic uint64_t stamp;
    fy_hdr_t h;
} test_rec_t;

/* An eager payload of up to 16 bytes starts over the header's rreq and addr, any other on the
 * next line. */
static uint64_t rec_kind_bytes(uint8_t kind, size_t payload)
{
    size_t at = kind == FY_MSG_EAGER && payload <= 16 ? 8 + FY_HDR_EAGER_BYTES : sizeof(test_rec_t);
    return round_up(at + payload, FY_CACHELINE);
}
static uint64_t rec_bytes(size_t payload) /* the tests' records are eager */
{
    return rec_kind_bytes(FY_MSG_EAGER, payload);
}

static size_t payload_of(const fy_hdr_t *h)
{
    return h->kind == FY_MSG_EAGER ? h->len : h->kind == FY_MSG_DATA ? h->frag : 0;
}

/* Where the producer's published records end: past every record stamped for its position,
 * from the consumer's head on (at most one lap). */
static uint64_t ring_tail(fy_ring_t *r)
{
    const uint64_t size = fy_shm.ring_bytes, head = atomic_load(&r->head);
    uint64_t pos = head;
    while (pos - head < size) {
        uint64_t off = pos & (size - 1);
        test_rec_t *rec = (test_rec_t *)(r->data + off);
        if (atomic_load(&rec->stamp) != (pos ^ fy_shm.ring_key))
            break;
        pos += rec->h.kind == FY_MSG_PAD ? size - off : rec_kind_bytes(rec->h.kind, payload_of(&rec->h));
    }
    return pos;
}

static void seg_close(void);
static int drain(void);
static void ignore(const fy_hdr_t *h, const void *payload)
{
    (void)h;
    (void)payload;
}

static int seg_open(int n, uint32_t ring_bytes)
{
    fy_shm_t *s = &fy_shm;
    if (s->base) { /* a failed case left its segment: empty it so that positions agree */
        fy_xport_deliver = ignore;
        drain();
        seg_close();
    }
    memset(s, 0, sizeof *s);
    s->rank = 0;
    s->n = n;
    s->ring_bytes = ring_bytes;
    s->ring_stride = round_up(offsetof(fy_ring_t, data) + ring_bytes, FY_CACHELINE);
    size_t bells_off = round_up(sizeof(fy_shm_hdr_t), FY_CACHELINE);
    size_t rings_off = round_up(bells_off + sizeof(fy_bell_t) * (size_t)n, 4096);
    s->bytes = rings_off + s->ring_stride * (size_t)n * (size_t)n;
    void *base = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(base != MAP_FAILED);
    s->base = base;
    s->hdr = base;
    s->bell = (fy_bell_t *)((char *)base + bells_off);
    s->rings = (unsigned char *)base + rings_off;
    s->hdr->magic = FY_SHM_MAGIC;
    s->hdr->nranks = (uint32_t)n;
    s->hdr->ring_bytes = ring_bytes;
    s->hdr->ring_key = s->ring_key = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < n; i++)
        s->bell[i].pid = (int32_t)getpid();
    /* This process's private ring positions outlive the segment: start every ring where the
     * last segment's ring ended, so that both halves agree. */
    for (int d = 0; d < n; d++)
        for (int src = 0; src < n; src++) {
            fy_ring_t *r = fy_shm_ring(d, src);
            atomic_store(&r->head, ring_pos[d][src]);
        }
    return 0;
}

static void seg_close(void)
{
    for (int d = 0; d < fy_shm.n; d++)
        for (int src = 0; src < fy_shm.n; src++)
            ring_pos[d][src] = ring_tail(fy_shm_ring(d, src));
    munmap(fy_shm.base, fy_shm.bytes);
    memset(&fy_shm, 0, sizeof fy_shm);
}

static void fill(uint64_t seed, unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        p[i] = unit_pat(seed, i);
}
static int intact(uint64_t seed, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i] != unit_pat(seed, i))
            return 0;
    return 1;
}

/* What the consumer saw. */
typedef struct {
    uint8_t kind;
    int32_t tag;
    uint64_t len, sreq;
    uint32_t frag;
    int intact;
} got_t;
static got_t *got;
static size_t ngot, capgot;

static void on_record(const fy_hdr_t *h, const void *payload)
{
    if (ngot == capgot) {
        capgot = capgot ? 2 * capgot : 1024;
        got = realloc(got, capgot * sizeof *got);
        if (!got)
            abort();
    }
    size_t plen = h->kind == FY_MSG_EAGER ? h->len : h->kind == FY_MSG_DATA ? h->frag : 0;
    got[ngot++] =
        (got_t){h->kind, h->tag, h->len, h->sreq, h->frag, intact(h->sreq, payload, plen)};
}

static unsigned char sendbuf[1 << 20];

/* As rank 0: one record of `kind` carrying `plen` payload bytes seeded by `seq`. */
static int put_kind(uint8_t kind, uint64_t seq, size_t plen, uint64_t len)
{
    fy_hdr_t h = {.kind = kind,
                  .src = 0,
                  .tag = (int32_t)seq,
                  .ctx = 0,
                  .len = len,
                  .sreq = seq,
                  .world_src = 0};
    if (kind == FY_MSG_DATA)
        h.frag = (uint32_t)plen;
    fill(seq, sendbuf, plen);
    fy_shm.rank = 0;
    return fy_xport_shm.send(1, &h, sendbuf, plen);
}
static int put(uint64_t seq, size_t len)
{
    return put_kind(FY_MSG_EAGER, seq, len, len);
}

/* As rank 1: everything that has arrived. */
static int drain(void)
{
    fy_shm.rank = 1;
    int n = fy_shm_progress();
    fy_shm.rank = 0;
    return n;
}


/* Walks the unread part of ring (1, 0) as the layout says it must be: records on 64-byte
 * boundaries that never cross the end, PAD only to fill up to the end. */
static int check_layout(int *pads_p)
{
    fy_ring_t *r = fy_shm_ring(1, 0);
    const uint64_t size = fy_shm.ring_bytes;
    uint64_t head = atomic_load(&r->head), tail = ring_tail(r);
    CHECK(tail - head <= size);
    while (head != tail) {
        uint64_t off = head & (size - 1);
        CHECK(off % FY_CACHELINE == 0);
        const fy_hdr_t *h = &((const test_rec_t *)(r->data + off))->h;
        uint64_t step;
        if (h->kind == FY_MSG_PAD) {
            step = size - off;
            (*pads_p)++;
        } else {
            step = rec_kind_bytes(h->kind, payload_of(h));
            CHECK(off + step <= size);
        }
        CHECK(step <= tail - head);
        head += step;
    }
    return 0;
}

static int test_sizes_and_limits(void)
{
    CHECK_EQ(fy_shm_progress(), 0); /* no segment: nothing to do, no crash */
    CHECK_OK(seg_open(2, 16384));
    fy_xport_deliver = on_record;
    ngot = 0;
    CHECK_EQ(fy_xport_shm.max_payload(), 16384 / 2 - sizeof(test_rec_t));
    CHECK_EQ(sizeof(fy_hdr_t), 56);
    CHECK_EQ(drain(), 0);
    CHECK_EQ(ngot, 0);
    seg_close();
    return 0;
}

static int test_order_and_sizes(void)
{
    CHECK_OK(seg_open(2, 16384));
    fy_xport_deliver = on_record;
    ngot = 0;
    const size_t max = fy_xport_shm.max_payload();
    const size_t sizes[] = {0,    1,    7,       8,   55, 56,  57, 63, 64, 65,       127, 128,
                            1000, 4096, max - 1, max, 0,  max, 8,  0,  0,  max - 63, 3};
    const size_t ns = UNIT_COUNT(sizes);
    size_t sent = 0;
    for (int round = 0; round < 20; round++)
        for (size_t i = 0; i < ns; i++, sent++) {
            int rc;
            while ((rc = put(sent, sizes[i])) == FY_XPORT_AGAIN)
                CHECK(drain() > 0);
            CHECK_EQ(rc, 0);
        }
    drain();
    CHECK_EQ(ngot, sent);
    for (size_t k = 0; k < ngot; k++) {
        CHECK_EQ(got[k].sreq, k); /* order */
        CHECK_EQ(got[k].tag, (int32_t)k);
        CHECK_EQ(got[k].kind, FY_MSG_EAGER);
        CHECK_EQ(got[k].len, sizes[k % ns]);
        CHECK(got[k].intact);
    }
    seg_close();
    return 0;
}

/* Control records carry no payload whatever their len says; DATA carries frag bytes. */
static int test_record_kinds(void)
{
    CHECK_OK(seg_open(2, 16384));
    fy_xport_deliver = on_record;
    ngot = 0;
    CHECK_EQ(put_kind(FY_MSG_RTS, 1, 0, 1ull << 40), 0);
    CHECK_EQ(put_kind(FY_MSG_DATA, 2, 3000, 1ull << 20), 0);
    CHECK_EQ(put_kind(FY_MSG_FIN, 3, 0, 0), 0);
    CHECK_EQ(put(4, 100), 0);
    CHECK_EQ(put_kind(FY_MSG_CANCEL_ACK, 5, 0, 12345), 0);
    int pads = 0;
    CHECK_OK(check_layout(&pads));
    CHECK_EQ(drain(), 5);
    CHECK_EQ(ngot, 5);
    CHECK_EQ(got[0].kind, FY_MSG_RTS);
    CHECK_EQ(got[0].len, 1ull << 40);
    CHECK_EQ(got[1].kind, FY_MSG_DATA);
    CHECK_EQ(got[1].frag, 3000);
    CHECK_EQ(got[1].len, 1ull << 20);
    CHECK_EQ(got[2].kind, FY_MSG_FIN);
    CHECK_EQ(got[3].kind, FY_MSG_EAGER);
    CHECK_EQ(got[4].kind, FY_MSG_CANCEL_ACK);
    CHECK_EQ(got[4].len, 12345);
    for (size_t k = 0; k < ngot; k++) {
        CHECK_EQ(got[k].sreq, k + 1);
        CHECK(got[k].intact);
    }
    seg_close();
    return 0;
}

/* Many times around a small ring with random sizes and random producer/consumer interleaving:
 * PAD records appear, and every record still arrives whole and in order. */
static int test_wrap_around(void)
{
    const uint32_t size = 4096;
    CHECK_OK(seg_open(2, size));
    fy_xport_deliver = on_record;
    ngot = 0;
    const size_t max = fy_xport_shm.max_payload();
    unsigned seed = 12345;
    uint64_t sent = 0, bytes = 0, start = ring_pos[1][0];
    int pads = 0, fulls = 0;
    size_t lens_cap = 1 << 16, *lens = malloc(lens_cap * sizeof *lens);
    CHECK(lens);
    while (bytes < 2000ull * size) {
        int burst = 1 + rand_r(&seed) % 8;
        for (int b = 0; b < burst; b++) {
            size_t len = (size_t)rand_r(&seed) % 4 == 0 ? max - (size_t)rand_r(&seed) % 128
                                                        : (size_t)rand_r(&seed) % 700;
            if (rand_r(&seed) % 16 == 0)
                len = 0;
            int rc = put(sent, len);
            if (rc == FY_XPORT_AGAIN) {
                fulls++;
                break;
            }
            CHECK_EQ(rc, 0);
            if (sent == lens_cap) {
                lens_cap *= 2;
                lens = realloc(lens, lens_cap * sizeof *lens);
                CHECK(lens);
            }
            lens[sent++] = len;
            bytes += len;
        }
        CHECK_OK(check_layout(&pads));
        if (rand_r(&seed) % 3)
            drain();
    }
    drain();
    CHECK_EQ(ngot, sent);
    for (size_t k = 0; k < ngot; k++) {
        CHECK_EQ(got[k].sreq, k);
        CHECK_EQ(got[k].len, lens[k]);
        CHECK(got[k].intact);
    }
    uint64_t laps = (ring_tail(fy_shm_ring(1, 0)) - start) / size;
    CHECK(laps >= 1000);
    CHECK(pads >= 100); /* a PAD on most laps: sizes rarely end exactly at the end */
    CHECK(fulls > 0);
    CHECK_EQ(atomic_load(&fy_shm_ring(1, 0)->producer_waiting), 0);
    free(lens);
    seg_close();
    return 0;
}

/* Early wrap (fy_shm_set_hot): while the consumer keeps up, records start only within the hot
 * part of the ring; a burst the consumer has not drained uses the whole ring, and once it has
 * caught up, records return to the hot part; order and payloads stay intact throughout. */
static int test_hot_window(void)
{
    const uint32_t size = 64 * 1024;
    const uint64_t hot = 4096;
    CHECK_OK(seg_open(2, size));
    fy_shm_set_hot(hot);
    atomic_store(&fy_shm.bell[1].in_wait, 1); /* the consumer waits: early wraps allowed */
    fy_xport_deliver = on_record;
    ngot = 0;
    fy_ring_t *r = fy_shm_ring(1, 0);
    uint64_t sent = 0;
    size_t lens[4096];

    /* Kept up with: after at most one lap's walk to the end, every record starts below hot. */
    int outside = 0, wraps_seen = 0;
    for (int k = 0; k < 1500; k++) {
        size_t len = (size_t)(k * 37) % 900;
        CHECK_EQ(put(sent, len), 0);
        lens[sent++ % 4096] = len;
        uint64_t start = (ring_tail(r) - rec_bytes(len)) & (size - 1);
        if (start == 0)
            wraps_seen = 1;
        else if (wraps_seen && start >= hot)
            outside++;
        drain();
    }
    CHECK(wraps_seen);
    CHECK_EQ(outside, 0);

    /* Past the hot part, caught up, and a record larger than what lies below: it cannot wrap
     * early (the PAD would overlap it) and must go on in place, not find the ring full. */
    for (int k = 0; k < 200 && (ring_tail(r) & (size - 1)) < hot; k++) {
        CHECK_EQ(put(sent, 64), 0);
        lens[sent++ % 4096] = 64;
        drain();
    }
    CHECK((ring_tail(r) & (size - 1)) >= hot);
    CHECK_EQ(put(sent, 8000), 0);
    lens[sent++ % 4096] = 8000;
    drain();

    /* A consumer that does not poll (busy elsewhere, asleep) may not read a PAD for a long
     * time: no early wrap, and a burst not drained goes past the hot part, up to the whole
     * ring. */
    atomic_store(&fy_shm.bell[1].in_wait, 0);
    uint64_t burst = 0;
    while (put(sent, 200) == 0) {
        lens[sent++ % 4096] = 200;
        burst++;
    }
    CHECK(burst * rec_bytes(200) > size / 2);
    drain();

    /* Caught up again and waiting: within a lap, records are back in the hot part. */
    atomic_store(&fy_shm.bell[1].in_wait, 1);
    int back = 0;
    for (int k = 0; k < 1000 && !back; k++) {
        CHECK_EQ(put(sent, 64), 0);
        lens[sent++ % 4096] = 64;
        back = ((ring_tail(r) - rec_bytes(64)) & (size - 1)) == 0;
        drain();
    }
    CHECK(back);
    CHECK_EQ(ngot, sent);
    for (size_t k = 0; k < ngot; k++) {
        CHECK_EQ(got[k].sreq, k);
        CHECK_EQ(got[k].len, lens[k % 4096]);
        CHECK(got[k].intact);
    }
    atomic_store(&fy_shm.bell[1].in_wait, 0);
    fy_shm_set_hot(0);
    seg_close();
    return 0;
}

/* A full ring refuses with FY_XPORT_AGAIN, leaves its state alone, flags producer_waiting;
 * the consumer clears the flag, rings the producer's bell, and the producer can send again. */
static int test_full_and_again(void)
{
    const uint32_t size = 4096;
    CHECK_OK(seg_open(2, size));
    fy_xport_deliver = on_record;
    ngot = 0;
    fy_ring_t *r = fy_shm_ring(1, 0);

    /* Header-only records fill the ring exactly: size / 64 of them, wherever it starts. */
    uint64_t seq = 0;
    while (put(seq, 0) == 0)
        seq++;
    CHECK_EQ(seq, size / FY_CACHELINE);
    CHECK_EQ(atomic_load(&r->producer_waiting), 1);
    uint64_t tail = ring_tail(r);
    CHECK_EQ(tail - atomic_load(&r->head), size);
    CHECK_EQ(put(seq, 0), FY_XPORT_AGAIN); /* still full: refused again, nothing written */
    CHECK_EQ(ring_tail(r), tail);

    /* The consumer frees the ring; it rings the producer's bell only if someone sleeps. */
    atomic_store(&fy_shm.bell[0].sleepers, 1);
    unsigned bell0 = atomic_load(&fy_shm.bell[0].seq);
    CHECK_EQ(drain(), (int)seq);
    CHECK_EQ(atomic_load(&r->producer_waiting), 0);
    CHECK_EQ(atomic_load(&fy_shm.bell[0].seq), bell0 + 1);
    atomic_store(&fy_shm.bell[0].sleepers, 0);
    CHECK_EQ(atomic_load(&r->head), tail);

    /* Largest records: a full ring says AGAIN, draining makes room again. */
    const size_t max = fy_xport_shm.max_payload();
    int accepted = 0;
    for (;;) {
        int rc = put(seq, max);
        if (rc == FY_XPORT_AGAIN)
            break;
        CHECK_EQ(rc, 0);
        seq++;
        CHECK(++accepted <= 2);
    }
    CHECK(accepted >= 1);
    CHECK_EQ(atomic_load(&r->producer_waiting), 1);
    CHECK(drain() >= 1);
    CHECK_EQ(atomic_load(&r->producer_waiting), 0);
    CHECK_EQ(put(seq++, max), 0);

    /* The producer rings the consumer's bell only when the consumer has sleepers. */
    unsigned bell1 = atomic_load(&fy_shm.bell[1].seq);
    CHECK_EQ(put(seq++, 10), 0);
    CHECK_EQ(atomic_load(&fy_shm.bell[1].seq), bell1);
    atomic_store(&fy_shm.bell[1].sleepers, 1);
    CHECK_EQ(put(seq++, 10), 0);
    CHECK_EQ(atomic_load(&fy_shm.bell[1].seq), bell1 + 1);
    atomic_store(&fy_shm.bell[1].sleepers, 0);

    drain();
    CHECK_EQ(ngot, seq);
    for (size_t k = 0; k < ngot; k++) {
        CHECK_EQ(got[k].sreq, k);
        CHECK(got[k].intact);
    }
    seg_close();
    return 0;
}

/* Producer and consumer in two processes on the same segment, sleeping on the doorbells when
 * idle or full. A lost wake-up shows as a sleep that runs into its 200 ms timeout. The work is
 * bounded (a fixed number of messages, about 0.2 s on a quiet machine), never the time: a busy
 * machine only makes it slower, and the runner's timeout (60 s, 120 s under ASan) stays a
 * guard against a hang. */
enum { STRESS_N = 200000, STRESS_RING = 65536 };

static size_t stress_len(uint64_t seq, size_t max)
{
    uint64_t h = (seq + 7) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    unsigned pick = (unsigned)(h % 1000);
    if (pick < 5)
        return max - (size_t)(h >> 20) % 256;
    if (pick < 250)
        return (size_t)(h >> 20) % 2048;
    return (size_t)(h >> 20) % 72;
}

static uint64_t stress_next;
static long stress_bad;
static void on_stress(const fy_hdr_t *h, const void *payload)
{
    size_t max = fy_xport_shm.max_payload();
    if (h->sreq != stress_next || h->len != stress_len(stress_next, max) ||
        !intact(h->sreq, payload, h->len))
        stress_bad++;
    stress_next++;
}

static int timed_sleep(void)
{
    double t0 = unit_now();
    fy_shm_sleep(200);
    return unit_now() - t0 >= 0.195;
}

/* The producing rank: each stress run uses its own ring (dst 0, src stress_src), since the
 * positions each side keeps in private memory live on from one run to the next. */
static int stress_src = 2;

static void stress_producer(void)
{
    fy_shm.rank = stress_src;
    const size_t max = fy_xport_shm.max_payload();
    static unsigned char buf[STRESS_RING];
    int timeouts = 0, sleeps = 0;
    for (uint64_t seq = 0; seq < STRESS_N; seq++) {
        size_t len = stress_len(seq, max);
        fill(seq, buf, len);
        fy_hdr_t h = {
            .kind = FY_MSG_EAGER, .tag = 1, .len = len, .sreq = seq, .world_src = stress_src};
        for (int spins = 0; fy_xport_shm.send(0, &h, buf, len) == FY_XPORT_AGAIN;) {
            if (++spins < 100)
                continue;
            fy_shm_sleep_prepare();
            if (fy_xport_shm.send(0, &h, buf, len) == 0) {
                fy_shm_sleep_done();
                break;
            }
            timeouts += timed_sleep();
            sleeps++;
            fy_shm_sleep_done();
            spins = 0;
        }
    }
    if (timeouts > 2 || getenv("UNIT_VERBOSE"))
        fprintf(stderr, "  producer: %d sleeps, %d ran into the timeout\n", sleeps, timeouts);
    _exit(timeouts > 2 ? 1 : 0);
}

static int stress_asymmetric;

static int test_stress_two_processes(void)
{
    CHECK_OK(seg_open(4, STRESS_RING));
    fy_xport_deliver = on_stress;
    stress_next = 0;
    stress_bad = 0;
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        if (stress_asymmetric)
            fy_shm_fence_init(); /* registration belongs to the process: the child registers */
        stress_producer();
    }
    fy_shm.rank = 0;
    int timeouts = 0, sleeps = 0;
    int status = 0, exited = 0;
    while (stress_next < STRESS_N) {
        int spins = 0;
        while (fy_shm_progress() == 0 && ++spins < 100)
            ;
        if (spins < 100)
            continue;
        fy_shm_sleep_prepare();
        if (fy_shm_progress() == 0) {
            timeouts += timed_sleep();
            sleeps++;
        }
        fy_shm_sleep_done();
        /* A producer that died leaves nothing to wait for: stop instead of hanging. */
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            while (fy_shm_progress() > 0)
                ;
            break;
        }
    }
    if (!exited)
        CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK_EQ(stress_next, STRESS_N);
    CHECK_EQ(stress_bad, 0);
    if (getenv("UNIT_VERBOSE"))
        fprintf(stderr, "  consumer: %d sleeps, %d ran into the timeout\n", sleeps, timeouts);
    CHECK(timeouts <= 2);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ(fy_shm_progress(), 0);
    seg_close();
    return 0;
}

/* The same stress with the asymmetric fence (membarrier) that real jobs use: producers then
 * issue no fence at all, so a lost wake-up would show as sleeps running into the timeout.
 * Last, because the choice of fence is process-wide once made. */
static int test_stress_membarrier(void)
{
    fy_shm_fence_init();
    stress_asymmetric = 1;
    stress_src = 3;
    return test_stress_two_processes();
}

static const unit_case_t cases[] = {
    {"sizes_and_limits", test_sizes_and_limits},
    {"order_and_sizes", test_order_and_sizes},
    {"record_kinds", test_record_kinds},
    {"wrap_around", test_wrap_around},
    {"full_and_again", test_full_and_again},
    {"hot_window", test_hot_window},
    {"stress_two_processes", test_stress_two_processes},
    {"stress_membarrier", test_stress_membarrier},
};

int main(void)
{
    return unit_run(cases, UNIT_COUNT(cases));
}
