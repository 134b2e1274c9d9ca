/* Process groups kept as runs of world ranks (see fy_group.h for the representation). */
#include <stdlib.h>
#include <string.h>

#include "fy_comm.h"
#include "fy_err.h"
#include "fy_group.h"
#include "fy_handle.h"
#include "fy_runtime.h"

fy_group_t fy_group_empty = {.handle = MPI_GROUP_EMPTY,
                             .refs = 1,
                             .size = 0,
                             .rank = MPI_UNDEFINED,
                             .nruns = 0,
                             .disjoint = 1};
fy_group_t **fy_group_table; /* Ferry-made group handles, by index */
unsigned fy_group_table_cap;
static unsigned table_hint; /* no free slot below this index */
static fy_group_t *live;    /* every group alive (MPI_GROUP_EMPTY aside) */
static unsigned live_count;

/* ---- one run ------------------------------------------------------------------------------ */

static inline int64_t run_last(const fy_group_run_t *run)
{
    return run->first + (int64_t)(run->count - 1) * run->stride;
}
static inline int64_t run_lo(const fy_group_run_t *run)
{
    return run->stride > 0 ? run->first : run_last(run);
}
static inline int64_t run_hi(const fy_group_run_t *run)
{
    return run->stride > 0 ? run_last(run) : run->first;
}

/* Position of world rank w in the run, or -1. */
static inline int run_find(const fy_group_run_t *run, int w)
{
    int64_t d = (int64_t)w - run->first;
    if (d == 0)
        return 0;
    if (run->count == 1 || d % run->stride != 0)
        return -1;
    int64_t q = d / run->stride;
    return q > 0 && q < run->count ? (int)q : -1;
}

