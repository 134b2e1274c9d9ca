/* Getting, waiting on and giving back a communicator's slot of the shared-memory collective
 * pool (fy_shmcoll.h, shm_slot.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_cpu.h"
#include "fy_hier.h"
#include "fy_p2p.h"
#include "fy_runtime.h"
#include "fy_shmcoll.h"
#include "shm_slot.h"


/* Private tag of the slot number's message, on the collective context, apart from the
 * collectives' own tags. */
enum { TAG_SLOT = 40 };

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

bool fy_shmcoll_usable(const fy_comm_t *c)
{
    if (!fy_shm.coll || c->inter || c->size < 2 || c->size > fy_shm.n)
        return false;
    const fy_shmc_t *st = c->coll_shm;
    if (st)
        return st->slot >= 0;
    /* Members elsewhere (other hosts, TCP): messages. Checked until a slot is taken. */
    for (int j = 0; fy_shm.local_of && j < c->size; j++)
        if (fy_shm_lr(fy_comm_world_rank(c, j)) < 0)
            return false;
    return true;
}

bool fy_shmcoll_reducible(const fy_dtype_t *dt)
{
    return dt->contig && dt->size > 0 && (size_t)dt->size <= fy_shm.coll_area;
}

size_t fy_shmcoll_area_bytes(void)
{
    return fy_shm.coll_area;
}

bool fy_shm_sel_ok(const fy_sel_t *s)
{
    return fy_shmcoll_usable(s->comm);
}

bool fy_shm_sel_reduce_ok(const fy_sel_t *s)
{
    return fy_shmcoll_usable(s->comm) && s->dt && fy_shmcoll_reducible(s->dt);
}

/* Rank 0's half of getting a slot: the lowest free one, reset for c's members. */
static int claim(int members)
{
    uint64_t used = atomic_load(&fy_shm.coll->used);
    for (;;) {
        int i = 0;
        while (i < (int)fy_shm.coll_slots && (used >> i & 1))
            i++;
        if (i == (int)fy_shm.coll_slots)
            return -1;
        if (atomic_compare_exchange_weak(&fy_shm.coll->used, &used, used | 1ull << i)) {
            unsigned char *base = fy_shm.coll_base + (size_t)i * fy_shm.coll_stride;
            fy_cslot_head_t *head = (fy_cslot_head_t *)base;
            fy_ccount_t *count = (fy_ccount_t *)(base + FY_CACHELINE);
            fy_cflag_t *flag = (fy_cflag_t *)(count + FY_SHM_COLL_COUNTERS);
            for (int k = 0; k < FY_SHM_COLL_COUNTERS; k++) {
                atomic_store_explicit(&count[k].n, 0, memory_order_relaxed);
                atomic_store_explicit(&count[k].result, 0, memory_order_relaxed);
            }
            for (int j = 0; j < members; j++)
                atomic_store_explicit(&flag[j].seq, 0, memory_order_relaxed);
            atomic_store(&head->users, (unsigned)members);
            return i;
        }
    }
}

void fy_shmc_free(fy_comm_t *c)
{
    fy_shmc_t *st = c->coll_shm;
    c->coll_shm = NULL;
    if (!st)
        return;
    /* The last member out gives the slot back; until then others may still read from it. */
    if (st->slot >= 0 && fy_shm.coll && atomic_fetch_sub(&st->head->users, 1) == 1)
        atomic_fetch_and(&fy_shm.coll->used, ~(1ull << st->slot));
    free(st->bell);
    free(st);
}

fy_shmc_t *fy_shmc_get(fy_comm_t *c, int *rc_p)
{
    *rc_p = MPI_SUCCESS;
    fy_shmc_t *st = c->coll_shm;
    if (st)
        return st->slot >= 0 ? st : NULL;
    st = calloc(1, sizeof *st);
    int *bell = malloc(sizeof(int) * (size_t)c->size);
    if (!st || !bell) {
        free(st);
        free(bell);
        *rc_p = fy_err_set(MPI_ERR_NO_MEM, "out of memory for a shared-memory collective");
        return NULL;
    }
    int slot = -1, rc = MPI_SUCCESS;
    /* Members on other hosts (or reached over TCP) have segments of their own: such a
     * communicator uses messages. Every member sees the same, so none waits for a slot. */
    bool one_segment = true;
    for (int j = 0; j < c->size && one_segment; j++)
        one_segment = fy_shm_lr(fy_comm_world_rank(c, j)) >= 0;
    if (!one_segment) {
    } else if (c->rank == 0) {
        slot = claim(c->size);
        for (int j = 1; j < c->size && rc == MPI_SUCCESS; j++)
            rc = fy_coll_send(&slot, 1, fy_dtype_get(MPI_INT), j, TAG_SLOT, c);
    } else {
        rc = fy_coll_recv(&slot, 1, fy_dtype_get(MPI_INT), 0, TAG_SLOT, c);
    }
    if (rc != MPI_SUCCESS) {
        free(st);
        free(bell);
        *rc_p = rc;
        return NULL;
    }
    fy_comm_coll_free = fy_coll_comm_free; /* from now on a freed communicator may hold a slot */
    st->slot = slot;
    st->bell = bell;
    for (int j = 0; j < c->size; j++)
        bell[j] = fy_comm_world_rank(c, j);
    c->coll_shm = st;
    if (slot < 0)
        return NULL;
    unsigned char *base = fy_shm.coll_base + (size_t)slot * fy_shm.coll_stride;
    st->head = (fy_cslot_head_t *)base;
    st->count = (fy_ccount_t *)(base + FY_CACHELINE);
    st->flag = (fy_cflag_t *)(st->count + FY_SHM_COLL_COUNTERS);
    st->n = fy_shm.n;
    st->small = base + fy_shm_coll_ctl_bytes(st->n);
    st->small_area = fy_shm_coll_small(st->n);
    st->halves = st->small + fy_shm_coll_small_bytes(st->n);
    st->area = fy_shm.coll_area;
    st->last = FY_SHMC_NONE;
    /* First touches of the pages this member writes would otherwise fault during its first
     * collectives; the rest of the slot is left alone (a page of tmpfs is memory once touched).
     * Wide jobs (inboxes) leave the halves to the first long collective: 2 n areas of 16 KiB
     * are 32 MiB a slot at 1,024 ranks, and most wide jobs' collectives are short. */
    madvise(base, fy_shm_coll_ctl_bytes(st->n), MADV_POPULATE_WRITE);
    for (int b = 0; b < FY_SHMC_NBUF; b++)
        if (!fy_shm.inbox || b < FY_SHMC_HALF0 || b >= FY_SHMC_INL0)
            madvise((void *)((uintptr_t)fy_shmc_area(st, b, c->rank) & ~(uintptr_t)4095),
                    fy_shmc_cap(st, b), MADV_POPULATE_WRITE);
    return st;
}

