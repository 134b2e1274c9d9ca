/* One-sided communication (MPI windows): the window object, how each target's memory is
 * reached, the operations and the synchronisation. See docs/DESIGN.md, "One-sided
 * communication", and docs/plan-rma.md.
 *
 * Layering: the API entry points (src/api/win*.c) check arguments and call down here; this layer
 * calls down into p2p and coll (collectives on the window's private communicator, active
 * messages) and never up. The library lock (fy_lock) is held by the caller around every call.
 *
 * Reach. Each target rank of a window is reached one of four ways, decided at creation:
 *   SELF    this process: plain loads and stores;
 *   MAPPED  the target's window memory is mapped into this process (Win_allocate,
 *           Win_allocate_shared, Win_create over MPI_Alloc_mem memory of a rank of this host):
 *           plain loads and stores, CPU atomics;
 *   CMA     a rank of this host whose memory is not mappable (Win_create over malloc'd or stack
 *           memory, dynamic windows): single copies with process_vm_readv/writev;
 *   AM      a rank of another host, or CMA refused: active messages served by the target's
 *           progress engine (osc_am.c).
 * Operations on SELF, MAPPED and CMA targets are complete when the call returns, so flushes
 * are memory fences and the target never takes part: passive-target epochs progress while the
 * target computes outside MPI.
 *
 * Shared metadata. The ranks of a window on one host share a small segment (`meta`), made by
 * the host's lowest window rank: per rank, the passive-target lock word, 64 accumulate stripe
 * locks and the table of regions attached to a dynamic window; and the PSCW counters, one per
 * (origin, target) pair of the host. */
#ifndef FY_OSC_H
#define FY_OSC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fy_comm.h"
#include "fy_dtype.h"
#include "fy_request.h"
#include "mpi.h"

enum { FY_REACH_SELF, FY_REACH_MAPPED, FY_REACH_CMA, FY_REACH_AM };

/* Lock states an origin holds on a target (fy_win_target_t.lock). */
enum { FY_WLOCK_NONE, FY_WLOCK_SHARED, FY_WLOCK_EXCL, FY_WLOCK_NOCHECK };

#define FY_OSC_STRIPES 64
#define FY_OSC_DYN_MAX 64 /* regions attached at once to a dynamic window, per rank */

/* One futex-capable word on its own cache line, with a count of sleepers so that releasing it
 * costs a syscall only when someone sleeps. */
typedef struct fy_osc_word {
    _Alignas(64) _Atomic uint32_t v;
    _Atomic uint32_t sleepers;
} fy_osc_word_t;

/* Per rank of the host, in the shared metadata. The lock word: bit 31 a writer, the low bits
 * the readers. Stripes: accumulates that are not CPU atomics take the stripes of the cache
 * lines they touch (line index mod FY_OSC_STRIPES), in ascending order. */
typedef struct fy_osc_rank_meta {
    fy_osc_word_t lock;
    fy_osc_word_t bell; /* bumped by posts and completes addressed to this rank (PSCW) */
    _Alignas(64) _Atomic uint32_t stripe[FY_OSC_STRIPES];
    _Atomic uint32_t stripe_sleepers;
    /* Dynamic windows: regions attached by this rank, guarded by a sequence count (odd while
     * the owner changes them); base is the owner's address. */
    _Alignas(64) _Atomic uint32_t dyn_seq;
    uint32_t dyn_n;
    struct {
        uint64_t base, len;
    } dyn[FY_OSC_DYN_MAX];
} fy_osc_rank_meta_t;

#define FY_OSC_WRITER 0x80000000u

typedef struct fy_win_target {
    char *base;     /* the target's window in this address space (SELF, MAPPED), else NULL */
    uint64_t raddr; /* the target's window base in its own address space */
    MPI_Aint size;
    MPI_Aint disp_unit;
    int world;   /* world rank */
    int local;   /* index among this host's window ranks (meta), -1 on another host */
    int pid;     /* for CMA */
    uint8_t reach;
    /* Every rank of the host maps this target's memory, so accumulates there may be CPU
     * atomics (osc_acc.c); otherwise they all take the stripe locks, the target's own too. */
    uint8_t atomic_ok;
    uint8_t lock;    /* FY_WLOCK_*: what this origin holds on the target */
    uint8_t started; /* in the current PSCW access group */
    uint8_t posted;  /* in the current PSCW exposure group */
} fy_win_target_t;

