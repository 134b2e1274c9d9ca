/* libferry_prof.so, the recorder: what its files share.
 *
 * Each wrapper (generated: prof_gen.c; by hand: prof_req.c, prof_core.c) brackets its PMPI call
 * with prof_enter and prof_leave, which read the clock once each, add to the per-function
 * statistics (array-indexed by function id) and the call-site table, keep prof_live current for
 * the monitor and, when a trace is recorded, append ENTER and LEAVE records to the rank's
 * current trace chunk (prof_trace.c). Between them the wrapper may record what the call carries:
 * a message (prof_send, prof_recv), a collective (prof_coll_begin/end), a one-sided operation.
 *
 * Threads: the statistics and the trace belong to the thread that called MPI_Init. Under
 * MPI_THREAD_MULTIPLE the statistics are updated under a spin lock by every thread and only
 * that thread's calls are traced (a trace has one timeline per rank). */
#ifndef PROF_H
#define PROF_H

#include "fy_trace_format.h"
#include "mpi.h"
#include "prof_ids.h"
#include "prof_live.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <x86intrin.h>

#define PROF_RA() __builtin_return_address(0)
#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum prof_class { PROF_CLASS_OTHER, PROF_CLASS_P2P, PROF_CLASS_COLL, PROF_CLASS_RMA };
extern const char *const prof_names[PROF_NFUNCS];
extern const uint8_t prof_class[PROF_NFUNCS];

/* ---- The clock (prof_clock.c) ---- */
extern bool prof_use_tsc;
static inline __attribute__((always_inline)) uint64_t prof_now_ticks(void)
{
    if (PROF_LIKELY(prof_use_tsc))
        return __rdtsc();
    return prof_ticks();
}
void prof_clock_init(void);

/* ---- State ---- */
#define PROF_NBUCKETS 40 /* 0, 1-64, 65-128, ... 2^(k+5)+1 - 2^(k+6) */

typedef struct prof_stat {
    uint64_t count, ticks, min, max, bytes;
} prof_stat_t;

typedef struct prof_bucket {
    uint64_t count, bytes;
} prof_bucket_t;

typedef struct prof_state {
    /* Read by every wrapper: one cache line. */
    _Atomic int on;        /* between MPI_Init and MPI_Finalize (and not paused by Pcontrol 0) */
    _Atomic int rec;       /* the trace records now (trace mode, this rank, not capped/failed) */
    int mt;                /* MPI_THREAD_MULTIPLE was granted */
    int sites;             /* call sites are kept */
    uint64_t win_lo, win_hi; /* --trace-window in ticks */
    /* The rest. */
    int profile;           /* a profile is written at MPI_Finalize */
    int trace;             /* --trace DIR given */
    int rank, size;
    int traced_rank;       /* this rank is in --trace-ranks */
    int paused;            /* MPI_Pcontrol(0) */
    int capped;            /* the size cap stopped the trace */
    int finalized;
    uint64_t t_init, t_final; /* ticks at the end of MPI_Init, the start of MPI_Finalize */
    char dir[4096];        /* the trace directory */
    char program[128];
    char host[64];
    MPI_Comm pcomm;        /* the recorder's own duplicate of MPI_COMM_WORLD */
    int64_t cap_rank;      /* --trace-max's share of this rank, bytes */
    int nwarn_req;         /* requests not tracked: the table was full */
    uint64_t ncoll_dropped; /* collective instances past the imbalance table's cap */
} __attribute__((aligned(64))) prof_state_t;

extern prof_state_t prof_g;
extern prof_stat_t prof_stats[PROF_NFUNCS];
extern prof_bucket_t (*prof_buckets)[PROF_NBUCKETS]; /* [PROF_NFUNCS], allocated at init */
extern uint8_t prof_sel[PROF_NFUNCS]; /* --trace-calls: this function is traced */
extern _Thread_local int prof_main_thread;
extern atomic_flag prof_lock_flag;

static inline void prof_lock(void)
{
    while (atomic_flag_test_and_set_explicit(&prof_lock_flag, memory_order_acquire))
        _mm_pause();
}
static inline void prof_unlock(void)
{
    atomic_flag_clear_explicit(&prof_lock_flag, memory_order_release);
}

