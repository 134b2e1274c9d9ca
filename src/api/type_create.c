/* Datatype constructors: argument checks, the int and large-count (_c) forms, and the record
 * of how each type was made (Type_get_contents). The int forms widen their arrays to
 * MPI_Count and share one path with the _c forms. */
#include <stdlib.h>
#include <string.h>

#include "fy_api.h"
#include "fy_attr.h"

/* What a constructor was given, as Type_get_contents will return it. */
typedef struct {
    int combiner;
    int ni, na, nc, nt;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    fy_dtype_t **types;
} args_t;

static int raise_type(int rc)
{
    return fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int check_out(const char *fn, const void *newtype)
{
    if (!newtype)
        return fy_err_set(MPI_ERR_ARG, "%s: newtype is NULL", fn);
    return MPI_SUCCESS;
}

static int check_count(const char *fn, const char *what, MPI_Count v)
{
    if (v < 0)
        return fy_err_set(what[0] == 'c' ? MPI_ERR_COUNT : MPI_ERR_ARG,
                          "%s: %s is %lld (must be >= 0)", fn, what, (long long)v);
    return MPI_SUCCESS;
}

static int check_lens(const char *fn, MPI_Count n, const MPI_Count *lens)
{
    for (MPI_Count i = 0; i < n; i++)
        if (lens[i] < 0)
            return fy_err_set(MPI_ERR_ARG, "%s: array_of_blocklengths[%lld] is %lld (must be >= 0)",
                              fn, (long long)i, (long long)lens[i]);
    return MPI_SUCCESS;
}

/* Registers t, records the arguments and hands out the handle; t is dropped on failure. */
static int finish(fy_dtype_t *t, const args_t *a, MPI_Datatype *newtype)
{
    int rc = fy_dtype_set_def(t, a->combiner, a->ni, a->ints, a->na, a->aints, a->nc, a->counts,
                              a->nt, a->types);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_dtype_register(t);
        fy_unlock();
    }
    if (rc != MPI_SUCCESS) {
        fy_dtype_release(t);
        return rc;
    }
    *newtype = t->handle;
    return MPI_SUCCESS;
}

static MPI_Count *widen_int(const int *v, MPI_Count n)
{
    MPI_Count *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (w)
        for (MPI_Count i = 0; i < n; i++)
            w[i] = v[i];
    return w;
}

static int no_mem(const char *fn)
{
    return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

/* ---- contiguous, vector, hvector ---- */

static int contiguous(const char *fn, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype,
                      bool large)
{
    fy_dtype_t *old, *t;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_contiguous(count, old, &t);
    if (rc == MPI_SUCCESS) {
        int ic = (int)count;
        args_t a = {
            MPI_COMBINER_CONTIGUOUS, large ? 0 : 1, 0, large ? 1 : 0, 1, &ic, NULL, &count, &old};
        rc = finish(t, &a, newtype);
    }
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous", count, oldtype, newtype, false);
}

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, true);
}

static int vector(const char *fn, MPI_Count count, MPI_Count bl, MPI_Count stride, bool bytes,
                  MPI_Datatype oldtype, MPI_Datatype *newtype, bool large)
{
    fy_dtype_t *old, *t;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "blocklength", bl);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_vector(count, bl, stride, bytes, old, &t);
    if (rc == MPI_SUCCESS) {
        int ints[3] = {(int)count, (int)bl, (int)stride};
        MPI_Aint aint = stride;
        MPI_Count counts[3] = {count, bl, stride};
        args_t a = {bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR,
                    large ? 0 : (bytes ? 2 : 3),
                    large || !bytes ? 0 : 1,
                    large ? 3 : 0,
                    1,
                    ints,
                    &aint,
                    counts,
                    &old};
        rc = finish(t, &a, newtype);
    }
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector", count, blocklength, stride, false, oldtype, newtype, false);
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector_c", count, blocklength, stride, false, oldtype, newtype, true);
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector", count, blocklength, stride, true, oldtype, newtype,
                  false);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector_c", count, blocklength, stride, true, oldtype, newtype,
                  true);
}

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    return vector("MPI_Type_hvector", count, blocklength, stride, true, oldtype, newtype, false);
}

