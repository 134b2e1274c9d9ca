/* The PMI-2 backend: the protocol Slurm's mpi/pmi2 plugin and Hydra serve on PMI_FD.
 *
 * The connection opens in PMI-1's syntax ("cmd=init pmi_version=2 ...", one line each way);
 * after that every message, both ways, is a 6-character decimal length followed by that many
 * bytes of "cmd=<name>;key=value;...;". Every request has one response except abort.
 *
 * What PMI-2 gives beyond PMI-1: the job's layout as a job attribute (PMI_process_mapping, so
 * ranks need not exchange their hosts), and a fence that hands every rank the whole key-value
 * space at once (Slurm's stepds gather it in a tree), so gets after it are answered locally.
 */
#include "pmi_impl.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HDR 6

/* Reads exactly len bytes; 0, or -1 with the reason set. */
static int read_full(fy_pmi_t *pmi, char *buf, size_t len, const char *expect)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(pmi->fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            return fy_pmi_fail("PMI-2: the launcher closed the connection (waiting for %s)",
                               expect);
        if (n < 0)
            return fy_pmi_fail("PMI-2: cannot read from the launcher: %s", strerror(errno));
        got += (size_t)n;
    }
    return 0;
}

/* Splits "cmd=x;k=v;...;" into pmi->msg, in place. ";;" stands for a ';' inside a value in the
 * protocol's description; the servers we know never send one, and we undo it anyway. */
static int parse(fy_pmi_t *pmi, char *s)
{
    fy_pmi_msg_t *m = &pmi->msg;
    m->n = 0;
    while (*s != '\0') {
        if (m->n == FY_PMI_WIRE_MAX_PAIRS)
            return -1;
        char *key = s, *eq = NULL, *out = s;
        for (;;) {
            if (*s == '\0')
                break;
            if (*s == ';' && s[1] == ';') {
                *out++ = ';';
                s += 2;
                continue;
            }
            if (*s == ';') {
                s++;
                break;
            }
            if (*s == '=' && eq == NULL)
                eq = out;
            *out++ = *s++;
        }
        *out = '\0';
        if (*key == '\0')
            continue;
        if (eq != NULL)
            *eq = '\0';
        m->pair[m->n].key = key;
        m->pair[m->n].val = eq != NULL ? eq + 1 : "";
        m->n++;
    }
    return 0;
}

/* Sends "cmd=<cmd>;" plus the already formatted fields (each "k=v;"), reads the response and
 * checks it is `<cmd>-response` with rc=0. */
static int transact(fy_pmi_t *pmi, const char *cmd, const char *fields)
{
    char out[FY_PMI_WIRE_MAX_LINE];
    int body = snprintf(out + HDR, sizeof(out) - HDR, "cmd=%s;%s", cmd, fields);
    if (body < 0 || (size_t)body >= sizeof(out) - HDR - 1)
        return fy_pmi_fail("PMI-2: request %s too long", cmd);
    char hdr[HDR + 1];
    snprintf(hdr, sizeof hdr, "%-6d", body);
    memcpy(out, hdr, HDR);
    if (fy_pmi_wire_write(pmi->fd, out, (size_t)body + HDR) != 0)
        return fy_pmi_fail("PMI-2: cannot send to the launcher (PMI_FD=%d): %s", pmi->fd,
                           strerror(errno));
    char expect[64];
    snprintf(expect, sizeof expect, "%s-response", cmd);
    if (read_full(pmi, hdr, HDR, expect) != 0)
        return -1;
    hdr[HDR] = '\0';
    char *end;
    long len = strtol(hdr, &end, 10);
    while (*end == ' ')
        end++;
    if (*end != '\0' || len <= 0 || len > FY_PMI_WIRE_MAX_LINE)
        return fy_pmi_fail("PMI-2: malformed length '%s' from the launcher (waiting for %s)", hdr,
                           expect);
    if (read_full(pmi, pmi->reply, (size_t)len, expect) != 0)
        return -1;
    pmi->reply[len] = '\0';
    if (parse(pmi, pmi->reply) != 0)
        return fy_pmi_fail("PMI-2: malformed %s", expect);
    const char *got = fy_pmi_wire_get(&pmi->msg, "cmd");
    if (got == NULL || strcmp(got, expect) != 0)
        return fy_pmi_fail("PMI-2: expected %s from the launcher, got '%s'", expect,
                           got ? got : "");
    int rc = 0;
    const char *s = fy_pmi_wire_get(&pmi->msg, "rc");
    if (s != NULL && (fy_pmi_wire_get_int(&pmi->msg, "rc", &rc) != 0 || rc != 0)) {
        const char *why = fy_pmi_wire_get(&pmi->msg, "errmsg");
        return fy_pmi_fail("PMI-2: %s failed (rc=%s%s%s)", cmd, s, why ? ", " : "",
                           why ? why : "");
    }
    return 0;
}

