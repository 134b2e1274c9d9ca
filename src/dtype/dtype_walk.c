/* Walking a typemap by basic elements (external32, reductions on derived types) and counting
 * basic elements in a prefix of a packed stream (MPI_Get_elements, Status_set_elements).
 * These read the shape, not the compiled loops: merged runs forget where one basic element
 * ends and the next begins. */
#include <complex.h>
#include <stdbool.h>
#include <wchar.h>

#include "fy_dtype.h"

size_t fy_basic_size(fy_basic_t k)
{
    switch (k) {
    case FY_B_CHAR:
    case FY_B_SCHAR:
    case FY_B_UCHAR:
    case FY_B_I8:
    case FY_B_U8:
    case FY_B_BOOL:
    case FY_B_BYTE: return 1;
    case FY_B_SHORT:
    case FY_B_USHORT:
    case FY_B_I16:
    case FY_B_U16:
    case FY_B_FLOAT16: return 2;
    case FY_B_INT:
    case FY_B_UINT:
    case FY_B_I32:
    case FY_B_U32:
    case FY_B_FLOAT: return 4;
    case FY_B_WCHAR: return sizeof(wchar_t);
    case FY_B_LONG:
    case FY_B_ULONG: return sizeof(long);
    case FY_B_LLONG:
    case FY_B_ULLONG:
    case FY_B_I64:
    case FY_B_U64:
    case FY_B_DOUBLE:
    case FY_B_CFLOAT: return 8;
    case FY_B_LDOUBLE:
    case FY_B_CDOUBLE: return 16;
    case FY_B_CLDOUBLE: return 32;
    case FY_B_FLOAT_INT: return 8;
    case FY_B_DOUBLE_INT: return 12;
    case FY_B_LONG_INT: return sizeof(long) + 4;
    case FY_B_SHORT_INT: return 6;
    case FY_B_2INT: return 8;
    case FY_B_LDOUBLE_INT: return 20;
    case FY_B_2FLOAT: return 8;
    case FY_B_2DOUBLE: return 16;
    case FY_B_NONE:
    case FY_B_COUNT_: break;
    }
    return 0;
}

/* The two parts of a pair kind; false for other kinds. */
static bool pair_parts(fy_basic_t k, fy_basic_t *v, fy_basic_t *i, size_t *ioff)
{
    switch (k) {
    case FY_B_FLOAT_INT: *v = FY_B_FLOAT, *i = FY_B_INT, *ioff = 4; return true;
    case FY_B_DOUBLE_INT: *v = FY_B_DOUBLE, *i = FY_B_INT, *ioff = 8; return true;
    case FY_B_LONG_INT: *v = FY_B_LONG, *i = FY_B_INT, *ioff = sizeof(long); return true;
    case FY_B_SHORT_INT: *v = FY_B_SHORT, *i = FY_B_INT, *ioff = 4; return true;
    case FY_B_LDOUBLE_INT: *v = FY_B_LDOUBLE, *i = FY_B_INT, *ioff = 16; return true;
    case FY_B_2INT: *v = FY_B_INT, *i = FY_B_INT, *ioff = 4; return true;
    case FY_B_2FLOAT: *v = FY_B_FLOAT, *i = FY_B_FLOAT, *ioff = 4; return true;
    case FY_B_2DOUBLE: *v = FY_B_DOUBLE, *i = FY_B_DOUBLE, *ioff = 8; return true;
    default: return false;
    }
}