/* Access epochs this process has open on a window. */
enum { FY_EPOCH_NONE = 0, FY_EPOCH_FENCE = 1, FY_EPOCH_PSCW = 2, FY_EPOCH_LOCK = 4,
       FY_EPOCH_LOCK_ALL = 8 };

typedef struct fy_win {
    MPI_Win handle;
    int flavor; /* MPI_WIN_FLAVOR_* */
    fy_comm_t *comm; /* private duplicate of the user's communicator */
    MPI_Comm user_comm;
    int rank, size;
    void *base; /* this rank's window (MPI_WIN_BASE) */
    MPI_Aint wsize;
    MPI_Aint disp_unit;
    fy_win_target_t *t; /* size entries */
    /* Host-shared state: metadata and, for allocated windows, the data of the host's ranks. */
    fy_osc_rank_meta_t *meta; /* nlocal entries */
    _Atomic uint32_t *pscw;   /* [nlocal * nlocal]: posts (origin-major) then completes */
    void *meta_map;
    size_t meta_len;
    void *seg_map; /* Win_allocate(_shared): the host's data segment */
    size_t seg_len;
    int nlocal, mylocal;
    bool bells; /* the host's window ranks share our shm segment: waits use its doorbells */
    int *local_rank; /* window rank of each local index */
    /* Windows over Alloc_mem memory of peers: their mappings (size entries, NULL when none). */
    void **peer_map;
    size_t *peer_map_len;
    bool own_base; /* base was allocated by this window (freed with it, outside the segment) */
    /* Epochs. */
    unsigned epoch; /* FY_EPOCH_* bits */
    /* Plain stores to target memory not yet fenced (fy_osc_before_loads: why it waits for the
     * next load instead of the flush). */
    bool dirty;
    int nlocks;     /* targets locked with Win_lock */
    int *start_grp; /* window ranks of the PSCW access group (nstart) */
    int nstart;
    int *post_grp; /* window ranks of the exposure group (npost), NULL when none */
    int npost;
    uint32_t *consumed_post; /* per window rank: posts from it consumed by Win_start */
    uint32_t *consumed_done; /* per window rank: completes from it consumed by Win_wait */
    /* Counters the active-message layer bumps for ranks of other hosts. */
    uint32_t *rposted, *rcompleted;
    /* Hints and attributes. */
    bool no_locks, acc_ordering_none, same_size, same_disp_unit;
    int acc_ops;        /* 0 same_op_no_op (default), 1 same_op */
    void *info;         /* fy_info_t of hints as given (Win_get_info adds Ferry's values) */
    void *attrs;
    /* What the predefined attributes point at (MPI_WIN_DISP_UNIT, _CREATE_FLAVOR, _MODEL are
     * int *, MPI_WIN_SIZE an MPI_Aint *). */
    int attr_disp_unit, attr_flavor, attr_model;
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    void *am; /* osc_am.c's per-window state, NULL when no target is AM */
    /* Scratch for derived-type operations, reused (no allocation per operation once warm). */
    void *scratch[3];
    size_t scratch_len[3];
} fy_win_t;

/* ---- window table (osc_win.c) ---------------------------------------------------------- */
/* The live windows by handle index (osc_win.c). */
extern fy_win_t **fy_win_table;
extern unsigned fy_win_table_cap;
/* NULL when not a live window. Inline: every one-sided call starts here. */
static inline fy_win_t *fy_win_get(MPI_Win h)
{
    uint32_t u = (uint32_t)h;
    if ((u >> 26) != ((2u << 4) | 0x8u)) /* kind DIRECT, class WIN (fy_handle.h) */
        return NULL;
    u &= 0x3ffffffu;
    return u < fy_win_table_cap ? fy_win_table[u] : NULL;
}

