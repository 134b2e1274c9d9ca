/* The library's PMI client: picks the backend the launcher's environment announces and passes
 * every call to it (see fy_pmi.h for the contract, pmi_impl.h for the backends' table).
 *
 * Which one:
 *   PMI_FD set           a text protocol on that socket: PMI-2 when PMI_VERSION=2; when
 *                        the process runs in a Slurm step (SLURM_STEP_ID, or PMI_JOBID),
 *                        PMI-2 if the server accepts it (srun --mpi=pmi2), else PMI-1 on the
 *                        same connection (Ferry's mpiexec started through srun, whose
 *                        ranks inherit the step's variables); else PMI-1 (Ferry's mpiexec,
 *                        Hydra);
 *   PMIX_NAMESPACE set   PMIx through libpmix (srun --mpi=pmix, prterun, Open MPI's mpirun);
 *   neither              a singleton: rank 0 of 1 with a local key-value space.
 * PMI_FD wins when both are set: it is the more specific announcement (a launcher that gives a
 * socket means it), while PMIx variables leak into the environment of nested launches.
 */
#include "pmi_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char last_error[512];
static int first_reply_ms = 60000;

const char *fy_pmi_last_error(void)
{
    return last_error;
}

int fy_pmi_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return -1;
}

int fy_pmi_copy_value(const char *what, const char *key, const char *v, char *value, size_t len)
{
    if (v == NULL)
        return fy_pmi_fail("PMI: %s '%s' not found", what, key);
    if (strlen(v) >= len)
        return fy_pmi_fail("PMI: value of %s '%s' (%zu bytes) does not fit in %zu", what, key,
                           strlen(v), len);
    strcpy(value, v);
    return 0;
}

void fy_pmi_sanitize(char *dst, const char *src, size_t len)
{
    size_t i;
    for (i = 0; i + 1 < len && src[i] != '\0'; i++) {
        char c = src[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        dst[i] = ok ? c : '_';
    }
    dst[i] = '\0';
}

int fy_pmi_env_int(const char *name, int *val_p)
{
    const char *s = getenv(name);
    if (s == NULL || *s == '\0')
        return -1;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 0 || v > 1 << 30)
        return -1;
    *val_p = (int)v;
    return 0;
}

int fy_pmi_wait_readable(int fd, int ms)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = ms - ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L);
        if (left <= 0)
            return 0;
        int n = poll(&pfd, 1, (int)left);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

int fy_pmi_first_reply_ms(void)
{
    return first_reply_ms;
}

int fy_pmi_check_fd(int fd)
{
    struct stat st;
    if (fcntl(fd, F_GETFD) < 0)
        return fy_pmi_fail("PMI_FD=%d is not an open file descriptor (expected the launcher's "
                           "PMI connection; was the program started by a launcher that closed it, "
                           "or is PMI_FD left over in the environment?)",
                           fd);
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return fy_pmi_fail("PMI_FD=%d is not a socket (expected the launcher's PMI connection; "
                           "is PMI_FD left over in the environment?)",
                           fd);
    /* Programs the rank runs (system(), popen()) must not inherit our launcher connection. */
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return 0;
}

/* ---- Singleton ---- */

static int single_put(fy_pmi_t *pmi, const char *key, const char *value)
{
    if (fy_pmi_kvs_put(&pmi->local, key, value) != 0)
        return fy_pmi_fail("PMI: out of memory storing key '%s'", key);
    return 0;
}

static int single_fence(fy_pmi_t *pmi)
{
    (void)pmi;
    return 0;
}

static int single_get(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len)
{
    (void)src;
    return fy_pmi_copy_value("key", key, fy_pmi_kvs_get(&pmi->local, key), value, len);
}

static int single_mapping(fy_pmi_t *pmi, int *host_of, int size)
{
    (void)pmi;
    for (int r = 0; r < size; r++)
        host_of[r] = 0;
    return 0;
}

static void single_abort(fy_pmi_t *pmi, int code, const char *msg)
{
    (void)pmi;
    (void)msg;
    fflush(NULL);
    _exit(code);
}

static int single_finalize(fy_pmi_t *pmi)
{
    fy_pmi_kvs_fini(&pmi->local);
    return 0;
}

static const fy_pmi_ops_t single_ops = {
    .name = "singleton",
    .put = single_put,
    .fence = single_fence,
    .get = single_get,
    .mapping = single_mapping,
    .abort = single_abort,
    .finalize = single_finalize,
};

static int init_singleton(fy_pmi_t *pmi)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* pid plus time: unique on this host even after pid reuse. */
    snprintf(pmi->wire_kvsname, sizeof(pmi->wire_kvsname), "fys%ldx%lx%lx", (long)getpid(),
             (unsigned long)ts.tv_sec, (unsigned long)ts.tv_nsec);
    fy_pmi_sanitize(pmi->kvsname, pmi->wire_kvsname, sizeof(pmi->kvsname));
    fy_pmi_kvs_init(&pmi->local);
    pmi->ops = &single_ops;
    pmi->fd = -1;
    pmi->rank = 0;
    pmi->size = 1;
    pmi->appnum = 0;
    pmi->universe = 1;
    return 0;
}

/* ---- Choosing and dispatching ---- */

