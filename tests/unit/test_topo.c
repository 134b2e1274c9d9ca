/* The pure topology functions of src/core/fy_topo.c: MPI_Dims_create's factorisation against a
 * brute-force reference (every ordered factorisation, sorted; the smallest spread kept, then the
 * largest smallest factor, then the lexicographically smallest) for n = 1..200 and ndims = 1..4 with and without fixed entries; its errors; its speed on
 * large and awkward n; Cartesian coordinates, ranks and shifts against coordinate arithmetic;
 * and copies of every kind of topology. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "fy_topo.h"
#include "unit.h"

/* ---- the reference: all ordered k-tuples with product m ---- */

static int ref_best[8], ref_have;

static void ref_consider(const int *t, int k)
{
    int s[8];
    memcpy(s, t, sizeof(int) * (size_t)k);
    for (int i = 0; i < k; i++) /* sort non-increasing */
        for (int j = i + 1; j < k; j++)
            if (s[j] > s[i]) {
                int x = s[i];
                s[i] = s[j];
                s[j] = x;
            }
    int spread = s[0] - s[k - 1], best_spread = ref_best[0] - ref_best[k - 1];
    int better = !ref_have || spread < best_spread ||
                 (spread == best_spread && s[k - 1] > ref_best[k - 1]);
    int worse = ref_have && !better &&
                (spread > best_spread || s[k - 1] < ref_best[k - 1]);
    for (int i = 0; i < k && !better && !worse; i++) {
        if (s[i] != ref_best[i]) {
            better = s[i] < ref_best[i];
            break;
        }
    }
    if (better) {
        memcpy(ref_best, s, sizeof(int) * (size_t)k);
        ref_have = 1;
    }
}

static void ref_walk(int m, int k, int *t, int i)
{
    if (i == k - 1) {
        t[i] = m;
        ref_consider(t, k);
        return;
    }
    for (int a = 1; a <= m; a++)
        if (m % a == 0) {
            t[i] = a;
            ref_walk(m / a, k, t, i + 1);
        }
}

/* What MPI_Dims_create must produce for (n, ndims, in): 0 and out[], or -1. */
static int reference(int n, int ndims, const int *in, int *out)
{
    int fixed = 1, k = 0;
    for (int i = 0; i < ndims; i++) {
        if (in[i] < 0)
            return -1;
        if (in[i] == 0)
            k++;
        else
            fixed *= in[i];
    }
    if (n % fixed)
        return -1;
    int m = n / fixed;
    memcpy(out, in, sizeof(int) * (size_t)ndims);
    if (k == 0)
        return m == 1 ? 0 : -1;
    int t[8];
    ref_have = 0;
    ref_walk(m, k, t, 0);
    for (int i = 0, j = 0; i < ndims; i++)
        if (in[i] == 0)
            out[i] = ref_best[j++];
    return 0;
}

static int compare_one(int n, int ndims, const int *in)
{
    int want[8], got[8];
    int rw = reference(n, ndims, in, want);
    memcpy(got, in, sizeof(int) * (size_t)ndims);
    int rg = fy_topo_dims_create(n, ndims, got);
    if (rg != rw || (rw == 0 && memcmp(got, want, sizeof(int) * (size_t)ndims))) {
        fprintf(stderr, "  n=%d ndims=%d in=(", n, ndims);
        for (int i = 0; i < ndims; i++)
            fprintf(stderr, "%s%d", i ? "," : "", in[i]);
        fprintf(stderr, "): got %d (", rg);
        for (int i = 0; i < ndims; i++)
            fprintf(stderr, "%s%d", i ? "," : "", got[i]);
        fprintf(stderr, "), expected %d (", rw);
        for (int i = 0; i < ndims; i++)
            fprintf(stderr, "%s%d", i ? "," : "", rw == 0 ? want[i] : in[i]);
        fprintf(stderr, ")\n");
        return 1;
    }
    if (rg != 0) /* untouched on failure */
        CHECK(memcmp(got, in, sizeof(int) * (size_t)ndims) == 0);
    return 0;
}

