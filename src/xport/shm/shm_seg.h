/* The job's shared-memory segment: one per machine, created by the lowest rank, mapped by all
 * and unlinked as soon as everyone has mapped it, so that no crash can leave a file behind.
 *
 * Layout (every part cache-line aligned):
 *   fy_shm_hdr_t                         magic, rank count, ring size
 *   fy_bell_t bell[n]                    one doorbell per rank (futex word, sleeper count, pid,
 *                                        and a line saying whether the rank polls, where, when)
 *   ring[dst][src] for dst,src < n       a single-producer single-consumer byte ring per pair,
 *   or inbox[dst] for dst < n            or (wide jobs) one multi-producer queue per receiver
 *   fy_shm_coll_t, then coll_slots slots  shared-memory collectives (src/coll/shm_*.c): a slot
 *                                        per communicator that uses them, page-aligned
 *   rndv[dst] for dst < n                split rendezvous: a line of taken-slot bits, then
 *                                        FY_SHM_RNDV_SLOTS fy_rndv_slot_t (shm_cma.c), page-aligned
 * A ring holds records: a fy_hdr_t then its payload, each record starting on a 64-byte
 * boundary. Positions are free-running 64-bit byte counters; a record never wraps: when it
 * does not fit before the end, the producer writes a PAD header and starts again at 0.
 */
#ifndef FY_SHM_SEG_H
#define FY_SHM_SEG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define FY_CACHELINE 64
#define FY_SHM_MAX_RANKS 4096 /* the ring code keeps private state per peer in static arrays */
#define FY_SHM_MAGIC 0x46657272794d5031ull /* "FerryMP1" */
#define FY_MSG_PAD 0
#define FY_MSG_PAD_INBOX 0xff /* in an inbox, kind 0 means "not yet published" */

typedef struct fy_shm_hdr {
    uint64_t magic;
    uint32_t nranks;
    uint32_t ring_bytes;
    uint32_t coll_slots; /* slots of the collective pool (0: none, collectives use messages) */
    uint32_t coll_area;  /* bytes of one rank's area in one half of a slot */
    uint32_t inbox;      /* 1: one inbox per receiver instead of a ring per pair */
    _Atomic uint32_t finalizing; /* ranks that entered MPI_Finalize (see fy_shm_peer_gone) */
    uint64_t ring_key; /* random, odd: the rings' record stamps (shm_ring.c) */
    _Alignas(FY_CACHELINE) _Atomic uint32_t stuck; /* ranks asleep in MPI, no progress since */
    _Atomic uint32_t moved;    /* bumped whenever a rank stops being stuck */
    _Atomic uint32_t reported; /* ranks that have printed what they wait for (deadlock) */
    _Atomic uint32_t dead;     /* 1 + the local number of a rank found dead (fy_shm_dead_peer) */
    _Atomic uint32_t mapped;   /* ranks that have mapped the segment; the last unlinks its name */
} fy_shm_hdr_t;

/* The head of the collective pool: which slots a communicator holds. The layout inside a
 * slot belongs to the collective layer (src/coll/fy_shmcoll.h); the segment only reserves
 * slot_stride bytes per slot. */
typedef struct fy_shm_coll {
    _Alignas(FY_CACHELINE) _Atomic uint64_t used; /* bit i: slot i taken */
} fy_shm_coll_t;
#define FY_SHM_COLL_MAX_SLOTS 64
/* A slot: control lines (a head line, FY_SHM_COLL_COUNTERS arrival counters, one flag line
 * per member), then FY_SHM_COLL_GENS small generations of n areas of fy_shm_coll_small(n)
 * bytes, then two halves of n areas of `area` bytes; each part page-aligned. */