/* Index of the run holding group rank r. */
static int run_of_rank(const fy_group_t *g, int r)
{
    int lo = 0, hi = g->nruns - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (g->runs[mid].start <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

int fy_group_rank_of_world(const fy_group_t *g, int w)
{
    if (!g->by_lo) {
        for (int k = 0; k < g->nruns; k++) {
            int q = run_find(&g->runs[k], w);
            if (q >= 0)
                return g->runs[k].start + q;
        }
        return MPI_UNDEFINED;
    }
    /* The last run (in by_lo order) starting at or below w, then back while a run before it
     * may still reach w. */
    int lo = 0, hi = g->nruns - 1;
    if (run_lo(&g->runs[g->by_lo[0]]) > w)
        return MPI_UNDEFINED;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (run_lo(&g->runs[g->by_lo[mid]]) <= w)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (int j = lo; j >= 0 && g->hi_max[j] >= w; j--) {
        const fy_group_run_t *run = &g->runs[g->by_lo[j]];
        int q = run_find(run, w);
        if (q >= 0)
            return run->start + q;
    }
    return MPI_UNDEFINED;
}

/* ---- building ----------------------------------------------------------------------------- */

void fy_group_builder_init(fy_group_builder_t *b)
{
    *b = (fy_group_builder_t){0};
}

void fy_group_builder_discard(fy_group_builder_t *b)
{
    free(b->runs);
    fy_group_builder_init(b);
}

static fy_group_run_t *new_run(fy_group_builder_t *b)
{
    if (b->nruns == b->cap) {
        int ncap = b->cap ? b->cap * 2 : 4;
        fy_group_run_t *r = realloc(b->runs, (size_t)ncap * sizeof *r);
        if (!r) {
            b->failed = 1;
            return NULL;
        }
        b->runs = r;
        b->cap = ncap;
    }
    return &b->runs[b->nruns++];
}

void fy_group_builder_add(fy_group_builder_t *b, int w)
{
    if (b->failed)
        return;
    if (b->nruns > 0) {
        fy_group_run_t *last = &b->runs[b->nruns - 1];
        int extends = last->count == 1 ? w != last->first /* a lone member takes any stride */
                                       : run_last(last) + last->stride == (int64_t)w;
        if (extends) {
            if (last->count == 1)
                last->stride = w - last->first;
            last->count++;
            b->size++;
            return;
        }
    }
    fy_group_run_t *run = new_run(b);
    if (!run)
        return;
    *run = (fy_group_run_t){.first = w, .count = 1, .stride = 1, .start = b->size};
    b->size++;
}

/* Exactly what adding the members one by one would do, in O(1). */
void fy_group_builder_add_run(fy_group_builder_t *b, int first, int count, int stride)
{
    if (count <= 0)
        return;
    fy_group_builder_add(b, first);
    if (count == 1 || b->failed)
        return;
    fy_group_run_t *last = &b->runs[b->nruns - 1]; /* ends with `first` */
    if (last->count == 1 || last->stride == stride) {
        last->stride = stride;
        last->count += count - 1;
        b->size += count - 1;
        return;
    }
    fy_group_run_t *run = new_run(b);
    if (!run)
        return;
    *run = (fy_group_run_t){.first = first + stride,
                            .count = count - 1,
                            .stride = count > 2 ? stride : 1,
                            .start = b->size};
    b->size += count - 1;
}

void fy_group_builder_add_ranks(fy_group_builder_t *b, const fy_group_t *g, int start, int count,
                                int step)
{
    int64_t r = start;
    while (count > 0 && !b->failed) {
        const fy_group_run_t *run = &g->runs[run_of_rank(g, (int)r)];
        int off = (int)r - run->start;
        int in_run = step > 0 ? (run->count - 1 - off) / step + 1 : off / -step + 1;
        if (in_run > count)
            in_run = count;
        int w = (int)(run->first + (int64_t)off * run->stride);
        fy_group_builder_add_run(b, w, in_run, in_run > 1 ? step * run->stride : 1);
        r += (int64_t)in_run * step;
        count -= in_run;
    }
}

static int cmp_lo(const void *x, const void *y)
{
    const int64_t *a = x, *b = y;
    return (a[0] > b[0]) - (a[0] < b[0]);
}

/* The reverse-lookup index of a group with many runs. `scratch` holds 2 * nruns int64. */
static void build_index(fy_group_t *g, int64_t *scratch)
{
    int n = g->nruns;
    g->by_lo = (int *)(g->runs + n);
    g->hi_max = g->by_lo + n;
    for (int k = 0; k < n; k++) {
        scratch[2 * k] = run_lo(&g->runs[k]);
        scratch[2 * k + 1] = k;
    }
    qsort(scratch, (size_t)n, 2 * sizeof *scratch, cmp_lo);
    int64_t top = -1;
    g->disjoint = 1;
    for (int j = 0; j < n; j++) {
        const fy_group_run_t *run = &g->runs[scratch[2 * j + 1]];
        if (run_lo(run) <= top)
            g->disjoint = 0;
        if (run_hi(run) > top)
            top = run_hi(run);
        g->by_lo[j] = (int)scratch[2 * j + 1];
        g->hi_max[j] = (int)top;
    }
}

size_t fy_group_bytes(const fy_group_t *g)
{
    if (g == &fy_group_empty)
        return sizeof *g;
    return sizeof *g + (size_t)g->nruns * sizeof(fy_group_run_t) +
           (g->by_lo ? 2 * (size_t)g->nruns * sizeof(int) : 0);
}

static int no_mem(const char *fn, size_t bytes)
{
    return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes for a group)", fn, bytes);
}

int fy_group_builder_finish(const char *fn, fy_group_builder_t *b, fy_group_t **g_p)
{
    if (b->failed) {
        size_t bytes = (size_t)b->cap * 2 * sizeof *b->runs;
        fy_group_builder_discard(b);
        return no_mem(fn, bytes);
    }
    if (b->size == 0) {
        fy_group_builder_discard(b);
        *g_p = &fy_group_empty;
        return MPI_SUCCESS;
    }
    int n = b->nruns;
    int indexed = n > FY_GROUP_SCAN_RUNS;
    size_t bytes = sizeof(fy_group_t) + (size_t)n * sizeof(fy_group_run_t) +
                   (indexed ? 2 * (size_t)n * sizeof(int) : 0);
    fy_group_t *g = malloc(bytes);
    int64_t *scratch = indexed ? malloc(2 * (size_t)n * sizeof *scratch) : NULL;
    if (!g || (indexed && !scratch)) {
        free(g);
        free(scratch);
        fy_group_builder_discard(b);
        return no_mem(fn, bytes);
    }
    *g = (fy_group_t){
        .handle = MPI_GROUP_NULL, .refs = 1, .size = b->size, .nruns = n, .disjoint = 1};
    memcpy(g->runs, b->runs, (size_t)n * sizeof *g->runs);
    fy_group_builder_discard(b);
    if (indexed)
        build_index(g, scratch);
    free(scratch);
    g->rank = fy_group_rank_of_world(g, fy_rt.rank);
    g->next = live;
    if (live)
        live->prev = g;
    live = g;
    live_count++;
    *g_p = g;
    return MPI_SUCCESS;
}

int fy_group_from_world_list(const char *fn, const int *world, int n, fy_group_t **g_p)
{
    fy_group_builder_t b;
    fy_group_builder_init(&b);
    for (int i = 0; i < n; i++)
        fy_group_builder_add(&b, world[i]);
    return fy_group_builder_finish(fn, &b, g_p);
}

int fy_group_from_map(const char *fn, int size, const int *world_of, fy_group_t **g_p)
{
    fy_group_builder_t b;
    fy_group_builder_init(&b);
    if (!world_of)
        fy_group_builder_add_run(&b, 0, size, 1);
    else
        for (int r = 0; r < size; r++)
            fy_group_builder_add(&b, world_of[r]);
    return fy_group_builder_finish(fn, &b, g_p);
}

int fy_group_from_comm(const char *fn, const fy_comm_t *c, fy_group_t **g_p)
{
    return fy_group_from_map(fn, c->size, c->world_of, g_p);
}

int fy_group_world_of(const char *fn, const fy_group_t *g, int **world_of_p)
{
    if (g->size == 0 || (g->size == fy_rt.size && g->nruns == 1 && g->runs[0].first == 0 &&
                         (g->runs[0].stride == 1 || g->size == 1))) {
        *world_of_p = NULL;
        return MPI_SUCCESS;
    }
    int *map = malloc((size_t)g->size * sizeof *map);
    if (!map)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory (rank map of %d ranks)", fn, g->size);
    for (int k = 0; k < g->nruns; k++) {
        const fy_group_run_t *run = &g->runs[k];
        for (int i = 0; i < run->count; i++)
            map[run->start + i] = (int)(run->first + (int64_t)i * run->stride);
    }
    *world_of_p = map;
    return MPI_SUCCESS;
}

/* ---- handles and lifetime ----------------------------------------------------------------- */

int fy_group_register(const char *fn, fy_group_t *g)
{
    if (g == &fy_group_empty)
        return MPI_SUCCESS;
    unsigned slot = table_hint;
    while (slot < fy_group_table_cap && fy_group_table[slot])
        slot++;
    if (slot == fy_group_table_cap) {
        unsigned ncap = fy_group_table_cap ? fy_group_table_cap * 2 : 64;
        if (ncap > FY_HINDEX_MASK)
            return fy_err_set(MPI_ERR_INTERN, "%s: too many groups in use (%u)", fn,
                              fy_group_table_cap);
        fy_group_t **t = realloc(fy_group_table, ncap * sizeof *t);
        if (!t)
            return no_mem(fn, ncap * sizeof *t);
        memset(t + fy_group_table_cap, 0, (ncap - fy_group_table_cap) * sizeof *t);
        fy_group_table = t;
        fy_group_table_cap = ncap;
    }
    fy_group_table[slot] = g;
    table_hint = slot + 1;
    g->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_GROUP, slot);
    return MPI_SUCCESS;
}

