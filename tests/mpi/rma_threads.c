/* One-sided operations from several threads at once (MPI_THREAD_MULTIPLE, MPI 4.1 12.7 and
 * 11.6): inside one lock_all epoch opened by the main thread, NT threads of every rank
 *   - add 1 to a counter at rank 0 with MPI_Fetch_and_op + MPI_Win_flush, K times each: the
 *     final count is size * NT * K and the fetched values, gathered, are exactly 0 .. total-1;
 *   - Put a block of their own into their slot of the right neighbour's window (Win_create over
 *     malloc memory: Ferry's single-copy path), flush, Get it back and compare;
 *   - Accumulate(MPI_SUM) a vector into words all threads of all ranks share: exact sums;
 * then Win_flush_all and Win_unlock_all by the main thread, and the owners check their memory.
 * Without MPI_THREAD_MULTIPLE the test says so and passes. 2 and 4 ranks. */
#include "mpitest.h"

#include <pthread.h>

#define NT 4
#define BLK 256
#define NACC 32

static int K;
static int right;
static MPI_Win cwin, dwin;
static long long *fetched[NT];

typedef struct {
    int t;
    int errs;
} arg_t;

static int pat(int rank, int t, int i)
{
    return rank * 1000000 + t * 10000 + i;
}

static MPI_Aint slot(int t)
{
    return NACC + (MPI_Aint)t * BLK; /* in ints */
}

static void *worker(void *p)
{
    arg_t *a = p;
    long long one = 1;
    int src[BLK], back[BLK], acc[NACC];
    for (int i = 0; i < K; i++) {
        if (MPI_Fetch_and_op(&one, &fetched[a->t][i], MPI_LONG_LONG, 0, 0, MPI_SUM, cwin) !=
                MPI_SUCCESS ||
            MPI_Win_flush(0, cwin) != MPI_SUCCESS)
            a->errs++;
    }
    for (int i = 0; i < BLK; i++)
        src[i] = pat(mt_rank, a->t, i);
    for (int i = 0; i < NACC; i++)
        acc[i] = a->t + 1;
    for (int r = 0; r < 20; r++) {
        memset(back, 0, sizeof back);
        if (MPI_Put(src, BLK, MPI_INT, right, slot(a->t), BLK, MPI_INT, dwin) != MPI_SUCCESS ||
            MPI_Win_flush(right, dwin) != MPI_SUCCESS ||
            MPI_Get(back, BLK, MPI_INT, right, slot(a->t), BLK, MPI_INT, dwin) != MPI_SUCCESS ||
            MPI_Win_flush(right, dwin) != MPI_SUCCESS ||
            MPI_Accumulate(acc, NACC, MPI_INT, right, 0, NACC, MPI_INT, MPI_SUM, dwin) !=
                MPI_SUCCESS)
            a->errs++;
        if (memcmp(back, src, sizeof src) != 0 && !a->errs++)
            printf("[rank %d] FAIL thread %d: Get after Put + flush gives other data\n", mt_rank,
                   a->t);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_setup();
    if (provided < MPI_THREAD_MULTIPLE) {
        if (mt_rank == 0)
            printf("MPI_THREAD_MULTIPLE not provided (%d): nothing to test\n", provided);
        return mt_finish();
    }
    K = mt_size > 2 ? 1000 : 2000;
    right = (mt_rank + 1) % mt_size;

    long long *cbase = NULL;
    MPI_MUST(MPI_Win_allocate(mt_rank == 0 ? sizeof(long long) : 0, sizeof(long long),
                              MPI_INFO_NULL, MPI_COMM_WORLD, &cbase, &cwin));
    MPI_Aint words = NACC + (MPI_Aint)NT * BLK;
    int *dmem = mt_malloc(words * sizeof(int));
    memset(dmem, 0, words * sizeof(int));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, cwin));
        *cbase = 0;
        MPI_OK(MPI_Win_unlock(0, cwin));
    }
    MPI_MUST(MPI_Win_create(dmem, words * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &dwin));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    MPI_OK(MPI_Win_lock_all(0, cwin));
    MPI_OK(MPI_Win_lock_all(0, dwin));
    pthread_t th[NT];
    arg_t args[NT];
    for (int t = 0; t < NT; t++) {
        fetched[t] = mt_malloc(K * sizeof(long long));
        args[t].t = t;
        args[t].errs = 0;
        pthread_create(&th[t], NULL, worker, &args[t]);
    }
    for (int t = 0; t < NT; t++) {
        pthread_join(th[t], NULL);
        CHECK(args[t].errs == 0, "thread %d: %d failed calls or mismatches", t, args[t].errs);
    }
    MPI_OK(MPI_Win_flush_all(dwin));
    MPI_OK(MPI_Win_unlock_all(dwin));
    MPI_OK(MPI_Win_unlock_all(cwin));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* The counter: exact, every value fetched once. */
    long long *mine = mt_malloc((size_t)NT * K * sizeof(long long));
    for (int t = 0; t < NT; t++)
        memcpy(mine + (size_t)t * K, fetched[t], K * sizeof(long long));
    long long total = (long long)mt_size * NT * K;
    long long *all = mt_rank == 0 ? mt_malloc(total * sizeof(long long)) : NULL;
    MPI_OK(MPI_Gather(mine, NT * K, MPI_LONG_LONG, all, NT * K, MPI_LONG_LONG, 0, MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, cwin));
        CHECK(*cbase == total, "threads' counter: %lld, expected %lld", *cbase, total);
        MPI_OK(MPI_Win_unlock(0, cwin));
        char *seen = calloc(total, 1);
        for (long long i = 0; i < total; i++) {
            if (all[i] < 0 || all[i] >= total || seen[all[i]]++) {
                mt_fail(__FILE__, __LINE__, "threads' counter: value %lld fetched twice or out "
                        "of range (a lost update)", all[i]);
                break;
            }
        }
        free(seen);
        free(all);
    }

    /* My window: each thread's block from the left neighbour, and the shared sums: each of
     * the left neighbour's NT threads added t + 1, 20 times. */
    int left = (mt_rank + mt_size - 1) % mt_size;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, dwin));
    for (int t = 0; t < NT; t++)
        for (int i = 0; i < BLK; i++)
            if (dmem[slot(t) + i] != pat(left, t, i)) {
                mt_fail(__FILE__, __LINE__, "block of rank %d thread %d [%d] = %d, expected %d",
                        left, t, i, dmem[slot(t) + i], pat(left, t, i));
                break;
            }
    int want = 0;
    for (int t = 0; t < NT; t++)
        want += 20 * (t + 1);
    for (int i = 0; i < NACC; i++)
        if (dmem[i] != want) {
            mt_fail(__FILE__, __LINE__, "threads' Accumulate word %d = %d, expected %d", i,
                    dmem[i], want);
            break;
        }
    MPI_OK(MPI_Win_unlock(mt_rank, dwin));
    MPI_OK(MPI_Win_free(&dwin));
    MPI_OK(MPI_Win_free(&cwin));
    for (int t = 0; t < NT; t++)
        free(fetched[t]);
    free(mine);
    free(dmem);
    return mt_finish();
}
