/* Predefined reduction operators: which (operator, datatype) pairs the standard allows, and one
 * loop per pair, simple enough for the compiler to vectorise (this file is built with -O3).
 *
 * Allowed pairs (MPI 4.1, "Predefined Reduction Operations"): the datatype's group decides.
 *   MAX, MIN             C integer, Fortran integer, floating point, multi-language
 *   SUM, PROD            the same and complex
 *   LAND, LOR, LXOR      C integer, logical
 *   BAND, BOR, BXOR      C integer, Fortran integer, byte, multi-language
 *   MINLOC, MAXLOC       the value-index pairs (MPI_FLOAT_INT ... MPI_2INTEGER)
 *   REPLACE, NO_OP       any datatype (see fy_op.h)
 * Character types (MPI_WCHAR, MPI_CHARACTER) and MPI_PACKED belong to no group.
 * Beyond the standard, as MPICH and Open MPI do and programs rely on (OSU's benchmarks reduce
 * MPI_CHAR with MPI_SUM): MAX, MIN, SUM and PROD apply to MPI_CHAR, computed as signed char,
 * and LAND, LOR, LXOR to MPI_AINT, MPI_OFFSET and MPI_COUNT.
 * A derived datatype whose typemap is all one basic kind takes the group of that kind; the
 * operator then runs on its packed elements. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "fy_err.h"
#include "fy_op.h"

/* ---- Datatype groups ------------------------------------------------------------------ */

typedef enum {
    G_NONE,    /* characters, MPI_PACKED, mixed typemaps */
    G_CINT,    /* C integers */
    G_FINT,    /* Fortran integers */
    G_MULTI,   /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    G_FLOAT,   /* floating point */
    G_COMPLEX, /* complex */
    G_LOGICAL, /* MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL */
    G_BYTE,    /* MPI_BYTE */
    G_PAIR,    /* value and index */
    G_CHAR,    /* MPI_CHAR: as a C integer, signed char (an extension, see above) */
} group_t;

static group_t group_of_kind(fy_basic_t b)
{
    switch (b) {
    case FY_B_SCHAR:
    case FY_B_UCHAR:
    case FY_B_SHORT:
    case FY_B_USHORT:
    case FY_B_INT:
    case FY_B_UINT:
    case FY_B_LONG:
    case FY_B_ULONG:
    case FY_B_LLONG:
    case FY_B_ULLONG:
    case FY_B_I8:
    case FY_B_I16:
    case FY_B_I32:
    case FY_B_I64:
    case FY_B_U8:
    case FY_B_U16:
    case FY_B_U32:
    case FY_B_U64: return G_CINT;
    case FY_B_FLOAT:
    case FY_B_DOUBLE:
    case FY_B_LDOUBLE:
    case FY_B_FLOAT16: return G_FLOAT;
    case FY_B_CFLOAT:
    case FY_B_CDOUBLE:
    case FY_B_CLDOUBLE: return G_COMPLEX;
    case FY_B_BOOL: return G_LOGICAL;
    case FY_B_BYTE: return G_BYTE;
    case FY_B_FLOAT_INT:
    case FY_B_DOUBLE_INT:
    case FY_B_LONG_INT:
    case FY_B_SHORT_INT:
    case FY_B_2INT:
    case FY_B_LDOUBLE_INT:
    case FY_B_2FLOAT:
    case FY_B_2DOUBLE: return G_PAIR;
    case FY_B_CHAR: return G_CHAR;
    default: return G_NONE; /* FY_B_NONE, FY_B_WCHAR */
    }
}

/* Predefined types share basic kinds across languages (MPI_LOGICAL is an int, MPI_AINT a
 * long, MPI_PACKED bytes); their handle says which group they are in. */
static group_t group_of(const fy_dtype_t *d)
{
    if (d->predefined)
        switch (d->handle) {
        case MPI_LOGICAL: return G_LOGICAL;
        case MPI_INTEGER:
        case MPI_INTEGER1:
        case MPI_INTEGER2:
        case MPI_INTEGER4:
        case MPI_INTEGER8: return G_FINT;
        case MPI_AINT:
        case MPI_OFFSET:
        case MPI_COUNT: return G_MULTI;
        case MPI_PACKED:
        case MPI_CHARACTER: return G_NONE;
        default: break;
        }
    return group_of_kind(d->basic);
}

