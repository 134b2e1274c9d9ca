/* The proxies below mpiexec, or below a proxy relaying for others (docs/DESIGN.md, "Launching
 * across hosts"): starting them through the agent with the secret on its stdin, the handshake
 * on every connection, delivering frames (directly, or wrapped in RELAY_DOWN through the tree),
 * keeping them alive, and telling when one is lost. mpiexec uses it through launch.c; a proxy
 * through fy_mpx_relay_* below. */
#include "launch.h"

#include "fy_sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define AUTH_MS 1000        /* a connection proves it knows the secret within this */
#define PING_MS 1000        /* keepalive period */
#define DEAD_MS 5000        /* a proxy silent this long is lost */
#define AGENT_GRACE_MS 2000 /* agents left after the last proxy is done get this long */

/* ---- Hosts lost ---- */

void fy_mpx_dn_host_close(host_t *h)
{
    if (h->conn.fd >= 0)
        close(h->conn.fd);
    h->conn.fd = -1;
    fy_px_buf_free(&h->conn.in);
    fy_px_buf_free(&h->conn.out);
}

int fy_mpx_dn_is_below(const launch_t *L, int i, int top)
{
    for (int j = L->h[i].parent; j >= 0; j = L->h[j].parent)
        if (j == top)
            return 1;
    return 0;
}

/* Host h (and, in mpiexec, every host below it) is gone; msg is the one line about it. */
void fy_mpx_dn_lose(launch_t *L, host_t *h, const char *msg)
{
    if (h->state != H_STARTING && h->state != H_UP)
        return;
    h->state = H_FAILED;
    fy_mpx_dn_host_close(h);
    if (L->relay) {
        fy_px_buf_t b = {0};
        size_t f = fy_px_frame_begin(&b, FY_PX_RELAY_UP);
        fy_px_put_u32(&b, (uint32_t)h->index);
        size_t g = fy_px_frame_begin(&b, FY_PX_LOST);
        fy_px_put_str(&b, msg);
        fy_px_frame_end(&b, g);
        fy_px_frame_end(&b, f);
        L->up(L->up_ctx, b.d, b.len);
        fy_px_buf_free(&b);
        return;
    }
    int top = (int)(h - L->h);
    for (int i = 0; i < L->nh; i++) {
        if ((L->h[i].state == H_STARTING || L->h[i].state == H_UP) && fy_mpx_dn_is_below(L, i, top)) {
            L->h[i].state = H_FAILED;
            fy_mpx_dn_host_close(&L->h[i]);
        }
    }
    fy_mpx_job_fail(L->job, FAIL_STATUS, "%s", msg);
}

__attribute__((format(printf, 3, 4))) static void lost(launch_t *L, host_t *h, const char *fmt,
                                                       ...)
{
    char why[ERRBUF + 256], msg[ERRBUF + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "host %s: %s", h->name, why);
    fy_mpx_dn_lose(L, h, msg);
}

static void host_flush(launch_t *L, host_t *h)
{
    if (h->conn.fd >= 0 && fy_px_conn_flush(&h->conn) != 0)
        lost(L, h, "proxy connection lost");
}

/* ---- Sending: frames are built in L->scratch, then delivered ---- */

fy_px_buf_t *fy_mpx_dn_frame_begin(launch_t *L, int type, size_t *start)
{
    L->scratch.off = L->scratch.len = 0;
    *start = fy_px_frame_begin(&L->scratch, type);
    return &L->scratch;
}

/* The frame in scratch to host h: directly, or through the proxies above it. */
void fy_mpx_dn_send_frame(launch_t *L, host_t *h)
{
    host_t *v = L->relay ? h : &L->h[h->via];
    if (v->state != H_UP || v->conn.fd < 0)
        return;
    if (v == h) {
        fy_px_put(&v->conn.out, L->scratch.d, L->scratch.len);
    } else {
        size_t f = fy_px_frame_begin(&v->conn.out, FY_PX_RELAY_DOWN);
        fy_px_put_u32(&v->conn.out, (uint32_t)h->index);
        fy_px_put(&v->conn.out, L->scratch.d, L->scratch.len);
        fy_px_frame_end(&v->conn.out, f);
    }
    host_flush(L, v);
}

