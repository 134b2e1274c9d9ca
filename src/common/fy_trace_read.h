/* The reader of the raw trace files (fy_trace_format.h), shared by ferry-otf2 and `ferry view`.
 *
 * fy_trace_open maps every DIR/ferry/rank.R.fyt read-only, checks its header, and scans it once
 * for what a converter needs before the events: names, communicators, clock syncs, notes, the
 * number of events and the first and last times. A truncated last record (a killed job) ends the
 * file where the last whole record ends, with a note. Events are then read in place, without a
 * copy or an allocation, with fy_trace_next; fy_trace_ns maps a rank's local ticks to the job's
 * global clock (nanoseconds) by its syncs.
 *
 * Names and communicators are numbered globally: a name is a (string, region or not) pair, the
 * same index on every rank; a communicator is its uid, the same index on every member. Per rank,
 * fy_trace_name and fy_trace_comm translate the file's ids to these indexes.
 *
 * Errors: fy_trace_open returns -1 and writes one line to `err` naming the file and the fault;
 * everything it found wrong but could read past (a truncated file, a rank with no file, a rank
 * without syncs) is a note in `notes`. Not thread-safe to open; reading ranks from several
 * threads at once is safe (everything is read-only after open). */
#ifndef FY_TRACE_READ_H
#define FY_TRACE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "fy_trace_format.h"

#define FY_TRACE_NONE UINT32_MAX /* an id the file did not define */

/* The class of an MPI function or region, for colours and OTF2 roles. */
typedef enum fy_trace_class {
    FY_TRACE_P2P,    /* sends, receives, probes */
    FY_TRACE_COLL,   /* collectives, blocking or not */
    FY_TRACE_WAIT,   /* Wait and Test families */
    FY_TRACE_RMA,    /* Put, Get, Accumulate ... */
    FY_TRACE_SYNC,   /* one-sided synchronisation: fences, locks, flushes, PSCW */
    FY_TRACE_OTHER,  /* every other MPI function */
    FY_TRACE_REGION, /* a user region */
    FY_TRACE_NCLASS
} fy_trace_class_t;

typedef struct fy_trace_idmap {
    uint32_t *keys, *vals; /* open addressing; FY_TRACE_NONE marks a free slot */
    uint32_t cap, n;
} fy_trace_idmap_t;

typedef struct fy_trace_sync {
    uint64_t t;
    int64_t ns;
    uint64_t error_ns;
} fy_trace_sync_t;

typedef struct fy_trace_rank {
    int present;                /* 0: no file for this rank (a note says so) */
    const uint8_t *map;         /* the whole file, mapped */
    size_t map_len;
    size_t end;                 /* bytes of whole records */
    const fyt_header_t *hdr;
    int ended;                  /* the file ends with FYT_END */
    int truncated;              /* it ended inside a record */
    uint64_t nevents;           /* ENTER .. REGION_END records */
    uint64_t t_first, t_last;   /* local ticks of the first and last event */
    fy_trace_idmap_t names;     /* file id (MPI function) -> global name index */
    fy_trace_idmap_t regions;   /* file id (region) -> global name index */
    fy_trace_idmap_t comms;     /* file comm index -> global comm index */
    fy_trace_sync_t *syncs;     /* sorted by t */
    int nsyncs;
    /* The clock segment of the last fy_trace_ns call: [seg_lo, seg_hi) in ticks. */
    uint64_t seg_lo, seg_hi, base_t;
    int64_t base_ns;
    double slope;               /* ns per tick */
} fy_trace_rank_t;

typedef struct fy_trace_comm {
    uint64_t uid;
    const fyt_comm_t *def;      /* the first definition seen, in some rank's map */
    uint32_t size, remote_size;
} fy_trace_comm_t;

typedef struct fy_trace_name {
    const char *name;           /* in some rank's map */
    int region;                 /* 1: a user region */
    fy_trace_class_t cls;
} fy_trace_name_t;

typedef struct fy_trace {
    char *dir;
    int nranks;                 /* the world size of the headers */
    fy_trace_rank_t *ranks;     /* [nranks], by world rank */
    fy_trace_name_t *names;
    uint32_t nnames, names_cap;
    fy_trace_comm_t *comms;
    uint32_t ncomms, comms_cap;
    char **notes;               /* FYT_NOTEs ("ranks 0-3: text"), then the reader's own */
    int nnotes, notes_cap;
    char **info;                /* FYT_NOTEs flagged FYT_NOTE_INFO, grouped the same way: for
                                   the archive and the page, not for stderr */
    int ninfo, info_cap;
    struct fy_trace_rnote *rnotes; /* the FYT_NOTEs while reading */
    int nrnotes, rnotes_cap;
    int64_t ns_min, ns_max;     /* global times of the first and last event over all ranks */
    uint64_t nevents;
    uint64_t bytes;             /* total size of the files read */
} fy_trace_t;

/* Opens DIR's raw files. `who` names the command in messages ("ferry-otf2"). */
int fy_trace_open(fy_trace_t *tr, const char *dir, const char *who, char *err, size_t errlen);
void fy_trace_close(fy_trace_t *tr);

/* A record iterator over one rank's events: every record after the header, in file order. */
typedef struct fy_trace_iter {
    const uint8_t *p, *end;
} fy_trace_iter_t;

static inline void fy_trace_iter_init(const fy_trace_rank_t *r, fy_trace_iter_t *it)
{
    it->p = r->map ? r->map + r->hdr->h.len8 * 8u : NULL;
    it->end = r->map ? r->map + r->end : NULL;
}

/* The next record, or NULL at the end. Lengths were checked by fy_trace_open. */
static inline const fyt_head_t *fy_trace_next(fy_trace_iter_t *it)
{
    if (it->p >= it->end)
        return NULL;
    const fyt_head_t *h = (const fyt_head_t *)it->p;
    it->p += (size_t)h->len8 * 8u;
    return h;
}

/* Global nanoseconds of local ticks `t` on rank r (its syncs, linear between them, drift
 * corrected; the last segment's rate beyond). Monotonic in t. Not thread-safe per rank (it
 * caches the segment); use one thread per rank. */
void fy_trace_ns_segment(fy_trace_rank_t *r, uint64_t t);
static inline int64_t fy_trace_ns(fy_trace_rank_t *r, uint64_t t)
{
    if (t < r->seg_lo || t >= r->seg_hi)
        fy_trace_ns_segment(r, t);
    double d = (double)(int64_t)(t - r->base_t) * r->slope;
    return r->base_ns + (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
}

/* The global name index of a file id, or FY_TRACE_NONE. */
uint32_t fy_trace_idmap_get(const fy_trace_idmap_t *m, uint32_t key);
static inline uint32_t fy_trace_name(const fy_trace_rank_t *r, uint32_t id)
{
    return fy_trace_idmap_get(&r->names, id);
}
static inline uint32_t fy_trace_region(const fy_trace_rank_t *r, uint32_t id)
{
    return fy_trace_idmap_get(&r->regions, id);
}
static inline uint32_t fy_trace_comm(const fy_trace_rank_t *r, uint32_t idx)
{
    return fy_trace_idmap_get(&r->comms, idx);
}

/* The rank of world rank `world` in communicator c (its local group, else its remote group), or
 * -1 when it is not a member. */
int fy_trace_comm_rank(const fy_trace_comm_t *c, int world);

fy_trace_class_t fy_trace_classify(const char *mpi_name);
const char *fy_trace_class_name(fy_trace_class_t c);

#endif
