/* The library's PMI-1 client (see fy_pmi.h for the contract).
 *
 * Every request is answered by exactly one reply line, so the client is a plain blocking
 * request/response loop over PMI_FD; the only exception is abort, which the launcher answers by
 * killing us.
 */
#include "fy_pmi.h"
#include "pmi_kvs.h"
#include "pmi_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KVSNAME_MAX 256

struct fy_pmi {
    int fd; /* -1: singleton */
    int rank;
    int size;
    int appnum;
    int keylen_max; /* the launcher's limits; PMI-1 counts the NUL in them */
    int vallen_max;
    char wire_kvsname[KVSNAME_MAX]; /* as the launcher spells it, for requests */
    char kvsname[KVSNAME_MAX];      /* sanitized, for file names */
    fy_pmi_linebuf_t in;
    char reply[FY_PMI_WIRE_MAX_LINE + 1];
    fy_pmi_msg_t msg;
    fy_pmi_kvs_t local; /* singleton only */
};

static char last_error[256];

const char *fy_pmi_last_error(void)
{
    return last_error;
}

__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return -1;
}

static void sanitize(char *dst, const char *src, size_t len)
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

/* Sends one request line and reads the reply, which must be `cmd=<expect>`. On success the
 * parsed reply is in pmi->msg. */
static int transact(fy_pmi_t *pmi, const char *request, const char *expect)
{
    if (fy_pmi_wire_write(pmi->fd, request, strlen(request)) != 0)
        return fail("PMI: cannot send to the launcher (fd %d): %s", pmi->fd, strerror(errno));
    char *line;
    while ((line = fy_pmi_linebuf_next(&pmi->in)) == NULL) {
        ssize_t n = fy_pmi_linebuf_fill(&pmi->in, pmi->fd, 0);
        if (n == 0)
            return fail("PMI: the launcher closed the connection (waiting for %s)", expect);
        if (n < 0)
            return fail("PMI: cannot read from the launcher: %s", strerror(errno));
    }
    /* Keep a copy: the line buffer may move under a later fill. */
    snprintf(pmi->reply, sizeof(pmi->reply), "%s", line);
    if (fy_pmi_wire_parse(pmi->reply, &pmi->msg) != 0)
        return fail("PMI: malformed reply to %s", expect);
    const char *cmd = fy_pmi_wire_get(&pmi->msg, "cmd");
    if (cmd == NULL || strcmp(cmd, expect) != 0)
        return fail("PMI: expected cmd=%s from the launcher, got '%s'", expect, cmd ? cmd : "");
    return 0;
}

/* Fails unless the reply carries rc=0 (a missing rc counts as success, as old servers omit it). */
static int check_rc(fy_pmi_t *pmi, const char *what)
{
    int rc = 0;
    const char *s = fy_pmi_wire_get(&pmi->msg, "rc");
    if (s != NULL && (fy_pmi_wire_get_int(&pmi->msg, "rc", &rc) != 0 || rc != 0)) {
        const char *why = fy_pmi_wire_get(&pmi->msg, "msg");
        return fail("PMI: %s failed (rc=%s%s%s)", what, s, why ? ", " : "", why ? why : "");
    }
    return 0;
}

static int env_int(const char *name, int *val_p)
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

static int init_singleton(fy_pmi_t *pmi)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* pid plus time: unique on this host even after pid reuse. */
    snprintf(pmi->wire_kvsname, sizeof(pmi->wire_kvsname), "fys%ldx%lx%lx", (long)getpid(),
             (unsigned long)ts.tv_sec, (unsigned long)ts.tv_nsec);
    sanitize(pmi->kvsname, pmi->wire_kvsname, sizeof(pmi->kvsname));
    fy_pmi_kvs_init(&pmi->local);
    pmi->rank = 0;
    pmi->size = 1;
    pmi->appnum = 0;
    pmi->keylen_max = FY_PMI_MAX_KEY;
    pmi->vallen_max = FY_PMI_MAX_VAL;
    return 0;
}