static int walk_one(const fy_dtype_t *d, char *p, fy_dtype_walk_fn fn, void *arg)
{
    if (d->predefined) {
        fy_basic_t v, i;
        size_t ioff;
        if (d->size == 0)
            return 0;
        if (pair_parts(d->basic, &v, &i, &ioff)) {
            int rc = fn(arg, v, p, 1);
            return rc ? rc : fn(arg, i, p + ioff, 1);
        }
        return fn(arg, d->basic, p, 1);
    }
    const fy_shape_t *sh = &d->shape;
    for (MPI_Count b = 0; b < sh->count; b++) {
        const fy_dtype_t *c = sh->kind == FY_SHAPE_STRUCT ? sh->children[b] : sh->child;
        MPI_Count bl = sh->kind == FY_SHAPE_VECTOR ? sh->blocklen : sh->blocklens[b];
        char *at = p + (sh->kind == FY_SHAPE_VECTOR ? b * sh->stride : sh->displs[b]);
        if (bl == 0 || c->size == 0)
            continue;
        fy_basic_t v, i;
        size_t ioff;
        if (c->predefined && c->extent == c->size && !pair_parts(c->basic, &v, &i, &ioff)) {
            int rc = fn(arg, c->basic, at, bl); /* a run of basic elements */
            if (rc)
                return rc;
            continue;
        }
        for (MPI_Count k = 0; k < bl; k++) {
            int rc = walk_one(c, at + k * c->extent, fn, arg);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int fy_dtype_walk(const fy_dtype_t *d, const void *buf, MPI_Count count, fy_dtype_walk_fn fn,
                  void *arg)
{
    char *p = (char *)buf;
    if (d->predefined && d->extent == d->size && d->size > 0 &&
        !pair_parts(d->basic, &(fy_basic_t){0}, &(fy_basic_t){0}, &(size_t){0}))
        return count > 0 ? fn(arg, d->basic, p, count) : 0;
    for (MPI_Count i = 0; i < count; i++, p += d->extent) {
        int rc = walk_one(d, p, fn, arg);
        if (rc)
            return rc;
    }
    return 0;
}

/* Basic elements in the first `rem` (< d->size) bytes of one element; -1 when the bytes end
 * inside a basic element. */
static MPI_Count part_elements(const fy_dtype_t *d, size_t rem)
{
    if (rem == 0)
        return 0;
    if (d->predefined) {
        fy_basic_t v, i;
        size_t ioff;
        if (pair_parts(d->basic, &v, &i, &ioff) && rem == fy_basic_size(v))
            return 1;
        return -1;
    }
    const fy_shape_t *sh = &d->shape;
    MPI_Count n = 0;
    for (MPI_Count b = 0; b < sh->count; b++) {
        const fy_dtype_t *c = sh->kind == FY_SHAPE_STRUCT ? sh->children[b] : sh->child;
        MPI_Count bl = sh->kind == FY_SHAPE_VECTOR ? sh->blocklen : sh->blocklens[b];
        size_t bb = (size_t)bl * (size_t)c->size;
        if (bb == 0)
            continue;
        if (sh->kind == FY_SHAPE_VECTOR) { /* equal blocks: skip the whole ones at once */
            MPI_Count whole = (MPI_Count)(rem / bb);
            n += whole * bl * c->nbasic;
            rem -= (size_t)whole * bb;
            if (rem == 0)
                return n;
        } else if (rem >= bb) {
            n += bl * c->nbasic;
            rem -= bb;
            if (rem == 0)
                return n;
            continue;
        }
        MPI_Count k = (MPI_Count)(rem / (size_t)c->size);
        MPI_Count r = part_elements(c, rem % (size_t)c->size);
        return r < 0 ? -1 : n + k * c->nbasic + r;
    }
    return -1;
}

MPI_Count fy_dtype_elements_in(const fy_dtype_t *d, size_t bytes)
{
    if (d->size == 0)
        return 0;
    MPI_Count full = (MPI_Count)(bytes / (size_t)d->size);
    MPI_Count r = part_elements(d, bytes % (size_t)d->size);
    return r < 0 ? MPI_UNDEFINED : full * d->nbasic + r;
}

/* Bytes of the first `n` (< d->nbasic) basic elements of one element. */
static size_t part_bytes(const fy_dtype_t *d, MPI_Count n)
{
    if (n == 0)
        return 0;
    if (d->predefined) {
        fy_basic_t v, i;
        size_t ioff;
        return pair_parts(d->basic, &v, &i, &ioff) ? fy_basic_size(v) : (size_t)d->size;
    }
    const fy_shape_t *sh = &d->shape;
    size_t bytes = 0;
    for (MPI_Count b = 0; b < sh->count; b++) {
        const fy_dtype_t *c = sh->kind == FY_SHAPE_STRUCT ? sh->children[b] : sh->child;
        MPI_Count bl = sh->kind == FY_SHAPE_VECTOR ? sh->blocklen : sh->blocklens[b];
        MPI_Count be = bl * c->nbasic;
        if (be == 0)
            continue;
        if (sh->kind == FY_SHAPE_VECTOR) {
            MPI_Count whole = n / be;
            bytes += (size_t)whole * (size_t)bl * (size_t)c->size;
            n -= whole * be;
            if (n == 0)
                return bytes;
        } else if (n >= be) {
            bytes += (size_t)bl * (size_t)c->size;
            n -= be;
            if (n == 0)
                return bytes;
            continue;
        }
        MPI_Count k = n / c->nbasic;
        return bytes + (size_t)k * (size_t)c->size + part_bytes(c, n % c->nbasic);
    }
    return bytes;
}

size_t fy_dtype_bytes_of_elements(const fy_dtype_t *d, MPI_Count n)
{
    if (d->nbasic == 0)
        return 0;
    MPI_Count full = n / d->nbasic;
    return (size_t)full * (size_t)d->size + part_bytes(d, n % d->nbasic);
}
