/* The Sessions Model (MPI-4.1 chapter 11.3): MPI_Session_init and _finalize, the process sets
 * a session offers ("mpi://WORLD", "mpi://SELF"), groups made from them, and error handlers on
 * sessions. Communicators come from those groups through MPI_Comm_create_from_group.
 *
 * Each live session keeps the library running (api/runtime.c), whatever the world model does:
 * sessions may start before MPI_Init and outlive MPI_Finalize. Errors in a call on a session go
 * to that session's handler; a call given an invalid session raises MPI_ERR_SESSION on
 * MPI_COMM_SELF's handler, since there is no session to ask. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fy_api.h"
#include "fy_bsend.h"
#include "fy_errhandler.h"
#include "fy_group.h"
#include "fy_info.h"
#include "fy_session.h"

static const char *const level_names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/* The "thread_level" hint: a level name (case ignored), or -1 when absent; -2 when not a level. */
static int hinted_level(const fy_info_t *hints)
{
    int i = hints ? fy_info_find(hints, "thread_level") : -1;
    if (i < 0)
        return -1;
    for (int l = 0; l < 4; l++)
        if (strcasecmp(hints->kv[i].value, level_names[l]) == 0)
            return l;
    return -2;
}

/* A live session. The lookup takes the lock: another thread's MPI_Session_init may grow the
 * table meanwhile. */
static int session_arg(const char *fn, MPI_Session h, fy_session_t **s_p)
{
    fy_lock();
    fy_session_t *s = fy_rt.up ? fy_session_get(h) : NULL;
    fy_unlock();
    if (s) {
        *s_p = s;
        return MPI_SUCCESS;
    }
    if (h == MPI_SESSION_NULL)
        return fy_err_set(MPI_ERR_SESSION, "%s: session is MPI_SESSION_NULL", fn);
    return fy_err_set(MPI_ERR_SESSION, "%s: invalid session 0x%x (finalized, or not a session)",
                      fn, (unsigned)h);
}

/* Raises on the session when it is valid, else (MPI_ERR_SESSION) on MPI_COMM_SELF. */
static int raise(MPI_Session h, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return fy_err_raise_session(rc == MPI_ERR_SESSION ? MPI_SESSION_NULL : h, rc);
}

/* An error of MPI_Session_init goes to the handler it was given, the session's to be (a user
 * function gets MPI_SESSION_NULL); an unusable handler is fatal. */