void fy_group_free_handle(fy_group_t *g)
{
    if (g == &fy_group_empty)
        return;
    if (g->handle != MPI_GROUP_NULL) {
        unsigned slot = fy_handle_index(g->handle);
        if (slot < fy_group_table_cap && fy_group_table[slot] == g) {
            fy_group_table[slot] = NULL;
            if (slot < table_hint)
                table_hint = slot;
        }
        g->handle = MPI_GROUP_NULL;
    }
    fy_group_release(g);
}

static void destroy(fy_group_t *g)
{
    if (g->prev)
        g->prev->next = g->next;
    else
        live = g->next;
    if (g->next)
        g->next->prev = g->prev;
    live_count--;
    free(g);
}

void fy_group_release(fy_group_t *g)
{
    if (g != &fy_group_empty && --g->refs == 0)
        destroy(g);
}

unsigned fy_group_live(void)
{
    return live_count;
}

void fy_group_fini(void)
{
    while (live)
        destroy(live);
    free(fy_group_table);
    fy_group_table = NULL;
    fy_group_table_cap = 0;
    table_hint = 0;
}

/* ---- reverse lookups in bulk -------------------------------------------------------------- */

/* Answers "rank of world rank w in g" for many w. Groups whose runs interleave (many strided
 * runs over the same stretch of the world) would make each index lookup walk many runs; for
 * many questions on such a group a dense map of its span is built for the call. */
