/* The PMIx backend: the PMIx client library (libpmix), loaded when the launcher announces a
 * PMIx server (PMIX_NAMESPACE, PMIX_RANK and the server's address in the environment: srun
 * --mpi=pmix, prterun, Open MPI's mpirun).
 *
 * The library is opened with dlopen rather than linked, so that libmpi runs on machines without
 * it; its header is used at build time for the types and key names only (every function is
 * reached through the pointers below, none through the header's inline helpers).
 *
 * Keys are stored per process in PMIx, so a get names the rank that put the key. The fence
 * collects everyone's data (one exchange among the servers, after which gets are answered from
 * the local server's store); the job's layout and sizes are job-level data the server holds
 * before the first fence.
 */
#include "pmi_impl.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FY_HAVE_PMIX_H
#include <pmix.h>

#define DEFAULT_LIB "libpmix.so.2"

typedef struct pmix_api {
    void *dl;
    pmix_proc_t me;
    pmix_status_t (*init)(pmix_proc_t *, pmix_info_t[], size_t);
    pmix_status_t (*finalize)(const pmix_info_t[], size_t);
    pmix_status_t (*abort)(int, const char[], pmix_proc_t[], size_t);
    pmix_status_t (*put)(pmix_scope_t, const char[], pmix_value_t *);
    pmix_status_t (*commit)(void);
    pmix_status_t (*fence)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t);
    pmix_status_t (*get)(const pmix_proc_t *, const char[], const pmix_info_t[], size_t,
                         pmix_value_t **);
    const char *(*error_string)(pmix_status_t);
    void (*value_destruct)(pmix_value_t *); /* optional: older libraries lack it */
} pmix_api_t;

static const char *why(pmix_api_t *x, pmix_status_t st)
{
    static char buf[32];
    if (x->error_string != NULL)
        return x->error_string(st);
    snprintf(buf, sizeof buf, "status %d", (int)st);
    return buf;
}

static void release(pmix_api_t *x, pmix_value_t *v)
{
    if (v == NULL)
        return;
    if (x->value_destruct != NULL)
        x->value_destruct(v);
    else if (v->type == PMIX_STRING)
        free(v->data.string);
    free(v);
}

/* An integer of any of the widths servers use for sizes and ids; -1 if not an integer. */
static long long as_number(const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_UINT32: return v->data.uint32;
    case PMIX_INT32: return v->data.int32;
    case PMIX_INT: return v->data.integer;
    case PMIX_UINT: return v->data.uint;
    case PMIX_UINT16: return v->data.uint16;
    case PMIX_UINT64: return (long long)v->data.uint64;
    case PMIX_INT64: return v->data.int64;
    case PMIX_SIZE: return (long long)v->data.size;
    default: return -1;
    }
}

static pmix_status_t get_value(pmix_api_t *x, pmix_rank_t rank, const char *key,
                               pmix_value_t **v)
{
    pmix_proc_t p;
    memset(&p, 0, sizeof p);
    memcpy(p.nspace, x->me.nspace, sizeof p.nspace);
    p.rank = rank;
    *v = NULL;
    return x->get(&p, key, NULL, 0, v);
}

static long long job_number(pmix_api_t *x, const char *key)
{
    pmix_value_t *v;
    long long n = -1;
    if (get_value(x, PMIX_RANK_WILDCARD, key, &v) == PMIX_SUCCESS && v != NULL)
        n = as_number(v);
    release(x, v);
    return n;
}

static int px_put(fy_pmi_t *pmi, const char *key, const char *value)
{
    pmix_api_t *x = pmi->backend;
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = (char *)value;
    pmix_status_t st = x->put(PMIX_GLOBAL, key, &v);
    if (st != PMIX_SUCCESS)
        return fy_pmi_fail("PMIx: PMIx_Put of key '%s' failed: %s", key, why(x, st));
    return 0;
}

static int px_fence(fy_pmi_t *pmi)
{
    pmix_api_t *x = pmi->backend;
    pmix_status_t st = x->commit();
    if (st != PMIX_SUCCESS)
        return fy_pmi_fail("PMIx: PMIx_Commit failed: %s", why(x, st));
    pmix_info_t info;
    memset(&info, 0, sizeof info);
    snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    st = x->fence(NULL, 0, &info, 1);
    if (st != PMIX_SUCCESS)
        return fy_pmi_fail("PMIx: PMIx_Fence failed: %s", why(x, st));
    return 0;
}

static int px_get(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len)
{
    pmix_api_t *x = pmi->backend;
    pmix_value_t *v;
    pmix_status_t st = get_value(x, (pmix_rank_t)src, key, &v);
    if (st != PMIX_SUCCESS || v == NULL) {
        release(x, v);
        return fy_pmi_fail("PMIx: key '%s' of rank %d not found: %s", key, src, why(x, st));
    }
    int rc = 0;
    if (v->type != PMIX_STRING || v->data.string == NULL)
        rc = fy_pmi_fail("PMIx: key '%s' of rank %d is not a string", key, src);
    else
        rc = fy_pmi_copy_value("key", key, v->data.string, value, len);
    release(x, v);
    return rc;
}

