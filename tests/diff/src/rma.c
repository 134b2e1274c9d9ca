/* One-sided communication, differential: a fixed sequence of RMA programs whose results the
 * standard fixes, run on every window flavour (Win_create on malloc and on MPI_Alloc_mem memory,
 * Win_allocate, Win_allocate_shared, Win_create_dynamic + attach):
 *   - the window attributes (flavour, model, size, disp_unit) and Win_shared_query's answers;
 *   - a halo exchange of doubles by Put under fence, three steps;
 *   - a ring shift by Get of a strided vector into contiguous ints under PSCW;
 *   - Accumulate of every rank into rank 0 under lock_all with SUM, PROD, MAX, MIN, BAND, BOR,
 *     BXOR, LAND, LOR, LXOR on int and long long, SUM/MAX/MIN/PROD on double, MINLOC/MAXLOC on
 *     MPI_2INT and MPI_DOUBLE_INT, REPLACE on disjoint elements;
 *   - accumulate ordering: REPLACE then SUM then PROD from one origin to the same elements;
 *   - a counter: 10 Fetch_and_op(SUM, 1) per rank on rank 0 (the final value and the sum of
 *     every fetched value are fixed), and Compare_and_swap claims in rank order;
 *   - Get_accumulate (SUM, NO_OP, REPLACE) on disjoint elements under lock per target, shared
 *     and exclusive, and read-modify-write increments under exclusive locks;
 *   - Rput, Rget, Raccumulate, Rget_accumulate under lock_all with flush and flush_local;
 *   - Put/Get of a struct {int, double} with holes into a struct laid out differently.
 * Each result (window memory with its holes, which start as a fixed byte, fetched buffers) is
 * hashed on every rank; rank 0 prints one line per case with every rank's hash (values that
 * are small enough are printed as numbers). Every value is an integer or an exactly
 * representable double, so the order of concurrent accumulates does not matter. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_hashes.h"

enum { N = 64, HOLE = 0xee };

static int rank, size;
#define report diff_record

static void reportf(const char *fmt, const char *what, const void *buf, size_t bytes)
{
    char name[200];
    snprintf(name, sizeof name, fmt, what);
    report(name, buf, bytes);
}

/* ---- windows ---- */

enum { F_MALLOC, F_ALLOCMEM, F_ALLOCATE, F_SHARED, F_DYNAMIC, NFLAV };
static const char *const fname[NFLAV] = {"create(malloc)", "create(Alloc_mem)", "allocate",
                                         "allocate_shared", "dynamic"};

typedef struct {
    int flav, du;
    MPI_Win win;
    char *mem;
    MPI_Aint bytes, *base; /* base[r]: rank r's attached address (dynamic), else 0 */
} win_t;

static void win_make(win_t *w, int flav, MPI_Aint bytes, int du)
{
    w->flav = flav;
    w->du = flav == F_DYNAMIC ? 1 : du;
    w->bytes = bytes;
    w->base = calloc((size_t)size, sizeof(MPI_Aint));
    switch (flav) {
    case F_MALLOC:
        w->mem = malloc((size_t)bytes);
        MPI_Win_create(w->mem, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        break;
    case F_ALLOCMEM:
        MPI_Alloc_mem(bytes, MPI_INFO_NULL, &w->mem);
        MPI_Win_create(w->mem, bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        break;
    case F_ALLOCATE:
        MPI_Win_allocate(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win);
        break;
    case F_SHARED:
        MPI_Win_allocate_shared(bytes, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->mem, &w->win);
        break;
    default: {
        w->mem = malloc((size_t)bytes);
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        MPI_Win_attach(w->win, w->mem, bytes);
        MPI_Aint a;
        MPI_Get_address(w->mem, &a);
        MPI_Allgather(&a, 1, MPI_AINT, w->base, 1, MPI_AINT, MPI_COMM_WORLD);
    }
    }
    /* Fixed content before any epoch: the hole byte, under our own lock. */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w->win);
    memset(w->mem, HOLE, (size_t)bytes);
    MPI_Win_unlock(rank, w->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Displacement of byte offset `off` in rank t's window. */
static MPI_Aint disp(const win_t *w, int t, MPI_Aint off)
{
    return w->flav == F_DYNAMIC ? w->base[t] + off : off / w->du;
}

/* Hashes our window memory (read under our own lock, after a barrier). */
static void win_report(win_t *w, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w->win);
    char name[200];
    snprintf(name, sizeof name, "%s on %s: window", what, fname[w->flav]);
    report(name, w->mem, (size_t)w->bytes);
    MPI_Win_unlock(rank, w->win);
}

static void win_free(win_t *w)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->flav == F_DYNAMIC)
        MPI_Win_detach(w->win, w->mem);
    MPI_Win_free(&w->win);
    if (w->flav == F_MALLOC || w->flav == F_DYNAMIC)
        free(w->mem);
    else if (w->flav == F_ALLOCMEM)
        MPI_Free_mem(w->mem);
    free(w->base);
}

