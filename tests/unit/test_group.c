/* Groups as runs of world ranks (src/core/fy_group.c), without MPI_Init: the world is whatever
 * the ranks say. Checks that ranges and strides of a million-rank world take one run and a few
 * dozen bytes, that runs are cut the same way whichever way a group is built (members one by
 * one, or a run at a time), that both lookups agree with a plain array on random groups (with
 * and without the reverse index, with interleaved runs), and every group operation against a
 * reference computed here with plain arrays. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_group.h"
#include "fy_handle.h"
#include "fy_runtime.h"
#include "unit.h"

enum { BIG = 1000000 };

static uint64_t rng;
static unsigned rnd(unsigned n) /* uniform enough in [0, n) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (unsigned)((rng >> 11) % n) : 0;
}

/* How many runs the canonical (greedy) cutting gives, computed from the rule itself. */
static int greedy_runs(const int *w, int n)
{
    int runs = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        if (j < n) {
            long d = (long)w[j] - w[i];
            while (j + 1 < n && (long)w[j + 1] - w[j] == d)
                j++;
            j++;
        }
        runs++;
        i = j;
    }
    return runs;
}

/* g lists exactly w[0..n) (world ranks in [0, world)): both lookups, size, runs. */
static int check_group(const fy_group_t *g, const int *w, int n, int world)
{
    CHECK_EQ(fy_group_size(g), n);
    CHECK_EQ(g->nruns, greedy_runs(w, n));
    CHECK(n > 0 || g == &fy_group_empty);
    int *pos = malloc(((size_t)world + 8) * sizeof *pos);
    CHECK(pos);
    for (int i = 0; i < world + 8; i++)
        pos[i] = MPI_UNDEFINED;
    for (int r = 0; r < n; r++) {
        CHECK_EQ(fy_group_world_rank(g, r), w[r]);
        pos[w[r]] = r;
    }
    int bad = -1;
    for (int x = 0; x < world + 8 && bad < 0; x++)
        if (fy_group_rank_of_world(g, x) != pos[x])
            bad = x;
    free(pos);
    CHECK_EQ(bad, -1);
    CHECK_EQ(fy_group_rank_of_world(g, -1), MPI_UNDEFINED);
    return 0;
}

/* ---- the million-rank world --------------------------------------------------------------- */