/* The frame in scratch to every host (mpiexec): each direct child, for its subtree. */
void fy_mpx_dn_send_all(launch_t *L)
{
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->parent >= 0 || h->state != H_UP || h->conn.fd < 0)
            continue;
        if (h->ndesc == 0) {
            fy_px_put(&h->conn.out, L->scratch.d, L->scratch.len);
        } else {
            size_t f = fy_px_frame_begin(&h->conn.out, FY_PX_RELAY_DOWN);
            fy_px_put_u32(&h->conn.out, FY_PX_ALL);
            fy_px_put(&h->conn.out, L->scratch.d, L->scratch.len);
            fy_px_frame_end(&h->conn.out, f);
        }
        host_flush(L, h);
    }
}

void fy_mpx_dn_send_signal(launch_t *L, int sig)
{
    fy_mpx_job_t *job = L->job;
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->state == H_STARTING && h->agent > 0)
            kill(h->agent, SIGTERM); /* not up yet: it never gets the job */
    }
    if (L->relay)
        return; /* mpiexec's SIGNAL reaches our children through us */
    long long grace = job->kill_at_ms - fy_mpx_now_ms();
    size_t f;
    fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_SIGNAL, &f);
    fy_px_put_u32(b, (uint32_t)sig);
    fy_px_put_u32(b, grace > 0 ? (uint32_t)grace : 0);
    fy_px_frame_end(b, f);
    fy_mpx_dn_send_all(L);
}

/* `mpiexec ... | head`: every rank writing to a dest without reader gets SIGPIPE, as on one
 * host. Sent when it happens, and to proxies that come up later. */
void fy_mpx_dn_send_broken(launch_t *L, host_t *h, int dest)
{
    size_t f;
    fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_BROKEN, &f);
    fy_px_put_u32(b, (uint32_t)dest);
    fy_px_frame_end(b, f);
    if (h != NULL)
        fy_mpx_dn_send_frame(L, h);
    else
        fy_mpx_dn_send_all(L);
}

/* A frame whose payload r is "u32 index, a whole frame": the inner frame's reader. */
static int unwrap(fy_px_reader_t *r, uint32_t *index, int *type, fy_px_reader_t *inner)
{
    *index = fy_px_get_u32(r);
    if (r->bad || r->left < 5)
        return -1;
    const uint8_t *p = r->p;
    uint32_t n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (n < 1 || (size_t)n + 4 != r->left)
        return -1;
    *type = p[4];
    *inner = (fy_px_reader_t){p + 5, n - 1, 0};
    return 0;
}

/* In a relay: a frame of child h goes up (wrapped, unless it is already a relayed one). */
static int relay_frame(launch_t *L, host_t *h, int type, fy_px_reader_t *r)
{
    const uint8_t *raw = r->p - 5;
    size_t rawlen = r->left + 5;
    if (type == FY_PX_PONG)
        return 0;
    if (type == FY_PX_RELAY_UP) {
        L->up(L->up_ctx, raw, rawlen);
        return 0;
    }
    fy_px_buf_t b = {0};
    size_t f = fy_px_frame_begin(&b, FY_PX_RELAY_UP);
    fy_px_put_u32(&b, (uint32_t)h->index);
    fy_px_put(&b, raw, rawlen);
    fy_px_frame_end(&b, f);
    L->up(L->up_ctx, b.d, b.len);
    fy_px_buf_free(&b);
    if (type == FY_PX_DONE) {
        h->state = H_DONE;
        fy_mpx_dn_host_close(h);
    }
    return 0;
}

