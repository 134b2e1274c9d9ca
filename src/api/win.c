/* Windows as objects: creation in every flavour (and the _c forms), freeing, dynamic attach
 * and detach, Win_shared_query, the group, info hints, names, error handlers, keyvals and
 * attributes. The one-sided layer (src/osc) does the work; this file checks arguments and
 * raises errors on the window's handler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_api.h"
#include "fy_attr.h"
#include "fy_coll.h"
#include "fy_errhandler.h"
#include "fy_group.h"
#include "fy_info.h"
#include "fy_osc.h"
#include "fy_win_api.h"

int fy_api_raise_win(MPI_Win h, int cls)
{
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    fy_win_t *w = fy_win_get(h);
    if (!w)
        return fy_err_raise_comm(MPI_COMM_SELF, cls);
    int code = fy_err_code_for_message(cls);
    if (w->errhandler == MPI_ERRORS_RETURN)
        return code;
    fy_errhandler_t *e = fy_errhandler_get(w->errhandler);
    if (e && e->fn) {
        MPI_Win hh = h;
        ((MPI_Win_errhandler_function *)(void (*)(void))e->fn)(&hh, &code);
        return code;
    }
    fy_err_fatal_code(code);
}

int fy_api_win(const char *fn, MPI_Win h, fy_win_t **w_p)
{
    int rc = fy_api_check_init(fn);
    if (rc != MPI_SUCCESS)
        return rc;
    fy_win_t *w = fy_win_get(h);
    if (!w)
        return fy_err_set(MPI_ERR_WIN, "%s: invalid window 0x%x%s", fn, (unsigned)h,
                          h == MPI_WIN_NULL ? " (MPI_WIN_NULL)" : " (freed, or not a window)");
    *w_p = w;
    return MPI_SUCCESS;
}

/* ---- creation ---------------------------------------------------------------------------- */

static int create(const char *fn, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                  MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    fy_comm_t *c, *dup = NULL;
    fy_info_t *in = NULL;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS && c->inter)
        rc = fy_err_set(MPI_ERR_COMM, "%s: %s is an intercommunicator; windows need an "
                                      "intracommunicator", fn, fy_comm_name(comm));
    if (rc == MPI_SUCCESS && size < 0)
        rc = fy_err_set(MPI_ERR_SIZE, "%s: invalid size %ld (negative)", fn, (long)size);
    if (rc == MPI_SUCCESS && disp_unit <= 0)
        rc = fy_err_set(MPI_ERR_DISP, "%s: invalid disp_unit %ld (must be positive)", fn,
                        (long)disp_unit);
    if (rc == MPI_SUCCESS && !win)
        rc = fy_err_set(MPI_ERR_ARG, "%s: win is NULL", fn);
    if (rc == MPI_SUCCESS && flavor != MPI_WIN_FLAVOR_CREATE &&
        flavor != MPI_WIN_FLAVOR_DYNAMIC && !baseptr)
        rc = fy_err_set(MPI_ERR_ARG, "%s: baseptr is NULL", fn);
    if (rc == MPI_SUCCESS && flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        rc = fy_err_set(MPI_ERR_ARG, "%s: base is NULL for a window of %ld bytes", fn,
                        (long)size);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !(in = fy_info_get(info)))
        rc = fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x", fn, (unsigned)info);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(comm, rc);
    fy_lock();
    uint64_t agreed[FY_CID_MASK_WORDS];
    rc = fy_api_agree_cid(c, agreed);
    if (rc == MPI_SUCCESS)
        rc = fy_comm_dup(c, agreed, &dup);
    fy_win_t *w = NULL;
    void *got = NULL;
    if (rc == MPI_SUCCESS) {
        snprintf(dup->name, sizeof dup->name, "window of %s", fy_comm_name(comm));
        rc = fy_win_create(fn, flavor, base, size, disp_unit, in, dup, comm, &got, &w);
    }
    if (rc == MPI_SUCCESS) {
        w->attr_disp_unit = (int)disp_unit;
        w->attr_flavor = flavor;
        w->attr_model = MPI_WIN_UNIFIED;
        if (baseptr && flavor != MPI_WIN_FLAVOR_CREATE && flavor != MPI_WIN_FLAVOR_DYNAMIC)
            *(void **)baseptr = got;
        *win = w->handle;
    }
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(comm, rc);
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return create("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                  NULL, win);
}

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                      MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                  NULL, win);
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    return create("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                  comm, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    return create("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit,
                  info, comm, baseptr, win);
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return create("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL,
                  win);
}

