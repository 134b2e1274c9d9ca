/* The predefined datatypes: sizes from their handles (MPICH encodes the size in bits 8-15),
 * names, kinds, and their compiled form (one run, or two for the pair types). */
#include <string.h>

#include "dtype_dl.h"
#include "fy_dtype.h"
#include "fy_handle.h"

#define SIZE_OF(h) ((MPI_Aint)(((unsigned)(h) >> 8) & 0xff))
#define CONTIG(h, b, n)                                                                            \
    {                                                                                              \
        .handle = h, .size = SIZE_OF(h), .extent = SIZE_OF(h), .lb = 0, .contig = true,            \
        .predefined = true, .committed = true, .basic = b, .true_lb = 0,                           \
        .true_extent = SIZE_OF(h), .nbasic = SIZE_OF(h) ? 1 : 0, .name = n                         \
    }

/* Indexed by the low byte of the handle of 0x4c...... types. */
static fy_dtype_t builtin[] = {
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
    /* MPI_C_COMPLEX is the same handle; MPICH and Open MPI report that name. */
    CONTIG(MPI_C_FLOAT_COMPLEX, FY_B_CFLOAT, "MPI_C_COMPLEX"),
    CONTIG(MPI_C_DOUBLE_COMPLEX, FY_B_CDOUBLE, "MPI_C_DOUBLE_COMPLEX"),
    CONTIG(MPI_C_LONG_DOUBLE_COMPLEX, FY_B_CLDOUBLE, "MPI_C_LONG_DOUBLE_COMPLEX"),
    CONTIG(MPIX_C_FLOAT16, FY_B_FLOAT16, "MPIX_C_FLOAT16"),
    CONTIG(MPI_AINT, FY_B_I64, "MPI_AINT"),
    CONTIG(MPI_OFFSET, FY_B_I64, "MPI_OFFSET"),
    CONTIG(MPI_COUNT, FY_B_I64, "MPI_COUNT"),
    CONTIG(MPI_CXX_BOOL, FY_B_BOOL, "MPI_CXX_BOOL"),
    CONTIG(MPI_CXX_FLOAT_COMPLEX, FY_B_CFLOAT, "MPI_CXX_FLOAT_COMPLEX"),
    CONTIG(MPI_CXX_DOUBLE_COMPLEX, FY_B_CDOUBLE, "MPI_CXX_DOUBLE_COMPLEX"),
    CONTIG(MPI_CXX_LONG_DOUBLE_COMPLEX, FY_B_CLDOUBLE, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
};

/* value at 0, int after the value's alignment; extent padded to the struct's alignment. */
#define PAIR(h, b, vlen, ioff, ext, al, n)                                                         \
    {                                                                                              \
        .handle = h, .size = (vlen) + 4, .extent = ext, .lb = 0, .contig = false,                  \
        .predefined = true, .committed = true, .basic = b, .true_lb = 0,                           \
        .true_extent = (ioff) + 4, .nbasic = 2, .align = al, .name = n                             \
    }
fy_dtype_t fy_dtype_pairs[5] = {
    PAIR(MPI_FLOAT_INT, FY_B_FLOAT_INT, 4, 4, 8, 4, "MPI_FLOAT_INT"),
    PAIR(MPI_DOUBLE_INT, FY_B_DOUBLE_INT, 8, 8, 16, 8, "MPI_DOUBLE_INT"),
    PAIR(MPI_LONG_INT, FY_B_LONG_INT, 8, 8, 16, 8, "MPI_LONG_INT"),
    PAIR(MPI_SHORT_INT, FY_B_SHORT_INT, 2, 4, 8, 4, "MPI_SHORT_INT"),
    PAIR(MPI_LONG_DOUBLE_INT, FY_B_LDOUBLE_INT, 16, 16, 32, 16, "MPI_LONG_DOUBLE_INT"),
};
static const size_t pair_value_len[5] = {4, 8, 8, 2, 16};

#define NBUILTIN (sizeof builtin / sizeof builtin[0])
const fy_dtype_t *fy_dtype_by_low_byte[256];
static fy_dl_t builtin_dl[NBUILTIN];
static fy_dl_t pair_dl[5];
static MPI_Aint pair_displs[5][2];
static size_t pair_runs[5][2], pair_prefix[5][3];

/* Natural alignment: that of the scalar, or of a complex number's parts. */
static MPI_Aint align_of(const fy_dtype_t *d)
{
    switch (d->basic) {
    case FY_B_CFLOAT:
    case FY_B_CDOUBLE:
    case FY_B_CLDOUBLE: return d->size / 2;
    case FY_B_2INT:
    case FY_B_2FLOAT:
    case FY_B_2DOUBLE: return d->size / 2;
    default: return d->size > 0 ? d->size : 1;
    }
}

__attribute__((constructor)) static void build_table(void)
{
    for (size_t i = 0; i < NBUILTIN; i++) {
        fy_dtype_t *d = &builtin[i];
        fy_dtype_by_low_byte[(unsigned)d->handle & 0xff] = d;
        d->align = align_of(d);
        if (d->basic == FY_B_2INT || d->basic == FY_B_2FLOAT || d->basic == FY_B_2DOUBLE)
            d->nbasic = 2; /* two basic elements in one, for MPI_Get_elements */
        builtin_dl[i].kind = FY_DL_RUN;
        builtin_dl[i].size = (size_t)d->size;
        d->dl = &builtin_dl[i];
        d->has_lb_marker = d->handle == MPI_LB;
        d->has_ub_marker = d->handle == MPI_UB;
    }
    for (int i = 0; i < 5; i++) {
        fy_dtype_t *d = &fy_dtype_pairs[i];
        fy_dl_t *n = &pair_dl[i];
        pair_displs[i][0] = 0;
        pair_displs[i][1] = d->true_extent - 4;
        pair_runs[i][0] = pair_value_len[i];
        pair_runs[i][1] = 4;
        pair_prefix[i][0] = 0;
        pair_prefix[i][1] = pair_value_len[i];
        pair_prefix[i][2] = pair_value_len[i] + 4;
        n->kind = FY_DL_RUNS;
        n->size = (size_t)d->size;
        n->count = 2;
        n->displs = pair_displs[i];
        n->runs = pair_runs[i];
        n->prefix = pair_prefix[i];
        d->dl = n;
    }
}
