/* Collectives, differential: every intracommunicator collective (Bcast, Gather(v), Scatter(v),
 * Allgather(v), Alltoall(v/w), Reduce, Allreduce, Reduce_scatter(_block), Scan, Exscan) on
 * MPI_COMM_WORLD and on a split numbered backwards, for int, double, a vector with holes, the
 * pair types under MINLOC/MAXLOC, unsigned char and long long under the bitwise and logical
 * operators, a commutative user sum on the vector and a non-commutative user operator (2x2
 * matrix product mod 2^32); counts 0, 1, 7, 100 and 20000; every root; MPI_IN_PLACE; uneven
 * v-counts with zeros and gaps. Each result buffer (its holes and gaps included, pre-filled with
 * a fixed byte) is hashed on every rank; rank 0 prints one line per case with every rank's hash,
 * in the blocking form, and for some cases the nonblocking and persistent forms as well.
 *
 * Every input is an integer or an exactly representable double, so the results do not depend
 * on the order of reduction and both MPIs must print the same. Undefined results (Exscan at
 * rank 0, the rest of an in-place Reduce_scatter buffer, receive buffers off the root) are not
 * hashed. MPICH 4.0's known deviations are avoided, not printed: MAX/MIN on unsigned char,
 * large structs, Alltoallw in place with different types, restarted persistent Gather/Scatter/
 * Allgather (each persistent case is started once), freeing persistent requests. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_hashes.h"

enum { HOLE = 0xee, SEND_HOLE = 0x11 }; /* fill bytes: receive, send buffers */

static int rank, size;
static MPI_Comm comm; /* the communicator under test */
static int crank, csize;
static const char *cname;

/* ---- results: diff_hashes.h (a hash per case and rank, printed by rank 0 at the end) ---- */

#define record diff_record

/* ---- types and values ---- */

typedef struct {
    const char *name;
    MPI_Datatype type;
    int ext, kind;
} ty_t;
enum { K_INT, K_DOUBLE, K_VEC, K_UCHAR, K_LL, K_2INT, K_DINT, K_MAT };
static ty_t tys[8];

/* A small integer from the contribution's coordinates. */
static int val(int src, int blk, long i, int salt)
{
    return (int)(((src + 1) * 37 + (blk + 3) * 11 + i * 5 + salt * 13) % 61) - 30;
}

static void put(const ty_t *t, char *e, int v, int src, long i)
{
    switch (t->kind) {
    case K_INT: memcpy(e, &v, 4); break;
    case K_DOUBLE: {
        double d = v * 0.5;
        memcpy(e, &d, 8);
        break;
    }
    case K_VEC:
        for (int f = 0; f < 3; f++) {
            int x = v + f * 1000;
            memcpy(e + 8 * f, &x, 4);
        }
        break;
    case K_UCHAR: *(unsigned char *)e = (unsigned char)(v * 37 + 11); break;
    case K_LL: {
        long long x = (long long)v * (1ll << 33) + (v & 0xff);
        memcpy(e, &x, 8);
        break;
    }
    case K_2INT: {
        int x[2] = {(v + 30) % 5, (int)((src * 7 + i * 3) % 13)};
        memcpy(e, x, 8);
        break;
    }
    case K_DINT: {
        double d = ((v + 30) % 4) * 0.5;
        int loc = (int)((src * 5 + i) % 11);
        memcpy(e, &d, 8);
        memcpy(e + 8, &loc, 4);
        break;
    }
    case K_MAT:
        for (int f = 0; f < 4; f++) {
            unsigned x = (unsigned)(v + 31) * 2654435761u + (unsigned)f * 40503u + (unsigned)src;
            memcpy(e + 4 * f, &x, 4);
        }
        break;
    }
}

/* Buffer of n elements of block blk from rank src (holes keep HOLE). */
static void fill(const ty_t *t, char *b, long n, int src, int blk, int salt)
{
    for (long i = 0; i < n; i++)
        put(t, b + i * t->ext, val(src, blk, i, salt), src, i);
}

static void vsum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++)
        for (int f = 0; f < 6; f += 2)
            b[5 * k + f] += a[5 * k + f];
}

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        unsigned c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static MPI_Op op_vsum, op_mat;

