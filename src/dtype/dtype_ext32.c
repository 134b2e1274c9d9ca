/* external32 (MPI 4.1 "External Data Representation: external32"): each basic element in
 * big-endian two's complement or IEEE form, at these sizes (bytes):
 *
 *   1   MPI_PACKED MPI_BYTE MPI_CHAR MPI_UNSIGNED_CHAR MPI_SIGNED_CHAR MPI_CHARACTER
 *       MPI_C_BOOL MPI_CXX_BOOL MPI_INT8_T MPI_UINT8_T MPI_INTEGER1
 *   2   MPI_WCHAR MPI_SHORT MPI_UNSIGNED_SHORT MPI_INT16_T MPI_UINT16_T MPI_INTEGER2
 *       (MPIX_C_FLOAT16, IEEE binary16, likewise)
 *   4   MPI_INT MPI_UNSIGNED MPI_LONG MPI_UNSIGNED_LONG MPI_FLOAT MPI_INT32_T MPI_UINT32_T
 *       MPI_INTEGER MPI_LOGICAL MPI_REAL MPI_INTEGER4 MPI_REAL4
 *   8   MPI_LONG_LONG_INT MPI_UNSIGNED_LONG_LONG MPI_DOUBLE MPI_INT64_T MPI_UINT64_T MPI_AINT
 *       MPI_COUNT MPI_OFFSET MPI_DOUBLE_PRECISION MPI_INTEGER8 MPI_REAL8
 *   16  MPI_LONG_DOUBLE MPI_REAL16 (IEEE binary128: 15 exponent bits, 112 fraction bits)
 *   complex types: two of their real type (MPI_C_LONG_DOUBLE_COMPLEX 2 x 16 ...)
 *   pair types: their two parts (MPI_DOUBLE_INT 8 + 4, MPI_LONG_INT 4 + 4 ...)
 *
 * On this LP64 machine MPI_LONG and MPI_UNSIGNED_LONG shrink to 4 bytes and wchar_t (UTF-32)
 * to a 2-byte Unicode unit: a value that does not fit is an error (MPI_ERR_CONVERSION), not a
 * silent truncation. x86's 80-bit long double converts exactly to binary128 and back with
 * rounding to nearest. Booleans read back as 0 or 1 whatever nonzero byte was stored.
 *
 * The typemap is walked by runs of basic elements (fy_dtype_walk; pair types arrive as their
 * two parts), so derived datatypes of any shape work. MPI_AINT, MPI_OFFSET and MPI_COUNT have
 * the basic kind of int64_t, not long's, which is what keeps them at 8 bytes here. */
#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "fy_err.h"
#include "fy_ext32.h"

#if defined(__FLT128_MANT_DIG__)
typedef _Float128 quad_t;
#elif LDBL_MANT_DIG == 113
typedef long double quad_t;
#else
#error "external32 needs an IEEE binary128 type for MPI_LONG_DOUBLE"
#endif

#if !defined(__BYTE_ORDER__) ||                                                                    \
    (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ && __BYTE_ORDER__ != __ORDER_BIG_ENDIAN__)
#error "unknown byte order"
#endif
#define HOST_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

/* external32 bytes of one basic element of a (non-pair) kind; 0 for kinds without data. */
static size_t ext_size(fy_basic_t k)
{
    switch (k) {
    case FY_B_CHAR:
    case FY_B_SCHAR:
    case FY_B_UCHAR:
    case FY_B_I8:
    case FY_B_U8:
    case FY_B_BOOL:
    case FY_B_BYTE: return 1;
    case FY_B_WCHAR:
    case FY_B_SHORT:
    case FY_B_USHORT:
    case FY_B_I16:
    case FY_B_U16:
    case FY_B_FLOAT16: return 2;
    case FY_B_INT:
    case FY_B_UINT:
    case FY_B_LONG:
    case FY_B_ULONG:
    case FY_B_I32:
    case FY_B_U32:
    case FY_B_FLOAT: return 4;
    case FY_B_LLONG:
    case FY_B_ULLONG:
    case FY_B_I64:
    case FY_B_U64:
    case FY_B_DOUBLE:
    case FY_B_CFLOAT: return 8;
    case FY_B_LDOUBLE:
    case FY_B_CDOUBLE: return 16;
    case FY_B_CLDOUBLE: return 32;
    default: return 0;
    }
}

static const char *kind_name(fy_basic_t k)
{
    switch (k) {
    case FY_B_LONG: return "MPI_LONG";
    case FY_B_ULONG: return "MPI_UNSIGNED_LONG";
    case FY_B_WCHAR: return "MPI_WCHAR";
    default: return "element";
    }
}

/* ---- Scalar conversions ---------------------------------------------------------------- */

static inline void put_be(unsigned char *p, uint64_t v, size_t n)
{
    for (size_t i = n; i-- > 0; v >>= 8)
        p[i] = (unsigned char)v;
}

