/* Every predefined reduction operator on every predefined datatype (MPI 4.1, "Predefined
 * Reduction Operations"): each allowed pair through MPI_Allreduce, MPI_Reduce (to a root that
 * varies) and MPI_Reduce_local, with values chosen so that results are exact; every pair the
 * standard does not allow must fail with MPI_ERR_OP (errors return), and so must arithmetic on
 * a derived struct of mixed types.
 *
 * Extensions MPICH and Open MPI also have: MPI_CHAR is a C integer (signed char here), and
 * MPI_AINT, MPI_OFFSET and MPI_COUNT take the logical operators.
 *
 * Ferry-only checks (#ifdef FERRY), beyond what the standard defines for reductions: the error
 * message names the function, operator and type; MPIX_C_FLOAT16, MPI_REAL16 and MPI_COMPLEX32
 * (long double here); MPI_REPLACE and MPI_NO_OP on every type, locally and in collectives
 * (rank 0's vector and the last rank's vector, as fy_op.h defines them); predefined operators
 * on derived datatypes of one basic type (a strided vector whose holes must stay untouched,
 * MINLOC on a vector of pairs, a type with a negative lower bound). */
#include "mpitest.h"

#include <complex.h>
#include <stdbool.h>

#define N 5

enum { MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC, NOPS };
static const char *const opname[NOPS] = {"MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",
                                         "MPI_LAND", "MPI_LOR",  "MPI_LXOR",   "MPI_BAND",
                                         "MPI_BOR",  "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC"};
