/* The PMI-1 backend: the line protocol Ferry's mpiexec and Hydra serve on PMI_FD.
 *
 * Every request is answered by exactly one reply line, so the client is a plain blocking
 * request/response loop; the only exception is abort, which the launcher answers by killing us.
 */
#include "pmi_impl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sends one request line and reads the reply, which must be `cmd=<expect>`; waits at most
 * `limit_ms` for it when positive. On success the parsed reply is in pmi->msg. */
static int transact_within(fy_pmi_t *pmi, const char *request, const char *expect, int limit_ms)
{
    if (fy_pmi_wire_write(pmi->fd, request, strlen(request)) != 0)
        return fy_pmi_fail("PMI: cannot send to the launcher (PMI_FD=%d): %s", pmi->fd,
                           strerror(errno));
    char *line;
    while ((line = fy_pmi_linebuf_next(&pmi->in)) == NULL) {
        if (limit_ms > 0 && fy_pmi_wait_readable(pmi->fd, limit_ms) == 0)
            return fy_pmi_fail("PMI: no answer on PMI_FD=%d within %d s (waiting for %s; is "
                               "PMI_FD left over in the environment?)",
                               pmi->fd, limit_ms / 1000, expect);
        ssize_t n = fy_pmi_linebuf_fill(&pmi->in, pmi->fd, 0);
        if (n == 0)
            return fy_pmi_fail("PMI: the launcher closed the connection (waiting for %s)",
                               expect);
        if (n < 0)
            return fy_pmi_fail("PMI: cannot read from the launcher: %s", strerror(errno));
    }
    /* Keep a copy: the line buffer may move under a later fill. */
    snprintf(pmi->reply, sizeof(pmi->reply), "%s", line);
    if (fy_pmi_wire_parse(pmi->reply, &pmi->msg) != 0)
        return fy_pmi_fail("PMI: malformed reply to %s", expect);
    const char *cmd = fy_pmi_wire_get(&pmi->msg, "cmd");
    if (cmd == NULL || strcmp(cmd, expect) != 0)
        return fy_pmi_fail("PMI: expected cmd=%s from the launcher, got '%s'", expect,
                           cmd ? cmd : "");
    return 0;
}

static int transact(fy_pmi_t *pmi, const char *request, const char *expect)
{
    return transact_within(pmi, request, expect, 0);
}

/* Fails unless the reply carries rc=0 (a missing rc counts as success, as old servers omit it). */
static int check_rc(fy_pmi_t *pmi, const char *what)
{
    int rc = 0;
    const char *s = fy_pmi_wire_get(&pmi->msg, "rc");
    if (s != NULL && (fy_pmi_wire_get_int(&pmi->msg, "rc", &rc) != 0 || rc != 0)) {
        const char *why = fy_pmi_wire_get(&pmi->msg, "msg");
        return fy_pmi_fail("PMI: %s failed (rc=%s%s%s)", what, s, why ? ", " : "",
                           why ? why : "");
    }
    return 0;
}

static int pmi1_put(fy_pmi_t *pmi, const char *key, const char *value)
{
    char req[FY_PMI_WIRE_MAX_LINE];
    snprintf(req, sizeof(req), "cmd=put kvsname=%s key=%s value=%s\n", pmi->wire_kvsname, key,
             value);
    if (transact(pmi, req, "put_result") != 0)
        return -1;
    return check_rc(pmi, "put");
}

static int pmi1_fence(fy_pmi_t *pmi)
{
    /* PMI-1 puts are sent as they happen, so the commit is local and the fence is the barrier. */
    return transact(pmi, "cmd=barrier_in\n", "barrier_out") != 0 ? -1 : check_rc(pmi, "barrier");
}

static int pmi1_get(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len)
{
    (void)src;
    char req[FY_PMI_WIRE_MAX_LINE];
    snprintf(req, sizeof(req), "cmd=get kvsname=%s key=%s\n", pmi->wire_kvsname, key);
    if (transact(pmi, req, "get_result") != 0)
        return -1;
    int rc = -1;
    const char *v = fy_pmi_wire_get(&pmi->msg, "value");
    if (fy_pmi_wire_get_int(&pmi->msg, "rc", &rc) != 0 || rc != 0)
        v = NULL;
    return fy_pmi_copy_value("key", key, v, value, len);
}

/* The launcher's PMI_process_mapping key (Ferry's mpiexec and Hydra both publish it). */
static int pmi1_mapping(fy_pmi_t *pmi, int *host_of, int size)
{
    char v[FY_PMI_MAX_VAL];
    if (pmi1_get(pmi, 0, "PMI_process_mapping", v, sizeof v) != 0)
        return -1;
    return fy_pmi_mapping_parse(v, host_of, size);
}

static void pmi1_abort(fy_pmi_t *pmi, int code, const char *msg)
{
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

static int pmi1_finalize(fy_pmi_t *pmi)
{
    return transact(pmi, "cmd=finalize\n", "finalize_ack");
}

static const fy_pmi_ops_t pmi1_ops = {
    .name = "PMI-1",
    .put = pmi1_put,
    .fence = pmi1_fence,
    .get = pmi1_get,
    .mapping = pmi1_mapping,
    .abort = pmi1_abort,
    .finalize = pmi1_finalize,
};

int fy_pmi1_init(fy_pmi_t *pmi)
{
    if (fy_pmi_check_fd(pmi->fd) != 0)
        return -1;
    if (transact_within(pmi, "cmd=init pmi_version=1 pmi_subversion=1\n", "response_to_init",
                        fy_pmi_first_reply_ms()) != 0 ||
        check_rc(pmi, "init") != 0)
        return -1;
    /* Rank and size come from the environment (Hydra's way); our launcher also puts them in
     * the init reply, which covers launchers that only do that. */
    if (fy_pmi_env_int("PMI_RANK", &pmi->rank) != 0 &&
        fy_pmi_wire_get_int(&pmi->msg, "rank", &pmi->rank) != 0)
        return fy_pmi_fail("PMI: the launcher gave no rank (PMI_RANK is not set)");
    if (fy_pmi_env_int("PMI_SIZE", &pmi->size) != 0 &&
        fy_pmi_wire_get_int(&pmi->msg, "size", &pmi->size) != 0)
        return fy_pmi_fail("PMI: the launcher gave no size (PMI_SIZE is not set)");
    if (pmi->size < 1 || pmi->rank >= pmi->size)
        return fy_pmi_fail("PMI: rank %d out of range for size %d", pmi->rank, pmi->size);

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
    if (transact(pmi, "cmd=get_universe_size\n", "universe_size") == 0 &&
        fy_pmi_wire_get_int(&pmi->msg, "size", &pmi->universe) != 0)
        pmi->universe = 0;
    if (transact(pmi, "cmd=get_my_kvsname\n", "my_kvsname") != 0 ||
        check_rc(pmi, "get_my_kvsname") != 0)
        return -1;
    const char *name = fy_pmi_wire_get(&pmi->msg, "kvsname");
    if (name == NULL || *name == '\0' || strlen(name) >= sizeof(pmi->wire_kvsname))
        return fy_pmi_fail("PMI: the launcher sent no usable kvsname");
    strcpy(pmi->wire_kvsname, name);
    fy_pmi_sanitize(pmi->kvsname, name, sizeof(pmi->kvsname));
    pmi->ops = &pmi1_ops;
    return 0;
}
