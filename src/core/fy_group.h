/* Process groups: ordered sets of world ranks, kept as runs.
 *
 * A group is the sequence of world ranks of its members in group-rank order, cut into RUNS:
 * arithmetic progressions (first, count, stride). MPI_COMM_WORLD's group is one run, whatever
 * the world size; a range or a strided subset of it is one run; "world minus one rank" is two.
 * Memory is a small header plus 16 bytes per run (24 with the reverse index below).
 *
 * Runs are canonical: a group is always cut exactly as appending its members one by one would
 * cut it, where a member extends the last run when it continues that run's stride (a run of one
 * member takes any stride from the next member). So two groups list the same ranks in the same
 * order exactly when their runs are equal, which is how fy_group_compare decides MPI_IDENT.
 * Greedy cutting is not always minimal (5 0 1 2 3 4 is cut 5 0 | 1 2 3 4), but ranges and
 * strides, the common cases, are one run each.
 *
 * Lookups: group rank -> world rank is a binary search over the runs' first group ranks
 * (O(1) for one run). World rank -> group rank scans the runs when there are at most
 * FY_GROUP_SCAN_RUNS, otherwise it uses an index built with the group: runs ordered by their
 * lowest world rank with a running maximum of their highest, so runs that occupy disjoint
 * stretches of the world are found by binary search. Bulk questions (set operations,
 * translate_ranks) over groups whose runs interleave use a temporary dense map instead.
 *
 * Lifetime: groups are reference counted. An MPI handle holds one reference (the table entry);
 * whatever else keeps a group (a communicator, a request) takes its own with fy_group_ref, so
 * MPI_Group_free of the handle only drops the handle's reference. Every live group is on a
 * list and fy_group_fini (MPI_Finalize) frees them all. MPI_GROUP_EMPTY is a static group that
 * is never freed; every empty result is that group.
 *
 * Locking: none inside; the API layer holds fy_lock() around every call that creates, frees or
 * looks up groups by handle (the handle table may grow). Lookups on a group object the caller
 * holds a reference to need no lock: a group never changes after it is built.
 *
 * Errors: functions that can fail take the MPI function name `fn` for the message, return an
 * MPI error class with the message set (fy_err_set), and set their outputs only on success.
 */
#ifndef FY_GROUP_H
#define FY_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "mpi.h"

struct fy_comm;

/* Members start .. start + count - 1 are world ranks first, first + stride, ... A run of one
 * member has stride 1. */
typedef struct fy_group_run {
    int first;  /* world rank of the run's first member */
    int count;  /* members, >= 1 */
    int stride; /* world-rank step between consecutive members, != 0 (may be negative) */
    int start;  /* group rank of the first member (prefix sum of the counts before) */
} fy_group_run_t;

/* Above this many runs, reverse lookups use the index instead of scanning. */
#define FY_GROUP_SCAN_RUNS 8

typedef struct fy_group {
    MPI_Group handle; /* MPI_GROUP_NULL while no handle names it */
    int refs;
    int size; /* members */
    int rank; /* this process's rank in the group, or MPI_UNDEFINED */
    int nruns;
    MPI_Session session; /* the session whose process set this group is, 0 when none (its
                            communicators use that session's buffer for buffered sends) */
    int disjoint; /* the runs' world-rank spans [lo, hi] do not overlap (index lookups are
                     O(log nruns)); always 1 without an index */
    int *by_lo;   /* nruns > FY_GROUP_SCAN_RUNS: run indices ordered by lowest world rank */
    int *hi_max;  /* ... and the running maximum of the highest world rank along that order */
    struct fy_group *prev, *next; /* all live groups, for fy_group_fini */
    fy_group_run_t runs[];        /* nruns runs, then the index, in the same allocation */
} fy_group_t;

/* ---- handles ------------------------------------------------------------------------------ */

extern fy_group_t fy_group_empty; /* MPI_GROUP_EMPTY */
extern fy_group_t **fy_group_table;
extern unsigned fy_group_table_cap;

/* The group a handle names, or NULL (MPI_GROUP_NULL, freed or not a group handle). */
static inline fy_group_t *fy_group_get(MPI_Group h)
{
    uint32_t u = (uint32_t)h;
    if (h == MPI_GROUP_EMPTY)
        return &fy_group_empty;
    if ((u >> 26) == ((2u << 4) | 0x2u) && (u & 0x3ffffffu) < fy_group_table_cap)
        return fy_group_table[u & 0x3ffffffu];
    return NULL;
}

/* Gives g a handle (g->handle); the handle owns one of the caller's references. The empty
 * group already has one (MPI_GROUP_EMPTY). */
int fy_group_register(const char *fn, fy_group_t *g);
/* MPI_Group_free: the handle stops naming g and its reference is released. */
void fy_group_free_handle(fy_group_t *g);

/* ---- lifetime ----------------------------------------------------------------------------- */

