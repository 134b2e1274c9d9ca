/* Compiling a type's shape into loops over contiguous runs (dtype_dl.h). The aim is that the
 * pack engine touches as few nodes as possible: a block of contiguous children becomes one
 * run, runs that touch merge, equal runs at a constant stride become a strided loop, and a
 * type that is one run in the end is copied with a single memcpy. */
#include <stdlib.h>
#include <string.h>

#include "dtype_dl.h"
#include "fy_err.h"

void fy_dl_free(fy_dl_t *dl)
{
    if (!dl)
        return;
    free(dl->children);
    free(dl->cexts);
    free(dl->blocklens);
    free(dl->runs);
    free(dl->displs);
    free(dl->prefix);
    free(dl);
}

static fy_dl_t *node(fy_dl_kind_t kind, size_t size)
{
    fy_dl_t *n = calloc(1, sizeof *n);
    if (n) {
        n->kind = kind;
        n->size = size;
    }
    return n;
}

static fy_dl_t *run_node(MPI_Aint off, size_t size)
{
    fy_dl_t *n = node(FY_DL_RUN, size);
    if (n)
        n->off = off;
    return n;
}

/* A child whose blocks of `blocklen` are single runs: itself a run, laid end to end. */
static bool block_is_run(const fy_dl_t *cd, const fy_dtype_t *c, MPI_Count blocklen)
{
    return cd->kind == FY_DL_RUN && (blocklen <= 1 || (MPI_Aint)cd->size == c->extent);
}

/* Runs given as (displacement, length) in typemap order: merged where they touch, then the
 * simplest node that holds them. Takes ownership of the arrays. */
static fy_dl_t *from_runs(MPI_Count n, MPI_Aint *displs, size_t *lens, size_t size)
{
    MPI_Count m = 0;
    for (MPI_Count i = 0; i < n; i++) {
        if (lens[i] == 0)
            continue;
        if (m > 0 && displs[m - 1] + (MPI_Aint)lens[m - 1] == displs[i]) {
            lens[m - 1] += lens[i];
            continue;
        }
        displs[m] = displs[i];
        lens[m] = lens[i];
        m++;
    }
    fy_dl_t *r = NULL;
    if (m == 0) {
        r = run_node(0, 0);
    } else if (m == 1) {
        r = run_node(displs[0], lens[0]);
    } else {
        bool regular = true;
        MPI_Aint stride = displs[1] - displs[0];
        for (MPI_Count i = 1; i < m && regular; i++)
            regular = lens[i] == lens[0] && displs[i] - displs[i - 1] == stride;
        if (regular) {
            r = node(FY_DL_VRUN, size);
            if (r) {
                r->count = m;
                r->len = lens[0];
                r->off = displs[0];
                r->stride = stride;
            }
        } else {
            r = node(FY_DL_RUNS, size);
            size_t *prefix = malloc((size_t)(m + 1) * sizeof *prefix);
            if (r && prefix) {
                prefix[0] = 0;
                for (MPI_Count i = 0; i < m; i++)
                    prefix[i + 1] = prefix[i] + lens[i];
                r->count = m;
                r->displs = displs;
                r->runs = lens;
                r->prefix = prefix;
                return r;
            }
            free(prefix);
            free(r);
            r = NULL;
        }
    }
    free(displs);
    free(lens);
    return r;
}

/* `count` blocks `stride` apart from `off`, each `blocklen` children c (compiled as cd). */
static fy_dl_t *vector_loops(size_t size, MPI_Count count, MPI_Count blocklen, MPI_Aint stride,
                             MPI_Aint off, const fy_dtype_t *c, const fy_dl_t *cd)
{
    if (size == 0)
        return run_node(0, 0);
    if (block_is_run(cd, c, blocklen)) {
        size_t bb = (size_t)blocklen * cd->size;
        if (count == 1 || stride == (MPI_Aint)bb)
            return run_node(off + cd->off, bb * (size_t)count);
        fy_dl_t *r = node(FY_DL_VRUN, size);
        if (r) {
            r->count = count;
            r->len = bb;
            r->off = off + cd->off;
            r->stride = stride;
        }
        return r;
    }
    /* One block of children that are runs with gaps between: a strided loop over them. */
    if (cd->kind == FY_DL_RUN && count == 1) {
        fy_dl_t *r = node(FY_DL_VRUN, size);
        if (r) {
            r->count = blocklen;
            r->len = cd->size;
            r->off = off + cd->off;
            r->stride = c->extent;
        }
        return r;
    }
    /* Consecutive copies of a strided loop that continue its stride: one longer loop. */
    if (cd->kind == FY_DL_VRUN && (count == 1 || blocklen == 1)) {
        MPI_Count reps = count == 1 ? blocklen : count;
        MPI_Aint step = count == 1 ? c->extent : stride;
        if (reps == 1 || step == cd->stride * cd->count) {
            fy_dl_t *r = node(FY_DL_VRUN, size);
            if (r) {
                r->count = cd->count * reps;
                r->len = cd->len;
                r->off = off + cd->off;
                r->stride = cd->stride;
            }
            return r;
        }
    }
    fy_dl_t *r = node(FY_DL_VEC, size);
    if (r) {
        r->count = count;
        r->blocklen = blocklen;
        r->stride = stride;
        r->off = off;
        r->cext = c->extent;
        r->child = (fy_dl_t *)cd;
    }
    return r;
}

