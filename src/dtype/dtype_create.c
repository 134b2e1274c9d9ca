/* Building derived types: each constructor becomes a normalised shape (fy_dtype.h), from which
 * size, bounds, alignment and element counts follow. Subarray and darray are nests of one-block
 * indexed types, each resized to the extent of its whole dimension, as the standard defines
 * them. Types made here without a handle (the inner levels of those nests) live as long as
 * the type that holds them. */
#include <stdlib.h>
#include <string.h>

#include "fy_dtype.h"
#include "fy_err.h"
#include "fy_handle.h"

fy_dtype_t **fy_dtype_table;
unsigned fy_dtype_table_cap;

static fy_dtype_t *new_type(void)
{
    fy_dtype_t *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->handle = MPI_DATATYPE_NULL;
    atomic_init(&d->refs, 1);
    d->name = d->namebuf;
    return d;
}

static MPI_Aint min_a(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}
static MPI_Aint max_a(MPI_Aint a, MPI_Aint b)
{
    return a > b ? a : b;
}

/* Where a set of blocks lies: the bounds of their data (true bounds) and their lb/ub, kept
 * apart for children with explicit (sticky) bounds, which win over the others. */
typedef struct {
    bool data, any_lb_mark, any_ub_mark, any;
    MPI_Aint tlo, thi; /* data */
    MPI_Aint lo, hi;   /* bounds of every child */
    MPI_Aint mlo, mhi; /* bounds of children with explicit markers */
} span_t;

static void widen(bool *seen, MPI_Aint *lo, MPI_Aint *hi, MPI_Aint l, MPI_Aint h)
{
    if (!*seen) {
        *lo = l;
        *hi = h;
        *seen = true;
        return;
    }
    *lo = min_a(*lo, l);
    *hi = max_a(*hi, h);
}

/* `blocklen` children of c starting at displacement `at`, c->extent apart. */
static void span_add(span_t *s, const fy_dtype_t *c, MPI_Aint at, MPI_Count blocklen)
{
    if (blocklen <= 0)
        return;
    MPI_Aint last = at + (MPI_Aint)(blocklen - 1) * c->extent;
    MPI_Aint a0 = min_a(at, last), a1 = max_a(at, last);
    MPI_Aint lo = a0 + c->lb, hi = a1 + c->lb + c->extent;
    widen(&s->any, &s->lo, &s->hi, lo, hi);
    if (c->has_lb_marker) {
        s->mlo = s->any_lb_mark ? min_a(s->mlo, lo) : lo;
        s->any_lb_mark = true;
    }
    if (c->has_ub_marker) {
        s->mhi = s->any_ub_mark ? max_a(s->mhi, hi) : hi;
        s->any_ub_mark = true;
    }
    if (c->size > 0)
        widen(&s->data, &s->tlo, &s->thi, a0 + c->true_lb, a1 + c->true_lb + c->true_extent);
}

static fy_dtype_t *block_child(const fy_shape_t *sh, MPI_Count i)
{
    return sh->kind == FY_SHAPE_STRUCT ? sh->children[i] : sh->child;
}
static MPI_Count block_len(const fy_shape_t *sh, MPI_Count i)
{
    return sh->kind == FY_SHAPE_VECTOR ? sh->blocklen : sh->blocklens[i];
}
static MPI_Aint block_at(const fy_shape_t *sh, MPI_Count i)
{
    return sh->kind == FY_SHAPE_VECTOR ? (MPI_Aint)i * sh->stride : sh->displs[i];
}

/* Size, bounds, alignment, element count and kind of d from its shape. Struct types round
 * their extent up to their strictest alignment (the standard's epsilon), so that an array of
 * them matches an array of the C struct; explicit bounds turn that off. */