#define FY_SHM_COLL_GENS 16
#define FY_SHM_COLL_COUNTERS 64
static inline size_t fy_shm_coll_small(int n)
{
    size_t s = 1024;
    while (s > 256 && s * FY_SHM_COLL_GENS * (size_t)n > 256 * 1024)
        s >>= 1;
    return s;
}
static inline size_t fy_shm_coll_ctl_bytes(int n)
{
    return ((size_t)(n + 1 + FY_SHM_COLL_COUNTERS) * FY_CACHELINE + 4095) / 4096 * 4096;
}
static inline size_t fy_shm_coll_small_bytes(int n)
{
    return (FY_SHM_COLL_GENS * (size_t)n * fy_shm_coll_small(n) + 4095) / 4096 * 4096;
}
static inline size_t fy_shm_coll_stride(int n, size_t area)
{
    return fy_shm_coll_ctl_bytes(n) + fy_shm_coll_small_bytes(n) + 2 * (size_t)n * area;
}

/* Split rendezvous slots per receiver: a large message in flight holds one until its send
 * completes; more at once to one receiver go as plain (receiver-only) rendezvous. 63 (a page
 * per receiver) so that a window of 64 sends shares nearly all of them: with 31, half of such
 * a window could not be shared and the sender copied 18 % of the bytes, with 63 37 %. */
#define FY_SHM_RNDV_SLOTS 63
typedef struct fy_shm_rndv {
    _Alignas(FY_CACHELINE) _Atomic uint64_t used; /* bit i: slot i taken */
} fy_shm_rndv_t;
#define FY_SHM_RNDV_STRIDE ((size_t)FY_CACHELINE * (1 + FY_SHM_RNDV_SLOTS))

typedef struct fy_bell {
    _Alignas(FY_CACHELINE) atomic_uint seq; /* futex word: bumped by a waking peer */
    atomic_uint sleepers;                   /* threads of this rank in or near futex_wait */
    int32_t pid;
    atomic_uint gone; /* 1: this rank entered MPI_Finalize; it sends and receives no more */
    /* A rank that also waits for TCP sleeps in epoll_wait, not on the futex: its eventfd's
     * number in its own process plus one (0: none, as a fresh segment says; producers ring it
     * through pidfd_getfd), and 1 in efd_refused once a producer could not get it (the
     * sleeper then wakes often instead). */
    _Atomic int32_t efd1;
    atomic_uint efd_refused;
    _Atomic int64_t rung_ns; /* CLOCK_MONOTONIC when a peer last woke a sleeper here: the
                              * sleeper times its own wake-up from it */
    /* What a peer deciding whether to wait for this rank by polling or by sleeping can know
     * (the wait policy, src/p2p/wait_policy.c). Written only by this rank, while it waits and
     * has polled idle for a while, on a line of its own: producers read `sleepers` above on
     * every send and must not miss on it. */
    _Alignas(FY_CACHELINE) _Atomic int64_t beat_ns; /* CLOCK_MONOTONIC of a recent idle poll */
    atomic_int cpu;      /* the CPU that poll ran on */
    atomic_uint polling; /* 1: inside a wait, polling (a stale beat then means descheduled) */
    atomic_uint in_wait; /* 1: inside a wait, from its first poll (shm_ring.c's early wrap) */
} fy_bell_t;

/* A ring has no shared tail: each record carries a stamp (its position XOR the job's
 * ring_key) that its producer stores last, and the consumer polls the stamp at its head
 * (shm_ring.c). */
typedef struct fy_ring {
    _Alignas(FY_CACHELINE) _Atomic uint64_t head;             /* written by the consumer */
    _Alignas(FY_CACHELINE) atomic_uint producer_waiting;      /* set by a producer that found it full */
    _Alignas(FY_CACHELINE) unsigned char data[];
} fy_ring_t;

/* A receiver's inbox (wide jobs): producers reserve space by compare-and-swap on `tail`,
 * write their record with kind 0, then publish it by storing its kind (release); the consumer
 * takes records in position order while the kind at its head is set, and clears the first
 * byte of every 64-byte line it consumed before moving head on, so that a stale byte of an
 * older lap never looks like a published record. A producer that finds the inbox full sets
 * its bit in `waiting` (and `waiting_any`); the consumer rings those producers' bells. */