static inline uint64_t get_be(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* n elements of s bytes (1, 2, 4 or 8), byte order reversed on a little-endian host. */
static void swap_copy(unsigned char *dst, const unsigned char *src, size_t n, size_t s)
{
    if (!HOST_LITTLE || s == 1) {
        memcpy(dst, src, n * s);
        return;
    }
    switch (s) {
    case 2:
        for (size_t i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, src + 2 * i, 2);
            v = __builtin_bswap16(v);
            memcpy(dst + 2 * i, &v, 2);
        }
        break;
    case 4:
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, src + 4 * i, 4);
            v = __builtin_bswap32(v);
            memcpy(dst + 4 * i, &v, 4);
        }
        break;
    default:
        for (size_t i = 0; i < n; i++) {
            uint64_t v;
            memcpy(&v, src + 8 * i, 8);
            v = __builtin_bswap64(v);
            memcpy(dst + 8 * i, &v, 8);
        }
        break;
    }
}

/* binary128 <-> 16 big-endian bytes. */
static void quad_put(unsigned char *p, quad_t q)
{
    unsigned char raw[16];
    memcpy(raw, &q, 16);
    for (int i = 0; i < 16; i++)
        p[i] = raw[HOST_LITTLE ? 15 - i : i];
}

static quad_t quad_get(const unsigned char *p)
{
    unsigned char raw[16];
    for (int i = 0; i < 16; i++)
        raw[HOST_LITTLE ? 15 - i : i] = p[i];
    quad_t q;
    memcpy(&q, raw, 16);
    return q;
}

/* ---- Packing a run ----------------------------------------------------------------------- */

typedef struct {
    const char *fn;
    unsigned char *ext; /* the external32 stream at the current position */
    MPI_Count elem;     /* basic elements done (for messages) */
    int rc;
} ext_state_t;

static int pack_run(void *arg, fy_basic_t k, char *addr, MPI_Count count)
{
    ext_state_t *st = arg;
    const unsigned char *src = (const unsigned char *)addr;
    unsigned char *dst = st->ext;
    size_t n = (size_t)count, es = ext_size(k);
    switch (k) {
    case FY_B_BOOL:
        for (size_t i = 0; i < n; i++) {
            unsigned char b;
            memcpy(&b, src + i * sizeof(bool), 1);
            dst[i] = b != 0;
        }
        break;
    case FY_B_LONG:
    case FY_B_ULONG:
    case FY_B_WCHAR: {
        size_t ns = k == FY_B_WCHAR ? sizeof(wchar_t) : sizeof(long);
        bool sgn = k == FY_B_LONG;
        if (ns == es) {
            swap_copy(dst, src, n, es);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            int64_t v;  /* signed kinds */
            uint64_t u; /* the others */
            if (k == FY_B_WCHAR) {
                wchar_t w;
                memcpy(&w, src + i * ns, sizeof w);
                v = (int64_t)w;
                u = w < 0 ? UINT64_MAX : (uint64_t)w; /* negative: not a character */
            } else if (sgn) {
                long l;
                memcpy(&l, src + i * ns, sizeof l);
                v = l;
                u = (uint64_t)l;
            } else {
                unsigned long l;
                memcpy(&l, src + i * ns, sizeof l);
                u = l;
                v = (int64_t)u;
            }
            int bits = (int)(8 * es);
            bool fits = sgn ? v >= -((int64_t)1 << (bits - 1)) && v < ((int64_t)1 << (bits - 1))
                            : u < ((uint64_t)1 << bits);
            if (!fits) {
                char val[32];
                if (sgn || k == FY_B_WCHAR)
                    snprintf(val, sizeof val, "%lld", (long long)v);
                else
                    snprintf(val, sizeof val, "%llu", (unsigned long long)u);
                st->rc =
                    fy_err_set(MPI_ERR_CONVERSION,
                               "%s: %s value %s (basic element %lld) does not fit the %zu "
                               "bytes external32 gives it",
                               st->fn, kind_name(k), val, (long long)(st->elem + (MPI_Count)i), es);
                return 1;
            }
            put_be(dst + i * es, (uint64_t)v, es);
        }
        break;
    }
    case FY_B_LDOUBLE:
    case FY_B_CLDOUBLE: {
        size_t m = k == FY_B_CLDOUBLE ? 2 * n : n;
        for (size_t i = 0; i < m; i++) {
            long double x;
            memcpy(&x, src + i * sizeof(long double), sizeof x);
            quad_put(dst + 16 * i, (quad_t)x);
        }
        break;
    }
    case FY_B_CFLOAT: swap_copy(dst, src, 2 * n, sizeof(float)); break;
    case FY_B_CDOUBLE: swap_copy(dst, src, 2 * n, sizeof(double)); break;
    default:
        if (es == 0) {
            st->rc = fy_err_set(MPI_ERR_INTERN, "%s: basic element kind %d has no external32 form",
                                st->fn, (int)k);
            return 1;
        }
        swap_copy(dst, src, n, es); /* native and external sizes agree */
        break;
    }
    st->ext += n * es;
    st->elem += count;
    return 0;
}