static int test_dims_free(void)
{
    int zero[8] = {0};
    for (int ndims = 1; ndims <= 4; ndims++)
        for (int n = 1; n <= 200; n++)
            CHECK_OK(compare_one(n, ndims, zero));
    return 0;
}

/* Every position either free or fixed to 1, 2, 3, 5 or n (fixed values that fit and that do
 * not). */
static int test_dims_fixed(void)
{
    static const int choices = 6;
    for (int ndims = 1; ndims <= 4; ndims++) {
        int combos = 1;
        for (int i = 0; i < ndims; i++)
            combos *= choices;
        for (int n = 1; n <= 200; n++)
            for (int c = 0; c < combos; c++) {
                int in[4], x = c;
                for (int i = 0; i < ndims; i++, x /= choices) {
                    static const int vals[] = {0, 1, 2, 3, 5, -1};
                    in[i] = vals[x % choices] < 0 ? n : vals[x % choices];
                }
                CHECK_OK(compare_one(n, ndims, in));
            }
    }
    return 0;
}

/* Beyond the required range: more dimensions and larger n, all free. */
static int test_dims_wider(void)
{
    int zero[8] = {0};
    for (int ndims = 5; ndims <= 6; ndims++)
        for (int n = 1; n <= 720; n++)
            CHECK_OK(compare_one(n, ndims, zero));
    for (int n = 201; n <= 3000; n++)
        for (int ndims = 2; ndims <= 3; ndims++)
            CHECK_OK(compare_one(n, ndims, zero));
    return 0;
}

static int test_dims_examples(void)
{
    /* The standard's examples. */
    int a[2] = {0, 0};
    CHECK_EQ(fy_topo_dims_create(6, 2, a), 0);
    CHECK(a[0] == 3 && a[1] == 2);
    int b[3] = {0, 3, 0};
    CHECK_EQ(fy_topo_dims_create(7, 3, b), -1);
    CHECK(b[0] == 0 && b[1] == 3 && b[2] == 0);
    int c[3] = {0, 3, 0};
    CHECK_EQ(fy_topo_dims_create(6, 3, c), 0);
    CHECK(c[0] == 2 && c[1] == 3 && c[2] == 1);
    int d[3] = {0, 0, 0};
    CHECK_EQ(fy_topo_dims_create(7, 3, d), 0);
    CHECK(d[0] == 7 && d[1] == 1 && d[2] == 1);
    /* Errors: nnodes < 1, ndims < 0, negative entries, no free entry and a wrong product. */
    int e[2] = {0, 0};
    CHECK_EQ(fy_topo_dims_create(0, 2, e), -1);
    CHECK_EQ(fy_topo_dims_create(-4, 2, e), -1);
    CHECK_EQ(fy_topo_dims_create(4, -1, e), -1);
    int f[2] = {-2, 0};
    CHECK_EQ(fy_topo_dims_create(4, 2, f), -1);
    int g[2] = {2, 3};
    CHECK_EQ(fy_topo_dims_create(6, 2, g), 0);
    CHECK_EQ(fy_topo_dims_create(12, 2, g), -1);
    /* ndims 0: only one process fits. */
    CHECK_EQ(fy_topo_dims_create(1, 0, NULL), 0);
    CHECK_EQ(fy_topo_dims_create(2, 0, NULL), -1);
    return 0;
}

/* Products, order and speed where brute force cannot follow: primes, powers of two, highly
 * composite numbers, many dimensions. */
static int check_valid(int n, int ndims, const int *dims)
{
    long long p = 1;
    for (int i = 0; i < ndims; i++) {
        CHECK(dims[i] >= 1);
        if (i)
            CHECK(dims[i] <= dims[i - 1]);
        p *= dims[i];
    }
    CHECK_EQ(p, n);
    return 0;
}