static inline fy_group_t *fy_group_ref(fy_group_t *g)
{
    if (g != &fy_group_empty)
        g->refs++;
    return g;
}
/* Drops one reference; the last one frees the group. */
void fy_group_release(fy_group_t *g);
/* MPI_Finalize: frees every group still alive, whoever held it. */
void fy_group_fini(void);
/* Groups alive now (not counting MPI_GROUP_EMPTY), for tests and leak checks. */
unsigned fy_group_live(void);
/* Bytes g occupies (header, runs and index), for tests and diagnostics. */
size_t fy_group_bytes(const fy_group_t *g);

/* ---- building ----------------------------------------------------------------------------- */

/* Appends world ranks one at a time or a run at a time (same result either way: see the
 * canonical runs above). Members must be distinct world ranks; the builder does not check. */
typedef struct fy_group_builder {
    fy_group_run_t *runs;
    int nruns, cap;
    int size;
    int failed; /* an allocation failed: finish reports it */
} fy_group_builder_t;

void fy_group_builder_init(fy_group_builder_t *b);
void fy_group_builder_add(fy_group_builder_t *b, int world_rank);
/* world ranks first, first + stride, ... (count of them; stride is ignored when count is 1). */
void fy_group_builder_add_run(fy_group_builder_t *b, int first, int count, int stride);
/* Members start, start + step, ... (count of them) of group g, as world ranks. */
void fy_group_builder_add_ranks(fy_group_builder_t *b, const fy_group_t *g, int start, int count,
                                int step);
/* The group built (one reference for the caller; &fy_group_empty when empty). The builder is
 * emptied either way. */
int fy_group_builder_finish(const char *fn, fy_group_builder_t *b, fy_group_t **g_p);
void fy_group_builder_discard(fy_group_builder_t *b);

/* A group from distinct world ranks, in order (n == 0 gives the empty group). */
int fy_group_from_world_list(const char *fn, const int *world, int n, fy_group_t **g_p);
/* The group of a rank map: member r is world rank world_of[r] (world_of NULL: r). */
int fy_group_from_map(const char *fn, int size, const int *world_of, fy_group_t **g_p);
/* The (local) group of communicator c: fy_group_from_map(c->size, c->world_of). For an
 * intercommunicator's remote group use fy_group_from_map(c->peer_size, c->peer_world_of). */
int fy_group_from_comm(const char *fn, const struct fy_comm *c, fy_group_t **g_p);
/* The rank map of a communicator whose members are g's, in g's order: NULL in *world_of_p
 * when g is all of world in world order (fy_comm_t's identity) or empty, else a malloc'd
 * array of g->size world ranks. */
int fy_group_world_of(const char *fn, const fy_group_t *g, int **world_of_p);

/* ---- lookups ------------------------------------------------------------------------------ */

static inline int fy_group_size(const fy_group_t *g)
{
    return g->size;
}

/* World rank of member r (0 <= r < size). */
static inline int fy_group_world_rank(const fy_group_t *g, int r)
{
    const fy_group_run_t *run = g->runs;
    if (g->nruns > 1) {
        int lo = 0, hi = g->nruns - 1; /* last run with start <= r */
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (g->runs[mid].start <= r)
                lo = mid;
            else
                hi = mid - 1;
        }
        run = &g->runs[lo];
    }
    return (int)(run->first + (int64_t)(r - run->start) * run->stride);
}

/* Group rank of world rank w, or MPI_UNDEFINED when w is not a member. */
int fy_group_rank_of_world(const fy_group_t *g, int w);

/* ---- operations (the MPI group calls; fn names the call in messages) ----------------------- */

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int fy_group_compare(const fy_group_t *a, const fy_group_t *b);
/* out[i] = rank in b of member in[i] of a (MPI_UNDEFINED if none; MPI_PROC_NULL stays).
 * Ranks are checked first: MPI_ERR_RANK and out untouched if one is invalid. */
int fy_group_translate(const char *fn, const fy_group_t *a, int n, const int *in,
                       const fy_group_t *b, int *out);
int fy_group_union(const char *fn, const fy_group_t *a, const fy_group_t *b, fy_group_t **g_p);
int fy_group_intersection(const char *fn, const fy_group_t *a, const fy_group_t *b,
                          fy_group_t **g_p);
int fy_group_difference(const char *fn, const fy_group_t *a, const fy_group_t *b, fy_group_t **g_p);
/* Checked as the standard requires: every rank valid (MPI_ERR_RANK), no rank twice
 * (MPI_ERR_RANK), n >= 0 (MPI_ERR_ARG); ranges with stride != 0 that reach `last` going the
 * way of the stride (MPI_ERR_ARG). */
int fy_group_incl(const char *fn, const fy_group_t *g, int n, const int *ranks, fy_group_t **g_p);
int fy_group_excl(const char *fn, const fy_group_t *g, int n, const int *ranks, fy_group_t **g_p);
int fy_group_range_incl(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3],
                        fy_group_t **g_p);
int fy_group_range_excl(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3],
                        fy_group_t **g_p);

#endif