static int unpack_run(void *arg, fy_basic_t k, char *addr, MPI_Count count)
{
    ext_state_t *st = arg;
    unsigned char *dst = (unsigned char *)addr;
    const unsigned char *src = st->ext;
    size_t n = (size_t)count, es = ext_size(k);
    switch (k) {
    case FY_B_BOOL:
        for (size_t i = 0; i < n; i++) {
            bool b = src[i] != 0;
            memcpy(dst + i * sizeof(bool), &b, sizeof b);
        }
        break;
    case FY_B_LONG:
    case FY_B_ULONG:
    case FY_B_WCHAR: {
        size_t ns = k == FY_B_WCHAR ? sizeof(wchar_t) : sizeof(long);
        if (ns == es) {
            swap_copy(dst, src, n, es);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t u = get_be(src + i * es, es);
            if (k == FY_B_LONG) {
                if (u >> (8 * es - 1)) /* sign-extend */
                    u |= ~(uint64_t)0 << (8 * es);
                long l = (long)(int64_t)u;
                memcpy(dst + i * ns, &l, sizeof l);
            } else if (k == FY_B_ULONG) {
                unsigned long l = (unsigned long)u;
                memcpy(dst + i * ns, &l, sizeof l);
            } else {
                wchar_t w = (wchar_t)u;
                memcpy(dst + i * ns, &w, sizeof w);
            }
        }
        break;
    }
    case FY_B_LDOUBLE:
    case FY_B_CLDOUBLE: {
        size_t m = k == FY_B_CLDOUBLE ? 2 * n : n;
        for (size_t i = 0; i < m; i++) {
            long double x = (long double)quad_get(src + 16 * i);
            memcpy(dst + i * sizeof(long double), &x, sizeof x);
        }
        break;
    }
    case FY_B_CFLOAT: swap_copy(dst, src, 2 * n, sizeof(float)); break;
    case FY_B_CDOUBLE: swap_copy(dst, src, 2 * n, sizeof(double)); break;
    default:
        if (es == 0) {
            st->rc = fy_err_set(MPI_ERR_INTERN, "%s: basic element kind %d has no external32 form",
                                st->fn, (int)k);
            return 1;
        }
        swap_copy(dst, src, n, es);
        break;
    }
    st->ext += n * es;
    st->elem += count;
    return 0;
}

static int size_run(void *arg, fy_basic_t k, char *addr, MPI_Count count)
{
    (void)addr;
    ext_state_t *st = arg;
    if (ext_size(k) == 0) {
        st->rc = fy_err_set(MPI_ERR_INTERN, "%s: basic element kind %d has no external32 form",
                            st->fn, (int)k);
        return 1;
    }
    st->elem += count * (MPI_Count)ext_size(k);
    return 0;
}

/* ---- Walking ----------------------------------------------------------------------------- */

static const char anchor[1]; /* a base address for walks that only count */

int fy_ext32_size(const char *fn, const fy_dtype_t *d, MPI_Count count, MPI_Count *size_p)
{
    ext_state_t st = {fn, NULL, 0, MPI_SUCCESS};
    if (count > 0 && fy_dtype_walk(d, anchor, 1, size_run, &st))
        return st.rc;
    *size_p = st.elem * count;
    return MPI_SUCCESS;
}

int fy_ext32_pack(const char *fn, const fy_dtype_t *d, const void *in, MPI_Count count, void *out,
                  MPI_Count outsize, MPI_Count *pos_p)
{
    MPI_Count need = 0;
    int rc = fy_ext32_size(fn, d, count, &need);
    if (rc != MPI_SUCCESS)
        return rc;
    if (need > outsize - *pos_p)
        return fy_err_set(MPI_ERR_TRUNCATE,
                          "%s: %lld elements of %s take %lld bytes in external32, but outsize %lld "
                          "leaves %lld after position %lld",
                          fn, (long long)count, d->name && d->name[0] ? d->name : "the datatype",
                          (long long)need, (long long)outsize, (long long)(outsize - *pos_p),
                          (long long)*pos_p);
    ext_state_t st = {fn, (unsigned char *)out + *pos_p, 0, MPI_SUCCESS};
    if (need > 0 && fy_dtype_walk(d, in, count, pack_run, &st))
        return st.rc;
    *pos_p += need;
    return MPI_SUCCESS;
}

int fy_ext32_unpack(const char *fn, const fy_dtype_t *d, const void *in, MPI_Count insize,
                    MPI_Count *pos_p, void *out, MPI_Count count)
{
    MPI_Count need = 0;
    int rc = fy_ext32_size(fn, d, count, &need);
    if (rc != MPI_SUCCESS)
        return rc;
    if (need > insize - *pos_p)
        return fy_err_set(MPI_ERR_TRUNCATE,
                          "%s: %lld elements of %s need %lld bytes of external32 data, but insize "
                          "%lld leaves %lld after position %lld",
                          fn, (long long)count, d->name && d->name[0] ? d->name : "the datatype",
                          (long long)need, (long long)insize, (long long)(insize - *pos_p),
                          (long long)*pos_p);
    ext_state_t st = {fn, (unsigned char *)in + *pos_p, 0, MPI_SUCCESS};
    if (need > 0 && fy_dtype_walk(d, out, count, unpack_run, &st))
        return st.rc;
    *pos_p += need;
    return MPI_SUCCESS;
}