static int init_error(MPI_Errhandler errhandler, int rc)
{
    int code = fy_err_code_for_message(rc);
    if (errhandler == MPI_ERRORS_RETURN)
        return code;
    fy_errhandler_t *e = fy_errhandler_get(errhandler);
    if (e && e->fn && e->obj == FY_EH_SESSION) {
        MPI_Session none = MPI_SESSION_NULL;
        ((MPI_Session_errhandler_function *)(void (*)(void))e->fn)(&none, &code);
        return code;
    }
    fy_err_fatal_code(code);
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    const char *fn = "MPI_Session_init";
    fy_info_t *given = NULL;
    int rc = MPI_SUCCESS;
    if (!session)
        rc = fy_err_set(MPI_ERR_ARG, "%s: session is NULL", fn);
    else if (!fy_errhandler_fits(errhandler, FY_EH_SESSION))
        rc = fy_err_set(MPI_ERR_ARG,
                        "%s: invalid errhandler 0x%x (not a predefined handler nor one made by "
                        "MPI_Session_create_errhandler)",
                        fn, (unsigned)errhandler);
    else if (info != MPI_INFO_NULL && !(given = fy_info_get(info)))
        rc = fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x (freed, or not an info object)", fn,
                        (unsigned)info);
    int level = rc == MPI_SUCCESS ? hinted_level(given) : -1;
    if (level == -2)
        rc = fy_err_set(MPI_ERR_INFO,
                        "%s: thread_level \"%s\" is not one of MPI_THREAD_SINGLE, _FUNNELED, "
                        "_SERIALIZED, _MULTIPLE",
                        fn, given->kv[fy_info_find(given, "thread_level")].value);
    if (rc != MPI_SUCCESS)
        return init_error(errhandler, rc);
    if (level < 0)
        level = MPI_THREAD_SINGLE;
    rc = fy_api_runtime_join(fn, level);
    if (rc != MPI_SUCCESS)
        return init_error(errhandler, rc);
    fy_session_t *s = NULL;
    fy_lock();
    rc = fy_session_new(&s);
    if (rc == MPI_SUCCESS && given && !(s->hints = fy_info_dup(given)))
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc == MPI_SUCCESS) {
        fy_errhandler_ref(errhandler);
        s->errhandler = errhandler;
        s->thread_level = fy_rt.thread_level > level ? fy_rt.thread_level : level;
    } else if (s) {
        fy_session_free(s);
    }
    fy_unlock();
    if (rc != MPI_SUCCESS) {
        fy_api_runtime_leave();
        return init_error(errhandler, rc);
    }
    *session = s->handle;
    return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session *session)
{
    const char *fn = "MPI_Session_finalize";
    fy_session_t *s = NULL;
    int rc = session ? session_arg(fn, *session, &s)
                     : fy_err_set(MPI_ERR_ARG, "%s: session is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session ? *session : MPI_SESSION_NULL, rc);
    fy_lock();
    /* A buffer still attached is detached as MPI_Finalize detaches the process's: its
     * messages are delivered first. */
    if (s->bsend) {
        void *addr;
        MPI_Count size;
        rc = fy_bsend_detach(fn, &s->bsend, &addr, &size);
    }
    if (rc == MPI_SUCCESS)
        fy_session_free(s);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return raise(*session, rc);
    *session = MPI_SESSION_NULL;
    /* The standard asks the caller to have completed its communication and freed what it
     * derived from the session; the last user's leave waits for queued control records. */
    fy_api_runtime_leave();
    return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    const char *fn = "MPI_Session_get_info";
    fy_session_t *s;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS && !info_used)
        rc = fy_err_set(MPI_ERR_ARG, "%s: info_used is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    fy_lock();
    fy_info_t *i = s->hints ? fy_info_dup(s->hints) : fy_info_new();
    /* The hints given, with the level the session actually has. */
    if (!i || fy_info_set(i, "thread_level", level_names[s->thread_level]) != MPI_SUCCESS)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc == MPI_SUCCESS) {
        rc = fy_info_publish(i, info_used);
        if (rc != MPI_SUCCESS)
            fy_err_set(rc, "%s: out of memory", fn);
    } else {
        fy_info_free(i);
    }
    fy_unlock();
    return raise(session, rc);
}

/* The info argument of the pset queries may be MPI_INFO_NULL; no key is defined for them. */
static int pset_info_arg(const char *fn, MPI_Info info)
{
    if (info == MPI_INFO_NULL || fy_info_get(info))
        return MPI_SUCCESS;
    return fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x (freed, or not an info object)", fn,
                      (unsigned)info);
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    const char *fn = "MPI_Session_get_num_psets";
    fy_session_t *s;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS)
        rc = pset_info_arg(fn, info);
    if (rc == MPI_SUCCESS && !npset_names)
        rc = fy_err_set(MPI_ERR_ARG, "%s: npset_names is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    *npset_names = fy_session_num_psets();
    return MPI_SUCCESS;
}

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    const char *fn = "MPI_Session_get_nth_pset";
    fy_session_t *s;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS)
        rc = pset_info_arg(fn, info);
    const char *name = fy_session_pset_name(n);
    if (rc == MPI_SUCCESS && !name)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid n %d (the session has %d process sets)", fn, n,
                        fy_session_num_psets());
    if (rc == MPI_SUCCESS && (!pset_len || *pset_len < 0))
        rc = pset_len ? fy_err_set(MPI_ERR_ARG, "%s: invalid *pset_len %d", fn, *pset_len)
                      : fy_err_set(MPI_ERR_ARG, "%s: pset_len is NULL", fn);
    if (rc == MPI_SUCCESS && *pset_len > 0 && !pset_name)
        rc = fy_err_set(MPI_ERR_ARG, "%s: pset_name is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    /* A zero length asks for the size needed (with the terminating NUL) and writes nothing;
     * a short buffer gets the name cut, still terminated. */
    int need = (int)strlen(name) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", name);
    *pset_len = need;
    return MPI_SUCCESS;
}