/* ---- indexed, hindexed, indexed_block, hindexed_block ---- */

/* bls: one per block, or NULL with `bl` for every block. displs: counts, in elements or bytes. */
static int indexed(const char *fn, int combiner, MPI_Count count, const MPI_Count *bls,
                   MPI_Count bl, const MPI_Count *displs, bool bytes, MPI_Datatype oldtype,
                   MPI_Datatype *newtype, bool large)
{
    fy_dtype_t *old, *t = NULL;
    MPI_Count *lens = NULL;
    int *ints = NULL;
    MPI_Aint *aints = NULL;
    MPI_Count *counts = NULL;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS && count > 0 && !displs)
        rc = fy_err_set(MPI_ERR_ARG, "%s: array_of_displacements is NULL", fn);
    if (rc == MPI_SUCCESS && !bls)
        rc = check_count(fn, "blocklength", bl);
    if (rc == MPI_SUCCESS && bls)
        rc = check_lens(fn, count, bls);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc != MPI_SUCCESS)
        return raise_type(rc);
    size_t n = (size_t)(count > 0 ? count : 1);
    lens = malloc(n * sizeof *lens);
    MPI_Aint *ad = malloc(n * sizeof *ad);
    /* Contents: count, blocklength(s), displacements, in the combiner's order. */
    ints = malloc((2 * n + 2) * sizeof *ints);
    aints = malloc(n * sizeof *aints);
    counts = malloc((2 * n + 2) * sizeof *counts);
    if (!lens || !ad || !ints || !aints || !counts) {
        rc = no_mem(fn);
        goto out;
    }
    for (MPI_Count i = 0; i < count; i++) {
        lens[i] = bls ? bls[i] : bl;
        ad[i] = (MPI_Aint)displs[i];
    }
    rc = fy_dtype_indexed(count, lens, ad, bytes, old, &t);
    if (rc != MPI_SUCCESS)
        goto out;
    int ni = 0, na = 0, nc = 0;
    ints[ni++] = (int)count;
    counts[nc++] = count;
    if (bls) {
        for (MPI_Count i = 0; i < count; i++) {
            ints[ni++] = (int)bls[i];
            counts[nc++] = bls[i];
        }
    } else {
        ints[ni++] = (int)bl;
        counts[nc++] = bl;
    }
    for (MPI_Count i = 0; i < count; i++) {
        if (bytes)
            aints[na++] = (MPI_Aint)displs[i];
        else
            ints[ni++] = (int)displs[i];
        counts[nc++] = displs[i];
    }
    args_t a = {combiner, large ? 0 : ni, large ? 0 : na, large ? nc : 0, 1, ints, aints, counts,
                &old};
    rc = finish(t, &a, newtype);
out:
    free(lens);
    free(ad);
    free(ints);
    free(aints);
    free(counts);
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_indexed";
    if (count > 0 && (!array_of_blocklengths || !array_of_displacements))
        return raise_type(fy_err_set(MPI_ERR_ARG, "%s: an array argument is NULL", fn));
    MPI_Count *b = widen_int(array_of_blocklengths, count);
    MPI_Count *d = widen_int(array_of_displacements, count);
    int rc = b && d
                 ? indexed(fn, MPI_COMBINER_INDEXED, count, b, 0, d, false, oldtype, newtype, false)
                 : raise_type(no_mem(fn));
    free(b);
    free(d);
    return rc;
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    if (count > 0 && !array_of_blocklengths)
        return raise_type(
            fy_err_set(MPI_ERR_ARG, "MPI_Type_indexed_c: array_of_blocklengths is NULL"));
    return indexed("MPI_Type_indexed_c", MPI_COMBINER_INDEXED, count, array_of_blocklengths, 0,
                   array_of_displacements, false, oldtype, newtype, true);
}

