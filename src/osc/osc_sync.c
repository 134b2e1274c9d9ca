/* Synchronisation of windows: fence, passive-target locks and flushes, and general active
 * target (post, start, complete, wait).
 *
 * Direct operations are complete when they return, so what is left to synchronise is who may
 * access what when:
 *   - fence: a barrier on the window's communicator (after flushing active messages);
 *   - locks: a reader/writer lock word per target in the host's shared metadata (fy_osc.h),
 *     taken by the origin itself; ranks of other hosts ask the target's progress engine;
 *   - PSCW: counters per (origin, target) pair of the host in the same metadata: a post adds
 *     one to each origin's count from this target, a complete one to each target's count from
 *     this origin, and a bell word per rank wakes whoever sleeps on it.
 * Waiting goes through the point-to-point wait and the ranks' doorbells (fy_osc_wait).
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fy_clock.h"
#include "fy_coll.h"
#include "fy_cpu.h"
#include "fy_err.h"
#include "fy_osc.h"
#include "fy_p2p.h"
#include "fy_runtime.h"
#include "fy_xport.h"

enum { SLEEP_NS = 1000000 };

/* Two ways to wait, chosen per window at creation (w->bells):
 *   - every rank of the host on the window shares this rank's shared-memory segment: the
 *     point-to-point wait (fy_wait_until: its spin, yield and sleep policy, which knows when a
 *     peer sits on this CPU, and its deadlock detector), woken through the ranks' doorbells;
 *   - otherwise (FERRY_NETMOD=tcp on one host): poll with progress for the spin time, then
 *     sleep on the word's futex, a millisecond at a time so active messages are served.
 * `sleepers` counts the waiters of the word, so a waker pays nothing when there are none. */
void fy_osc_wait(fy_win_t *w, _Atomic uint32_t *word, _Atomic uint32_t *sleepers,
                 bool (*pred)(void *), void *arg)
{
    /* pred must only look: the point-to-point wait may call it again after it held. */
    if (w->bells) {
        atomic_fetch_add(sleepers, 1);
        fy_wait_until(pred, arg);
        atomic_fetch_sub(sleepers, 1);
        return;
    }
    int64_t until = fy_rt.wait_mode == FY_WAIT_BLOCK ? 0 : fy_now_ns() + fy_rt.spin_ns;
    bool slept = false;
    for (unsigned i = 0;; i++) {
        uint32_t seen = atomic_load(word);
        if (pred(arg))
            return;
        /* Once sleeping between passes, every pass reads the sockets: an active message (a
         * remote unlock, post or complete) must not wait for 8 sleeps. */
        if (slept)
            fy_progress_full();
        else
            fy_progress();
        if (fy_rt.wait_mode == FY_WAIT_SPIN || (until && ((i & 15) || fy_now_ns() < until))) {
            if (fy_rt.spin_yield)
                sched_yield();
            else
                fy_cpu_relax();
            continue;
        }
        slept = true;
        atomic_fetch_add(sleepers, 1);
        bool got = pred(arg);
        if (!got) {
            struct timespec ts = {0, SLEEP_NS};
            syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
        }
        atomic_fetch_sub(sleepers, 1);
        if (got)
            return;
    }
}

void fy_osc_wake(fy_win_t *w, _Atomic uint32_t *word, _Atomic uint32_t *sleepers, int who)
{
    /* Every caller changed the word with a sequentially consistent read-modify-write, which
     * orders that change before this load of the sleepers (a waiter counts itself, then
     * looks at the word): no fence needed here. */
    if (!atomic_load(sleepers))
        return;
    if (!w->bells) {
        syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        return;
    }
    /* A doorbell rings only a rank asleep on it (one load otherwise). */
    if (who >= 0) {
        fy_shm_ring_bell(w->t[who].world);
        return;
    }
    for (int l = 0; l < w->nlocal; l++)
        if (w->local_rank[l] != w->rank)
            fy_shm_ring_bell(w->t[w->local_rank[l]].world);
}

static const char *wname(const fy_win_t *w)
{
    return fy_win_text(w);
}

/* ---- fence ------------------------------------------------------------------------------- */

