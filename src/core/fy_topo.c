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
 * The k free dimensions must multiply to m. Among the non-increasing k-tuples of factors of m,
 * the one wanted is the lexicographically smallest: the largest factor as small as possible,
 * then the second, and so on. It is found depth first: the first factor f is tried over the
 * divisors of m in increasing order, from the smallest f with f^k >= m (below that, k factors
 * of at most f cannot reach m), and the rest is the same problem for m / f with k - 1 factors,
 * none above f. The first f whose rest can be completed is the answer's largest factor, and
 * the completion found for it, being itself the smallest, is the answer's tail. A rest is cut
 * off at once when m still holds a prime above the cap, which keeps the failed branches short.
 * Divisors and primes are those of the original m (every later m divides it): at most 1600
 * divisors and 9 distinct primes below 2^31. */

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

/* The smallest non-increasing k-tuple of factors of m, each at most cap, into out[k]. */
static bool balanced(const factors_t *fs, int m, int k, int cap, int *out)
{
    if (m == 1) {
        for (int i = 0; i < k; i++)
            out[i] = 1;
        return true;
    }
    if (k == 1) {
        out[0] = m;
        return m <= cap;
    }
    for (int i = 0; i < fs->nprime; i++)
        if (fs->prime[i] > cap && m % fs->prime[i] == 0)
            return false;
    for (int i = 0; i < fs->ndiv; i++) {
        int f = fs->div[i];
        if (f > cap || f > m)
            break;
        if (m % f || !pow_reaches(f, k, m))
            continue;
        if (balanced(fs, m / f, k - 1, f, out + 1)) {
            out[0] = f;
            return true;
        }
    }
    return false;
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
    int *out = malloc(sizeof(int) * (size_t)nfree);
    int rc = -2;
    if (fs && out) {
        factorise(m, fs);
        /* Always succeeds ((m, 1, 1, ...) is a candidate); kept as a check. */
        rc = balanced(fs, m, nfree, m, out) ? 0 : -1;
    }
    if (rc == 0)
        for (int i = 0, j = 0; i < ndims; i++)
            if (dims[i] == 0)
                dims[i] = out[j++];
    free(out);
    free(fs);
    return rc;
}