static void host_input(launch_t *L, host_t *h)
{
    ssize_t n = fy_px_conn_fill(&h->conn);
    if (n == -2)
        return;
    if (n <= 0) {
        lost(L, h, n == 0 ? "proxy connection lost" : "proxy connection broken");
        return;
    }
    h->last_rx = fy_mpx_now_ms();
    int type, rc;
    fy_px_reader_t r;
    while (h->state == H_UP && (rc = fy_px_conn_next(&h->conn, &type, &r)) != 0) {
        if (rc > 0 && L->relay) {
            rc = relay_frame(L, h, type, &r) == 0;
        } else if (rc > 0 && type == FY_PX_RELAY_UP) {
            uint32_t idx;
            int itype;
            fy_px_reader_t inner;
            rc = unwrap(&r, &idx, &itype, &inner) == 0 && idx < (uint32_t)L->nh &&
                 L->h[idx].via == (int)(h - L->h) && (int)idx != (int)(h - L->h) &&
                 (L->h[idx].state != H_STARTING || itype == FY_PX_UP || itype == FY_PX_LOST);
            if (rc && (L->h[idx].state == H_STARTING || L->h[idx].state == H_UP))
                rc = fy_mpx_launch_on_frame(L, &L->h[idx], itype, &inner) == 0;
        } else if (rc > 0) {
            rc = fy_mpx_launch_on_frame(L, h, type, &r) == 0;
        }
        if (rc <= 0) {
            lost(L, h, "malformed message from the proxy");
            return;
        }
    }
}

/* ---- Connections in the handshake ---- */

void fy_mpx_dn_pend_drop(launch_t *L, int i, const char *why)
{
    pending_t *p = &L->pend[i];
    if (why != NULL)
        fprintf(stderr, FY_MPX_PROG ": dropped a connection from %s: %s\n", p->peer, why);
    if (p->conn.fd >= 0)
        close(p->conn.fd);
    fy_px_buf_free(&p->conn.in);
    fy_px_buf_free(&p->conn.out);
    L->pend[i] = L->pend[--L->npend];
}

static void peer_name(const struct sockaddr_storage *ss, char *out, size_t len)
{
    char a[INET6_ADDRSTRLEN] = "?";
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const void *)ss;
        inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
        snprintf(out, len, "%s:%d", a, ntohs(s4->sin_port));
    } else {
        const struct sockaddr_in6 *s6 = (const void *)ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
        snprintf(out, len, "[%s]:%d", a, ntohs(s6->sin6_port));
    }
}

static void on_accept(launch_t *L, int lfd)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        char peer[INET6_ADDRSTRLEN + 8];
        peer_name(&ss, peer, sizeof(peer));
        if (L->npend == PEND_MAX) {
            fprintf(stderr, FY_MPX_PROG ": dropped a connection from %s: too many connections "
                    "in the handshake\n", peer);
            close(fd);
            continue;
        }
        pending_t *p = &L->pend[L->npend++];
        *p = (pending_t){.conn = {.fd = fd}, .deadline = fy_mpx_now_ms() + AUTH_MS};
        snprintf(p->peer, sizeof(p->peer), "%s", peer);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        if (fy_px_secret_new(p->nonce) != 0) {
            fy_mpx_dn_pend_drop(L, L->npend - 1, "no random numbers for a nonce");
            continue;
        }
        fy_px_put(&p->conn.out, FY_PX_MAGIC, FY_PX_MAGIC_LEN);
        fy_px_put(&p->conn.out, p->nonce, FY_PX_NONCE_LEN);
        if (fy_px_conn_flush(&p->conn) != 0)
            fy_mpx_dn_pend_drop(L, L->npend - 1, "closed before the handshake");
    }
}

/* A host below a relay is connected there: from now on it gets frames. */
void fy_mpx_dn_host_up_below(launch_t *L, host_t *h)
{
    h->state = H_UP;
    if (L->job->terminating) {
        fy_mpx_dn_lose(L, h, "(the job ended before it started)"); /* quiet: the job is ending */
        return;
    }
    fy_mpx_launch_send_job(L, h);
}

static void host_up(launch_t *L, host_t *h, fy_px_conn_t *c)
{
    h->conn = *c;
    h->state = H_UP;
    h->last_rx = fy_mpx_now_ms();
    h->ping_at = h->last_rx + PING_MS;
    if (h->errlen > 0 && fwrite(h->err, 1, h->errlen, stderr) != h->errlen) {
        /* what the agent said on the way (warnings), passed on if we can */
    }
    h->errlen = 0;
    if (L->relay) {
        size_t f;
        fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_UP, &f);
        fy_px_frame_end(b, f);
        fy_px_buf_t w = {0};
        size_t g = fy_px_frame_begin(&w, FY_PX_RELAY_UP);
        fy_px_put_u32(&w, (uint32_t)h->index);
        fy_px_put(&w, b->d, b->len);
        fy_px_frame_end(&w, g);
        L->up(L->up_ctx, w.d, w.len);
        fy_px_buf_free(&w);
        return;
    }
    if (L->job->terminating) {
        /* The job ended meanwhile: no work for it. It sees us close and exits. */
        h->state = H_FAILED;
        fy_mpx_dn_host_close(h);
        return;
    }
    fy_mpx_launch_send_job(L, h);
}