int fy_win_fence(const char *fn, fy_win_t *w, int assert)
{
    if (w->epoch & (FY_EPOCH_LOCK | FY_EPOCH_LOCK_ALL | FY_EPOCH_PSCW) || w->post_grp)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: %s has a %s epoch open; a fence cannot start or end it", fn,
                          wname(w),
                          w->epoch & (FY_EPOCH_LOCK | FY_EPOCH_LOCK_ALL) ? "passive-target"
                                                                          : "post/start");
    int rc = MPI_SUCCESS;
    if (w->am)
        rc = fy_osc_am_flush(w, -1);
    atomic_thread_fence(memory_order_seq_cst);
    /* Even with MPI_MODE_NOPRECEDE the barrier stays: the target's own stores before the fence
     * must be ordered before the next epoch's remote accesses. */
    int brc = fy_barrier(w->comm);
    if (rc == MPI_SUCCESS)
        rc = brc;
    if (assert & MPI_MODE_NOSUCCEED)
        w->epoch &= ~(unsigned)FY_EPOCH_FENCE;
    else
        w->epoch |= FY_EPOCH_FENCE;
    return rc;
}

/* ---- passive target ------------------------------------------------------------------------ */

typedef struct {
    fy_win_t *w;
    _Atomic uint32_t *v;
    _Atomic uint32_t *sleepers;
} lock_arg_t;

static bool take_excl(void *arg)
{
    return fy_osc_take0(((lock_arg_t *)arg)->v, FY_OSC_WRITER);
}

static bool take_shared(void *arg)
{
    lock_arg_t *a = arg;
    if (atomic_load_explicit(a->v, memory_order_relaxed) & FY_OSC_WRITER)
        return false;
    if (!(atomic_fetch_add(a->v, 1) & FY_OSC_WRITER))
        return true;
    /* A writer got in first: back out, and wake a writer our count may have put to sleep. */
    atomic_fetch_sub(a->v, 1);
    fy_osc_wake(a->w, a->v, a->sleepers, -1);
    return false;
}

/* What the waits test: whether taking may succeed now. They must not take (the point-to-point
 * wait may test its condition again after it first held). */
static bool free_excl(void *arg)
{
    return atomic_load(((lock_arg_t *)arg)->v) == 0;
}

static bool free_shared(void *arg)
{
    return !(atomic_load(((lock_arg_t *)arg)->v) & FY_OSC_WRITER);
}

static void lock_local(fy_win_t *w, int t, int type)
{
    fy_osc_word_t *lk = &w->meta[w->t[t].local].lock;
    lock_arg_t a = {w, &lk->v, &lk->sleepers};
    bool excl = type == MPI_LOCK_EXCLUSIVE;
    while (!(excl ? take_excl(&a) : take_shared(&a)))
        fy_osc_wait(w, &lk->v, &lk->sleepers, excl ? free_excl : free_shared, &a);
}

static void unlock_local(fy_win_t *w, int t, int held)
{
    fy_osc_word_t *lk = &w->meta[w->t[t].local].lock;
    if (held == FY_WLOCK_EXCL)
        atomic_fetch_and(&lk->v, ~FY_OSC_WRITER);
    else
        atomic_fetch_sub(&lk->v, 1);
    fy_osc_wake(w, &lk->v, &lk->sleepers, -1);
}

/* For osc_am.c: the lock word of window rank t of this host (the target itself, or a rank of
 * its host), taken or given back on behalf of an origin; held is FY_WLOCK_SHARED or _EXCL. */
bool fy_osc_lock_try(fy_win_t *w, int t, int held)
{
    fy_osc_word_t *lk = &w->meta[w->t[t].local].lock;
    lock_arg_t a = {w, &lk->v, &lk->sleepers};
    return held == FY_WLOCK_EXCL ? take_excl(&a) : take_shared(&a);
}

void fy_osc_lock_wait(fy_win_t *w, int t, int held)
{
    lock_local(w, t, held == FY_WLOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED);
}

void fy_osc_lock_release(fy_win_t *w, int t, int held)
{
    unlock_local(w, t, held);
}