typedef struct finder {
    const fy_group_t *g;
    int *map; /* group rank + 1 by world rank - lo; 0 = not a member */
    int64_t lo, n;
} finder_t;

static void finder_init(finder_t *f, const fy_group_t *g, int64_t queries)
{
    *f = (finder_t){.g = g};
    if (!g->by_lo || g->disjoint || queries < 64)
        return;
    f->lo = run_lo(&g->runs[g->by_lo[0]]);
    f->n = g->hi_max[g->nruns - 1] - f->lo + 1;
    f->map = calloc((size_t)f->n, sizeof *f->map);
    if (!f->map)
        return; /* slower lookups, same answers */
    for (int k = 0; k < g->nruns; k++) {
        const fy_group_run_t *run = &g->runs[k];
        for (int i = 0; i < run->count; i++)
            f->map[run->first + (int64_t)i * run->stride - f->lo] = run->start + i + 1;
    }
}

static inline int finder_rank(const finder_t *f, int w)
{
    if (!f->map)
        return fy_group_rank_of_world(f->g, w);
    int64_t i = (int64_t)w - f->lo;
    return i >= 0 && i < f->n && f->map[i] ? f->map[i] - 1 : MPI_UNDEFINED;
}

static void finder_fini(finder_t *f)
{
    free(f->map);
}

/* ---- comparison and translation ----------------------------------------------------------- */

int fy_group_compare(const fy_group_t *a, const fy_group_t *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (a->nruns == b->nruns) {
        int same = 1;
        for (int k = 0; k < a->nruns && same; k++)
            same = a->runs[k].first == b->runs[k].first && a->runs[k].count == b->runs[k].count &&
                   a->runs[k].stride == b->runs[k].stride;
        if (same)
            return MPI_IDENT;
    }
    /* Same members? (No member appears twice, so equal sizes and a inside b suffice.) */
    finder_t f;
    finder_init(&f, b, a->size);
    int result = MPI_IDENT;
    for (int k = 0; k < a->nruns && result != MPI_UNEQUAL; k++) {
        const fy_group_run_t *run = &a->runs[k];
        for (int i = 0; i < run->count; i++) {
            int r = finder_rank(&f, (int)(run->first + (int64_t)i * run->stride));
            if (r == MPI_UNDEFINED) {
                result = MPI_UNEQUAL;
                break;
            }
            if (r != run->start + i)
                result = MPI_SIMILAR;
        }
    }
    finder_fini(&f);
    return result;
}