/* Creation. The API layer has made `comm` (a private duplicate, taken over: released on
 * failure) and parsed nothing else. For ALLOCATE/SHARED, *base_p receives the memory. Every
 * member calls it (it is collective). info may be NULL. */
int fy_win_create(const char *fn, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                  void *info, fy_comm_t *comm, MPI_Comm user_comm, void **base_p,
                  fy_win_t **w_p);
/* Collective; checks no epoch is open first (MPI_ERR_RMA_SYNC). */
int fy_win_free(const char *fn, fy_win_t *w);
void fy_win_fini(void);
int fy_win_attach(const char *fn, fy_win_t *w, void *base, MPI_Aint size);
int fy_win_detach(const char *fn, fy_win_t *w, const void *base);
/* Win_shared_query: rank may be MPI_PROC_NULL. */
int fy_win_shared_query(const char *fn, fy_win_t *w, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void **base_p);
/* Scratch buffer k (0..2) of at least len bytes, NULL when out of memory. */
void *fy_win_scratch(fy_win_t *w, int k, size_t len);
/* "window \"name\"" or "window 0x...", for messages (a buffer per thread, overwritten by the
 * next call). */
const char *fy_win_text(const fy_win_t *w);

/* ---- the fast paths (inline: the common case in a few compares) --------------------------- */

/* A full fence: stores before it are visible to every process before loads after it. On x86 a
 * locked instruction on the stack does it for less than mfence. */