/* ---- The trace buffer (prof_trace.c) ---- */
typedef struct prof_tbuf {
    uint8_t *pos, *end;    /* the current chunk's free space */
    uint8_t *base;         /* the current chunk's start */
    _Atomic size_t *used;  /* its length as the writer thread may read it */
    int64_t left;          /* bytes this rank may still record before the cap */
} prof_tbuf_t;
extern prof_tbuf_t prof_tb;

/* Room kept below the cap for the records that close what is open (LEAVE, REGION_END, the
 * cap's note, END): recording stops cleanly. */
#define PROF_RESERVE 8192

bool prof_put_slow(const void *rec, size_t n, bool closing);

/* The writer thread copies to the file what is published (a plain store on x86). */
static inline void prof_publish(void)
{
    atomic_store_explicit(prof_tb.used, (size_t)(prof_tb.pos - prof_tb.base), memory_order_release);
}

/* Appends one record (n a multiple of 8); closing records may use the reserve. false: not
 * recorded (the cap was reached or the trace failed). */
static inline __attribute__((always_inline)) bool prof_put(const void *rec, size_t n, bool closing)
{
    if (PROF_UNLIKELY(prof_tb.pos + n > prof_tb.end) ||
        PROF_UNLIKELY(!closing && prof_tb.left < (int64_t)n + PROF_RESERVE))
        return prof_put_slow(rec, n, closing);
    memcpy(prof_tb.pos, rec, n);
    /* The chunk's lines are cold (the writer thread read them last): ask for them early. A
     * prefetch past the chunk's end does no harm. */
    __builtin_prefetch(prof_tb.pos + 512, 1, 0);
    prof_tb.pos += n;
    prof_tb.left -= (int64_t)n;
    prof_publish();
    return true;
}

static inline __attribute__((always_inline)) bool prof_ev(int type, uint32_t id, uint64_t t, bool closing)
{
    fyt_ev_t e = {.h = {.type = (uint8_t)type, .len8 = sizeof(fyt_ev_t) / 8, .id = id}, .t = t};
    return prof_put(&e, sizeof e, closing);
}

