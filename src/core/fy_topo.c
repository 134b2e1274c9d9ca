/* Process topologies: storage, coordinates, shifts and the factorisation of MPI_Dims_create
 * (see fy_topo.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fy_topo.h"

/* The integer arrays follow the struct, in a fixed order decided by the kind and the counts
 * alone, so a copy is a memcpy plus this. */
static size_t topo_ints(const fy_topo_t *t)
{
    switch (t->kind) {
    case MPI_CART: return 2 * (size_t)t->ndims;
    case MPI_GRAPH: return (size_t)t->nnodes + (size_t)t->nedges;
    default: return ((size_t)t->indegree + (size_t)t->outdegree) * (t->weighted ? 2 : 1);
    }
}

static void topo_layout(fy_topo_t *t)
{
    int *p = (int *)(t + 1);
    t->dims = t->periods = t->index = t->edges = NULL;
    t->sources = t->sourceweights = t->destinations = t->destweights = NULL;
    switch (t->kind) {
    case MPI_CART:
        t->dims = p;
        t->periods = p + t->ndims;
        break;
    case MPI_GRAPH:
        t->index = p;
        t->edges = p + t->nnodes;
        break;
    default:
        t->sources = p;
        p += t->indegree;
        if (t->weighted) {
            t->sourceweights = p;
            p += t->indegree;
        }
        t->destinations = p;
        p += t->outdegree;
        if (t->weighted)
            t->destweights = p;
    }
}

/* A topology with the counts of `proto` and room for its arrays. */
static fy_topo_t *topo_alloc(const fy_topo_t *proto)
{
    size_t bytes = sizeof(fy_topo_t) + sizeof(int) * topo_ints(proto);
    fy_topo_t *t = malloc(bytes);
    if (!t)
        return NULL;
    *t = *proto;
    t->bytes = bytes;
    topo_layout(t);
    return t;
}

static void copy_ints(int *dst, const int *src, int n)
{
    if (n > 0)
        memcpy(dst, src, sizeof(int) * (size_t)n);
}

fy_topo_t *fy_topo_cart_new(int ndims, const int *dims, const int *periods)
{
    fy_topo_t *t = topo_alloc(&(fy_topo_t){.kind = MPI_CART, .ndims = ndims});
    if (!t)
        return NULL;
    copy_ints(t->dims, dims, ndims);
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    return t;
}

fy_topo_t *fy_topo_graph_new(int nnodes, const int *index, const int *edges)
{
    int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
    fy_topo_t *t = topo_alloc(&(fy_topo_t){.kind = MPI_GRAPH, .nnodes = nnodes, .nedges = nedges});
    if (!t)
        return NULL;
    copy_ints(t->index, index, nnodes);
    copy_ints(t->edges, edges, nedges);
    return t;
}

fy_topo_t *fy_topo_dist_new(int indegree, const int *sources, const int *sourceweights,
                            int outdegree, const int *destinations, const int *destweights,
                            bool weighted)
{
    fy_topo_t *t = topo_alloc(&(fy_topo_t){.kind = MPI_DIST_GRAPH,
                                           .indegree = indegree,
                                           .outdegree = outdegree,
                                           .weighted = weighted});
    if (!t)
        return NULL;
    copy_ints(t->sources, sources, indegree);
    copy_ints(t->destinations, destinations, outdegree);
    if (weighted) {
        copy_ints(t->sourceweights, sourceweights, indegree);
        copy_ints(t->destweights, destweights, outdegree);
    }
    return t;
}

fy_topo_t *fy_topo_copy(const fy_topo_t *t)
{
    if (!t)
        return NULL;
    fy_topo_t *c = malloc(t->bytes);
    if (!c)
        return NULL;
    memcpy(c, t, t->bytes);
    topo_layout(c);
    return c;
}

void fy_topo_free(fy_topo_t *t)
{
    free(t);
}

int fy_topo_grid_size(int ndims, const int *dims)
{
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return -1;
        n *= dims[i];
        if (n > INT_MAX)
            return -1;
    }
    return (int)n;
}

