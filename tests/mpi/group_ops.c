/* Every group operation, checked against a reference kept here as a plain array of world ranks
 * in group order: Comm_group (world, self, a duplicate, a split numbered backwards, an
 * intercommunicator's local group), Comm_remote_group, Group_size/rank, incl, excl,
 * range_incl and range_excl (random lists and triplets with negative strides, on random bases,
 * several seeds), union, intersection and difference (both orders, with itself and with
 * MPI_GROUP_EMPTY), translate_ranks (MPI_PROC_NULL, non-members), compare (IDENT, SIMILAR,
 * UNEQUAL), free (MPI_GROUP_NULL after, MPI_GROUP_EMPTY accepted), empty results, many
 * create/free cycles, and the error classes under MPI_ERRORS_RETURN on COMM_SELF.
 *
 * Known deviations of MPICH 4.0: it does not detect a rank listed twice in Group_incl/excl,
 * reports invalid or repeated ranks in range triplets as MPI_ERR_ARG rather than MPI_ERR_RANK,
 * returns a handle other than MPI_GROUP_EMPTY when Group_range_excl leaves nothing,
 * translates MPI_PROC_NULL to MPI_UNDEFINED when group2 is MPI_GROUP_EMPTY, and answers
 * Comm_remote_group on an intracommunicator. */
#include "mpitest.h"

static uint64_t rng;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (unsigned)((rng >> 11) % n) : 0;
}

static int index_of(const int *a, int n, int x)
{
    for (int i = 0; i < n; i++)
        if (a[i] == x)
            return i;
    return MPI_UNDEFINED;
}

static MPI_Group world_group;

/* g must list exactly the world ranks ref[0..n): size, rank, both translations. */
static void check_group(MPI_Group g, const int *ref, int n, const char *what)
{
    int size = -1, rank = -2;
    if (MPI_OK(MPI_Group_size(g, &size)) != MPI_SUCCESS)
        return;
    CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    MPI_OK(MPI_Group_rank(g, &rank));
    int my = index_of(ref, n, mt_rank);
    CHECK(rank == my, "%s: rank %d, expected %d", what, rank, my);
    if (size != n)
        return;
    int *in = mt_malloc(sizeof(int) * (size_t)(n + mt_size)), *out = in + n;
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_OK(MPI_Group_translate_ranks(g, n, in, world_group, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] == ref[i], "%s: member %d is world rank %d, expected %d", what, i, out[i],
              ref[i]);
    int *wr = mt_malloc(sizeof(int) * 2 * (size_t)mt_size), *wout = wr + mt_size;
    for (int w = 0; w < mt_size; w++)
        wr[w] = w;
    MPI_OK(MPI_Group_translate_ranks(world_group, mt_size, wr, g, wout));
    for (int w = 0; w < mt_size; w++)
        CHECK(wout[w] == index_of(ref, n, w), "%s: world rank %d translates to %d, expected %d",
              what, w, wout[w], index_of(ref, n, w));
    if (n == 0 && !mt_is_mpich40())
        CHECK(g == MPI_GROUP_EMPTY, "%s: an empty result is not MPI_GROUP_EMPTY", what);
    free(in);
    free(wr);
}

static void free_group(MPI_Group *g, const char *what)
{
    MPI_OK(MPI_Group_free(g));
    CHECK(*g == MPI_GROUP_NULL, "%s: handle is 0x%x after MPI_Group_free", what, (unsigned)*g);
}