/* The value of phase s's counter once all `members` have published s. */
static inline uint64_t count_full(uint64_t s, int members)
{
    return (uint64_t)members * ((s - 1) / FY_SHM_COLL_COUNTERS + 1);
}

void fy_shmc_ring(const fy_shmc_t *st, const fy_comm_t *c)
{
    for (int j = 0; j < c->size; j++)
        if (j != c->rank)
            fy_shm_ring_bell(st->bell[j]);
}

static void publish(fy_shmc_t *st, const fy_comm_t *c, bool ring)
{
    uint64_t s = ++st->phase;
    atomic_store_explicit(&st->flag[c->rank].seq, s, memory_order_release);
    /* acq_rel: the last arriver's reading of the others' areas comes after their writes. */
    uint64_t v = atomic_fetch_add_explicit(&st->count[(s - 1) % FY_SHM_COLL_COUNTERS].n, 1,
                                           memory_order_acq_rel) + 1;
    if (ring || v >= count_full(s, c->size))
        fy_shmc_ring(st, c);
}

bool fy_shmc_arrive(fy_shmc_t *st, const fy_comm_t *c)
{
    uint64_t s = ++st->phase;
    atomic_store_explicit(&st->flag[c->rank].seq, s, memory_order_release);
    /* Counter values are distinct: exactly one member sees the full count. */
    return atomic_fetch_add_explicit(&st->count[(s - 1) % FY_SHM_COLL_COUNTERS].n, 1,
                                     memory_order_acq_rel) + 1 == count_full(s, c->size);
}

void fy_shmc_result(fy_shmc_t *st, uint64_t s, int who)
{
    atomic_store_explicit(&st->count[(s - 1) % FY_SHM_COLL_COUNTERS].result, s << 13 | (unsigned)who,
                          memory_order_release);
}

typedef struct {
    const fy_ccount_t *count;
    uint64_t s, seen;
} result_wait_t;

static bool result_ready(void *arg)
{
    result_wait_t *w = arg;
    w->seen = atomic_load_explicit(&w->count->result, memory_order_acquire);
    return w->seen >> 13 >= w->s;
}

int fy_shmc_wait_result(fy_shmc_t *st, uint64_t s)
{
    result_wait_t w = {&st->count[(s - 1) % FY_SHM_COLL_COUNTERS], s, 0};
    if (!result_ready(&w))
        fy_wait_until(result_ready, &w);
    return (int)(w.seen & 8191);
}

void fy_shmc_publish(fy_shmc_t *st, const fy_comm_t *c)
{
    publish(st, c, false);
}

void fy_shmc_publish_ring(fy_shmc_t *st, const fy_comm_t *c)
{
    publish(st, c, true);
}

typedef struct {
    const fy_cflag_t *flag;
    const fy_ccount_t *count; /* non-NULL: wait for every member through the counter */
    const int *world;         /* members' world ranks */
    int lo, hi;
    uint64_t s, full;
} wait_t;

/* Members already seen at phase s are skipped on the next poll (flags only grow). The first
 * member not there yet is the one the wait policy looks at. */
static bool reached(void *arg)
{
    wait_t *w = arg;
    if (w->count)
        return atomic_load_explicit(&w->count->n, memory_order_acquire) >= w->full;
    while (w->lo < w->hi) {
        if (atomic_load_explicit(&w->flag[w->lo].seq, memory_order_acquire) < w->s) {
            fy_wait_hint(w->world[w->lo]);
            return false;
        }
        w->lo++;
    }
    return true;
}

void fy_shmc_wait(fy_shmc_t *st, int lo, int hi, uint64_t s)
{
    if (s == 0) /* a guard on a buffer never used: nothing to wait for */
        return;
    wait_t w = {st->flag, NULL, st->bell, lo, hi, s, 0};
    if (hi - lo > 1) {
        w.count = &st->count[(s - 1) % FY_SHM_COLL_COUNTERS];
        w.full = count_full(s, hi - lo);
    }
    /* The flags usually come within a cache-line transfer or two: poll them alone for a
     * moment before the general wait, whose every pass also polls point-to-point (a few
     * times longer than a flag). Not when ranks outnumber cores: there the core belongs to
     * whoever has not yet arrived. */
    if (!fy_rt.spin_yield)
        for (int i = 0; i < 200 && !reached(&w); i++)
            fy_cpu_relax();
    if (!reached(&w))
        fy_wait_until(reached, &w);
    else
        fy_wait_hint(-1); /* reached() left one for a wait that did not happen */
}
