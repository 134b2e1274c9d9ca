/* The per-receiver inboxes of wide jobs (src/xport/shm/shm_ring.c, layout in shm_seg.h),
 * without a launcher: the segment is laid out by hand in anonymous shared memory as
 * shm_seg.c does it with FERRY_SHM_QUEUE=inbox. Rank 0 consumes; ranks 1-3 produce, played by
 * this process (switching fy_shm.rank) or by forked children for the concurrent case. The
 * consumer's position is private to the ring code and outlives a segment, so each new segment
 * starts its inbox where the previous one ended. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fy_xport.h"
#include "shm_seg.h"
#include "unit.h"

enum { NR = 4 };
static uint64_t last_pos;

static int seg_open(uint32_t bytes)
{
    fy_shm_t *s = &fy_shm;
    memset(s, 0, sizeof *s);
    s->n = NR;
    s->inbox = 1;
    s->ring_bytes = bytes;
    s->ring_stride = fy_shm_queue_stride(1, NR, bytes, &s->inbox_data);
    size_t bells_off = FY_CACHELINE;
    size_t rings_off = 4096;
    s->bytes = rings_off + s->ring_stride * NR;
    void *base = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(base != MAP_FAILED);
    s->base = base;
    s->hdr = base;
    s->bell = (fy_bell_t *)((char *)base + bells_off);
    s->rings = (unsigned char *)base + rings_off;
    s->hdr->magic = FY_SHM_MAGIC;
    s->hdr->nranks = NR;
    s->hdr->inbox = 1;
    for (int i = 0; i < NR; i++) {
        s->bell[i].pid = (int32_t)getpid();
        atomic_store(&fy_shm_inbox(i)->head, last_pos);
        atomic_store(&fy_shm_inbox(i)->tail, last_pos);
    }
    return 0;
}

static void seg_close(void)
{
    last_pos = atomic_load(&fy_shm_inbox(0)->head);
    munmap(fy_shm.base, fy_shm.bytes);
    memset(&fy_shm, 0, sizeof fy_shm);
}

/* Per source: the next sequence number expected, and records that were wrong. */
static uint64_t next_seq[NR];
static long bad;

static size_t len_of(int src, uint64_t seq, size_t max)
{
    uint64_t h = (seq * 4 + (uint64_t)src + 7) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    unsigned pick = (unsigned)(h % 100);
    if (pick < 3)
        return max - (size_t)(h >> 20) % 200;
    if (pick < 30)
        return (size_t)(h >> 20) % 1500;
    return (size_t)(h >> 20) % 60;
}

static void on_record(const fy_hdr_t *h, const void *payload)
{
    int src = h->world_src;
    size_t max = fy_xport_shm.max_payload();
    const unsigned char *p = payload;
    int ok = src > 0 && src < NR && h->kind == FY_MSG_EAGER && h->sreq == next_seq[src] &&
             h->len == len_of(src, h->sreq, max);
    for (size_t i = 0; ok && i < h->len; i++)
        ok = p[i] == unit_pat(h->sreq * 4 + (uint64_t)src, i);
    if (!ok)
        bad++;
    if (src > 0 && src < NR)
        next_seq[src]++;
}

static unsigned char buf[1 << 20];

static int put(int src, uint64_t seq)
{
    size_t len = len_of(src, seq, fy_xport_shm.max_payload());
    for (size_t i = 0; i < len; i++)
        buf[i] = unit_pat(seq * 4 + (uint64_t)src, i);
    fy_hdr_t h = {.kind = FY_MSG_EAGER, .tag = 1, .len = len, .sreq = seq, .world_src = src};
    fy_shm.rank = src;
    int rc = fy_xport_shm.send(0, &h, buf, len);
    fy_shm.rank = 0;
    return rc;
}

static int drain(void)
{
    fy_shm.rank = 0;
    return fy_shm_progress();
}

/* Three producers interleaved at random in one process, many laps around a 4 KiB inbox: every
 * record arrives whole and in its sender's order, a full inbox refuses, flags the refused
 * producer, and the consumer clears the flag and rings that producer's bell. */