/* found=TRUE plus a value that fits; else -1 with the reason. */
static int found_value(fy_pmi_t *pmi, const char *what, const char *key, char *value, size_t len)
{
    const char *found = fy_pmi_wire_get(&pmi->msg, "found");
    const char *v = fy_pmi_wire_get(&pmi->msg, "value");
    if (found == NULL || strcmp(found, "TRUE") != 0)
        v = NULL;
    return fy_pmi_copy_value(what, key, v, value, len);
}

static int pmi2_put(fy_pmi_t *pmi, const char *key, const char *value)
{
    char f[FY_PMI_WIRE_MAX_LINE];
    snprintf(f, sizeof f, "key=%s;value=%s;", key, value);
    return transact(pmi, "kvs-put", f);
}

static int pmi2_fence(fy_pmi_t *pmi)
{
    return transact(pmi, "kvs-fence", "");
}

static int pmi2_get(fy_pmi_t *pmi, int src, const char *key, char *value, size_t len)
{
    char f[FY_PMI_WIRE_MAX_LINE];
    /* srcid: who put it, a hint servers may use to fetch from that rank's node directly. */
    snprintf(f, sizeof f, "srcid=%d;key=%s;", src, key);
    if (transact(pmi, "kvs-get", f) != 0)
        return -1;
    return found_value(pmi, "key", key, value, len);
}

static int jobattr(fy_pmi_t *pmi, const char *key, char *value, size_t len)
{
    char f[FY_PMI_WIRE_MAX_LINE];
    snprintf(f, sizeof f, "key=%s;", key);
    if (transact(pmi, "info-getjobattr", f) != 0)
        return -1;
    return found_value(pmi, "job attribute", key, value, len);
}

static int pmi2_mapping(fy_pmi_t *pmi, int *host_of, int size)
{
    char v[FY_PMI_MAX_VAL];
    if (jobattr(pmi, "PMI_process_mapping", v, sizeof v) != 0)
        return -1;
    return fy_pmi_mapping_parse(v, host_of, size);
}

static void pmi2_abort(fy_pmi_t *pmi, int code, const char *msg)
{
    char text[768];
    snprintf(text, sizeof text, "%s", msg != NULL && *msg != '\0' ? msg : "MPI_Abort");
    for (char *p = text; *p; p++)
        if (*p == ';' || *p == '\n' || *p == '\r')
            *p = *p == ';' ? ',' : ' '; /* one field on the wire */
    char out[1024];
    int body = snprintf(out + HDR, sizeof(out) - HDR, "cmd=abort;isworld=TRUE;msg=%s;", text);
    char hdr[HDR + 1];
    snprintf(hdr, sizeof hdr, "%-6d", body);
    memcpy(out, hdr, HDR);
    if (fy_pmi_wire_write(pmi->fd, out, (size_t)body + HDR) == 0) {
        /* As with PMI-1: give the launcher 5 s to end the job with everyone's output, exit by
         * ourselves when it closes the connection or does not act. A server that answers
         * instead (Hydra's PMI-2 does not know abort and says so) will not act: our exit with
         * the code is then what ends the job. */
        struct pollfd pfd = {.fd = pmi->fd, .events = POLLIN};
        for (int waited = 0; waited < 10; waited++)
            if (poll(&pfd, 1, 500) > 0)
                break;
    }
    (void)code; /* PMI-2's abort carries no exit status: the caller exits with it */
}

static int pmi2_finalize(fy_pmi_t *pmi)
{
    return transact(pmi, "finalize", "");
}

static const fy_pmi_ops_t pmi2_ops = {
    .name = "PMI-2",
    .put = pmi2_put,
    .fence = pmi2_fence,
    .get = pmi2_get,
    .mapping = pmi2_mapping,
    .abort = pmi2_abort,
    .finalize = pmi2_finalize,
};

/* The PMI-1-syntax opening: one line out, one line back, read a byte at a time so that nothing
 * of what follows is taken from the socket. */