static int set(const char *name)
{
    const char *s = getenv(name);
    return s != NULL && *s != '\0';
}

int fy_pmi_init(fy_pmi_t **pmi_p, const fy_pmi_params_t *params)
{
    fy_pmi_t *pmi = calloc(1, sizeof(*pmi));
    if (pmi == NULL)
        return fy_pmi_fail("PMI: out of memory");
    fy_pmi_linebuf_init(&pmi->in);
    pmi->fd = -1;
    pmi->keylen_max = FY_PMI_MAX_KEY;
    pmi->vallen_max = FY_PMI_MAX_VAL;
    if (params != NULL && params->timeout_ms > 0)
        first_reply_ms = params->timeout_ms;

    int rc;
    if (set("PMI_FD")) {
        int v = 0;
        const char *ver = getenv("PMI_VERSION");
        if (fy_pmi_env_int("PMI_FD", &pmi->fd) != 0)
            rc = fy_pmi_fail("PMI_FD='%s' is not a file descriptor number (expected the "
                             "launcher's PMI connection)",
                             getenv("PMI_FD"));
        else if (ver != NULL && *ver != '\0' && (fy_pmi_env_int("PMI_VERSION", &v) != 0 ||
                                                  (v != 1 && v != 2)))
            rc = fy_pmi_fail("PMI_VERSION='%s': this library speaks PMI versions 1 and 2", ver);
        else if (v == 2)
            rc = fy_pmi2_init(pmi, 1);
        else if (v == 0 && (set("PMI_JOBID") || set("SLURM_STEP_ID")))
            rc = fy_pmi2_init(pmi, 0); /* Slurm's: PMI-2, or PMI-1 if the server declines */
        else
            rc = fy_pmi1_init(pmi);
    } else if (set("PMIX_NAMESPACE")) {
        rc = fy_pmix_init(pmi, params ? params->pmix_lib : NULL);
    } else {
        rc = init_singleton(pmi);
    }
    if (rc != 0) {
        fy_pmi_linebuf_fini(&pmi->in);
        free(pmi);
        return -1;
    }
    if (pmi->universe < pmi->size)
        pmi->universe = pmi->size;
    *pmi_p = pmi;
    return 0;
}

int fy_pmi_rank(const fy_pmi_t *pmi)
{
    return pmi->rank;
}

int fy_pmi_size(const fy_pmi_t *pmi)
{
    return pmi->size;
}

int fy_pmi_appnum(const fy_pmi_t *pmi)
{
    return pmi->appnum;
}

int fy_pmi_universe_size(const fy_pmi_t *pmi)
{
    return pmi->universe;
}

int fy_pmi_is_singleton(const fy_pmi_t *pmi)
{
    return pmi->ops == &single_ops;
}

const char *fy_pmi_kind(const fy_pmi_t *pmi)
{
    return pmi->ops->name;
}

const char *fy_pmi_kvsname(const fy_pmi_t *pmi)
{
    return pmi->kvsname;
}

static int check_kv(const fy_pmi_t *pmi, const char *key, const char *value)
{
    /* ';' separates PMI-2's fields, and neither Slurm nor Hydra unescapes it: refused for all
     * backends, so that what works under one launcher works under every other. */
    if (strlen(key) >= (size_t)pmi->keylen_max || !fy_pmi_wire_token_ok(key) || strchr(key, ';'))
        return fy_pmi_fail("PMI: invalid key '%.80s' (1-%d printable characters, no space, '=' "
                           "or ';')",
                           key, pmi->keylen_max - 1);
    if (value != NULL && (strlen(value) >= (size_t)pmi->vallen_max ||
                          !fy_pmi_wire_token_ok(value) || strchr(value, ';')))
        return fy_pmi_fail("PMI: invalid value for key '%s' (1-%d printable characters, no "
                           "space, '=' or ';')",
                           key, pmi->vallen_max - 1);
    return 0;
}

int fy_pmi_put(fy_pmi_t *pmi, const char *key, const char *value)
{
    if (check_kv(pmi, key, value) != 0)
        return -1;
    return pmi->ops->put(pmi, key, value);
}

int fy_pmi_fence(fy_pmi_t *pmi)
{
    return pmi->ops->fence(pmi);
}

int fy_pmi_get(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len)
{
    if (check_kv(pmi, key, NULL) != 0)
        return -1;
    if (src < 0 || src >= pmi->size)
        return fy_pmi_fail("PMI: key '%s' asked of rank %d, outside 0..%d", key, src,
                           pmi->size - 1);
    return pmi->ops->get(pmi, src, key, value, len);
}

int fy_pmi_process_mapping(fy_pmi_t *pmi, int *host_of, int size)
{
    return pmi->ops->mapping(pmi, host_of, size);
}

void fy_pmi_abort(fy_pmi_t *pmi, int code, const char *msg)
{
    /* The launcher kills us when it gets the request; what we printed must be out by then. */
    fflush(NULL);
    if (pmi != NULL)
        pmi->ops->abort(pmi, code, msg);
    _exit(code);
}

int fy_pmi_finalize(fy_pmi_t *pmi)
{
    int rc = pmi->ops->finalize(pmi);
    if (pmi->fd >= 0)
        close(pmi->fd);
    fy_pmi_linebuf_fini(&pmi->in);
    free(pmi);
    return rc;
}