static host_t *child_of_index(launch_t *L, uint32_t idx)
{
    if (!L->relay)
        return idx < (uint32_t)L->nh && L->h[idx].parent < 0 ? &L->h[idx] : NULL;
    for (int i = 0; i < L->nh; i++)
        if (L->h[i].index == (int)idx)
            return &L->h[i];
    return NULL;
}

static void pend_input(launch_t *L, int i)
{
    pending_t *p = &L->pend[i];
    ssize_t n = fy_px_conn_fill(&p->conn);
    if (n == -2)
        return;
    fy_px_buf_t *b = &p->conn.in;
    if (n <= 0) {
        /* Closed without a word: a proxy that reached us on another address first. */
        fy_mpx_dn_pend_drop(L, i, b->len > 0 ? "closed during the handshake" : NULL);
        return;
    }
    if (!p->magic_ok && b->len - b->off >= FY_PX_MAGIC_LEN) {
        if (memcmp(b->d + b->off, FY_PX_MAGIC, FY_PX_MAGIC_LEN) != 0) {
            fy_mpx_dn_pend_drop(L, i, "not a Ferry proxy (bad handshake)");
            return;
        }
        p->magic_ok = 1;
    }
    uint8_t proof[FY_PX_PROOF_LEN], want[32];
    if (!fy_px_conn_take(&p->conn, proof, sizeof(proof)))
        return;
    const uint8_t *q = proof + FY_PX_MAGIC_LEN;
    uint32_t idx = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
    host_t *h = child_of_index(L, idx);
    if (h == NULL) {
        fy_mpx_dn_pend_drop(L, i, "unknown proxy index");
        return;
    }
    fy_px_proof_proxy(L->secret, p->nonce, idx, want);
    if (!fy_ct_equal(want, q + 4, 32)) {
        fy_mpx_dn_pend_drop(L, i, "wrong key (failed authentication)");
        return;
    }
    if (h->state != H_STARTING) {
        fy_mpx_dn_pend_drop(L, i, "a second proxy for a host already connected");
        return;
    }
    uint8_t answer[32];
    fy_px_proof_mpiexec(L->secret, q + 4 + 32, answer);
    fy_px_put(&p->conn.out, answer, sizeof(answer));
    if (fy_px_conn_flush(&p->conn) != 0) {
        fy_mpx_dn_pend_drop(L, i, "closed during the handshake");
        return;
    }
    fy_px_conn_t c = p->conn;
    p->conn = (fy_px_conn_t){.fd = -1};
    fy_mpx_dn_pend_drop(L, i, NULL);
    host_up(L, h, &c);
}

/* ---- Agents ---- */