static int test_million(void)
{
    fy_group_builder_t b;
    fy_group_t *world, *one_by_one, *s3, *s3rev, *g;
    fy_group_builder_init(&b);
    fy_group_builder_add_run(&b, 0, BIG, 1);
    CHECK_EQ(fy_group_builder_finish("test", &b, &world), MPI_SUCCESS);
    CHECK_EQ(world->nruns, 1);
    CHECK_EQ(fy_group_size(world), BIG);
    CHECK_EQ(fy_group_world_rank(world, 765432), 765432);
    CHECK_EQ(fy_group_rank_of_world(world, 999999), 999999);
    CHECK_EQ(fy_group_rank_of_world(world, BIG), MPI_UNDEFINED);
    int *map = (int *)1;
    fy_rt.size = BIG;
    CHECK_EQ(fy_group_world_of("test", world, &map), MPI_SUCCESS);
    CHECK(map == NULL); /* all of world in order: the communicator needs no rank map */
    fy_rt.size = BIG + 1;
    CHECK_EQ(fy_group_world_of("test", world, &map), MPI_SUCCESS);
    CHECK(map && map[0] == 0 && map[BIG - 1] == BIG - 1); /* a prefix of a larger world */
    free(map);
    fy_rt.size = 0;

    fy_group_builder_init(&b); /* the same world, member by member */
    for (int r = 0; r < BIG; r++)
        fy_group_builder_add(&b, r);
    CHECK_EQ(fy_group_builder_finish("test", &b, &one_by_one), MPI_SUCCESS);
    CHECK_EQ(one_by_one->nruns, 1);
    CHECK_EQ(fy_group_compare(world, one_by_one), MPI_IDENT);

    /* Every third rank, forwards and backwards. */
    const int fwd[1][3] = {{0, BIG - 1, 3}}, back[1][3] = {{BIG - 1, 0, -3}};
    CHECK_EQ(fy_group_range_incl("test", world, 1, fwd, &s3), MPI_SUCCESS);
    CHECK_EQ(s3->nruns, 1);
    CHECK_EQ(fy_group_size(s3), (BIG + 2) / 3);
    CHECK_EQ(fy_group_world_rank(s3, 1000), 3000);
    CHECK_EQ(fy_group_rank_of_world(s3, 2999), MPI_UNDEFINED);
    CHECK_EQ(fy_group_rank_of_world(s3, 3003), 1001);
    CHECK_EQ(fy_group_range_incl("test", world, 1, back, &s3rev), MPI_SUCCESS);
    CHECK_EQ(s3rev->nruns, 1);
    CHECK_EQ(fy_group_world_rank(s3rev, 0), BIG - 1);
    CHECK_EQ(fy_group_compare(s3, s3rev), MPI_SIMILAR);
    CHECK_EQ(fy_group_world_of("test", s3, &map), MPI_SUCCESS);
    CHECK(map && map[5] == 15);
    free(map);

    printf("  world of %d ranks: %d run, %zu bytes (a rank list: %zu bytes); every third rank: "
           "%d run, %zu bytes; backwards: %d run, %zu bytes\n",
           BIG, world->nruns, fy_group_bytes(world), (size_t)BIG * sizeof(int), s3->nruns,
           fy_group_bytes(s3), s3rev->nruns, fy_group_bytes(s3rev));
    CHECK(fy_group_bytes(world) <= 128 && fy_group_bytes(s3) <= 128);

    /* A stride of a stride is one run; so are set operations whose answer is a progression. */
    const int sub[1][3] = {{10, 300000, 7}};
    CHECK_EQ(fy_group_range_incl("test", s3, 1, sub, &g), MPI_SUCCESS);
    CHECK_EQ(g->nruns, 1);
    CHECK_EQ(fy_group_world_rank(g, 2), 3 * (10 + 14));
    fy_group_release(g);
    fy_group_t *evens, *odds, *u, *s6;
    const int ev[1][3] = {{0, BIG - 1, 2}}, od[1][3] = {{1, BIG - 1, 2}};
    CHECK_EQ(fy_group_range_incl("test", world, 1, ev, &evens), MPI_SUCCESS);
    CHECK_EQ(fy_group_range_incl("test", world, 1, od, &odds), MPI_SUCCESS);
    CHECK_EQ(fy_group_union("test", evens, odds, &u), MPI_SUCCESS);
    CHECK_EQ(u->nruns, 2);
    CHECK_EQ(fy_group_compare(u, world), MPI_SIMILAR);
    CHECK_EQ(fy_group_intersection("test", evens, s3, &s6), MPI_SUCCESS);
    CHECK_EQ(s6->nruns, 1);
    CHECK_EQ(fy_group_size(s6), (BIG + 5) / 6);
    CHECK_EQ(fy_group_world_rank(s6, 7), 42);
    fy_group_release(u);
    CHECK_EQ(fy_group_difference("test", world, evens, &u), MPI_SUCCESS);
    CHECK_EQ(fy_group_compare(u, odds), MPI_IDENT);
    fy_group_release(u);

    /* World minus one rank, or minus a block: two runs. */
    CHECK_EQ(fy_group_excl("test", world, 1, (const int[]){4321}, &g), MPI_SUCCESS);
    CHECK_EQ(g->nruns, 2);
    CHECK_EQ(fy_group_world_rank(g, 4321), 4322);
    fy_group_release(g);
    const int block[1][3] = {{100, 199, 1}};
    CHECK_EQ(fy_group_range_excl("test", world, 1, block, &g), MPI_SUCCESS);
    CHECK_EQ(g->nruns, 2);
    CHECK_EQ(fy_group_size(g), BIG - 100);
    CHECK_EQ(fy_group_rank_of_world(g, 200), 100);
    printf("  world minus a block of 100: %d runs, %zu bytes\n", g->nruns, fy_group_bytes(g));
    fy_group_release(g);
    /* Translating the whole stride-3 group into the world group. */
    int n3 = fy_group_size(s3);
    int *in = malloc((size_t)n3 * sizeof *in), *out = malloc((size_t)n3 * sizeof *out);
    CHECK(in && out);
    for (int i = 0; i < n3; i++)
        in[i] = i;
    CHECK_EQ(fy_group_translate("test", s3, n3, in, world, out), MPI_SUCCESS);
    int bad = -1;
    for (int i = 0; i < n3 && bad < 0; i++)
        if (out[i] != 3 * i)
            bad = i;
    free(in);
    free(out);
    CHECK_EQ(bad, -1);

    fy_group_t *all[] = {world, one_by_one, s3, s3rev, evens, odds, s6};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        fy_group_release(all[i]);
    CHECK_EQ(fy_group_live(), 0);
    return 0;
}

