/* A communicator's slot of the shared-memory collective pool, as its members see it (the
 * layout and the phase protocol are in fy_shmcoll.h). Used by shm_slot.c and shm_coll.c. */
#ifndef FY_SHM_SLOT_H
#define FY_SHM_SLOT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fy_comm.h"
#include "shm_seg.h"

typedef struct fy_cslot_head {
    _Alignas(FY_CACHELINE) atomic_uint users;
} fy_cslot_head_t;

/* A member's flag line also carries two small inline buffers: a reader that sees the flag has
 * the data in the same cache line, one transfer instead of two (a short Allreduce at 2 ranks
 * is about one line transfer each way). */
#define FY_SHMC_INLINE 24
typedef struct fy_cflag {
    _Alignas(FY_CACHELINE) _Atomic uint64_t seq;
    _Alignas(8) unsigned char inl[2][FY_SHMC_INLINE];
} fy_cflag_t;

/* Arrival counters: counter (s - 1) % FY_SHM_COLL_COUNTERS counts the members that have
 * published phase s (and the phases FY_SHM_COLL_COUNTERS, 2 FY_SHM_COLL_COUNTERS ... apart).
 * "Every member has published s" is then one line to poll instead of n flag lines, and the
 * member whose arrival completes a phase knows it is the last: it alone rings the others'
 * doorbells (with n ringing n - 1 bells each, a phase at 256 ranks cost 65,000 bell-line
 * loads). Sound while no member runs FY_SHM_COLL_COUNTERS phases ahead of another: a member
 * that does not wait for the others (a broadcast's root, a reduction's leaves) still waits,
 * before writing a buffer, for everyone to have finished that buffer's previous use, and with
 * 20 buffers (16 generations, 2 halves, 2 inline) some buffer repeats within any 21
 * collectives, so nobody runs more than 20 collectives (40 phases) ahead. */
typedef struct fy_ccount {
    _Alignas(FY_CACHELINE) _Atomic uint64_t n;
    /* shm_last: (phase << 13) | member, stored by the last arriver once the phase's result is
     * in its area (FY_SHM_MAX_RANKS fits 13 bits). */
    _Atomic uint64_t result;
} fy_ccount_t;

/* Buffers of a slot: the FY_SHM_COLL_GENS small generations, the two halves, the two inline
 * buffers of the flag lines. */
enum {
    FY_SHMC_NONE = -1,
    FY_SHMC_HALF0 = FY_SHM_COLL_GENS,
    FY_SHMC_INL0 = FY_SHM_COLL_GENS + 2,
    FY_SHMC_NBUF = FY_SHM_COLL_GENS + 4
};

typedef struct fy_shmc {
    int slot; /* -1: none could be had; the communicator uses messages */
    fy_cslot_head_t *head;
    fy_ccount_t *count;          /* FY_SHM_COLL_COUNTERS arrival counters */
    fy_cflag_t *flag;            /* flag[j]: member j (rank in the communicator) */
    unsigned char *small;        /* generation g, area j at small + (g * n + j) * small_area */
    unsigned char *halves;       /* half h, area j at halves + (h * n + j) * area */
    size_t small_area, area;     /* bytes of one member's area in a generation, in a half */
    int n;                       /* members the slot's geometry is made for (the machine's ranks) */
    uint64_t phase;              /* the last phase this member published */
    uint64_t ops;                /* collectives run in the slot so far */
    uint64_t smalls, bigs, inls; /* how many used a small generation, a half, an inline one */
    int last;                    /* buffer of the previous collective, FY_SHMC_NONE if none */
    /* Buffer b may be written again once every member has published rel[b]: the first phase
     * of the collective that followed its last use (so every member has finished that use). */
    uint64_t rel[FY_SHMC_NBUF];
    int *bell; /* world rank of each member, whose doorbell to ring */
} fy_shmc_t;

/* c's slot, taken on the first call (a collective step over c: every member must call it at
 * the same point); NULL with *rc_p MPI_SUCCESS when c uses messages, or an error class. */
fy_shmc_t *fy_shmc_get(fy_comm_t *c, int *rc_p);

/* Starts a collective that needs a buffer of `per_member` bytes per member (0: none; at most
 * st->area): returns the buffer (FY_SHMC_NONE when none) and notes the first phase. Small
 * ones rotate through the generations, so a member that only writes (a broadcast's root, a
 * reduction's leaves) can run that many collectives ahead of the readers. */
static inline int fy_shmc_begin(fy_shmc_t *st, size_t per_member, uint64_t *first_p)
{
    *first_p = st->phase + 1;
    if (st->last != FY_SHMC_NONE)
        st->rel[st->last] = *first_p;
    st->ops++;
    int b = FY_SHMC_NONE;
    if (per_member > st->small_area)
        b = FY_SHMC_HALF0 + (int)(st->bigs++ & 1);
    else if (per_member > FY_SHMC_INLINE)
        b = (int)(st->smalls++ % FY_SHM_COLL_GENS);
    else if (per_member > 0)
        b = FY_SHMC_INL0 + (int)(st->inls++ & 1);
    st->last = b;
    return b;
}
/* Member j's area of buffer b. The n areas of a generation or half are consecutive, so area 0
 * is also the start of n * fy_shmc_cap(st, b) bytes; not so for the inline buffers (one in
 * each flag line). */
static inline unsigned char *fy_shmc_area(const fy_shmc_t *st, int b, int j)
{
    if (b >= FY_SHMC_INL0)
        return st->flag[j].inl[b - FY_SHMC_INL0];
    if (b >= FY_SHMC_HALF0)
        return st->halves + ((size_t)(b - FY_SHMC_HALF0) * (size_t)st->n + (size_t)j) * st->area;
    return st->small + ((size_t)b * (size_t)st->n + (size_t)j) * st->small_area;
}
static inline size_t fy_shmc_cap(const fy_shmc_t *st, int b)
{
    return b >= FY_SHMC_INL0 ? FY_SHMC_INLINE : b >= FY_SHMC_HALF0 ? st->area : st->small_area;
}
/* Publishes the next phase; the member that completes it rings the others' doorbells. */
void fy_shmc_publish(fy_shmc_t *st, const fy_comm_t *c);
/* The same for a member others wait for alone (a broadcast's root): it always rings. */
void fy_shmc_publish_ring(fy_shmc_t *st, const fy_comm_t *c);
/* Publishes the next phase without ringing; true for the member whose arrival completed it,
 * which must then publish a result (fy_shmc_result) and ring (fy_shmc_ring). */
bool fy_shmc_arrive(fy_shmc_t *st, const fy_comm_t *c);
void fy_shmc_result(fy_shmc_t *st, uint64_t s, int who);
void fy_shmc_ring(const fy_shmc_t *st, const fy_comm_t *c);
/* Waits for phase s's result; returns the member whose area holds it. */
int fy_shmc_wait_result(fy_shmc_t *st, uint64_t s);
/* Waits until members [lo, hi) have published phase s: either every member (0, c->size), or
 * one member (only its own publication rings the bells then: fy_shmc_publish_ring). */
void fy_shmc_wait(fy_shmc_t *st, int lo, int hi, uint64_t s);
/* Before writing into buffer b: every member has finished the collective that last used it. */
static inline void fy_shmc_guard(fy_shmc_t *st, const fy_comm_t *c, int b)
{
    if (b != FY_SHMC_NONE)
        fy_shmc_wait(st, 0, c->size, st->rel[b]);
}

#endif
