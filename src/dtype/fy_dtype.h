/* Datatypes: the predefined ones, the derived ones users build, and the pack engine that moves
 * any of them to and from a contiguous byte stream.
 *
 * A type is described three ways, each for its own reader:
 *   - `def`: the constructor and its arguments as the user gave them (Type_get_envelope and
 *     Type_get_contents answer from it);
 *   - `shape`: the same type normalised to one of three forms (a regular vector, an indexed list
 *     of blocks of one child type, or a struct of blocks of several child types) with every
 *     displacement in bytes. Subarray and darray become nests of these. Sizes, bounds, element
 *     counts and typemap walks (external32, reductions) read the shape;
 *   - `dl`: the shape compiled at commit into loops over contiguous byte runs (children that
 *     are contiguous become runs, adjacent runs merge, a vector of runs stays a strided loop).
 *     The pack engine reads only this.
 * The packed stream of `count` elements is seekable: any byte range [lo, lo + len) can be
 * packed or unpacked on its own, which is what pipelined sends, partial receives and MPI_Pack's
 * position need. */
#ifndef FY_DTYPE_H
#define FY_DTYPE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi.h"

/* Elementary kinds (reductions, external32, Get_elements). */
typedef enum {
    FY_B_NONE, /* mixed, or a marker without data (MPI_LB, MPI_UB) */
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
    FY_B_FLOAT16,
    FY_B_COUNT_
} fy_basic_t;

typedef struct fy_dtype fy_dtype_t;
typedef struct fy_dl fy_dl_t;

/* The normalised shape of a derived type (see above). Displacements are bytes from the
 * type's origin; a block holds `blocklen` consecutive children, each `child->extent` apart. */
typedef enum { FY_SHAPE_VECTOR = 1, FY_SHAPE_INDEXED, FY_SHAPE_STRUCT } fy_shape_kind_t;
typedef struct fy_shape {
    fy_shape_kind_t kind;
    MPI_Count count;       /* blocks */
    MPI_Count blocklen;    /* VECTOR: children per block */
    MPI_Aint stride;       /* VECTOR: bytes from one block to the next */
    MPI_Count *blocklens;  /* INDEXED, STRUCT: children per block */
    MPI_Aint *displs;      /* INDEXED, STRUCT: where each block starts */
    fy_dtype_t *child;     /* VECTOR, INDEXED */
    fy_dtype_t **children; /* STRUCT: one per block */
} fy_shape_t;

/* How the user built the type: MPI_COMBINER_* and its arguments, in the order
 * Type_get_contents returns them. Types referenced here hold a reference. */
typedef struct fy_dtype_def {
    int combiner;
    int nints, naints, ncounts, ntypes;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    fy_dtype_t **types;
} fy_dtype_def_t;

struct fy_dtype {
    MPI_Datatype handle;
    MPI_Aint size;   /* bytes of data in one element */
    MPI_Aint extent; /* stride between elements (ub - lb) */
    MPI_Aint lb;
    bool contig;     /* data fills [lb, lb + size) without holes, and extent == size */
    bool predefined; /* never freed; no reference counting */
    bool committed;
    fy_basic_t basic; /* every element of the typemap is of this kind, else FY_B_NONE */
    MPI_Aint true_lb, true_extent;
    MPI_Count nbasic; /* basic elements in one element (pair types count 2) */
    MPI_Aint align;   /* strictest alignment of its basic elements (struct extent padding) */
    const char *name;
    /* Derived types. */
    atomic_int refs; /* the handle and every user: constructors, requests in flight */
    bool has_lb_marker, has_ub_marker; /* explicit MPI_LB/MPI_UB or resized: sticky bounds */
    fy_shape_t shape;
    fy_dtype_def_t def;
    fy_dl_t *dl;      /* compiled at commit (or on first internal use) */
    bool dl_borrowed; /* dl is the child's (dup, resized): not freed with this type */
    void *attrs;
    char namebuf[MPI_MAX_OBJECT_NAME];
};

/* Handles: predefined types by the low byte of their 0x4c00xxyy handle, the pair types at
 * 0x8c00000k (k < 16), derived types at 0x8c000010 + index. */
extern const fy_dtype_t *fy_dtype_by_low_byte[256];
extern fy_dtype_t fy_dtype_pairs[5];
extern fy_dtype_t **fy_dtype_table;
extern unsigned fy_dtype_table_cap;
#define FY_DTYPE_FIRST_DERIVED 16u

/* NULL when the handle is not a valid datatype. Inline: every call starts here. */
static inline fy_dtype_t *fy_dtype_get(MPI_Datatype dt)
{
    unsigned h = (unsigned)dt;
    if ((h & 0xffff0000u) == 0x4c000000u) {
        const fy_dtype_t *d = fy_dtype_by_low_byte[h & 0xff];
        return (d && (unsigned)d->handle == h) ? (fy_dtype_t *)d : NULL;
    }
    if ((h & 0xfc000000u) == 0x8c000000u) {
        unsigned i = h & 0x03ffffffu;
        if (i < 5)
            return &fy_dtype_pairs[i];
        i -= FY_DTYPE_FIRST_DERIVED;
        if (i < fy_dtype_table_cap)
            return fy_dtype_table[i];
    }
    return NULL;
}