static bool allowed(int op, group_t g)
{
    if (g == G_CHAR)
        g = G_CINT;
    switch (op) {
    case FY_OP_MAX:
    case FY_OP_MIN: return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_MULTI;
    case FY_OP_SUM:
    case FY_OP_PROD:
        return g == G_CINT || g == G_FINT || g == G_FLOAT || g == G_MULTI || g == G_COMPLEX;
    case FY_OP_LAND:
    case FY_OP_LOR:
    case FY_OP_LXOR: return g == G_CINT || g == G_LOGICAL || g == G_MULTI;
    case FY_OP_BAND:
    case FY_OP_BOR:
    case FY_OP_BXOR: return g == G_CINT || g == G_FINT || g == G_BYTE || g == G_MULTI;
    case FY_OP_MINLOC:
    case FY_OP_MAXLOC: return g == G_PAIR;
    case FY_OP_REPLACE:
    case FY_OP_NO_OP: return true;
    default: return false;
    }
}

static const char *const group_text[] = {
    [G_NONE] = "",
    [G_CINT] = "C integer",
    [G_FINT] = "Fortran integer",
    [G_MULTI] = "address/offset/count integer",
    [G_FLOAT] = "floating point",
    [G_COMPLEX] = "complex",
    [G_LOGICAL] = "logical",
    [G_BYTE] = "byte",
    [G_PAIR] = "value-index pair",
    [G_CHAR] = "character",
};

static const char *op_applies_to(int op)
{
    switch (op) {
    case FY_OP_MAX:
    case FY_OP_MIN: return "integer and floating point types";
    case FY_OP_SUM:
    case FY_OP_PROD: return "integer, floating point and complex types";
    case FY_OP_LAND:
    case FY_OP_LOR:
    case FY_OP_LXOR: return "C integer, address/offset/count and logical types";
    case FY_OP_BAND:
    case FY_OP_BOR:
    case FY_OP_BXOR: return "integer types and MPI_BYTE";
    default: return "the value-index pair types (MPI_DOUBLE_INT, MPI_2INT, ...)";
    }
}

static const char *dtype_text(const fy_dtype_t *d, char *buf, size_t n)
{
    if (d->predefined)
        return d->name;
    if (d->name && d->name[0])
        snprintf(buf, n, "derived datatype %s (0x%x)", d->name, (unsigned)d->handle);
    else
        snprintf(buf, n, "derived datatype 0x%x", (unsigned)d->handle);
    return buf;
}

int fy_op_check(const char *fn, MPI_Op h, const fy_dtype_t *dt)
{
    fy_op_t *op = fy_op_get(h);
    if (!op) {
        if (h == MPI_OP_NULL)
            return fy_err_set(MPI_ERR_OP, "%s: invalid operator MPI_OP_NULL", fn);
        return fy_err_set(MPI_ERR_OP, "%s: invalid operator 0x%x", fn, (unsigned)h);
    }
    if (!dt->predefined && !dt->committed) {
        char buf[MPI_MAX_OBJECT_NAME + 64];
        return fy_err_set(MPI_ERR_TYPE, "%s: %s is not committed (call MPI_Type_commit first)", fn,
                          dtype_text(dt, buf, sizeof buf));
    }
    if (!op->predef)
        return MPI_SUCCESS;
    group_t g = group_of(dt);
    if (allowed(op->predef, g))
        return MPI_SUCCESS;
    char buf[MPI_MAX_OBJECT_NAME + 64];
    const char *what = dtype_text(dt, buf, sizeof buf);
    if (!dt->predefined && dt->basic == FY_B_NONE)
        return fy_err_set(MPI_ERR_OP,
                          "%s: %s is not defined on %s: its elements are not all of one basic "
                          "type (only user operators, MPI_REPLACE and MPI_NO_OP apply to it)",
                          fn, fy_op_name(h), what);
    if (g == G_NONE)
        return fy_err_set(MPI_ERR_OP,
                          "%s: %s is not defined on %s (character data; %s applies to %s%s)", fn,
                          fy_op_name(h), what, fy_op_name(h), op_applies_to(op->predef),
                          dt->basic == FY_B_CHAR
                              ? ", e.g. MPI_SIGNED_CHAR or MPI_UNSIGNED_CHAR for small integers"
                              : "");
    return fy_err_set(MPI_ERR_OP, "%s: %s is not defined on %s (a %s type; %s applies to %s)", fn,
                      fy_op_name(h), what, group_text[g], fy_op_name(h), op_applies_to(op->predef));
}

