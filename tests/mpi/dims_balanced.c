/* MPI_Dims_create gives the most balanced grid (MPI 4.1 sec. 8.5.2, read as MPICH reads it):
 * among the non-increasing factorisations of the free part, the smallest spread (largest
 * factor minus smallest), then the largest smallest factor, then the lexicographically
 * smallest tuple. Every result is compared with an exhaustive search over all non-increasing
 * factorisations: nnodes 1..1200 in 1 to 4 free dimensions, with and without fixed entries
 * (which must be kept), and a few large cases (5040 in 3 dimensions is 21 x 16 x 15, 2^20 in
 * 20 dimensions is all 2s, a large prime and a number with 1344 divisors). The ranks share the cases; the work is bounded, not timed. */
#include "mpitest.h"

#define MAXK 6

typedef struct {
    int k, spread, min, tuple[MAXK];
    int found;
} best_t;

/* Every non-increasing tuple cur[d..k-1] of factors at most cap multiplying to m. */
static void enumerate(best_t *b, int m, int d, int cap, int *cur)
{
    if (d == b->k) {
        if (m != 1)
            return;
        int spread = cur[0] - cur[b->k - 1], min = cur[b->k - 1];
        int better = !b->found || spread < b->spread || (spread == b->spread && min > b->min);
        if (!better && spread == b->spread && min == b->min)
            for (int i = 0; i < b->k; i++)
                if (cur[i] != b->tuple[i]) {
                    better = cur[i] < b->tuple[i];
                    break;
                }
        if (better) {
            b->found = 1;
            b->spread = spread;
            b->min = min;
            memcpy(b->tuple, cur, sizeof(int) * (size_t)b->k);
        }
        return;
    }
    for (int f = cap < m ? cap : m; f >= 1; f--)
        if (m % f == 0) {
            cur[d] = f;
            enumerate(b, m / f, d + 1, f, cur);
        }
}

/* dims[nd] with fixed entries (nonzero) and free ones: Dims_create against the search. */
static void check(int nnodes, int nd, const int *fixed)
{
    int dims[MAXK + 2], m = nnodes, k = 0;
    for (int i = 0; i < nd; i++) {
        dims[i] = fixed[i];
        if (fixed[i])
            m /= fixed[i];
        else
            k++;
    }
    char what[160];
    int len = snprintf(what, sizeof what, "Dims_create(%d, (", nnodes);
    for (int i = 0; i < nd; i++)
        len += snprintf(what + len, sizeof what - (size_t)len, "%s%d", i ? "," : "", fixed[i]);
    snprintf(what + len, sizeof what - (size_t)len, "))");
    int rc = MPI_Dims_create(nnodes, nd, dims);
    CHECK(rc == MPI_SUCCESS, "%s failed", what);
    if (rc != MPI_SUCCESS)
        return;
    best_t b = {.k = k};
    int cur[MAXK];
    if (k > 0)
        enumerate(&b, m, 0, m, cur);
    for (int i = 0, j = 0; i < nd; i++) {
        if (fixed[i]) {
            CHECK(dims[i] == fixed[i], "%s: fixed dims[%d] became %d", what, i, dims[i]);
        } else {
            CHECK(dims[i] == b.tuple[j], "%s: dims[%d] = %d, expected %d (spread %d, smallest %d)",
                  what, i, dims[i], b.tuple[j], b.spread, b.min);
            j++;
        }
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int nbig = 0;
    /* the standard's examples and the case that was wrong (20 x 18 x 14 before) */
    int d[3] = {0, 0, 0};
    MPI_OK(MPI_Dims_create(5040, 3, d));
    CHECK(d[0] == 21 && d[1] == 16 && d[2] == 15, "Dims_create(5040, 3): %d x %d x %d, expected "
          "21 x 16 x 15", d[0], d[1], d[2]);
    int e[3] = {0, 0, 0};
    MPI_OK(MPI_Dims_create(4620, 3, e));
    CHECK(e[0] == 22 && e[1] == 15 && e[2] == 14, "Dims_create(4620, 3): %d x %d x %d, expected "
          "22 x 15 x 14", e[0], e[1], e[2]);
    int many[20] = {0}; /* MPICH allows at most 20 dimensions */
    MPI_OK(MPI_Dims_create(1 << 20, 20, many));
    for (int i = 0; i < 20; i++)
        nbig += many[i] != 2;
    CHECK(nbig == 0, "Dims_create(2^20, 20): %d entries are not 2", nbig);
    if (!mt_is_mpich40()) { /* Known deviation, MPICH 4.0: SIGFPE (divides by zero) */
        int prime[4] = {0, 0, 0, 0};
        MPI_OK(MPI_Dims_create(2147483647, 4, prime)); /* a prime: (p, 1, 1, 1) */
        CHECK(prime[0] == 2147483647 && prime[1] == 1 && prime[3] == 1, "Dims_create(2^31-1, 4)");
    }
    int hc[4] = {0, 0, 0, 0};
    MPI_OK(MPI_Dims_create(735134400, 4, hc)); /* 1344 divisors: the search stays short */
    CHECK(hc[0] == 170 && hc[1] == 168 && hc[2] == 165 && hc[3] == 156,
          "Dims_create(735134400, 4): %d %d %d %d, expected 170 168 165 156", hc[0], hc[1], hc[2],
          hc[3]);

    static const int patterns[][MAXK] = {
        {0}, {0, 0}, {0, 0, 0}, {0, 0, 0, 0}, {0, 2, 0}, {3, 0, 0}, {0, 0, 2, 0}, {0, 1, 0, 0},
    };
    static const int npat[] = {1, 2, 3, 4, 3, 3, 4, 4};
    int idx = 0;
    for (int n = 1; n <= 1200; n++)
        for (int p = 0; p < (int)(sizeof npat / sizeof npat[0]); p++) {
            int fixed_product = 1;
            for (int i = 0; i < npat[p]; i++)
                fixed_product *= patterns[p][i] ? patterns[p][i] : 1;
            if (n % fixed_product != 0)
                continue;
            if (idx++ % mt_size == mt_rank)
                check(n, npat[p], patterns[p]);
        }
    return mt_finish();
}