static int take_lock(fy_win_t *w, int t, int type, int assert)
{
    fy_win_target_t *tg = &w->t[t];
    if (assert & MPI_MODE_NOCHECK) {
        tg->lock = FY_WLOCK_NOCHECK;
        return MPI_SUCCESS;
    }
    if (tg->reach == FY_REACH_AM) {
        int rc = fy_osc_am_lock(w, t, type);
        if (rc != MPI_SUCCESS)
            return rc;
    } else {
        lock_local(w, t, type);
    }
    tg->lock = type == MPI_LOCK_EXCLUSIVE ? FY_WLOCK_EXCL : FY_WLOCK_SHARED;
    return MPI_SUCCESS;
}

static int drop_lock(fy_win_t *w, int t)
{
    fy_win_target_t *tg = &w->t[t];
    int held = tg->lock, rc = MPI_SUCCESS;
    tg->lock = FY_WLOCK_NONE;
    if (held == FY_WLOCK_NOCHECK || held == FY_WLOCK_NONE)
        return tg->reach == FY_REACH_AM ? fy_osc_am_flush(w, t) : MPI_SUCCESS;
    if (tg->reach == FY_REACH_AM)
        return fy_osc_am_unlock(w, t); /* completes what was issued first */
    /* The release is a read-modify-write: the epoch's stores are visible before it. */
    w->dirty = false;
    unlock_local(w, t, held);
    return rc;
}

static int no_locks_hint(const char *fn, fy_win_t *w)
{
    return fy_err_set(MPI_ERR_RMA_SYNC,
                      "%s: %s was created with the info hint no_locks=true, so it may not be "
                      "locked",
                      fn, wname(w));
}

int fy_win_lock(const char *fn, fy_win_t *w, int type, int rank, int assert)
{
    if (w->no_locks)
        return no_locks_hint(fn, w);
    if (w->epoch & FY_EPOCH_LOCK_ALL)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: %s is locked with MPI_Win_lock_all; rank %d is already locked", fn,
                          wname(w), rank);
    if (w->epoch & FY_EPOCH_PSCW)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: %s has an access epoch from MPI_Win_start open", fn, wname(w));
    if (w->t[rank].lock != FY_WLOCK_NONE)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: rank %d of %s is already locked by this process (call "
                          "MPI_Win_unlock first)",
                          fn, rank, wname(w));
    int rc = take_lock(w, rank, type, assert);
    if (rc == MPI_SUCCESS) {
        w->nlocks++;
        w->epoch |= FY_EPOCH_LOCK;
    }
    return rc;
}

int fy_win_unlock(const char *fn, fy_win_t *w, int rank)
{
    if (!(w->epoch & FY_EPOCH_LOCK) || w->t[rank].lock == FY_WLOCK_NONE)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: rank %d of %s is not locked by this process (%s)", fn, rank,
                          wname(w),
                          w->epoch & FY_EPOCH_LOCK_ALL ? "it was locked with MPI_Win_lock_all: "
                                                         "use MPI_Win_unlock_all"
                                                       : "no MPI_Win_lock before");
    int rc = drop_lock(w, rank);
    if (--w->nlocks == 0)
        w->epoch &= ~(unsigned)FY_EPOCH_LOCK;
    return rc;
}

int fy_win_lock_all(const char *fn, fy_win_t *w, int assert)
{
    if (w->no_locks)
        return no_locks_hint(fn, w);
    if (w->epoch & (FY_EPOCH_LOCK | FY_EPOCH_LOCK_ALL | FY_EPOCH_PSCW))
        return fy_err_set(MPI_ERR_RMA_SYNC, "%s: %s already has an access epoch open (%s)", fn,
                          wname(w),
                          w->epoch & FY_EPOCH_LOCK_ALL ? "MPI_Win_lock_all"
                          : w->epoch & FY_EPOCH_LOCK   ? "MPI_Win_lock"
                                                       : "MPI_Win_start");
    for (int t = 0; t < w->size; t++) {
        int rc = take_lock(w, t, MPI_LOCK_SHARED, assert);
        if (rc != MPI_SUCCESS) {
            while (--t >= 0)
                drop_lock(w, t);
            return rc;
        }
    }
    w->epoch |= FY_EPOCH_LOCK_ALL;
    return MPI_SUCCESS;
}

