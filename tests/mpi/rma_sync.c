/* Synchronisation of one-sided communication (MPI 4.1 12.5): each way to open and close
 * epochs, with the data they must make visible.
 *
 * - Win_fence with its assertions, used where they are true: NOPRECEDE on the first fence,
 *   NOSTORE after an epoch without local stores, NOPUT before an epoch where nobody puts or
 *   accumulates into this window, NOSUCCEED on the last; a Put and an Accumulate from every
 *   rank, Gets in the next epoch, a local store seen by a neighbour's Get after a fence, and
 *   fences with nothing between them.
 * - PSCW with subset groups: each rank exposes its window to its ring neighbours only
 *   (Win_post with {left, right}) and accesses them (Win_start with {left, right}); a second
 *   round where a rank accesses its right neighbour only and exposes to its left only, the
 *   target waiting with a Win_test polling loop; a rank doing both at once.
 * - Win_lock_all/Win_unlock_all from every rank to every rank, and the flushes:
 *   Win_flush_local (the origin buffer is reusable: it is overwritten and sent again),
 *   Win_flush (remote completion: a Get sees it), Win_flush_local_all, Win_flush_all.
 * - Lock compatibility: shared locks of one target held by all ranks at once (a token passed
 *   around a ring while each holds its lock), an exclusive lock excluding another.
 * - Win_sync in the unified model: on a shared window each rank stores into its own segment
 *   directly, Win_sync + barrier + Win_sync, and the others see the values both by Get and by
 *   loads through Win_shared_query's pointer; two rounds, so a stale value shows.
 *
 * The fence, PSCW, lock_all and lock tests run on Win_allocate, Win_create over malloc and
 * Win_create over MPI_Alloc_mem windows. At 1 rank every neighbour is the rank itself. Runs
 * at 1 to 4 ranks. */
#include "mpitest.h"

#include <time.h>

static int left, right;

/* The flavour the fence, PSCW, lock_all and lock tests run on: Win_allocate, Win_create over
 * malloc memory, over MPI_Alloc_mem memory (Ferry reaches them differently: mapped, single
 * copy, mapped through the owner's memfd). */
static int flavor;
static const char *fl_name[3] = {"Win_allocate", "Win_create(malloc)", "Win_create(Alloc_mem)"};

static void make_win(MPI_Aint bytes, int **base, MPI_Win *win)
{
    *base = NULL;
    if (flavor == 0) {
        MPI_MUST(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, base, win));
        return;
    }
    if (bytes && flavor == 1)
        *base = mt_malloc(bytes);
    else if (bytes)
        MPI_MUST(MPI_Alloc_mem(bytes, MPI_INFO_NULL, base));
    MPI_MUST(MPI_Win_create(*base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, win));
}

static void free_win(int *base, MPI_Win *win)
{
    MPI_OK(MPI_Win_free(win));
    if (flavor == 1)
        free(base);
    else if (flavor == 2 && base)
        MPI_OK(MPI_Free_mem(base));
}

static void test_fence(void)
{
    int *b = NULL;
    MPI_Win win;
    make_win(8 * sizeof(int), &b, &win);
    MPI_OK(MPI_Win_fence(0, win));
    for (int i = 0; i < 8; i++)
        b[i] = -1;
    b[1] = 0;
    /* Fences with no operations between them. */
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_fence(0, win));

    /* Epoch 1: Put my rank into the right neighbour's [0], add 1 to everyone's [1].
     * NOPRECEDE is true: nothing was issued since the last fence. */
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    int me = mt_rank, one = 1;
    MPI_OK(MPI_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    for (int t = 0; t < mt_size; t++)
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, t, 1, 1, MPI_INT, MPI_SUM, win));
    /* No local stores in epoch 1 (NOSTORE); nobody puts into me in epoch 2 (NOPUT). */
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    CHECK(b[0] == left && b[1] == mt_size, "fence epoch 1: [0] = %d (expected %d), [1] = %d "
          "(expected %d)", b[0], left, b[1], mt_size);

    /* Epoch 2: Gets only. */
    int g[2] = {-9, -9};
    MPI_OK(MPI_Get(g, 2, MPI_INT, left, 0, 2, MPI_INT, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSTORE, win));
    CHECK(g[0] == (left + mt_size - 1) % mt_size && g[1] == mt_size,
          "fence epoch 2: Get from rank %d gives %d, %d; expected %d, %d", left, g[0], g[1],
          (left + mt_size - 1) % mt_size, mt_size);

    /* Epoch 3: a local store, seen by the left neighbour's Get after the next fence. */
    b[2] = 100 + mt_rank;
    MPI_OK(MPI_Win_fence(0, win));
    int g2 = -9;
    MPI_OK(MPI_Get(&g2, 1, MPI_INT, right, 2, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win));
    CHECK(g2 == 100 + right, "fence: Get of rank %d's local store gives %d, expected %d", right,
          g2, 100 + right);
    free_win(b, &win);
}