static int hindexed_int(const char *fn, int combiner, int count, const int *bls, int bl,
                        const MPI_Aint *displs, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (count > 0 && ((combiner == MPI_COMBINER_HINDEXED && !bls) || !displs))
        return raise_type(fy_err_set(MPI_ERR_ARG, "%s: an array argument is NULL", fn));
    MPI_Count *b = bls ? widen_int(bls, count) : NULL;
    MPI_Count *d = malloc((size_t)(count > 0 ? count : 1) * sizeof *d);
    int rc;
    if ((bls && !b) || !d) {
        rc = raise_type(no_mem(fn));
    } else {
        for (int i = 0; i < count; i++)
            d[i] = displs[i];
        rc = indexed(fn, combiner, count, b, bl, d, true, oldtype, newtype, false);
    }
    free(b);
    free(d);
    return rc;
}

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return hindexed_int("MPI_Type_create_hindexed", MPI_COMBINER_HINDEXED, count,
                        array_of_blocklengths, 0, array_of_displacements, oldtype, newtype);
}

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hindexed_int("MPI_Type_hindexed", MPI_COMBINER_HINDEXED, count, array_of_blocklengths, 0,
                        array_of_displacements, oldtype, newtype);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    if (count > 0 && !array_of_blocklengths)
        return raise_type(
            fy_err_set(MPI_ERR_ARG, "MPI_Type_create_hindexed_c: array_of_blocklengths is NULL"));
    return indexed("MPI_Type_create_hindexed_c", MPI_COMBINER_HINDEXED, count,
                   array_of_blocklengths, 0, array_of_displacements, true, oldtype, newtype, true);
}

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_indexed_block";
    if (count > 0 && !array_of_displacements)
        return raise_type(fy_err_set(MPI_ERR_ARG, "%s: array_of_displacements is NULL", fn));
    MPI_Count *d = widen_int(array_of_displacements, count);
    int rc = d ? indexed(fn, MPI_COMBINER_INDEXED_BLOCK, count, NULL, blocklength, d, false,
                         oldtype, newtype, false)
               : raise_type(no_mem(fn));
    free(d);
    return rc;
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_indexed_block_c", MPI_COMBINER_INDEXED_BLOCK, count, NULL,
                   blocklength, array_of_displacements, false, oldtype, newtype, true);
}

int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return hindexed_int("MPI_Type_create_hindexed_block", MPI_COMBINER_HINDEXED_BLOCK, count, NULL,
                        blocklength, array_of_displacements, oldtype, newtype);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed("MPI_Type_create_hindexed_block_c", MPI_COMBINER_HINDEXED_BLOCK, count, NULL,
                   blocklength, array_of_displacements, true, oldtype, newtype, true);
}

/* ---- struct ---- */