int fy_group_translate(const char *fn, const fy_group_t *a, int n, const int *in,
                       const fy_group_t *b, int *out)
{
    if (n < 0)
        return fy_err_set(MPI_ERR_ARG, "%s: n = %d is negative", fn, n);
    if (n > 0 && (!in || !out))
        return fy_err_set(MPI_ERR_ARG, "%s: %s is NULL with n = %d", fn, !in ? "ranks1" : "ranks2",
                          n);
    for (int i = 0; i < n; i++)
        if (in[i] != MPI_PROC_NULL && (in[i] < 0 || in[i] >= a->size))
            return fy_err_set(MPI_ERR_RANK, "%s: ranks1[%d] = %d is not a rank of group1 (size %d)",
                              fn, i, in[i], a->size);
    finder_t f;
    finder_init(&f, b, n);
    for (int i = 0; i < n; i++)
        out[i] =
            in[i] == MPI_PROC_NULL ? MPI_PROC_NULL : finder_rank(&f, fy_group_world_rank(a, in[i]));
    finder_fini(&f);
    return MPI_SUCCESS;
}

/* ---- set operations ----------------------------------------------------------------------- */

/* Adds the members of `from` (in order) whose membership of `other` is `want_member`. */
static void add_filtered(fy_group_builder_t *bld, const fy_group_t *from, const fy_group_t *other,
                         int want_member)
{
    finder_t f;
    finder_init(&f, other, from->size);
    for (int k = 0; k < from->nruns; k++) {
        const fy_group_run_t *run = &from->runs[k];
        for (int i = 0; i < run->count; i++) {
            int w = (int)(run->first + (int64_t)i * run->stride);
            if ((finder_rank(&f, w) != MPI_UNDEFINED) == want_member)
                fy_group_builder_add(bld, w);
        }
    }
    finder_fini(&f);
}

int fy_group_union(const char *fn, const fy_group_t *a, const fy_group_t *b, fy_group_t **g_p)
{
    fy_group_builder_t bld;
    fy_group_builder_init(&bld);
    for (int k = 0; k < a->nruns; k++)
        fy_group_builder_add_run(&bld, a->runs[k].first, a->runs[k].count, a->runs[k].stride);
    add_filtered(&bld, b, a, 0);
    return fy_group_builder_finish(fn, &bld, g_p);
}

int fy_group_intersection(const char *fn, const fy_group_t *a, const fy_group_t *b,
                          fy_group_t **g_p)
{
    fy_group_builder_t bld;
    fy_group_builder_init(&bld);
    add_filtered(&bld, a, b, 1);
    return fy_group_builder_finish(fn, &bld, g_p);
}

int fy_group_difference(const char *fn, const fy_group_t *a, const fy_group_t *b, fy_group_t **g_p)
{
    fy_group_builder_t bld;
    fy_group_builder_init(&bld);
    add_filtered(&bld, a, b, 0);
    return fy_group_builder_finish(fn, &bld, g_p);
}

/* ---- inclusion and exclusion -------------------------------------------------------------- */

/* A bit per group rank, for finding repeats and for exclusion (size / 8 bytes, for the call). */
typedef uint64_t bits_t;

static bits_t *bits_new(const char *fn, int size, int *rc)
{
    bits_t *bm = calloc(((size_t)size + 63) / 64, sizeof *bm);
    *rc = bm ? MPI_SUCCESS : no_mem(fn, ((size_t)size + 63) / 8);
    return bm;
}
static inline int bit_test_set(bits_t *bm, int r)
{
    bits_t m = (bits_t)1 << (r % 64);
    int was = (bm[r / 64] & m) != 0;
    bm[r / 64] |= m;
    return was;
}