/* A word for the remote shell (ssh joins its arguments and hands them to one). */
static char *shell_word(const char *s)
{
    if (*s != '\0' && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_/.,:=+-@%") == strlen(s))
        return strdup(s);
    size_t n = 2;
    for (const char *p = s; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *w = malloc(n + 1), *o = w;
    if (w == NULL)
        return NULL;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return w;
}

static void start_agent(launch_t *L, host_t *h)
{
    int in[2], err[2];
    if (pipe2(in, O_CLOEXEC) != 0)
        goto fail;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        goto fail;
    }
    char index[16], port[16];
    snprintf(index, sizeof(index), "%d", h->index);
    snprintf(port, sizeof(port), "%d", L->ls.port);
    int direct = L->agent[0] == '\0' || fy_mpx_host_is_local(h->name);
    char *args[24], *nodelist = NULL;
    int n = 0;
    if (!direct && L->srun) {
        /* The proxy as a one-task step of our allocation on that node. No --exact: the step
         * has all of the job's CPUs there, and the ranks the proxy forks live in the step's
         * cgroup. --overlap: it shares them with the steps already running (mpiexec itself
         * may be one). The proxy undoes a binding to one CPU itself (--all-cpus below), as
         * its ranks would inherit it: --cpu-bind=none would do the same but makes srun print
         * a line on clusters without a task plugin. No PMI of Slurm's: the proxy serves its
         * ranks itself. stdin goes to the task (the secret). */
        if (asprintf(&nodelist, "--nodelist=%s", h->name) < 0)
            nodelist = NULL; /* out of memory: found below */
        args[n++] = L->agent;
        args[n++] = "--nodes=1";
        args[n++] = "--ntasks=1";
        args[n++] = nodelist;
        args[n++] = "--overlap";
        args[n++] = "--mpi=none";
        args[n++] = "--kill-on-bad-exit=1";
        args[n++] = "--input=0";
        args[n++] = "--job-name=ferry-proxy";
    } else if (!direct) {
        args[n++] = L->agent;
        args[n++] = (char *)h->name;
    }
    /* ssh joins the words for the remote shell; srun and exec take them as they are. */
    int quote = !direct && !L->srun;
    char *proxy = quote ? shell_word(L->proxy_path) : strdup(L->proxy_path);
    char *addrs = quote ? shell_word(L->ls.addrs) : strdup(L->ls.addrs);
    args[n++] = proxy;
    args[n++] = "--connect";
    args[n++] = addrs;
    args[n++] = "--port";
    args[n++] = port;
    args[n++] = "--index";
    args[n++] = index;
    if (!direct && L->srun)
        args[n++] = "--all-cpus";
    args[n] = NULL;
    pid_t pid = -1;
    if (proxy == NULL || addrs == NULL || (L->srun && !direct && nodelist == NULL))
        errno = ENOMEM;
    else
        pid = fork();
    if (pid == 0) {
        /* Its own process group: a Ctrl-C at the terminal is ours to forward, not ssh's. */
        setpgid(0, 0);
        signal(SIGPIPE, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        int null = open("/dev/null", O_WRONLY);
        if (dup2(in[0], 0) < 0 || dup2(null >= 0 ? null : err[1], 1) < 0 || dup2(err[1], 2) < 0)
            _exit(127);
        execvp(args[0], args);
        fprintf(stderr, "cannot run '%s': %s\n", args[0], strerror(errno));
        _exit(127);
    }
    int e = errno;
    free(proxy);
    free(addrs);
    free(nodelist);
    close(in[0]);
    close(err[1]);
    if (pid < 0) {
        close(in[1]);
        close(err[0]);
        errno = e;
        goto fail;
    }
    h->agent = pid;
    h->err_fd = err[0];
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    /* The secret, on its stdin: 65 bytes fit in any pipe. */
    char line[2 * FY_PX_SECRET_LEN + 2];
    fy_px_secret_hex(L->secret, line);
    line[2 * FY_PX_SECRET_LEN] = '\n';
    if (write(in[1], line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1) {
        /* The agent is already gone: its exit tells why. */
    }
    explicit_bzero(line, sizeof(line));
    close(in[1]);
    return;
fail:
    lost(L, h, "cannot start the launcher agent: %s", strerror(errno));
}

/* Reads what the agent wrote on stderr: kept while its proxy is not up, passed on after. */
static void agent_err(host_t *h)
{
    char buf[4096];
    for (;;) {
        ssize_t n = read(h->err_fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return;
        if (n == 0) {
            close(h->err_fd);
            h->err_fd = -1;
            return;
        }
        if (h->state == H_STARTING) {
            size_t take = (size_t)n < ERRBUF - h->errlen ? (size_t)n : ERRBUF - h->errlen;
            memcpy(h->err + h->errlen, buf, take);
            h->errlen += take;
        } else if (fwrite(buf, 1, (size_t)n, stderr) != (size_t)n) {
            /* our stderr is gone: nothing to do */
        }
    }
}

static void agent_exited(launch_t *L, host_t *h, int status)
{
    h->agent = 0;
    if (h->err_fd >= 0)
        agent_err(h);
    if (h->state != H_STARTING)
        return;
    /* Its stderr as one line: trailing newlines off, inner ones as "; ". */
    while (h->errlen > 0 && (h->err[h->errlen - 1] == '\n' || h->err[h->errlen - 1] == '\r'))
        h->errlen--;
    char said[ERRBUF + 64] = "";
    size_t o = 0;
    for (size_t i = 0; i < h->errlen && o + 3 < sizeof(said); i++) {
        if (h->err[i] == '\n') {
            said[o++] = ';';
            said[o++] = ' ';
        } else if (h->err[i] != '\r') {
            said[o++] = h->err[i];
        }
    }
    said[o] = '\0';
    char how[64];
    if (WIFSIGNALED(status))
        snprintf(how, sizeof(how), "was killed by signal %d", WTERMSIG(status));
    else
        snprintf(how, sizeof(how), "exited with status %d", WEXITSTATUS(status));
    const char *agent = L->agent[0] ? L->agent : "the proxy";
    lost(L, h, "cannot start the proxy: '%s' %s before the proxy connected%s%s", agent, how,
         said[0] ? ": " : "", said);
}

void fy_mpx_dn_reap(launch_t *L)
{
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        int status;
        if (h->agent > 0 && waitpid(h->agent, &status, WNOHANG) == h->agent)
            agent_exited(L, h, status);
    }
}

/* ---- Polling, timers ---- */

static void add_ent(launch_t *L, struct pollfd *pfd, int *n, int fd, short ev, enum ent_kind k,
                    int who)
{
    pfd[*n] = (struct pollfd){.fd = fd, .events = ev};
    L->kind[*n] = k;
    L->who[*n] = who;
    (*n)++;
}

int fy_mpx_dn_add(launch_t *L, struct pollfd *pfd)
{
    int n = 0;
    for (int i = 0; i < L->ls.nlfd; i++)
        add_ent(L, pfd, &n, L->ls.lfd[i], POLLIN, E_LISTEN, i);
    for (int i = 0; i < L->npend; i++) {
        pending_t *p = &L->pend[i];
        add_ent(L, pfd, &n, p->conn.fd,
                POLLIN | (p->conn.out.len > p->conn.out.off ? POLLOUT : 0), E_PEND, i);
    }
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->err_fd >= 0)
            add_ent(L, pfd, &n, h->err_fd, POLLIN, E_ERR, i);
        if (h->conn.fd >= 0)
            add_ent(L, pfd, &n, h->conn.fd,
                    POLLIN | (h->conn.out.len > h->conn.out.off ? POLLOUT : 0), E_HOST, i);
    }
    if (!L->relay) {
        fy_mpx_job_t *job = L->job;
        host_t *h0 = &L->h[L->rank0];
        if (job->stdin_open && h0->state == H_UP && L->stdin_unacked < STDIN_WINDOW)
            add_ent(L, pfd, &n, 0, POLLIN, E_STDIN, -1);
    }
    return n;
}

static void stdin_input(launch_t *L)
{
    fy_mpx_job_t *job = L->job;
    char buf[65536];
    ssize_t n = read(0, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n < 0)
        n = 0;
    size_t f;
    fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_STDIN, &f);
    fy_px_put_bytes(b, buf, (size_t)n);
    fy_px_frame_end(b, f);
    L->stdin_unacked += n;
    if (n == 0)
        job->stdin_open = 0; /* the empty message says so to the proxy */
    fy_mpx_dn_send_frame(L, &L->h[L->rank0]);
}