/* ---- the programs ---- */

static void attributes(int flav)
{
    /* Sizes differ by rank only for the shared window (its query is checked). Known
     * deviation, MPICH 4.0: Win_allocate with sizes that differ by rank reports, from rank 2
     * on, an MPI_WIN_BASE 8 bytes before the base pointer it returned. */
    win_t w;
    win_make(&w, flav, flav == F_SHARED ? 96 + 8 * rank : 96, 8);
    int flag = 0, *fl = NULL, *model = NULL, *du = NULL;
    MPI_Aint *sz = NULL;
    void *base = NULL;
    int out[6] = {0};
    MPI_Win_get_attr(w.win, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
    out[0] = flag ? *fl : -1;
    MPI_Win_get_attr(w.win, MPI_WIN_MODEL, &model, &flag);
    out[1] = flag ? *model : -1;
    MPI_Win_get_attr(w.win, MPI_WIN_SIZE, &sz, &flag);
    out[2] = flag ? (int)*sz : -1;
    MPI_Win_get_attr(w.win, MPI_WIN_DISP_UNIT, &du, &flag);
    out[3] = flag ? *du : -1;
    MPI_Win_get_attr(w.win, MPI_WIN_BASE, &base, &flag);
    out[4] = flag && (flav == F_DYNAMIC ? base == MPI_BOTTOM || base == NULL : base == w.mem);
    if (flav == F_SHARED) { /* every rank's segment as seen from here */
        int ok = 1;
        for (int r = 0; r < size; r++) {
            MPI_Aint qs = 0;
            int qd = 0;
            void *qb = NULL;
            MPI_Win_shared_query(w.win, r, &qs, &qd, &qb);
            ok &= qs == 96 + 8 * r && qd == 8 && qb != NULL && (r != rank || qb == w.mem);
        }
        out[5] = ok;
    }
    char name[200];
    snprintf(name, sizeof name,
             "attributes on %s: flavour %d model %d size %d disp_unit %d base ok %d query ok %d",
             fname[flav], out[0], out[1], out[2], out[3], out[4], out[5]);
    report(name, out, sizeof out);
    win_free(&w);
}

/* Halo exchange: N doubles per rank, interior 1..N-2; each step puts our first and last interior
 * value into the neighbours' halos, then averages (exactly: values are multiples of 1/4 kept
 * small by a modulus). */
static void halo(int flav)
{
    win_t w;
    win_make(&w, flav, N * sizeof(double), sizeof(double));
    double *a = (double *)(void *)w.mem;
    MPI_Win_fence(0, w.win);
    for (int i = 0; i < N; i++)
        a[i] = (double)((rank * 37 + i * 11) % 64) * 0.25;
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    for (int step = 0; step < 3; step++) {
        MPI_Win_fence(0, w.win);
        MPI_Put(&a[1], 1, MPI_DOUBLE, left, disp(&w, left, (N - 1) * 8), 1, MPI_DOUBLE, w.win);
        MPI_Put(&a[N - 2], 1, MPI_DOUBLE, right, disp(&w, right, 0), 1, MPI_DOUBLE, w.win);
        MPI_Win_fence(0, w.win);
        double nb[N];
        for (int i = 1; i < N - 1; i++)
            nb[i] = a[i - 1] + a[i + 1] - a[i];
        for (int i = 1; i < N - 1; i++)
            a[i] = nb[i] - 64.0 * (double)(long)(nb[i] / 64.0);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
    reportf("halo by Put under fence, 3 steps, on %s", fname[flav], a, N * sizeof(double));
    win_free(&w);
}

/* Ring shift under PSCW: each rank gets every other int of its right neighbour's window (a
 * vector at the target) into contiguous ints. */
static void ring_get(int flav)
{
    win_t w;
    win_make(&w, flav, 2 * N * sizeof(int), sizeof(int));
    int *a = (int *)(void *)w.mem;
    for (int i = 0; i < 2 * N; i++)
        a[i] = rank * 1000 + i;
    MPI_Datatype vec;
    MPI_Type_vector(N / 2, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Group world, gl, gr;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &left, &gl);
    MPI_Group_incl(world, 1, &right, &gr);
    int got[N];
    memset(got, HOLE, sizeof got);
    MPI_Win_post(gl, 0, w.win);
    MPI_Win_start(gr, 0, w.win);
    MPI_Get(got, N / 2, MPI_INT, right, disp(&w, right, 4 * 4), 1, vec, w.win);
    MPI_Win_complete(w.win);
    MPI_Win_wait(w.win);
    reportf("ring Get of a vector under PSCW on %s", fname[flav], got, sizeof got);
    MPI_Group_free(&gl);
    MPI_Group_free(&gr);
    MPI_Group_free(&world);
    MPI_Type_free(&vec);
    win_free(&w);
}

/* Accumulates of every rank into rank 0 (and REPLACE into a slot per rank). */
static void accumulates(int flav)
{
    static const MPI_Op iops[] = {MPI_SUM, MPI_PROD, MPI_MAX,  MPI_MIN, MPI_BAND,
                                  MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
    static const char *const inames[] = {"SUM", "PROD", "MAX", "MIN", "BAND",
                                         "BOR", "BXOR", "LAND", "LOR", "LXOR"};
    enum { K = 7, NI = 10 };
    /* layout: NI int blocks, NI long long blocks, 4 double blocks, 2INT, DOUBLE_INT, replace */
    MPI_Aint ioff = 0, loff = NI * K * 4, doff = loff + NI * K * 8, poff = doff + 4 * K * 8,
             qoff = poff + 2 * K * 8, roff = qoff + 2 * K * 16, bytes = roff + (MPI_Aint)size * K * 4;
    win_t w;
    win_make(&w, flav, bytes, 1);
    /* initial values at rank 0 (under its own lock): ones, so PROD and LAND mean something */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win);
    for (int b = 0; b < NI; b++)
        for (int e = 0; e < K; e++) {
            int iv = b == 4 ? -1 : 1 + e; /* BAND starts from all ones */
            long long lv = b == 4 ? -1 : (long long)(1 + e) << 33;
            memcpy(w.mem + ioff + (b * K + e) * 4, &iv, 4);
            memcpy(w.mem + loff + (b * K + e) * 8, &lv, 8);
        }
    for (int e = 0; e < 4 * K; e++) {
        double d = 1.5 + e % K;
        memcpy(w.mem + doff + e * 8, &d, 8);
    }
    MPI_Win_unlock(rank, w.win);
    MPI_Barrier(MPI_COMM_WORLD);

    int iv[NI][K];
    long long lv[NI][K];
    double dv[4][K];
    int p2[2 * K];
    struct {
        double d;
        int i;
    } di[K];
    memset(di, 0, sizeof di);
    for (int e = 0; e < K; e++) {
        int x = (rank * 7 + e * 3) % 11;
        iv[0][e] = x - 5;
        iv[1][e] = x % 3 == 0 ? -1 : x % 3 == 1 ? 2 : 1;
        iv[2][e] = iv[3][e] = x * 100 - 500;
        iv[4][e] = ~(1 << ((x + e) % 31));
        iv[5][e] = iv[6][e] = 1 << ((x * 3 + e) % 31);
        iv[7][e] = x != 4;
        iv[8][e] = x == 4;
        iv[9][e] = x % 2;
        for (int b = 0; b < NI; b++)
            lv[b][e] = b == 1 ? iv[b][e] : b == 4 ? ~((long long)1 << ((x + e) % 63))
                                                 : (long long)iv[b][e] << 20;
        dv[0][e] = x * 0.25 - 1;
        dv[1][e] = x % 2 ? 2.0 : -0.5;
        dv[2][e] = dv[3][e] = x * 1.5 - 7;
        p2[2 * e] = x % 4;
        p2[2 * e + 1] = (rank * 5 + e) % size;
        di[e].d = (x % 3) * 0.5;
        di[e].i = (rank * 3 + e) % size;
    }
    int rep[K];
    for (int e = 0; e < K; e++)
        rep[e] = rank * 100 + e;
    static const MPI_Op dops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
    MPI_Win_lock_all(0, w.win);
    for (int b = 0; b < NI; b++) {
        MPI_Accumulate(iv[b], K, MPI_INT, 0, disp(&w, 0, ioff + b * K * 4), K, MPI_INT, iops[b],
                       w.win);
        MPI_Accumulate(lv[b], K, MPI_LONG_LONG, 0, disp(&w, 0, loff + b * K * 8), K,
                       MPI_LONG_LONG, iops[b], w.win);
    }
    for (int b = 0; b < 4; b++)
        MPI_Accumulate(dv[b], K, MPI_DOUBLE, 0, disp(&w, 0, doff + b * K * 8), K, MPI_DOUBLE,
                       dops[b], w.win);
    MPI_Accumulate(p2, K, MPI_2INT, 0, disp(&w, 0, poff), K, MPI_2INT, MPI_MINLOC, w.win);
    MPI_Accumulate(p2, K, MPI_2INT, 0, disp(&w, 0, poff + K * 8), K, MPI_2INT, MPI_MAXLOC, w.win);
    MPI_Accumulate(di, K, MPI_DOUBLE_INT, 0, disp(&w, 0, qoff), K, MPI_DOUBLE_INT, MPI_MINLOC,
                   w.win);
    MPI_Accumulate(di, K, MPI_DOUBLE_INT, 0, disp(&w, 0, qoff + K * 16), K, MPI_DOUBLE_INT,
                   MPI_MAXLOC, w.win);
    MPI_Accumulate(rep, K, MPI_INT, 0, disp(&w, 0, roff + rank * K * 4), K, MPI_INT, MPI_REPLACE,
                   w.win);
    MPI_Win_unlock_all(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    /* rank 0's results, read under its own lock and sent to everyone (all ranks report) */
    char *res = malloc((size_t)roff + (size_t)size * K * 4);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
        memcpy(res, w.mem, (size_t)roff + (size_t)size * K * 4);
        MPI_Win_unlock(0, w.win);
    }
    MPI_Bcast(res, (int)roff + size * K * 4, MPI_BYTE, 0, MPI_COMM_WORLD);
    char name[200];
    for (int b = 0; b < NI; b++) {
        int v[K];
        long long l[K];
        memcpy(v, res + ioff + b * K * 4, sizeof v);
        memcpy(l, res + loff + b * K * 8, sizeof l);
        snprintf(name, sizeof name, "Accumulate %s int on %s: %d %d %d", inames[b], fname[flav],
                 v[0], v[1], v[6]);
        report(name, v, sizeof v);
        snprintf(name, sizeof name, "Accumulate %s long long on %s: %lld %lld", inames[b],
                 fname[flav], l[0], l[6]);
        report(name, l, sizeof l);
    }
    for (int b = 0; b < 4; b++) {
        double d[K];
        memcpy(d, res + doff + b * K * 8, sizeof d);
        snprintf(name, sizeof name, "Accumulate %s double on %s: %g %g", inames[b], fname[flav],
                 d[0], d[6]);
        report(name, d, sizeof d);
    }
    int pp[4 * K];
    memcpy(pp, res + poff, sizeof pp);
    snprintf(name, sizeof name, "Accumulate MINLOC/MAXLOC 2INT on %s: (%d,%d) (%d,%d)",
             fname[flav], pp[0], pp[1], pp[2 * K], pp[2 * K + 1]);
    report(name, pp, sizeof pp);
    unsigned char q[2 * K * 16];
    memcpy(q, res + qoff, sizeof q);
    for (int e = 0; e < 2 * K; e++) /* the padding after the int is not in the type map */
        memset(q + e * 16 + 12, 0, 4);
    reportf("Accumulate MINLOC/MAXLOC DOUBLE_INT on %s", fname[flav], q, sizeof q);
    reportf("Accumulate REPLACE, a slot per rank, on %s", fname[flav], res + roff,
            (size_t)size * K * 4);
    free(res);
    win_free(&w);
}

/* Accumulates from one origin to the same elements are applied in order (the default
 * accumulate_ordering): REPLACE, SUM, PROD on rank (rank + 1) % size. */
static void ordering(int flav)
{
    win_t w;
    win_make(&w, flav, N * 8, 8);
    int t = (rank + 1) % size;
    long long a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = rank * 10 + i;
        b[i] = i % 5 + 1;
        c[i] = i % 3 - 1;
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win);
    for (int rep = 0; rep < 3; rep++) {
        MPI_Accumulate(a, N, MPI_LONG_LONG, t, disp(&w, t, 0), N, MPI_LONG_LONG, MPI_REPLACE,
                       w.win);
        MPI_Accumulate(b, N, MPI_LONG_LONG, t, disp(&w, t, 0), N, MPI_LONG_LONG, MPI_SUM, w.win);
        MPI_Accumulate(c, N, MPI_LONG_LONG, t, disp(&w, t, 0), N, MPI_LONG_LONG, MPI_PROD, w.win);
    }
    MPI_Win_unlock(t, w.win);
    win_report(&w, "ordered accumulates REPLACE, SUM, PROD x3");
    win_free(&w);
}

/* A shared counter and claims. */
static void atomics(int flav)
{
    win_t w;
    win_make(&w, flav, 64, 8);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win);
        memset(w.mem, 0, 64);
        long long m1 = -1;
        memcpy(w.mem + 8, &m1, 8);
        MPI_Win_unlock(0, w.win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long long one = 1, got, sum = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
    for (int i = 0; i < 10; i++) {
        MPI_Fetch_and_op(&one, &got, MPI_LONG_LONG, 0, disp(&w, 0, 0), MPI_SUM, w.win);
        MPI_Win_flush(0, w.win);
        sum += got;
    }
    MPI_Win_unlock(0, w.win);
    long long total = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    /* claims in rank order: only rank 0 finds -1 */
    long long claims[2] = {0, 0};
    for (int r = 0; r < size; r++) {
        if (r == rank) {
            long long mine = rank, cmp = -1, old = 0;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win);
            MPI_Compare_and_swap(&mine, &cmp, &old, MPI_LONG_LONG, 0, disp(&w, 0, 8), w.win);
            MPI_Win_unlock(0, w.win);
            claims[0] = old;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int oldi = 0, nop = 0;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
    MPI_Fetch_and_op(&nop, &oldi, MPI_INT, 0, disp(&w, 0, 16), MPI_NO_OP, w.win);
    MPI_Win_unlock(0, w.win);
    claims[1] = oldi;
    long long v[4] = {0, 0, total, claims[0]};
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win);
        memcpy(v, w.mem, 16);
        MPI_Win_unlock(0, w.win);
    }
    MPI_Bcast(v, 4, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    char name[200];
    snprintf(name, sizeof name,
             "counter on %s: final %lld, sum of fetched %lld; CAS word %lld, rank 0 saw %lld",
             fname[flav], v[0], v[2], v[1], v[3]);
    report(name, v, sizeof v);
    reportf("CAS and NO_OP fetches on %s", fname[flav], claims, sizeof claims);
    win_free(&w);
}

/* Get_accumulate on a slot per origin, under shared or exclusive locks; then increments by
 * Get + Put under exclusive locks. */
static void get_accumulates(int flav)
{
    win_t w;
    MPI_Aint bytes = (MPI_Aint)size * N * 4 + 64;
    win_make(&w, flav, bytes, 4);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win);
    for (int i = 0; i < size * N; i++) {
        int v = rank * 7 + i;
        memcpy(w.mem + i * 4, &v, 4);
    }
    memset(w.mem + (MPI_Aint)size * N * 4, 0, 64);
    MPI_Win_unlock(rank, w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    static const MPI_Op ops[] = {MPI_SUM, MPI_NO_OP, MPI_REPLACE};
    int res[3][N];
    memset(res, HOLE, sizeof res);
    for (int k = 0; k < 3; k++) {
        int t = (rank + k) % size, in[N];
        for (int i = 0; i < N; i++)
            in[i] = i * (k + 2) - rank;
        MPI_Win_lock(k == 1 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, w.win);
        MPI_Get_accumulate(in, N / (k + 1), MPI_INT, res[k], N / (k + 1), MPI_INT, t,
                           disp(&w, t, ((MPI_Aint)rank * N + k) * 4), N / (k + 1), MPI_INT, ops[k],
                           w.win);
        MPI_Win_unlock(t, w.win);
    }
    reportf("Get_accumulate SUM, NO_OP, REPLACE results on %s", fname[flav], res, sizeof res);
    MPI_Aint cnt = (MPI_Aint)size * N * 4;
    for (int rep = 0; rep < 3; rep++)
        for (int t = 0; t < size; t++) {
            int v = 0;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win);
            MPI_Get(&v, 1, MPI_INT, t, disp(&w, t, cnt), 1, MPI_INT, w.win);
            MPI_Win_flush(t, w.win);
            v += rank + 1;
            MPI_Put(&v, 1, MPI_INT, t, disp(&w, t, cnt), 1, MPI_INT, w.win);
            MPI_Win_unlock(t, w.win);
        }
    win_report(&w, "Get_accumulate then Get+Put increments under exclusive locks");
    win_free(&w);
}

