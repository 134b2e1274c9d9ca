/* The compiled form of a type (built by dtype_compile.c, read by dtype_pack.c): a tree of
 * loops whose leaves are contiguous byte runs. Offsets are bytes from the origin of one
 * instance of the node. */
#ifndef FY_DTYPE_DL_H
#define FY_DTYPE_DL_H

#include <stddef.h>

#include "fy_dtype.h"

typedef enum {
    FY_DL_RUN = 1, /* `size` bytes at `off` */
    FY_DL_RUNS,    /* `count` runs: runs[i] bytes at displs[i] (prefix[i] packed before) */
    FY_DL_VRUN,    /* `count` runs of `len` bytes, at off + j * stride */
    FY_DL_VEC,     /* `count` blocks at off + j * stride, each `blocklen` children cext apart */
    FY_DL_IDX,     /* block i at displs[i]: blocklens[i] children (child, or children[i]) */
} fy_dl_kind_t;

struct fy_dl {
    fy_dl_kind_t kind;
    size_t size; /* packed bytes of one instance */
    MPI_Aint off;
    MPI_Count count;
    size_t len;         /* VRUN */
    MPI_Aint stride;    /* VRUN, VEC */
    MPI_Count blocklen; /* VEC */
    MPI_Aint cext;      /* VEC, IDX with one child: the child's extent */
    fy_dl_t *child;     /* VEC, IDX with one child */
    fy_dl_t **children; /* IDX of a struct: one per block (their extents in cexts) */
    MPI_Aint *cexts;
    MPI_Count *blocklens; /* IDX */
    size_t *runs;         /* RUNS: run lengths */
    MPI_Aint *displs;     /* RUNS, IDX */
    size_t *prefix;       /* RUNS, IDX: packed bytes before block i (count + 1 entries) */
};
/* Child nodes are the children types' own dl (those types outlive this one), never freed
 * with the parent. A type whose dl is its only child's (dup, resized) borrows it: see
 * fy_dtype_t.dl_borrowed. */

void fy_dl_free(fy_dl_t *dl);

#endif