static int create_struct(const char *fn, MPI_Count count, const MPI_Count *bls,
                         const MPI_Aint *displs, const MPI_Datatype *types, MPI_Datatype *newtype,
                         bool large)
{
    fy_dtype_t **tt = NULL, *t;
    int *ints = NULL;
    MPI_Count *counts = NULL;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = check_count(fn, "count", count);
    if (rc == MPI_SUCCESS && count > 0 && (!bls || !displs || !types))
        rc = fy_err_set(MPI_ERR_ARG, "%s: an array argument is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = check_lens(fn, count, bls);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc != MPI_SUCCESS)
        return raise_type(rc);
    size_t n = (size_t)(count > 0 ? count : 1);
    tt = malloc(n * sizeof *tt);
    ints = malloc((n + 1) * sizeof *ints);
    counts = malloc((2 * n + 1) * sizeof *counts);
    if (!tt || !ints || !counts) {
        rc = no_mem(fn);
        goto out;
    }
    for (MPI_Count i = 0; i < count && rc == MPI_SUCCESS; i++) {
        rc = fy_api_dtype_any(fn, types[i], &tt[i]);
        if (rc != MPI_SUCCESS)
            fy_err_set(MPI_ERR_TYPE, "%s: array_of_types[%lld] is not a valid datatype (0x%x)", fn,
                       (long long)i, (unsigned)types[i]);
    }
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_struct(count, bls, displs, tt, &t);
    if (rc == MPI_SUCCESS) {
        ints[0] = (int)count;
        counts[0] = count;
        for (MPI_Count i = 0; i < count; i++) {
            ints[i + 1] = (int)bls[i];
            counts[i + 1] = bls[i];
            counts[count + 1 + i] = displs[i];
        }
        args_t a = {MPI_COMBINER_STRUCT,
                    large ? 0 : (int)count + 1,
                    large ? 0 : (int)count,
                    large ? 2 * (int)count + 1 : 0,
                    (int)count,
                    ints,
                    (MPI_Aint *)displs,
                    counts,
                    tt};
        rc = finish(t, &a, newtype);
    }
out:
    free(tt);
    free(ints);
    free(counts);
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

static int struct_int(const char *fn, int count, const int *bls, const MPI_Aint *displs,
                      const MPI_Datatype *types, MPI_Datatype *newtype)
{
    if (count > 0 && !bls)
        return raise_type(fy_err_set(MPI_ERR_ARG, "%s: array_of_blocklengths is NULL", fn));
    MPI_Count *b = widen_int(bls, count > 0 ? count : 0);
    int rc =
        b ? create_struct(fn, count, b, displs, types, newtype, false) : raise_type(no_mem(fn));
    free(b);
    return rc;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return struct_int("MPI_Type_create_struct", count, array_of_blocklengths,
                      array_of_displacements, array_of_types, newtype);
}

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return struct_int("MPI_Type_struct", count, array_of_blocklengths, array_of_displacements,
                      array_of_types, newtype);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    return create_struct("MPI_Type_create_struct_c", count, array_of_blocklengths,
                         (const MPI_Aint *)array_of_displacements, array_of_types, newtype, true);
}

/* ---- resized, dup ---- */

static int resized(const char *fn, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                   MPI_Datatype *newtype, bool large)
{
    fy_dtype_t *old, *t;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_resized(lb, extent, old, &t);
    if (rc == MPI_SUCCESS) {
        MPI_Aint aints[2] = {lb, extent};
        MPI_Count counts[2] = {lb, extent};
        args_t a = {
            MPI_COMBINER_RESIZED, 0, large ? 0 : 2, large ? 2 : 0, 1, NULL, aints, counts, &old};
        rc = finish(t, &a, newtype);
    }
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, false);
}

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, true);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_dup";
    fy_dtype_t *old, *t;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_dup(old, &t);
    if (rc == MPI_SUCCESS) {
        /* A duplicate is committed if the original is. */
        args_t a = {MPI_COMBINER_DUP, 0, 0, 0, 1, NULL, NULL, NULL, &old};
        if (old->committed)
            rc = fy_dtype_commit(t);
        if (rc == MPI_SUCCESS)
            rc = finish(t, &a, newtype);
        else
            fy_dtype_release(t);
        if (rc == MPI_SUCCESS) { /* attributes follow their copy callbacks */
            fy_lock();
            rc = fy_attrs_dup(fn, &old->attrs, oldtype, &t->attrs);
            fy_unlock();
        }
    }
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

/* ---- subarray, darray ---- */

static int check_order(const char *fn, int order)
{
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fy_err_set(MPI_ERR_ARG, "%s: order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
                          fn, order);
    return MPI_SUCCESS;
}