typedef struct {
    int ty;
    MPI_Op op;
    const char *opname;
} combo_t;

/* ---- forms ---- */

enum { BLOCKING, NONBLOCKING, PERSISTENT };
static const char *const formname[] = {"blocking", "nonblocking", "persistent"};

#define RUN(form, blocking, nonblocking, init)                                                     \
    do {                                                                                           \
        MPI_Request req_;                                                                          \
        if ((form) == BLOCKING) {                                                                  \
            blocking;                                                                              \
        } else {                                                                                   \
            MPI_Request *req = &req_;                                                              \
            if ((form) == NONBLOCKING) {                                                           \
                nonblocking;                                                                       \
            } else {                                                                               \
                init;                                                                              \
                MPI_Start(req);                                                                    \
            }                                                                                      \
            MPI_Wait(req, MPI_STATUS_IGNORE);                                                      \
        }                                                                                          \
    } while (0)

static char *buf(size_t bytes, int fill)
{
    char *b = malloc(bytes + 16);
    memset(b, fill, bytes + 16);
    return b;
}

static int vcnt(int n, int r)
{
    return n == 0 || r % 4 == 2 ? 0 : n + (r * 5) % 3;
}

/* Odd ranks from the top down, then even ranks upwards; a gap of one element after each. */
static long place(const int *cnt, int *dsp)
{
    long at = 0;
    int nodd = csize / 2;
    for (int k = 0; k < csize; k++) {
        int r = k < nodd ? 2 * (nodd - 1 - k) + 1 : 2 * (k - nodd);
        dsp[r] = (int)at;
        at += cnt[r] + 1;
    }
    return at;
}

static char name[256];

static void nm(const char *coll, int form, const ty_t *t, const char *op, int n, int root,
               int inplace)
{
    char r[16] = "-";
    if (root >= 0)
        snprintf(r, sizeof r, "%d", root);
    snprintf(name, sizeof name, "%s %s %s %s count %d root %s%s on %s", coll, formname[form],
             t->name, op, n, r, inplace ? " in place" : "", cname);
}

/* ---- data movement ---- */

static void bcast(const ty_t *t, int n, int root, int form)
{
    size_t bytes = (size_t)n * (size_t)t->ext;
    char *b = buf(bytes, crank == root ? SEND_HOLE : HOLE);
    if (crank == root)
        fill(t, b, n, root, 0, 1);
    RUN(form, MPI_Bcast(b, n, t->type, root, comm), MPI_Ibcast(b, n, t->type, root, comm, req),
        MPI_Bcast_init(b, n, t->type, root, comm, MPI_INFO_NULL, req));
    nm("Bcast", form, t, "-", n, root, 0);
    record(name, b, bytes + 16);
    free(b);
}

/* Gather(v) (root >= 0) or Allgather(v) (root < 0). */
static void gather(const ty_t *t, int n, int root, int v, int inplace, int form)
{
    int cnt[64], dsp[64];
    for (int r = 0; r < csize; r++) {
        cnt[r] = v ? vcnt(n, r) : n;
        dsp[r] = r * n;
    }
    long total = v ? place(cnt, dsp) : (long)csize * n;
    int recv = root < 0 || crank == root, ip = inplace && recv, mine = cnt[crank];
    char *s = buf((size_t)mine * (size_t)t->ext, SEND_HOLE),
         *r = buf((size_t)total * (size_t)t->ext, HOLE);
    fill(t, s, mine, crank, 0, 2);
    if (ip)
        fill(t, r + (size_t)dsp[crank] * (size_t)t->ext, mine, crank, 0, 2);
    const void *sb = ip ? MPI_IN_PLACE : s;
    MPI_Comm c = comm;
    if (root < 0 && v)
        RUN(form, MPI_Allgatherv(sb, mine, t->type, r, cnt, dsp, t->type, c),
            MPI_Iallgatherv(sb, mine, t->type, r, cnt, dsp, t->type, c, req),
            MPI_Allgatherv_init(sb, mine, t->type, r, cnt, dsp, t->type, c, MPI_INFO_NULL, req));
    else if (root < 0)
        RUN(form, MPI_Allgather(sb, n, t->type, r, n, t->type, c),
            MPI_Iallgather(sb, n, t->type, r, n, t->type, c, req),
            MPI_Allgather_init(sb, n, t->type, r, n, t->type, c, MPI_INFO_NULL, req));
    else if (v)
        RUN(form, MPI_Gatherv(sb, mine, t->type, r, cnt, dsp, t->type, root, c),
            MPI_Igatherv(sb, mine, t->type, r, cnt, dsp, t->type, root, c, req),
            MPI_Gatherv_init(sb, mine, t->type, r, cnt, dsp, t->type, root, c, MPI_INFO_NULL, req));
    else
        RUN(form, MPI_Gather(sb, n, t->type, r, n, t->type, root, c),
            MPI_Igather(sb, n, t->type, r, n, t->type, root, c, req),
            MPI_Gather_init(sb, n, t->type, r, n, t->type, root, c, MPI_INFO_NULL, req));
    nm(root < 0 ? (v ? "Allgatherv" : "Allgather") : (v ? "Gatherv" : "Gather"), form, t, "-", n,
       root, inplace);
    record(name, recv ? r : NULL, (size_t)total * (size_t)t->ext + 16);
    free(s);
    free(r);
}

