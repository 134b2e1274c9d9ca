/* Atomicity of one-sided operations, counted exactly (MPI 4.1 12.7.1: concurrent accumulate
 * calls with the same operation and basic datatype on the same location are atomic per
 * element; Fetch_and_op and Compare_and_swap are accumulate calls).
 *
 * (a) Counter: every rank does N MPI_Fetch_and_op(MPI_SUM, 1) on one word at rank 0, under
 *     MPI_Win_lock_all (flushing each one) and again under MPI_Win_lock(SHARED) per operation,
 *     for MPI_INT, MPI_LONG_LONG, MPI_UNSIGNED and MPI_INT64_T (and MPI_DOUBLE holding
 *     integers, which no CPU atomic instruction adds). The final value must be
 *     size * N and the values fetched by all ranks, gathered and sorted, exactly
 *     0 .. size * N - 1: a lost or doubled update shows as a duplicate or a gap.
 * (b) A spin lock built on MPI_Compare_and_swap (0 -> rank + 1, released by swapping back)
 *     protecting a non-atomic read-modify-write of a second word (Get, flush, increment here,
 *     Put, flush): the count must be exact, and every release must find the lock held by us.
 * (c) Concurrent MPI_Accumulate(MPI_SUM) of vectors of 1 .. 1000 elements (MPI_DOUBLE holding
 *     small integers, so that every sum is exact in any order, and MPI_INT) from all ranks to
 *     the same elements of one target, under lock_all and under fence: exact sums, and the
 *     elements beyond the count untouched.
 * (d) Each operator against a model: under an exclusive lock, one origin per target word runs a
 *     fixed sequence of Fetch_and_op with MPI_REPLACE, MPI_SUM, MPI_NO_OP, MPI_MAX, MPI_MIN,
 *     MPI_BAND, MPI_BOR, MPI_BXOR and Compare_and_swap (matching and not), and Get_accumulate
 *     of a vector with MPI_SUM, MPI_NO_OP and MPI_REPLACE; every fetched value and the final
 *     contents must be what the operator defines. For MPI_INT, MPI_LONG_LONG, MPI_INT64_T,
 *     MPI_SHORT and MPI_SIGNED_CHAR; then again with every rank on its own word of rank 0 at
 *     once under lock_all (neighbouring 1- and 2-byte words changing together).
 *
 * (e) Mixed calls on the same elements: Accumulate, Fetch_and_op and Get_accumulate, all
 *     MPI_SUM on MPI_INT, from different ranks at once: exact sums.
 * (f) Ordering: without a flush between them, Accumulate(MPI_REPLACE, i) then
 *     Get_accumulate(MPI_NO_OP) reads i, and a Fetch_and_op chain fetches 0, 1, 2, ...
 * (g) MPI_MAXLOC/MPI_MINLOC accumulates on MPI_DOUBLE_INT from all ranks at once, with ties:
 *     the extreme value with the lowest rank.
 * (a, c, e, f, g) run on windows of every flavour: Win_allocate, Win_create over malloc and over
 * MPI_Alloc_mem memory, Win_create_dynamic (absolute addresses).
 *
 * Work is bounded by operation counts (N = 2000 per rank, 250 from 8 ranks on), not time.
 * Runs at 2, 4 and 8 ranks and with FERRY_WAIT=block (every waiting rank sleeps at once). */
#include "mpitest.h"

#include <stdint.h>

static int N;

/* ---- (a) the counter ---- */

/* One counter type: reads and writes a value of it through a long long. */
typedef struct {
    MPI_Datatype type;
    const char *name;
    int size;
} ctype_t;

static long long load_as(const void *p, MPI_Datatype t)
{
    if (t == MPI_INT)
        return *(const int *)p;
    if (t == MPI_UNSIGNED)
        return *(const unsigned *)p;
    if (t == MPI_INT64_T)
        return *(const int64_t *)p;
    if (t == MPI_DOUBLE)
        return (long long)*(const double *)p;
    if (t == MPI_SHORT)
        return *(const short *)p;
    if (t == MPI_SIGNED_CHAR)
        return *(const signed char *)p;
    return *(const long long *)p;
}

