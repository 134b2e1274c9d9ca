/* The predefined datatypes and their (un)packing. */
#include <string.h>

#include "fy_dtype.h"
#include "fy_handle.h"

#define CONTIG(h, b, n)                                                                            \
    {                                                                                              \
        h, (MPI_Aint)(((unsigned)(h) >> 8) & 0xff), (MPI_Aint)(((unsigned)(h) >> 8) & 0xff), 0,    \
            true, b, {0, 0}, {0, 0}, n                                                             \
    }

/* Indexed by the low byte of the handle of 0x4c...... types. */
static const fy_dtype_t builtin[] = {
    CONTIG(MPI_CHAR, FY_B_CHAR, "MPI_CHAR"),
    CONTIG(MPI_SIGNED_CHAR, FY_B_SCHAR, "MPI_SIGNED_CHAR"),
    CONTIG(MPI_UNSIGNED_CHAR, FY_B_UCHAR, "MPI_UNSIGNED_CHAR"),
    CONTIG(MPI_BYTE, FY_B_BYTE, "MPI_BYTE"),
    CONTIG(MPI_WCHAR, FY_B_WCHAR, "MPI_WCHAR"),
    CONTIG(MPI_SHORT, FY_B_SHORT, "MPI_SHORT"),
    CONTIG(MPI_UNSIGNED_SHORT, FY_B_USHORT, "MPI_UNSIGNED_SHORT"),
    CONTIG(MPI_INT, FY_B_INT, "MPI_INT"),
    CONTIG(MPI_UNSIGNED, FY_B_UINT, "MPI_UNSIGNED"),
    CONTIG(MPI_LONG, FY_B_LONG, "MPI_LONG"),
    CONTIG(MPI_UNSIGNED_LONG, FY_B_ULONG, "MPI_UNSIGNED_LONG"),
    CONTIG(MPI_FLOAT, FY_B_FLOAT, "MPI_FLOAT"),
    CONTIG(MPI_DOUBLE, FY_B_DOUBLE, "MPI_DOUBLE"),
    CONTIG(MPI_LONG_DOUBLE, FY_B_LDOUBLE, "MPI_LONG_DOUBLE"),
    CONTIG(MPI_LONG_LONG_INT, FY_B_LLONG, "MPI_LONG_LONG_INT"),
    CONTIG(MPI_UNSIGNED_LONG_LONG, FY_B_ULLONG, "MPI_UNSIGNED_LONG_LONG"),
    CONTIG(MPI_PACKED, FY_B_BYTE, "MPI_PACKED"),
    CONTIG(MPI_LB, FY_B_NONE, "MPI_LB"),
    CONTIG(MPI_UB, FY_B_NONE, "MPI_UB"),
    CONTIG(MPI_2INT, FY_B_2INT, "MPI_2INT"),
    CONTIG(MPI_COMPLEX, FY_B_CFLOAT, "MPI_COMPLEX"),
    CONTIG(MPI_DOUBLE_COMPLEX, FY_B_CDOUBLE, "MPI_DOUBLE_COMPLEX"),
    CONTIG(MPI_LOGICAL, FY_B_INT, "MPI_LOGICAL"),
    CONTIG(MPI_REAL, FY_B_FLOAT, "MPI_REAL"),
    CONTIG(MPI_DOUBLE_PRECISION, FY_B_DOUBLE, "MPI_DOUBLE_PRECISION"),
    CONTIG(MPI_INTEGER, FY_B_INT, "MPI_INTEGER"),
    CONTIG(MPI_2INTEGER, FY_B_2INT, "MPI_2INTEGER"),
    CONTIG(MPI_2REAL, FY_B_2FLOAT, "MPI_2REAL"),
    CONTIG(MPI_2DOUBLE_PRECISION, FY_B_2DOUBLE, "MPI_2DOUBLE_PRECISION"),
    CONTIG(MPI_CHARACTER, FY_B_CHAR, "MPI_CHARACTER"),
    CONTIG(MPI_REAL4, FY_B_FLOAT, "MPI_REAL4"),
    CONTIG(MPI_REAL8, FY_B_DOUBLE, "MPI_REAL8"),
    CONTIG(MPI_REAL16, FY_B_LDOUBLE, "MPI_REAL16"),
    CONTIG(MPI_COMPLEX8, FY_B_CFLOAT, "MPI_COMPLEX8"),
    CONTIG(MPI_COMPLEX16, FY_B_CDOUBLE, "MPI_COMPLEX16"),
    CONTIG(MPI_COMPLEX32, FY_B_CLDOUBLE, "MPI_COMPLEX32"),
    CONTIG(MPI_INTEGER1, FY_B_I8, "MPI_INTEGER1"),
    CONTIG(MPI_INTEGER2, FY_B_I16, "MPI_INTEGER2"),
    CONTIG(MPI_INTEGER4, FY_B_I32, "MPI_INTEGER4"),
    CONTIG(MPI_INTEGER8, FY_B_I64, "MPI_INTEGER8"),
    CONTIG(MPI_INT8_T, FY_B_I8, "MPI_INT8_T"),
    CONTIG(MPI_INT16_T, FY_B_I16, "MPI_INT16_T"),
    CONTIG(MPI_INT32_T, FY_B_I32, "MPI_INT32_T"),
    CONTIG(MPI_INT64_T, FY_B_I64, "MPI_INT64_T"),
    CONTIG(MPI_UINT8_T, FY_B_U8, "MPI_UINT8_T"),
    CONTIG(MPI_UINT16_T, FY_B_U16, "MPI_UINT16_T"),
    CONTIG(MPI_UINT32_T, FY_B_U32, "MPI_UINT32_T"),
    CONTIG(MPI_UINT64_T, FY_B_U64, "MPI_UINT64_T"),
    CONTIG(MPI_C_BOOL, FY_B_BOOL, "MPI_C_BOOL"),
    CONTIG(MPI_C_FLOAT_COMPLEX, FY_B_CFLOAT, "MPI_C_FLOAT_COMPLEX"),
    CONTIG(MPI_C_DOUBLE_COMPLEX, FY_B_CDOUBLE, "MPI_C_DOUBLE_COMPLEX"),
    CONTIG(MPI_C_LONG_DOUBLE_COMPLEX, FY_B_CLDOUBLE, "MPI_C_LONG_DOUBLE_COMPLEX"),
    CONTIG(MPIX_C_FLOAT16, FY_B_NONE, "MPIX_C_FLOAT16"),
    CONTIG(MPI_AINT, FY_B_LONG, "MPI_AINT"),
    CONTIG(MPI_OFFSET, FY_B_LONG, "MPI_OFFSET"),
    CONTIG(MPI_COUNT, FY_B_LONG, "MPI_COUNT"),
    CONTIG(MPI_CXX_BOOL, FY_B_BOOL, "MPI_CXX_BOOL"),
    CONTIG(MPI_CXX_FLOAT_COMPLEX, FY_B_CFLOAT, "MPI_CXX_FLOAT_COMPLEX"),
    CONTIG(MPI_CXX_DOUBLE_COMPLEX, FY_B_CDOUBLE, "MPI_CXX_DOUBLE_COMPLEX"),
    CONTIG(MPI_CXX_LONG_DOUBLE_COMPLEX, FY_B_CLDOUBLE, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
};

#define PAIR(h, b, vlen, ioff, ext, n)                                                             \
    {                                                                                              \
        h, (vlen) + 4, ext, 0, false, b, {0, ioff}, {vlen, 4}, n                                   \
    }
const fy_dtype_t fy_dtype_pairs[5] = {
    PAIR(MPI_FLOAT_INT, FY_B_FLOAT_INT, 4, 4, 8, "MPI_FLOAT_INT"),
    PAIR(MPI_DOUBLE_INT, FY_B_DOUBLE_INT, 8, 8, 16, "MPI_DOUBLE_INT"),
    PAIR(MPI_LONG_INT, FY_B_LONG_INT, 8, 8, 16, "MPI_LONG_INT"),
    PAIR(MPI_SHORT_INT, FY_B_SHORT_INT, 2, 4, 8, "MPI_SHORT_INT"),
    PAIR(MPI_LONG_DOUBLE_INT, FY_B_LDOUBLE_INT, 16, 16, 32, "MPI_LONG_DOUBLE_INT"),
};

const fy_dtype_t *fy_dtype_by_low_byte[256];

__attribute__((constructor)) static void build_table(void)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        fy_dtype_by_low_byte[(unsigned)builtin[i].handle & 0xff] = &builtin[i];
}

void fy_dtype_pack(const fy_dtype_t *d, const void *src, MPI_Aint count, void *dst)
{
    if (d->contig) {
        size_t n = fy_dtype_bytes(d, count);
        if (n) /* src may be NULL for an empty message */
            memcpy(dst, (const char *)src + d->lb, n);
        return;
    }
    const char *s = src;
    char *o = dst;
    for (MPI_Aint i = 0; i < count; i++, s += d->extent)
        for (int b = 0; b < 2; b++) {
            memcpy(o, s + d->blk_off[b], (size_t)d->blk_len[b]);
            o += d->blk_len[b];
        }
}

void fy_dtype_unpack(const fy_dtype_t *d, const void *src, size_t bytes, void *dst)
{
    if (d->contig) {
        if (bytes)
            memcpy((char *)dst + d->lb, src, bytes);
        return;
    }
    const char *s = src;
    char *o = dst;
    while (bytes > 0) {
        for (int b = 0; b < 2 && bytes > 0; b++) {
            size_t n = (size_t)d->blk_len[b] < bytes ? (size_t)d->blk_len[b] : bytes;
            memcpy(o + d->blk_off[b], s, n);
            s += n;
            bytes -= n;
        }
        o += d->extent;
    }
}