static int test_interleaved_wrap(void)
{
    CHECK_OK(seg_open(4096));
    fy_xport_deliver = on_record;
    memset(next_seq, 0, sizeof next_seq);
    bad = 0;
    uint64_t sent[NR] = {0};
    unsigned seed = 99;
    int fulls = 0, rung = 0;
    uint64_t start = atomic_load(&fy_shm_inbox(0)->tail);
    while (atomic_load(&fy_shm_inbox(0)->tail) - start < 3000ull * 4096) {
        int src = 1 + rand_r(&seed) % 3;
        int rc = put(src, sent[src]);
        if (rc == FY_XPORT_AGAIN) {
            fulls++;
            fy_inbox_t *q = fy_shm_inbox(0);
            CHECK(atomic_load(&q->waiting[0]) & (1ull << src));
            atomic_store(&fy_shm.bell[src].sleepers, 1);
            unsigned before = atomic_load(&fy_shm.bell[src].seq);
            CHECK(drain() > 0);
            CHECK_EQ(atomic_load(&q->waiting[0]) & (1ull << src), 0);
            rung += atomic_load(&fy_shm.bell[src].seq) != before;
            atomic_store(&fy_shm.bell[src].sleepers, 0);
            continue;
        }
        CHECK_EQ(rc, 0);
        sent[src]++;
        if (rand_r(&seed) % 4 == 0)
            drain();
    }
    drain();
    for (int s = 1; s < NR; s++)
        CHECK_EQ(next_seq[s], sent[s]);
    CHECK_EQ(bad, 0);
    CHECK(fulls > 100);
    CHECK_EQ(rung, fulls);
    CHECK_EQ(drain(), 0);
    seg_close();
    return 0;
}

/* Three producer processes into one 16 KiB inbox at once, sleeping on their bells when it is
 * full; the consumer sleeps on its own when it is empty. Fixed work (40,000 messages each);
 * the runner's timeout guards against a hang. */
enum { PER_PRODUCER = 40000 };

static void producer(int src)
{
    for (uint64_t seq = 0; seq < PER_PRODUCER; seq++) {
        for (int spins = 0; put(src, seq) == FY_XPORT_AGAIN;) {
            if (++spins < 100)
                continue;
            fy_shm.rank = src;
            fy_shm_sleep_prepare();
            int rc = put(src, seq);
            fy_shm.rank = src;
            if (rc == 0) {
                fy_shm_sleep_done();
                break;
            }
            fy_shm_sleep(200);
            fy_shm_sleep_done();
            spins = 0;
        }
    }
    _exit(0);
}

static int test_three_processes(void)
{
    CHECK_OK(seg_open(16384));
    fy_xport_deliver = on_record;
    memset(next_seq, 0, sizeof next_seq);
    bad = 0;
    fflush(NULL);
    pid_t pid[NR] = {0};
    for (int s = 1; s < NR; s++) {
        pid[s] = fork();
        CHECK(pid[s] >= 0);
        if (pid[s] == 0)
            producer(s);
    }
    int live = NR - 1;
    while (live > 0 || drain() > 0) {
        int spins = 0;
        while (drain() == 0 && ++spins < 100)
            ;
        if (spins < 100)
            continue;
        fy_shm.rank = 0;
        fy_shm_sleep_prepare();
        if (drain() == 0)
            fy_shm_sleep(50);
        fy_shm.rank = 0;
        fy_shm_sleep_done();
        for (int s = 1; s < NR; s++) {
            int status;
            if (pid[s] > 0 && waitpid(pid[s], &status, WNOHANG) == pid[s]) {
                CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                pid[s] = 0;
                live--;
            }
        }
    }
    for (int s = 1; s < NR; s++)
        CHECK_EQ(next_seq[s], PER_PRODUCER);
    CHECK_EQ(bad, 0);
    seg_close();
    return 0;
}

static const unit_case_t cases[] = {
    {"interleaved_wrap", test_interleaved_wrap},
    {"three_processes", test_three_processes},
};

int main(void)
{
    fy_shm_fence_init();
    return unit_run(cases, UNIT_COUNT(cases));
}