static int test_dims_large(void)
{
    static const int ns[] = {INT_MAX,   1 << 30,    2095133040,
                             735134400, 1073741823, 2 * 1021 * (1 << 20),
                             999999937, 510510,     1 << 20};
    int dims[40];
    double t0 = unit_now();
    for (size_t i = 0; i < UNIT_COUNT(ns); i++)
        for (int nd = 1; nd <= 40; nd++) {
            memset(dims, 0, sizeof dims);
            CHECK_EQ(fy_topo_dims_create(ns[i], nd, dims), 0);
            CHECK_OK(check_valid(ns[i], nd, dims));
        }
    memset(dims, 0, sizeof dims);
    CHECK_EQ(fy_topo_dims_create(1 << 30, 30, dims), 0);
    for (int i = 0; i < 30; i++)
        CHECK_EQ(dims[i], 2);
    memset(dims, 0, sizeof dims);
    CHECK_EQ(fy_topo_dims_create(2095133040, 2, dims), 0);
    CHECK(dims[0] == 46189 && dims[1] == 45360); /* the divisors either side of the root */
    unsigned seed = 12345;
    for (int i = 0; i < 2000; i++) {
        seed = seed * 1103515245u + 12345u;
        int n = (int)(seed >> 1) % 100000000 + 1, nd = (int)(seed >> 8) % 8 + 1;
        memset(dims, 0, sizeof dims);
        CHECK_EQ(fy_topo_dims_create(n, nd, dims), 0);
        CHECK_OK(check_valid(n, nd, dims));
    }
    double dt = unit_now() - t0;
    printf("  large and random n: %.3f s\n", dt);
    CHECK(dt < 10.0);
    return 0;
}

/* ---- Cartesian arithmetic ---- */

static int test_cart(void)
{
    static const int shapes[][4] = {{1, 0, 0, 0}, {5, 0, 0, 0}, {2, 3, 0, 0},
                                    {3, 1, 4, 0}, {2, 2, 2, 2}, {4, 3, 2, 5}};
    static const int ndimss[] = {1, 1, 2, 3, 4, 4};
    for (size_t s = 0; s < UNIT_COUNT(ndimss); s++)
        for (int pmask = 0; pmask < 16; pmask++) {
            int nd = ndimss[s], periods[4];
            for (int i = 0; i < 4; i++)
                periods[i] = pmask >> i & 1;
            fy_topo_t *t = fy_topo_cart_new(nd, shapes[s], periods);
            CHECK(t != NULL);
            int n = fy_topo_grid_size(nd, shapes[s]);
            for (int r = 0; r < n; r++) {
                int c[4], want[4], x = r;
                fy_topo_cart_coords(t, r, c);
                for (int i = nd - 1; i >= 0; i--) { /* row-major: last dimension fastest */
                    want[i] = x % shapes[s][i];
                    x /= shapes[s][i];
                }
                CHECK(memcmp(c, want, sizeof(int) * (size_t)nd) == 0);
                CHECK_EQ(fy_topo_cart_rank(t, c, NULL), r);
                for (int dir = 0; dir < nd; dir++)
                    for (int disp = -7; disp <= 7; disp++) {
                        int src, dst, d = shapes[s][dir];
                        fy_topo_cart_shift(t, r, dir, disp, &src, &dst);
                        for (int way = 0; way < 2; way++) {
                            int cc[4];
                            memcpy(cc, c, sizeof cc);
                            cc[dir] += way ? disp : -disp;
                            int expect;
                            if (cc[dir] >= 0 && cc[dir] < d)
                                expect = fy_topo_cart_rank(t, cc, NULL);
                            else if (periods[dir])
                                expect = fy_topo_cart_rank(t, cc, NULL); /* wraps */
                            else
                                expect = MPI_PROC_NULL;
                            CHECK_EQ(way ? dst : src, expect);
                        }
                    }
            }
            /* Out of range: wraps when periodic, refused otherwise. */
            int far[4] = {0, 0, 0, 0}, bad = -1;
            far[nd - 1] = -shapes[s][nd - 1] * 3 - 1;
            int r = fy_topo_cart_rank(t, far, &bad);
            if (periods[nd - 1]) {
                CHECK_EQ(r, shapes[s][nd - 1] - 1);
            } else {
                CHECK_EQ(r, -1);
                CHECK_EQ(bad, nd - 1);
            }
            /* Huge displacements wrap without overflow. */
            if (periods[0]) {
                int src, dst;
                fy_topo_cart_shift(t, 0, 0, INT_MAX, &src, &dst);
                int stride = n / shapes[s][0];
                CHECK_EQ(dst, (int)((long long)INT_MAX % shapes[s][0]) * stride);
                fy_topo_cart_shift(t, 0, 0, INT_MIN, &src, &dst);
                CHECK(dst >= 0 && dst < n && src >= 0 && src < n);
            }
            fy_topo_free(t);
        }
    CHECK_EQ(fy_topo_grid_size(0, NULL), 1);
    CHECK_EQ(fy_topo_grid_size(2, (int[]){65536, 65536}), -1);
    CHECK_EQ(fy_topo_grid_size(2, (int[]){3, 0}), -1);
    return 0;
}