/* Request forms under lock_all: each rank Rputs block 0 of its right neighbour, Rgets block 1
 * of its left, Raccumulates into block 2 of rank 0 and Rget_accumulates into a slot of its own
 * (block 3 + rank) of the next but one. */
static void requests(int flav)
{
    win_t w;
    MPI_Aint bytes = (MPI_Aint)(3 + size) * N * 4;
    win_make(&w, flav, bytes, 4);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w.win);
    for (int i = 0; i < 3 * N; i++) {
        int v = rank * 1000 + i;
        memcpy(w.mem + i * 4, &v, 4);
    }
    MPI_Win_unlock(rank, w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, far = (rank + 2) % size;
    int out[N], in[N], acc[N], ga[N], gr[N];
    for (int i = 0; i < N; i++) {
        out[i] = -rank * 100 - i;
        acc[i] = rank + i;
        ga[i] = i;
    }
    memset(in, HOLE, sizeof in);
    memset(gr, HOLE, sizeof gr);
    MPI_Request rq[4];
    MPI_Win_lock_all(0, w.win);
    /* the Rget reads block 1, which nobody writes; Rput writes block 0 of the right */
    MPI_Rget(in, N, MPI_INT, left, disp(&w, left, N * 4), N, MPI_INT, w.win, &rq[0]);
    MPI_Rput(out, N, MPI_INT, right, disp(&w, right, 0), N, MPI_INT, w.win, &rq[1]);
    MPI_Raccumulate(acc, N, MPI_INT, 0, disp(&w, 0, 2 * N * 4), N, MPI_INT, MPI_SUM, w.win,
                    &rq[2]);
    MPI_Rget_accumulate(ga, N, MPI_INT, gr, N, MPI_INT, far,
                        disp(&w, far, (3 + (MPI_Aint)rank) * N * 4), N, MPI_INT, MPI_SUM, w.win,
                        &rq[3]);
    MPI_Status st[4];
    MPI_Waitall(4, rq, st);
    MPI_Win_flush_local_all(w.win);
    memset(out, 0, sizeof out); /* locally complete: ours again */
    MPI_Win_flush_all(w.win);
    MPI_Win_unlock_all(w.win);
    reportf("Rget (from the left) on %s", fname[flav], in, sizeof in);
    /* gr is what the slot held: the hole byte */
    reportf("Rget_accumulate result on %s", fname[flav], gr, sizeof gr);
    win_report(&w, "Rput, Raccumulate, Rget_accumulate");
    win_free(&w);
}

