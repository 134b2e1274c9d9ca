/* An independent model of collective results, for coll_matrix.c: every process can compute
 * what any process contributes from a formula, so every received or reduced element can be
 * checked exactly, without trusting another collective.
 *
 * A contribution is a run of elements of one datatype; element e's field f is the item
 * e * nf + f, and its value comes from a hash of (seed, source rank, block, item). Types with
 * the same basic signature therefore carry the same values whatever their layout (a vector of
 * 3 ints sent, 3 ints received). The value range depends on the operator, so that every
 * reduction is exact and cannot overflow (sums of small integers, products of +-1, 2, 3,
 * bit patterns biased so that AND and OR over 9 ranks keep both kinds of bits, logical values
 * mostly true for LAND and mostly false for LOR, small values with ties for MINLOC/MAXLOC).
 *
 * Checking: the expected image of a receive buffer starts as the same sentinel bytes the
 * buffer was filled with, the model writes the fields of every element the collective must
 * deliver, and the two are compared byte for byte, so holes of derived types, gaps between
 * blocks and a guard area after the buffer must keep their sentinel. The padding of a
 * predefined pair type (MPI_DOUBLE_INT) is not part of its type map but may be written by a
 * reduction, so it is not compared. */
#ifndef COLL_MODEL_H
#define COLL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "mpitest.h"

enum { K_I8, K_I16, K_I32, K_I64, K_F64, K_U32 }; /* basic kinds of fields */
static const int cm_ksize[] = {1, 2, 4, 8, 8, 4};

typedef struct {
    int off, kind;
} cm_field_t;

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Aint ext;
    int nf;
    cm_field_t f[4];
    int pad_free; /* bytes outside the fields may change (padding of a predefined pair) */
} cm_type_t;

enum {
    T_INT,
    T_DOUBLE,
    T_CHAR,
    T_UCHAR,
    T_LL,
    T_VEC,    /* vector of 3 ints, stride 2: holes between them */
    T_STRUCT, /* {int, double, short}: holes after the int and after the short */
    T_MAT,    /* 2x2 matrix of unsigned ints, for the non-commutative operator */
    T_2INT,
    T_DINT, /* MPI_DOUBLE_INT */
    NTYPES
};
static cm_type_t cm_types[NTYPES];
static cm_type_t cm_wide[NTYPES]; /* the same types resized 8 bytes wider (Alltoallw) */

enum {
    OP_NONE, /* data movement: any bit pattern */
    OP_SUM,
    OP_PROD,
    OP_MAX,
    OP_MIN,
    OP_BAND,
    OP_BOR,
    OP_BXOR,
    OP_LAND,
    OP_LOR,
    OP_LXOR,
    OP_MINLOC,
    OP_MAXLOC,
    OP_USER_C,  /* commutative user operator (T_VEC, T_STRUCT) */
    OP_USER_NC, /* non-commutative user operator (T_MAT) */
    NOPS
};
static const char *const cm_opname[NOPS] = {
    "-",   "SUM",  "PROD",   "MAX",    "MIN",         "BAND",           "BOR", "BXOR", "LAND",
    "LOR", "LXOR", "MINLOC", "MAXLOC", "user(comm.)", "user(non-comm.)"};

typedef struct {
    int a;
    double d;
    short s;
} cm_struct_t;

/* ---- user operators ---- */

/* Elementwise sum of the three ints of each vector element, read through the holes. */
static void cm_vsum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int k = 0; k < *len; k++)
        for (int f = 0; f < 6; f += 2)
            b[5 * k + f] += a[5 * k + f];
}

/* On the struct: sum of the ints, maximum of the doubles, xor of the shorts. */
static void cm_struct_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const cm_struct_t *a = in;
    cm_struct_t *b = inout;
    for (int k = 0; k < *len; k++) {
        b[k].a += a[k].a;
        if (a[k].d > b[k].d)
            b[k].d = a[k].d;
        b[k].s = (short)(b[k].s ^ a[k].s);
    }
}

/* 2x2 matrix product modulo 2^32, inout = in x inout: `in` holds the lower ranks, so the
 * result is M0 x M1 x ... x M(p-1) only when the library keeps rank order. */
static void cm_mat_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        unsigned c0 = a[0] * b[0] + a[1] * b[2], c1 = a[0] * b[1] + a[1] * b[3],
                 c2 = a[2] * b[0] + a[3] * b[2], c3 = a[2] * b[1] + a[3] * b[3];
        b[0] = c0;
        b[1] = c1;
        b[2] = c2;
        b[3] = c3;
    }
}

