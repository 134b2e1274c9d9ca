/* Reduction kernels, one loop per (operator, type), simple enough for the compiler to
 * vectorise. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "fy_err.h"
#include "fy_op.h"

enum {
    OP_MAX = 1,
    OP_MIN,
    OP_SUM,
    OP_PROD,
    OP_LAND,
    OP_BAND,
    OP_LOR,
    OP_BOR,
    OP_LXOR,
    OP_BXOR,
    OP_MINLOC,
    OP_MAXLOC,
    OP_REPLACE,
    OP_NO_OP
};

static int op_index(MPI_Op op)
{
    uint32_t h = (uint32_t)op;
    if ((h & 0xffffff00u) != 0x58000000u || (h & 0xff) < 1 || (h & 0xff) > OP_NO_OP)
        return 0;
    return (int)(h & 0xff);
}

/* The two vectors never overlap (a received copy and the accumulator), and saying so lets the
 * compiler vectorise without a run-time overlap check. */
#define LOOP(T, EXPR)                                                                              \
    do {                                                                                           \
        const T *restrict a = in;                                                                  \
        T *restrict b = inout;                                                                     \
        for (MPI_Aint i = 0; i < count; i++)                                                       \
            b[i] = EXPR;                                                                           \
    } while (0)

#define ARITH(T)                                                                                   \
    switch (op) {                                                                                  \
    case OP_SUM: LOOP(T, a[i] + b[i]); return 0;                                                   \
    case OP_PROD: LOOP(T, a[i] * b[i]); return 0;                                                  \
    default: break;                                                                                \
    }
#define ORDER(T)                                                                                   \
    switch (op) {                                                                                  \
    case OP_MAX: LOOP(T, a[i] > b[i] ? a[i] : b[i]); return 0;                                     \
    case OP_MIN: LOOP(T, a[i] < b[i] ? a[i] : b[i]); return 0;                                     \
    default: break;                                                                                \
    }
#define LOGIC(T)                                                                                   \
    switch (op) {                                                                                  \
    case OP_LAND: LOOP(T, (T)(a[i] && b[i])); return 0;                                            \
    case OP_LOR: LOOP(T, (T)(a[i] || b[i])); return 0;                                             \
    case OP_LXOR: LOOP(T, (T)(!a[i] != !b[i])); return 0;                                          \
    default: break;                                                                                \
    }
#define BITS(T)                                                                                    \
    switch (op) {                                                                                  \
    case OP_BAND: LOOP(T, a[i] & b[i]); return 0;                                                  \
    case OP_BOR: LOOP(T, a[i] | b[i]); return 0;                                                   \
    case OP_BXOR: LOOP(T, a[i] ^ b[i]); return 0;                                                  \
    default: break;                                                                                \
    }
#define INTEGER(T) ARITH(T) ORDER(T) LOGIC(T) BITS(T) return -1;
#define REAL(T) ARITH(T) ORDER(T) return -1;

/* Value and index pairs; Fortran's 2REAL and 2DOUBLE_PRECISION keep the index in the value's
 * type. */
#define PAIRLOC(T) PAIRLOC_K(T, int)
#define PAIRLOC_K(T, K)                                                                            \
    do {                                                                                           \
        typedef struct {                                                                           \
            T v;                                                                                   \
            K k;                                                                                   \
        } pair_t;                                                                                  \
        const pair_t *a = in;                                                                      \
        pair_t *b = inout;                                                                         \
        for (MPI_Aint i = 0; i < count; i++) {                                                     \
            bool take = op == OP_MAXLOC ? a[i].v > b[i].v : a[i].v < b[i].v;                       \
            if (take)                                                                              \
                b[i] = a[i];                                                                       \
            else if (a[i].v == b[i].v && a[i].k < b[i].k)                                          \
                b[i].k = a[i].k;                                                                   \
        }                                                                                          \
        return 0;                                                                                  \
    } while (0)