static void finish_shape(fy_dtype_t *d)
{
    const fy_shape_t *sh = &d->shape;
    span_t sp = {0};
    MPI_Count size = 0, nbasic = 0;
    MPI_Aint align = 1;
    bool first = true;
    fy_basic_t basic = FY_B_NONE;
    for (MPI_Count i = 0; i < sh->count; i++) {
        /* A vector's blocks are all alike: the first and the last give the bounds. */
        if (sh->kind == FY_SHAPE_VECTOR && i == 1 && sh->count > 2)
            i = sh->count - 1;
        const fy_dtype_t *c = block_child(sh, i);
        MPI_Count bl = block_len(sh, i);
        span_add(&sp, c, block_at(sh, i), bl);
        if (bl > 0 && c->align > align) /* an empty block adds nothing to the typemap */
            align = c->align;
        if (bl > 0 && c->size > 0) {
            if (first)
                basic = c->basic;
            else if (basic != c->basic)
                basic = FY_B_NONE;
            first = false;
        }
    }
    for (MPI_Count i = 0; i < sh->count; i++) {
        if (sh->kind == FY_SHAPE_VECTOR) {
            size = sh->count * sh->blocklen * sh->child->size;
            nbasic = sh->count * sh->blocklen * sh->child->nbasic;
            break;
        }
        size += sh->blocklens[i] * block_child(sh, i)->size;
        nbasic += sh->blocklens[i] * block_child(sh, i)->nbasic;
    }
    d->size = size;
    d->nbasic = nbasic;
    d->basic = basic;
    d->align = align;
    d->has_lb_marker = sp.any_lb_mark;
    d->has_ub_marker = sp.any_ub_mark;
    MPI_Aint lb = sp.any ? (sp.any_lb_mark ? sp.mlo : sp.lo) : 0;
    MPI_Aint ub = sp.any ? (sp.any_ub_mark ? sp.mhi : sp.hi) : 0;
    if (sh->kind == FY_SHAPE_STRUCT && !sp.any_lb_mark && !sp.any_ub_mark && align > 1) {
        MPI_Aint ext = ub - lb, rem = ext % align;
        if (rem)
            ub += align - rem;
    }
    d->lb = lb;
    d->extent = ub - lb;
    d->true_lb = sp.data ? sp.tlo : 0;
    d->true_extent = sp.data ? sp.thi - sp.tlo : 0;
}

static int no_mem(const char *what)
{
    return fy_err_set(MPI_ERR_NO_MEM, "out of memory creating a datatype (%s)", what);
}

/* A new type of shape kind over `count` blocks; arrays allocated for indexed and struct. */
static int shaped(fy_shape_kind_t kind, MPI_Count count, fy_dtype_t **out_p)
{
    fy_dtype_t *d = new_type();
    if (!d)
        return no_mem("descriptor");
    d->shape.kind = kind;
    d->shape.count = count;
    if (kind != FY_SHAPE_VECTOR && count > 0) {
        d->shape.blocklens = malloc((size_t)count * sizeof(MPI_Count));
        d->shape.displs = malloc((size_t)count * sizeof(MPI_Aint));
        if (kind == FY_SHAPE_STRUCT)
            d->shape.children = calloc((size_t)count, sizeof(fy_dtype_t *));
        if (!d->shape.blocklens || !d->shape.displs ||
            (kind == FY_SHAPE_STRUCT && !d->shape.children)) {
            free(d->shape.blocklens);
            free(d->shape.displs);
            free(d->shape.children);
            free(d);
            return no_mem("block list");
        }
    }
    *out_p = d;
    return MPI_SUCCESS;
}