static int init_connected(fy_pmi_t *pmi)
{
    if (fcntl(pmi->fd, F_GETFD) < 0)
        return fail("PMI: PMI_FD=%d is not an open file descriptor", pmi->fd);
    /* Programs the rank runs (system(), popen()) must not inherit our launcher connection. */
    fcntl(pmi->fd, F_SETFD, FD_CLOEXEC);

    if (transact(pmi, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init") != 0 ||
        check_rc(pmi, "init") != 0)
        return -1;
    /* Rank and size come from the environment (Hydra's way); our launcher also puts them in
     * the init reply, which covers launchers that only do that. */
    if (env_int("PMI_RANK", &pmi->rank) != 0 &&
        fy_pmi_wire_get_int(&pmi->msg, "rank", &pmi->rank) != 0)
        return fail("PMI: the launcher gave no rank (PMI_RANK is not set)");
    if (env_int("PMI_SIZE", &pmi->size) != 0 &&
        fy_pmi_wire_get_int(&pmi->msg, "size", &pmi->size) != 0)
        return fail("PMI: the launcher gave no size (PMI_SIZE is not set)");
    if (pmi->size < 1 || pmi->rank >= pmi->size)
        return fail("PMI: rank %d out of range for size %d", pmi->rank, pmi->size);

    /* Hydra expects get_maxes before anything else; the limits themselves are ours. */
    if (transact(pmi, "cmd=get_maxes\n", "maxes") != 0 || check_rc(pmi, "get_maxes") != 0)
        return -1;
    /* Hydra silently truncates longer values, so we check its limits (and keep ours, which
     * count the NUL like PMI-1 does, so code that works as a singleton works launched). */
    if (fy_pmi_wire_get_int(&pmi->msg, "keylen_max", &pmi->keylen_max) != 0 ||
        pmi->keylen_max > FY_PMI_MAX_KEY)
        pmi->keylen_max = FY_PMI_MAX_KEY;
    if (fy_pmi_wire_get_int(&pmi->msg, "vallen_max", &pmi->vallen_max) != 0 ||
        pmi->vallen_max > FY_PMI_MAX_VAL)
        pmi->vallen_max = FY_PMI_MAX_VAL;
    if (transact(pmi, "cmd=get_appnum\n", "appnum") != 0 || check_rc(pmi, "get_appnum") != 0)
        return -1;
    if (fy_pmi_wire_get_int(&pmi->msg, "appnum", &pmi->appnum) != 0)
        pmi->appnum = 0;
    if (transact(pmi, "cmd=get_my_kvsname\n", "my_kvsname") != 0 ||
        check_rc(pmi, "get_my_kvsname") != 0)
        return -1;
    const char *name = fy_pmi_wire_get(&pmi->msg, "kvsname");
    if (name == NULL || *name == '\0' || strlen(name) >= sizeof(pmi->wire_kvsname))
        return fail("PMI: the launcher sent no usable kvsname");
    strcpy(pmi->wire_kvsname, name);
    sanitize(pmi->kvsname, name, sizeof(pmi->kvsname));
    return 0;
}

int fy_pmi_init(fy_pmi_t **pmi_p)
{
    fy_pmi_t *pmi = calloc(1, sizeof(*pmi));
    if (pmi == NULL)
        return fail("PMI: out of memory");
    fy_pmi_linebuf_init(&pmi->in);

    int rc;
    const char *fd = getenv("PMI_FD");
    if (fd == NULL || *fd == '\0') {
        pmi->fd = -1;
        rc = init_singleton(pmi);
    } else if (env_int("PMI_FD", &pmi->fd) != 0) {
        rc = fail("PMI: PMI_FD='%s' is not a file descriptor number", fd);
    } else {
        rc = init_connected(pmi);
    }
    if (rc != 0) {
        fy_pmi_linebuf_fini(&pmi->in);
        free(pmi);
        return -1;
    }
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

int fy_pmi_is_singleton(const fy_pmi_t *pmi)
{
    return pmi->fd < 0;
}

const char *fy_pmi_kvsname(const fy_pmi_t *pmi)
{
    return pmi->kvsname;
}

static int check_kv(const fy_pmi_t *pmi, const char *key, const char *value)
{
    if (strlen(key) >= (size_t)pmi->keylen_max || !fy_pmi_wire_token_ok(key))
        return fail("PMI: invalid key '%.80s' (1-%d printable characters, no space or '=')", key,
                    pmi->keylen_max - 1);
    if (value != NULL && (strlen(value) >= (size_t)pmi->vallen_max || !fy_pmi_wire_token_ok(value)))
        return fail("PMI: invalid value for key '%s' (1-%d printable characters, no space or '=')",
                    key, pmi->vallen_max - 1);
    return 0;
}

int fy_pmi_put(fy_pmi_t *pmi, const char *key, const char *value)
{
    if (check_kv(pmi, key, value) != 0)
        return -1;
    if (pmi->fd < 0) {
        if (fy_pmi_kvs_put(&pmi->local, key, value) != 0)
            return fail("PMI: out of memory storing key '%s'", key);
        return 0;
    }
    char req[FY_PMI_WIRE_MAX_LINE];
    snprintf(req, sizeof(req), "cmd=put kvsname=%s key=%s value=%s\n", pmi->wire_kvsname, key,
             value);
    if (transact(pmi, req, "put_result") != 0)
        return -1;
    return check_rc(pmi, "put");
}

int fy_pmi_fence(fy_pmi_t *pmi)
{
    if (pmi->fd < 0)
        return 0;
    /* PMI-1 puts are sent as they happen, so the commit is local and the fence is the barrier. */
    return transact(pmi, "cmd=barrier_in\n", "barrier_out") != 0 ? -1 : check_rc(pmi, "barrier");
}

int fy_pmi_get(fy_pmi_t *pmi, const char *key, char *value, size_t len)
{
    if (check_kv(pmi, key, NULL) != 0)
        return -1;
    const char *v;
    if (pmi->fd < 0) {
        v = fy_pmi_kvs_get(&pmi->local, key);
        if (v == NULL)
            return fail("PMI: key '%s' not found", key);
    } else {
        char req[FY_PMI_WIRE_MAX_LINE];
        snprintf(req, sizeof(req), "cmd=get kvsname=%s key=%s\n", pmi->wire_kvsname, key);
        if (transact(pmi, req, "get_result") != 0)
            return -1;
        int rc = -1;
        v = fy_pmi_wire_get(&pmi->msg, "value");
        if (fy_pmi_wire_get_int(&pmi->msg, "rc", &rc) != 0 || rc != 0 || v == NULL)
            return fail("PMI: key '%s' not found", key);
    }
    if (strlen(v) >= len)
        return fail("PMI: value of key '%s' (%zu bytes) does not fit in %zu", key, strlen(v), len);
    strcpy(value, v);
    return 0;
}

void fy_pmi_abort(fy_pmi_t *pmi, int code, const char *msg)
{
    /* The launcher kills us when it gets the request; what we printed must be out by then. */
    fflush(NULL);
    if (pmi != NULL && pmi->fd >= 0) {
        char req[1024];
        int n = snprintf(req, sizeof(req), "cmd=abort exitcode=%d", code);
        if (msg != NULL && *msg != '\0' && n > 0 && (size_t)n < sizeof(req) - 16) {
            n += snprintf(req + n, sizeof(req) - (size_t)n - 1, " error_msg=%s", msg);
            if ((size_t)n > sizeof(req) - 2)
                n = (int)sizeof(req) - 2;
            for (char *p = req; p < req + n; p++) {
                if (*p == '\n' || *p == '\r')
                    *p = ' '; /* one line on the wire */
            }
        }
        req[n++] = '\n';
        if (fy_pmi_wire_write(pmi->fd, req, (size_t)n) == 0) {
            /* Give the launcher time to kill the job with everyone's output intact; exit by
             * ourselves if it closes the connection or has not acted within 5 s. */
            struct pollfd pfd = {.fd = pmi->fd, .events = POLLIN};
            for (int waited = 0; waited < 10; waited++) {
                if (poll(&pfd, 1, 500) > 0) {
                    char c;
                    if (read(pmi->fd, &c, 1) <= 0)
                        break;
                }
            }
        }
    }
    _exit(code);
}

int fy_pmi_finalize(fy_pmi_t *pmi)
{
    int rc = 0;
    if (pmi->fd >= 0) {
        rc = transact(pmi, "cmd=finalize\n", "finalize_ack");
        close(pmi->fd);
    } else {
        fy_pmi_kvs_fini(&pmi->local);
    }
    fy_pmi_linebuf_fini(&pmi->in);
    free(pmi);
    return rc;
}