void fy_mpx_dn_ready(launch_t *L, struct pollfd *pfd, int n)
{
    /* Handshakes move entries of pend: take them by descriptor, from the last. */
    int pend_fds[PEND_MAX], npf = 0;
    for (int k = 0; k < n; k++) {
        if (pfd[k].revents == 0)
            continue;
        int w = L->who[k];
        switch (L->kind[k]) {
        case E_LISTEN: on_accept(L, pfd[k].fd); break;
        case E_PEND: pend_fds[npf++] = pfd[k].fd; break;
        case E_ERR:
            if (L->h[w].err_fd == pfd[k].fd)
                agent_err(&L->h[w]);
            break;
        case E_HOST:
            if (L->h[w].conn.fd == pfd[k].fd) {
                if (pfd[k].revents & POLLOUT)
                    host_flush(L, &L->h[w]);
                if (L->h[w].conn.fd >= 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    host_input(L, &L->h[w]);
            }
            break;
        case E_STDIN:
            if (L->h[L->rank0].state == H_UP && L->job->stdin_open)
                stdin_input(L);
            break;
        }
    }
    for (int k = 0; k < npf; k++) {
        for (int i = 0; i < L->npend; i++) {
            if (L->pend[i].conn.fd != pend_fds[k])
                continue;
            if (L->pend[i].conn.out.len > L->pend[i].conn.out.off &&
                fy_px_conn_flush(&L->pend[i].conn) != 0)
                fy_mpx_dn_pend_drop(L, i, "closed during the handshake");
            else
                pend_input(L, i);
            break;
        }
    }
}

long long fy_mpx_dn_tick(launch_t *L, long long now)
{
    long long wake = -1;
#define WAKE(t)                                                                                    \
    do {                                                                                           \
        if (wake < 0 || (t) < wake)                                                                \
            wake = (t);                                                                            \
    } while (0)
    if (!L->started) {
        L->started = 1;
        for (int i = 0; i < L->nh && !L->job->terminating; i++)
            if (L->h[i].parent < 0)
                start_agent(L, &L->h[i]);
    }
    for (int i = L->npend - 1; i >= 0; i--) {
        if (now >= L->pend[i].deadline)
            fy_mpx_dn_pend_drop(L, i, "no handshake within 1 s");
        else
            WAKE(L->pend[i].deadline);
    }
    int all_done = 1;
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->state == H_UP && h->conn.fd >= 0) {
            if (now - h->last_rx >= DEAD_MS) {
                lost(L, h, "no answer from the proxy for 5 s (host down or unreachable?)");
            } else {
                if (now >= h->ping_at) {
                    size_t f;
                    fy_px_buf_t *b = fy_mpx_dn_frame_begin(L, FY_PX_PING, &f);
                    fy_px_frame_end(b, f);
                    fy_px_put(&h->conn.out, b->d, b->len);
                    host_flush(L, h);
                    h->ping_at = now + PING_MS;
                }
                if (h->state == H_UP) {
                    WAKE(h->ping_at);
                    WAKE(h->last_rx + DEAD_MS);
                }
            }
        }
        if (h->state == H_STARTING || h->state == H_UP)
            all_done = 0;
    }
    if (all_done) {
        if (L->all_done_at == 0)
            L->all_done_at = now;
        long long until = L->all_done_at + AGENT_GRACE_MS;
        int agents = 0;
        for (int i = 0; i < L->nh; i++) {
            if (L->h[i].agent <= 0)
                continue;
            agents = 1;
            if (now >= until) {
                kill(L->h[i].agent, SIGKILL);
                int status;
                waitpid(L->h[i].agent, &status, 0);
                agent_exited(L, &L->h[i], status);
            }
        }
        if (agents && now < until)
            WAKE(until);
    }
    return wake;