/* ---- random groups ------------------------------------------------------------------------ */

/* A random sequence of distinct world ranks in [0, world): pieces that are progressions (the
 * common shapes), a shuffled remainder, or a transpose (interleaved strided runs). Returns n. */
static int random_ranks(int *w, int world, int *cuts, int *ncuts)
{
    char *used = calloc((size_t)world, 1);
    int n = 0, kind = (int)rnd(4);
    *ncuts = 0;
    if (kind == 3) { /* k x m grid read column by column */
        int k = 2 + (int)rnd(20), m = world / k;
        for (int j = 0; j < m; j++) {
            cuts[(*ncuts)++] = n;
            for (int i = 0; i < k; i++)
                w[n++] = i * m + j;
        }
        free(used);
        return n;
    }
    int pieces = 1 + (int)rnd(kind == 0 ? 3 : 40);
    for (int p = 0; p < pieces; p++) {
        int first = (int)rnd((unsigned)world), stride = 1 + (int)rnd(kind == 2 ? 1 : 9);
        if (rnd(3) == 0)
            stride = -stride;
        int count = 1 + (int)rnd((unsigned)world / 4);
        cuts[(*ncuts)++] = n;
        for (int c = 0; c < count; c++) {
            long x = first + (long)c * stride;
            if (x < 0 || x >= world)
                break;
            if (used[x])
                continue;
            used[x] = 1;
            w[n++] = (int)x;
        }
    }
    if (kind == 1) { /* shuffle a tail, breaking runs */
        int from = n / 2;
        for (int i = n - 1; i > from; i--) {
            int j = from + (int)rnd((unsigned)(i - from + 1)), t = w[i];
            w[i] = w[j];
            w[j] = t;
        }
        *ncuts = 0;
    }
    free(used);
    return n;
}

/* The same sequence built a run at a time: each piece between cuts that is a progression is
 * added with add_run, others member by member. */
static fy_group_t *build_by_pieces(const int *w, int n, const int *cuts, int ncuts)
{
    fy_group_builder_t b;
    fy_group_builder_init(&b);
    for (int c = 0; c < ncuts || (ncuts == 0 && c == 0); c++) {
        int lo = ncuts ? cuts[c] : 0, hi = ncuts && c + 1 < ncuts ? cuts[c + 1] : n;
        int prog = hi - lo >= 2;
        for (int i = lo + 2; i < hi && prog; i++)
            prog = w[i] - w[i - 1] == w[lo + 1] - w[lo];
        if (prog)
            fy_group_builder_add_run(&b, w[lo], hi - lo, w[lo + 1] - w[lo]);
        else
            for (int i = lo; i < hi; i++)
                fy_group_builder_add(&b, w[i]);
    }
    fy_group_t *g = NULL;
    if (fy_group_builder_finish("test", &b, &g) != MPI_SUCCESS)
        abort();
    return g;
}

static int test_runs_and_lookups(void)
{
    enum { W = 3000 };
    static int w[W], cuts[W];
    int indexed = 0, interleaved = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rng = seed * 0x9e3779b97f4a7c15ull;
        int ncuts, world = 10 + (int)rnd(W - 10);
        int n = random_ranks(w, world, cuts, &ncuts);
        fy_group_t *g, *h;
        CHECK_EQ(fy_group_from_world_list("test", w, n, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, w, n, world));
        h = build_by_pieces(w, n, cuts, ncuts);
        CHECK_EQ(h->nruns, g->nruns);
        CHECK(memcmp(h->runs, g->runs, (size_t)g->nruns * sizeof *g->runs) == 0);
        CHECK_EQ(fy_group_compare(g, h), MPI_IDENT);
        int *map = NULL;
        CHECK_EQ(fy_group_world_of("test", g, &map), MPI_SUCCESS);
        for (int r = 0; r < n; r++)
            CHECK_EQ(map ? map[r] : r, w[r]);
        free(map);
        indexed += g->by_lo != NULL;
        interleaved += g->by_lo && !g->disjoint;
        fy_group_release(g);
        fy_group_release(h);
    }
    printf("  300 random groups: %d with the reverse index, %d of them interleaved\n", indexed,
           interleaved);
    CHECK(indexed > 50 && interleaved > 20);
    CHECK_EQ(fy_group_live(), 0);
    return 0;
}