int fy_dtype_vector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride, bool stride_in_bytes,
                    fy_dtype_t *old, fy_dtype_t **out_p)
{
    fy_dtype_t *d;
    int rc = shaped(FY_SHAPE_VECTOR, count, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    d->shape.blocklen = blocklen;
    d->shape.stride = stride_in_bytes ? stride : stride * old->extent;
    d->shape.child = old;
    fy_dtype_ref(old);
    finish_shape(d);
    *out_p = d;
    return MPI_SUCCESS;
}

int fy_dtype_contiguous(MPI_Count count, fy_dtype_t *old, fy_dtype_t **out_p)
{
    /* One block of `count` children: they lie old->extent apart by definition. */
    return fy_dtype_vector(1, count, 0, true, old, out_p);
}

int fy_dtype_indexed(MPI_Count count, const MPI_Count *blocklens, const MPI_Aint *displs,
                     bool displs_in_bytes, fy_dtype_t *old, fy_dtype_t **out_p)
{
    fy_dtype_t *d;
    int rc = shaped(FY_SHAPE_INDEXED, count, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    for (MPI_Count i = 0; i < count; i++) {
        d->shape.blocklens[i] = blocklens[i];
        d->shape.displs[i] = displs_in_bytes ? displs[i] : displs[i] * old->extent;
    }
    d->shape.child = old;
    fy_dtype_ref(old);
    finish_shape(d);
    *out_p = d;
    return MPI_SUCCESS;
}

int fy_dtype_struct(MPI_Count count, const MPI_Count *blocklens, const MPI_Aint *displs,
                    fy_dtype_t *const *types, fy_dtype_t **out_p)
{
    fy_dtype_t *d;
    int rc = shaped(FY_SHAPE_STRUCT, count, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    for (MPI_Count i = 0; i < count; i++) {
        d->shape.blocklens[i] = blocklens[i];
        d->shape.displs[i] = displs[i];
        d->shape.children[i] = types[i];
        fy_dtype_ref(types[i]);
    }
    finish_shape(d);
    *out_p = d;
    return MPI_SUCCESS;
}

/* One child at displacement 0 with new bounds: resized, and the inner levels of nests. */
int fy_dtype_resized(MPI_Aint lb, MPI_Aint extent, fy_dtype_t *old, fy_dtype_t **out_p)
{
    fy_dtype_t *d;
    int rc = fy_dtype_vector(1, 1, 0, true, old, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    d->lb = lb;
    d->extent = extent;
    d->has_lb_marker = d->has_ub_marker = true;
    *out_p = d;
    return MPI_SUCCESS;
}

int fy_dtype_dup(fy_dtype_t *old, fy_dtype_t **out_p)
{
    fy_dtype_t *d;
    int rc = fy_dtype_vector(1, 1, 0, true, old, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The same bounds, whatever the rules would give (struct padding, markers). */
    d->lb = old->lb;
    d->extent = old->extent;
    d->has_lb_marker = old->has_lb_marker;
    d->has_ub_marker = old->has_ub_marker;
    *out_p = d;
    return MPI_SUCCESS;
}

/* One dimension of a subarray or darray: the chosen runs of `inner` (an element of this
 * dimension) inside a dimension of `n` of them, resized to the whole dimension. `runs` pairs
 * (start, length) in elements. */
static int dimension(MPI_Count n, MPI_Count nruns, const MPI_Count *starts, const MPI_Count *lens,
                     fy_dtype_t *inner, fy_dtype_t **out_p)
{
    MPI_Aint *displs = malloc((size_t)(nruns ? nruns : 1) * sizeof *displs);
    if (!displs)
        return no_mem("dimension");
    for (MPI_Count i = 0; i < nruns; i++)
        displs[i] = (MPI_Aint)starts[i] * inner->extent;
    fy_dtype_t *blocks, *dim;
    int rc = fy_dtype_indexed(nruns, lens, displs, true, inner, &blocks);
    free(displs);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = fy_dtype_resized(0, (MPI_Aint)n * inner->extent, blocks, &dim);
    fy_dtype_release(blocks); /* dim holds it */
    if (rc != MPI_SUCCESS)
        return rc;
    *out_p = dim;
    return MPI_SUCCESS;
}

/* Builds the nest from the fastest dimension outwards; `dim_of(k)` gives each level. */
int fy_dtype_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                      const MPI_Count *starts, int order, fy_dtype_t *old, fy_dtype_t **out_p)
{
    fy_dtype_t *t = old;
    fy_dtype_ref(old);
    for (int k = 0; k < ndims; k++) {
        int dim = order == MPI_ORDER_C ? ndims - 1 - k : k;
        fy_dtype_t *next;
        int rc = dimension(sizes[dim], 1, &starts[dim], &subsizes[dim], t, &next);
        fy_dtype_release(t);
        if (rc != MPI_SUCCESS)
            return rc;
        t = next;
    }
    /* The outermost level is already resized to the whole array, with lb 0. */
    *out_p = t;
    return MPI_SUCCESS;
}

/* The runs of dimension `dim` that process coordinate `coord` owns. */
static int darray_runs(MPI_Count g, int distrib, int darg, int p, int coord, MPI_Count *nruns_p,
                       MPI_Count **starts_p, MPI_Count **lens_p)
{
    MPI_Count b, nruns = 0;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        b = g;
        p = 1;
        coord = 0;
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
    } else {
        b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    }
    MPI_Count nblocks = b > 0 ? (g + b - 1) / b : 0;
    MPI_Count mine = nblocks > coord ? (nblocks - coord + p - 1) / p : 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK && mine > 1)
        mine = 1;
    MPI_Count *starts = malloc((size_t)(mine ? mine : 1) * sizeof *starts);
    MPI_Count *lens = malloc((size_t)(mine ? mine : 1) * sizeof *lens);
    if (!starts || !lens) {
        free(starts);
        free(lens);
        return no_mem("darray");
    }
    for (MPI_Count j = coord; j < nblocks && nruns < mine; j += p) {
        starts[nruns] = j * b;
        lens[nruns] = j * b + b <= g ? b : g - j * b;
        nruns++;
    }
    *nruns_p = nruns;
    *starts_p = starts;
    *lens_p = lens;
    return MPI_SUCCESS;
}

int fy_dtype_darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                    const int *dargs, const int *psizes, int order, fy_dtype_t *old,
                    fy_dtype_t **out_p)
{
    (void)size;
    /* Process coordinates: the grid is row-major whatever the array order. */
    int coords[ndims > 0 ? ndims : 1];
    int r = rank;
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    fy_dtype_t *t = old;
    fy_dtype_ref(old);
    for (int k = 0; k < ndims; k++) {
        int dim = order == MPI_ORDER_C ? ndims - 1 - k : k;
        MPI_Count nruns = 0, *starts = NULL, *lens = NULL;
        int rc = darray_runs(gsizes[dim], distribs[dim], dargs[dim], psizes[dim], coords[dim],
                             &nruns, &starts, &lens);
        fy_dtype_t *next = NULL;
        if (rc == MPI_SUCCESS) {
            rc = dimension(gsizes[dim], nruns, starts, lens, t, &next);
            free(starts);
            free(lens);
        }
        fy_dtype_release(t);
        if (rc != MPI_SUCCESS)
            return rc;
        t = next;
    }
    *out_p = t;
    return MPI_SUCCESS;
}

int fy_dtype_set_def(fy_dtype_t *d, int combiner, int nints, const int *ints, int naints,
                     const MPI_Aint *aints, int ncounts, const MPI_Count *counts, int ntypes,
                     fy_dtype_t *const *types)
{
    fy_dtype_def_t *f = &d->def;
    f->combiner = combiner;
    f->ints = nints ? malloc((size_t)nints * sizeof *ints) : NULL;
    f->aints = naints ? malloc((size_t)naints * sizeof *aints) : NULL;
    f->counts = ncounts ? malloc((size_t)ncounts * sizeof *counts) : NULL;
    f->types = ntypes ? malloc((size_t)ntypes * sizeof *types) : NULL;
    if ((nints && !f->ints) || (naints && !f->aints) || (ncounts && !f->counts) ||
        (ntypes && !f->types)) {
        free(f->ints);
        free(f->aints);
        free(f->counts);
        free(f->types);
        memset(f, 0, sizeof *f);
        return no_mem("contents");
    }
    if (nints)
        memcpy(f->ints, ints, (size_t)nints * sizeof *ints);
    if (naints)
        memcpy(f->aints, aints, (size_t)naints * sizeof *aints);
    if (ncounts)
        memcpy(f->counts, counts, (size_t)ncounts * sizeof *counts);
    for (int i = 0; i < ntypes; i++) {
        f->types[i] = types[i];
        fy_dtype_ref(types[i]);
    }
    f->nints = nints;
    f->naints = naints;
    f->ncounts = ncounts;
    f->ntypes = ntypes;
    return MPI_SUCCESS;
}

int fy_dtype_register(fy_dtype_t *d)
{
    unsigned slot = 0;
    while (slot < fy_dtype_table_cap && fy_dtype_table[slot])
        slot++;
    if (slot == fy_dtype_table_cap) {
        unsigned ncap = fy_dtype_table_cap ? fy_dtype_table_cap * 2 : 64;
        if (ncap > FY_HINDEX_MASK - FY_DTYPE_FIRST_DERIVED)
            return fy_err_set(MPI_ERR_INTERN, "too many datatypes in use (%u)", fy_dtype_table_cap);
        fy_dtype_t **t = realloc(fy_dtype_table, ncap * sizeof *t);
        if (!t)
            return no_mem("handle table");
        memset(t + fy_dtype_table_cap, 0, (ncap - fy_dtype_table_cap) * sizeof *t);
        fy_dtype_table = t;
        fy_dtype_table_cap = ncap;
    }
    fy_dtype_table[slot] = d;
    d->handle = (MPI_Datatype)fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_DATATYPE,
                                             FY_DTYPE_FIRST_DERIVED + slot);
    return MPI_SUCCESS;
}