static MPI_Op mpi_op(int op)
{
    const MPI_Op t[NOPS] = {MPI_MAX,  MPI_MIN,  MPI_SUM, MPI_PROD, MPI_LAND,   MPI_LOR,
                            MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
    return t[op];
}

/* The standard's groups of datatypes. */
enum { G_CINT, G_FINT, G_MULTI, G_FLOAT, G_COMPLEX, G_LOGICAL, G_BYTE, G_PAIR, G_NONE };

static int allowed(int op, int g)
{
    switch (op) {
    case MAX:
    case MIN: return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_FLOAT;
    case SUM:
    case PROD: return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_FLOAT || g == G_COMPLEX;
    case LAND:
    case LOR:
    case LXOR: return g == G_CINT || g == G_MULTI || g == G_LOGICAL; /* MULTI: see below */
    case BAND:
    case BOR:
    case BXOR: return g == G_CINT || g == G_FINT || g == G_MULTI || g == G_BYTE;
    default: return g == G_PAIR;
    }
}

/* How the test reads and writes one element: a C type, or a pair (value, index). */
typedef enum {
    R_CHAR,
    R_SCHAR,
    R_UCHAR,
    R_SHORT,
    R_USHORT,
    R_INT,
    R_UINT,
    R_LONG,
    R_ULONG,
    R_LLONG,
    R_ULLONG,
    R_FLOAT,
    R_DOUBLE,
    R_LDOUBLE,
    R_BOOL,
    R_WCHAR,
    R_CF,
    R_CD,
    R_CLD,
    R_HALF,
    R_P_FI,
    R_P_DI,
    R_P_LI,
    R_P_SI,
    R_P_II,
    R_P_XI,
    R_P_FF,
    R_P_DD,
} rep_t;

#define PAIR_T(name, V, K)                                                                         \
    typedef struct {                                                                               \
        V v;                                                                                       \
        K k;                                                                                       \
    } name
PAIR_T(p_fi, float, int);
PAIR_T(p_di, double, int);
PAIR_T(p_li, long, int);
PAIR_T(p_si, short, int);
PAIR_T(p_ii, int, int);
PAIR_T(p_xi, long double, int);
PAIR_T(p_ff, float, float);
PAIR_T(p_dd, double, double);

#if defined(FERRY) && defined(__FLT16_MANT_DIG__)
#define HAVE_HALF 1
typedef _Float16 half_t;
#else
#define HAVE_HALF 0
typedef short half_t; /* unused */
#endif

static size_t rep_size(rep_t r)
{
    switch (r) {
    case R_CHAR:
    case R_SCHAR:
    case R_UCHAR: return 1;
    case R_SHORT:
    case R_USHORT: return sizeof(short);
    case R_INT:
    case R_UINT: return sizeof(int);
    case R_LONG:
    case R_ULONG: return sizeof(long);
    case R_LLONG:
    case R_ULLONG: return sizeof(long long);
    case R_FLOAT: return sizeof(float);
    case R_DOUBLE: return sizeof(double);
    case R_LDOUBLE: return sizeof(long double);
    case R_BOOL: return sizeof(bool);
    case R_WCHAR: return sizeof(wchar_t);
    case R_CF: return sizeof(float _Complex);
    case R_CD: return sizeof(double _Complex);
    case R_CLD: return sizeof(long double _Complex);
    case R_HALF: return sizeof(half_t);
    case R_P_FI: return sizeof(p_fi);
    case R_P_DI: return sizeof(p_di);
    case R_P_LI: return sizeof(p_li);
    case R_P_SI: return sizeof(p_si);
    case R_P_II: return sizeof(p_ii);
    case R_P_XI: return sizeof(p_xi);
    case R_P_FF: return sizeof(p_ff);
    default: return sizeof(p_dd);
    }
}

/* Element i of buf: a = value (real part), b = index (imaginary part). */
#define SCALAR(R, T)                                                                               \
    case R:                                                                                        \
        if (put)                                                                                   \
            ((T *)buf)[i] = (T)*a;                                                                 \
        else                                                                                       \
            *a = (long double)((T *)buf)[i], *b = 0;                                               \
        break;
#define CPLX(R, T, RT)                                                                             \
    case R:                                                                                        \
        if (put)                                                                                   \
            ((RT *)buf)[2 * i] = (RT)*a, ((RT *)buf)[2 * i + 1] = (RT)*b;                          \
        else                                                                                       \
            *a = ((RT *)buf)[2 * i], *b = ((RT *)buf)[2 * i + 1];                                  \
        break;
#define PAIR(R, T)                                                                                 \
    case R:                                                                                        \
        if (put)                                                                                   \
            ((T *)buf)[i].v = *a, ((T *)buf)[i].k = *b;                                            \
        else                                                                                       \
            *a = ((T *)buf)[i].v, *b = ((T *)buf)[i].k;                                            \
        break;

static void elem_access(rep_t r, void *buf, int i, long double *a, long double *b, int put)
{
    switch (r) {
        SCALAR(R_CHAR, char)
        SCALAR(R_SCHAR, signed char)
        SCALAR(R_UCHAR, unsigned char)
        SCALAR(R_SHORT, short)
        SCALAR(R_USHORT, unsigned short)
        SCALAR(R_INT, int)
        SCALAR(R_UINT, unsigned)
        SCALAR(R_LONG, long)
        SCALAR(R_ULONG, unsigned long)
        SCALAR(R_LLONG, long long)
        SCALAR(R_ULLONG, unsigned long long)
        SCALAR(R_FLOAT, float)
        SCALAR(R_DOUBLE, double)
        SCALAR(R_LDOUBLE, long double)
        SCALAR(R_BOOL, bool)
        SCALAR(R_WCHAR, wchar_t)
        SCALAR(R_HALF, half_t)
        CPLX(R_CF, float _Complex, float)
        CPLX(R_CD, double _Complex, double)
        CPLX(R_CLD, long double _Complex, long double)
        PAIR(R_P_FI, p_fi)
        PAIR(R_P_DI, p_di)
        PAIR(R_P_LI, p_li)
        PAIR(R_P_SI, p_si)
        PAIR(R_P_II, p_ii)
        PAIR(R_P_XI, p_xi)
        PAIR(R_P_FF, p_ff)
        PAIR(R_P_DD, p_dd)
    }
}
static void put(rep_t r, void *buf, int i, long double a, long double b)
{
    elem_access(r, buf, i, &a, &b, 1);
}
static void get(rep_t r, const void *buf, int i, long double *a, long double *b)
{
    elem_access(r, (void *)buf, i, a, b, 0);
}

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int group;
    rep_t rep;
    int is_signed;
} type_t;

#define T(dt, g, r, s)                                                                             \
    {                                                                                              \
        dt, #dt, g, r, s                                                                           \
    }