static void scatter(const ty_t *t, int n, int root, int v, int inplace, int form)
{
    int cnt[64], dsp[64];
    for (int r = 0; r < csize; r++) {
        cnt[r] = v ? vcnt(n, r) : n;
        dsp[r] = r * n;
    }
    long total = v ? place(cnt, dsp) : (long)csize * n;
    int ip = inplace && crank == root, mine = cnt[crank];
    char *s = buf((size_t)total * (size_t)t->ext, SEND_HOLE),
         *r = buf((size_t)mine * (size_t)t->ext, HOLE);
    if (crank == root)
        for (int q = 0; q < csize; q++)
            fill(t, s + (size_t)dsp[q] * (size_t)t->ext, cnt[q], root, q, 3);
    void *rb = ip ? MPI_IN_PLACE : r;
    MPI_Comm c = comm;
    if (v)
        RUN(form, MPI_Scatterv(s, cnt, dsp, t->type, rb, mine, t->type, root, c),
            MPI_Iscatterv(s, cnt, dsp, t->type, rb, mine, t->type, root, c, req),
            MPI_Scatterv_init(s, cnt, dsp, t->type, rb, mine, t->type, root, c, MPI_INFO_NULL,
                              req));
    else
        RUN(form, MPI_Scatter(s, n, t->type, rb, n, t->type, root, c),
            MPI_Iscatter(s, n, t->type, rb, n, t->type, root, c, req),
            MPI_Scatter_init(s, n, t->type, rb, n, t->type, root, c, MPI_INFO_NULL, req));
    nm(v ? "Scatterv" : "Scatter", form, t, "-", n, root, inplace);
    record(name, ip ? NULL : r, (size_t)mine * (size_t)t->ext + 16);
    free(s);
    free(r);
}

static int a2a(int n, int i, int j, int sym)
{
    if (n == 0)
        return 0;
    return sym ? ((i + j) % 5 == 3 ? 0 : n + (i + j) % 3)
               : ((i + 2 * j) % 5 == 3 ? 0 : n + (2 * i + j) % 3);
}