/* Each rank's node id, from the server's job data (no exchange among the ranks). */
static int px_mapping(fy_pmi_t *pmi, int *host_of, int size)
{
    pmix_api_t *x = pmi->backend;
    for (int r = 0; r < size; r++) {
        pmix_value_t *v;
        long long id = -1;
        if (get_value(x, (pmix_rank_t)r, PMIX_NODEID, &v) == PMIX_SUCCESS && v != NULL)
            id = as_number(v);
        release(x, v);
        if (id < 0 || id > 1 << 30)
            return fy_pmi_fail("PMIx: no node id for rank %d", r);
        host_of[r] = (int)id;
    }
    return 0;
}

static void px_abort(fy_pmi_t *pmi, int code, const char *msg)
{
    pmix_api_t *x = pmi->backend;
    /* Returns once the server has the request; it ends the other ranks. */
    x->abort(code, msg != NULL && *msg != '\0' ? msg : "MPI_Abort", NULL, 0);
}

static int px_finalize(fy_pmi_t *pmi)
{
    pmix_api_t *x = pmi->backend;
    pmix_status_t st = x->finalize(NULL, 0);
    int rc = st == PMIX_SUCCESS ? 0 : fy_pmi_fail("PMIx: PMIx_Finalize failed: %s", why(x, st));
    /* The library stays loaded: it may have left threads or atexit handlers behind. */
    free(x);
    pmi->backend = NULL;
    return rc;
}

static const fy_pmi_ops_t pmix_ops = {
    .name = "PMIx",
    .put = px_put,
    .fence = px_fence,
    .get = px_get,
    .mapping = px_mapping,
    .abort = px_abort,
    .finalize = px_finalize,
};

#define SYM(field, name)                                                                       \
    do {                                                                                       \
        *(void **)&x->field = dlsym(x->dl, name);                                              \
        if (x->field == NULL) {                                                                \
            fy_pmi_fail("PMIX_NAMESPACE is set (a PMIx launcher), but %s has no %s: not a "    \
                        "PMIx client library",                                                 \
                        lib, name);                                                            \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

int fy_pmix_init(fy_pmi_t *pmi, const char *lib)
{
    if (lib == NULL || *lib == '\0')
        lib = DEFAULT_LIB;
    pmix_api_t *x = calloc(1, sizeof *x);
    if (x == NULL)
        return fy_pmi_fail("PMIx: out of memory");
    /* Global: the library loads its own plugins, which resolve its symbols through us. */
    x->dl = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    if (x->dl == NULL) {
        fy_pmi_fail("PMIX_NAMESPACE is set (a PMIx launcher), but the PMIx client library "
                    "cannot be loaded: %s (install libpmix2, or set FERRY_PMIX_LIB to its path)",
                    dlerror());
        free(x);
        return -1;
    }
    SYM(init, "PMIx_Init");
    SYM(finalize, "PMIx_Finalize");
    SYM(abort, "PMIx_Abort");
    SYM(put, "PMIx_Put");
    SYM(commit, "PMIx_Commit");
    SYM(fence, "PMIx_Fence");
    SYM(get, "PMIx_Get");
    *(void **)&x->error_string = dlsym(x->dl, "PMIx_Error_string");
    *(void **)&x->value_destruct = dlsym(x->dl, "PMIx_Value_destruct");

    pmix_status_t st = x->init(&x->me, NULL, 0);
    if (st != PMIX_SUCCESS) {
        fy_pmi_fail("PMIX_NAMESPACE='%s' is set, but no PMIx server answers (PMIx_Init: %s); "
                    "was the program started by a PMIx launcher?",
                    getenv("PMIX_NAMESPACE"), why(x, st));
        goto fail;
    }
    pmi->backend = x;
    pmi->ops = &pmix_ops;
    pmi->rank = (int)x->me.rank;
    long long n = job_number(x, PMIX_JOB_SIZE);
    if (n < 1 || n > 1 << 30 || pmi->rank < 0 || pmi->rank >= n) {
        fy_pmi_fail("PMIx: the server gave no usable job size (%lld) for rank %d", n, pmi->rank);
        x->finalize(NULL, 0);
        pmi->ops = NULL;
        goto fail;
    }
    pmi->size = (int)n;
    long long a = job_number(x, PMIX_APPNUM);
    pmi->appnum = a >= 0 && a < 1 << 30 ? (int)a : 0;
    long long u = job_number(x, PMIX_UNIV_SIZE);
    pmi->universe = u > 0 && u < 1 << 30 ? (int)u : 0;
    snprintf(pmi->wire_kvsname, sizeof pmi->wire_kvsname, "%s", x->me.nspace);
    fy_pmi_sanitize(pmi->kvsname, x->me.nspace, sizeof pmi->kvsname);
    return 0;
fail:
    pmi->backend = NULL;
    /* Not dlclose: a failed PMIx_Init may have started the library's progress thread. */
    free(x);
    return -1;
}

#else /* no PMIx header at build time */

int fy_pmix_init(fy_pmi_t *pmi, const char *lib)
{
    (void)pmi;
    (void)lib;
    return fy_pmi_fail("PMIX_NAMESPACE is set (a PMIx launcher), but this Ferry was built "
                       "without PMIx support (libpmix-dev was missing at build time)");
}

#endif