static const type_t types[] = {
    T(MPI_SIGNED_CHAR, G_CINT, R_SCHAR, 1),
    T(MPI_UNSIGNED_CHAR, G_CINT, R_UCHAR, 0),
    T(MPI_SHORT, G_CINT, R_SHORT, 1),
    T(MPI_UNSIGNED_SHORT, G_CINT, R_USHORT, 0),
    T(MPI_INT, G_CINT, R_INT, 1),
    T(MPI_UNSIGNED, G_CINT, R_UINT, 0),
    T(MPI_LONG, G_CINT, R_LONG, 1),
    T(MPI_UNSIGNED_LONG, G_CINT, R_ULONG, 0),
    T(MPI_LONG_LONG, G_CINT, R_LLONG, 1),
    T(MPI_UNSIGNED_LONG_LONG, G_CINT, R_ULLONG, 0),
    T(MPI_INT8_T, G_CINT, R_SCHAR, 1),
    T(MPI_INT16_T, G_CINT, R_SHORT, 1),
    T(MPI_INT32_T, G_CINT, R_INT, 1),
    T(MPI_INT64_T, G_CINT, R_LONG, 1),
    T(MPI_UINT8_T, G_CINT, R_UCHAR, 0),
    T(MPI_UINT16_T, G_CINT, R_USHORT, 0),
    T(MPI_UINT32_T, G_CINT, R_UINT, 0),
    T(MPI_UINT64_T, G_CINT, R_ULONG, 0),
    T(MPI_INTEGER, G_FINT, R_INT, 1),
    T(MPI_INTEGER1, G_FINT, R_SCHAR, 1),
    T(MPI_INTEGER2, G_FINT, R_SHORT, 1),
    T(MPI_INTEGER4, G_FINT, R_INT, 1),
    T(MPI_INTEGER8, G_FINT, R_LONG, 1),
    T(MPI_AINT, G_MULTI, R_LONG, 1),
    T(MPI_OFFSET, G_MULTI, R_LONG, 1),
    T(MPI_COUNT, G_MULTI, R_LONG, 1),
    T(MPI_FLOAT, G_FLOAT, R_FLOAT, 1),
    T(MPI_DOUBLE, G_FLOAT, R_DOUBLE, 1),
    T(MPI_LONG_DOUBLE, G_FLOAT, R_LDOUBLE, 1),
    T(MPI_REAL, G_FLOAT, R_FLOAT, 1),
    T(MPI_DOUBLE_PRECISION, G_FLOAT, R_DOUBLE, 1),
    T(MPI_REAL4, G_FLOAT, R_FLOAT, 1),
    T(MPI_REAL8, G_FLOAT, R_DOUBLE, 1),
    T(MPI_C_BOOL, G_LOGICAL, R_BOOL, 0),
    T(MPI_CXX_BOOL, G_LOGICAL, R_BOOL, 0),
    T(MPI_LOGICAL, G_LOGICAL, R_INT, 0),
    T(MPI_C_COMPLEX, G_COMPLEX, R_CF, 1), /* = MPI_C_FLOAT_COMPLEX, named MPI_C_COMPLEX */
    T(MPI_C_DOUBLE_COMPLEX, G_COMPLEX, R_CD, 1),
    T(MPI_C_LONG_DOUBLE_COMPLEX, G_COMPLEX, R_CLD, 1),
    T(MPI_CXX_FLOAT_COMPLEX, G_COMPLEX, R_CF, 1),
    T(MPI_CXX_DOUBLE_COMPLEX, G_COMPLEX, R_CD, 1),
    T(MPI_CXX_LONG_DOUBLE_COMPLEX, G_COMPLEX, R_CLD, 1),
    T(MPI_COMPLEX, G_COMPLEX, R_CF, 1),
    T(MPI_DOUBLE_COMPLEX, G_COMPLEX, R_CD, 1),
    T(MPI_COMPLEX8, G_COMPLEX, R_CF, 1),
    T(MPI_COMPLEX16, G_COMPLEX, R_CD, 1),
    T(MPI_BYTE, G_BYTE, R_UCHAR, 0),
    T(MPI_FLOAT_INT, G_PAIR, R_P_FI, 1),
    T(MPI_DOUBLE_INT, G_PAIR, R_P_DI, 1),
    T(MPI_LONG_INT, G_PAIR, R_P_LI, 1),
    T(MPI_SHORT_INT, G_PAIR, R_P_SI, 1),
    T(MPI_2INT, G_PAIR, R_P_II, 1),
    T(MPI_LONG_DOUBLE_INT, G_PAIR, R_P_XI, 1),
    T(MPI_2INTEGER, G_PAIR, R_P_II, 1),
    T(MPI_2REAL, G_PAIR, R_P_FF, 1),
    T(MPI_2DOUBLE_PRECISION, G_PAIR, R_P_DD, 1),
    /* Beyond the standard, as MPICH and Open MPI do: MPI_CHAR reduces as a C integer (signed
     * char) and MPI_AINT/OFFSET/COUNT take the logical operators (tests/README.md). */
    T(MPI_CHAR, G_CINT, R_CHAR, 1),
    T(MPI_WCHAR, G_NONE, R_WCHAR, 1),
    T(MPI_CHARACTER, G_NONE, R_CHAR, 1),
    T(MPI_PACKED, G_NONE, R_UCHAR, 0),
#ifdef FERRY /* Ferry's long double; MPICH's REAL16 follows the Fortran compiler */
    T(MPI_REAL16, G_FLOAT, R_LDOUBLE, 1),
    T(MPI_COMPLEX32, G_COMPLEX, R_CLD, 1),
#endif
#if HAVE_HALF
    T(MPIX_C_FLOAT16, G_FLOAT, R_HALF, 1),
#endif
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* What rank r contributes at index k for op: small values so results are exact in every type
 * (int8_t, _Float16 ...), negative ones for signed types, ties for MINLOC/MAXLOC. */
static void value(const type_t *t, int op, int r, int k, long double *a, long double *b)
{
    *b = 0;
    switch (op) {
    case PROD:
        if (t->group == G_COMPLEX)
            *a = (r + k) % 2 ? 0 : 1, *b = (r + k) % 2 ? 1 : 0; /* 1 or i */
        else
            *a = (r + k) % 3 == 0 ? 2 : 1;
        break;
    case LAND:
    case LOR:
    case LXOR: *a = (r + 2 * k) % 3 == 0 ? 0 : (t->group == G_LOGICAL ? 1 : (k % 2 ? 1 : 3)); break;
    case BAND:
    case BOR:
    case BXOR: *a = (r * 37 + k * 11 + 0x40) & 0x7f; break;
    case MINLOC:
    case MAXLOC:
        *a = (r * 5 + k * 3) % 4;
        *b = r * 10 + k;
        break;
    default:
        *a = (r * 3 + k) % 11 + 1 - (t->is_signed ? 5 : 0);
        if (t->group == G_COMPLEX)
            *b = k - r;
        break;
    }
}

/* Expected result of combining ranks 0..p-1. */
static void expect(const type_t *t, int op, int p, int k, long double *a, long double *b)
{
    long double x, y;
    value(t, op, 0, k, a, b);
    if (op >= LAND && op <= LXOR)
        *a = *a != 0;
    for (int r = 1; r < p; r++) {
        value(t, op, r, k, &x, &y);
        switch (op) {
        case SUM: *a += x, *b += y; break;
        case PROD:
            if (t->group == G_COMPLEX) {
                long double re = *a * x - *b * y, im = *a * y + *b * x;
                *a = re, *b = im;
            } else {
                *a *= x;
            }
            break;
        case MAX: *a = x > *a ? x : *a; break;
        case MIN: *a = x < *a ? x : *a; break;
        case LAND: *a = *a != 0 && x != 0; break;
        case LOR: *a = *a != 0 || x != 0; break;
        case LXOR: *a = (*a != 0) != (x != 0); break;
        case BAND: *a = (long long)*a & (long long)x; break;
        case BOR: *a = (long long)*a | (long long)x; break;
        case BXOR: *a = (long long)*a ^ (long long)x; break;
        case MINLOC:
        case MAXLOC:
            if (op == MINLOC ? x < *a : x > *a)
                *a = x, *b = y;
            else if (x == *a && y < *b)
                *b = y;
            break;
        }
    }
}

static int check_vec(const type_t *t, int op, const void *buf, int p, const char *what)
{
    for (int k = 0; k < N; k++) {
        long double wa, wb, ga, gb;
        expect(t, op, p, k, &wa, &wb);
        get(t->rep, buf, k, &ga, &gb);
        int ok = op >= LAND && op <= LXOR ? (ga != 0) == (wa != 0) : ga == wa && gb == wb;
        if (!ok) {
            CHECK(0, "%s %s %s [%d] over %d ranks: got (%Lg, %Lg), expected (%Lg, %Lg)", what,
                  opname[op], t->name, k, p, ga, gb, wa, wb);
            return 0;
        }
    }
    return 1;
}

static void fill(const type_t *t, int op, int r, void *buf)
{
    for (int k = 0; k < N; k++) {
        long double a, b;
        value(t, op, r, k, &a, &b);
        put(t->rep, buf, k, a, b);
    }
}

static void fill_junk(const type_t *t, void *buf)
{
    for (int k = 0; k < N; k++)
        put(t->rep, buf, k, 99, 99);
}

/* One allowed pair through the three calls. */
static void test_pair(const type_t *t, int op, int root)
{
    _Alignas(64) unsigned char in[N * 32], out[N * 32], loc[N * 32];
    fill(t, op, mt_rank, in);
    fill_junk(t, out);
    MPI_OK(MPI_Allreduce(in, out, N, t->dt, mpi_op(op), MPI_COMM_WORLD));
    check_vec(t, op, out, mt_size, "MPI_Allreduce");

    fill_junk(t, out);
    MPI_OK(MPI_Reduce(in, out, N, t->dt, mpi_op(op), root, MPI_COMM_WORLD));
    if (mt_rank == root)
        check_vec(t, op, out, mt_size, "MPI_Reduce");

    /* MPI_IN_PLACE at the root, on every other pair */
    if ((op + root) % 2 == 0) {
        fill(t, op, mt_rank, out);
        MPI_OK(MPI_Allreduce(MPI_IN_PLACE, out, N, t->dt, mpi_op(op), MPI_COMM_WORLD));
        check_vec(t, op, out, mt_size, "MPI_Allreduce(MPI_IN_PLACE)");
    }

    /* Reduce_local: inout = in o inout with "rank 0" in inout and "rank 1" in in. */
    fill(t, op, 1, in);
    fill(t, op, 0, loc);
    MPI_OK(MPI_Reduce_local(in, loc, N, t->dt, mpi_op(op)));
    check_vec(t, op, loc, 2, "MPI_Reduce_local");
}

#ifdef FERRY
static int contains(const char *s, const char *sub)
{
    return strstr(s, sub) != NULL;
}
#endif

static void test_invalid(const type_t *t, int op)
{
    /* Known deviation, MPICH 4.0: MPI_LAND/LOR/LXOR are accepted on Fortran integers, MPI_AINT,
     * MPI_OFFSET, MPI_COUNT and floating point types (MPI_Reduce_local then aborts). */
    if (mt_is_mpich40() && op >= LAND && op <= LXOR)
        return;
    /* Known deviation, MPICH 4.0: MPI_CHAR and MPI_CHARACTER are accepted as integers. */
    if (mt_is_mpich40() && (t->dt == MPI_CHAR || t->dt == MPI_CHARACTER))
        return;
    _Alignas(64) unsigned char in[N * 32] = {0}, out[N * 32] = {0};
    int rc = MPI_Allreduce(in, out, N, t->dt, mpi_op(op), MPI_COMM_WORLD);
    char what[128];
    snprintf(what, sizeof what, "MPI_Allreduce %s on %s", opname[op], t->name);
    CHECK_CLASS(rc, MPI_ERR_OP, what);
#ifdef FERRY
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, msg, &len);
        CHECK(contains(msg, "MPI_Allreduce") && contains(msg, opname[op]) && contains(msg, t->name),
              "%s: message \"%s\" should name the call, the operator and the type", what, msg);
    }