/* Alltoall (v = 0), Alltoallv (v = 1) or Alltoallw (v = 2, byte displacements). */
static void alltoall(const ty_t *t, int n, int v, int inplace, int form)
{
    int sc[64], sd[64], rc[64], rd[64];
    MPI_Datatype tt[64];
    long st = 0, rt = 0;
    for (int j = 0; j < csize; j++) {
        sc[j] = v ? a2a(n, crank, j, inplace) : n;
        rc[j] = v ? a2a(n, j, crank, inplace) : n;
        tt[j] = t->type;
    }
    for (int k = 0; k < csize; k++) { /* sends from the last rank down, receives odd/even */
        int j = csize - 1 - k;
        sd[j] = (int)st;
        st += sc[j] + (v ? 1 : 0);
    }
    if (v) {
        rt = place(rc, rd);
    } else {
        for (int j = 0; j < csize; j++)
            rd[j] = j * n, sd[j] = j * n;
        rt = st = (long)csize * n;
    }
    char *s = buf((size_t)st * (size_t)t->ext, SEND_HOLE),
         *r = buf((size_t)rt * (size_t)t->ext, HOLE);
    for (int j = 0; j < csize; j++) {
        fill(t, s + (size_t)sd[j] * (size_t)t->ext, sc[j], crank, j, 4);
        if (inplace)
            fill(t, r + (size_t)rd[j] * (size_t)t->ext, rc[j], crank, j, 4);
    }
    const void *sb = inplace ? MPI_IN_PLACE : s;
    MPI_Comm c = comm;
    if (v == 2) {
        int sdb[64], rdb[64];
        for (int j = 0; j < csize; j++) {
            sdb[j] = sd[j] * t->ext;
            rdb[j] = rd[j] * t->ext;
        }
        RUN(form, MPI_Alltoallw(sb, sc, sdb, tt, r, rc, rdb, tt, c),
            MPI_Ialltoallw(sb, sc, sdb, tt, r, rc, rdb, tt, c, req),
            MPI_Alltoallw_init(sb, sc, sdb, tt, r, rc, rdb, tt, c, MPI_INFO_NULL, req));
    } else if (v) {
        RUN(form, MPI_Alltoallv(sb, sc, sd, t->type, r, rc, rd, t->type, c),
            MPI_Ialltoallv(sb, sc, sd, t->type, r, rc, rd, t->type, c, req),
            MPI_Alltoallv_init(sb, sc, sd, t->type, r, rc, rd, t->type, c, MPI_INFO_NULL, req));
    } else {
        RUN(form, MPI_Alltoall(sb, n, t->type, r, n, t->type, c),
            MPI_Ialltoall(sb, n, t->type, r, n, t->type, c, req),
            MPI_Alltoall_init(sb, n, t->type, r, n, t->type, c, MPI_INFO_NULL, req));
    }
    nm(v == 2 ? "Alltoallw" : v ? "Alltoallv" : "Alltoall", form, t, "-", n, -1, inplace);
    record(name, r, (size_t)rt * (size_t)t->ext + 16);
    free(s);
    free(r);
}

/* ---- reductions ---- */

enum { R_REDUCE, R_ALLREDUCE, R_RS, R_RSB, R_SCAN, R_EXSCAN };
static const char *const rname[] = {"Reduce", "Allreduce", "Reduce_scatter", "Reduce_scatter_block",
                                    "Scan",   "Exscan"};

static void reduction(int which, const combo_t *cb, int n, int root, int inplace, int form)
{
    const ty_t *t = &tys[cb->ty];
    int cnt[64], total = n;
    if (which == R_RS || which == R_RSB) {
        total = 0;
        for (int r = 0; r < csize; r++) {
            cnt[r] = which == R_RSB ? n : vcnt(n, r);
            total += cnt[r];
        }
    }
    int mine = which == R_RS || which == R_RSB ? cnt[crank] : n;
    int recv = which != R_REDUCE || crank == root, ip = inplace && recv;
    size_t rbytes = (size_t)(ip ? total : mine) * (size_t)t->ext;
    char *s = buf((size_t)total * (size_t)t->ext, SEND_HOLE), *r = buf(rbytes, HOLE);
    fill(t, ip ? r : s, total, crank, 0, 5 + cb->ty);
    const void *sb = ip ? MPI_IN_PLACE : s;
    MPI_Comm c = comm;
    MPI_Datatype dt = t->type;
    MPI_Op op = cb->op;
    switch (which) {
    case R_REDUCE:
        RUN(form, MPI_Reduce(sb, r, n, dt, op, root, c),
            MPI_Ireduce(sb, r, n, dt, op, root, c, req),
            MPI_Reduce_init(sb, r, n, dt, op, root, c, MPI_INFO_NULL, req));
        break;
    case R_ALLREDUCE:
        RUN(form, MPI_Allreduce(sb, r, n, dt, op, c), MPI_Iallreduce(sb, r, n, dt, op, c, req),
            MPI_Allreduce_init(sb, r, n, dt, op, c, MPI_INFO_NULL, req));
        break;
    case R_RS:
        RUN(form, MPI_Reduce_scatter(sb, r, cnt, dt, op, c),
            MPI_Ireduce_scatter(sb, r, cnt, dt, op, c, req),
            MPI_Reduce_scatter_init(sb, r, cnt, dt, op, c, MPI_INFO_NULL, req));
        break;
    case R_RSB:
        RUN(form, MPI_Reduce_scatter_block(sb, r, n, dt, op, c),
            MPI_Ireduce_scatter_block(sb, r, n, dt, op, c, req),
            MPI_Reduce_scatter_block_init(sb, r, n, dt, op, c, MPI_INFO_NULL, req));
        break;
    case R_SCAN:
        RUN(form, MPI_Scan(sb, r, n, dt, op, c), MPI_Iscan(sb, r, n, dt, op, c, req),
            MPI_Scan_init(sb, r, n, dt, op, c, MPI_INFO_NULL, req));
        break;
    case R_EXSCAN:
        RUN(form, MPI_Exscan(sb, r, n, dt, op, c), MPI_Iexscan(sb, r, n, dt, op, c, req),
            MPI_Exscan_init(sb, r, n, dt, op, c, MPI_INFO_NULL, req));
        break;
    }
    nm(rname[which], form, t, cb->opname, n, which == R_REDUCE ? root : -1, inplace);
    int defined = recv && !(which == R_EXSCAN && crank == 0);
    /* In place, only the first `mine` elements of a Reduce_scatter buffer are defined; for a
     * pair type only the value and index (not the padding of MPI_DOUBLE_INT). */
    size_t hb = ip ? (size_t)mine * (size_t)t->ext : rbytes + 16;
    if (defined && t->kind == K_DINT)
        for (long i = 0; i < mine; i++)
            memset(r + i * t->ext + 12, 0, 4);
    record(name, defined ? r : NULL, hb);
    free(s);
    free(r);
}