#undef WAKE
}

int fy_mpx_dn_busy(launch_t *L)
{
    for (int i = 0; i < L->nh; i++) {
        if (L->h[i].state == H_STARTING || L->h[i].state == H_UP || L->h[i].agent > 0)
            return 1;
    }
    return 0;
}

/* ---- A relay, in a proxy ---- */

struct fy_mpx_relay {
    launch_t L;
};

fy_mpx_relay_t *fy_mpx_relay_new(fy_mpx_job_t *job, const uint8_t *secret, const char *agent,
                                 int srun, const char *proxy, const char *listen_addr, int self,
                                 int ndesc, const int *index, char *const *name, const int *parent,
                                 void (*up)(void *ctx, const void *frame, size_t len), void *ctx)
{
    fy_mpx_relay_t *R = calloc(1, sizeof(*R));
    if (R == NULL)
        return NULL;
    launch_t *L = &R->L;
    L->job = job;
    L->relay = 1;
    L->self = self;
    L->up = up;
    L->up_ctx = ctx;
    memcpy(L->secret, secret, FY_PX_SECRET_LEN);
    snprintf(L->agent, sizeof(L->agent), "%s", agent);
    L->srun = srun;
    snprintf(L->proxy_path, sizeof(L->proxy_path), "%s", proxy);
    L->ndesc = ndesc;
    L->desc_index = calloc((size_t)ndesc, sizeof(int));
    L->desc_parent = calloc((size_t)ndesc, sizeof(int));
    L->h = calloc((size_t)ndesc, sizeof(*L->h));
    if (L->desc_index == NULL || L->desc_parent == NULL || L->h == NULL)
        goto err;
    for (int i = 0; i < ndesc; i++) {
        L->desc_index[i] = index[i];
        L->desc_parent[i] = parent[i];
        if (parent[i] != self)
            continue;
        host_t *h = &L->h[L->nh++];
        *h = (host_t){.index = index[i], .name = name[i], .parent = -1, .err_fd = -1,
                      .conn = {.fd = -1}};
    }
    L->slots = 2 + PEND_MAX + 2 * L->nh;
    L->kind = calloc((size_t)L->slots, sizeof(*L->kind));
    L->who = calloc((size_t)L->slots, sizeof(*L->who));
    if (L->kind == NULL || L->who == NULL)
        goto err;
    if (fy_mpx_listen_at(&L->ls, listen_addr) != 0) {
        fprintf(stderr, "ferry-proxy: cannot listen for child proxies on %s: %s\n", listen_addr,
                strerror(errno));
        goto err;
    }
    return R;
err:
    fy_mpx_relay_free(R);
    return NULL;
}