static int subarray(const char *fn, int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                    const MPI_Count *starts, int order, MPI_Datatype oldtype, MPI_Datatype *newtype,
                    bool large)
{
    fy_dtype_t *old, *t;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && ndims <= 0)
        rc = fy_err_set(MPI_ERR_DIMS, "%s: ndims is %d (must be > 0)", fn, ndims);
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++) {
        if (sizes[i] <= 0)
            rc = fy_err_set(MPI_ERR_ARG, "%s: array_of_sizes[%d] is %lld (must be > 0)", fn, i,
                            (long long)sizes[i]);
        else if (subsizes[i] <= 0 || subsizes[i] > sizes[i])
            rc = fy_err_set(MPI_ERR_ARG,
                            "%s: array_of_subsizes[%d] is %lld (must be in 1..%lld, the size)", fn,
                            i, (long long)subsizes[i], (long long)sizes[i]);
        else if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
            rc = fy_err_set(MPI_ERR_ARG,
                            "%s: array_of_starts[%d] is %lld (must be in 0..%lld, size - subsize)",
                            fn, i, (long long)starts[i], (long long)(sizes[i] - subsizes[i]));
    }
    if (rc == MPI_SUCCESS)
        rc = check_order(fn, order);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_subarray(ndims, sizes, subsizes, starts, order, old, &t);
    if (rc != MPI_SUCCESS)
        return raise_type(rc);
    int *ints = malloc((size_t)(3 * ndims + 2) * sizeof *ints);
    MPI_Count *counts = malloc((size_t)(3 * ndims) * sizeof *counts);
    if (!ints || !counts) {
        free(ints);
        free(counts);
        fy_dtype_release(t);
        return raise_type(no_mem(fn));
    }
    int ni = 0;
    ints[ni++] = ndims;
    if (large) {
        ints[ni++] = order;
        for (int i = 0; i < ndims; i++) {
            counts[i] = sizes[i];
            counts[ndims + i] = subsizes[i];
            counts[2 * ndims + i] = starts[i];
        }
    } else {
        for (int i = 0; i < ndims; i++) {
            ints[1 + i] = (int)sizes[i];
            ints[1 + ndims + i] = (int)subsizes[i];
            ints[1 + 2 * ndims + i] = (int)starts[i];
        }
        ni = 3 * ndims + 1;
        ints[ni++] = order;
    }
    args_t a = {MPI_COMBINER_SUBARRAY, ni, 0, large ? 3 * ndims : 0, 1, ints, NULL, counts, &old};
    rc = finish(t, &a, newtype);
    free(ints);
    free(counts);
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    if (ndims > 0 && (!array_of_sizes || !array_of_subsizes || !array_of_starts))
        return raise_type(fy_err_set(MPI_ERR_ARG, "%s: an array argument is NULL", fn));
    int n = ndims > 0 ? ndims : 0;
    MPI_Count *a = widen_int(array_of_sizes, n), *b = widen_int(array_of_subsizes, n),
              *c = widen_int(array_of_starts, n);
    int rc = a && b && c ? subarray(fn, ndims, a, b, c, order, oldtype, newtype, false)
                         : raise_type(no_mem(fn));
    free(a);
    free(b);
    free(c);
    return rc;
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes,
                    array_of_starts, order, oldtype, newtype, true);
}