int fy_win_unlock_all(const char *fn, fy_win_t *w)
{
    if (!(w->epoch & FY_EPOCH_LOCK_ALL))
        return fy_err_set(MPI_ERR_RMA_SYNC, "%s: %s is not locked with MPI_Win_lock_all", fn,
                          wname(w));
    int rc = MPI_SUCCESS;
    for (int t = 0; t < w->size; t++) {
        int e = drop_lock(w, t);
        if (rc == MPI_SUCCESS)
            rc = e;
    }
    w->epoch &= ~(unsigned)FY_EPOCH_LOCK_ALL;
    return rc;
}

int fy_win_flush(const char *fn, fy_win_t *w, int rank, bool local)
{
    (void)local; /* AM operations hold no origin buffer after they are sent */
    if (!(w->epoch & (FY_EPOCH_LOCK | FY_EPOCH_LOCK_ALL)) ||
        (rank >= 0 && w->t[rank].lock == FY_WLOCK_NONE))
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: no passive-target epoch is open on %s%s (flushes belong between "
                          "MPI_Win_lock/lock_all and the unlock)",
                          fn, wname(w), rank >= 0 ? " for that rank" : "");
    int rc = MPI_SUCCESS;
    if (w->am)
        rc = fy_osc_am_flush(w, rank);
    if (FY_OSC_FLUSH_FENCES)
        fy_osc_before_loads(w);
    return rc;
}

int fy_win_sync(const char *fn, fy_win_t *w)
{
    (void)fn;
    (void)w;
    /* The unified model: public and private copies are one memory; a full fence orders this
     * process's loads and stores against everyone's. */
    fy_osc_fence();
    w->dirty = false;
    fy_progress();
    return MPI_SUCCESS;
}

/* ---- post / start / complete / wait -------------------------------------------------------- */

static _Atomic uint32_t *posts(fy_win_t *w, int origin_local, int target_local)
{
    return &w->pscw[(size_t)origin_local * (size_t)w->nlocal + (size_t)target_local];
}

static _Atomic uint32_t *dones(fy_win_t *w, int target_local, int origin_local)
{
    size_t nl = (size_t)w->nlocal;
    return &w->pscw[nl * nl + (size_t)target_local * nl + (size_t)origin_local];
}

static void ring(fy_win_t *w, int local)
{
    fy_osc_word_t *b = &w->meta[local].bell;
    atomic_fetch_add(&b->v, 1);
    fy_osc_wake(w, &b->v, &b->sleepers, w->local_rank[local]);
}

static int *copy_ranks(const int *ranks, int n)
{
    int *p = malloc((size_t)(n ? n : 1) * sizeof(int));
    if (p)
        memcpy(p, ranks, (size_t)n * sizeof(int));
    return p;
}