#endif
    rc = MPI_Reduce_local(in, out, N, t->dt, mpi_op(op));
    snprintf(what, sizeof what, "MPI_Reduce_local %s on %s", opname[op], t->name);
    CHECK_CLASS(rc, MPI_ERR_OP, what);
    if (op == SUM || op == MINLOC) { /* Reduce too, now and then */
        rc = MPI_Reduce(in, out, N, t->dt, mpi_op(op), 0, MPI_COMM_WORLD);
        snprintf(what, sizeof what, "MPI_Reduce %s on %s", opname[op], t->name);
        CHECK_CLASS(rc, MPI_ERR_OP, what);
    }
}

/* MPI_REPLACE stores in into inout, MPI_NO_OP leaves inout. The standard defines both for
 * accumulate operations only (MPICH 4.0 refuses them in reductions); Ferry accepts them. */
#ifdef FERRY
static void test_replace(const type_t *t)
{
    _Alignas(64) unsigned char in[N * 32], io[N * 32];
    long double a, b, x, y;
    for (int rep = 0; rep < 2; rep++) {
        fill(t, BAND, 3, in);
        fill(t, BAND, 4, io);
        MPI_OK(MPI_Reduce_local(in, io, N, t->dt, rep ? MPI_NO_OP : MPI_REPLACE));
        for (int k = 0; k < N; k++) {
            get(t->rep, io, k, &a, &b);
            value(t, BAND, rep ? 4 : 3, k, &x, &y);
            if (t->rep == R_BOOL)
                x = x != 0;
            CHECK(a == x && b == y,
                  "MPI_Reduce_local %s on %s [%d]: got (%Lg, %Lg), expected "
                  "(%Lg, %Lg)",
                  rep ? "MPI_NO_OP" : "MPI_REPLACE", t->name, k, a, b, x, y);
        }
    }
    /* in collectives: x0 o x1 o ... with a o b = a (REPLACE), b (NO_OP) */
    for (int rep = 0; rep < 2; rep++) {
        fill(t, BAND, mt_rank, in);
        fill_junk(t, io);
        MPI_OK(MPI_Allreduce(in, io, N, t->dt, rep ? MPI_NO_OP : MPI_REPLACE, MPI_COMM_WORLD));
        for (int k = 0; k < N; k++) {
            get(t->rep, io, k, &a, &b);
            value(t, BAND, rep ? mt_size - 1 : 0, k, &x, &y);
            if (t->rep == R_BOOL)
                x = x != 0;
            CHECK(a == x && b == y,
                  "MPI_Allreduce %s on %s [%d]: got (%Lg, %Lg), expected (%Lg, "
                  "%Lg)",
                  rep ? "MPI_NO_OP" : "MPI_REPLACE", t->name, k, a, b, x, y);
        }
    }
}
#endif