void fy_topo_cart_coords(const fy_topo_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

/* x modulo d in 0..d-1, for any x (d > 0). */
static int wrap(long long x, int d)
{
    long long m = x % d;
    return (int)(m < 0 ? m + d : m);
}

int fy_topo_cart_rank(const fy_topo_t *t, const int *coords, int *bad_dim_p)
{
    int rank = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i];
        if (c < 0 || c >= t->dims[i]) {
            if (!t->periods[i]) {
                if (bad_dim_p)
                    *bad_dim_p = i;
                return -1;
            }
            c = wrap(c, t->dims[i]);
        }
        rank = rank * t->dims[i] + c;
    }
    return rank;
}

void fy_topo_cart_shift(const fy_topo_t *t, int rank, int dir, int disp, int *source_p, int *dest_p)
{
    /* Along dir, neighbouring ranks are `stride` apart: the product of the later dimensions. */
    int stride = 1;
    for (int i = t->ndims - 1; i > dir; i--)
        stride *= t->dims[i];
    int d = t->dims[dir];
    int c = rank / stride % d;
    int base = rank - c * stride;
    long long to = (long long)c + disp, from = (long long)c - disp;
    if (t->periods[dir]) {
        *dest_p = base + wrap(to, d) * stride;
        *source_p = base + wrap(from, d) * stride;
    } else {
        *dest_p = to >= 0 && to < d ? base + (int)to * stride : MPI_PROC_NULL;
        *source_p = from >= 0 && from < d ? base + (int)from * stride : MPI_PROC_NULL;
    }
}

/* ---- MPI_Dims_create ----
 *
 * The k free dimensions must multiply to m, "as close to each other as possible" (MPI 4.1
 * sec. 8.5.2). Ferry reads that as MPICH does: among the non-increasing k-tuples of factors of
 * m, the smallest spread (largest minus smallest factor); among those, the largest smallest
 * factor; among those, the lexicographically smallest tuple. 5040 in 3 dimensions is then
 * 21 x 16 x 15 (spread 6, smallest 15), not 20 x 18 x 14 (spread 6, smallest 14), and 4620 is
 * 22 x 15 x 14, not 21 x 20 x 11 (the tuple with the smallest largest factor).
 *
 * The search is depth first over the factors in order, each a divisor of m at most the previous
 * one, tried in increasing order, so tuples come in lexicographic order and a later tuple
 * replaces the best only when strictly better. A branch is cut when its remaining j factors
 * cannot reach the rest r (cap^j < r), when r holds a prime above the cap, or when its spread
 * cannot beat the best: the smallest factor to come is at most the floor of r's j-th root.
 * At the top, the largest factor only grows, so the first such cut ends the search. Divisors
 * and primes are those of the original m (every later rest divides it): at most 1600 divisors
 * and 9 distinct primes below 2^31. */

#define MAX_DIVISORS 2048
#define MAX_PRIMES 16

typedef struct {
    int div[MAX_DIVISORS], ndiv;
    int prime[MAX_PRIMES], nprime;
} factors_t;

static int by_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

static void factorise(int m, factors_t *f)
{
    int exps[MAX_PRIMES];
    f->nprime = 0;
    for (int p = 2; (long long)p * p <= m; p += p == 2 ? 1 : 2)
        if (m % p == 0) {
            int e = 0;
            while (m % p == 0) {
                m /= p;
                e++;
            }
            f->prime[f->nprime] = p;
            exps[f->nprime++] = e;
        }
    if (m > 1) {
        f->prime[f->nprime] = m;
        exps[f->nprime++] = 1;
    }
    f->div[0] = 1;
    f->ndiv = 1;
    for (int i = 0; i < f->nprime; i++) {
        int n = f->ndiv;
        long long pk = 1;
        for (int e = 1; e <= exps[i]; e++) {
            pk *= f->prime[i];
            for (int j = 0; j < n; j++)
                f->div[f->ndiv++] = (int)(f->div[j] * pk);
        }
    }
    qsort(f->div, (size_t)f->ndiv, sizeof(int), by_int);
}