int fy_win_post(const char *fn, fy_win_t *w, const int *ranks, int n, int assert)
{
    (void)assert;
    if (w->post_grp)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: %s already has an exposure epoch from MPI_Win_post (call "
                          "MPI_Win_wait or MPI_Win_test until it ends)",
                          fn, wname(w));
    if (!(w->post_grp = copy_ranks(ranks, n)))
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    w->npost = n;
    atomic_thread_fence(memory_order_seq_cst); /* our stores before the origins' accesses */
    for (int i = 0; i < n; i++) {
        int o = ranks[i];
        if (w->t[o].local >= 0) {
            atomic_fetch_add(posts(w, w->t[o].local, w->mylocal), 1);
            ring(w, w->t[o].local);
        } else {
            int rc = fy_osc_am_post(w, o);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

static uint32_t posted_from(fy_win_t *w, int t)
{
    return w->t[t].local >= 0 ? atomic_load(posts(w, w->mylocal, w->t[t].local))
                              : __atomic_load_n(&w->rposted[t], __ATOMIC_ACQUIRE);
}

static uint32_t completed_from(fy_win_t *w, int o)
{
    return w->t[o].local >= 0 ? atomic_load(dones(w, w->mylocal, w->t[o].local))
                              : __atomic_load_n(&w->rcompleted[o], __ATOMIC_ACQUIRE);
}

static bool all_posted(void *arg)
{
    fy_win_t *w = arg;
    for (int i = 0; i < w->nstart; i++) {
        int t = w->start_grp[i];
        /* Signed: under MPI_MODE_NOCHECK a start consumes a post that may still be on its
         * way (active messages), so the count may trail what was consumed for a while. */
        if ((int32_t)(posted_from(w, t) - w->consumed_post[t]) <= 0)
            return false;
    }
    return true;
}

int fy_win_start(const char *fn, fy_win_t *w, const int *ranks, int n, int assert)
{
    if (w->epoch & (FY_EPOCH_PSCW | FY_EPOCH_LOCK | FY_EPOCH_LOCK_ALL))
        return fy_err_set(MPI_ERR_RMA_SYNC, "%s: %s already has an access epoch open (%s)", fn,
                          wname(w),
                          w->epoch & FY_EPOCH_PSCW ? "MPI_Win_start" : "a passive-target lock");
    free(w->start_grp);
    if (!(w->start_grp = copy_ranks(ranks, n)))
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    w->nstart = n;
    /* MPI_MODE_NOCHECK: the targets promise they have posted already. */
    if (!(assert & MPI_MODE_NOCHECK) && !all_posted(w)) {
        fy_osc_word_t *b = &w->meta[w->mylocal].bell;
        fy_osc_wait(w, &b->v, &b->sleepers, all_posted, w);
    }
    /* Every start matches one post, NOCHECK's too (the target posted, it just need not be
     * waited for), or the next start would take this post for its own. */
    for (int i = 0; i < n; i++) {
        int t = ranks[i];
        w->consumed_post[t]++;
        w->t[t].started = 1;
    }
    w->epoch |= FY_EPOCH_PSCW;
    return MPI_SUCCESS;
}

int fy_win_complete(const char *fn, fy_win_t *w)
{
    if (!(w->epoch & FY_EPOCH_PSCW))
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: no access epoch from MPI_Win_start is open on %s", fn, wname(w));
    int rc = MPI_SUCCESS;
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < w->nstart; i++) {
        int t = w->start_grp[i];
        w->t[t].started = 0;
        if (w->t[t].local >= 0) {
            /* A rank of this host reached by active messages (CMA refused): what was issued to
             * it must land before the count says so. */
            if (w->t[t].reach == FY_REACH_AM) {
                int e = fy_osc_am_flush(w, t);
                if (rc == MPI_SUCCESS)
                    rc = e;
            }
            atomic_fetch_add(dones(w, w->t[t].local, w->mylocal), 1);
            ring(w, w->t[t].local);
        } else {
            int e = fy_osc_am_complete(w, t); /* after the operations issued to t */
            if (rc == MPI_SUCCESS)
                rc = e;
        }
    }
    w->epoch &= ~(unsigned)FY_EPOCH_PSCW;
    return rc;
}

static bool all_done(void *arg)
{
    fy_win_t *w = arg;
    for (int i = 0; i < w->npost; i++) {
        int o = w->post_grp[i];
        if (completed_from(w, o) == w->consumed_done[o])
            return false;
    }
    return true;
}

int fy_win_wait(const char *fn, fy_win_t *w, int *flag, bool block)
{
    if (!w->post_grp)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: no exposure epoch from MPI_Win_post is open on %s", fn, wname(w));
    if (!all_done(w)) {
        if (!block) {
            fy_progress();
            if (!all_done(w)) {
                *flag = 0;
                return MPI_SUCCESS;
            }
        } else {
            fy_osc_word_t *b = &w->meta[w->mylocal].bell;
            fy_osc_wait(w, &b->v, &b->sleepers, all_done, w);
        }
    }
    for (int i = 0; i < w->npost; i++)
        w->consumed_done[w->post_grp[i]]++;
    atomic_thread_fence(memory_order_seq_cst);
    free(w->post_grp);
    w->post_grp = NULL;
    w->npost = 0;
    if (flag)
        *flag = 1;
    return MPI_SUCCESS;
}