/* ---- Derived datatypes -------------------------------------------------------------------- */

/* Predefined operators on derived datatypes of one basic type: an extension the standard
 * defines for accumulate operations only (MPICH 4.0 refuses them in reductions). */
static void test_derived(void)
{
#ifdef FERRY
    int p = mt_size;
    /* Every other double: SUM and MAX; the holes of the receive buffer stay untouched. */
    MPI_Datatype vec;
    MPI_OK(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec));
    MPI_OK(MPI_Type_commit(&vec));
    double in[2 * 6], out[2 * 6];
    for (int i = 0; i < 12; i++)
        in[i] = i % 2 ? -7 : mt_rank + i; /* count 2: elements 0, 2, 4 and 6, 8, 10 */
    for (int pass = 0; pass < 3; pass++) {
        MPI_Op op = pass == 1 ? MPI_MAX : MPI_SUM;
        for (int i = 0; i < 12; i++)
            out[i] = -1;
        /* extent 6 doubles: element 0 is in[0, 2, 4], element 1 in[6, 8, 10] */
        MPI_Datatype v2;
        MPI_OK(MPI_Type_create_resized(vec, 0, 6 * sizeof(double), &v2));
        MPI_OK(MPI_Type_commit(&v2));
        if (pass < 2)
            MPI_OK(MPI_Allreduce(in, out, 2, v2, op, MPI_COMM_WORLD));
        else
            MPI_OK(MPI_Reduce(in, out, 2, v2, op, p - 1, MPI_COMM_WORLD));
        if (pass < 2 || mt_rank == p - 1)
            for (int i = 0; i < 12; i++) {
                double want = -1;
                if (i % 2 == 0)
                    want = pass == 1 ? (p - 1) + i : (double)p * (p - 1) / 2 + (double)p * i;
                CHECK(out[i] == want, "derived vector %s: out[%d] = %g, expected %g",
                      pass == 1 ? "MAX" : "SUM", i, out[i], want);
            }
        MPI_OK(MPI_Type_free(&v2));
    }
    MPI_OK(MPI_Type_free(&vec));

    /* MINLOC on a contiguous type of two MPI_DOUBLE_INT pairs. */
    MPI_Datatype pairs;
    MPI_OK(MPI_Type_contiguous(2, MPI_DOUBLE_INT, &pairs));
    MPI_OK(MPI_Type_commit(&pairs));
    p_di pin[6], pout[6];
    for (int i = 0; i < 6; i++) {
        pin[i].v = (mt_rank * 3 + i) % 4;
        pin[i].k = mt_rank;
        pout[i].v = -1;
        pout[i].k = -1;
    }
    MPI_OK(MPI_Allreduce(pin, pout, 3, pairs, MPI_MINLOC, MPI_COMM_WORLD));
    for (int i = 0; i < 6; i++) {
        double best = 1e9;
        int who = -1;
        for (int r = 0; r < p; r++)
            if ((r * 3 + i) % 4 < best)
                best = (r * 3 + i) % 4, who = r;
        CHECK(pout[i].v == best && pout[i].k == who,
              "MINLOC on contiguous(2, MPI_DOUBLE_INT) [%d]: got (%g, %d), expected (%g, %d)", i,
              pout[i].v, pout[i].k, best, who);
    }
    MPI_OK(MPI_Type_free(&pairs));

    /* A negative lower bound: ints at byte offsets -8 and +4 of the buffer origin (extent 16),
     * reduced to a non-zero root so other ranks need temporary vectors of that layout. */
    MPI_Datatype neg;
    int bl[2] = {1, 1};
    MPI_Aint dis[2] = {-8, 4};
    MPI_OK(MPI_Type_create_hindexed(2, bl, dis, MPI_INT, &neg));
    MPI_OK(MPI_Type_commit(&neg));
    int nin[12], nout[12];
    for (int i = 0; i < 12; i++) {
        nin[i] = mt_rank * 100 + i;
        nout[i] = -5;
    }
    /* origin at index 2: elements at ints 0, 3 and (extent 16 bytes = 4 ints) 4, 7 */
    MPI_OK(MPI_Reduce(nin + 2, nout + 2, 2, neg, MPI_SUM, p > 1 ? 1 : 0, MPI_COMM_WORLD));
    if (mt_rank == (p > 1 ? 1 : 0))
        for (int i = 0; i < 12; i++) {
            int used = i == 0 || i == 3 || i == 4 || i == 7;
            int want = used ? 100 * p * (p - 1) / 2 + p * i : -5;
            CHECK(nout[i] == want, "negative-lb hindexed SUM: nout[%d] = %d, expected %d", i,
                  nout[i], want);
        }
    MPI_OK(MPI_Type_free(&neg));