/* ---- the cases ---- */

static const combo_t combos[] = {
    {K_INT, 0, "SUM"},        {K_INT, 0, "PROD"},    {K_INT, 0, "MAX"},
    {K_INT, 0, "MIN"},        {K_INT, 0, "BAND"},    {K_INT, 0, "BOR"},
    {K_INT, 0, "BXOR"},       {K_INT, 0, "LAND"},    {K_INT, 0, "LOR"},
    {K_INT, 0, "LXOR"},       {K_DOUBLE, 0, "SUM"},  {K_DOUBLE, 0, "PROD"},
    {K_DOUBLE, 0, "MAX"},     {K_DOUBLE, 0, "MIN"},  {K_UCHAR, 0, "BAND"},
    {K_UCHAR, 0, "BOR"},      {K_UCHAR, 0, "BXOR"},  {K_UCHAR, 0, "LXOR"},
    {K_LL, 0, "SUM"},         {K_LL, 0, "MAX"},      {K_LL, 0, "BXOR"},
    {K_LL, 0, "LAND"},        {K_2INT, 0, "MINLOC"}, {K_2INT, 0, "MAXLOC"},
    {K_DINT, 0, "MINLOC"},    {K_DINT, 0, "MAXLOC"}, {K_VEC, 0, "user sum"},
    {K_MAT, 0, "user matmul"}};

