/* Reductions over every predefined C datatype with every operation the standard allows for
 * it: C integers (incl. fixed-width) with SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR,
 * BXOR; MPI_AINT, MPI_OFFSET, MPI_COUNT and MPI_CHAR with the same (beyond the standard, as MPICH
 * and Open MPI); floating types with
 * SUM, PROD, MIN, MAX; MPI_C_BOOL with LAND, LOR, LXOR; complex types with SUM, PROD; MPI_BYTE with
 * BAND, BOR, BXOR. Allreduce and Reduce (to the last rank), count 7; values chosen so results are
 * exact and never overflow, negative values for signed types. */
#include "mpitest.h"

#include <complex.h>
#include <stdbool.h>

#define COUNT 7

enum { SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const char *const opname[NOPS] = {"SUM", "PROD", "MIN",  "MAX", "LAND",
                                         "LOR", "LXOR", "BAND", "BOR", "BXOR"};
static MPI_Op mpi_op(int op)
{
    MPI_Op t[NOPS] = {MPI_SUM, MPI_PROD, MPI_MIN,  MPI_MAX, MPI_LAND,
                      MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    return t[op];
}

#define INT_OPS 0x3ff
#define FLOAT_OPS ((1 << SUM) | (1 << PROD) | (1 << MIN) | (1 << MAX))
#define LOGIC_OPS ((1 << LAND) | (1 << LOR) | (1 << LXOR))
#define BIT_OPS ((1 << BAND) | (1 << BOR) | (1 << BXOR))

/* The value rank r contributes at index k for operation op (as a long long). */
static long long value(int op, int r, int k, int is_signed)
{
    switch (op) {
    case PROD: return (r + k) % 3 == 0 ? 2 : 1;
    case LAND:
    case LOR:
    case LXOR: return (r + k) % 3 == 0 ? 0 : (k % 2 ? 1 : 3);
    case BAND:
    case BOR:
    case BXOR: return (r * 37 + k * 11 + 0x40) & 0x7f;
    default: return (r * 3 + k) % 11 + 1 - (is_signed ? 5 : 0);
    }
}

static long long combine(int op, long long a, long long b)
{
    switch (op) {
    case SUM: return a + b;
    case PROD: return a * b;
    case MIN: return a < b ? a : b;
    case MAX: return a > b ? a : b;
    case LAND: return (a != 0) && (b != 0);
    case LOR: return (a != 0) || (b != 0);
    case LXOR: return (a != 0) != (b != 0);
    case BAND: return a & b;
    case BOR: return a | b;
    default: return a ^ b;
    }
}

/* One type T: for each allowed op, Allreduce and Reduce, compare with the expected values. */
#define DEFINE_TEST(fn, T, SIGNED)                                                                 \
    static void fn(MPI_Datatype dt, const char *name, int ops)                                     \
    {                                                                                              \
        int is_signed = SIGNED;                                                                    \
        for (int op = 0; op < NOPS; op++) {                                                        \
            if (!(ops & (1 << op)))                                                                \
                continue;                                                                          \
            T in[COUNT], out[COUNT], red[COUNT];                                                   \
            long long want[COUNT];                                                                 \
            for (int k = 0; k < COUNT; k++) {                                                      \
                in[k] = (T)value(op, mt_rank, k, is_signed);                                       \
                out[k] = red[k] = (T)99;                                                           \
                want[k] = value(op, 0, k, is_signed);                                              \
                if (op >= LAND && op <= LXOR)                                                      \
                    want[k] = want[k] != 0;                                                        \
                for (int p = 1; p < mt_size; p++)                                                  \
                    want[k] = combine(op, want[k], value(op, p, k, is_signed));                    \
            }                                                                                      \
            MPI_OK(MPI_Allreduce(in, out, COUNT, dt, mpi_op(op), MPI_COMM_WORLD));                 \
            if (mt_size <= 3) /* Reduce too on small jobs; 4+ ranks are oversubscribed */          \
                MPI_OK(MPI_Reduce(in, red, COUNT, dt, mpi_op(op), mt_size - 1, MPI_COMM_WORLD));   \
            for (int k = 0; k < COUNT; k++) {                                                      \
                int logical = op >= LAND && op <= LXOR;                                            \
                long long got = (long long)out[k], got_r = (long long)red[k];                      \
                int ok = logical ? (got != 0) == (want[k] != 0) : got == want[k];                  \
                CHECK(ok, "Allreduce %s %s [%d]: got %lld, expected %lld", name, opname[op], k,    \
                      got, want[k]);                                                               \
                if (mt_rank == mt_size - 1 && mt_size <= 3) {                                      \
                    ok = logical ? (got_r != 0) == (want[k] != 0) : got_r == want[k];              \
                    CHECK(ok, "Reduce %s %s [%d]: got %lld, expected %lld", name, opname[op], k,   \
                          got_r, want[k]);                                                         \
                }                                                                                  \
                if (!ok)                                                                           \
                    break;                                                                         \
            }                                                                                      \
        }                                                                                          \
    }

DEFINE_TEST(t_char, signed char, 1) /* MPI_CHAR, read as signed char */
DEFINE_TEST(t_schar, signed char, 1)
DEFINE_TEST(t_uchar, unsigned char, 0)
DEFINE_TEST(t_short, short, 1)
DEFINE_TEST(t_ushort, unsigned short, 0)
DEFINE_TEST(t_int, int, 1)
DEFINE_TEST(t_uint, unsigned, 0)
DEFINE_TEST(t_long, long, 1)
DEFINE_TEST(t_ulong, unsigned long, 0)
DEFINE_TEST(t_llong, long long, 1)
DEFINE_TEST(t_ullong, unsigned long long, 0)
DEFINE_TEST(t_i8, int8_t, 1)
DEFINE_TEST(t_i16, int16_t, 1)
DEFINE_TEST(t_i32, int32_t, 1)
DEFINE_TEST(t_i64, int64_t, 1)
DEFINE_TEST(t_u8, uint8_t, 0)
DEFINE_TEST(t_u16, uint16_t, 0)
DEFINE_TEST(t_u32, uint32_t, 0)
DEFINE_TEST(t_u64, uint64_t, 0)
DEFINE_TEST(t_aint, MPI_Aint, 1)
DEFINE_TEST(t_offset, MPI_Offset, 1)
DEFINE_TEST(t_count, MPI_Count, 1)
DEFINE_TEST(t_float, float, 1)
DEFINE_TEST(t_double, double, 1)
DEFINE_TEST(t_ldouble, long double, 1)
DEFINE_TEST(t_bool, bool, 0)
DEFINE_TEST(t_byte, unsigned char, 0)

/* Complex: SUM of (r+1) + k i, PROD of factors 1 or i (exact). */
#define DEFINE_CTEST(fn, T, R)                                                                     \
    static void fn(MPI_Datatype dt, const char *name)                                              \
    {                                                                                              \
        T in[COUNT], out[COUNT], want[COUNT];                                                      \
        for (int k = 0; k < COUNT; k++) {                                                          \
            in[k] = (R)(mt_rank + 1) + (R)k * (T)I;                                                \
            want[k] = 0;                                                                           \
            for (int p = 0; p < mt_size; p++)                                                      \
                want[k] += (R)(p + 1) + (R)k * (T)I;                                               \
        }                                                                                          \
        MPI_OK(MPI_Allreduce(in, out, COUNT, dt, MPI_SUM, MPI_COMM_WORLD));                        \
        for (int k = 0; k < COUNT; k++)                                                            \
            CHECK(out[k] == want[k], "Allreduce %s SUM [%d]: got %g%+gi, expected %g%+gi", name,   \
                  k, (double)creall(out[k]), (double)cimagl(out[k]), (double)creall(want[k]),      \
                  (double)cimagl(want[k]));                                                        \
        for (int k = 0; k < COUNT; k++) {                                                          \
            in[k] = (mt_rank + k) % 2 ? (T)I : (T)1;                                               \
            want[k] = 1;                                                                           \
            for (int p = 0; p < mt_size; p++)                                                      \
                want[k] *= (p + k) % 2 ? (T)I : (T)1;                                              \
            out[k] = 0;                                                                            \
        }                                                                                          \
        MPI_OK(MPI_Reduce(in, out, COUNT, dt, MPI_PROD, 0, MPI_COMM_WORLD));                       \
        if (mt_rank == 0)                                                                          \
            for (int k = 0; k < COUNT; k++)                                                        \
                CHECK(out[k] == want[k], "Reduce %s PROD [%d]: got %g%+gi, expected %g%+gi", name, \
                      k, (double)creall(out[k]), (double)cimagl(out[k]), (double)creall(want[k]),  \
                      (double)cimagl(want[k]));                                                    \
    }

DEFINE_CTEST(t_cfloat, float _Complex, float)
DEFINE_CTEST(t_cdouble, double _Complex, double)
DEFINE_CTEST(t_cldouble, long double _Complex, long double)

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    t_char(MPI_CHAR, "MPI_CHAR", INT_OPS); /* beyond the standard, as MPICH and Open MPI */
    t_schar(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", INT_OPS);
    t_uchar(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", INT_OPS);
    t_short(MPI_SHORT, "MPI_SHORT", INT_OPS);
    t_ushort(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", INT_OPS);
    t_int(MPI_INT, "MPI_INT", INT_OPS);
    t_uint(MPI_UNSIGNED, "MPI_UNSIGNED", INT_OPS);
    t_long(MPI_LONG, "MPI_LONG", INT_OPS);
    t_ulong(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", INT_OPS);
    t_llong(MPI_LONG_LONG, "MPI_LONG_LONG", INT_OPS);
    t_llong(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", INT_OPS);
    t_ullong(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", INT_OPS);
    t_i8(MPI_INT8_T, "MPI_INT8_T", INT_OPS);
    t_i16(MPI_INT16_T, "MPI_INT16_T", INT_OPS);
    t_i32(MPI_INT32_T, "MPI_INT32_T", INT_OPS);
    t_i64(MPI_INT64_T, "MPI_INT64_T", INT_OPS);
    t_u8(MPI_UINT8_T, "MPI_UINT8_T", INT_OPS);
    t_u16(MPI_UINT16_T, "MPI_UINT16_T", INT_OPS);
    t_u32(MPI_UINT32_T, "MPI_UINT32_T", INT_OPS);
    t_u64(MPI_UINT64_T, "MPI_UINT64_T", INT_OPS);
    /* MPI 4.1 gives the multi-language types no logical operators; MPICH and Open MPI accept
     * them, and so does Ferry (tests/README.md) */
    t_aint(MPI_AINT, "MPI_AINT", INT_OPS);
    t_offset(MPI_OFFSET, "MPI_OFFSET", INT_OPS);
    t_count(MPI_COUNT, "MPI_COUNT", INT_OPS);
    t_float(MPI_FLOAT, "MPI_FLOAT", FLOAT_OPS);
    t_double(MPI_DOUBLE, "MPI_DOUBLE", FLOAT_OPS);
    t_ldouble(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", FLOAT_OPS);
    t_bool(MPI_C_BOOL, "MPI_C_BOOL", LOGIC_OPS);
    t_byte(MPI_BYTE, "MPI_BYTE", BIT_OPS);
    t_cfloat(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX");
    t_cfloat(MPI_C_COMPLEX, "MPI_C_COMPLEX");
    t_cdouble(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX");
    t_cldouble(MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX");
    return mt_finish();
}