void fy_dtype_free_handle(fy_dtype_t *d)
{
    if (d->handle != MPI_DATATYPE_NULL) {
        unsigned slot = fy_handle_index(d->handle) - FY_DTYPE_FIRST_DERIVED;
        if (slot < fy_dtype_table_cap && fy_dtype_table[slot] == d)
            fy_dtype_table[slot] = NULL;
        d->handle = MPI_DATATYPE_NULL;
    }
    fy_dtype_release(d);
}

void fy_dl_free(fy_dl_t *dl);

void fy_dtype_release_slow(fy_dtype_t *d)
{
    fy_shape_t *sh = &d->shape;
    if (sh->kind == FY_SHAPE_STRUCT) {
        for (MPI_Count i = 0; i < sh->count; i++)
            fy_dtype_release(sh->children[i]);
    } else if (sh->child) {
        fy_dtype_release(sh->child);
    }
    free(sh->blocklens);
    free(sh->displs);
    free(sh->children);
    for (int i = 0; i < d->def.ntypes; i++)
        fy_dtype_release(d->def.types[i]);
    free(d->def.ints);
    free(d->def.aints);
    free(d->def.counts);
    free(d->def.types);
    if (!d->dl_borrowed)
        fy_dl_free(d->dl);
    free(d);
}

void fy_dtype_fini(void)
{
    /* Types the program never freed: drop the handles' references. Types still referenced by
     * other leaked types go with them. */
    for (unsigned i = 0; i < fy_dtype_table_cap; i++)
        if (fy_dtype_table[i])
            fy_dtype_free_handle(fy_dtype_table[i]);
    free(fy_dtype_table);
    fy_dtype_table = NULL;
    fy_dtype_table_cap = 0;
}
