#include <stdlib.h>

#include "fy_errhandler.h"
#include "fy_handle.h"

static fy_errhandler_t builtin[4] = {
    {MPI_ERRORS_ARE_FATAL, NULL, FY_EH_COMM, 1},
    {MPI_ERRORS_RETURN, NULL, FY_EH_COMM, 1},
    {MPIR_ERRORS_THROW_EXCEPTIONS, NULL, FY_EH_COMM, 1},
    {MPI_ERRORS_ABORT, NULL, FY_EH_COMM, 1},
};
static fy_errhandler_t **table;
static unsigned used, cap;

fy_errhandler_t *fy_errhandler_get(MPI_Errhandler h)
{
    if (fy_handle_class(h) != FY_HCLASS_ERRHANDLER)
        return NULL;
    unsigned i = fy_handle_index(h);
    if (fy_handle_kind(h) == FY_HKIND_BUILTIN)
        return i < 4 && i != 2 ? &builtin[i] : NULL;
    if (fy_handle_kind(h) == FY_HKIND_DIRECT && i < used && table[i] && table[i]->refs > 0)
        return table[i];
    return NULL;
}

int fy_errhandler_create(MPI_Comm_errhandler_function *fn, MPI_Errhandler *h_p)
{
    return fy_errhandler_create_for(FY_EH_COMM, (void (*)(void))fn, h_p);
}

int fy_errhandler_fits(MPI_Errhandler h, int obj)
{
    fy_errhandler_t *e = fy_errhandler_get(h);
    return e && (!e->fn || e->obj == obj);
}

int fy_errhandler_create_for(int obj, void (*fn)(void), MPI_Errhandler *h_p)
{
    if (used == cap) {
        unsigned ncap = cap ? cap * 2 : 16;
        fy_errhandler_t **t = realloc(table, ncap * sizeof *t);
        if (!t)
            return MPI_ERR_NO_MEM;
        table = t;
        cap = ncap;
    }
    fy_errhandler_t *e = malloc(sizeof *e);
    if (!e)
        return MPI_ERR_NO_MEM;
    e->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_ERRHANDLER, used);
    e->fn = (MPI_Comm_errhandler_function *)fn;
    e->obj = obj;
    e->refs = 1;
    table[used++] = e;
    *h_p = e->handle;
    return MPI_SUCCESS;
}

void fy_errhandler_ref(MPI_Errhandler h)
{
    fy_errhandler_t *e = fy_errhandler_get(h);
    if (e && e->fn)
        e->refs++;
}

void fy_errhandler_unref(MPI_Errhandler h)
{
    fy_errhandler_t *e = fy_errhandler_get(h);
    if (e && e->fn && --e->refs == 0) {
        table[fy_handle_index(h)] = NULL;
        free(e);
    }
}

void fy_errhandler_fini(void)
{
    for (unsigned i = 0; i < used; i++)
        free(table[i]);
    free(table);
    table = NULL;
    used = cap = 0;
}