/* First rank >= r whose bit equals `value`, or size. */
static int bits_next(const bits_t *bm, int size, int r, int value)
{
    while (r < size) {
        bits_t w = bm[r / 64] ^ (value ? 0 : ~(bits_t)0);
        w &= ~(bits_t)0 << (r % 64);
        if (w) {
            int found = r / 64 * 64 + __builtin_ctzll(w);
            return found < size ? found : size;
        }
        r = (r / 64 + 1) * 64;
    }
    return size;
}

static int check_list(const char *fn, const fy_group_t *g, int n, const int *ranks)
{
    if (n < 0)
        return fy_err_set(MPI_ERR_ARG, "%s: n = %d is negative", fn, n);
    if (n > 0 && !ranks)
        return fy_err_set(MPI_ERR_ARG, "%s: ranks is NULL with n = %d", fn, n);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= g->size)
            return fy_err_set(MPI_ERR_RANK,
                              "%s: ranks[%d] = %d is not a rank of the group (size %d)", fn, i,
                              ranks[i], g->size);
    return MPI_SUCCESS;
}

/* Marks the listed ranks in a new bit map (NULL without error when n < 2 and !need_map);
 * a rank listed twice is MPI_ERR_RANK. */
static int mark_list(const char *fn, const fy_group_t *g, int n, const int *ranks, int need_map,
                     bits_t **bm_p)
{
    *bm_p = NULL;
    if (n < 2 && !need_map)
        return MPI_SUCCESS;
    int rc;
    bits_t *bm = bits_new(fn, g->size, &rc);
    if (!bm)
        return rc;
    for (int i = 0; i < n; i++)
        if (bit_test_set(bm, ranks[i])) {
            int j = 0;
            while (ranks[j] != ranks[i])
                j++;
            free(bm);
            return fy_err_set(MPI_ERR_RANK,
                              "%s: ranks[%d] and ranks[%d] are both %d (ranks must be distinct)",
                              fn, j, i, ranks[i]);
        }
    *bm_p = bm;
    return MPI_SUCCESS;
}

int fy_group_incl(const char *fn, const fy_group_t *g, int n, const int *ranks, fy_group_t **g_p)
{
    int rc = check_list(fn, g, n, ranks);
    bits_t *bm = NULL;
    if (rc == MPI_SUCCESS)
        rc = mark_list(fn, g, n, ranks, 0, &bm);
    free(bm);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_group_builder_t b;
    fy_group_builder_init(&b);
    for (int i = 0; i < n; i++)
        fy_group_builder_add(&b, fy_group_world_rank(g, ranks[i]));
    return fy_group_builder_finish(fn, &b, g_p);
}

/* The group's members whose bit is clear, in order, a stretch at a time. */
static int keep_unmarked(const char *fn, const fy_group_t *g, const bits_t *bm, fy_group_t **g_p)
{
    fy_group_builder_t b;
    fy_group_builder_init(&b);
    for (int r = bits_next(bm, g->size, 0, 0); r < g->size;) {
        int end = bits_next(bm, g->size, r, 1);
        fy_group_builder_add_ranks(&b, g, r, end - r, 1);
        r = bits_next(bm, g->size, end, 0);
    }
    return fy_group_builder_finish(fn, &b, g_p);
}

int fy_group_excl(const char *fn, const fy_group_t *g, int n, const int *ranks, fy_group_t **g_p)
{
    int rc = check_list(fn, g, n, ranks);
    bits_t *bm = NULL;
    if (rc == MPI_SUCCESS)
        rc = mark_list(fn, g, n, ranks, 1, &bm);
    if (rc == MPI_SUCCESS)
        rc = keep_unmarked(fn, g, bm, g_p);
    free(bm);
    return rc;
}

/* Members in range i: first, first + stride, ... not beyond last. */
static int range_count(const int *t)
{
    return (int)(((int64_t)t[1] - t[0]) / t[2] + 1);
}

