/* One-sided operations on every kind of target, written for the active messages of
 * src/osc/osc_am.c (ranks of other hosts: placements 2x2 and 4x1; ranks of this host when
 * FERRY_CMA=0 and the memory is not from MPI_Alloc_mem) but valid anywhere. For each window
 * flavour (Win_create over malloc'd memory, Win_allocate, a dynamic window over malloc'd
 * memory), every rank keeps a model of its own window and checks it, and every result, after
 * each epoch (and again for Win_create over MPI_Alloc_mem memory):
 *   fence: Put and Get small, medium, large (beyond the eager limit) and through a vector target
 *          type with holes; Accumulate (SUM, a vector target, MAX, REPLACE, MINLOC on MPI_2INT);
 *          Get_accumulate counted exactly;
 *   lock:  an exclusive lock guarding a read-modify-write of Get + Put from every rank; shared
 *          locks with Gets;
 *   lock_all + flush: a counter incremented with Fetch_and_op by every rank (every value
 *          fetched exactly once), Compare_and_swap with one winner, Rput and Rget, a large
 *          Get_accumulate through a derived type;
 *   PSCW:  a ring of Puts and Accumulates;
 *   types: Put, Get and Accumulate through indexed, negative-stride hvector, subarray and
 *          resized struct target types;
 *   dynamic windows: an access outside the attached memory fails with MPI_ERR_RMA_RANGE, at
 *          the call or when the epoch is completed. */
#include "mpitest.h"

enum { W = 1 << 16 }; /* ints per rank's window */
enum { K = 20 };      /* Fetch_and_op increments per rank */

static int flavor, n, me;
static int *mem;        /* this rank's window */
static int *model;      /* what it must hold */
static MPI_Aint *addrs; /* dynamic windows: every rank's memory address */
static MPI_Win win;

/* The target displacement of int i of rank t. */
static MPI_Aint D(int t, MPI_Aint i)
{
    return flavor == MPI_WIN_FLAVOR_DYNAMIC ? addrs[t] + i * (MPI_Aint)sizeof(int) : i;
}

static int val(int r, int i)
{
    return r * 1000003 + i * 7;
}

static void check_model(const char *what)
{
    int bad = 0;
    for (int i = 0; i < W && bad < 5; i++)
        if (mem[i] != model[i]) {
            CHECK(0, "%s (flavor %d): window int %d is %d, expected %d", what, flavor, i, mem[i],
                  model[i]);
            bad++;
        }
}

/* A vector with holes: 50 blocks of 3 ints, 7 ints apart. */
static MPI_Datatype vec;
enum { VB = 50, VL = 3, VS = 7 };