static int hello(fy_pmi_t *pmi, int *declined)
{
    *declined = 0;
    static const char req[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    if (fy_pmi_wire_write(pmi->fd, req, sizeof req - 1) != 0)
        return fy_pmi_fail("PMI-2: cannot send to the launcher (PMI_FD=%d): %s", pmi->fd,
                           strerror(errno));
    size_t n = 0;
    for (;;) {
        if (fy_pmi_wait_readable(pmi->fd, fy_pmi_first_reply_ms()) == 0)
            return fy_pmi_fail("PMI-2: no answer on PMI_FD=%d within %d s (is PMI_FD left over "
                               "in the environment?)",
                               pmi->fd, fy_pmi_first_reply_ms() / 1000);
        if (read_full(pmi, pmi->reply + n, 1, "response_to_init") != 0)
            return -1;
        if (pmi->reply[n] == '\n')
            break;
        if (++n >= 1024)
            return fy_pmi_fail("PMI-2: the launcher's answer to init is not a line");
    }
    pmi->reply[n] = '\0';
    if (fy_pmi_wire_parse(pmi->reply, &pmi->msg) != 0)
        return fy_pmi_fail("PMI-2: malformed answer to init");
    const char *cmd = fy_pmi_wire_get(&pmi->msg, "cmd");
    int rc = 0, ver = 0;
    if (cmd == NULL || strcmp(cmd, "response_to_init") != 0)
        return fy_pmi_fail("PMI-2: expected cmd=response_to_init, got '%s'", cmd ? cmd : "");
    if ((fy_pmi_wire_get_int(&pmi->msg, "rc", &rc) == 0 && rc != 0) ||
        (fy_pmi_wire_get_int(&pmi->msg, "pmi_version", &ver) == 0 && ver != 2)) {
        *declined = 1;
        return fy_pmi_fail("PMI-2: the launcher declined PMI version 2 (rc=%d, version %d); "
                           "unset PMI_VERSION to speak PMI-1",
                           rc, ver);
    }
    return 0;
}

int fy_pmi2_init(fy_pmi_t *pmi, int strict)
{
    int declined;
    if (fy_pmi_check_fd(pmi->fd) != 0)
        return -1;
    if (hello(pmi, &declined) != 0)
        return declined && !strict ? fy_pmi1_init(pmi) : -1;
    /* Our rank, as the launcher told it in the environment: fullinit ties the connection to it
     * (Slurm's PMI_RANK; the older PMI_ID). */
    char f[128] = "";
    int r;
    /* Slurm's slurmstepd (22.05) refuses a fullinit without the job id it put in PMI_JOBID
     * ("pmijobid missing in fullinit command"); other servers ignore the field. */
    const char *jid = getenv("PMI_JOBID");
    if (jid != NULL && *jid != '\0' && strlen(jid) < 64)
        snprintf(f, sizeof f, "pmijobid=%s;", jid);
    if (fy_pmi_env_int("PMI_RANK", &r) == 0 || fy_pmi_env_int("PMI_ID", &r) == 0)
        snprintf(f + strlen(f), sizeof f - strlen(f), "pmirank=%d;", r);
    strcat(f, "threaded=FALSE;");
    if (transact(pmi, "fullinit", f) != 0)
        return -1;
    if (fy_pmi_wire_get_int(&pmi->msg, "rank", &pmi->rank) != 0 ||
        fy_pmi_wire_get_int(&pmi->msg, "size", &pmi->size) != 0)
        return fy_pmi_fail("PMI-2: the launcher's fullinit-response has no rank or size");
    if (pmi->size < 1 || pmi->rank >= pmi->size)
        return fy_pmi_fail("PMI-2: rank %d out of range for size %d", pmi->rank, pmi->size);
    if (fy_pmi_wire_get_int(&pmi->msg, "appnum", &pmi->appnum) != 0)
        pmi->appnum = 0;
    if (transact(pmi, "job-getid", "") != 0)
        return -1;
    const char *id = fy_pmi_wire_get(&pmi->msg, "jobid");
    if (id == NULL || *id == '\0' || strlen(id) >= sizeof(pmi->wire_kvsname))
        return fy_pmi_fail("PMI-2: the launcher sent no usable job id");
    strcpy(pmi->wire_kvsname, id);
    fy_pmi_sanitize(pmi->kvsname, id, sizeof(pmi->kvsname));
    pmi->ops = &pmi2_ops;
    char v[64];
    if (jobattr(pmi, "universeSize", v, sizeof v) == 0)
        pmi->universe = atoi(v);
    return 0;
}