/* The size of a process set by name, or an MPI_ERR_ARG message. */
static int pset_size(const char *fn, const char *name, int *size_p)
{
    if (!name)
        return fy_err_set(MPI_ERR_ARG, "%s: pset_name is NULL", fn);
    int size = fy_session_pset_size(name);
    if (size < 0)
        return fy_err_set(MPI_ERR_ARG,
                          "%s: unknown process set \"%.64s\" (this session has \"mpi://WORLD\" "
                          "and \"mpi://SELF\")",
                          fn, name);
    *size_p = size;
    return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    const char *fn = "MPI_Session_get_pset_info";
    fy_session_t *s;
    int size = 0;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS)
        rc = pset_size(fn, pset_name, &size);
    if (rc == MPI_SUCCESS && !info)
        rc = fy_err_set(MPI_ERR_ARG, "%s: info is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    char val[16];
    snprintf(val, sizeof val, "%d", size);
    fy_lock();
    fy_info_t *i = fy_info_new();
    if (!i || fy_info_set(i, "mpi_size", val) != MPI_SUCCESS)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc == MPI_SUCCESS) {
        rc = fy_info_publish(i, info);
        if (rc != MPI_SUCCESS)
            fy_err_set(rc, "%s: out of memory", fn);
    } else {
        fy_info_free(i);
    }
    fy_unlock();
    return raise(session, rc);
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_from_session_pset";
    fy_session_t *s;
    int size = 0;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS)
        rc = pset_size(fn, pset_name, &size);
    if (rc == MPI_SUCCESS && !newgroup)
        rc = fy_err_set(MPI_ERR_ARG, "%s: newgroup is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    fy_lock();
    fy_group_t *g = NULL;
    /* WORLD is every process in world order; SELF is this process alone. */
    int me = fy_rt.rank;
    rc = size == 1 && strcmp(pset_name, "mpi://SELF") == 0
             ? fy_group_from_world_list(fn, &me, 1, &g)
             : fy_group_from_map(fn, fy_rt.size, NULL, &g);
    if (rc == MPI_SUCCESS) {
        g->session = session;
        rc = fy_group_register(fn, g);
        if (rc != MPI_SUCCESS)
            fy_group_release(g);
    }
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    *newgroup = g->handle;
    return MPI_SUCCESS;
}

/* ---- Error handlers on sessions --------------------------------------------------------- */

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Session_create_errhandler";
    int rc = MPI_SUCCESS;
    if (!session_errhandler_fn)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid function NULL", fn);
    else if (!errhandler)
        rc = fy_err_set(MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    if (rc == MPI_SUCCESS) {
        /* Allowed before MPI_Init / MPI_Session_init (MPI-4.1 11.4.1): the table needs no
         * running library. */
        fy_lock();
        rc = fy_errhandler_create_for(FY_EH_SESSION, (void (*)(void))session_errhandler_fn,
                                      errhandler);
        fy_unlock();
        if (rc != MPI_SUCCESS)
            fy_err_set(rc, "%s: out of memory", fn);
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Session_set_errhandler";
    fy_session_t *s;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS && !fy_errhandler_fits(errhandler, FY_EH_SESSION))
        rc = fy_err_set(MPI_ERR_ARG,
                        "%s: invalid errhandler 0x%x (not a predefined handler nor one made by "
                        "MPI_Session_create_errhandler)",
                        fn, (unsigned)errhandler);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    fy_lock();
    fy_errhandler_ref(errhandler);
    fy_errhandler_unref(s->errhandler);
    s->errhandler = errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Session_get_errhandler";
    fy_session_t *s;
    int rc = session_arg(fn, session, &s);
    if (rc == MPI_SUCCESS && !errhandler)
        rc = fy_err_set(MPI_ERR_ARG, "%s: errhandler is NULL", fn);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    fy_lock();
    fy_errhandler_ref(s->errhandler); /* the user now holds a reference to free */
    *errhandler = s->errhandler;
    fy_unlock();
    return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    const char *fn = "MPI_Session_call_errhandler";
    fy_session_t *s;
    int rc = session_arg(fn, session, &s);
    if (rc != MPI_SUCCESS)
        return raise(session, rc);
    /* The handler gets the code exactly as given; like MPI_Comm_call_errhandler, the call
     * itself succeeds once the handler returns. */
    fy_lock();
    fy_err_invoke_session(session, errorcode);
    fy_unlock();
    return MPI_SUCCESS;
}