static int ref_compare(const int *a, int na, const int *b, int nb)
{
    if (na != nb)
        return MPI_UNEQUAL;
    int same = 1;
    for (int i = 0; i < na; i++) {
        if (index_of(b, nb, a[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
        same &= a[i] == b[i];
    }
    return same ? MPI_IDENT : MPI_SIMILAR;
}

/* A random subset of 0..n-1 in random order; returns its size. */
static int random_list(int n, int *out, int allow_all)
{
    int k = (int)rnd((unsigned)n + (allow_all ? 1 : 0));
    for (int i = 0; i < n; i++)
        out[i] = i;
    for (int i = 0; i < k; i++) {
        int j = i + (int)rnd((unsigned)(n - i)), t = out[i];
        out[i] = out[j];
        out[j] = t;
    }
    return k;
}

/* Random triplets over a group of n naming distinct ranks (in order in `named`). */
static int random_ranges(int n, int (*t)[3], int *nt, int *named)
{
    char used[64] = {0};
    int m = 0, want = (int)rnd(4);
    *nt = 0;
    for (int tries = 0; tries < 12 && *nt < want && n > 0; tries++) {
        int first = (int)rnd((unsigned)n), last = (int)rnd((unsigned)n);
        int stride = (1 + (int)rnd(3)) * (last >= first ? 1 : -1);
        int cnt = (last - first) / stride + 1, ok = 1;
        for (int k = 0; k < cnt; k++)
            ok &= !used[first + k * stride];
        if (!ok)
            continue;
        for (int k = 0; k < cnt; k++) {
            used[first + k * stride] = 1;
            named[m++] = first + k * stride;
        }
        t[*nt][0] = first;
        t[*nt][1] = last;
        t[*nt][2] = stride;
        (*nt)++;
    }
    return m;
}

/* A random group of world ranks (by incl or range_incl of the world group). */
static MPI_Group random_group(int *ref, int *n)
{
    MPI_Group g = MPI_GROUP_NULL;
    int list[64], t[4][3], nt;
    if (rnd(2)) {
        *n = random_list(mt_size, list, 1);
        MPI_OK(MPI_Group_incl(world_group, *n, list, &g));
    } else {
        *n = random_ranges(mt_size, t, &nt, list);
        MPI_OK(MPI_Group_range_incl(world_group, nt, t, &g));
    }
    for (int i = 0; i < *n; i++)
        ref[i] = list[i];
    return g;
}

static void set_ops(MPI_Group ga, const int *a, int na, MPI_Group gb, const int *b, int nb,
                    const char *what)
{
    int want[128], n;
    char w[160];
    MPI_Group g;
    n = 0;
    for (int i = 0; i < na; i++)
        want[n++] = a[i];
    for (int i = 0; i < nb; i++)
        if (index_of(a, na, b[i]) == MPI_UNDEFINED)
            want[n++] = b[i];
    snprintf(w, sizeof w, "%s: union", what);
    if (MPI_OK(MPI_Group_union(ga, gb, &g)) == MPI_SUCCESS) {
        check_group(g, want, n, w);
        CHECK(n > 0 || g == MPI_GROUP_EMPTY, "%s is empty but not MPI_GROUP_EMPTY", w);
        free_group(&g, w);
    }
    n = 0;
    for (int i = 0; i < na; i++)
        if (index_of(b, nb, a[i]) != MPI_UNDEFINED)
            want[n++] = a[i];
    snprintf(w, sizeof w, "%s: intersection", what);
    if (MPI_OK(MPI_Group_intersection(ga, gb, &g)) == MPI_SUCCESS) {
        check_group(g, want, n, w);
        CHECK(n > 0 || g == MPI_GROUP_EMPTY, "%s is empty but not MPI_GROUP_EMPTY", w);
        free_group(&g, w);
    }
    n = 0;
    for (int i = 0; i < na; i++)
        if (index_of(b, nb, a[i]) == MPI_UNDEFINED)
            want[n++] = a[i];
    snprintf(w, sizeof w, "%s: difference", what);
    if (MPI_OK(MPI_Group_difference(ga, gb, &g)) == MPI_SUCCESS) {
        check_group(g, want, n, w);
        CHECK(n > 0 || g == MPI_GROUP_EMPTY, "%s is empty but not MPI_GROUP_EMPTY", w);
        free_group(&g, w);
    }
    int res = -1, ref = ref_compare(a, na, b, nb);
    MPI_OK(MPI_Group_compare(ga, gb, &res));
    CHECK(res == ref, "%s: compare gives %d, expected %d", what, res, ref);
    /* translate every member of a, with MPI_PROC_NULL between */
    int in[130], out[130];
    for (int i = 0; i < na; i++) {
        in[2 * i] = i;
        in[2 * i + 1] = MPI_PROC_NULL;
    }
    MPI_OK(MPI_Group_translate_ranks(ga, 2 * na, in, gb, out));
    for (int i = 0; i < na; i++) {
        CHECK(out[2 * i] == index_of(b, nb, a[i]), "%s: translate member %d gives %d, expected %d",
              what, i, out[2 * i], index_of(b, nb, a[i]));
        if (!(gb == MPI_GROUP_EMPTY && mt_is_mpich40()))
            CHECK(out[2 * i + 1] == MPI_PROC_NULL, "%s: MPI_PROC_NULL translates to %d", what,
                  out[2 * i + 1]);
    }
}

/* incl, excl, range_incl, range_excl on a base group. */
static void subsets(MPI_Group base, const int *ref, int n, const char *what)
{
    int list[64], want[64], t[4][3], named[64], nt, k, m;
    char w[160];
    MPI_Group g;
    k = random_list(n, list, 1);
    for (int i = 0; i < k; i++)
        want[i] = ref[list[i]];
    snprintf(w, sizeof w, "%s: incl of %d", what, k);
    if (MPI_OK(MPI_Group_incl(base, k, list, &g)) == MPI_SUCCESS) {
        check_group(g, want, k, w);
        free_group(&g, w);
    }
    m = 0;
    for (int i = 0; i < n; i++)
        if (index_of(list, k, i) == MPI_UNDEFINED)
            want[m++] = ref[i];
    snprintf(w, sizeof w, "%s: excl of %d", what, k);
    if (MPI_OK(MPI_Group_excl(base, k, list, &g)) == MPI_SUCCESS) {
        check_group(g, want, m, w);
        free_group(&g, w);
    }
    m = random_ranges(n, t, &nt, named);
    for (int i = 0; i < m; i++)
        want[i] = ref[named[i]];
    snprintf(w, sizeof w, "%s: range_incl of %d triplets", what, nt);
    if (MPI_OK(MPI_Group_range_incl(base, nt, t, &g)) == MPI_SUCCESS) {
        check_group(g, want, m, w);
        free_group(&g, w);
    }
    k = 0;
    for (int i = 0; i < n; i++)
        if (index_of(named, m, i) == MPI_UNDEFINED)
            want[k++] = ref[i];
    snprintf(w, sizeof w, "%s: range_excl of %d triplets", what, nt);
    if (MPI_OK(MPI_Group_range_excl(base, nt, t, &g)) == MPI_SUCCESS) {
        check_group(g, want, k, w);
        free_group(&g, w);
    }
}

static void test_random(void)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)mt_size;
        for (int iter = 0; iter < 25; iter++) {
            int a[64], b[64], na, nb;
            char what[96];
            MPI_Group ga = random_group(a, &na), gb = random_group(b, &nb);
            snprintf(what, sizeof what, "seed %d iter %d", (int)seed, iter);
            check_group(ga, a, na, what);
            subsets(ga, a, na, what);
            set_ops(ga, a, na, gb, b, nb, what);
            set_ops(gb, b, nb, ga, a, na, what);
            set_ops(ga, a, na, ga, a, na, what);
            set_ops(ga, a, na, MPI_GROUP_EMPTY, b, 0, what);
            set_ops(MPI_GROUP_EMPTY, a, 0, gb, b, nb, what);
            /* the same members reordered: SIMILAR unless the order is unchanged */
            int perm[64], c[64], res = -1;
            MPI_Group gc;
            for (int i = 0; i < na; i++)
                perm[i] = na - 1 - i;
            for (int i = 0; i < na; i++)
                c[i] = a[perm[i]];
            MPI_OK(MPI_Group_incl(ga, na, perm, &gc));
            MPI_OK(MPI_Group_compare(ga, gc, &res));
            CHECK(res == (na <= 1 ? MPI_IDENT : MPI_SIMILAR), "%s: reversed compare gives %d", what,
                  res);
            check_group(gc, c, na, what);
            free_group(&gc, what);
            free_group(&ga, what);
            free_group(&gb, what);
        }
    }
}