static void fence_phase(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n, far = (me + 2) % n;
    for (int i = 0; i < W; i++)
        mem[i] = model[i] = val(me, i);
    /* Ints 1000..1015: four MPI_DOUBLE_INT pairs (16 bytes each, 4 of padding). */
    struct dint {
        double v;
        int loc;
    } dpair[4];
    for (int i = 0; i < 4; i++) {
        struct dint d = {me * 0.25 + i, -1};
        memcpy(&mem[1000 + 4 * i], &d, sizeof d);
        memcpy(&model[1000 + 4 * i], &d, sizeof d);
        dpair[i].v = (me * 5 % 3) + 0.5 * i;
        dpair[i].loc = me;
    }
    MPI_OK(MPI_Win_fence(0, win));

    /* Puts to the right neighbour: it receives them from its left one. */
    int *src = malloc(W * sizeof(int));
    for (int i = 0; i < W; i++)
        src[i] = val(me + 100, i);
    MPI_OK(MPI_Put(src, 8, MPI_INT, right, D(right, 10), 8, MPI_INT, win));
    MPI_OK(MPI_Put(src + 8, 1000, MPI_INT, right, D(right, 61000), 1000, MPI_INT, win));
    MPI_OK(MPI_Put(src + 1008, 40000, MPI_INT, right, D(right, 20000), 40000, MPI_INT, win));
    MPI_OK(MPI_Put(src + 41008, VB * VL, MPI_INT, right, D(right, 1200), 1, vec, win));
    for (int i = 0; i < 8; i++)
        model[10 + i] = val(left + 100, i);
    for (int i = 0; i < 1000; i++)
        model[61000 + i] = val(left + 100, 8 + i);
    for (int i = 0; i < 40000; i++)
        model[20000 + i] = val(left + 100, 1008 + i);
    for (int b = 0, k = 0; b < VB; b++)
        for (int j = 0; j < VL; j++, k++)
            model[1200 + b * VS + j] = val(left + 100, 41008 + k);

    /* Gets from two ranks away, of memory nobody writes in this epoch. */
    int *g1 = calloc(200, sizeof(int)), *g2 = calloc(VB * VL, sizeof(int));
    int *g3 = calloc(16384, sizeof(int));
    MPI_OK(MPI_Get(g1, 200, MPI_INT, far, D(far, 5000), 200, MPI_INT, win));
    MPI_OK(MPI_Get(g2, VB * VL, MPI_INT, far, D(far, 8000), 1, vec, win));
    MPI_OK(MPI_Get(g3, 16384, MPI_INT, far, D(far, 2000), 16384, MPI_INT, win));
    /* Accumulates from everybody on everybody. */
    int a1[64], a2[VB * VL], mx[16], pair[2 * 8];
    for (int i = 0; i < 64; i++)
        a1[i] = (me + 1) * (i + 1);
    for (int i = 0; i < VB * VL; i++)
        a2[i] = me + i;
    for (int i = 0; i < 16; i++)
        mx[i] = (me * 37 + i * 11) % 101 * 50000;
    for (int i = 0; i < 8; i++) {
        pair[2 * i] = (me * 3 + i) % n;
        pair[2 * i + 1] = me;
    }
    for (int t = 0; t < n; t++) {
        MPI_OK(MPI_Accumulate(a1, 64, MPI_INT, t, D(t, 300), 64, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(a2, VB * VL, MPI_INT, t, D(t, 1600), 1, vec, MPI_SUM, win));
        MPI_OK(MPI_Accumulate(mx, 16, MPI_INT, t, D(t, 400), 16, MPI_INT, MPI_MAX, win));
        MPI_OK(MPI_Accumulate(pair, 8, MPI_2INT, t, D(t, 500), 8, MPI_2INT, MPI_MINLOC, win));
        MPI_OK(MPI_Accumulate(dpair, 4, MPI_DOUBLE_INT, t, D(t, 1000), 4, MPI_DOUBLE_INT,
                              MPI_MAXLOC, win));
    }
    if (me == 0)
        for (int t = 0; t < n; t++)
            MPI_OK(MPI_Accumulate(a1, 10, MPI_INT, t, D(t, 450), 10, MPI_INT, MPI_REPLACE, win));
    for (int o = 0; o < n; o++) {
        for (int i = 0; i < 64; i++)
            model[300 + i] += (o + 1) * (i + 1);
        for (int b = 0, k = 0; b < VB; b++)
            for (int j = 0; j < VL; j++, k++)
                model[1600 + b * VS + j] += o + k;
        for (int i = 0; i < 16; i++) {
            int v = (o * 37 + i * 11) % 101 * 50000;
            if (v > model[400 + i])
                model[400 + i] = v;
        }
    }
    for (int i = 0; i < 10; i++)
        model[450 + i] = (i + 1);
    for (int i = 0; i < 8; i++) {
        int bv = model[500 + 2 * i], bl = model[500 + 2 * i + 1];
        for (int o = 0; o < n; o++) {
            int v = (o * 3 + i) % n;
            if (v < bv || (v == bv && o < bl)) {
                bv = v;
                bl = o;
            }
        }
        model[500 + 2 * i] = bv;
        model[500 + 2 * i + 1] = bl;
    }
    for (int i = 0; i < 4; i++) {
        struct dint d;
        memcpy(&d, &model[1000 + 4 * i], sizeof d);
        for (int o = 0; o < n; o++) {
            double v = (o * 5 % 3) + 0.5 * i;
            if (v > d.v || (v == d.v && o < d.loc)) {
                d.v = v;
                d.loc = o;
            }
        }
        memcpy(&model[1000 + 4 * i], &d, sizeof d);
    }
    /* Get_accumulate of 1 on rank 0's ints 600..609: the old values fetched are counted. */
    int one[10], old[10];
    for (int i = 0; i < 10; i++)
        one[i] = 1;
    MPI_OK(MPI_Get_accumulate(one, 10, MPI_INT, old, 10, MPI_INT, 0, D(0, 600), 10, MPI_INT,
                              MPI_SUM, win));
    if (me == 0)
        for (int i = 0; i < 10; i++)
            model[600 + i] += n;
    MPI_OK(MPI_Win_fence(0, win));

    for (int i = 0; i < 200; i++)
        CHECK(g1[i] == val(far, 5000 + i), "Get: int %d is %d, expected %d", i, g1[i],
              val(far, 5000 + i));
    for (int b = 0, k = 0; b < VB; b++)
        for (int j = 0; j < VL; j++, k++)
            CHECK(g2[k] == val(far, 8000 + b * VS + j), "Get through a vector: %d is %d", k,
                  g2[k]);
    for (int i = 0; i < 16384; i++)
        if (g3[i] != val(far, 2000 + i)) {
            CHECK(0, "large Get: int %d is %d", i, g3[i]);
            break;
        }
    long sum = 0, want = 0;
    for (int i = 0; i < 10; i++) {
        CHECK(old[i] >= val(0, 600 + i) && old[i] < val(0, 600 + i) + n,
              "Get_accumulate fetched %d at %d", old[i], i);
        sum += old[i] - val(0, 600 + i);
    }
    long total = 0;
    MPI_OK(MPI_Allreduce(&sum, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < 10; i++)
        want += (long)n * (n - 1) / 2;
    CHECK(total == want, "Get_accumulate: the fetched increments sum to %ld, expected %ld", total,
          want);
    check_model("fence epoch");
    free(src);
    free(g1);
    free(g2);
    free(g3);
}

static void lock_phase(void)
{
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Read-modify-write under an exclusive lock: exact only if the lock excludes. */
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < n; s++) {
            int t = (me + s) % n, v = -1;
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
            MPI_OK(MPI_Get(&v, 1, MPI_INT, t, D(t, 700), 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(t, win));
            v++;
            MPI_OK(MPI_Put(&v, 1, MPI_INT, t, D(t, 700), 1, MPI_INT, win));
            MPI_OK(MPI_Win_unlock(t, win));
        }
    model[700] += 3 * n;
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    check_model("exclusive locks");
    /* Shared locks, everybody reading everybody. */
    for (int t = 0; t < n; t++) {
        int g[32];
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        MPI_OK(MPI_Get(g, 32, MPI_INT, t, D(t, 700), 32, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(t, win));
        CHECK(g[0] == val(t, 700) + 3 * n, "shared lock: rank %d's counter is %d", t, g[0]);
        for (int i = 1; i < 32; i++)
            CHECK(g[i] == val(t, 700 + i), "shared lock: rank %d's int %d is %d", t, 700 + i,
                  g[i]);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void lock_all_phase(void)
{
    int last = n - 1;
    MPI_OK(MPI_Win_lock_all(0, win));
    /* A counter on rank 0 (int) and rank n-1 (long long at int 800, 8-aligned). */
    int got[K];
    long long lgot[K];
    for (int k = 0; k < K; k++) {
        int one = 1;
        long long lone = 1;
        MPI_OK(MPI_Fetch_and_op(&one, &got[k], MPI_INT, 0, D(0, 720), MPI_SUM, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Fetch_and_op(&lone, &lgot[k], MPI_LONG_LONG, last, D(last, 800), MPI_SUM,
                                win));
        MPI_OK(MPI_Win_flush_all(win));
    }
    /* Compare-and-swap: one rank wins each slot. */
    int cmp = val(1 % n, 740), mine = -(me + 1), prev = 0;
    MPI_OK(MPI_Compare_and_swap(&mine, &cmp, &prev, MPI_INT, 1 % n, D(1 % n, 740), win));
    MPI_OK(MPI_Win_flush(1 % n, win));
    /* Rput to the right, Rget from the left, through a vector too. */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    int ll = (left + n - 1) % n; /* who wrote the left rank's ints 20000.. in the fence epoch */
    int rp[VB * VL], rg[200];
    for (int i = 0; i < VB * VL; i++)
        rp[i] = val(me + 200, i);
    MPI_Request rq[3];
    MPI_OK(MPI_Rput(rp, VB * VL, MPI_INT, right, D(right, 9000), 1, vec, win, &rq[0]));
    MPI_OK(MPI_Rget(rg, 200, MPI_INT, left, D(left, 5000), 200, MPI_INT, win, &rq[1]));
    /* A large Get_accumulate with NO_OP through a derived target type: a read. */
    int *big = malloc(3000 * sizeof(int));
    MPI_Datatype bvec;
    MPI_OK(MPI_Type_vector(1000, 3, 5, MPI_INT, &bvec));
    MPI_OK(MPI_Type_commit(&bvec));
    MPI_OK(MPI_Rget_accumulate(NULL, 0, MPI_INT, big, 3000, MPI_INT, left, D(left, 30000), 1,
                               bvec, MPI_NO_OP, win, &rq[2]));
    MPI_OK(MPI_Waitall(3, rq, MPI_STATUSES_IGNORE));
    /* Large accumulates (their data travels apart): from a strided origin type onto every rank,
     * and a Get_accumulate onto the right neighbour, then Raccumulate. */
    int *acc = malloc(20000 * sizeof(int)), *gold = malloc(5000 * sizeof(int));
    for (int i = 0; i < 20000; i++)
        acc[i] = (i % 2) ? -7 : me + i;
    MPI_Datatype stride2;
    MPI_OK(MPI_Type_vector(10000, 1, 2, MPI_INT, &stride2));
    MPI_OK(MPI_Type_commit(&stride2));
    for (int t = 0; t < n; t++)
        MPI_OK(MPI_Accumulate(acc, 1, stride2, t, D(t, 40000), 10000, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Get_accumulate(acc, 5000, MPI_INT, gold, 5000, MPI_INT, right, D(right, 50000),
                              5000, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Raccumulate(acc, 64, MPI_INT, right, D(right, 56000), 64, MPI_INT, MPI_BXOR, win,
                           &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_flush_all(win));
    for (int i = 0; i < 5000; i++)
        if (gold[i] != val(me + 100, 1008 + 30000 + i)) { /* we put them there */
            CHECK(0, "large Get_accumulate fetched %d at %d, expected %d", gold[i], i,
                  val(me + 100, 1008 + 30000 + i));
            break;
        }
    for (int o = 0; o < n; o++)
        for (int i = 0; i < 10000; i++)
            model[40000 + i] += o + 2 * i;
    for (int i = 0; i < 5000; i++)
        model[50000 + i] += i % 2 ? -7 : left + i;
    for (int i = 0; i < 64; i++)
        model[56000 + i] ^= (i % 2) ? -7 : left + i;
    MPI_OK(MPI_Type_free(&stride2));
    free(acc);
    free(gold);
    for (int i = 0; i < 200; i++)
        CHECK(rg[i] == val(left, 5000 + i), "Rget: int %d is %d", i, rg[i]);
    for (int b = 0, k = 0; b < 1000; b++)
        for (int j = 0; j < 3; j++, k++)
            if (big[k] != val(ll + 100, 1008 + 10000 + b * 5 + j)) {
                CHECK(0, "Rget_accumulate(NO_OP): %d is %d", k, big[k]);
                b = 1000;
                break;
            }
    MPI_OK(MPI_Type_free(&bvec));
    free(big);
    MPI_OK(MPI_Win_unlock_all(win));
    for (int b = 0, k = 0; b < VB; b++)
        for (int j = 0; j < VL; j++, k++)
            model[9000 + b * VS + j] = val(left + 200, k);

    /* Every counter value was fetched exactly once. */
    int *all = me == 0 ? malloc((size_t)n * K * sizeof(int)) : NULL;
    long long *lall = me == 0 ? malloc((size_t)n * K * sizeof(long long)) : NULL;
    int *prevs = me == 0 ? malloc((size_t)n * sizeof(int)) : NULL;
    MPI_OK(MPI_Gather(got, K, MPI_INT, all, K, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Gather(lgot, K, MPI_LONG_LONG, lall, K, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Gather(&prev, 1, MPI_INT, prevs, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (me == 0) {
        char *seen = calloc((size_t)n * K, 1);
        for (int i = 0; i < n * K; i++) {
            int v = all[i] - val(0, 720);
            CHECK(v >= 0 && v < n * K && !seen[v], "Fetch_and_op fetched %d", all[i]);
            if (v >= 0 && v < n * K)
                seen[v] = 1;
        }
        int winners = 0;
        for (int r = 0; r < n; r++)
            winners += prevs[r] == val(1 % n, 740);
        CHECK(winners == 1, "Compare_and_swap: %d winners", winners);
        free(seen);
    }
    /* The long long counters: their values relative to the first fetched must be distinct. */
    long long lmin = lgot[0];
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &lmin, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD));
    if (me == 0) {
        char *lseen = calloc((size_t)n * K, 1);
        for (int i = 0; i < n * K; i++) {
            long long v = lall[i] - lmin;
            CHECK(v >= 0 && v < n * K && !lseen[v], "Fetch_and_op (long long) fetched %lld",
                  lall[i]);
            if (v >= 0 && v < n * K)
                lseen[v] = 1;
        }
        free(lseen);
    }
    if (me == 0)
        model[720] += n * K;
    if (me == last) {
        long long l;
        memcpy(&l, &model[800], sizeof l);
        l += n * K;
        memcpy(&model[800], &l, sizeof l);
    }
    /* The CAS winner: whoever it was, the slot holds a negative rank. */
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 1 % n) {
        CHECK(mem[740] < 0 && mem[740] >= -n, "Compare_and_swap left %d", mem[740]);
        model[740] = mem[740];
    }
    check_model("lock_all epoch");
    free(all);
    free(lall);
    free(prevs);
}

static void pscw_phase(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_Group wg, from, to;
    MPI_OK(MPI_Win_get_group(win, &wg));
    MPI_OK(MPI_Group_incl(wg, 1, &left, &from));
    MPI_OK(MPI_Group_incl(wg, 1, &right, &to));
    for (int round = 0; round < 3; round++) {
        int v[100], a[100];
        for (int i = 0; i < 100; i++) {
            v[i] = val(me + 300 + round, i);
            a[i] = me + round;
        }
        MPI_OK(MPI_Win_post(from, 0, win));
        MPI_OK(MPI_Win_start(to, 0, win));
        MPI_OK(MPI_Put(v, 100, MPI_INT, right, D(right, 10000), 100, MPI_INT, win));
        MPI_OK(MPI_Accumulate(a, 100, MPI_INT, right, D(right, 10200), 100, MPI_INT, MPI_SUM,
                              win));
        MPI_OK(MPI_Win_complete(win));
        MPI_OK(MPI_Win_wait(win));
        for (int i = 0; i < 100; i++) {
            model[10000 + i] = val(left + 300 + round, i);
            model[10200 + i] += left + round;
        }
        check_model("PSCW");
    }
    MPI_OK(MPI_Group_free(&from));
    MPI_OK(MPI_Group_free(&to));
    MPI_OK(MPI_Group_free(&wg));
}

/* More target types: indexed, an hvector with a negative stride, a subarray, a resized struct
 * with holes. The model applies the same types with MPI_Unpack. */
static void types_phase(void)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_Datatype ty[4];
    int bl[3] = {3, 1, 2}, ds[3] = {0, 4, 10};
    MPI_OK(MPI_Type_indexed(3, bl, ds, MPI_INT, &ty[0]));
    MPI_OK(MPI_Type_create_hvector(4, 2, -12 * (MPI_Aint)sizeof(int), MPI_INT, &ty[1]));
    int sz[2] = {8, 8}, sub[2] = {3, 4}, st[2] = {2, 1};
    MPI_OK(MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, MPI_INT, &ty[2]));
    int sbl[2] = {1, 1};
    MPI_Aint sds[2] = {0, 3 * sizeof(int)};
    MPI_Datatype sty[2] = {MPI_INT, MPI_INT}, s0;
    MPI_OK(MPI_Type_create_struct(2, sbl, sds, sty, &s0));
    MPI_OK(MPI_Type_create_resized(s0, 0, 5 * sizeof(int), &ty[3]));
    MPI_OK(MPI_Type_free(&s0));
    const int count[4] = {3, 1, 1, 5};
    const MPI_Aint at[4] = {12000, 12100 + 40, 12200, 12300}; /* the hvector reaches back 36 */
    for (int k = 0; k < 4; k++)
        MPI_OK(MPI_Type_commit(&ty[k]));
    MPI_OK(MPI_Win_fence(0, win));
    int data[4][64], got[4][64], acc[64];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 64; i++)
            data[k][i] = val(me + 400 + k, i);
    for (int i = 0; i < 64; i++)
        acc[i] = me * 3 + i;
    for (int k = 0; k < 4; k++) {
        int sz4;
        MPI_OK(MPI_Type_size(ty[k], &sz4));
        int ne = sz4 / (int)sizeof(int) * count[k];
        MPI_OK(MPI_Put(data[k], ne, MPI_INT, right, D(right, at[k]), count[k], ty[k], win));
        MPI_OK(MPI_Get(got[k], ne, MPI_INT, left, D(left, at[k] + 500), count[k], ty[k], win));
        for (int t = 0; t < n; t++)
            MPI_OK(MPI_Accumulate(acc, ne, MPI_INT, t, D(t, at[k] + 1000), count[k], ty[k],
                                  MPI_SUM, win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    for (int k = 0; k < 4; k++) {
        int sz4, pos;
        MPI_OK(MPI_Type_size(ty[k], &sz4));
        int ne = sz4 / (int)sizeof(int) * count[k];
        int src[64];
        for (int i = 0; i < 64; i++)
            src[i] = val(left + 400 + k, i);
        pos = 0;
        MPI_OK(MPI_Unpack(src, ne * (int)sizeof(int), &pos, model + at[k], count[k], ty[k],
                          MPI_COMM_SELF));
        /* The Get: what the left rank's window held there. */
        int expect[64];
        pos = 0;
        int *lwin = malloc(W * sizeof(int));
        for (int i = 0; i < W; i++)
            lwin[i] = val(left, i);
        MPI_OK(MPI_Pack(lwin + at[k] + 500, count[k], ty[k], expect, sizeof expect, &pos,
                        MPI_COMM_SELF));
        free(lwin);
        for (int i = 0; i < ne; i++)
            CHECK(got[k][i] == expect[i], "Get through type %d: int %d is %d, expected %d", k,
                  i, got[k][i], expect[i]);
        /* The accumulates: the sum over origins, unpacked as a difference. */
        int sum[64], *cur = malloc(W * sizeof(int));
        memcpy(cur, model, W * sizeof(int));
        for (int i = 0; i < ne; i++) {
            sum[i] = 0;
            for (int o = 0; o < n; o++)
                sum[i] += o * 3 + i;
        }
        int packed[64];
        pos = 0;
        MPI_OK(MPI_Pack(cur + at[k] + 1000, count[k], ty[k], packed, sizeof packed, &pos,
                        MPI_COMM_SELF));
        for (int i = 0; i < ne; i++)
            packed[i] += sum[i];
        pos = 0;
        MPI_OK(MPI_Unpack(packed, ne * (int)sizeof(int), &pos, model + at[k] + 1000, count[k],
                          ty[k], MPI_COMM_SELF));
        free(cur);
    }
    check_model("derived target types");
    for (int k = 0; k < 4; k++)
        MPI_OK(MPI_Type_free(&ty[k]));
}

/* Dynamic windows: outside the attached memory. */
static void range_phase(void)
{
    int t = (me + 1) % n, v = 5;
    MPI_Aint bad = addrs[t] + (MPI_Aint)W * (MPI_Aint)sizeof(int) + 4096;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    int rc1 = MPI_Put(&v, 1, MPI_INT, t, bad, 1, MPI_INT, win);
    int rc2 = MPI_Win_unlock(t, win);
    if (rc1 == MPI_SUCCESS)
        CHECK_CLASS(rc2, MPI_ERR_RMA_RANGE, "Put outside the attached memory, at the unlock");
    else
        CHECK_CLASS(rc1, MPI_ERR_RMA_RANGE, "Put outside the attached memory");
    if (rc1 != MPI_SUCCESS && rc2 != MPI_SUCCESS)
        CHECK(0, "both the Put and the unlock failed");
    /* The same with a Get: the error comes back with the answer. */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    rc1 = MPI_Get(&v, 1, MPI_INT, t, bad, 1, MPI_INT, win);
    rc2 = MPI_Win_unlock(t, win);
    if (rc1 == MPI_SUCCESS)
        CHECK_CLASS(rc2, MPI_ERR_RMA_RANGE, "Get outside the attached memory, at the unlock");
    else
        CHECK_CLASS(rc1, MPI_ERR_RMA_RANGE, "Get outside the attached memory");
    /* A request form: the error comes with its completion. */
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    rc1 = MPI_Rput(&v, 1, MPI_INT, t, bad, 1, MPI_INT, win, &rq);
    rc2 = rc1 == MPI_SUCCESS ? MPI_Wait(&rq, MPI_STATUS_IGNORE) : MPI_SUCCESS;
    MPI_OK(MPI_Win_unlock(t, win));
    CHECK_CLASS(rc1 != MPI_SUCCESS ? rc1 : rc2, MPI_ERR_RMA_RANGE,
                "Rput outside the attached memory");
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    n = mt_size;
    me = mt_rank;
    model = malloc(W * sizeof(int));
    addrs = malloc((size_t)n * sizeof(MPI_Aint));
    MPI_OK(MPI_Type_vector(VB, VL, VS, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    /* The fourth: Win_create over MPI_Alloc_mem memory (mapped by the ranks of its host, so
     * their accumulates are CPU atomics, which the target's own execution must match). */
    const int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
                           MPI_WIN_FLAVOR_CREATE};
    for (int f = 0; f < 4; f++) {
        flavor = flavors[f];
        if (f == 3) {
            MPI_OK(MPI_Alloc_mem(W * sizeof(int), MPI_INFO_NULL, &mem));
            MPI_OK(MPI_Win_create(mem, W * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &win));
        } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) {
            MPI_OK(MPI_Win_allocate(W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                    &mem, &win));
        } else if (flavor == MPI_WIN_FLAVOR_CREATE) {
            mem = malloc(W * sizeof(int));
            MPI_OK(MPI_Win_create(mem, W * sizeof(int), sizeof(int), MPI_INFO_NULL,
                                  MPI_COMM_WORLD, &win));
        } else {
            mem = malloc(W * sizeof(int));
            MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            MPI_OK(MPI_Win_attach(win, mem, W * sizeof(int)));
            MPI_Aint a;
            MPI_OK(MPI_Get_address(mem, &a));
            MPI_OK(MPI_Allgather(&a, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
        }
        MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
        fence_phase();
        types_phase();
        MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
        lock_phase();
        lock_all_phase();
        pscw_phase();
        if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
            range_phase();
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (flavor == MPI_WIN_FLAVOR_DYNAMIC)
            MPI_OK(MPI_Win_detach(win, mem));
        MPI_OK(MPI_Win_free(&win));
        if (f == 3)
            MPI_OK(MPI_Free_mem(mem));
        else if (flavor != MPI_WIN_FLAVOR_ALLOCATE)
            free(mem);
    }
    MPI_OK(MPI_Type_free(&vec));
    free(model);
    free(addrs);
    return mt_finish();
}