static MPI_Op cm_op_vsum, cm_op_struct, cm_op_mat;

static MPI_Op cm_mpi_op(int op, const cm_type_t *t)
{
    static const MPI_Op pre[] = {MPI_OP_NULL, MPI_SUM,    MPI_PROD,  MPI_MAX,  MPI_MIN,
                                 MPI_BAND,    MPI_BOR,    MPI_BXOR,  MPI_LAND, MPI_LOR,
                                 MPI_LXOR,    MPI_MINLOC, MPI_MAXLOC};
    if (op == OP_USER_NC)
        return cm_op_mat;
    if (op == OP_USER_C)
        return t == &cm_types[T_STRUCT] ? cm_op_struct : cm_op_vsum;
    return pre[op];
}

static MPI_User_function *cm_user_fn(int op, const cm_type_t *t)
{
    if (op == OP_USER_NC)
        return cm_mat_fn;
    return t == &cm_types[T_STRUCT] ? cm_struct_fn : cm_vsum_fn;
}

/* ---- setup ---- */

static void cm_def(int ti, const char *name, MPI_Datatype type, MPI_Aint ext, int pad_free, int nf,
                   const cm_field_t *f)
{
    cm_type_t *t = &cm_types[ti];
    t->name = name;
    t->type = type;
    t->ext = ext;
    t->pad_free = pad_free;
    t->nf = nf;
    for (int i = 0; i < nf; i++)
        t->f[i] = f[i];
    MPI_Aint lb = -1, ext2 = -1;
    MPI_OK(MPI_Type_get_extent(type, &lb, &ext2));
    CHECK(lb == 0 && ext2 == ext, "type %s: lb %ld extent %ld, expected 0 and %ld", name, (long)lb,
          (long)ext2, (long)ext);
    cm_wide[ti] = *t;
    cm_wide[ti].ext = ext + 8;
    MPI_OK(MPI_Type_create_resized(type, 0, ext + 8, &cm_wide[ti].type));
    MPI_OK(MPI_Type_commit(&cm_wide[ti].type));
}