static inline void fy_osc_fence(void)
{
#if defined(__x86_64__)
    __asm__ volatile("lock; orl $0, (%%rsp)" ::: "memory", "cc");
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Takes a lock word that is free (0) by setting it to `to`: false when it is not free. A load
 * first, so waiters polling a held word do not bounce its cache line. */
static inline bool fy_osc_take0(_Atomic uint32_t *v, uint32_t to)
{
    uint32_t z = 0;
    return atomic_load_explicit(v, memory_order_relaxed) == 0 &&
           atomic_compare_exchange_strong(v, &z, to);
}

/* Completion of plain stores to mapped memory. A store is in the memory system when it leaves
 * this CPU's store buffer, and x86 lets a store wait there behind later loads but never behind
 * later stores (TSO): whatever this process tells a peer after a flush (a message, an unlock,
 * a post: stores or locked instructions) is seen after the data. Only a later *load* of target
 * memory by this process could pass the data (P0: Put x, flush, Get y; P1: Put y, flush, Get
 * x must not both read the old values). So on x86 a flush fences nothing, and the fence is
 * paid once by the next operation that loads (Get, a fetching NO_OP, Win_sync) while stores
 * are pending; elsewhere the flush fences. */
#if defined(__x86_64__)
#define FY_OSC_FLUSH_FENCES 0
#else
#define FY_OSC_FLUSH_FENCES 1
#endif
static inline void fy_osc_before_loads(fy_win_t *w)
{
    if (w->dirty) {
        fy_osc_fence();
        w->dirty = false;
    }
}

/* Whether an access epoch covers target t (the request forms need more: see osc_ops.c). */
static inline bool fy_win_epoch_covers(const fy_win_t *w, const fy_win_target_t *t)
{
    return (w->epoch & (FY_EPOCH_FENCE | FY_EPOCH_LOCK_ALL)) || t->lock != FY_WLOCK_NONE ||
           ((w->epoch & FY_EPOCH_PSCW) && t->started);
}

/* Put or Get of contiguous predefined-layout data to a target this process maps, inside an
 * epoch and inside the window: done here and true; false sends the call the slow way (which
 * also explains every error). */
static inline bool fy_rma_copy_fast(fy_win_t *w, bool get, void *obuf, MPI_Aint ocount,
                                    const fy_dtype_t *od, int target, MPI_Aint disp,
                                    MPI_Aint tcount, const fy_dtype_t *td)
{
    if (!w || !od || !td || !od->contig || !td->contig || !od->committed || !td->committed ||
        (unsigned)target >= (unsigned)w->size || ocount < 0 || disp < 0 ||
        w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        return false;
    fy_win_target_t *t = &w->t[target];
    size_t bytes = (size_t)od->size * (size_t)ocount;
    uint64_t off = (uint64_t)disp * (uint64_t)t->disp_unit;
    if (t->reach > FY_REACH_MAPPED || bytes != (size_t)td->size * (size_t)tcount || tcount < 0 ||
        !fy_win_epoch_covers(w, t) || off + (uint64_t)td->true_lb + bytes > (uint64_t)t->size ||
        (td->true_lb < 0 && (uint64_t)-td->true_lb > off))
        return false;
    char *tb = t->base + off + td->true_lb, *ob = (char *)obuf + od->true_lb;
    if (get) {
        fy_osc_before_loads(w);
        memmove(ob, tb, bytes);
    } else {
        memmove(tb, ob, bytes);
        w->dirty = true;
    }
    return true;
}

/* ---- operations (osc_ops.c, osc_acc.c) ------------------------------------------------- */
enum { FY_RMA_PUT, FY_RMA_GET, FY_RMA_ACC, FY_RMA_GACC, FY_RMA_FOP, FY_RMA_CAS };

typedef struct fy_rma_op {
    int kind;
    const char *fn;
    const void *obuf; /* PUT/ACC/GACC/FOP/CAS: origin data; GET: NULL */
    MPI_Aint ocount;
    const fy_dtype_t *odt;
    void *rbuf; /* GET: where data lands; GACC/FOP/CAS: result */
    MPI_Aint rcount;
    const fy_dtype_t *rdt;
    const void *cbuf; /* CAS: compare value */
    int target;       /* window rank */
    MPI_Aint toff; /* the target displacement as given; fy_osc_am_issue receives it turned
                      into bytes from the target's base (dynamic windows: the address) */
    MPI_Aint tcount;
    const fy_dtype_t *tdt;
    MPI_Op op;
    fy_req_t *req; /* request forms: completed when the operation is (NULL otherwise) */
} fy_rma_op_t;

/* Checks the epoch, the target range and the types, then does or issues the operation.
 * MPI_SUCCESS or the error class with the message written. */
int fy_rma_issue(fy_win_t *w, fy_rma_op_t *op);

/* Accumulate machinery (osc_acc.c). */
/* Whether elements of kind k are updated with CPU atomics on mapped memory. */
bool fy_acc_atomic_kind(fy_basic_t k);
/* Whether Compare_and_swap takes elements of kind k (integers, logicals, bytes). */
bool fy_acc_cas_kind(fy_basic_t k);
/* The predefined type of one element of kind k (pair kinds: the pair type). */
const fy_dtype_t *fy_acc_basic_type(fy_basic_t k);
/* Applies op to n elements of predefined type b at tgt (mapped, this address space) with CPU
 * atomics: old values to `old` (may be NULL), operands from `in` (NULL for NO_OP); CAS when
 * cmp != NULL. */
void fy_acc_atomic(MPI_Op op, const fy_dtype_t *b, void *tgt, const void *in, void *old,
                   const void *cmp, size_t n);
/* Fetch_and_op and Compare_and_swap (cmp non-NULL) of one element to a target this process maps,
 * inside an epoch and the window, as a CPU atomic: true when done (false: take the slow way). */
bool fy_rma_atomic_fast(fy_win_t *w, const void *in, void *out, const void *cmp,
                        const fy_dtype_t *d, int target, MPI_Aint disp, MPI_Op op);
/* The same for Accumulate and Get_accumulate of n elements of one predefined type on both
 * sides (out: the fetched values, or NULL), up to FY_ACC_FAST_MAX elements. */
#define FY_ACC_FAST_MAX 4096
bool fy_rma_acc_fast(fy_win_t *w, const void *in, void *out, const void *cmp, MPI_Aint n,
                     const fy_dtype_t *d, int target, MPI_Aint disp, MPI_Op op);
/* Stripe locks of target t for bytes [lo, hi) of its window. While this process holds or
 * waits for stripes (fy_osc_acc_held > 0), the progress it makes runs no active message: one
 * could wait for a stripe held further up its own stack. */
extern int fy_osc_acc_held;
void fy_acc_lock(fy_win_t *w, int t, uint64_t lo, uint64_t hi);
void fy_acc_unlock(fy_win_t *w, int t, uint64_t lo, uint64_t hi);
/* Packed-stream accumulate: inout[i] = in[i] op inout[i] over n elements of b, both buffers
 * packed streams (pair types converted through their in-memory layout). */
int fy_acc_streams(MPI_Op op, const fy_dtype_t *b, const void *in, void *inout, size_t n,
                   fy_win_t *w);

/* Direct accumulates (SELF, MAPPED, CMA targets); off in bytes as for fy_osc_am_issue. */
int fy_osc_acc_direct(fy_win_t *w, fy_rma_op_t *op, int64_t off);
/* CMA helpers (osc_ops.c): the runs of `count` elements of d at the target address raddr as
 * iovecs (in scratch slot 2), and a transfer between them and a contiguous local buffer. */
struct iovec;
int fy_osc_runs(fy_win_t *w, const fy_dtype_t *d, MPI_Aint count, uint64_t raddr,
                struct iovec **v_p, size_t *n_p);
int fy_osc_cma(int pid, int write, void *local, struct iovec *v, size_t n);

/* ---- synchronisation (osc_sync.c) ------------------------------------------------------ */
int fy_win_fence(const char *fn, fy_win_t *w, int assert);
int fy_win_lock(const char *fn, fy_win_t *w, int type, int rank, int assert);
int fy_win_unlock(const char *fn, fy_win_t *w, int rank);
int fy_win_lock_all(const char *fn, fy_win_t *w, int assert);
int fy_win_unlock_all(const char *fn, fy_win_t *w);
/* rank -1: every target. local: flush_local (only origin buffers reusable). */
int fy_win_flush(const char *fn, fy_win_t *w, int rank, bool local);
int fy_win_sync(const char *fn, fy_win_t *w);
int fy_win_post(const char *fn, fy_win_t *w, const int *ranks, int n, int assert);
int fy_win_start(const char *fn, fy_win_t *w, const int *ranks, int n, int assert);
int fy_win_complete(const char *fn, fy_win_t *w);
int fy_win_wait(const char *fn, fy_win_t *w, int *flag, bool block);

/* The lock word of window rank t of this host (osc_am.c takes it for origins of other hosts);
 * held is FY_WLOCK_SHARED or FY_WLOCK_EXCL. try: false when it cannot be taken now. */
bool fy_osc_lock_try(fy_win_t *w, int t, int held);
void fy_osc_lock_wait(fy_win_t *w, int t, int held);
void fy_osc_lock_release(fy_win_t *w, int t, int held);

/* Waiting on a word of shared metadata until pred(arg) holds (pred only looks, it may be called
 * again after it held), making progress (active messages
 * for others) meanwhile; and waking its waiters after changing it: the rank `who` (a window
 * rank), or -1 for all of the host's (osc_sync.c explains the two ways). */
void fy_osc_wait(fy_win_t *w, _Atomic uint32_t *word, _Atomic uint32_t *sleepers,
                 bool (*pred)(void *), void *arg);
void fy_osc_wake(fy_win_t *w, _Atomic uint32_t *word, _Atomic uint32_t *sleepers, int who);

/* ---- active messages (osc_am.c) -------------------------------------------------------- */
int fy_osc_am_init(fy_win_t *w);
void fy_osc_am_fini(fy_win_t *w);
int fy_osc_am_issue(fy_win_t *w, fy_rma_op_t *op);
int fy_osc_am_lock(fy_win_t *w, int t, int type);
int fy_osc_am_unlock(fy_win_t *w, int t);
/* Waits until every operation issued to t (-1: all AM targets) is complete at the target. */
int fy_osc_am_flush(fy_win_t *w, int t);
/* PSCW notifications to ranks of other hosts: a post from us to origin o, a complete to
 * target t; the receiving side bumps w->rposted[us] / w->rcompleted[us]. */
int fy_osc_am_post(fy_win_t *w, int o);
int fy_osc_am_complete(fy_win_t *w, int t);

#endif