typedef struct fy_inbox {
    _Alignas(FY_CACHELINE) _Atomic uint64_t head; /* written by the consumer */
    _Alignas(FY_CACHELINE) _Atomic uint64_t tail; /* reserved by producers */
    _Alignas(FY_CACHELINE) _Atomic uint64_t waiting_any;
    _Atomic uint64_t waiting[]; /* bit src of word src / 64 */
} fy_inbox_t;

typedef struct fy_shm {
    void *base;
    size_t bytes;
    int rank, n; /* ours and the segment's ranks: local numbers, 0..n-1 */
    /* World rank -> local number (-1: not in this segment); NULL when they are the same (one
     * host, shared memory between all ranks), which keeps the send path's lookup to a test. */
    int *local_of;
    int *world_of; /* local number -> world rank */
    uint32_t ring_bytes; /* data bytes of a ring or an inbox */
    uint64_t ring_key;   /* from the segment's header */
    size_t ring_stride;  /* from one ring (or inbox) to the next */
    int inbox;           /* the layout has inboxes, not rings */
    size_t inbox_data;   /* offset of an inbox's data from its start */
    fy_shm_hdr_t *hdr;
    fy_bell_t *bell;
    unsigned char *rings;
    fy_shm_coll_t *coll;      /* NULL when the pool has no slots */
    unsigned char *coll_base; /* slot i at coll_base + i * coll_stride */
    uint32_t coll_slots, coll_area;
    size_t coll_stride;
    unsigned char *rndv; /* receiver dst's slot table at rndv + dst * FY_SHM_RNDV_STRIDE */
    size_t rndv_off;
} fy_shm_t;

extern fy_shm_t fy_shm;

/* The segment's number for world rank w (every entry point of the transport takes world
 * ranks; everything inside works on local numbers). */
static inline int fy_shm_lr(int w)
{
    const int *m = fy_shm.local_of;
    return m ? m[w] : w;
}

static inline fy_ring_t *fy_shm_ring(int dst, int src)
{
    return (fy_ring_t *)(fy_shm.rings + ((size_t)dst * fy_shm.n + src) * fy_shm.ring_stride);
}

static inline fy_inbox_t *fy_shm_inbox(int dst)
{
    return (fy_inbox_t *)(fy_shm.rings + (size_t)dst * fy_shm.ring_stride);
}
static inline unsigned char *fy_shm_inbox_data(int dst)
{
    return fy_shm.rings + (size_t)dst * fy_shm.ring_stride + fy_shm.inbox_data;
}
/* Bytes of its inbox's data a rank touches at MPI_Init; the rest is touched by traffic. */
#define FY_SHM_INBOX_TOUCH (16 * 1024)
/* Where queues (rings or inboxes) lie for n ranks: stride and data offset. */
static inline size_t fy_shm_queue_stride(int inbox, int n, uint32_t bytes, size_t *data_off)
{
    size_t off;
    if (inbox)
        off = (sizeof(fy_inbox_t) + 8 * (((size_t)n + 63) / 64) + 4095) / 4096 * 4096;
    else
        off = offsetof(fy_ring_t, data);
    *data_off = off;
    return (off + bytes + 4095) / 4096 * 4096;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
/* Arms the pair rings to be mapped on the first send to each peer (shm_ring.c). */
void fy_shm_ring_arm(void);

/* Closes the eventfds of fy_shm_use_eventfd and of peers rung through them. */
void fy_shm_efd_fini(void);
/* Rings local rank l's doorbell (fy_shm_ring_bell takes a world rank). */
void fy_shm_ring_bell_local(int l);
/* The two halves of the store-load barrier between a producer and a sleeping consumer (see
 * shm_wait.c): fast on the hot path, slow on the path that is about to sleep or wait. */
void fy_shm_fence_init(void);
void fy_shm_fence_fast(void);
void fy_shm_fence_slow(void);
int fy_shm_cma_init(void);

/* Dates this rank's beat now, if it is inside a wait (shm_wait.c; for long drains). */
void fy_shm_beat_refresh(void);

#endif