static int test_copy(void)
{
    fy_topo_t *c = fy_topo_cart_new(3, (int[]){4, 3, 2}, (int[]){0, 5, 1});
    fy_topo_t *g = fy_topo_graph_new(3, (int[]){2, 3, 4}, (int[]){1, 2, 0, 0});
    fy_topo_t *d =
        fy_topo_dist_new(2, (int[]){3, 1}, (int[]){7, 8}, 1, (int[]){2}, (int[]){9}, true);
    fy_topo_t *u = fy_topo_dist_new(1, (int[]){0}, NULL, 0, NULL, NULL, false);
    CHECK(c && g && d && u);
    CHECK_EQ(c->periods[1], 1);
    fy_topo_t *c2 = fy_topo_copy(c), *g2 = fy_topo_copy(g), *d2 = fy_topo_copy(d),
              *u2 = fy_topo_copy(u);
    fy_topo_free(c);
    fy_topo_free(g);
    fy_topo_free(d);
    fy_topo_free(u);
    CHECK(c2 && g2 && d2 && u2);
    CHECK(c2->kind == MPI_CART && c2->ndims == 3 && c2->dims[0] == 4 && c2->dims[2] == 2 &&
          c2->periods[0] == 0 && c2->periods[2] == 1);
    CHECK(g2->kind == MPI_GRAPH && g2->nnodes == 3 && g2->nedges == 4);
    CHECK_EQ(fy_topo_graph_degree(g2, 0), 2);
    CHECK_EQ(fy_topo_graph_degree(g2, 2), 1);
    CHECK_EQ(fy_topo_graph_neighbors(g2, 1)[0], 0);
    CHECK(d2->kind == MPI_DIST_GRAPH && d2->weighted && d2->indegree == 2 && d2->outdegree == 1);
    CHECK(d2->sources[1] == 1 && d2->sourceweights[1] == 8 && d2->destinations[0] == 2 &&
          d2->destweights[0] == 9);
    CHECK(!u2->weighted && u2->sourceweights == NULL && u2->sources[0] == 0);
    CHECK(fy_topo_copy(NULL) == NULL);
    fy_topo_free(c2);
    fy_topo_free(g2);
    fy_topo_free(d2);
    fy_topo_free(u2);
    fy_topo_free(NULL);
    return 0;
}

static const unit_case_t cases[] = {
    {"dims_free", test_dims_free},
    {"dims_fixed", test_dims_fixed},
    {"dims_wider", test_dims_wider},
    {"dims_examples", test_dims_examples},
    {"dims_large", test_dims_large},
    {"cart", test_cart},
    {"copy", test_copy},
};

int main(void)
{
    return unit_run(cases, UNIT_COUNT(cases));
}