/* ---- Kernels --------------------------------------------------------------------------- */

/* The two vectors never overlap (a received copy and the accumulator), and saying so lets the
 * compiler vectorise without a run-time overlap check. */
#define LOOP(T, EXPR)                                                                              \
    do {                                                                                           \
        const T *restrict a = in;                                                                  \
        T *restrict b = inout;                                                                     \
        for (size_t i = 0; i < n; i++)                                                             \
            b[i] = EXPR;                                                                           \
    } while (0)

#define ARITH(T)                                                                                   \
    switch (op) {                                                                                  \
    case FY_OP_SUM: LOOP(T, a[i] + b[i]); return 0;                                                \
    case FY_OP_PROD: LOOP(T, a[i] * b[i]); return 0;                                               \
    default: break;                                                                                \
    }
/* Integers wrap around, as programs expect of MPI_SUM and MPI_PROD: computed in the unsigned
 * type U (at least unsigned int, so that small types are not promoted to a signed int that
 * could overflow), where overflow is defined, then converted back (gcc: modulo 2^N). */
#define ARITH_WRAP(T, U)                                                                           \
    switch (op) {                                                                                  \
    case FY_OP_SUM: LOOP(T, (T)((U)a[i] + (U)b[i])); return 0;                                     \
    case FY_OP_PROD: LOOP(T, (T)((U)a[i] * (U)b[i])); return 0;                                    \
    default: break;                                                                                \
    }
#define ORDER(T)                                                                                   \
    switch (op) {                                                                                  \
    case FY_OP_MAX: LOOP(T, a[i] > b[i] ? a[i] : b[i]); return 0;                                  \
    case FY_OP_MIN: LOOP(T, a[i] < b[i] ? a[i] : b[i]); return 0;                                  \
    default: break;                                                                                \
    }
#define LOGIC(T)                                                                                   \
    switch (op) {                                                                                  \
    case FY_OP_LAND: LOOP(T, (T)(a[i] && b[i])); return 0;                                         \
    case FY_OP_LOR: LOOP(T, (T)(a[i] || b[i])); return 0;                                          \
    case FY_OP_LXOR: LOOP(T, (T)(!a[i] != !b[i])); return 0;                                       \
    default: break;                                                                                \
    }
#define BITS(T)                                                                                    \
    switch (op) {                                                                                  \
    case FY_OP_BAND: LOOP(T, a[i] & b[i]); return 0;                                               \
    case FY_OP_BOR: LOOP(T, a[i] | b[i]); return 0;                                                \
    case FY_OP_BXOR: LOOP(T, a[i] ^ b[i]); return 0;                                               \
    default: break;                                                                                \
    }
#define INTEGER(T, U) ARITH_WRAP(T, U) ORDER(T) LOGIC(T) BITS(T) return -1;
#define REAL(T) ARITH(T) ORDER(T) return -1;

/* Complex numbers are stored as two reals (C11 6.2.5). The product is the textbook formula,
 * which vectorises; C's own operator calls a library routine per element to recover infinities
 * from NaN results (Annex G), which only matters for non-finite operands. */