static int range_has(const int *t, int r)
{
    int64_t d = (int64_t)r - t[0];
    return d % t[2] == 0 && d / t[2] >= 0 && d / t[2] < range_count(t);
}

static int check_ranges(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3])
{
    if (n < 0)
        return fy_err_set(MPI_ERR_ARG, "%s: n = %d is negative", fn, n);
    if (n > 0 && !ranges)
        return fy_err_set(MPI_ERR_ARG, "%s: ranges is NULL with n = %d", fn, n);
    for (int i = 0; i < n; i++) {
        const int *t = ranges[i];
        for (int j = 0; j < 2; j++)
            if (t[j] < 0 || t[j] >= g->size)
                return fy_err_set(MPI_ERR_RANK,
                                  "%s: ranges[%d] = (%d, %d, %d): %s rank %d is not a rank of "
                                  "the group (%d members)",
                                  fn, i, t[0], t[1], t[2], j ? "last" : "first", t[j], g->size);
        if (t[2] == 0)
            return fy_err_set(MPI_ERR_ARG, "%s: ranges[%d] = (%d, %d, %d) has stride 0", fn, i,
                              t[0], t[1], t[2]);
        if ((t[1] > t[0] && t[2] < 0) || (t[1] < t[0] && t[2] > 0))
            return fy_err_set(MPI_ERR_ARG,
                              "%s: ranges[%d] = (%d, %d, %d): stride %d leads away from last "
                              "rank %d",
                              fn, i, t[0], t[1], t[2], t[2], t[1]);
    }
    return MPI_SUCCESS;
}

/* Marks every rank the ranges name; a rank named twice is MPI_ERR_RANK. */
static int mark_ranges(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3],
                       bits_t **bm_p)
{
    int rc;
    bits_t *bm = bits_new(fn, g->size, &rc);
    if (!bm)
        return rc;
    for (int i = 0; i < n; i++) {
        int cnt = range_count(ranges[i]);
        for (int k = 0; k < cnt; k++) {
            int r = ranges[i][0] + k * ranges[i][2];
            if (!bit_test_set(bm, r))
                continue;
            int j = 0; /* the earlier range that named r */
            while (j < i && !range_has(ranges[j], r))
                j++;
            free(bm);
            return fy_err_set(MPI_ERR_RANK,
                              "%s: rank %d is named twice, by ranges[%d] = (%d, %d, %d) and "
                              "ranges[%d] = (%d, %d, %d) (ranks must be distinct)",
                              fn, r, j, ranges[j][0], ranges[j][1], ranges[j][2], i, ranges[i][0],
                              ranges[i][1], ranges[i][2]);
        }
    }
    *bm_p = bm;
    return MPI_SUCCESS;
}

int fy_group_range_incl(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3],
                        fy_group_t **g_p)
{
    int rc = check_ranges(fn, g, n, ranges);
    bits_t *bm = NULL;
    if (rc == MPI_SUCCESS && n > 1)
        rc = mark_ranges(fn, g, n, ranges, &bm);
    free(bm);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_group_builder_t b;
    fy_group_builder_init(&b);
    for (int i = 0; i < n; i++)
        fy_group_builder_add_ranks(&b, g, ranges[i][0], range_count(ranges[i]), ranges[i][2]);
    return fy_group_builder_finish(fn, &b, g_p);
}

int fy_group_range_excl(const char *fn, const fy_group_t *g, int n, const int (*ranges)[3],
                        fy_group_t **g_p)
{
    int rc = check_ranges(fn, g, n, ranges);
    bits_t *bm = NULL;
    if (rc == MPI_SUCCESS)
        rc = mark_ranges(fn, g, n, ranges, &bm);
    if (rc == MPI_SUCCESS)
        rc = keep_unmarked(fn, g, bm, g_p);
    free(bm);
    return rc;
}