int PMPI_Win_free(MPI_Win *win)
{
    const char *fn = "MPI_Win_free";
    fy_win_t *w;
    if (!win)
        return fy_err_raise_comm(MPI_COMM_SELF, fy_err_set(MPI_ERR_ARG, "%s: win is NULL", fn));
    int rc = fy_api_win(fn, *win, &w);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(*win, rc);
    fy_lock();
    MPI_Errhandler eh = w->errhandler;
    fy_errhandler_ref(eh); /* a failing free still raises on the window's handler */
    rc = fy_win_free(fn, w);
    if (rc == MPI_SUCCESS || !fy_win_get(*win)) {
        *win = MPI_WIN_NULL;
    }
    fy_unlock();
    if (rc != MPI_SUCCESS && fy_win_get(*win))
        rc = fy_api_raise_win(*win, rc);
    else if (rc != MPI_SUCCESS)
        rc = fy_err_raise_comm(MPI_COMM_SELF, rc);
    fy_errhandler_unref(eh);
    return rc;
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *fn = "MPI_Win_attach";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        rc = fy_err_set(MPI_ERR_RMA_FLAVOR,
                        "%s: the window was not created by MPI_Win_create_dynamic", fn);
    if (rc == MPI_SUCCESS && size < 0)
        rc = fy_err_set(MPI_ERR_SIZE, "%s: invalid size %ld", fn, (long)size);
    if (rc == MPI_SUCCESS && !base && size > 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: base is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_win_attach(fn, w, base, size);
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *fn = "MPI_Win_detach";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        rc = fy_err_set(MPI_ERR_RMA_FLAVOR,
                        "%s: the window was not created by MPI_Win_create_dynamic", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_win_detach(fn, w, base);
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

static int shared_query(const char *fn, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void *baseptr)
{
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        rc = fy_err_set(MPI_ERR_RANK, "%s: invalid rank %d (the window has %d ranks)", fn, rank,
                        w->size);
    if (rc == MPI_SUCCESS && (!size || !disp_unit || !baseptr))
        rc = fy_err_set(MPI_ERR_ARG, "%s: size, disp_unit or baseptr is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_win_shared_query(fn, w, rank, size, disp_unit, (void **)baseptr);
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint du = 0;
    int rc = shared_query("MPI_Win_shared_query", win, rank, size, disp_unit ? &du : NULL,
                          baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)du;
    return rc;
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    const char *fn = "MPI_Win_get_group";
    fy_win_t *w;
    fy_group_t *g;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && !group)
        rc = fy_err_set(MPI_ERR_ARG, "%s: group is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_group_from_comm(fn, w->comm, &g);
        if (rc == MPI_SUCCESS && (rc = fy_group_register(fn, g)) == MPI_SUCCESS)
            *group = g->handle;
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

/* ---- info -------------------------------------------------------------------------------- */

/* The hints as given, then the values in force for the keys the window acts on. */
int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    const char *fn = "MPI_Win_get_info";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && !info_used)
        rc = fy_err_set(MPI_ERR_ARG, "%s: info_used is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    fy_lock();
    fy_info_t *in = w->info ? fy_info_dup(w->info) : fy_info_new();
    bool ok = in != NULL;
    struct {
        const char *k, *v;
    } used[] = {
        {"no_locks", w->no_locks ? "true" : "false"},
        {"accumulate_ordering", w->acc_ordering_none ? "none" : "rar,raw,war,waw"},
        {"accumulate_ops", w->acc_ops ? "same_op" : "same_op_no_op"},
        {"same_size", w->same_size ? "true" : "false"},
        {"same_disp_unit", w->same_disp_unit ? "true" : "false"},
        {"mpi_accumulate_granularity", "8"},
    };
    for (size_t i = 0; ok && i < sizeof used / sizeof *used; i++)
        ok = fy_info_set(in, used[i].k, used[i].v) == MPI_SUCCESS;
    if (ok && w->flavor == MPI_WIN_FLAVOR_SHARED && fy_info_find(in, "alloc_shared_noncontig") < 0)
        ok = fy_info_set(in, "alloc_shared_noncontig", "false") == MPI_SUCCESS;
    if (ok)
        rc = fy_info_publish(in, info_used);
    else {
        fy_info_free(in);
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    fy_unlock();
    return fy_api_raise_win(win, rc);
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    const char *fn = "MPI_Win_set_info";
    fy_win_t *w;
    fy_info_t *given = NULL;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL && !(given = fy_info_get(info)))
        rc = fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x", fn, (unsigned)info);
    if (rc == MPI_SUCCESS && given && given->n) {
        fy_lock();
        if (!w->info && !(w->info = fy_info_new()))
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        else if (fy_info_merge(w->info, given) != MPI_SUCCESS)
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        /* Hints that change how the window works (no_locks, the accumulate ones) were fixed
         * at creation, when every rank agreed on them; they are recorded, not acted on. */
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

/* ---- names ------------------------------------------------------------------------------- */

int PMPI_Win_set_name(MPI_Win win, const char *win_name)
{
    const char *fn = "MPI_Win_set_name";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && !win_name)
        rc = fy_err_set(MPI_ERR_ARG, "%s: win_name is NULL", fn);
    if (rc == MPI_SUCCESS) {
        strncpy(w->name, win_name, MPI_MAX_OBJECT_NAME - 1);
        w->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    }
    return fy_api_raise_win(win, rc);
}

/* MPI-4.1: MPI_WIN_NULL has a name too (mpi4py asks once the version says 4.1). */
int PMPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    const char *fn = "MPI_Win_get_name";
    if (win == MPI_WIN_NULL && win_name && resultlen) {
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        return MPI_SUCCESS;
    }
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && (!win_name || !resultlen))
        rc = fy_err_set(MPI_ERR_ARG, "%s: win_name or resultlen is NULL", fn);
    if (rc == MPI_SUCCESS)
        *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    return fy_api_raise_win(win, rc);
}

/* ---- error handlers ---------------------------------------------------------------------- */

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *win_errhandler_fn,
                               MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Win_create_errhandler";
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && !win_errhandler_fn)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid function NULL", fn);
    if (rc == MPI_SUCCESS && !errhandler)
        rc = fy_err_set(MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_errhandler_create_for(FY_EH_WIN, (void (*)(void))win_errhandler_fn, errhandler);
        fy_unlock();
        if (rc != MPI_SUCCESS)
            fy_err_set(rc, "%s: out of memory", fn);
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Win_set_errhandler";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && !fy_errhandler_fits(errhandler, FY_EH_WIN))
        rc = fy_err_set(MPI_ERR_ARG,
                        "%s: invalid errhandler 0x%x (not a predefined handler nor one made by "
                        "MPI_Win_create_errhandler)",
                        fn, (unsigned)errhandler);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    fy_lock();
    fy_errhandler_ref(errhandler);
    fy_errhandler_unref(w->errhandler);
    w->errhandler = errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Win_get_errhandler";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && !errhandler)
        rc = fy_err_set(MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    fy_lock();
    fy_errhandler_ref(w->errhandler);
    *errhandler = w->errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    const char *fn = "MPI_Win_call_errhandler";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    /* The code goes to the handler as given; the call succeeds once the handler returns. */
    if (w->errhandler == MPI_ERRORS_RETURN)
        return MPI_SUCCESS;
    fy_errhandler_t *e = fy_errhandler_get(w->errhandler);
    if (e && e->fn) {
        MPI_Win h = win;
        int code = errorcode;
        ((MPI_Win_errhandler_function *)(void (*)(void))e->fn)(&h, &code);
        return MPI_SUCCESS;
    }
    fy_err_fatal_code(errorcode);
}

/* ---- keyvals and attributes -------------------------------------------------------------- */

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                           void *extra_state)
{
    int rc = fy_api_check_init("MPI_Win_create_keyval");
    if (rc == MPI_SUCCESS && !win_keyval)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Win_create_keyval: win_keyval is NULL");
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_keyval_create_kind(FY_ATTR_WIN, (MPI_Comm_copy_attr_function *)win_copy_attr_fn,
                                   (MPI_Comm_delete_attr_function *)win_delete_attr_fn,
                                   extra_state, win_keyval);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Win_free_keyval(int *win_keyval)
{
    if (!win_keyval)
        return fy_err_raise_comm(
            MPI_COMM_SELF, fy_err_set(MPI_ERR_ARG, "MPI_Win_free_keyval: win_keyval is NULL"));
    fy_lock();
    int rc = fy_keyval_free(*win_keyval);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    *win_keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

static bool predefined_key(int k)
{
    return k == MPI_WIN_BASE || k == MPI_WIN_SIZE || k == MPI_WIN_DISP_UNIT ||
           k == MPI_WIN_CREATE_FLAVOR || k == MPI_WIN_MODEL;
}

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    const char *fn = "MPI_Win_set_attr";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && predefined_key(win_keyval))
        rc = fy_err_set(MPI_ERR_KEYVAL, "%s: keyval 0x%x is predefined and read-only", fn,
                        (unsigned)win_keyval);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attrs_set(fn, FY_ATTR_WIN, &w->attrs, win, win_keyval, attribute_val);
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    const char *fn = "MPI_Win_get_attr";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && (!attribute_val || !flag))
        rc = fy_err_set(MPI_ERR_ARG, "%s: attribute_val or flag is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_api_raise_win(win, rc);
    void **out = attribute_val;
    *flag = 1;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        *out = w->base;
        return MPI_SUCCESS;
    case MPI_WIN_SIZE:
        *out = &w->wsize;
        return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT:
        *out = &w->attr_disp_unit;
        return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR:
        *out = &w->attr_flavor;
        return MPI_SUCCESS;
    case MPI_WIN_MODEL:
        *out = &w->attr_model;
        return MPI_SUCCESS;
    default:
        break;
    }
    fy_lock();
    rc = fy_attrs_get(fn, FY_ATTR_WIN, &w->attrs, win_keyval, out, flag);
    fy_unlock();
    return fy_api_raise_win(win, rc);
}

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    const char *fn = "MPI_Win_delete_attr";
    fy_win_t *w;
    int rc = fy_api_win(fn, win, &w);
    if (rc == MPI_SUCCESS && predefined_key(win_keyval))
        rc = fy_err_set(MPI_ERR_KEYVAL, "%s: keyval 0x%x is predefined and read-only", fn,
                        (unsigned)win_keyval);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_attrs_delete(fn, FY_ATTR_WIN, &w->attrs, win, win_keyval);
        fy_unlock();
    }
    return fy_api_raise_win(win, rc);
}