int prof_trace_open(void);
void prof_trace_close(void);
void prof_trace_note(uint64_t t, int flags, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void prof_trace_sync(uint64_t t, int64_t global_ns, uint64_t err, int flags);
void prof_trace_comm(uint32_t idx, uint64_t uid, int size, int rsize, const int *world, const int *rworld);
void prof_trace_flush_atexit(void);
void prof_trace_region_name(uint32_t id, const char *name);

/* ---- Call sites (prof_core.c) ---- */
#define PROF_SITE_SLOTS 4096
typedef struct prof_site {
    const void *ra;
    int id;
    uint64_t count, ticks, max;
} prof_site_t;
extern prof_site_t prof_sites[PROF_SITE_SLOTS];
void prof_site_add(const void *ra, int id, uint64_t d);

static inline size_t prof_site_hash(const void *ra, int id)
{
    return (size_t)((((uintptr_t)ra >> 2) * 0x9E3779B97F4A7C15ull + (uint64_t)id) >> 52);
}

/* The common case inline: the site is in its first slot. */
static inline __attribute__((always_inline)) void prof_site(const void *ra, int id, uint64_t d)
{
    prof_site_t *s = &prof_sites[prof_site_hash(ra, id)];
    if (PROF_LIKELY(s->ra == ra && s->id == id)) {
        s->count++;
        s->ticks += d;
        if (d > s->max)
            s->max = d;
        return;
    }
    prof_site_add(ra, id, d);
}

/* ---- A call ---- */
typedef struct prof_frame {
    uint64_t t0, t1;  /* t0 0: not recorded (outside Init..Finalize, or paused) */
    uint64_t bytes;   /* for the size buckets and the per-call bytes */
    const void *ra;
    int id;
    bool rec;         /* its ENTER is in the trace: so will its LEAVE and its events be */
    bool counted;     /* bytes set */
    int prev;         /* prof_live.call before it (a call made from a callback inside MPI) */
    int root;         /* a collective's root (world rank), for its COLL_END */
} prof_frame_t;

static inline __attribute__((always_inline)) void prof_enter(prof_frame_t *f, int id, const void *ra)
{
    f->id = id;
    f->rec = false;
    if (PROF_UNLIKELY(!atomic_load_explicit(&prof_g.on, memory_order_relaxed))) {
        f->t0 = 0;
        return;
    }
    uint64_t t = prof_now_ticks();
    f->t0 = t;
    f->ra = ra;
    f->bytes = 0;
    f->counted = false;
    f->prev = atomic_load_explicit(&prof_live.call, memory_order_relaxed);
    atomic_store_explicit(&prof_live.call, id, memory_order_relaxed);
    atomic_store_explicit(&prof_live.call_since, t, memory_order_relaxed);
    if (atomic_load_explicit(&prof_g.rec, memory_order_relaxed) && prof_sel[id] &&
        t >= prof_g.win_lo && t < prof_g.win_hi && (!prof_g.mt || prof_main_thread))
        f->rec = prof_ev(FYT_ENTER, (uint32_t)id, t, false);
}

static inline void prof_now(prof_frame_t *f)
{
    if (f->t0)
        f->t1 = prof_now_ticks();
}

void prof_leave_bytes(prof_frame_t *f, uint64_t d);

static inline __attribute__((always_inline)) void prof_leave(prof_frame_t *f)
{
    if (PROF_UNLIKELY(!f->t0))
        return;
    uint64_t d = f->t1 - f->t0;
    if (f->rec)
        prof_ev(FYT_LEAVE, (uint32_t)f->id, f->t1, true);
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    prof_stat_t *s = &prof_stats[f->id];
    s->count++;
    s->ticks += d;
    if (d < s->min)
        s->min = d;
    if (d > s->max)
        s->max = d;
    if (PROF_UNLIKELY(f->counted))
        prof_leave_bytes(f, d);
    if (prof_g.sites)
        prof_site(f->ra, f->id, d);
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    atomic_store_explicit(&prof_live.mpi_ticks,
                          atomic_load_explicit(&prof_live.mpi_ticks, memory_order_relaxed) + d,
                          memory_order_relaxed);
    atomic_store_explicit(&prof_live.calls,
                          atomic_load_explicit(&prof_live.calls, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&prof_live.call, f->prev, memory_order_relaxed);
}

/* ---- Communicators and windows (prof_comm.c) ---- */
typedef struct prof_comm {
    MPI_Comm h;
    uint32_t idx;     /* FYT_COMM index in this rank's file */
    uint64_t uid;     /* equal on every member */
    int rank, size, rsize, inter;
    int *world;       /* size world ranks, then rsize of the remote group */
    uint32_t coll_seq; /* blocking collectives begun on it */
    uint64_t idups;    /* MPI_Comm_idup calls on it */
} prof_comm_t;

prof_comm_t *prof_comm_get(MPI_Comm c);
void prof_comm_init(void);
void prof_comm_new(MPI_Comm c, int collective);
void prof_comm_free(MPI_Comm c);
void prof_comm_idup(MPI_Comm parent, MPI_Comm *newcomm, MPI_Request r);
void prof_comm_idup_done(MPI_Comm newcomm, uint64_t uid);
void prof_req_idup(MPI_Request r, MPI_Comm *newcomm, uint64_t uid);
static inline int prof_world_of(const prof_comm_t *pc, int r)
{
    if (pc == NULL || r < 0)
        return -1;
    if (pc->inter)
        return r < pc->rsize ? pc->world[pc->size + r] : -1;
    return r < pc->size ? pc->world[r] : -1;
}
int prof_root_world(const prof_comm_t *pc, int root);
void prof_win_new(MPI_Win w);
void prof_win_free(MPI_Win w);
bool prof_win_target(MPI_Win w, int target, uint32_t *num, int *world);
void prof_neighbors(MPI_Comm c, int *in, int *out);

/* ---- Messages (prof_msg.c) ---- */
uint64_t prof_tsize_slow(MPI_Datatype t);
/* A datatype's size. The predefined types of the MPICH ABI (mpi.h) hold theirs in the handle
 * (0x4c00SSxx: SS bytes), which saves a call into libmpi per message. */
static inline uint64_t prof_tsize(MPI_Datatype t)
{
    if (PROF_LIKELY(((unsigned)t >> 24) == 0x4cu))
        return ((unsigned)t >> 8) & 0xffu;
    return prof_tsize_slow(t);
}
/* The bytes a status says arrived (mpi.h: count_lo and the low 31 bits of
 * count_hi_and_cancelled), and whether it was cancelled (the top bit). */
static inline uint64_t prof_status_bytes(const MPI_Status *st)
{
    return (uint64_t)(uint32_t)st->count_lo |
           ((uint64_t)((uint32_t)st->count_hi_and_cancelled & 0x7fffffffu) << 32);
}
static inline bool prof_status_cancelled(const MPI_Status *st)
{
    return ((uint32_t)st->count_hi_and_cancelled & 0x80000000u) != 0;
}
uint64_t prof_sum_i(const int *a, int n);
uint64_t prof_sum_c(const MPI_Count *a, int n);
uint64_t prof_wsum_i(const int *a, const MPI_Datatype *t, int n);
uint64_t prof_wsum_c(const MPI_Count *a, const MPI_Datatype *t, int n);
void prof_send_rec(prof_frame_t *f, uint64_t bytes, int dest, int tag, MPI_Comm comm, int nb);
static inline void prof_send(prof_frame_t *f, MPI_Count count, MPI_Datatype type, int dest,
                             int tag, MPI_Comm comm, int nb)
{
    if (f->t0 && dest != MPI_PROC_NULL)
        prof_send_rec(f, (uint64_t)count * prof_tsize(type), dest, tag, comm, nb);
}
void prof_recv(prof_frame_t *f, const MPI_Status *st, prof_comm_t *pc, int nb);
void prof_req_recv(MPI_Request r, prof_comm_t *pc, int id, int persistent);
void prof_req_psend(MPI_Request r, MPI_Count count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm);
void prof_req_done(prof_frame_t *f, MPI_Request r, const MPI_Status *st);
void prof_req_started(prof_frame_t *f, MPI_Request r);
void prof_req_forget(MPI_Request r);
extern int prof_nreq; /* requests followed now */
void prof_msg_track(MPI_Message m, MPI_Comm comm);
prof_comm_t *prof_msg_take(MPI_Message m);
void prof_matrix_add(int world_dest, uint64_t bytes);
extern uint64_t *prof_mat_bytes, *prof_mat_msgs; /* [size]: this rank's row */

/* ---- Collectives (prof_coll.c) ---- */
void prof_coll_begin(prof_frame_t *f, prof_comm_t *pc, int root_world, uint64_t sent,
                     uint64_t recvd, int blocking);
void prof_coll_end(prof_frame_t *f, prof_comm_t *pc, uint64_t sent, uint64_t recvd);
void prof_rma(prof_frame_t *f, MPI_Win w, int target, uint64_t bytes);

/* Instances of blocking collectives, for the load imbalance (exchanged at MPI_Finalize). */
typedef struct prof_inst {
    uint64_t uid;
    uint64_t t;      /* entry, local ticks (global ns after prof_coll_globalize) */
    uint32_t seq;
    uint16_t id;
    uint16_t members; /* comm size, capped at 65535 */
} prof_inst_t;
extern prof_inst_t *prof_inst;
extern size_t prof_ninst, prof_cap_inst;

/* ---- Clock alignment (prof_sync.c) ---- */
/* Collective over prof_g.pcomm: rank 0's clock pair with every rank. Returns this rank's
 * (local ticks, global ns, error ns). */
void prof_sync(uint64_t *t, int64_t *global_ns, uint64_t *err);
/* Local ticks to global ns by the init and final pairs (after both were taken). */
int64_t prof_to_global(uint64_t t);
extern uint64_t prof_sync_t[2];
extern int64_t prof_sync_ns[2];

/* ---- The profile (prof_report.c) ---- */
void prof_report(void);

/* ---- Options (prof_opts.c) ---- */
int prof_opts_read(void);

/* ---- The monitor: prof_monitor.h (started after MPI_Init, stopped in MPI_Finalize) ---- */
#include "prof_monitor.h"

#endif