static void cm_setup(void)
{
    MPI_Datatype vec, st0, st, mat;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    int bl[3] = {1, 1, 1};
    MPI_Aint dis[3] = {offsetof(cm_struct_t, a), offsetof(cm_struct_t, d),
                       offsetof(cm_struct_t, s)};
    MPI_Datatype tys[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_OK(MPI_Type_create_struct(3, bl, dis, tys, &st0));
    MPI_OK(MPI_Type_create_resized(st0, 0, sizeof(cm_struct_t), &st));
    MPI_OK(MPI_Type_commit(&st));
    MPI_OK(MPI_Type_free(&st0));
    MPI_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
    MPI_OK(MPI_Type_commit(&mat));

    const cm_field_t i32[1] = {{0, K_I32}}, f64[1] = {{0, K_F64}}, i8[1] = {{0, K_I8}},
                     i64[1] = {{0, K_I64}}, v3[3] = {{0, K_I32}, {8, K_I32}, {16, K_I32}},
                     s3[3] = {{offsetof(cm_struct_t, a), K_I32},
                              {offsetof(cm_struct_t, d), K_F64},
                              {offsetof(cm_struct_t, s), K_I16}},
                     m4[4] = {{0, K_U32}, {4, K_U32}, {8, K_U32}, {12, K_U32}},
                     p2[2] = {{0, K_I32}, {4, K_I32}}, di[2] = {{0, K_F64}, {8, K_I32}};
    cm_def(T_INT, "int", MPI_INT, 4, 0, 1, i32);
    cm_def(T_DOUBLE, "double", MPI_DOUBLE, 8, 0, 1, f64);
    cm_def(T_CHAR, "char", MPI_CHAR, 1, 0, 1, i8);
    cm_def(T_UCHAR, "unsigned char", MPI_UNSIGNED_CHAR, 1, 0, 1, i8);
    cm_def(T_LL, "long long", MPI_LONG_LONG, 8, 0, 1, i64);
    cm_def(T_VEC, "vector(3 ints, holes)", vec, 20, 0, 3, v3);
    cm_def(T_STRUCT, "struct{int,double,short}", st, (MPI_Aint)sizeof(cm_struct_t), 0, 3, s3);
    cm_def(T_MAT, "2x2 unsigned", mat, 16, 0, 4, m4);
    cm_def(T_2INT, "MPI_2INT", MPI_2INT, 8, 0, 2, p2);
    cm_def(T_DINT, "MPI_DOUBLE_INT", MPI_DOUBLE_INT, 16, 1, 2, di);

    MPI_OK(MPI_Op_create(cm_vsum_fn, 1, &cm_op_vsum));
    MPI_OK(MPI_Op_create(cm_struct_fn, 1, &cm_op_struct));
    MPI_OK(MPI_Op_create(cm_mat_fn, 0, &cm_op_mat));
}

static void cm_teardown(void)
{
    for (int ti = 0; ti < NTYPES; ti++) {
        MPI_OK(MPI_Type_free(&cm_wide[ti].type));
        if (ti == T_VEC || ti == T_STRUCT || ti == T_MAT)
            MPI_OK(MPI_Type_free(&cm_types[ti].type));
    }
    MPI_OK(MPI_Op_free(&cm_op_vsum));
    MPI_OK(MPI_Op_free(&cm_op_struct));
    MPI_OK(MPI_Op_free(&cm_op_mat));
}

/* ---- values ---- */

static inline uint64_t cm_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The hash of a contribution: rank src's data for block blk under seed. */
static inline uint64_t cm_base(unsigned seed, int src, int blk)
{
    return cm_mix(cm_mix(((uint64_t)seed << 24) ^ (uint64_t)(unsigned)src) ^
                  ((uint64_t)(unsigned)(blk + 1) << 40));
}

static void cm_store(int kind, char *p, long long v, double d)
{
    switch (kind) {
    case K_I8: {
        unsigned char x = (unsigned char)v;
        memcpy(p, &x, 1);
        break;
    }
    case K_I16: {
        short x = (short)(unsigned short)v;
        memcpy(p, &x, 2);
        break;
    }
    case K_I32:
    case K_U32: {
        unsigned x = (unsigned)v;
        memcpy(p, &x, 4);
        break;
    }
    case K_I64: memcpy(p, &v, 8); break;
    default: memcpy(p, &d, 8);
    }
}

/* Loads a field as a long long (unsigned for K_I8: MPI_UNSIGNED_CHAR, MPI_CHAR is only moved)
 * or a double. */
static long long cm_load(int kind, const char *p, double *d)
{
    switch (kind) {
    case K_I8: {
        unsigned char x;
        memcpy(&x, p, 1);
        return x;
    }
    case K_I16: {
        short x;
        memcpy(&x, p, 2);
        return x;
    }
    case K_I32: {
        int x;
        memcpy(&x, p, 4);
        return x;
    }
    case K_I64: {
        long long x;
        memcpy(&x, p, 8);
        return x;
    }
    case K_U32: {
        unsigned x;
        memcpy(&x, p, 4);
        return x;
    }
    default: memcpy(d, p, 8); return 0;
    }
}

/* Writes field f of one element, from hash h, in the range that suits `op`. */
static void cm_put_field(const cm_type_t *t, int op, int f, uint64_t h, char *elem)
{
    int kind = t->f[f].kind;
    char *p = elem + t->f[f].off;
    uint32_t a = (uint32_t)h;
    long long v = 0;
    double d = 0;
    /* Sums take small values (the struct's double and short, under its max and xor, any). */
    int small = op == OP_SUM || (op == OP_USER_C && kind == K_I32);
    switch (small ? OP_SUM : op) {
    case OP_SUM: {
        int s = (int)(a % 2001) - 1000;
        v = kind == K_I64 ? (long long)s * (1ll << 40) : kind == K_I8 ? (long long)(a & 0xff) : s;
        d = s * 0.125;
        break;
    }
    case OP_NONE:
    case OP_MAX:
    case OP_MIN:
    case OP_BXOR:
    case OP_USER_C:
    case OP_USER_NC:
        v = kind == K_I64 ? (long long)h : (long long)a;
        d = (double)(int32_t)a * 0.25;
        break;
    case OP_PROD: {
        static const int ti[8] = {1, -1, 2, -2, 1, 3, -1, 1};
        static const double td[8] = {1, -1, 2, -2, 0.5, -0.5, 4, 1};
        v = kind == K_I8 ? (long long)(1 + (a & 1)) : ti[a & 7];
        d = td[a & 7];
        break;
    }
    case OP_BAND:
    case OP_BOR: {
        uint64_t y = cm_mix(h), z = cm_mix(y), m = h & y & z; /* 1/8 of the bits set */
        v = (long long)(op == OP_BAND ? ~m : m);
        break;
    }
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR: {
        unsigned sel = (unsigned)(h >> 40);
        int nz = op == OP_LXOR ? (sel & 1) : op == OP_LAND ? (sel % 16 != 0) : (sel % 16 == 0);
        v = nz ? (long long)((h >> 8) | 1) : 0;
        if (kind == K_I8 || kind == K_I32) /* nonzero in the stored width too */
            v = nz ? (long long)((a >> 8) | 1) : 0;
        break;
    }
    case OP_MINLOC:
    case OP_MAXLOC:
        v = f == 0 ? (long long)(a % 4) : (long long)((a >> 8) % 100);
        d = (double)(a % 4) * 0.5;
        break;
    }
    cm_store(kind, p, v, d);
}

/* Writes the fields (not the holes) of element e of the contribution with hash `base`. */
static inline void cm_gen(const cm_type_t *t, int op, uint64_t base, long e, char *elem)
{
    for (int f = 0; f < t->nf; f++)
        cm_put_field(t, op, f, cm_mix(base + (uint64_t)(e * t->nf + f)), elem);
}

static void cm_copy_fields(const cm_type_t *t, const char *from, char *to)
{
    for (int f = 0; f < t->nf; f++)
        memcpy(to + t->f[f].off, from + t->f[f].off, (size_t)cm_ksize[t->f[f].kind]);
}

/* For a pad_free type: the bytes outside the fields are taken from what the library wrote. */
static void cm_take_padding(const cm_type_t *t, char *exp, const char *got)
{
    if (!t->pad_free || !got)
        return;
    char keep[64];
    cm_copy_fields(t, exp, keep);
    memcpy(exp, got, (size_t)t->ext);
    cm_copy_fields(t, keep, exp);
}

/* The model's reduction of one element: inout = in op inout (`in` from the lower ranks). */
static void cm_combine(const cm_type_t *t, int op, const char *in, char *io)
{
    if (op == OP_USER_C || op == OP_USER_NC) {
        int one = 1;
        MPI_Datatype dt = t->type;
        cm_user_fn(op, t)((void *)in, io, &one, &dt);
        return;
    }
    if (op == OP_MINLOC || op == OP_MAXLOC) {
        int vk = t->f[0].kind, lo = t->f[1].off;
        double da = 0, db = 0;
        long long ia = cm_load(vk, in, &da), ib = cm_load(vk, io, &db);
        if (vk == K_F64) {
            ia = da < db ? -1 : da > db;
            ib = 0;
        }
        long long la = cm_load(K_I32, in + lo, NULL), lb = cm_load(K_I32, io + lo, NULL);
        int take = op == OP_MINLOC ? ia < ib : ia > ib;
        if (take)
            cm_copy_fields(t, in, io);
        else if (ia == ib && la < lb)
            cm_store(K_I32, io + lo, la, 0);
        return;
    }
    int kind = t->f[0].kind;
    if (kind == K_F64) {
        double a, b;
        cm_load(kind, in, &a);
        cm_load(kind, io, &b);
        switch (op) {
        case OP_SUM: b = a + b; break;
        case OP_PROD: b = a * b; break;
        case OP_MAX: b = a > b ? a : b; break;
        case OP_MIN: b = a < b ? a : b; break;
        }
        cm_store(kind, io, 0, b);
        return;
    }
    long long a = cm_load(kind, in, NULL), b = cm_load(kind, io, NULL);
    unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    switch (op) {
    case OP_SUM: b = (long long)(ua + ub); break;
    case OP_PROD: b = (long long)(ua * ub); break;
    case OP_MAX: b = a > b ? a : b; break;
    case OP_MIN: b = a < b ? a : b; break;
    case OP_BAND: b = (long long)(ua & ub); break;
    case OP_BOR: b = (long long)(ua | ub); break;
    case OP_BXOR: b = (long long)(ua ^ ub); break;
    case OP_LAND: b = a && b; break;
    case OP_LOR: b = a || b; break;
    case OP_LXOR: b = !a != !b; break;
    }
    cm_store(kind, io, b, 0);
}

/* Expected image: `count` elements of rank src's block blk (items from element e0 on) written
 * at dst; got is the library's buffer at the same place (for pad_free types), or NULL. */
static void cm_put(const cm_type_t *t, int op, unsigned seed, int src, int blk, long e0, long count,
                   char *dst, const char *got)
{
    uint64_t base = cm_base(seed, src, blk);
    for (long e = 0; e < count; e++) {
        char *x = dst + e * t->ext;
        cm_gen(t, op, base, e0 + e, x);
        cm_take_padding(t, x, got ? got + e * t->ext : NULL);
    }
}

/* Expected image of the reduction over ranks lo..hi (in rank order) of elements e0.. of their
 * block-0 contributions. */
static void cm_fold(const cm_type_t *t, int op, unsigned seed, int lo, int hi, long e0, long count,
                    char *dst, const char *got)
{
    int n = hi - lo + 1;
    uint64_t *base = mt_malloc(sizeof(uint64_t) * (size_t)n);
    for (int r = 0; r < n; r++)
        base[r] = cm_base(seed, lo + r, 0);
    char acc[64], x[64];
    for (long e = 0; e < count; e++) {
        cm_gen(t, op, base[0], e0 + e, acc);
        for (int r = 1; r < n; r++) {
            cm_gen(t, op, base[r], e0 + e, x);
            cm_combine(t, op, acc, x);
            cm_copy_fields(t, x, acc);
        }
        char *d = dst + e * t->ext;
        cm_copy_fields(t, acc, d);
        cm_take_padding(t, d, got ? got + e * t->ext : NULL);
    }
    free(base);
}

/* Sentinel bytes for buffers (and the expected images of receive buffers). */
static void cm_sentinel(char *b, size_t bytes, unsigned seed)
{
    unsigned char s = (unsigned char)(0xa5 ^ (seed * 29u));
    for (size_t i = 0; i < bytes; i++)
        b[i] = (char)(s ^ (unsigned char)(i * 7u + (i >> 7)));
}

/* ---- reporting ---- */

static int cm_printed; /* failure lines printed by this process (capped) */

static void cm_field_str(int kind, const char *p, char *out, size_t n)
{
    double d = 0;
    long long v = cm_load(kind, p, &d);
    if (kind == K_F64)
        snprintf(out, n, "%.17g", d);
    else
        snprintf(out, n, "%lld", v);
}

/* Describes the block layout of a checked buffer, for messages: block b covers bytes
 * [off[b], off[b] + len[b]). */
typedef struct {
    int n;
    const MPI_Aint *off, *len;
    const char *who; /* "from rank" / "to rank" / "for rank" */
} cm_blocks_t;

/* Compares got with exp over `bytes`; on a difference reports the first one (element index
 * counted in units of t's extent from the start of the buffer, or of its block) and returns
 * 1. `what` names the case. */
static int cm_compare(const char *what, const char *bufname, const cm_type_t *t, const char *exp,
                      const char *got, size_t bytes, const cm_blocks_t *blk)
{
    if (memcmp(exp, got, bytes) == 0)
        return 0;
    size_t o = 0, nbad = 0;
    while (o < bytes && exp[o] == got[o])
        o++;
    for (size_t i = o; i < bytes; i++)
        nbad += exp[i] != got[i];
    mt_errs++;
    if (cm_printed >= 25)
        return 1;
    cm_printed++;
    char where[160] = "", val[200] = "";
    size_t rel = o;
    if (blk) {
        for (int b = 0; b < blk->n; b++)
            if ((MPI_Aint)o >= blk->off[b] && (MPI_Aint)o < blk->off[b] + blk->len[b]) {
                rel = o - (size_t)blk->off[b];
                snprintf(where, sizeof where, "block %s %d, ", blk->who, b);
                break;
            }
    }
    long elem = (long)(rel / (size_t)t->ext);
    size_t within = rel % (size_t)t->ext;
    int fi = -1;
    for (int f = 0; f < t->nf; f++)
        if (within >= (size_t)t->f[f].off &&
            within < (size_t)(t->f[f].off + cm_ksize[t->f[f].kind]))
            fi = f;
    if (!where[0] && blk && blk->n > 0)
        snprintf(where, sizeof where, "outside every block (a gap), ");
    if (fi >= 0) {
        char e[64], g[64];
        size_t fo = o - (within - (size_t)t->f[fi].off);
        cm_field_str(t->f[fi].kind, exp + fo, e, sizeof e);
        cm_field_str(t->f[fi].kind, got + fo, g, sizeof g);
        snprintf(val, sizeof val, "element %ld field %d: expected %s, got %s", elem, fi, e, g);
    } else {
        snprintf(val, sizeof val,
                 "byte %zu of element %ld is a hole (or past the data): expected 0x%02x (left "
                 "untouched), got 0x%02x",
                 within, elem, (unsigned char)exp[o], (unsigned char)got[o]);
    }
    printf("[rank %d] FAIL %s: %s at byte %zu: %s%s (%zu bytes differ)\n", mt_rank, what, bufname,
           o, where, val, nbad);
    fflush(stdout);
    return 1;
}

#endif
