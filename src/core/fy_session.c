/* Session objects and the process sets they name. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_errhandler.h"
#include "fy_handle.h"
#include "fy_runtime.h"
#include "fy_session.h"

static fy_session_t **table;
static unsigned cap;

fy_session_t *fy_session_get(MPI_Session h)
{
    if (fy_handle_kind(h) != FY_HKIND_DIRECT || fy_handle_class(h) != FY_HCLASS_SESSION)
        return NULL;
    unsigned i = fy_handle_index(h);
    return i < cap ? table[i] : NULL;
}

int fy_session_new(fy_session_t **s_p)
{
    unsigned i = 0;
    while (i < cap && table[i])
        i++;
    if (i == cap) {
        unsigned ncap = cap ? cap * 2 : 8;
        fy_session_t **t = realloc(table, ncap * sizeof *t);
        if (!t)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Session_init: out of memory");
        memset(t + cap, 0, (ncap - cap) * sizeof *t);
        table = t;
        cap = ncap;
    }
    fy_session_t *s = calloc(1, sizeof *s);
    if (!s)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Session_init: out of memory");
    s->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_SESSION, i);
    s->errhandler = MPI_ERRORS_ARE_FATAL;
    table[i] = s;
    *s_p = s;
    return MPI_SUCCESS;
}

void fy_session_free(fy_session_t *s)
{
    table[fy_handle_index(s->handle)] = NULL;
    fy_errhandler_unref(s->errhandler);
    fy_info_free(s->hints);
    free(s);
}

void fy_session_fini(void)
{
    for (unsigned i = 0; i < cap; i++)
        if (table[i])
            fy_session_free(table[i]);
    free(table);
    table = NULL;
    cap = 0;
}

static const char *const pset_names[] = {"mpi://WORLD", "mpi://SELF"};

int fy_session_num_psets(void)
{
    return 2;
}

const char *fy_session_pset_name(int n)
{
    return n >= 0 && n < 2 ? pset_names[n] : NULL;
}

int fy_session_pset_size(const char *name)
{
    if (strcmp(name, pset_names[0]) == 0)
        return fy_rt.size;
    if (strcmp(name, pset_names[1]) == 0)
        return 1;
    return -1;
}

int fy_err_invoke_session(MPI_Session h, int code)
{
    fy_session_t *s = fy_session_get(h);
    if (!s)
        return fy_err_invoke_comm(MPI_COMM_SELF, code);
    if (s->errhandler == MPI_ERRORS_RETURN)
        return code;
    fy_errhandler_t *e = fy_errhandler_get(s->errhandler);
    if (e && e->fn) {
        MPI_Session sh = s->handle;
        ((MPI_Session_errhandler_function *)(void (*)(void))e->fn)(&sh, &code);
        return code;
    }
    fy_err_fatal_code(code); /* MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT */
}

int fy_err_raise_session(MPI_Session h, int cls)
{
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    return fy_err_invoke_session(h, fy_err_code_for_message(cls));
}