/* f^k >= m, without overflow. */
static bool pow_reaches(int f, int k, int m)
{
    long long p = 1;
    for (int i = 0; i < k && p < m; i++)
        p *= f;
    return p >= m;
}

/* r^k <= m, without overflow. */
static bool pow_fits(int r, int k, int m)
{
    long long p = 1;
    for (int i = 0; i < k; i++)
        if ((p *= r) > m)
            return false;
    return true;
}

/* The largest r with r^k <= m (k >= 1, m >= 1). */
static int int_root(int m, int k)
{
    int lo = 1, hi = m;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (pow_fits(mid, k, m))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

typedef struct {
    const factors_t *fs;
    int k;      /* factors wanted */
    int *cur;   /* the tuple being built, k entries */
    int *best;  /* the best complete tuple so far, k entries */
    bool found; /* best holds a tuple */
    int best_spread, best_min;
} search_t;

/* cur[0..k-1] is complete: keep it when it beats the best. */
static void consider(search_t *s)
{
    int spread = s->cur[0] - s->cur[s->k - 1], min = s->cur[s->k - 1];
    if (s->found && (spread > s->best_spread || (spread == s->best_spread && min <= s->best_min)))
        return; /* equal tuples come later in lexicographic order: the first one stays */
    memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
    s->found = true;
    s->best_spread = spread;
    s->best_min = min;
}

/* cur[0..depth-1] is chosen; the remaining factors multiply to m, each at most cap. */
static void search(search_t *s, int depth, int m, int cap)
{
    int left = s->k - depth;
    if (m == 1) {
        for (int i = depth; i < s->k; i++)
            s->cur[i] = 1;
        consider(s);
        return;
    }
    if (left == 1) {
        if (m <= cap) {
            s->cur[depth] = m;
            consider(s);
        }
        return;
    }
    const factors_t *fs = s->fs;
    for (int i = 0; i < fs->nprime; i++)
        if (fs->prime[i] > cap && m % fs->prime[i] == 0)
            return;
    int min_bound = int_root(m, left); /* no smallest factor to come is above it */
    for (int i = 0; i < fs->ndiv; i++) {
        int f = fs->div[i];
        if (f > cap || f > m)
            break;
        if (m % f || !pow_reaches(f, left, m))
            continue;
        int largest = depth ? s->cur[0] : f, bound = largest - min_bound;
        if (s->found &&
            (bound > s->best_spread || (bound == s->best_spread && min_bound <= s->best_min)))
            break; /* the largest factor (f at the top, fixed below) only grows from here */
        s->cur[depth] = f;
        search(s, depth + 1, m / f, f);
    }
}

int fy_topo_dims_create(int nnodes, int ndims, int *dims)
{
    if (nnodes < 1 || ndims < 0)
        return -1;
    int fixed = 1, nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return -1;
        if (dims[i] == 0)
            nfree++;
        else if (nnodes % dims[i] != 0 || nnodes / dims[i] % fixed != 0)
            return -1;
        else
            fixed *= dims[i]; /* divides nnodes, so no overflow */
    }
    int m = nnodes / fixed;
    if (nfree == 0)
        return m == 1 ? 0 : -1;
    factors_t *fs = malloc(sizeof *fs);
    int *out = malloc(sizeof(int) * 2 * (size_t)nfree);
    int rc = -2;
    if (fs && out) {
        factorise(m, fs);
        search_t s = {.fs = fs, .k = nfree, .cur = out + nfree, .best = out};
        search(&s, 0, m, m);
        /* Always finds one ((m, 1, 1, ...) is a candidate); kept as a check. */
        rc = s.found ? 0 : -1;
    }
    if (rc == 0)
        for (int i = 0, j = 0; i < ndims; i++)
            if (dims[i] == 0)
                dims[i] = out[j++];
    free(out);
    free(fs);
    return rc;
}