static void test_fixed(void)
{
    int n = mt_size, res = -1, rank = -1, size = -1, all[64], rev[64];
    for (int i = 0; i < n; i++) {
        all[i] = i;
        rev[i] = n - 1 - i;
    }
    check_group(world_group, all, n, "world group");
    MPI_Group g2, self, dupg, g;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g2));
    MPI_OK(MPI_Group_compare(world_group, g2, &res));
    CHECK(res == MPI_IDENT, "two world groups compare %d", res);
    MPI_OK(MPI_Comm_group(MPI_COMM_SELF, &self));
    check_group(self, &mt_rank, 1, "self group");
    MPI_OK(MPI_Group_compare(self, world_group, &res));
    CHECK(res == (n == 1 ? MPI_IDENT : MPI_UNEQUAL), "self vs world compare %d", res);
    MPI_Comm dup;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_group(dup, &dupg));
    MPI_OK(MPI_Group_compare(dupg, world_group, &res));
    CHECK(res == MPI_IDENT, "dup's group vs world compare %d", res);
    MPI_OK(MPI_Comm_free(&dup));
    /* The group outlives its communicator. */
    check_group(dupg, all, n, "group of a freed duplicate");
    free_group(&dupg, "dup group");

    int r[1][3] = {{n - 1, 0, -1}};
    MPI_OK(MPI_Group_range_incl(world_group, 1, r, &g));
    check_group(g, rev, n, "reversed world");
    MPI_OK(MPI_Group_compare(g, world_group, &res));
    CHECK(res == (n == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed vs world compare %d", res);
    int back[64];
    MPI_OK(MPI_Group_translate_ranks(g, n, all, world_group, back));
    for (int i = 0; i < n; i++)
        CHECK(back[i] == n - 1 - i, "reversed member %d is world %d", i, back[i]);
    free_group(&g, "reversed");
    /* Every other rank, and the rest. */
    int ev[1][3] = {{0, n - 1, 2}}, evens[64], odds[64], ne = 0, no = 0;
    for (int i = 0; i < n; i++) {
        if (i % 2)
            odds[no++] = i;
        else
            evens[ne++] = i;
    }
    MPI_OK(MPI_Group_range_incl(world_group, 1, ev, &g));
    check_group(g, evens, ne, "even ranks");
    MPI_Group odd;
    MPI_OK(MPI_Group_range_excl(world_group, 1, ev, &odd));
    check_group(odd, odds, no, "odd ranks");
    free_group(&g, "evens");
    free_group(&odd, "odds");

    /* Empty results and MPI_GROUP_EMPTY itself. */
    MPI_OK(MPI_Group_incl(world_group, 0, all, &g));
    CHECK(g == MPI_GROUP_EMPTY, "incl of nothing is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_free(&g));
    MPI_OK(MPI_Group_excl(world_group, n, all, &g));
    CHECK(g == MPI_GROUP_EMPTY, "excl of everything is not MPI_GROUP_EMPTY");
    MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &size));
    MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
    CHECK(size == 0 && rank == MPI_UNDEFINED, "MPI_GROUP_EMPTY: size %d rank %d", size, rank);
    MPI_OK(MPI_Group_compare(MPI_GROUP_EMPTY, g, &res));
    CHECK(res == MPI_IDENT, "empty vs empty compare %d", res);
    g = MPI_GROUP_EMPTY;
    free_group(&g, "MPI_GROUP_EMPTY");
    int out = 0;
    MPI_OK(MPI_Group_translate_ranks(world_group, 1, &mt_rank, MPI_GROUP_EMPTY, &out));
    CHECK(out == MPI_UNDEFINED, "translate into the empty group gives %d", out);
    MPI_OK(MPI_Group_translate_ranks(world_group, 0, NULL, self, NULL));

    /* Many create/free cycles, some groups kept alive across them. */
    MPI_Group keep[16];
    for (int i = 0; i < 2000; i++) {
        int pick = i % n;
        MPI_OK(MPI_Group_incl(world_group, 1, &pick, &g));
        if (i % 125 == 0)
            keep[i / 125] = g;
        else
            MPI_OK(MPI_Group_free(&g));
    }
    for (int i = 0; i < 16; i++) {
        int w = -1, zero = 0;
        MPI_OK(MPI_Group_translate_ranks(keep[i], 1, &zero, world_group, &w));
        CHECK(w == (i * 125) % n, "kept group %d holds world rank %d", i, w);
        MPI_OK(MPI_Group_free(&keep[i]));
    }
    free_group(&g2, "world group 2");
    free_group(&self, "self group");
}

