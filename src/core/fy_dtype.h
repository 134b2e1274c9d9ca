/* Datatype descriptors. The send and receive paths take a descriptor, not a handle, so that
 * derived datatypes plug in here without touching the protocols. This release knows the
 * predefined types; the pair types with padding (MPI_DOUBLE_INT ...) are non-contiguous and
 * go through the block pack below. */
#ifndef FY_DTYPE_H
#define FY_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "mpi.h"

/* Elementary kinds, for reductions. */
typedef enum {
    FY_B_NONE,
    FY_B_CHAR,
    FY_B_SCHAR,
    FY_B_UCHAR,
    FY_B_SHORT,
    FY_B_USHORT,
    FY_B_INT,
    FY_B_UINT,
    FY_B_LONG,
    FY_B_ULONG,
    FY_B_LLONG,
    FY_B_ULLONG,
    FY_B_I8,
    FY_B_I16,
    FY_B_I32,
    FY_B_I64,
    FY_B_U8,
    FY_B_U16,
    FY_B_U32,
    FY_B_U64,
    FY_B_FLOAT,
    FY_B_DOUBLE,
    FY_B_LDOUBLE,
    FY_B_CFLOAT,
    FY_B_CDOUBLE,
    FY_B_CLDOUBLE,
    FY_B_BOOL,
    FY_B_BYTE,
    FY_B_WCHAR,
    FY_B_FLOAT_INT,
    FY_B_DOUBLE_INT,
    FY_B_LONG_INT,
    FY_B_SHORT_INT,
    FY_B_2INT,
    FY_B_LDOUBLE_INT,
    FY_B_2FLOAT,
    FY_B_2DOUBLE,
    FY_B_COUNT_
} fy_basic_t;

typedef struct fy_dtype {
    MPI_Datatype handle;
    MPI_Aint size;   /* bytes of data in one element */
    MPI_Aint extent; /* stride between elements */
    MPI_Aint lb;
    bool contig; /* data fills [lb, lb + size) and extent == size */
    fy_basic_t basic;
    /* Non-contiguous predefined types: two blocks (value, index). */
    MPI_Aint blk_off[2], blk_len[2];
    const char *name;
} fy_dtype_t;

/* Predefined types by the low byte of their handle (0x4c00xxyy), and the pair types. */
extern const fy_dtype_t *fy_dtype_by_low_byte[256];
extern const fy_dtype_t fy_dtype_pairs[5];

/* NULL when the handle is not a valid datatype. Inline: every call starts here. */
static inline const fy_dtype_t *fy_dtype_get(MPI_Datatype dt)
{
    unsigned h = (unsigned)dt;
    if ((h & 0xffff0000u) == 0x4c000000u) {
        const fy_dtype_t *d = fy_dtype_by_low_byte[h & 0xff];
        return (d && (unsigned)d->handle == h) ? d : NULL;
    }
    if ((h & 0xfffffff0u) == 0x8c000000u && (h & 0xf) < 5)
        return &fy_dtype_pairs[h & 0xf];
    return NULL;
}

static inline size_t fy_dtype_bytes(const fy_dtype_t *d, MPI_Aint count)
{
    return (size_t)d->size * (size_t)count;
}

/* Packs `count` elements at `src` into contiguous `dst` (fy_dtype_bytes bytes), and back. */
void fy_dtype_pack(const fy_dtype_t *d, const void *src, MPI_Aint count, void *dst);
/* Unpacks `bytes` bytes (possibly a partial element count) from `src` into `dst`. */
void fy_dtype_unpack(const fy_dtype_t *d, const void *src, size_t bytes, void *dst);

#endif