static MPI_Group group_of(const int *ranks, int n)
{
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    /* Drop duplicates (left == right at 2 ranks, both == me at 1). */
    int u[2], nu = 0;
    for (int i = 0; i < n; i++)
        if (nu == 0 || u[0] != ranks[i])
            u[nu++] = ranks[i];
    MPI_OK(MPI_Group_incl(wg, nu, u, &g));
    MPI_Group_free(&wg);
    return g;
}

static void test_pscw(void)
{
    int *b = NULL;
    MPI_Win win;
    make_win(4 * sizeof(int), &b, &win);
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
    for (int i = 0; i < 4; i++)
        b[i] = -1;
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* Round 1: neighbours both ways. I put my rank into right's [0] and left's [1]. */
    int nb[2] = {left, right};
    MPI_Group g = group_of(nb, 2);
    MPI_OK(MPI_Win_post(g, 0, win));
    MPI_OK(MPI_Win_start(g, 0, win));
    int me = mt_rank;
    MPI_OK(MPI_Put(&me, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Put(&me, 1, MPI_INT, left, 1, 1, MPI_INT, win));
    MPI_OK(MPI_Win_complete(win));
    MPI_OK(MPI_Win_wait(win));
    CHECK(b[0] == left && b[1] == right, "PSCW ring: [0] = %d (expected %d), [1] = %d "
          "(expected %d)", b[0], left, b[1], right);
    MPI_Group_free(&g);

    /* Round 2: I access only my right neighbour (Get its [0], which is my rank, and Put to
     * its [2]) and am accessed only by my left; Win_test polls for the end of exposure. */
    MPI_Group gl = group_of(&left, 1), gr = group_of(&right, 1);
    MPI_OK(MPI_Win_post(gl, 0, win));
    MPI_OK(MPI_Win_start(gr, 0, win));
    int got = -9, v = 1000 + mt_rank;
    MPI_OK(MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, right, 2, 1, MPI_INT, win));
    MPI_OK(MPI_Win_complete(win));
    CHECK(got == mt_rank, "PSCW: Get from rank %d gives %d, expected %d", right, got, mt_rank);
    int flag = 0;
    long polls = 0;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!flag) {
        MPI_OK(MPI_Win_test(win, &flag));
        polls++;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (!flag && t.tv_sec - t0.tv_sec > 30) {
            mt_fail(__FILE__, __LINE__, "PSCW: Win_test still false after 30 s (%ld polls)", polls);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    CHECK(b[2] == 1000 + left, "PSCW + Win_test: [2] = %d, expected %d", b[2], 1000 + left);
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);

    /* Round 3: rank 0 only exposes, the others only access it (at 1 rank: itself). */
    int zero = 0;
    MPI_Group g0 = group_of(&zero, 1);
    if (mt_rank == 0) {
        MPI_Group wg, others;
        MPI_Comm_group(MPI_COMM_WORLD, &wg);
        if (mt_size > 1) {
            MPI_OK(MPI_Group_excl(wg, 1, &zero, &others));
            MPI_OK(MPI_Win_post(others, 0, win));
            MPI_OK(MPI_Win_wait(win));
            MPI_Group_free(&others);
        }
        MPI_Group_free(&wg);
    } else {
        int one = 1;
        MPI_OK(MPI_Win_start(g0, 0, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Win_complete(win));
    }
    if (mt_rank == 0)
        CHECK(b[3] == -1 + (mt_size - 1), "PSCW to rank 0 only: [3] = %d, expected %d", b[3],
              mt_size - 2);
    MPI_Group_free(&g0);
    free_win(b, &win);
}

#define NL 32
static void test_lock_all_flush(void)
{
    /* Window: NL ints per rank of the job, plus NL for a Put sent twice. */
    int *b = NULL;
    MPI_Win win;
    MPI_Aint n = (MPI_Aint)NL * (mt_size + 1);
    make_win(n * sizeof(int), &b, &win);
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
    for (MPI_Aint i = 0; i < n; i++)
        b[i] = -1;
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    int src[NL], back[NL];
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int t = 0; t < mt_size; t++) {
        for (int i = 0; i < NL; i++)
            src[i] = mt_rank * 100 + t * 10000 + i;
        MPI_OK(MPI_Put(src, NL, MPI_INT, t, (MPI_Aint)NL * mt_rank, NL, MPI_INT, win));
        MPI_OK(MPI_Win_flush_local(t, win)); /* src may be reused now */
    }
    MPI_OK(MPI_Win_flush_all(win)); /* and every Put is complete at its target */
    for (int t = 0; t < mt_size; t++) {
        MPI_OK(MPI_Get(back, NL, MPI_INT, t, (MPI_Aint)NL * mt_rank, NL, MPI_INT, win));
        MPI_OK(MPI_Win_flush(t, win));
        for (int i = 0; i < NL; i++)
            if (back[i] != mt_rank * 100 + t * 10000 + i) {
                mt_fail(__FILE__, __LINE__, "lock_all: Get from rank %d after flush_local + "
                        "flush_all: [%d] = %d, expected %d", t, i, back[i],
                        mt_rank * 100 + t * 10000 + i);
                break;
            }
    }
    /* flush_local_all then reuse: the right neighbour's last block gets the second values
     * (ranks other than me write there too only at 1 rank, where right is me). */
    for (int i = 0; i < NL; i++)
        src[i] = 7000 + i;
    MPI_OK(MPI_Put(src, NL, MPI_INT, right, (MPI_Aint)NL * mt_size, NL, MPI_INT, win));
    MPI_OK(MPI_Win_flush_local_all(win));
    for (int i = 0; i < NL; i++)
        src[i] = 8000 + mt_rank * 10 + i;
    MPI_OK(MPI_Put(src, NL, MPI_INT, right, (MPI_Aint)NL * mt_size, NL, MPI_INT, win));
    MPI_OK(MPI_Win_flush(right, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (int o = 0; o < mt_size; o++)
        for (int i = 0; i < NL; i++)
            if (b[NL * o + i] != o * 100 + mt_rank * 10000 + i) {
                mt_fail(__FILE__, __LINE__, "lock_all: my block from rank %d [%d] = %d, expected "
                        "%d", o, i, b[NL * o + i], o * 100 + mt_rank * 10000 + i);
                break;
            }
    for (int i = 0; i < NL; i++)
        if (b[NL * mt_size + i] != 8000 + left * 10 + i) {
            mt_fail(__FILE__, __LINE__, "flush_local_all then a second Put: [%d] = %d, expected "
                    "%d", i, b[NL * mt_size + i], 8000 + left * 10 + i);
            break;
        }
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    free_win(b, &win);
}

/* Lock compatibility (MPI 4.1 12.5.3): shared locks of one target are held at once by several
 * origins; an exclusive one by one origin at a time. Rank 0's window is the target.
 * Shared: each rank in turn takes a shared lock and makes it effective with a Get + flush,
 * and only then passes a token (by message) to the next; the last holder sends the token back
 * to rank 0 and everyone unlocks. If a shared lock excluded another, this would not end (the
 * test's timeout). Exclusive: rank 1 holds an exclusive lock and stores a marker in two steps
 * (a Put of 1, flush, then a Put of 2) with a message to rank 2 in between; rank 2 takes its
 * exclusive lock only after that message and must then read 2, never 1. */
static void test_lock_compat(void)
{
    if (mt_size < 2)
        return;
    int *b = NULL;
    MPI_Win win;
    make_win(mt_rank == 0 ? 4 * sizeof(int) : 0, &b, &win);
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        b[0] = b[1] = b[2] = b[3] = 0;
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    int token = 0, got = -1;
    if (mt_rank > 0)
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, mt_rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(0, win)); /* the lock is held now */
    token++;
    MPI_OK(MPI_Send(&token, 1, MPI_INT, (mt_rank + 1) % mt_size, 7, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_OK(MPI_Recv(&token, 1, MPI_INT, mt_size - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(token == mt_size, "shared locks: token %d after the ring, expected %d", token,
              mt_size);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every rank holds its shared lock here */
    MPI_OK(MPI_Win_unlock(0, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    if (mt_size >= 3 && (mt_rank == 1 || mt_rank == 2)) {
        int one = 1, two = 2, go = 0;
        if (mt_rank == 1) {
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MPI_OK(MPI_Put(&one, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(0, win));
            MPI_OK(MPI_Send(&go, 1, MPI_INT, 2, 8, MPI_COMM_WORLD));
            /* Give rank 2 time to try its lock while this one is held. */
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 0.2)
                ;
            MPI_OK(MPI_Put(&two, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_unlock(0, win));
        } else {
            MPI_OK(MPI_Recv(&go, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_unlock(0, win));
            CHECK(got == 2, "exclusive locks: read %d inside rank 1's exclusive epoch (expected "
                  "2, written just before rank 1 unlocked)", got);
        }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    free_win(b, &win);
}

static void test_sync_shared(void)
{
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int *mine = NULL;
    MPI_Win win;
    MPI_MUST(MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node,
                                     &mine, &win));
    int **seg = mt_malloc(ns * sizeof(int *));
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz;
        int du;
        MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &seg[r]));
    }
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 4; i++)
            mine[i] = nr * 10 + round * 1000 + i; /* a plain store into my own segment */
        MPI_OK(MPI_Win_sync(win));
        MPI_OK(MPI_Barrier(node));
        MPI_OK(MPI_Win_sync(win));
        for (int r = 0; r < ns; r++) {
            int got[4] = {-1, -1, -1, -1};
            MPI_OK(MPI_Get(got, 4, MPI_INT, r, 0, 4, MPI_INT, win));
            MPI_OK(MPI_Win_flush(r, win));
            for (int i = 0; i < 4; i++) {
                int want = r * 10 + round * 1000 + i;
                volatile int *p = seg[r];
                if (got[i] != want || p[i] != want) {
                    mt_fail(__FILE__, __LINE__, "Win_sync round %d: rank %d's [%d]: Get %d, "
                            "load %d, expected %d", round, r, i, got[i], p[i], want);
                    break;
                }
            }
        }
        /* Nobody stores the next round's values before everyone has read this round's. */
        MPI_OK(MPI_Barrier(node));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    free(seg);
    MPI_OK(MPI_Win_free(&win));
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    left = (mt_rank + mt_size - 1) % mt_size;
    right = (mt_rank + 1) % mt_size;
    for (flavor = 0; flavor < 3; flavor++) {
        int before = mt_errs;
        test_fence();
        test_pscw();
        test_lock_all_flush();
        test_lock_compat();
        if (mt_errs > before)
            printf("[rank %d] FAIL: the %d failures above are on %s windows\n", mt_rank,
                   mt_errs - before, fl_name[flavor]);
    }
    test_sync_shared();
    return mt_finish();
}