/* Groups of a split numbered backwards and of an intercommunicator between its two halves. */
static void test_comms(void)
{
    int n = mt_size, mine[64], other[64], nm = 0, no = 0, res = -1;
    for (int w = n - 1; w >= 0; w--) {
        if (w % 2 == mt_rank % 2)
            mine[nm++] = w;
        else
            other[no++] = w;
    }
    MPI_Comm split, inter;
    MPI_Group g, lg, rg;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &split));
    MPI_OK(MPI_Comm_group(split, &g));
    check_group(g, mine, nm, "group of a split numbered backwards");
    if (n >= 2) {
        MPI_OK(MPI_Intercomm_create(split, 0, MPI_COMM_WORLD, other[0], 7, &inter));
        MPI_OK(MPI_Comm_remote_group(inter, &rg));
        check_group(rg, other, no, "remote group of an intercommunicator");
        MPI_OK(MPI_Comm_group(inter, &lg));
        MPI_OK(MPI_Group_compare(lg, g, &res));
        CHECK(res == MPI_IDENT, "local group of the intercommunicator vs the split: %d", res);
        MPI_OK(MPI_Comm_free(&inter));
        check_group(rg, other, no, "remote group after its intercommunicator is freed");
        free_group(&rg, "remote group");
        free_group(&lg, "local group");
    }
    if (!mt_is_mpich40())
        CHECK_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &rg), MPI_ERR_COMM,
                    "remote group of an intracommunicator");
    free_group(&g, "split group");
    MPI_OK(MPI_Comm_free(&split));
}