static int kernel(int op, fy_basic_t t, const void *in, void *inout, MPI_Aint count)
{
    if (op == OP_MINLOC || op == OP_MAXLOC) {
        switch (t) {
        case FY_B_FLOAT_INT: PAIRLOC(float);
        case FY_B_DOUBLE_INT: PAIRLOC(double);
        case FY_B_LONG_INT: PAIRLOC(long);
        case FY_B_SHORT_INT: PAIRLOC(short);
        case FY_B_2INT: PAIRLOC(int);
        case FY_B_LDOUBLE_INT: PAIRLOC(long double);
        case FY_B_2FLOAT: PAIRLOC_K(float, float);
        case FY_B_2DOUBLE: PAIRLOC_K(double, double);
        default: return -1;
        }
    }
    switch (t) {
    case FY_B_CHAR: INTEGER(char)
    case FY_B_SCHAR: INTEGER(signed char)
    case FY_B_UCHAR: INTEGER(unsigned char)
    case FY_B_SHORT: INTEGER(short)
    case FY_B_USHORT: INTEGER(unsigned short)
    case FY_B_INT: INTEGER(int)
    case FY_B_UINT: INTEGER(unsigned)
    case FY_B_LONG: INTEGER(long)
    case FY_B_ULONG: INTEGER(unsigned long)
    case FY_B_LLONG: INTEGER(long long)
    case FY_B_ULLONG: INTEGER(unsigned long long)
    case FY_B_I8: INTEGER(int8_t)
    case FY_B_I16: INTEGER(int16_t)
    case FY_B_I32: INTEGER(int32_t)
    case FY_B_I64: INTEGER(int64_t)
    case FY_B_U8: INTEGER(uint8_t)
    case FY_B_U16: INTEGER(uint16_t)
    case FY_B_U32: INTEGER(uint32_t)
    case FY_B_U64: INTEGER(uint64_t)
    case FY_B_WCHAR: INTEGER(wchar_t)
    case FY_B_FLOAT: REAL(float)
    case FY_B_DOUBLE: REAL(double)
    case FY_B_LDOUBLE: REAL(long double)
    case FY_B_CFLOAT: ARITH(float _Complex) return -1;
    case FY_B_CDOUBLE: ARITH(double _Complex) return -1;
    case FY_B_CLDOUBLE: ARITH(long double _Complex) return -1;
    case FY_B_BOOL: LOGIC(bool) return -1;
    case FY_B_BYTE: BITS(unsigned char) return -1;
    default: return -1;
    }
}

/* Scratch space is not needed: checking is running the kernel on zero elements. */
int fy_op_check(const char *fn, MPI_Op op, const fy_dtype_t *dt)
{
    int k = op_index(op);
    if (!k)
        return fy_err_set(MPI_ERR_OP, "%s: invalid reduction operation 0x%x", fn, (unsigned)op);
    if (k == OP_REPLACE || k == OP_NO_OP)
        return MPI_SUCCESS;
    if (kernel(k, dt->basic, NULL, NULL, 0) != 0)
        return fy_err_set(MPI_ERR_OP, "%s: operation %s is not defined on datatype %s", fn,
                          (const char *[]){"", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD",
                                           "MPI_LAND", "MPI_BAND", "MPI_LOR", "MPI_BOR", "MPI_LXOR",
                                           "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC"}[k],
                          dt->name);
    return MPI_SUCCESS;
}

int fy_op_apply(MPI_Op op, const fy_dtype_t *dt, const void *in, void *inout, MPI_Aint count)
{
    int k = op_index(op);
    if (k == OP_NO_OP)
        return MPI_SUCCESS;
    if (k == OP_REPLACE) {
        memmove(inout, in, (size_t)dt->extent * (size_t)count);
        return MPI_SUCCESS;
    }
    return kernel(k, dt->basic, in, inout, count) == 0 ? MPI_SUCCESS : MPI_ERR_OP;
}