/* ---- operations against plain arrays ------------------------------------------------------ */

static int index_of(const int *a, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (a[i] == x)
            return i;
    return MPI_UNDEFINED;
}

static int ref_compare(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    if (memcmp(a, b, (size_t)na * sizeof *a) == 0)
        return MPI_IDENT;
    for (int i = 0; i < na; i++)
        if (index_of(b, nb, a[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
    return MPI_SIMILAR;
}

/* Random triplets naming distinct ranks of a group of n; the ranks in order go to out. */
static int random_ranges(int n, int (*t)[3], int *nt, int *out)
{
    char *used = calloc((size_t)n + 1, 1);
    int m = 0, want = 1 + (int)rnd(4);
    *nt = 0;
    for (int tries = 0; tries < 20 && *nt < want; tries++) {
        int first = (int)rnd((unsigned)n), last = (int)rnd((unsigned)n);
        int stride = (1 + (int)rnd(4)) * (last >= first ? 1 : -1);
        int ok = 1, cnt = (last - first) / stride + 1;
        for (int k = 0; k < cnt && ok; k++)
            ok = !used[first + k * stride];
        if (!ok)
            continue;
        for (int k = 0; k < cnt; k++) {
            used[first + k * stride] = 1;
            out[m++] = first + k * stride;
        }
        t[*nt][0] = first;
        t[*nt][1] = last;
        t[*nt][2] = stride;
        (*nt)++;
    }
    free(used);
    return m;
}

static int test_operations(void)
{
    enum { W = 400 };
    static int a[W], b[W], want[2 * W], sel[W], tmp[W], cuts[W];
    int(*t)[3] = malloc(8 * sizeof *t);
    CHECK(t);
    for (uint64_t seed = 1; seed <= 200; seed++) {
        rng = seed * 0x2545f4914f6cdd1dull;
        int ncuts, world = 5 + (int)rnd(W - 5);
        int na = random_ranks(a, world, cuts, &ncuts);
        int nb = na;
        if (rnd(4) == 0) { /* the same members, in the same order or swapped about */
            memcpy(b, a, (size_t)na * sizeof *a);
            for (int i = 0; i < na && rnd(2); i++) {
                int j = (int)rnd((unsigned)na), x = b[i];
                b[i] = b[j];
                b[j] = x;
            }
        } else {
            nb = random_ranks(b, world, cuts, &ncuts);
        }
        fy_group_t *ga, *gb, *g;
        CHECK_EQ(fy_group_from_world_list("test", a, na, &ga), MPI_SUCCESS);
        CHECK_EQ(fy_group_from_world_list("test", b, nb, &gb), MPI_SUCCESS);
        CHECK_EQ(fy_group_compare(ga, gb), ref_compare(a, na, b, nb));
        CHECK_EQ(fy_group_compare(ga, ga), MPI_IDENT);

        /* union, intersection, difference */
        int n = 0;
        memcpy(want, a, (size_t)na * sizeof *a);
        n = na;
        for (int i = 0; i < nb; i++)
            if (index_of(a, na, b[i]) == MPI_UNDEFINED)
                want[n++] = b[i];
        CHECK_EQ(fy_group_union("test", ga, gb, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, n, world));
        fy_group_release(g);
        n = 0;
        for (int i = 0; i < na; i++)
            if (index_of(b, nb, a[i]) != MPI_UNDEFINED)
                want[n++] = a[i];
        CHECK_EQ(fy_group_intersection("test", ga, gb, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, n, world));
        fy_group_release(g);
        n = 0;
        for (int i = 0; i < na; i++)
            if (index_of(b, nb, a[i]) == MPI_UNDEFINED)
                want[n++] = a[i];
        CHECK_EQ(fy_group_difference("test", ga, gb, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, n, world));
        fy_group_release(g);

        /* translate every rank of a (and PROC_NULL) into b */
        for (int i = 0; i < na; i++)
            sel[i] = i;
        sel[na] = MPI_PROC_NULL;
        CHECK_EQ(fy_group_translate("test", ga, na + 1, sel, gb, tmp), MPI_SUCCESS);
        for (int i = 0; i < na; i++)
            CHECK_EQ(tmp[i], index_of(b, nb, a[i]));
        CHECK_EQ(tmp[na], MPI_PROC_NULL);

        if (na == 0) {
            fy_group_release(ga);
            fy_group_release(gb);
            continue;
        }
        /* incl and excl of a random subset of a, in random order */
        int k = (int)rnd((unsigned)na + 1);
        for (int i = 0; i < na; i++)
            tmp[i] = i;
        for (int i = 0; i < k; i++) {
            int j = i + (int)rnd((unsigned)(na - i)), x = tmp[i];
            tmp[i] = tmp[j];
            tmp[j] = x;
            want[i] = a[tmp[i]];
        }
        CHECK_EQ(fy_group_incl("test", ga, k, tmp, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, k, world));
        fy_group_release(g);
        n = 0;
        for (int i = 0; i < na; i++)
            if (index_of(tmp, k, i) == MPI_UNDEFINED)
                want[n++] = a[i];
        CHECK_EQ(fy_group_excl("test", ga, k, tmp, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, n, world));
        fy_group_release(g);

        /* range_incl and range_excl */
        int nt, m = random_ranges(na, t, &nt, sel);
        for (int i = 0; i < m; i++)
            want[i] = a[sel[i]];
        CHECK_EQ(fy_group_range_incl("test", ga, nt, (const int(*)[3])t, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, m, world));
        fy_group_release(g);
        n = 0;
        for (int i = 0; i < na; i++)
            if (index_of(sel, m, i) == MPI_UNDEFINED)
                want[n++] = a[i];
        CHECK_EQ(fy_group_range_excl("test", ga, nt, (const int(*)[3])t, &g), MPI_SUCCESS);
        CHECK_OK(check_group(g, want, n, world));
        fy_group_release(g);
        fy_group_release(ga);
        fy_group_release(gb);
    }
    free(t);
    CHECK_EQ(fy_group_live(), 0);
    return 0;
}

/* ---- errors, handles and references ------------------------------------------------------- */

static int expect_error(int rc, int cls, const char *text)
{
    CHECK_EQ(rc, cls);
    if (!strstr(fy_err_last_message(), text)) {
        fprintf(stderr, "  message \"%s\" does not mention \"%s\"\n", fy_err_last_message(), text);
        return 1;
    }
    return 0;
}

static int test_errors(void)
{
    fy_group_t *g, *out = (fy_group_t *)1;
    CHECK_EQ(fy_group_from_world_list("test", (const int[]){4, 5, 6, 7, 8}, 5, &g), MPI_SUCCESS);
    const char *fn = "MPI_Group_incl";
    CHECK_OK(expect_error(fy_group_incl(fn, g, -1, NULL, &out), MPI_ERR_ARG, "n = -1"));
    CHECK_OK(expect_error(fy_group_incl(fn, g, 2, (const int[]){0, 5}, &out), MPI_ERR_RANK,
                          "MPI_Group_incl: ranks[1] = 5 is not a rank"));
    CHECK_OK(expect_error(fy_group_incl(fn, g, 3, (const int[]){2, 1, 2}, &out), MPI_ERR_RANK,
                          "ranks[0] and ranks[2] are both 2"));
    CHECK_OK(expect_error(fy_group_excl("MPI_Group_excl", g, 2, (const int[]){3, 3}, &out),
                          MPI_ERR_RANK, "MPI_Group_excl: ranks[0] and ranks[1] are both 3"));
    CHECK_OK(expect_error(fy_group_excl("MPI_Group_excl", g, 1, (const int[]){-2}, &out),
                          MPI_ERR_RANK, "ranks[0] = -2"));
    fn = "MPI_Group_range_incl";
    CHECK_OK(expect_error(fy_group_range_incl(fn, g, 1, (const int[][3]){{0, 4, 0}}, &out),
                          MPI_ERR_ARG, "ranges[0] = (0, 4, 0) has stride 0"));
    CHECK_OK(expect_error(fy_group_range_incl(fn, g, 1, (const int[][3]){{0, 4, -1}}, &out),
                          MPI_ERR_ARG, "leads away"));
    CHECK_OK(expect_error(fy_group_range_incl(fn, g, 1, (const int[][3]){{0, 5, 1}}, &out),
                          MPI_ERR_RANK, "last rank 5 is not a rank"));
    CHECK_OK(expect_error(fy_group_range_excl("MPI_Group_range_excl", g, 2,
                                              (const int[][3]){{0, 4, 2}, {3, 2, -1}}, &out),
                          MPI_ERR_RANK, "rank 2 is named twice, by ranges[0] = (0, 4, 2)"));
    CHECK_OK(expect_error(
        fy_group_translate("MPI_Group_translate_ranks", g, 2, (const int[]){1, 9}, g, (int[2]){0}),
        MPI_ERR_RANK, "ranks1[1] = 9"));
    CHECK(out == (fy_group_t *)1); /* untouched on error */
    CHECK_EQ(fy_group_live(), 1);

    /* Empty results are MPI_GROUP_EMPTY. */
    CHECK_EQ(fy_group_incl(fn, g, 0, NULL, &out), MPI_SUCCESS);
    CHECK(out == &fy_group_empty);
    CHECK_EQ(fy_group_range_excl(fn, g, 1, (const int[][3]){{4, 0, -1}}, &out), MPI_SUCCESS);
    CHECK(out == &fy_group_empty);
    CHECK_EQ(fy_group_difference(fn, g, g, &out), MPI_SUCCESS);
    CHECK(out == &fy_group_empty);
    CHECK_EQ(fy_group_compare(&fy_group_empty, &fy_group_empty), MPI_IDENT);
    CHECK_EQ(fy_group_compare(g, &fy_group_empty), MPI_UNEQUAL);
    fy_group_release(g);
    CHECK_EQ(fy_group_live(), 0);
    return 0;
}

static int test_handles(void)
{
    fy_group_t *g[200];
    for (int i = 0; i < 200; i++) {
        CHECK_EQ(fy_group_from_world_list("test", (const int[]){i, i + 1}, 2, &g[i]), MPI_SUCCESS);
        CHECK_EQ(fy_group_register("test", g[i]), MPI_SUCCESS);
        CHECK_EQ(fy_handle_kind(g[i]->handle), FY_HKIND_DIRECT);
        CHECK_EQ(fy_handle_class(g[i]->handle), FY_HCLASS_GROUP);
        CHECK(fy_group_get(g[i]->handle) == g[i]);
    }
    CHECK(fy_group_get(MPI_GROUP_EMPTY) == &fy_group_empty);
    CHECK(fy_group_get(MPI_GROUP_NULL) == NULL);
    CHECK(fy_group_get(MPI_COMM_WORLD) == NULL);
    /* A reference outlives the handle. */
    MPI_Group h = g[7]->handle;
    fy_group_ref(g[7]);
    fy_group_free_handle(g[7]);
    CHECK(fy_group_get(h) == NULL);
    CHECK_EQ(fy_group_live(), 200);
    CHECK_EQ(fy_group_world_rank(g[7], 1), 8);
    fy_group_release(g[7]);
    CHECK_EQ(fy_group_live(), 199);
    /* Its slot is reused. */
    fy_group_t *again;
    CHECK_EQ(fy_group_from_world_list("test", (const int[]){3}, 1, &again), MPI_SUCCESS);
    CHECK_EQ(fy_group_register("test", again), MPI_SUCCESS);
    CHECK_EQ(again->handle, h);
    /* Finalize frees everything, handles or not. */
    fy_group_ref(g[3]);
    fy_group_fini();
    CHECK_EQ(fy_group_live(), 0);
    CHECK(fy_group_get(h) == NULL);
    return 0;
}

static const unit_case_t cases[] = {
    {"million_rank_world", test_million},
    {"runs_and_lookups", test_runs_and_lookups},
    {"operations", test_operations},
    {"errors", test_errors},
    {"handles", test_handles},
};

/* A failed case may leave groups behind; start each case with none. */
static void reset(void)
{
    fy_group_fini();
    fy_rt.size = 0;
}

int main(void)
{
    return unit_run_with(cases, UNIT_COUNT(cases), reset);
}
