/* Questions about datatypes: size, bounds, names, how a type was made (envelope and
 * contents), commit and free, and matching a predefined type to a size. */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "fy_api.h"
#include "fy_attr.h"

/* Size and bounds, shared by the int, _x and _c forms (MPI_Aint and MPI_Count are the same
 * type in this ABI). */
static int type_size(const char *fn, MPI_Datatype h, MPI_Count *size)
{
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, h, &d);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *size = d->size;
    return MPI_SUCCESS;
}

static int type_extent(const char *fn, MPI_Datatype h, int true_extent, MPI_Count *lb,
                       MPI_Count *extent)
{
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, h, &d);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *lb = true_extent ? d->true_lb : d->lb;
    *extent = true_extent ? d->true_extent : d->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count n = 0;
    int rc = type_size("MPI_Type_size", datatype, &n);
    if (rc == MPI_SUCCESS)
        *size = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size("MPI_Type_size_x", datatype, size);
}

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size("MPI_Type_size_c", datatype, size);
}

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    return type_extent("MPI_Type_get_extent", datatype, 0, lb, extent);
}

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return type_extent("MPI_Type_get_extent_x", datatype, 0, lb, extent);
}

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return type_extent("MPI_Type_get_extent_c", datatype, 0, lb, extent);
}

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    return type_extent("MPI_Type_get_true_extent", datatype, 1, true_lb, true_extent);
}

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return type_extent("MPI_Type_get_true_extent_x", datatype, 1, true_lb, true_extent);
}

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return type_extent("MPI_Type_get_true_extent_c", datatype, 1, true_lb, true_extent);
}

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Aint lb;
    return type_extent("MPI_Type_extent", datatype, 0, &lb, extent);
}

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint extent;
    return type_extent("MPI_Type_lb", datatype, 0, displacement, &extent);
}

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    MPI_Aint lb = 0, extent = 0;
    int rc = type_extent("MPI_Type_ub", datatype, 0, &lb, &extent);
    if (rc == MPI_SUCCESS)
        *displacement = lb + extent;
    return rc;
}

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int PMPI_Address(void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_commit";
    fy_dtype_t *d;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !datatype)
        rc = fy_err_set(MPI_ERR_ARG, "%s: datatype is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, *datatype, &d);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_dtype_commit(d);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Type_free(MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_free";
    fy_dtype_t *d;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !datatype)
        rc = fy_err_set(MPI_ERR_ARG, "%s: datatype is NULL", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_api_dtype_any(fn, *datatype, &d);
    if (rc == MPI_SUCCESS && d->predefined)
        rc = fy_err_set(MPI_ERR_TYPE, "%s: cannot free the predefined datatype %s", fn, d->name);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    /* Delete callbacks run now; requests and types built from it keep their own references. */
    fy_lock();
    rc = fy_attrs_delete_all(&d->attrs, d->handle);
    if (rc == MPI_SUCCESS) /* a failing callback leaves the type usable, as for communicators */
        fy_dtype_free_handle(d);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    /* MPI-4.1: the null handle has a name too (what mpi4py asks for at 4.1). */
    if (datatype == MPI_DATATYPE_NULL && type_name && resultlen) {
        *resultlen = snprintf(type_name, MPI_MAX_OBJECT_NAME, "MPI_DATATYPE_NULL");
        return MPI_SUCCESS;
    }
    fy_dtype_t *d;
    int rc = fy_api_dtype_any("MPI_Type_get_name", datatype, &d);
    if (rc == MPI_SUCCESS && (!type_name || !resultlen))
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Type_get_name: type_name or resultlen is NULL");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    strcpy(type_name, d->name);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    const char *fn = "MPI_Type_set_name";
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, datatype, &d);
    if (rc == MPI_SUCCESS && !type_name)
        rc = fy_err_set(MPI_ERR_ARG, "%s: type_name is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    /* Predefined types may be renamed too (MPI 4.1 sec. 7.8 allows it; the name is local to
     * the process): from then on their name lives in namebuf like a derived type's. */
    fy_lock();
    strncpy(d->namebuf, type_name, MPI_MAX_OBJECT_NAME - 1);
    d->namebuf[MPI_MAX_OBJECT_NAME - 1] = '\0';
    d->name = d->namebuf;
    fy_unlock();
    return MPI_SUCCESS;
}

/* ---- envelope and contents ---- */