void fy_mpx_dn_close_all(launch_t *L)
{
    for (int i = 0; i < L->nh; i++) {
        fy_mpx_dn_host_close(&L->h[i]);
        if (L->h[i].err_fd >= 0)
            close(L->h[i].err_fd);
    }
    while (L->npend > 0)
        fy_mpx_dn_pend_drop(L, L->npend - 1, NULL);
    for (int i = 0; i < L->ls.nlfd; i++)
        close(L->ls.lfd[i]);
    fy_px_buf_free(&L->scratch);
    explicit_bzero(L->secret, sizeof(L->secret));
}

void fy_mpx_relay_free(fy_mpx_relay_t *R)
{
    if (R == NULL)
        return;
    launch_t *L = &R->L;
    fy_mpx_dn_close_all(L);
    free(L->desc_index);
    free(L->desc_parent);
    free(L->kind);
    free(L->who);
    free(L->h);
    free(R);
}

int fy_mpx_relay_slots(const fy_mpx_relay_t *R)
{
    return R->L.slots;
}

int fy_mpx_relay_add(fy_mpx_relay_t *R, struct pollfd *pfd)
{
    return fy_mpx_dn_add(&R->L, pfd);
}

void fy_mpx_relay_ready(fy_mpx_relay_t *R, struct pollfd *pfd, int n)
{
    fy_mpx_dn_ready(&R->L, pfd, n);
}

long long fy_mpx_relay_tick(fy_mpx_relay_t *R, long long now)
{
    return fy_mpx_dn_tick(&R->L, now);
}

int fy_mpx_relay_busy(fy_mpx_relay_t *R)
{
    return fy_mpx_dn_busy(&R->L);
}

void fy_mpx_relay_child(fy_mpx_relay_t *R)
{
    fy_mpx_dn_reap(&R->L);
}

void fy_mpx_relay_signal(fy_mpx_relay_t *R, int sig)
{
    fy_mpx_dn_send_signal(&R->L, sig);
}

void fy_mpx_relay_down(fy_mpx_relay_t *R, uint32_t dest, const void *frame, size_t len)
{
    launch_t *L = &R->L;
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (dest != FY_PX_ALL) {
            /* The child on dest's way: dest itself, or the one of its ancestors below us. */
            int at = (int)dest, hops = 0;
            while (at != h->index && hops++ <= L->ndesc) {
                int k = 0;
                while (k < L->ndesc && L->desc_index[k] != at)
                    k++;
                if (k == L->ndesc || L->desc_parent[k] == L->self)
                    break;
                at = L->desc_parent[k];
            }
            if (at != h->index)
                continue;
        }
        if (h->state != H_UP || h->conn.fd < 0)
            continue;
        fy_px_put(&h->conn.out, frame, len);
        host_flush(L, h);
    }
}

void fy_mpx_relay_abandon(fy_mpx_relay_t *R)
{
    launch_t *L = &R->L;
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->state == H_STARTING && h->agent > 0)
            kill(h->agent, SIGTERM);
        if (h->state == H_STARTING || h->state == H_UP)
            h->state = H_FAILED;
        fy_mpx_dn_host_close(h);
    }
}