static void test_errors(void)
{
    int n = mt_size, bad = n, dup2[2] = {0, 0}, out[2], res;
    int mpich = mt_is_mpich40();
    MPI_Group g = MPI_GROUP_NULL, wg = world_group;
    CHECK_CLASS(MPI_Group_incl(wg, 1, &bad, &g), MPI_ERR_RANK, "incl of rank size");
    bad = -1;
    CHECK_CLASS(MPI_Group_incl(wg, 1, &bad, &g), MPI_ERR_RANK, "incl of rank -1");
    CHECK_CLASS(MPI_Group_incl(wg, -1, dup2, &g), MPI_ERR_ARG, "incl with n = -1");
    bad = n;
    CHECK_CLASS(MPI_Group_excl(wg, 1, &bad, &g), MPI_ERR_RANK, "excl of rank size");
    if (!mpich) {
        CHECK_CLASS(MPI_Group_incl(wg, 2, dup2, &g), MPI_ERR_RANK, "incl of rank 0 twice");
        CHECK_CLASS(MPI_Group_excl(wg, 2, dup2, &g), MPI_ERR_RANK, "excl of rank 0 twice");
    }
    int zero[1][3] = {{0, 0, 0}}, beyond[1][3] = {{0, n, 1}}, twice[2][3] = {{0, 0, 1}, {0, 0, 1}};
    CHECK_CLASS(MPI_Group_range_incl(wg, 1, zero, &g), MPI_ERR_ARG, "range with stride 0");
    CHECK_CLASS(MPI_Group_range_excl(wg, 1, zero, &g), MPI_ERR_ARG, "range_excl with stride 0");
    CHECK_CLASS(MPI_Group_range_incl(wg, -1, zero, &g), MPI_ERR_ARG, "range_incl with n = -1");
    int rank_cls = mpich ? MPI_ERR_ARG : MPI_ERR_RANK;
    CHECK_CLASS(MPI_Group_range_incl(wg, 1, beyond, &g), rank_cls, "range past the last rank");
    CHECK_CLASS(MPI_Group_range_excl(wg, 1, beyond, &g), rank_cls, "range_excl past the end");
    CHECK_CLASS(MPI_Group_range_incl(wg, 2, twice, &g), rank_cls, "ranges naming 0 twice");
    CHECK_CLASS(MPI_Group_range_excl(wg, 2, twice, &g), rank_cls, "range_excl naming 0 twice");
    if (n > 1) {
        int away[1][3] = {{0, n - 1, -1}};
        CHECK_CLASS(MPI_Group_range_incl(wg, 1, away, &g), MPI_ERR_ARG,
                    "range whose stride leads away from last");
    }
    bad = n;
    CHECK_CLASS(MPI_Group_translate_ranks(wg, 1, &bad, wg, out), MPI_ERR_RANK,
                "translate of rank size");
    CHECK_CLASS(MPI_Group_translate_ranks(wg, -1, &bad, wg, out), MPI_ERR_ARG,
                "translate with n = -1");
    int size;
    CHECK_CLASS(MPI_Group_size(MPI_GROUP_NULL, &size), MPI_ERR_GROUP, "size of MPI_GROUP_NULL");
    CHECK_CLASS(MPI_Group_rank(MPI_GROUP_NULL, &size), MPI_ERR_GROUP, "rank of MPI_GROUP_NULL");
    CHECK_CLASS(MPI_Group_union(MPI_GROUP_NULL, wg, &g), MPI_ERR_GROUP, "union with NULL");
    CHECK_CLASS(MPI_Group_difference(wg, MPI_GROUP_NULL, &g), MPI_ERR_GROUP,
                "difference with NULL");
    CHECK_CLASS(MPI_Group_compare(wg, MPI_GROUP_NULL, &res), MPI_ERR_GROUP, "compare with NULL");
    CHECK_CLASS(MPI_Group_incl(MPI_GROUP_NULL, 0, dup2, &g), MPI_ERR_GROUP, "incl of NULL");
    g = MPI_GROUP_NULL;
    CHECK_CLASS(MPI_Group_free(&g), MPI_ERR_GROUP, "free of MPI_GROUP_NULL");
    CHECK_CLASS(MPI_Comm_group(MPI_COMM_NULL, &g), MPI_ERR_COMM, "group of MPI_COMM_NULL");

    if (mt_library_is("Ferry")) { /* the message names the call, the argument and the value */
        char s[MPI_MAX_ERROR_STRING];
        int len = 0, rc;
        bad = n + 3;
        rc = MPI_Group_incl(wg, 1, &bad, &g);
        MPI_Error_string(rc, s, &len);
        CHECK(strstr(s, "MPI_Group_incl") && strstr(s, "ranks[0]"), "message: %s", s);
        rc = MPI_Group_range_incl(wg, 2, twice, &g);
        MPI_Error_string(rc, s, &len);
        CHECK(strstr(s, "MPI_Group_range_incl") && strstr(s, "twice"), "message: %s", s);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size > 64) {
        if (mt_rank == 0)
            printf("group_ops: at most 64 ranks\n");
        MPI_Finalize();
        return 1;
    }
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    test_fixed();
    test_comms();
    test_random();
    test_errors();
    free_group(&world_group, "world group");
    return mt_finish();
}