static int envelope(const char *fn, MPI_Datatype datatype, MPI_Count *ni, MPI_Count *na,
                    MPI_Count *nc, MPI_Count *nt, int *combiner)
{
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, datatype, &d);
    if (rc == MPI_SUCCESS && (!ni || !na || !nt || !combiner))
        rc = fy_err_set(MPI_ERR_ARG, "%s: an output argument is NULL", fn);
    if (rc != MPI_SUCCESS)
        return rc;
    if (d->predefined && d->def.combiner == 0) {
        *ni = *na = *nt = 0;
        if (nc)
            *nc = 0;
        *combiner = MPI_COMBINER_NAMED;
        return MPI_SUCCESS;
    }
    if (!nc && d->def.ncounts > 0)
        return fy_err_set(MPI_ERR_TYPE,
                          "%s: the datatype was made by a large-count (_c) constructor; "
                          "use MPI_Type_get_envelope_c",
                          fn);
    *ni = d->def.nints;
    *na = d->def.naints;
    *nt = d->def.ntypes;
    if (nc)
        *nc = d->def.ncounts;
    *combiner = d->def.combiner;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPI_Count ni = 0, na = 0, nt = 0;
    int rc = envelope("MPI_Type_get_envelope", datatype, &ni, &na, NULL, &nt, combiner);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nt;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    int rc =
        envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
                 num_large_counts ? num_large_counts : &(MPI_Count){0}, num_datatypes, combiner);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int contents(const char *fn, MPI_Datatype datatype, MPI_Count max_i, MPI_Count max_a,
                    MPI_Count max_c, MPI_Count max_t, int *ints, MPI_Aint *aints, MPI_Count *counts,
                    MPI_Datatype *types, bool large)
{
    fy_dtype_t *d;
    int rc = fy_api_dtype_any(fn, datatype, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    const fy_dtype_def_t *f = &d->def;
    if (d->predefined && d->def.combiner == 0)
        return fy_err_set(MPI_ERR_TYPE,
                          "%s: %s is a predefined datatype (combiner "
                          "MPI_COMBINER_NAMED) and has no contents",
                          fn, d->name);
    if (!large && f->ncounts > 0)
        return fy_err_set(MPI_ERR_TYPE,
                          "%s: the datatype was made by a large-count (_c) constructor; "
                          "use MPI_Type_get_contents_c",
                          fn);
    if (max_i < f->nints || max_a < f->naints || max_c < f->ncounts || max_t < f->ntypes)
        return fy_err_set(MPI_ERR_ARG,
                          "%s: the arrays are too small: the datatype has %d integers, %d "
                          "addresses, %d large counts and %d datatypes (given room for %lld, "
                          "%lld, %lld, %lld)",
                          fn, f->nints, f->naints, f->ncounts, f->ntypes, (long long)max_i,
                          (long long)max_a, (long long)max_c, (long long)max_t);
    if (f->nints)
        memcpy(ints, f->ints, (size_t)f->nints * sizeof *ints);
    if (f->naints)
        memcpy(aints, f->aints, (size_t)f->naints * sizeof *aints);
    if (f->ncounts && counts) /* counts is NULL only where ncounts is 0 (checked above) */
        memcpy(counts, f->counts, (size_t)f->ncounts * sizeof *counts);
    /* Derived types come back as new handles the caller frees; predefined ones as
     * themselves. Each is a fresh duplicate, so freeing it leaves ours intact. */
    for (int i = 0; i < f->ntypes; i++) {
        fy_dtype_t *t = f->types[i];
        if (t->predefined) {
            types[i] = t->handle;
            continue;
        }
        fy_dtype_t *dup;
        rc = fy_dtype_dup(t, &dup);
        if (rc == MPI_SUCCESS)
            rc = fy_dtype_set_def(dup, t->def.combiner, t->def.nints, t->def.ints, t->def.naints,
                                  t->def.aints, t->def.ncounts, t->def.counts, t->def.ntypes,
                                  t->def.types);
        if (rc == MPI_SUCCESS && t->committed)
            rc = fy_dtype_commit(dup);
        if (rc == MPI_SUCCESS) {
            fy_lock();
            rc = fy_dtype_register(dup);
            fy_unlock();
        }
        if (rc != MPI_SUCCESS)
            return rc;
        types[i] = dup->handle;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    int rc =
        contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0, max_datatypes,
                 array_of_integers, array_of_addresses, NULL, array_of_datatypes, false);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    int rc = contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                      max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                      array_of_large_counts, array_of_datatypes, true);
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* ---- matching a size ---- */

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    const char *fn = "MPI_Type_match_size";
    static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype ints[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    static const MPI_Datatype cplx[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    const MPI_Datatype *list;
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL: list = reals, n = 3; break;
    case MPI_TYPECLASS_INTEGER: list = ints, n = 4; break;
    case MPI_TYPECLASS_COMPLEX: list = cplx, n = 3; break;
    default:
        return fy_err_raise_comm(
            MPI_COMM_SELF,
            fy_err_set(MPI_ERR_ARG,
                       "%s: typeclass %d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", fn,
                       typeclass));
    }
    for (size_t i = 0; i < n; i++)
        if (fy_dtype_get(list[i])->size == size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    return fy_err_raise_comm(
        MPI_COMM_SELF, fy_err_set(MPI_ERR_ARG, "%s: no predefined type of class %d has size %d", fn,
                                  typeclass, size));
}

/* ---- Fortran 90 parameterised types ----
 * Each (kind of request, p, r) gets one type, made on first use and kept to the end: they are
 * predefined in the standard's sense (never freed by the user), yet MPI_Type_get_envelope must
 * report MPI_COMBINER_F90_* with the p and r asked for. */
typedef struct {
    int combiner, p, r;
    fy_dtype_t *t;
} f90_t;
static f90_t f90_cache[32];
static int f90_n;

static int f90(const char *fn, int combiner, int p, int r, MPI_Datatype base, MPI_Datatype *newtype)
{
    int rc = fy_api_check_init(fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    if (base == MPI_DATATYPE_NULL)
        return fy_err_raise_comm(MPI_COMM_SELF,
                                 fy_err_set(MPI_ERR_ARG,
                                            "%s: no predefined type has precision %d and range %d",
                                            fn, p, r));
    fy_lock();
    for (int i = 0; i < f90_n; i++)
        if (f90_cache[i].combiner == combiner && f90_cache[i].p == p && f90_cache[i].r == r) {
            *newtype = f90_cache[i].t->handle;
            fy_unlock();
            return MPI_SUCCESS;
        }
    fy_dtype_t *t = NULL;
    int ints[2] = {p, r};
    rc = f90_n < 32 ? fy_dtype_dup(fy_dtype_get(base), &t)
                    : fy_err_set(MPI_ERR_INTERN, "%s: too many Fortran 90 types", fn);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_set_def(t, combiner, combiner == MPI_COMBINER_F90_INTEGER ? 1 : 2,
                              combiner == MPI_COMBINER_F90_INTEGER ? &ints[1] : ints, 0, NULL, 0,
                              NULL, 0, NULL);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_commit(t);
    if (rc == MPI_SUCCESS)
        rc = fy_dtype_register(t);
    if (rc == MPI_SUCCESS) {
        strcpy(t->namebuf, fy_dtype_get(base)->name);
        t->predefined = true;
        f90_cache[f90_n++] = (f90_t){combiner, p, r, t};
        *newtype = t->handle;
    } else if (t) {
        fy_dtype_release(t);
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* The kinds gfortran has on this ABI: 4-, 8- and 16-byte reals; 1- to 8-byte integers. */
static MPI_Datatype real_for(int p, int r, MPI_Datatype r4, MPI_Datatype r8, MPI_Datatype r16)
{
    if (p == MPI_UNDEFINED)
        p = 0;
    if (r == MPI_UNDEFINED)
        r = 0;
    if (p < 0 || r < 0)
        return MPI_DATATYPE_NULL;
    if (p <= 6 && r <= 37)
        return r4;
    if (p <= 15 && r <= 307)
        return r8;
    if (p <= 33 && r <= 4931)
        return r16;
    return MPI_DATATYPE_NULL;
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r,
               real_for(p, r, MPI_REAL4, MPI_REAL8, MPI_REAL16), newtype);
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r,
               real_for(p, r, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32), newtype);
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPI_Datatype base = r < 0     ? MPI_DATATYPE_NULL
                        : r <= 2  ? MPI_INTEGER1
                        : r <= 4  ? MPI_INTEGER2
                        : r <= 9  ? MPI_INTEGER4
                        : r <= 18 ? MPI_INTEGER8
                                  : MPI_DATATYPE_NULL;
    return f90("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, base,
               newtype);
}