static fy_dl_t *compile_vector(const fy_dtype_t *d, const fy_dl_t *cd)
{
    const fy_shape_t *sh = &d->shape;
    return vector_loops((size_t)d->size, sh->count, sh->blocklen, sh->stride, 0, sh->child, cd);
}

/* Indexed and struct shapes. */
static fy_dl_t *compile_blocks(const fy_dtype_t *d)
{
    const fy_shape_t *sh = &d->shape;
    bool is_struct = sh->kind == FY_SHAPE_STRUCT;
    bool all_runs = true;
    MPI_Count nonempty = 0;
    for (MPI_Count i = 0; i < sh->count; i++) {
        const fy_dtype_t *c = is_struct ? sh->children[i] : sh->child;
        if (sh->blocklens[i] == 0 || c->size == 0)
            continue;
        nonempty++;
        all_runs = all_runs && block_is_run(c->dl, c, sh->blocklens[i]);
    }
    if (all_runs) {
        MPI_Aint *displs = malloc((size_t)(nonempty ? nonempty : 1) * sizeof *displs);
        size_t *lens = malloc((size_t)(nonempty ? nonempty : 1) * sizeof *lens);
        if (!displs || !lens) {
            free(displs);
            free(lens);
            return NULL;
        }
        MPI_Count m = 0;
        for (MPI_Count i = 0; i < sh->count; i++) {
            const fy_dtype_t *c = is_struct ? sh->children[i] : sh->child;
            if (sh->blocklens[i] == 0 || c->size == 0)
                continue;
            displs[m] = sh->displs[i] + c->dl->off;
            lens[m] = (size_t)sh->blocklens[i] * c->dl->size;
            m++;
        }
        return from_runs(m, displs, lens, (size_t)d->size);
    }
    if (nonempty == 1) /* one block: a vector of one block, which has simpler loops */
        for (MPI_Count i = 0; i < sh->count; i++) {
            const fy_dtype_t *c = is_struct ? sh->children[i] : sh->child;
            if (sh->blocklens[i] > 0 && c->size > 0)
                return vector_loops((size_t)d->size, 1, sh->blocklens[i], 0, sh->displs[i], c,
                                    c->dl);
        }
    fy_dl_t *r = node(FY_DL_IDX, (size_t)d->size);
    if (!r)
        return NULL;
    r->count = nonempty;
    r->blocklens = malloc((size_t)nonempty * sizeof *r->blocklens);
    r->displs = malloc((size_t)nonempty * sizeof *r->displs);
    r->prefix = malloc((size_t)(nonempty + 1) * sizeof *r->prefix);
    if (is_struct) {
        r->children = malloc((size_t)nonempty * sizeof *r->children);
        r->cexts = malloc((size_t)nonempty * sizeof *r->cexts);
    } else {
        r->child = sh->child->dl;
        r->cext = sh->child->extent;
    }
    if (!r->blocklens || !r->displs || !r->prefix || (is_struct && (!r->children || !r->cexts))) {
        fy_dl_free(r);
        return NULL;
    }
    MPI_Count m = 0;
    r->prefix[0] = 0;
    for (MPI_Count i = 0; i < sh->count; i++) {
        const fy_dtype_t *c = is_struct ? sh->children[i] : sh->child;
        if (sh->blocklens[i] == 0 || c->size == 0)
            continue;
        r->blocklens[m] = sh->blocklens[i];
        r->displs[m] = sh->displs[i];
        if (is_struct) {
            r->children[m] = c->dl;
            r->cexts[m] = c->extent;
        }
        r->prefix[m + 1] = r->prefix[m] + (size_t)sh->blocklens[i] * (size_t)c->size;
        m++;
    }
    return r;
}

int fy_dtype_compile(fy_dtype_t *d)
{
    if (d->dl)
        return MPI_SUCCESS;
    const fy_shape_t *sh = &d->shape;
    /* Children first: the parent's loops point into theirs. */
    for (MPI_Count i = 0; i < (sh->kind == FY_SHAPE_STRUCT ? sh->count : 1); i++) {
        fy_dtype_t *c = sh->kind == FY_SHAPE_STRUCT ? sh->children[i] : sh->child;
        int rc = fy_dtype_compile(c);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    fy_dl_t *dl;
    if (sh->kind == FY_SHAPE_VECTOR && sh->count == 1 && sh->blocklen == 1) {
        /* dup, resized and the levels of nests: the child's loops as they are. */
        d->dl = sh->child->dl;
        d->dl_borrowed = true;
        goto done;
    }
    dl = sh->kind == FY_SHAPE_VECTOR ? compile_vector(d, sh->child->dl) : compile_blocks(d);
    if (!dl)
        return fy_err_set(MPI_ERR_NO_MEM, "out of memory compiling a datatype");
    d->dl = dl;
done:
    d->contig =
        d->dl->kind == FY_DL_RUN && (MPI_Aint)d->dl->size == d->extent && d->dl->off == d->lb;
    return MPI_SUCCESS;
}

int fy_dtype_commit(fy_dtype_t *d)
{
    if (d->predefined)
        return MPI_SUCCESS;
    int rc = fy_dtype_compile(d);
    if (rc == MPI_SUCCESS)
        d->committed = true;
    return rc;
}