static void store_as(void *p, MPI_Datatype t, long long v)
{
    if (t == MPI_INT)
        *(int *)p = (int)v;
    else if (t == MPI_UNSIGNED)
        *(unsigned *)p = (unsigned)v;
    else if (t == MPI_INT64_T)
        *(int64_t *)p = v;
    else if (t == MPI_DOUBLE)
        *(double *)p = (double)v;
    else if (t == MPI_SHORT)
        *(short *)p = (short)v;
    else if (t == MPI_SIGNED_CHAR)
        *(signed char *)p = (signed char)v;
    else
        *(long long *)p = v;
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* ---- window flavours ----
 * The same checks run on windows of several flavours, since an implementation reaches their
 * memory differently (Ferry: Win_allocate and Alloc_mem memory mapped by every rank of the
 * host; malloc memory and dynamic windows by single copy, accumulates under a lock). */
enum { FL_ALLOCATE, FL_MALLOC, FL_ALLOCMEM, FL_DYNAMIC, FL_COUNT };
static const char *fl_name[FL_COUNT] = {"Win_allocate", "Win_create(malloc)",
                                        "Win_create(Alloc_mem)", "Win_create_dynamic"};

typedef struct {
    MPI_Win win;
    int flavor;
    void *base;     /* local memory (NULL when bytes is 0) */
    MPI_Aint disp0; /* the target displacement of the first byte of owner's memory */
    int unit;       /* the displacement unit (1 for dynamic windows) */
} fwin_t;

/* Collective. The rank `owner` gives `bytes` bytes (zeroed), the others none. Displacements
 * of element k are disp0 + k (dynamic: disp0 + k * unit bytes, an absolute address). */
static void fwin_make(fwin_t *w, int flavor, int owner, MPI_Aint bytes, int unit)
{
    MPI_Aint mine = mt_rank == owner ? bytes : 0;
    w->flavor = flavor;
    w->base = NULL;
    w->disp0 = 0;
    w->unit = flavor == FL_DYNAMIC ? 1 : unit;
    switch (flavor) {
    case FL_ALLOCATE:
        MPI_MUST(MPI_Win_allocate(mine, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win));
        break;
    case FL_MALLOC:
        w->base = mine ? mt_malloc(mine) : NULL;
        MPI_MUST(MPI_Win_create(w->base, mine, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        break;
    case FL_ALLOCMEM:
        if (mine)
            MPI_MUST(MPI_Alloc_mem(mine, MPI_INFO_NULL, &w->base));
        MPI_MUST(MPI_Win_create(w->base, mine, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        break;
    default:
        MPI_MUST(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        if (mine) {
            w->base = mt_malloc(mine);
            MPI_OK(MPI_Win_attach(w->win, w->base, mine));
            MPI_OK(MPI_Get_address(w->base, &w->disp0));
        }
        MPI_OK(MPI_Bcast(&w->disp0, 1, MPI_AINT, owner, MPI_COMM_WORLD));
        break;
    }
    if (mine) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, owner, 0, w->win));
        memset(w->base, 0, mine);
        MPI_OK(MPI_Win_unlock(owner, w->win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static MPI_Aint fwin_disp(const fwin_t *w, MPI_Aint k, int esize)
{
    return w->flavor == FL_DYNAMIC ? w->disp0 + k * esize : k;
}

static void fwin_free(fwin_t *w)
{
    if (w->flavor == FL_DYNAMIC && w->base)
        MPI_OK(MPI_Win_detach(w->win, w->base));
    MPI_OK(MPI_Win_free(&w->win));
    if (w->flavor == FL_ALLOCMEM && w->base)
        MPI_OK(MPI_Free_mem(w->base));
    else if (w->flavor != FL_ALLOCATE)
        free(w->base);
}

/* A start gate: every rank adds 1 to a word at rank 0 and then polls it until all have
 * arrived, so that the ranks leave together (a barrier lets them go one by one as the
 * scheduler wakes them, and fast operations then never overlap). The gate window stays in a
 * lock_all epoch for the whole program. */
static MPI_Win gate_win;
static long long gate_gen;

static void gate(void)
{
    long long one = 1, zero = 0, v = 0;
    gate_gen++;
    MPI_OK(MPI_Fetch_and_op(&one, &v, MPI_LONG_LONG, 0, 0, MPI_SUM, gate_win));
    MPI_OK(MPI_Win_flush(0, gate_win));
    while (v < gate_gen * mt_size) {
        MPI_OK(MPI_Fetch_and_op(&zero, &v, MPI_LONG_LONG, 0, 0, MPI_NO_OP, gate_win));
        MPI_OK(MPI_Win_flush(0, gate_win));
    }
}

/* mode 0: lock_all + flush per op; mode 1: Win_lock(SHARED) + unlock per op.
 *
 * Where operations are fast (CPU atomics on shared memory), a rank may do all of its n before
 * the next one is scheduled, and nothing would be concurrent. So rounds of n, 2n, 4n, ...
 * operations run until some rank has seen another's update between two of its own (fetched
 * values not consecutive), at most 6 rounds (63 n) under lock_all and 4 (15 n) with a lock
 * per operation (slower everywhere, and where the lock is quick to retake a rank tends to keep
 * it): bounded work either way. A
 * run that never interleaves says so (it shows nothing about atomicity) but does not fail:
 * scheduling is not the library's to promise. */
#define MAX_ROUNDS 6
static void counter(const ctype_t *ct, int mode, int flavor)
{
    char mname[96];
    snprintf(mname, sizeof mname, "%s, %s", mode ? "lock shared per op" : "lock_all + flush",
             fl_name[flavor]);
    int n = mode ? N / 10 : N; /* a lock per operation is slower everywhere */
    fwin_t fw;
    fwin_make(&fw, flavor, 0, 8, ct->size);
    MPI_Win win = fw.win;
    char *base = fw.base;
    MPI_Aint cdisp = fwin_disp(&fw, 0, ct->size);

    long long *got = mt_malloc(((size_t)1 << MAX_ROUNDS) * n * sizeof(long long));
    char one[8], old[8];
    store_as(one, ct->type, 1);
    int rounds = 0, interleaved = 0;
    size_t per = 0; /* operations per rank so far */
    do {
        long long *g = got + per;
        int m = n << rounds;
        gate();
        if (mode == 0)
            MPI_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < m; i++) {
            if (mode == 1)
                MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
            MPI_OK(MPI_Fetch_and_op(one, old, ct->type, 0, cdisp, MPI_SUM, win));
            if (mode == 1)
                MPI_OK(MPI_Win_unlock(0, win));
            else
                MPI_OK(MPI_Win_flush(0, win));
            g[i] = load_as(old, ct->type);
        }
        if (mode == 0)
            MPI_OK(MPI_Win_unlock_all(win));
        int mine = 0;
        for (int i = 1; i < m; i++)
            if (g[i] != g[i - 1] + 1)
                mine = 1;
        MPI_OK(MPI_Allreduce(&mine, &interleaved, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        per += m;
        rounds++;
    } while (!interleaved && rounds < (mode ? 4 : MAX_ROUNDS));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    size_t total = per * mt_size;
    long long *all = mt_rank == 0 ? mt_malloc(total * sizeof(long long)) : NULL;
    MPI_OK(MPI_Gather(got, (int)per, MPI_LONG_LONG, all, (int)per, MPI_LONG_LONG, 0,
                      MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        long long final = load_as(base, ct->type);
        MPI_OK(MPI_Win_unlock(0, win));
        long long want = (long long)total;
        CHECK(final == want, "counter %s, %s: final value %lld, expected %lld (%zu operations "
              "from each of %d ranks)", ct->name, mname, final, want, per, mt_size);
        qsort(all, total, sizeof(long long), cmp_ll);
        for (long long i = 0; i < want; i++)
            if (all[i] != i) {
                mt_fail(__FILE__, __LINE__, "counter %s, %s: sorted fetched values: [%lld] = "
                        "%lld, expected %lld (a lost or repeated update)", ct->name, mname, i,
                        all[i], i);
                break;
            }
        free(all);
        if (!interleaved || getenv("FY_TEST_VERBOSE"))
            printf("counter %s, %s: %d round(s), %zu operations per rank, %s\n", ct->name,
                   mname, rounds, per,
                   interleaved ? "updates interleaved" : "no rank saw another's update "
                   "between two of its own (not concurrent: nothing shown about atomicity)");
    }
    free(got);
    fwin_free(&fw);
}

/* ---- (b) the CAS lock ---- */
static void cas_lock(void)
{
    int m = N / 10;
    int *base = NULL;
    MPI_Win win;
    /* word 0: the lock (0 free, else holder + 1); word 1: the count. */
    MPI_MUST(MPI_Win_allocate(mt_rank == 0 ? 2 * sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &base, &win));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        base[0] = base[1] = 0;
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    /* Rounds of m, 2m, 4m, ... until some rank had to retry an acquisition (the lock was
     * contended), at most 8 rounds, as for the counter. */
    int me = mt_rank + 1, zero = 0, stolen = 0, rounds = 0, contended = 0;
    long spins = 0, total = 0;
    do {
        gate();
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int i = 0; i < (m << rounds); i++) {
            int prev;
            do { /* acquire */
                MPI_OK(MPI_Compare_and_swap(&me, &zero, &prev, MPI_INT, 0, 0, win));
                MPI_OK(MPI_Win_flush(0, win));
                spins++;
            } while (prev != 0);
            int count = -1;
            MPI_OK(MPI_Get(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(0, win));
            count++;
            MPI_OK(MPI_Put(&count, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(0, win));
            MPI_OK(MPI_Compare_and_swap(&zero, &me, &prev, MPI_INT, 0, 0, win)); /* release */
            MPI_OK(MPI_Win_flush(0, win));
            if (prev != me && !stolen++)
                mt_fail(__FILE__, __LINE__, "CAS lock: at release the lock word was %d, expected "
                        "%d (ours): two holders at once", prev, me);
        }
        MPI_OK(MPI_Win_unlock_all(win));
        total += m << rounds;
        int mine = spins > total;
        MPI_OK(MPI_Allreduce(&mine, &contended, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        rounds++;
    } while (!contended && rounds < 8);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(base[1] == total * mt_size && base[0] == 0,
              "CAS lock: count %d (expected %ld), lock word %d (expected 0)", base[1],
              total * mt_size, base[0]);
        MPI_OK(MPI_Win_unlock(0, win));
        if (!contended || getenv("FY_TEST_VERBOSE"))
            printf("CAS lock: %d round(s), %ld acquisitions per rank, %s\n", rounds, total,
                   contended ? "contended" : "never contended (nothing shown about atomicity)");
    }
    MPI_OK(MPI_Win_free(&win));
}

/* ---- (c) concurrent accumulates ---- */
#define MAXC 1000
static void concurrent_acc(int use_fence, int flavor)
{
    static const int counts[] = {1, 2, 3, 17, 64, 255, 1000};
    const int nc = (int)(sizeof counts / sizeof counts[0]);
    const int reps = N / 200 > 0 ? N / 200 : 1;
    char sync[96];
    snprintf(sync, sizeof sync, "%s, %s", use_fence ? "fence" : "lock_all", fl_name[flavor]);
    int target = mt_size - 1; /* not rank 0, for a change */
    fwin_t fd, fi;
    fwin_make(&fd, flavor, target, (MAXC + 8) * sizeof(double), sizeof(double));
    fwin_make(&fi, flavor, target, (MAXC + 8) * sizeof(int), sizeof(int));
    MPI_Win dwin = fd.win, iwin = fi.win;
    double *dbase = fd.base;
    int *ibase = fi.base;
    double dv[MAXC];
    int iv[MAXC];
    for (int i = 0; i < MAXC; i++) {
        dv[i] = mt_rank + 1 + i % 5;
        iv[i] = (mt_rank + 1) * 3 - i % 7;
    }
    for (int c = 0; c < nc; c++) {
        int cnt = counts[c];
        if (mt_rank == target) {
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, dwin));
            MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, iwin));
            for (int i = 0; i < MAXC + 8; i++) {
                dbase[i] = 0.5; /* an offset that a sum of integers cannot produce */
                ibase[i] = -1000000;
            }
            MPI_OK(MPI_Win_unlock(target, iwin));
            MPI_OK(MPI_Win_unlock(target, dwin));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (use_fence) {
            MPI_OK(MPI_Win_fence(0, dwin));
            MPI_OK(MPI_Win_fence(0, iwin));
        } else {
            MPI_OK(MPI_Win_lock_all(0, dwin));
            MPI_OK(MPI_Win_lock_all(0, iwin));
        }
        gate();
        for (int r = 0; r < reps; r++) {
            /* Displacement 1: element 0 must stay untouched too. */
            MPI_OK(MPI_Accumulate(dv, cnt, MPI_DOUBLE, target, fwin_disp(&fd, 1, sizeof(double)),
                                  cnt, MPI_DOUBLE, MPI_SUM, dwin));
            MPI_OK(MPI_Accumulate(iv, cnt, MPI_INT, target, fwin_disp(&fi, 1, sizeof(int)), cnt,
                                  MPI_INT, MPI_SUM, iwin));
        }
        if (use_fence) {
            MPI_OK(MPI_Win_fence(0, dwin));
            MPI_OK(MPI_Win_fence(0, iwin));
        } else {
            MPI_OK(MPI_Win_unlock_all(iwin));
            MPI_OK(MPI_Win_unlock_all(dwin));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (mt_rank == target) {
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, dwin));
            MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, iwin));
            for (int i = 0; i < MAXC + 8; i++) {
                double dw = 0.5;
                long long iw = -1000000;
                if (i >= 1 && i <= cnt) {
                    int k = i - 1;
                    for (int p = 0; p < mt_size; p++) {
                        dw += (double)reps * (p + 1 + k % 5);
                        iw += (long long)reps * ((p + 1) * 3 - k % 7);
                    }
                }
                if (dbase[i] != dw || ibase[i] != iw) {
                    mt_fail(__FILE__, __LINE__, "concurrent Accumulate(SUM) of %d elements x %d "
                            "from %d ranks (%s): [%d] double %.1f (expected %.1f), int %d "
                            "(expected %lld)", cnt, reps, mt_size, sync, i, dbase[i], dw,
                            ibase[i], iw);
                    break;
                }
            }
            MPI_OK(MPI_Win_unlock(target, iwin));
            MPI_OK(MPI_Win_unlock(target, dwin));
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    fwin_free(&fi);
    fwin_free(&fd);
}

/* ---- (e) different accumulate calls on the same elements ----
 * The standard's atomicity holds across Accumulate, Get_accumulate and Fetch_and_op with the
 * same operator and basic type (MPI 4.1 12.7.1). Under lock_all, ranks with rank % 3 == 0
 * add a vector of NM ones with MPI_Accumulate, rank % 3 == 1 add 1 to each element with
 * MPI_Fetch_and_op, rank % 3 == 2 with MPI_Get_accumulate of the vector; each R times. Every
 * element must end at size * R. (An implementation that does single-element Fetch_and_op as
 * CPU atomics and vector accumulates under a lock must make them exclude each other.) */
#define NM 64
static void mixed(int flavor)
{
    const int R = N / 20;
    fwin_t fw;
    fwin_make(&fw, flavor, 0, NM * sizeof(int), sizeof(int));
    int ones[NM], res[NM], one = 1, old[NM]; /* one result buffer per outstanding operation */
    for (int i = 0; i < NM; i++)
        ones[i] = 1;
    gate();
    MPI_OK(MPI_Win_lock_all(0, fw.win));
    for (int r = 0; r < R; r++) {
        if (mt_rank % 3 == 0)
            MPI_OK(MPI_Accumulate(ones, NM, MPI_INT, 0, fwin_disp(&fw, 0, sizeof(int)), NM,
                                  MPI_INT, MPI_SUM, fw.win));
        else if (mt_rank % 3 == 1)
            for (int k = 0; k < NM; k++)
                MPI_OK(MPI_Fetch_and_op(&one, &old[k], MPI_INT, 0,
                                        fwin_disp(&fw, k, sizeof(int)), MPI_SUM, fw.win));
        else
            MPI_OK(MPI_Get_accumulate(ones, NM, MPI_INT, res, NM, MPI_INT, 0,
                                      fwin_disp(&fw, 0, sizeof(int)), NM, MPI_INT, MPI_SUM,
                                      fw.win));
        MPI_OK(MPI_Win_flush(0, fw.win));
    }
    MPI_OK(MPI_Win_unlock_all(fw.win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        int *m = fw.base;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fw.win));
        for (int k = 0; k < NM; k++)
            if (m[k] != mt_size * R) {
                mt_fail(__FILE__, __LINE__, "mixed Accumulate/Fetch_and_op/Get_accumulate "
                        "(MPI_SUM, %s): element %d = %d, expected %d", fl_name[flavor], k, m[k],
                        mt_size * R);
                break;
            }
        MPI_OK(MPI_Win_unlock(0, fw.win));
    }
    fwin_free(&fw);
}

/* ---- (g) pair types ----
 * MPI_MAXLOC and MPI_MINLOC on MPI_DOUBLE_INT (no CPU atomic covers a pair): all ranks at once
 * accumulate NP pairs (value, rank) with values that tie across ranks in places, R times, into
 * rank 0's window; each element must end at the maximum (minimum) value with the lowest rank
 * among those holding it (MPI 4.1 6.9.4). */
#define NP 48
typedef struct {
    double v;
    int loc;
} dint_t;

static double pair_val(int rank, int i)
{
    return (double)((rank * 7 + i * 3) % 5); /* 0..4: ties between ranks */
}

static void pair_acc(int flavor)
{
    const int R = N / 100 > 0 ? N / 100 : 1;
    fwin_t fmax, fmin;
    fwin_make(&fmax, flavor, 0, NP * sizeof(dint_t), sizeof(dint_t));
    fwin_make(&fmin, flavor, 0, NP * sizeof(dint_t), sizeof(dint_t));
    if (mt_rank == 0) { /* start below (above) every value, at a rank no one has */
        dint_t *mx = fmax.base, *mn = fmin.base;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, fmax.win));
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, fmin.win));
        for (int i = 0; i < NP; i++) {
            mx[i].v = -1;
            mn[i].v = 99;
            mx[i].loc = mn[i].loc = 1 << 20;
        }
        MPI_OK(MPI_Win_unlock(0, fmin.win));
        MPI_OK(MPI_Win_unlock(0, fmax.win));
    }
    dint_t mine[NP];
    for (int i = 0; i < NP; i++) {
        mine[i].v = pair_val(mt_rank, i);
        mine[i].loc = mt_rank;
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    gate();
    MPI_OK(MPI_Win_lock_all(0, fmax.win));
    MPI_OK(MPI_Win_lock_all(0, fmin.win));
    for (int r = 0; r < R; r++) {
        MPI_OK(MPI_Accumulate(mine, NP, MPI_DOUBLE_INT, 0, fwin_disp(&fmax, 0, sizeof(dint_t)),
                              NP, MPI_DOUBLE_INT, MPI_MAXLOC, fmax.win));
        MPI_OK(MPI_Accumulate(mine, NP, MPI_DOUBLE_INT, 0, fwin_disp(&fmin, 0, sizeof(dint_t)),
                              NP, MPI_DOUBLE_INT, MPI_MINLOC, fmin.win));
    }
    MPI_OK(MPI_Win_unlock_all(fmin.win));
    MPI_OK(MPI_Win_unlock_all(fmax.win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (mt_rank == 0) {
        dint_t *mx = fmax.base, *mn = fmin.base;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fmax.win));
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fmin.win));
        for (int i = 0; i < NP; i++) {
            dint_t wmax = {-1, 0}, wmin = {99, 0};
            for (int p = 0; p < mt_size; p++) {
                double v = pair_val(p, i);
                if (v > wmax.v)
                    wmax = (dint_t){v, p};
                if (v < wmin.v)
                    wmin = (dint_t){v, p};
            }
            if (mx[i].v != wmax.v || mx[i].loc != wmax.loc || mn[i].v != wmin.v ||
                mn[i].loc != wmin.loc) {
                mt_fail(__FILE__, __LINE__, "MAXLOC/MINLOC (%s) element %d: max (%g, %d), "
                        "expected (%g, %d); min (%g, %d), expected (%g, %d)", fl_name[flavor], i,
                        mx[i].v, mx[i].loc, wmax.v, wmax.loc, mn[i].v, mn[i].loc, wmin.v,
                        wmin.loc);
                break;
            }
        }
        MPI_OK(MPI_Win_unlock(0, fmin.win));
        MPI_OK(MPI_Win_unlock(0, fmax.win));
    }
    fwin_free(&fmin);
    fwin_free(&fmax);
}

/* ---- (f) ordering of accumulates ----
 * With the default accumulate_ordering (rar,raw,war,waw), accumulates from one origin to the
 * same target location are applied in program order (MPI 4.1 12.7.2). Without a flush in
 * between: Accumulate(MPI_REPLACE, i) then Get_accumulate(MPI_NO_OP) must read i; a
 * Fetch_and_op(MPI_SUM) chain must fetch 0, 1, 2, ...; on each window flavour. */
static void ordering(int flavor)
{
    const int K = 200;
    /* Rank 0 holds two words per origin: origin r uses words 2r and 2r + 1. */
    fwin_t fw;
    fwin_make(&fw, flavor, 0, 2 * (MPI_Aint)mt_size * sizeof(long long), sizeof(long long));
    long long *rd = mt_malloc(K * sizeof(long long)), *fo = mt_malloc(K * sizeof(long long));
    long long *val = mt_malloc(K * sizeof(long long)); /* origin buffers stay until unlock */
    long long one = 1, none = 0;
    for (int i = 0; i < K; i++)
        val[i] = i;
    MPI_Aint w0 = fwin_disp(&fw, 2 * mt_rank, sizeof(long long));
    MPI_Aint w1 = fwin_disp(&fw, 2 * mt_rank + 1, sizeof(long long));
    MPI_OK(MPI_Win_lock_all(0, fw.win));
    for (int i = 0; i < K; i++) {
        MPI_OK(MPI_Accumulate(&val[i], 1, MPI_LONG_LONG, 0, w0, 1, MPI_LONG_LONG, MPI_REPLACE,
                              fw.win));
        MPI_OK(MPI_Get_accumulate(&none, 1, MPI_LONG_LONG, &rd[i], 1, MPI_LONG_LONG, 0, w0, 1,
                                  MPI_LONG_LONG, MPI_NO_OP, fw.win));
        MPI_OK(MPI_Fetch_and_op(&one, &fo[i], MPI_LONG_LONG, 0, w1, MPI_SUM, fw.win));
    }
    MPI_OK(MPI_Win_unlock_all(fw.win));
    for (int i = 0; i < K; i++)
        if (rd[i] != i || fo[i] != i) {
            mt_fail(__FILE__, __LINE__, "ordering (%s): step %d: Get_accumulate(NO_OP) after "
                    "Accumulate(REPLACE, %d) read %lld; Fetch_and_op fetched %lld (expected %d)",
                    fl_name[flavor], i, i, rd[i], fo[i], i);
            break;
        }
    free(rd);
    free(fo);
    free(val);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fwin_free(&fw);
}

/* ---- (d) every operator against a model ---- */
typedef struct {
    MPI_Op op;
    const char *name;
    long long operand;
} step_t;

static long long apply(MPI_Op op, long long v, long long x, MPI_Datatype t)
{
    long long r;
    if (op == MPI_REPLACE)
        r = x;
    else if (op == MPI_SUM)
        r = v + x;
    else if (op == MPI_NO_OP)
        r = v;
    else if (op == MPI_MAX)
        r = v > x ? v : x;
    else if (op == MPI_MIN)
        r = v < x ? v : x;
    else if (op == MPI_BAND)
        r = v & x;
    else if (op == MPI_BOR)
        r = v | x;
    else
        r = v ^ x;
    char tmp[8];
    store_as(tmp, t, r); /* wrap as the type does */
    return load_as(tmp, t);
}

/* shared = 0: rank r works on word r of rank r + 1 under an exclusive lock (one origin per
 * target at a time). shared = 1: every rank works on its word r of rank 0 at once under
 * lock_all, so that words of 1, 2, 4 and 8 bytes next to each other change concurrently: an
 * atomic that rewrites more than its element would clobber a neighbour. */
static void op_model(MPI_Datatype type, const char *tname, int tsize, int shared)
{
    static const step_t steps[] = {
        {MPI_REPLACE, "MPI_REPLACE", 12345}, {MPI_SUM, "MPI_SUM", 7},
        {MPI_NO_OP, "MPI_NO_OP", 999},       {MPI_MAX, "MPI_MAX", 100000},
        {MPI_MAX, "MPI_MAX", 5},             {MPI_MIN, "MPI_MIN", 77777},
        {MPI_MIN, "MPI_MIN", 60000},         {MPI_BAND, "MPI_BAND", 0x7ff0},
        {MPI_BOR, "MPI_BOR", 0x10001},       {MPI_BXOR, "MPI_BXOR", 0xffff},
        {MPI_SUM, "MPI_SUM", -10},           {MPI_REPLACE, "MPI_REPLACE", 3},
        {MPI_MIN, "MPI_MIN", -4},            {MPI_MAX, "MPI_MAX", -9},
        {MPI_BXOR, "MPI_BXOR", -1},          {MPI_REPLACE, "MPI_REPLACE", 0x5a5a5a},
    };
    const int ns = (int)(sizeof steps / sizeof steps[0]);
    const int VL = 10; /* Get_accumulate vector length */
    /* Each rank owns word `rank` of every window and a vector after the words; rank r works
     * on word r of its target, so each word has one origin. */
    char *base = NULL;
    MPI_Win win;
    MPI_Aint words = mt_size + VL * mt_size, bytes = words * tsize;
    /* Known deviation, MPICH 4.0: with a Win_allocate size that is not a multiple of 16 bytes,
     * an access to rank r + 1's window lands in rank r's memory (MPI_INT at 2 and 3 ranks
     * here); rma_win checks such sizes on their own. */
    if (mt_is_mpich40())
        bytes = (bytes + 15) / 16 * 16;
    MPI_MUST(MPI_Win_allocate(bytes, tsize, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mt_rank, 0, win));
    memset(base, 0, words * tsize);
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    int t = shared ? 0 : (mt_rank + 1) % mt_size;
    long long model = 0;
    char x[8], old[8];
    if (shared) {
        gate();
        MPI_OK(MPI_Win_lock_all(0, win));
    } else {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    }
    for (int s = 0; s < ns; s++) {
        store_as(x, type, steps[s].operand);
        long long opnd = load_as(x, type); /* the operand as the type holds it */
        memset(old, 0x5c, sizeof old);
        MPI_OK(MPI_Fetch_and_op(x, old, type, t, mt_rank, steps[s].op, win));
        MPI_OK(MPI_Win_flush(t, win));
        long long f = load_as(old, type);
        CHECK(f == model, "Fetch_and_op %s %s(%lld), step %d: fetched %lld, expected %lld", tname,
              steps[s].name, steps[s].operand, s, f, model);
        model = apply(steps[s].op, model, opnd, type);
    }
    /* Compare_and_swap: a compare that does not match leaves the word; one that does swaps. */
    char cmpv[8], swp[8];
    store_as(cmpv, type, model + 1);
    store_as(swp, type, 42);
    MPI_OK(MPI_Compare_and_swap(swp, cmpv, old, type, t, mt_rank, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK(load_as(old, type) == model,
          "Compare_and_swap %s (no match): fetched %lld, expected %lld",
          tname, load_as(old, type), model);
    store_as(cmpv, type, model);
    MPI_OK(MPI_Compare_and_swap(swp, cmpv, old, type, t, mt_rank, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK(load_as(old, type) == model, "Compare_and_swap %s (match): fetched %lld, expected %lld",
          tname, load_as(old, type), model);
    model = 42;
    /* Get_accumulate on a vector: SUM, NO_OP (a pure atomic read), REPLACE (a swap). */
    char vin[10 * 8], vout[10 * 8];
    MPI_Aint vdisp = mt_size + (MPI_Aint)VL * mt_rank;
    for (int i = 0; i < VL; i++)
        store_as(vin + i * tsize, type, i * 3 + 1);
    MPI_OK(MPI_Get_accumulate(vin, VL, type, vout, VL, type, t, vdisp, VL, type, MPI_SUM, win));
    MPI_OK(MPI_Win_flush(t, win));
    for (int i = 0; i < VL; i++)
        CHECK(load_as(vout + i * tsize, type) == 0,
              "Get_accumulate %s MPI_SUM: fetched [%d] = %lld, expected 0", tname, i,
              load_as(vout + i * tsize, type));
    MPI_OK(MPI_Get_accumulate(NULL, 0, type, vout, VL, type, t, vdisp, VL, type, MPI_NO_OP, win));
    MPI_OK(MPI_Win_flush(t, win));
    for (int i = 0; i < VL; i++)
        CHECK(load_as(vout + i * tsize, type) == i * 3 + 1,
              "Get_accumulate %s MPI_NO_OP: fetched [%d] = %lld, expected %d", tname, i,
              load_as(vout + i * tsize, type), i * 3 + 1);
    for (int i = 0; i < VL; i++)
        store_as(vin + i * tsize, type, -i);
    MPI_OK(MPI_Get_accumulate(vin, VL, type, vout, VL, type, t, vdisp, VL, type, MPI_REPLACE,
                              win));
    MPI_OK(MPI_Win_flush(t, win));
    for (int i = 0; i < VL; i++)
        CHECK(load_as(vout + i * tsize, type) == i * 3 + 1,
              "Get_accumulate %s MPI_REPLACE: fetched [%d] = %lld, expected %d", tname, i,
              load_as(vout + i * tsize, type), i * 3 + 1);
    if (shared)
        MPI_OK(MPI_Win_unlock_all(win));
    else
        MPI_OK(MPI_Win_unlock(t, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* The owner checks the final contents of the words and vectors its origins used (every
     * origin ran the same sequence, so every word ends at this rank's model). */
    const char *how = shared ? "all ranks on rank 0 at once" : "exclusive lock";
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, mt_rank, 0, win));
    for (int o = 0; o < mt_size; o++) {
        if (shared ? mt_rank != 0 : o != (mt_rank + mt_size - 1) % mt_size)
            continue;
        CHECK(load_as(base + o * tsize, type) == model, "op model %s (%s): final word of rank "
              "%d = %lld, expected %lld", tname, how, o, load_as(base + o * tsize, type), model);
        for (int i = 0; i < VL; i++) {
            long long w = load_as(base + (mt_size + (MPI_Aint)VL * o + i) * tsize, type);
            CHECK(w == -i, "op model %s (%s): final vector of rank %d [%d] = %lld, expected %d",
                  tname, how, o, i, w, -i);
        }
    }
    MPI_OK(MPI_Win_unlock(mt_rank, win));
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    N = mt_size >= 8 ? 250 : 2000; /* 8 ranks on 2 cores: MPICH needs minutes for more */
    long long *gbase = NULL;
    MPI_MUST(MPI_Win_allocate(mt_rank == 0 ? sizeof(long long) : 0, sizeof(long long),
                            MPI_INFO_NULL, MPI_COMM_WORLD, &gbase, &gate_win));
    if (mt_rank == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, gate_win));
        *gbase = 0;
        MPI_OK(MPI_Win_unlock(0, gate_win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, gate_win));

    static const ctype_t types[] = {
        {0, "MPI_INT", sizeof(int)},
        {0, "MPI_LONG_LONG", sizeof(long long)},
        {0, "MPI_UNSIGNED", sizeof(unsigned)},
        {0, "MPI_INT64_T", sizeof(int64_t)},
        {0, "MPI_DOUBLE", sizeof(double)},
    };
    ctype_t ct[5];
    memcpy(ct, types, sizeof ct);
    ct[0].type = MPI_INT; /* handles are not constant expressions in every mpi.h */
    ct[1].type = MPI_LONG_LONG;
    ct[2].type = MPI_UNSIGNED;
    ct[3].type = MPI_INT64_T;
    ct[4].type = MPI_DOUBLE; /* not a CPU-atomic type: exact for integers below 2^53 */

    double t0 = MPI_Wtime();
    for (int i = 0; i < 5; i++) {
        counter(&ct[i], 0, FL_ALLOCATE);
        counter(&ct[i], 1, FL_ALLOCATE);
    }
    for (int f = FL_MALLOC; f < FL_COUNT; f++) {
        counter(&ct[0], 0, f); /* MPI_INT */
        counter(&ct[1], 0, f); /* MPI_LONG_LONG */
    }
    double t1 = MPI_Wtime();
    cas_lock();
    double t2 = MPI_Wtime();
    for (int f = 0; f < FL_COUNT; f++) {
        concurrent_acc(0, f);
        if (f == FL_ALLOCATE || f == FL_MALLOC) /* fence on two flavours is enough */
            concurrent_acc(1, f);
        mixed(f);
        ordering(f);
        pair_acc(f);
    }
    double t3 = MPI_Wtime();
    if (getenv("FY_TEST_VERBOSE") && mt_rank == 0)
        printf("counters %.2f s, CAS lock %.2f s, accumulates %.2f s\n", t1 - t0, t2 - t1, t3 - t2);
    for (int sh = 0; sh <= 1; sh++) {
        op_model(MPI_INT, "MPI_INT", sizeof(int), sh);
        op_model(MPI_LONG_LONG, "MPI_LONG_LONG", sizeof(long long), sh);
        op_model(MPI_INT64_T, "MPI_INT64_T", sizeof(int64_t), sh);
        op_model(MPI_SHORT, "MPI_SHORT", sizeof(short), sh);
        op_model(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, sh);
    }
    MPI_OK(MPI_Win_unlock_all(gate_win));
    MPI_OK(MPI_Win_free(&gate_win));
    return mt_finish();
}