#define COMPLEX(R)                                                                                 \
    switch (op) {                                                                                  \
    case FY_OP_SUM: {                                                                              \
        const R *restrict a = in;                                                                  \
        R *restrict b = inout;                                                                     \
        for (size_t i = 0; i < 2 * n; i++)                                                         \
            b[i] = a[i] + b[i];                                                                    \
        return 0;                                                                                  \
    }                                                                                              \
    case FY_OP_PROD: {                                                                             \
        const R *restrict a = in;                                                                  \
        R *restrict b = inout;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            R ar = a[2 * i], ai = a[2 * i + 1], br = b[2 * i], bi = b[2 * i + 1];                  \
            b[2 * i] = ar * br - ai * bi;                                                          \
            b[2 * i + 1] = ar * bi + ai * br;                                                      \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    default: return -1;                                                                            \
    }

/* MINLOC and MAXLOC (MPI 4.1 "MINLOC and MAXLOC"): the better value wins; on equal values the
 * lower index. Commutative and associative. Written as selects, without branches, so that
 * the loops over pairs of 4-byte parts vectorise. */
#define PAIR_STEP(av, ak, bv, bk)                                                                  \
    do {                                                                                           \
        bool take = op == FY_OP_MAXLOC ? (av) > (bv) : (av) < (bv);                                \
        bool tie = (av) == (bv);                                                                   \
        __typeof__(bk) lower = (ak) < (bk) ? (ak) : (bk);                                          \
        (bk) = take ? (ak) : tie ? lower : (bk);                                                   \
        (bv) = take ? (av) : (bv);                                                                 \
    } while (0)

/* Native layout: struct { T value; K index; }, with its padding. */
#define PAIRLOC(T, K)                                                                              \
    do {                                                                                           \
        typedef struct {                                                                           \
            T v;                                                                                   \
            K k;                                                                                   \
        } pair_t;                                                                                  \
        const pair_t *restrict a = in;                                                             \
        pair_t *restrict b = inout;                                                                \
        for (size_t i = 0; i < n; i++)                                                             \
            PAIR_STEP(a[i].v, a[i].k, b[i].v, b[i].k);                                             \
        return 0;                                                                                  \
    } while (0)

/* Packed layout: the value's bytes then the index's, no padding (how the pack engine lays out
 * a derived type's pair elements). */
#define PAIRLOC_PACKED(T, K)                                                                       \
    do {                                                                                           \
        const unsigned char *a = in;                                                               \
        unsigned char *b = inout;                                                                  \
        for (size_t i = 0; i < n; i++, a += sizeof(T) + sizeof(K), b += sizeof(T) + sizeof(K)) {   \
            T av, bv;                                                                              \
            K ak, bk;                                                                              \
            memcpy(&av, a, sizeof av);                                                             \
            memcpy(&ak, a + sizeof(T), sizeof ak);                                                 \
            memcpy(&bv, b, sizeof bv);                                                             \
            memcpy(&bk, b + sizeof(T), sizeof bk);                                                 \
            PAIR_STEP(av, ak, bv, bk);                                                             \
            memcpy(b, &bv, sizeof bv);                                                             \
            memcpy(b + sizeof(T), &bk, sizeof bk);                                                 \
        }                                                                                          \
        return 0;                                                                                  \
    } while (0)

#if defined(__FLT16_MANT_DIG__)
typedef _Float16 half_t;
#define HALF_OK 1
#else
#define HALF_OK 0
#endif

/* Bytes of one element of a kind in memory (pair kinds: value and index without padding, as
 * packed). 0 for kinds without arithmetic. */
static size_t kind_size(fy_basic_t b)
{
    switch (b) {
    case FY_B_CHAR:
    case FY_B_SCHAR:
    case FY_B_UCHAR:
    case FY_B_I8:
    case FY_B_U8:
    case FY_B_BYTE: return 1;
    case FY_B_BOOL: return sizeof(bool);
    case FY_B_SHORT:
    case FY_B_USHORT: return sizeof(short);
    case FY_B_I16:
    case FY_B_U16:
    case FY_B_FLOAT16: return 2;
    case FY_B_INT:
    case FY_B_UINT: return sizeof(int);
    case FY_B_I32:
    case FY_B_U32: return 4;
    case FY_B_LONG:
    case FY_B_ULONG: return sizeof(long);
    case FY_B_LLONG:
    case FY_B_ULLONG: return sizeof(long long);
    case FY_B_I64:
    case FY_B_U64: return 8;
    case FY_B_FLOAT: return sizeof(float);
    case FY_B_DOUBLE: return sizeof(double);
    case FY_B_LDOUBLE: return sizeof(long double);
    case FY_B_CFLOAT: return 2 * sizeof(float);
    case FY_B_CDOUBLE: return 2 * sizeof(double);
    case FY_B_CLDOUBLE: return 2 * sizeof(long double);
    case FY_B_WCHAR: return sizeof(wchar_t);
    case FY_B_FLOAT_INT: return sizeof(float) + sizeof(int);
    case FY_B_DOUBLE_INT: return sizeof(double) + sizeof(int);
    case FY_B_LONG_INT: return sizeof(long) + sizeof(int);
    case FY_B_SHORT_INT: return sizeof(short) + sizeof(int);
    case FY_B_2INT: return 2 * sizeof(int);
    case FY_B_LDOUBLE_INT: return sizeof(long double) + sizeof(int);
    case FY_B_2FLOAT: return 2 * sizeof(float);
    case FY_B_2DOUBLE: return 2 * sizeof(double);
    default: return 0;
    }
}

/* Pair kinds whose C struct has padding, so that their packed and native layouts differ. */
static bool padded_pair(fy_basic_t b)
{
    return b == FY_B_DOUBLE_INT || b == FY_B_LONG_INT || b == FY_B_SHORT_INT ||
           b == FY_B_LDOUBLE_INT;
}

/* inout = in o inout for n elements of kind t; pairs in native (struct) layout, or packed.
 * 0, or -1 when the kernel does not exist (fy_op_check rejects those pairs first). */
static int kernel(int op, fy_basic_t t, const void *in, void *inout, size_t n, bool packed)
{
    if (op == FY_OP_MINLOC || op == FY_OP_MAXLOC) {
        if (packed && padded_pair(t))
            switch (t) {
            case FY_B_DOUBLE_INT: PAIRLOC_PACKED(double, int);
            case FY_B_LONG_INT: PAIRLOC_PACKED(long, int);
            case FY_B_SHORT_INT: PAIRLOC_PACKED(short, int);
            case FY_B_LDOUBLE_INT: PAIRLOC_PACKED(long double, int);
            default: return -1;
            }
        switch (t) {
        case FY_B_FLOAT_INT: PAIRLOC(float, int);
        case FY_B_DOUBLE_INT: PAIRLOC(double, int);
        case FY_B_LONG_INT: PAIRLOC(long, int);
        case FY_B_SHORT_INT: PAIRLOC(short, int);
        case FY_B_2INT: PAIRLOC(int, int);
        case FY_B_LDOUBLE_INT: PAIRLOC(long double, int);
        case FY_B_2FLOAT: PAIRLOC(float, float); /* Fortran keeps the index in the value's type */
        case FY_B_2DOUBLE: PAIRLOC(double, double);
        default: return -1;
        }
    }
    switch (t) {
    case FY_B_CHAR: /* MPI_CHAR reduces as signed char (G_CHAR) */
    case FY_B_SCHAR: INTEGER(signed char, unsigned)
    case FY_B_UCHAR: INTEGER(unsigned char, unsigned)
    case FY_B_SHORT: INTEGER(short, unsigned)
    case FY_B_USHORT: INTEGER(unsigned short, unsigned)
    case FY_B_INT: INTEGER(int, unsigned)
    case FY_B_UINT: INTEGER(unsigned, unsigned)
    case FY_B_LONG: INTEGER(long, unsigned long)
    case FY_B_ULONG: INTEGER(unsigned long, unsigned long)
    case FY_B_LLONG: INTEGER(long long, unsigned long long)
    case FY_B_ULLONG: INTEGER(unsigned long long, unsigned long long)
    case FY_B_I8: INTEGER(int8_t, unsigned)
    case FY_B_I16: INTEGER(int16_t, unsigned)
    case FY_B_I32: INTEGER(int32_t, uint32_t)
    case FY_B_I64: INTEGER(int64_t, uint64_t)
    case FY_B_U8: INTEGER(uint8_t, unsigned)
    case FY_B_U16: INTEGER(uint16_t, unsigned)
    case FY_B_U32: INTEGER(uint32_t, uint32_t)
    case FY_B_U64: INTEGER(uint64_t, uint64_t)
    case FY_B_FLOAT: REAL(float)
    case FY_B_DOUBLE: REAL(double)
    case FY_B_LDOUBLE: REAL(long double)
#if HALF_OK
    case FY_B_FLOAT16: REAL(half_t)
#endif
    case FY_B_CFLOAT: COMPLEX(float)
    case FY_B_CDOUBLE: COMPLEX(double)
    case FY_B_CLDOUBLE: COMPLEX(long double)
    case FY_B_BOOL: LOGIC(bool) return -1;
    case FY_B_BYTE: BITS(unsigned char) return -1;
    default: return -1;
    }
}

/* ---- Typed buffers --------------------------------------------------------------------- */

size_t fy_op_span(const fy_dtype_t *dt, MPI_Count count, size_t *origin_p)
{
    if (count <= 0 || dt->size == 0) {
        *origin_p = 0;
        return 1;
    }
    MPI_Aint step = (MPI_Aint)(count - 1) * dt->extent;
    MPI_Aint lo = dt->true_lb + (step < 0 ? step : 0);
    MPI_Aint hi = dt->true_lb + dt->true_extent + (step > 0 ? step : 0);
    *origin_p = (size_t)-lo; /* the origin is -lo bytes into the block (lo may be positive) */
    return (size_t)(hi - lo);
}

enum { CHUNK = 16384 }; /* bytes staged on the stack per step of the packed paths */

void fy_op_copy(const fy_dtype_t *dt, const void *src, void *dst, MPI_Count count)
{
    size_t total = fy_dtype_bytes(dt, count);
    if (src == dst || total == 0)
        return;
    if (dt->contig) {
        memcpy((char *)dst + dt->lb, (const char *)src + dt->lb, total);
        return;
    }
    _Alignas(64) unsigned char stage[CHUNK];
    for (size_t lo = 0; lo < total; lo += CHUNK) {
        size_t len = total - lo < CHUNK ? total - lo : CHUNK;
        fy_dtype_pack_range(dt, src, count, lo, stage, len);
        fy_dtype_unpack_range(dt, dst, count, lo, stage, len);
    }
}

/* A derived type of one basic kind: the operator runs on the packed elements, a chunk at a
 * time, and the result is unpacked into inout's layout. */
static int apply_packed(int op, const fy_dtype_t *dt, const void *in, void *inout, MPI_Count count)
{
    size_t esz = kind_size(dt->basic), total = fy_dtype_bytes(dt, count);
    if (esz == 0)
        return MPI_ERR_OP;
    size_t step = CHUNK / esz * esz;
    _Alignas(64) unsigned char ta[CHUNK], tb[CHUNK];
    for (size_t lo = 0; lo < total; lo += step) {
        size_t len = total - lo < step ? total - lo : step;
        fy_dtype_pack_range(dt, in, count, lo, ta, len);
        fy_dtype_pack_range(dt, inout, count, lo, tb, len);
        if (kernel(op, dt->basic, ta, tb, len / esz, true) != 0)
            return MPI_ERR_OP;
        fy_dtype_unpack_range(dt, inout, count, lo, tb, len);
    }
    return MPI_SUCCESS;
}

/* User functions take an int length: longer vectors go in pieces. */
static void apply_user(const fy_op_t *op, const fy_dtype_t *dt, const void *in, void *inout,
                       MPI_Count count)
{
    MPI_Datatype h = dt->handle;
    if (op->large_count) {
        MPI_Count len = count;
        op->fn_c((void *)in, inout, &len, &h);
        return;
    }
    const char *a = in;
    char *b = inout;
    while (count > 0) {
        int len = count > INT_MAX ? INT_MAX : (int)count;
        op->fn((void *)a, b, &len, &h);
        a += (MPI_Aint)len * dt->extent;
        b += (MPI_Aint)len * dt->extent;
        count -= len;
    }
}

int fy_op_apply(MPI_Op h, const fy_dtype_t *dt, const void *in, void *inout, MPI_Count count)
{
    fy_op_t *op = fy_op_get(h);
    if (!op)
        return MPI_ERR_OP;
    if (!op->predef) {
        if (count > 0)
            apply_user(op, dt, in, inout, count);
        return MPI_SUCCESS;
    }
    if (!allowed(op->predef, group_of(dt)))
        return MPI_ERR_OP;
    if (op->predef == FY_OP_NO_OP || count <= 0)
        return MPI_SUCCESS;
    if (op->predef == FY_OP_REPLACE) {
        fy_op_copy(dt, in, inout, count);
        return MPI_SUCCESS;
    }
    if (dt->predefined)
        return kernel(op->predef, dt->basic, in, inout, (size_t)count, false) == 0 ? MPI_SUCCESS
                                                                                   : MPI_ERR_OP;
    size_t esz = kind_size(dt->basic);
    if (dt->contig && esz && !padded_pair(dt->basic)) /* the elements lie back to back */
        return kernel(op->predef, dt->basic, (const char *)in + dt->lb, (char *)inout + dt->lb,
                      fy_dtype_bytes(dt, count) / esz, false) == 0
                   ? MPI_SUCCESS
                   : MPI_ERR_OP;
    return apply_packed(op->predef, dt, in, inout, count);
}