static int darray(const char *fn, int size, int rank, int ndims, const MPI_Count *gsizes,
                  const int *distribs, const int *dargs, const int *psizes, int order,
                  MPI_Datatype oldtype, MPI_Datatype *newtype, bool large)
{
    fy_dtype_t *old, *t;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && size <= 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: size is %d (must be > 0)", fn, size);
    if (rc == MPI_SUCCESS && (rank < 0 || rank >= size))
        rc = fy_err_set(MPI_ERR_ARG, "%s: rank is %d (must be in 0..%d)", fn, rank, size - 1);
    if (rc == MPI_SUCCESS && ndims <= 0)
        rc = fy_err_set(MPI_ERR_DIMS, "%s: ndims is %d (must be > 0)", fn, ndims);
    long long grid = 1;
    for (int i = 0; rc == MPI_SUCCESS && i < ndims; i++) {
        if (gsizes[i] <= 0)
            rc = fy_err_set(MPI_ERR_ARG, "%s: array_of_gsizes[%d] is %lld (must be > 0)", fn, i,
                            (long long)gsizes[i]);
        else if (psizes[i] <= 0)
            rc = fy_err_set(MPI_ERR_ARG, "%s: array_of_psizes[%d] is %d (must be > 0)", fn, i,
                            psizes[i]);
        else if (distribs[i] != MPI_DISTRIBUTE_BLOCK && distribs[i] != MPI_DISTRIBUTE_CYCLIC &&
                 distribs[i] != MPI_DISTRIBUTE_NONE)
            rc = fy_err_set(MPI_ERR_ARG, "%s: array_of_distribs[%d] is %d (not a distribution)", fn,
                            i, distribs[i]);
        else if (distribs[i] == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
            rc = fy_err_set(MPI_ERR_ARG,
                            "%s: dimension %d is MPI_DISTRIBUTE_NONE but array_of_psizes[%d] is "
                            "%d (must be 1)",
                            fn, i, i, psizes[i]);
        else if (distribs[i] != MPI_DISTRIBUTE_NONE && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
                 dargs[i] <= 0)
            rc = fy_err_set(MPI_ERR_ARG, "%s: array_of_dargs[%d] is %d (must be > 0)", fn, i,
                            dargs[i]);
        else if (distribs[i] == MPI_DISTRIBUTE_BLOCK && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
                 (long long)dargs[i] * psizes[i] < gsizes[i])
            rc = fy_err_set(MPI_ERR_ARG,
                            "%s: block distribution of dimension %d: array_of_dargs[%d] * "
                            "array_of_psizes[%d] = %lld is less than array_of_gsizes[%d] = %lld",
                            fn, i, i, i, (long long)dargs[i] * psizes[i], i, (long long)gsizes[i]);
        grid *= psizes[i];
    }
    if (rc == MPI_SUCCESS && grid != size)
        rc = fy_err_set(MPI_ERR_ARG,
                        "%s: the process grid (product of array_of_psizes) has %lld processes, "
                        "but size is %d",
                        fn, grid, size);
    if (rc == MPI_SUCCESS)
        rc = check_order(fn, order);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, oldtype, &old);
    if (rc == MPI_SUCCESS)
        rc = check_out(fn, newtype);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old, &t);
    if (rc != MPI_SUCCESS)
        return raise_type(rc);
    int *ints = malloc((size_t)(4 * ndims + 4) * sizeof *ints);
    if (!ints) {
        fy_dtype_release(t);
        return raise_type(no_mem(fn));
    }
    int ni = 0;
    ints[ni++] = size;
    ints[ni++] = rank;
    ints[ni++] = ndims;
    if (!large)
        for (int i = 0; i < ndims; i++)
            ints[ni++] = (int)gsizes[i];
    for (int i = 0; i < ndims; i++)
        ints[ni++] = distribs[i];
    for (int i = 0; i < ndims; i++)
        ints[ni++] = dargs[i];
    for (int i = 0; i < ndims; i++)
        ints[ni++] = psizes[i];
    ints[ni++] = order;
    args_t a = {MPI_COMBINER_DARRAY, ni,  0, large ? ndims : 0, 1, ints, NULL,
                (MPI_Count *)gsizes, &old};
    rc = finish(t, &a, newtype);
    free(ints);
    return rc == MPI_SUCCESS ? rc : raise_type(rc);
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray";
    if (ndims > 0 &&
        (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes))
        return raise_type(fy_err_set(MPI_ERR_ARG, "%s: an array argument is NULL", fn));
    MPI_Count *g = widen_int(array_of_gsizes, ndims > 0 ? ndims : 0);
    int rc = g ? darray(fn, size, rank, ndims, g, array_of_distribs, array_of_dargs,
                        array_of_psizes, order, oldtype, newtype, false)
               : raise_type(no_mem(fn));
    free(g);
    return rc;
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes, array_of_distribs,
                  array_of_dargs, array_of_psizes, order, oldtype, newtype, true);
}