#endif

    /* Mixed typemap: predefined arithmetic is not defined on it. */
    MPI_Datatype mixed;
    int sbl[2] = {1, 1};
    MPI_Aint sdis[2] = {0, 8};
    MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE};
    MPI_OK(MPI_Type_create_struct(2, sbl, sdis, st, &mixed));
    MPI_OK(MPI_Type_commit(&mixed));
    double mbuf[4] = {0}, mout[4] = {0};
    CHECK_CLASS(MPI_Allreduce(mbuf, mout, 2, mixed, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP,
                "MPI_SUM on struct {int, double}");
    CHECK_CLASS(MPI_Reduce_local(mbuf, mout, 2, mixed, MPI_MAX), MPI_ERR_OP,
                "MPI_Reduce_local MPI_MAX on struct {int, double}");
    MPI_OK(MPI_Type_free(&mixed));
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int npairs = 0;
    for (int i = 0; i < NTYPES; i++) {
        const type_t *t = &types[i];
        if (rep_size(t->rep) > 32) {
            CHECK(0, "test bug: %s elements are too big", t->name);
            continue;
        }
        for (int op = 0; op < NOPS; op++) {
            if (allowed(op, t->group)) {
                test_pair(t, op, (op + i) % mt_size);
                npairs++;
            } else {
                test_invalid(t, op);
            }
        }
#ifdef FERRY
        test_replace(t);
#endif
    }
    test_derived();
    if (mt_rank == 0)
        printf("%d datatypes, %d allowed operator/type pairs\n", NTYPES, npairs);
    return mt_finish();
}
