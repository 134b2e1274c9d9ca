/* The job's shared-memory segment: one per machine, created by the lowest rank, mapped by all
 * and unlinked as soon as everyone has mapped it, so that no crash can leave a file behind.
 *
 * Layout (every part cache-line aligned):
 *   fy_shm_hdr_t                         magic, rank count, ring size
 *   fy_bell_t bell[n]                    one doorbell per rank (futex word, sleeper count, pid)
 *   ring[dst][src] for dst,src < n       a single-producer single-consumer byte ring per pair
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
#define FY_SHM_MAGIC 0x46657272794d5031ull /* "FerryMP1" */
#define FY_MSG_PAD 0

typedef struct fy_shm_hdr {
    uint64_t magic;
    uint32_t nranks;
    uint32_t ring_bytes;
} fy_shm_hdr_t;

typedef struct fy_bell {
    _Alignas(FY_CACHELINE) atomic_uint seq; /* futex word: bumped by a waking peer */
    atomic_uint sleepers;                   /* threads of this rank in or near futex_wait */
    int32_t pid;
} fy_bell_t;

typedef struct fy_ring {
    _Alignas(FY_CACHELINE) _Atomic uint64_t head; /* written by the consumer */
    _Alignas(FY_CACHELINE) _Atomic uint64_t tail; /* written by the producer */
    atomic_uint producer_waiting;                 /* set by a producer that found it full */
    _Alignas(FY_CACHELINE) unsigned char data[];
} fy_ring_t;

typedef struct fy_shm {
    void *base;
    size_t bytes;
    int rank, n;
    uint32_t ring_bytes;
    size_t ring_stride;
    fy_shm_hdr_t *hdr;
    fy_bell_t *bell;
    unsigned char *rings;
} fy_shm_t;

extern fy_shm_t fy_shm;

static inline fy_ring_t *fy_shm_ring(int dst, int src)
{
    return (fy_ring_t *)(fy_shm.rings + ((size_t)dst * fy_shm.n + src) * fy_shm.ring_stride);
}

void fy_shm_ring_bell(int dst);
/* The two halves of the store-load barrier between a producer and a sleeping consumer (see
 * shm_wait.c): fast on the hot path, slow on the path that is about to sleep or wait. */
void fy_shm_fence_init(void);
void fy_shm_fence_fast(void);
void fy_shm_fence_slow(void);
int fy_shm_cma_init(void);

#endif