static inline size_t fy_dtype_bytes(const fy_dtype_t *d, MPI_Aint count)
{
    return (size_t)d->size * (size_t)count;
}

/* References held by requests and by types built from this one. */
static inline void fy_dtype_ref(const fy_dtype_t *d)
{
    if (!d->predefined)
        atomic_fetch_add_explicit(&((fy_dtype_t *)d)->refs, 1, memory_order_relaxed);
}
void fy_dtype_release_slow(fy_dtype_t *d);
static inline void fy_dtype_release(const fy_dtype_t *d)
{
    if (!d->predefined &&
        atomic_fetch_sub_explicit(&((fy_dtype_t *)d)->refs, 1, memory_order_acq_rel) == 1)
        fy_dtype_release_slow((fy_dtype_t *)d);
}

/* --- Construction (dtype_create.c). Each returns an MPI error class (message written) and
 * sets *out_p only on success. Counts are MPI_Count; the int forms widen. `oldtype`s must be
 * valid handles (the API checked them). The new type is not committed. */
int fy_dtype_contiguous(MPI_Count count, fy_dtype_t *old, fy_dtype_t **out_p);
int fy_dtype_vector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride, bool stride_in_bytes,
                    fy_dtype_t *old, fy_dtype_t **out_p);
int fy_dtype_indexed(MPI_Count count, const MPI_Count *blocklens, const MPI_Aint *displs,
                     bool displs_in_bytes, fy_dtype_t *old, fy_dtype_t **out_p);
int fy_dtype_struct(MPI_Count count, const MPI_Count *blocklens, const MPI_Aint *displs,
                    fy_dtype_t *const *types, fy_dtype_t **out_p);
int fy_dtype_resized(MPI_Aint lb, MPI_Aint extent, fy_dtype_t *old, fy_dtype_t **out_p);
/* order is MPI_ORDER_C or MPI_ORDER_FORTRAN; arguments already checked. */
int fy_dtype_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                      const MPI_Count *starts, int order, fy_dtype_t *old, fy_dtype_t **out_p);
int fy_dtype_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                    const int *dargs, const int *psizes, int order, fy_dtype_t *old,
                    fy_dtype_t **out_p);
int fy_dtype_dup(fy_dtype_t *old, fy_dtype_t **out_p);
/* Records how the type was made (Type_get_contents); copies the arrays, references types. */
int fy_dtype_set_def(fy_dtype_t *d, int combiner, int nints, const int *ints, int naints,
                     const MPI_Aint *aints, int ncounts, const MPI_Count *counts, int ntypes,
                     fy_dtype_t *const *types);
/* Gives d a handle (table slot). */
int fy_dtype_register(fy_dtype_t *d);
int fy_dtype_commit(fy_dtype_t *d);
/* Drops the handle's reference (MPI_Type_free); the type lives on while in use. */
void fy_dtype_free_handle(fy_dtype_t *d);
void fy_dtype_fini(void);

/* --- The pack engine (dtype_pack.c). Bytes [lo, lo + len) of the packed stream of `count`
 * elements at `buf`; the range must lie within count * size. */
void fy_dtype_pack_range(const fy_dtype_t *d, const void *buf, MPI_Count count, size_t lo,
                         void *out, size_t len);
void fy_dtype_unpack_range(const fy_dtype_t *d, void *buf, MPI_Count count, size_t lo,
                           const void *in, size_t len);
/* The whole stream of `count` elements. */
void fy_dtype_pack(const fy_dtype_t *d, const void *src, MPI_Aint count, void *dst);
/* Unpacks `bytes` bytes (possibly a partial element) from `src` into `dst`. */
void fy_dtype_unpack(const fy_dtype_t *d, const void *src, size_t bytes, void *dst);
/* Builds d->dl if missing (commit does it; internal users of uncommitted types call this). */
int fy_dtype_compile(fy_dtype_t *d);

/* --- Typemap walks (dtype_walk.c), in typemap order over `count` elements at `buf`.
 * The callback gets runs of `n` consecutive basic elements of one kind at `addr` (runs never
 * cross a basic kind change; pair types arrive as their two parts, e.g. FY_B_DOUBLE then
 * FY_B_INT). It returns nonzero to stop the walk; fy_dtype_walk returns that value. */
typedef int (*fy_dtype_walk_fn)(void *arg, fy_basic_t kind, char *addr, MPI_Count n);
int fy_dtype_walk(const fy_dtype_t *d, const void *buf, MPI_Count count, fy_dtype_walk_fn fn,
                  void *arg);
/* Basic elements in the first `bytes` bytes of a packed stream of d; MPI_UNDEFINED when the
 * bytes end inside a basic element. */
MPI_Count fy_dtype_elements_in(const fy_dtype_t *d, size_t bytes);
/* Bytes of the packed stream holding the first `n` basic elements. */
size_t fy_dtype_bytes_of_elements(const fy_dtype_t *d, MPI_Count n);
/* Size in bytes of one basic element of a kind (pair kinds: both parts). */
size_t fy_basic_size(fy_basic_t k);

#endif