/* Put and Get of structs {int, double} with holes into another layout. */
static void structs(int flav)
{
    typedef struct {
        int i;
        double d;
    } s_t;
    MPI_Datatype so, st, tmp;
    int bl[2] = {1, 1};
    MPI_Aint dso[2] = {offsetof(s_t, i), offsetof(s_t, d)}, dst[2] = {4, 16};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, dso, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(s_t), &so);
    MPI_Type_free(&tmp);
    MPI_Type_create_struct(2, bl, dst, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, 32, &st);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&so);
    MPI_Type_commit(&st);
    win_t w;
    win_make(&w, flav, 2 * 32 * 10 + 64, 8);
    s_t a[10], b[10];
    memset(a, HOLE, sizeof a); /* holes: fixed bytes */
    memset(b, HOLE, sizeof b);
    for (int e = 0; e < 10; e++) {
        a[e].i = rank * 10 + e;
        a[e].d = rank + e * 0.5;
    }
    int t = (rank + 1) % size, f = (rank + size - 1) % size;
    MPI_Win_fence(0, w.win);
    MPI_Put(a, 10, so, t, disp(&w, t, 0), 10, st, w.win);
    MPI_Win_fence(0, w.win);
    MPI_Get(b, 10, so, f, disp(&w, f, 0), 10, st, w.win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
    reportf("struct Get back on %s", fname[flav], b, sizeof b);
    win_report(&w, "struct Put into another layout");
    win_free(&w);
    MPI_Type_free(&so);
    MPI_Type_free(&st);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int f = 0; f < NFLAV; f++) {
        attributes(f);
        halo(f);
        ring_get(f);
        accumulates(f);
        ordering(f);
        atomics(f);
        get_accumulates(f);
        requests(f);
        structs(f);
    }
    diff_print();
    MPI_Finalize();
    return 0;
}