static MPI_Op op_by_name(const char *s)
{
    static const struct {
        const char *n;
        MPI_Op op;
    } t[] = {{"SUM", MPI_SUM},   {"PROD", MPI_PROD},     {"MAX", MPI_MAX},
             {"MIN", MPI_MIN},   {"BAND", MPI_BAND},     {"BOR", MPI_BOR},
             {"BXOR", MPI_BXOR}, {"LAND", MPI_LAND},     {"LOR", MPI_LOR},
             {"LXOR", MPI_LXOR}, {"MINLOC", MPI_MINLOC}, {"MAXLOC", MPI_MAXLOC}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (strcmp(s, t[i].n) == 0)
            return t[i].op;
    return strcmp(s, "user sum") == 0 ? op_vsum : op_mat;
}

/* Which cases run: all counts for data movement (the vector type only on the reversed
 * communicator); every operator at count 7, and the main ones at every count; the nonblocking
 * and persistent forms for the vector type and for the matrix and MINLOC at counts 1 and 100.
 * MPICH is slow with more processes than cores, so the list stays short. */
static int main_combo(int ty)
{
    return ty == K_INT || ty == K_DOUBLE || ty == K_VEC || ty == K_MAT || ty == K_2INT;
}

static void run_all(int world)
{
    static const int counts[] = {0, 1, 7, 100};
    const int moves[] = {K_INT, K_DOUBLE, K_VEC};
    for (int form = 0; form < 3; form++) {
        for (int ci = 0; ci < 4; ci++) {
            int n = counts[ci], some = ci == 1 || ci == 3;
            if (form != BLOCKING && !some)
                continue;
            for (int mi = 0; mi < 3; mi++) {
                if ((form != BLOCKING || !world) && moves[mi] != K_VEC)
                    continue;
                const ty_t *t = &tys[moves[mi]];
                for (int root = 0; root < csize; root++) {
                    bcast(t, n, root, form);
                    for (int ip = 0; ip < 2; ip++)
                        for (int v = 0; v < 2; v++) {
                            gather(t, n, root, v, ip, form);
                            scatter(t, n, root, v, ip, form);
                        }
                }
                for (int ip = 0; ip < 2; ip++) {
                    for (int v = 0; v < 2; v++)
                        gather(t, n, -1, v, ip, form);
                    for (int v = 0; v < 3; v++)
                        alltoall(t, n, v, ip, form);
                }
            }
            for (size_t k = 0; k < sizeof combos / sizeof *combos; k++) {
                combo_t cb = combos[k];
                if (form != BLOCKING && cb.ty != K_MAT && cb.ty != K_2INT)
                    continue;
                if (form == BLOCKING && world && n != 7 && !main_combo(cb.ty))
                    continue;
                if (!world && (!some || (cb.ty != K_MAT && cb.ty != K_DINT && k != 0)))
                    continue;
                cb.op = op_by_name(cb.opname);
                for (int ip = 0; ip < 2; ip++)
                    for (int w = R_REDUCE; w <= R_EXSCAN; w++)
                        for (int root = 0; root < (w == R_REDUCE ? csize : 1); root++)
                            reduction(w, &cb, n, root, ip, form);
            }
        }
    }
    if (!world)
        return;
    /* Large: past the eager limits of both. */
    const combo_t dsum = {K_DOUBLE, MPI_SUM, "SUM"}, mat = {K_MAT, op_mat, "user matmul"};
    for (int form = 0; form < 3; form++) {
        bcast(&tys[K_DOUBLE], 20000, csize - 1, form);
        gather(&tys[K_INT], 20000, -1, 1, 0, form);
        alltoall(&tys[K_DOUBLE], 20000, 1, 0, form);
        for (int w = R_ALLREDUCE; w <= R_EXSCAN; w++) {
            reduction(w, &dsum, 20000, 0, 0, form);
            reduction(w, &mat, 10000, 0, w == R_ALLREDUCE, form);
        }
        reduction(R_REDUCE, &mat, 10000, 0, 1, form);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Datatype vec, mat;
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(vsum, 1, &op_vsum);
    MPI_Op_create(matmul, 0, &op_mat);
    tys[K_INT] = (ty_t){"int", MPI_INT, 4, K_INT};
    tys[K_DOUBLE] = (ty_t){"double", MPI_DOUBLE, 8, K_DOUBLE};
    tys[K_VEC] = (ty_t){"vector", vec, 20, K_VEC};
    tys[K_UCHAR] = (ty_t){"unsigned char", MPI_UNSIGNED_CHAR, 1, K_UCHAR};
    tys[K_LL] = (ty_t){"long long", MPI_LONG_LONG, 8, K_LL};
    tys[K_2INT] = (ty_t){"2int", MPI_2INT, 8, K_2INT};
    tys[K_DINT] = (ty_t){"double_int", MPI_DOUBLE_INT, 16, K_DINT};
    tys[K_MAT] = (ty_t){"matrix", mat, 16, K_MAT};

    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    comm = MPI_COMM_WORLD;
    cname = "world";
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    run_all(1);
    comm = rev;
    cname = "reversed";
    MPI_Comm_rank(comm, &crank);
    run_all(0);

    diff_print();
    MPI_Comm_free(&rev);
    MPI_Finalize();
    return 0;
}
