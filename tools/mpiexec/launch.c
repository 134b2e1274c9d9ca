/* A job across hosts, mpiexec's side (docs/DESIGN.md, "Launching across hosts").
 *
 * mpiexec runs job.c's loop with no ranks of its own and this file as the job's link: it
 * listens on TCP, starts one proxy per host through the launcher agent (ssh, rsh, or the proxy
 * itself for hosts that are this machine and for -launcher fork) with the job's secret on the
 * agent's stdin, authenticates each proxy's connection (HMAC of our nonce), sends it its part of
 * the job, and then: writes the ranks' output as job.c does for local ranks, ends a PMI barrier
 * when every host's ranks are in it (one FENCE up and one KVS down per host and barrier), passes
 * stdin to rank 0's host, signals and failures to every host, and pings every proxy each second
 * (one silent for 5 s is taken for lost). Flat: every proxy talks to mpiexec directly.
 */
#include "mpiexec.h"
#include "pxwire.h"

#include "fy_sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define AUTH_MS 1000        /* a connection proves it knows the secret within this */
#define PING_MS 1000        /* keepalive period */
#define DEAD_MS 5000        /* a proxy silent this long is lost */
#define AGENT_GRACE_MS 2000 /* agents left after the last proxy is done get this long */
#define PEND_MAX 64         /* connections at once in the handshake */
#define STDIN_WINDOW (256 * 1024) /* stdin bytes sent and not yet written to rank 0 */
#define ERRBUF 2048         /* an agent's stderr kept until its proxy connects */
#define FAIL_STATUS 1       /* a host we could not start or lost */

enum host_state { H_STARTING, H_UP, H_DONE, H_FAILED };

typedef struct host {
    int id;           /* index in the host table: FY_HOST_ID */
    const char *name; /* as the user wrote it */
    int nranks;
    enum host_state state;
    pid_t agent;  /* 0 once reaped (or never started) */
    int err_fd;   /* the agent's stderr, -1 when closed */
    char err[ERRBUF];
    size_t errlen;
    fy_px_conn_t conn; /* fd -1 until authenticated */
    long long last_rx, ping_at;
} host_t;

typedef struct pending {
    fy_px_conn_t conn;
    long long deadline;
    int magic_ok;
    uint8_t nonce[FY_PX_NONCE_LEN];
    char peer[INET6_ADDRSTRLEN + 8];
} pending_t;

enum ent_kind { E_LISTEN, E_PEND, E_ERR, E_HOST, E_STDIN };

typedef struct launch {
    fy_mpx_job_t job; /* no ranks: options, output state, failures, signals */
    host_t *h;
    int nh;
    int lfd[2];
    int nlfd;
    char addrs[1024]; /* what proxies connect to, comma-separated */
    int port;
    uint8_t secret[FY_PX_SECRET_LEN];
    char proxy_path[PATH_MAX];
    char agent[PATH_MAX]; /* "" for fork */
    int started;
    pending_t pend[PEND_MAX];
    int npend;
    /* The barrier: proxies in it, and the puts they brought. */
    int nfence;
    fy_px_buf_t fence;
    uint32_t fence_n;
    int rank0; /* index in h of rank 0's host */
    long long stdin_unacked;
    long long all_done_at; /* when the last proxy finished, 0 before */
    /* What each poll entry of ours stands for. */
    enum ent_kind *kind;
    int *who;
} launch_t;

static launch_t *L_of(fy_mpx_job_t *job)
{
    return job->link_ctx;
}

/* ---- Sending to proxies ---- */

static void host_send_flush(launch_t *L, host_t *h);

static void host_close(host_t *h)
{
    if (h->conn.fd >= 0)
        close(h->conn.fd);
    h->conn.fd = -1;
    fy_px_buf_free(&h->conn.in);
    fy_px_buf_free(&h->conn.out);
}

static void host_lost(launch_t *L, host_t *h, const char *why)
{
    if (h->state != H_UP)
        return;
    h->state = H_FAILED;
    host_close(h);
    fy_mpx_job_fail(&L->job, FAIL_STATUS, "host %s: %s", h->name, why);
}

static void host_send_flush(launch_t *L, host_t *h)
{
    if (h->conn.fd >= 0 && fy_px_conn_flush(&h->conn) != 0)
        host_lost(L, h, "proxy connection lost");
}

static void send_signal(fy_mpx_job_t *job, int sig)
{
    launch_t *L = L_of(job);
    long long grace = job->kill_at_ms - fy_mpx_now_ms();
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->state == H_STARTING && h->agent > 0)
            kill(h->agent, SIGTERM); /* not up yet: it never gets the job */
        if (h->state != H_UP)
            continue;
        size_t f = fy_px_frame_begin(&h->conn.out, FY_PX_SIGNAL);
        fy_px_put_u32(&h->conn.out, (uint32_t)sig);
        fy_px_put_u32(&h->conn.out, grace > 0 ? (uint32_t)grace : 0);
        fy_px_frame_end(&h->conn.out, f);
        host_send_flush(L, h);
    }
}

/* `mpiexec ... | head`: every rank writing to a dest without reader gets SIGPIPE, as on one
 * host. Sent when it happens, and to proxies that come up later. */
static void send_broken(launch_t *L, host_t *h, int dest)
{
    if (h->state != H_UP)
        return;
    size_t f = fy_px_frame_begin(&h->conn.out, FY_PX_BROKEN);
    fy_px_put_u32(&h->conn.out, (uint32_t)dest);
    fy_px_frame_end(&h->conn.out, f);
    host_send_flush(L, h);
}

/* ---- The job description ---- */

static void put_env(fy_px_buf_t *b, const fy_mpx_env_t *e)
{
    fy_px_put_u32(b, (uint32_t)e->n);
    for (int i = 0; i < e->n; i++)
        fy_px_put_str(b, e->var[i]);
}

static void send_job(launch_t *L, host_t *h)
{
    const fy_mpx_opts_t *o = L->job.opts;
    fy_px_buf_t *b = &h->conn.out;
    size_t f = fy_px_frame_begin(b, FY_PX_JOB);
    fy_px_put_u32(b, (uint32_t)o->np);
    fy_px_put_u32(b, (uint32_t)h->id);
    fy_px_put_str(b, h->name);
    fy_px_put_str(b, L->job.kvsname);
    char cwd[PATH_MAX];
    fy_px_put_str(b, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
    fy_px_put_u32(b, (uint32_t)o->env_none);
    uint32_t nenv = 0;
    for (char **e = environ; !o->env_none && *e != NULL; e++)
        nenv++;
    fy_px_put_u32(b, nenv);
    for (uint32_t i = 0; i < nenv; i++)
        fy_px_put_str(b, environ[i]);
    put_env(b, &o->env);
    fy_px_put_u32(b, (uint32_t)o->napps);
    for (int k = 0; k < o->napps; k++) {
        const fy_mpx_app_t *a = &o->app[k];
        fy_px_put_u32(b, (uint32_t)a->np);
        fy_px_put_str(b, a->prog);
        fy_px_put_str(b, a->wdir ? a->wdir : "");
        uint32_t argc = 0;
        while (a->argv[argc] != NULL)
            argc++;
        fy_px_put_u32(b, argc);
        for (uint32_t i = 0; i < argc; i++)
            fy_px_put_str(b, a->argv[i]);
        put_env(b, &a->env);
    }
    /* This host's ranks: world number and program. */
    fy_px_put_u32(b, (uint32_t)h->nranks);
    int app = 0, app_end = o->app[0].np;
    for (int r = 0; r < o->np; r++) {
        if (r == app_end)
            app_end += o->app[++app].np;
        if (o->host_of[r] != h->id)
            continue;
        fy_px_put_u32(b, (uint32_t)r);
        fy_px_put_u32(b, (uint32_t)app);
    }
    fy_px_put_u32(b, (uint32_t)(h == &L->h[L->rank0] && L->job.stdin_open));
    /* The KVS to start from. */
    char map[1024];
    int have_map = fy_mpx_process_mapping(o->host_of, o->np, map, sizeof(map)) == 0;
    fy_px_put_u32(b, (uint32_t)have_map);
    if (have_map) {
        fy_px_put_str(b, "PMI_process_mapping");
        fy_px_put_str(b, map);
    }
    fy_px_frame_end(b, f);
    host_send_flush(L, h);
    for (int dest = 1; dest <= 2; dest++)
        if (L->job.dest_broken[dest])
            send_broken(L, h, dest);
}

/* ---- Frames from a proxy ---- */

static void fence_done(launch_t *L)
{
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->state != H_UP)
            continue;
        size_t f = fy_px_frame_begin(&h->conn.out, FY_PX_KVS);
        fy_px_put_u32(&h->conn.out, L->fence_n);
        fy_px_put(&h->conn.out, L->fence.d + L->fence.off, L->fence.len - L->fence.off);
        fy_px_frame_end(&h->conn.out, f);
        host_send_flush(L, h);
    }
    L->fence.off = L->fence.len = 0;
    L->fence_n = 0;
    L->nfence = 0;
}

static int on_frame(launch_t *L, host_t *h, int type, fy_px_reader_t *r)
{
    fy_mpx_job_t *job = &L->job;
    switch (type) {
    case FY_PX_OUT: {
        uint32_t rank = fy_px_get_u32(r), dest = fy_px_get_u32(r);
        size_t n;
        const char *p = fy_px_get_bytes(r, &n);
        if (r->bad || rank >= (uint32_t)job->size || (dest != 1 && dest != 2) || n == 0)
            return -1;
        int was_broken = job->dest_broken[dest];
        fy_mpx_emit(job, (int)rank, (int)dest, p, n);
        if (!was_broken && job->dest_broken[dest]) {
            for (int i = 0; i < L->nh; i++)
                send_broken(L, &L->h[i], (int)dest);
        }
        return 0;
    }
    case FY_PX_FENCE: {
        uint32_t n = fy_px_get_u32(r);
        for (uint32_t i = 0; i < 2 * n && !r->bad; i++) {
            size_t len;
            const void *p = fy_px_get_bytes(r, &len);
            if (p != NULL)
                fy_px_put_bytes(&L->fence, p, len);
        }
        if (r->bad)
            return -1;
        L->fence_n += n;
        if (++L->nfence == L->nh)
            fence_done(L);
        return 0;
    }
    case FY_PX_FAIL: {
        uint32_t code = fy_px_get_u32(r), has_msg = fy_px_get_u32(r);
        char *msg = has_msg ? fy_px_get_str(r) : NULL;
        if (r->bad) {
            free(msg);
            return -1;
        }
        if (msg != NULL)
            fy_mpx_job_fail(job, (int)(code & 0xff), "%s", msg);
        else
            fy_mpx_job_fail(job, (int)(code & 0xff), NULL);
        free(msg);
        return 0;
    }
    case FY_PX_DONE:
        h->state = H_DONE;
        host_close(h);
        return 0;
    case FY_PX_PONG: return 0;
    case FY_PX_STDIN_ACK: L->stdin_unacked -= fy_px_get_u32(r); return r->bad ? -1 : 0;
    default: return -1;
    }
}

static void host_input(launch_t *L, host_t *h)
{
    ssize_t n = fy_px_conn_fill(&h->conn);
    if (n == -2)
        return;
    if (n <= 0) {
        host_lost(L, h, n == 0 ? "proxy connection lost" : "proxy connection broken");
        return;
    }
    h->last_rx = fy_mpx_now_ms();
    int type, rc;
    fy_px_reader_t r;
    while (h->state == H_UP && (rc = fy_px_conn_next(&h->conn, &type, &r)) != 0) {
        if (rc < 0 || on_frame(L, h, type, &r) != 0) {
            host_lost(L, h, "malformed message from the proxy");
            return;
        }
    }
}

/* ---- Connections in the handshake ---- */

static void pend_drop(launch_t *L, int i, const char *why)
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
    int port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s4 = (const void *)ss;
        inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
        port = ntohs(s4->sin_port);
        snprintf(out, len, "%s:%d", a, port);
    } else {
        const struct sockaddr_in6 *s6 = (const void *)ss;
        inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
        port = ntohs(s6->sin6_port);
        snprintf(out, len, "[%s]:%d", a, port);
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
            pend_drop(L, L->npend - 1, "no random numbers for a nonce");
            continue;
        }
        fy_px_put(&p->conn.out, FY_PX_MAGIC, FY_PX_MAGIC_LEN);
        fy_px_put(&p->conn.out, p->nonce, FY_PX_NONCE_LEN);
        if (fy_px_conn_flush(&p->conn) != 0)
            pend_drop(L, L->npend - 1, "closed before the handshake");
    }
}

static void host_up(launch_t *L, host_t *h, fy_px_conn_t *c)
{
    h->conn = *c;
    h->state = H_UP;
    h->last_rx = fy_mpx_now_ms();
    h->ping_at = h->last_rx + PING_MS;
    if (h->errlen > 0) /* what the agent said on the way (warnings): pass it on */
        fwrite(h->err, 1, h->errlen, stderr);
    h->errlen = 0;
    if (L->job.terminating) {
        /* The job ended meanwhile: no work for it. It sees us close and exits. */
        h->state = H_FAILED;
        host_close(h);
        return;
    }
    send_job(L, h);
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
        pend_drop(L, i, b->len > 0 ? "closed during the handshake" : NULL);
        return;
    }
    if (!p->magic_ok && b->len - b->off >= FY_PX_MAGIC_LEN) {
        if (memcmp(b->d + b->off, FY_PX_MAGIC, FY_PX_MAGIC_LEN) != 0) {
            pend_drop(L, i, "not a Ferry proxy (bad handshake)");
            return;
        }
        p->magic_ok = 1;
    }
    uint8_t proof[FY_PX_PROOF_LEN], want[32];
    if (!fy_px_conn_take(&p->conn, proof, sizeof(proof)))
        return;
    const uint8_t *q = proof + FY_PX_MAGIC_LEN;
    uint32_t idx = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
    if (idx >= (uint32_t)L->nh) {
        pend_drop(L, i, "unknown proxy index");
        return;
    }
    fy_px_proof_proxy(L->secret, p->nonce, idx, want);
    if (!fy_ct_equal(want, q + 4, 32)) {
        pend_drop(L, i, "wrong key (failed authentication)");
        return;
    }
    host_t *h = &L->h[idx];
    if (h->state != H_STARTING) {
        pend_drop(L, i, "a second proxy for a host already connected");
        return;
    }
    uint8_t answer[32];
    fy_px_proof_mpiexec(L->secret, q + 4 + 32, answer);
    fy_px_put(&p->conn.out, answer, sizeof(answer));
    if (fy_px_conn_flush(&p->conn) != 0) {
        pend_drop(L, i, "closed during the handshake");
        return;
    }
    fy_px_conn_t c = p->conn;
    p->conn = (fy_px_conn_t){.fd = -1};
    pend_drop(L, i, NULL);
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

static void start_agent(launch_t *L, host_t *h, int idx)
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
    snprintf(index, sizeof(index), "%d", idx);
    snprintf(port, sizeof(port), "%d", L->port);
    int direct = L->agent[0] == '\0' || fy_mpx_host_is_local(h->name);
    char *args[12];
    int n = 0;
    if (!direct) {
        args[n++] = L->agent;
        args[n++] = (char *)h->name;
    }
    args[n++] = direct ? strdup(L->proxy_path) : shell_word(L->proxy_path);
    args[n++] = "--connect";
    args[n++] = direct ? strdup(L->addrs) : shell_word(L->addrs);
    args[n++] = "--port";
    args[n++] = port;
    args[n++] = "--index";
    args[n++] = index;
    args[n] = NULL;
    int first_arg = direct ? 0 : 2;
    pid_t pid = fork();
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
    free(args[first_arg]);
    free(args[first_arg + 2]);
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
    h->state = H_FAILED;
    fy_mpx_job_fail(&L->job, FAIL_STATUS, "host %s: cannot start the launcher agent: %s",
                    h->name, strerror(errno));
}

/* Reads what the agent wrote on stderr: kept while its proxy is not up, passed on after. */
static void agent_err(launch_t *L, host_t *h)
{
    (void)L;
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
        agent_err(L, h);
    if (h->state != H_STARTING)
        return;
    h->state = H_FAILED;
    /* Its stderr as one line: trailing newlines off, inner ones as "; ". */
    while (h->errlen > 0 && (h->err[h->errlen - 1] == '\n' || h->err[h->errlen - 1] == '\r'))
        h->errlen--;
    h->err[h->errlen < ERRBUF ? h->errlen : ERRBUF - 1] = '\0';
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
    if (said[0] != '\0')
        fy_mpx_job_fail(&L->job, FAIL_STATUS,
                        "host %s: cannot start the proxy: '%s' %s before the proxy connected: %s",
                        h->name, agent, how, said);
    else
        fy_mpx_job_fail(&L->job, FAIL_STATUS,
                        "host %s: cannot start the proxy: '%s' %s before the proxy connected",
                        h->name, agent, how);
}

static void on_child(fy_mpx_job_t *job)
{
    launch_t *L = L_of(job);
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        int status;
        if (h->agent > 0 && waitpid(h->agent, &status, WNOHANG) == h->agent)
            agent_exited(L, h, status);
    }
}

/* ---- The link's hooks ---- */

static void add_ent(launch_t *L, struct pollfd *pfd, int *n, int fd, short ev, enum ent_kind k,
                    int who)
{
    pfd[*n] = (struct pollfd){.fd = fd, .events = ev};
    L->kind[*n] = k;
    L->who[*n] = who;
    (*n)++;
}

static int link_add(fy_mpx_job_t *job, struct pollfd *pfd)
{
    launch_t *L = L_of(job);
    int n = 0;
    for (int i = 0; i < L->nlfd; i++)
        add_ent(L, pfd, &n, L->lfd[i], POLLIN, E_LISTEN, i);
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
    host_t *h0 = &L->h[L->rank0];
    if (job->stdin_open && h0->state == H_UP && L->stdin_unacked < STDIN_WINDOW)
        add_ent(L, pfd, &n, 0, POLLIN, E_STDIN, -1);
    return n;
}

static void stdin_input(launch_t *L)
{
    fy_mpx_job_t *job = &L->job;
    host_t *h = &L->h[L->rank0];
    char buf[65536];
    ssize_t n = read(0, buf, sizeof(buf));
    if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
        return;
    if (n < 0)
        n = 0;
    size_t f = fy_px_frame_begin(&h->conn.out, FY_PX_STDIN);
    fy_px_put_bytes(&h->conn.out, buf, (size_t)n);
    fy_px_frame_end(&h->conn.out, f);
    L->stdin_unacked += n;
    if (n == 0)
        job->stdin_open = 0; /* the empty message says so to the proxy */
    host_send_flush(L, h);
}

static void link_ready(fy_mpx_job_t *job, struct pollfd *pfd, int n)
{
    launch_t *L = L_of(job);
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
            if (L->h[w].err_fd >= 0)
                agent_err(L, &L->h[w]);
            break;
        case E_HOST:
            if (L->h[w].conn.fd == pfd[k].fd) {
                if (pfd[k].revents & POLLOUT)
                    host_send_flush(L, &L->h[w]);
                if (L->h[w].conn.fd >= 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    host_input(L, &L->h[w]);
            }
            break;
        case E_STDIN:
            if (L->h[L->rank0].state == H_UP && job->stdin_open)
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
                pend_drop(L, i, "closed during the handshake");
            else
                pend_input(L, i);
            break;
        }
    }
}

static long long link_tick(fy_mpx_job_t *job, long long now)
{
    launch_t *L = L_of(job);
    long long wake = -1;
#define WAKE(t)                                                                                    \
    do {                                                                                           \
        if (wake < 0 || (t) < wake)                                                                \
            wake = (t);                                                                            \
    } while (0)
    if (!L->started) {
        L->started = 1;
        for (int i = 0; i < L->nh && !job->terminating; i++)
            start_agent(L, &L->h[i], i);
    }
    for (int i = L->npend - 1; i >= 0; i--) {
        if (now >= L->pend[i].deadline)
            pend_drop(L, i, "no handshake within 1 s");
        else
            WAKE(L->pend[i].deadline);
    }
    int all_done = 1;
    for (int i = 0; i < L->nh; i++) {
        host_t *h = &L->h[i];
        if (h->state == H_UP) {
            if (now - h->last_rx >= DEAD_MS) {
                host_lost(L, h, "no answer from the proxy for 5 s (host down or unreachable?)");
            } else {
                if (now >= h->ping_at) {
                    size_t f = fy_px_frame_begin(&h->conn.out, FY_PX_PING);
                    fy_px_frame_end(&h->conn.out, f);
                    host_send_flush(L, h);
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

static int link_busy(fy_mpx_job_t *job)
{
    launch_t *L = L_of(job);
    for (int i = 0; i < L->nh; i++) {
        if (L->h[i].state == H_STARTING || L->h[i].state == H_UP || L->h[i].agent > 0)
            return 1;
    }
    return 0;
}

static const fy_mpx_link_t launch_link = {
    .add = link_add,
    .ready = link_ready,
    .tick = link_tick,
    .busy = link_busy,
    .child = on_child,
    .signal = send_signal,
};

/* ---- Setting up ---- */

/* The address of the interface that routes to host (a UDP socket connected to it). */
static int route_to(const char *host, struct sockaddr_storage *out)
{
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai;
    if (getaddrinfo(host, "9", &hints, &ai) != 0)
        return -1;
    int rc = -1;
    for (struct addrinfo *a = ai; a != NULL && rc != 0; a = a->ai_next) {
        int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        socklen_t sl = sizeof(*out);
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
            getsockname(fd, (struct sockaddr *)out, &sl) == 0)
            rc = 0;
        close(fd);
    }
    freeaddrinfo(ai);
    return rc;
}

static int addr_usable(const struct sockaddr *sa)
{
    if (sa == NULL)
        return 0;
    if (sa->sa_family == AF_INET)
        return 1;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        return !IN6_IS_ADDR_LINKLOCAL(a) && !IN6_IS_ADDR_LOOPBACK(a);
    }
    return 0;
}

/* Does sa lie in cidr ("10.77.1.0/24", "fd77:1::/64")? -1 if cidr is not one. */
static int in_cidr(const struct sockaddr *sa, const char *cidr)
{
    char net[INET6_ADDRSTRLEN];
    const char *slash = strchr(cidr, '/');
    if (slash == NULL || (size_t)(slash - cidr) >= sizeof(net))
        return -1;
    memcpy(net, cidr, (size_t)(slash - cidr));
    net[slash - cidr] = '\0';
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    uint8_t want[16], have[16];
    int fam = strchr(net, ':') ? AF_INET6 : AF_INET, len = fam == AF_INET ? 4 : 16;
    if (*end != '\0' || bits < 0 || bits > len * 8 || inet_pton(fam, net, want) != 1)
        return -1;
    if (sa->sa_family != fam)
        return 0;
    if (fam == AF_INET)
        memcpy(have, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
    else
        memcpy(have, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
    for (int b = 0; b < bits; b++) {
        int m = 0x80 >> (b % 8);
        if ((want[b / 8] & m) != (have[b / 8] & m))
            return 0;
    }
    return 1;
}

static void ntop(const struct sockaddr *sa, char *out, size_t len)
{
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)len);
    else
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)len);
}

static int listen_on(launch_t *L, const struct sockaddr *sa, socklen_t sl)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (sa->sa_family == AF_INET6) {
        int zero = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (bind(fd, sa, sl) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    L->port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                            : ((struct sockaddr_in6 *)&ss)->sin6_port);
    L->lfd[L->nlfd++] = fd;
    return 0;
}

static void add_addr(launch_t *L, const struct sockaddr *sa)
{
    char a[INET6_ADDRSTRLEN];
    ntop(sa, a, sizeof(a));
    size_t used = strlen(L->addrs);
    if (used + strlen(a) + 2 < sizeof(L->addrs))
        snprintf(L->addrs + used, sizeof(L->addrs) - used, "%s%s", used ? "," : "", a);
}

/* Where proxies connect: -iface (a name or a CIDR), else the address that routes to the first
 * other host; when mpiexec cannot resolve that host (the agent may: ssh's configuration, a
 * cluster's own name service), every address of ours, which proxies try all at once. */
static int choose_address(launch_t *L, const char *first_remote)
{
    const char *iface = L->job.opts->iface;
    struct sockaddr_storage ss;
    socklen_t sl;
    if (iface != NULL) {
        struct ifaddrs *ifa;
        struct sockaddr none = {.sa_family = AF_UNSPEC};
        if (strchr(iface, '/') != NULL && in_cidr(&none, iface) < 0) {
            fprintf(stderr, FY_MPX_PROG ": -iface '%s': not an interface name or a network "
                    "(address/bits)\n", iface);
            return -1;
        }
        if (strchr(iface, '/') == NULL && if_nametoindex(iface) == 0) {
            fprintf(stderr, FY_MPX_PROG ": -iface '%s': no such network interface\n", iface);
            return -1;
        }
        if (getifaddrs(&ifa) != 0) {
            fprintf(stderr, FY_MPX_PROG ": getifaddrs: %s\n", strerror(errno));
            return -1;
        }
        /* IPv4 first, then IPv6: the first address that matches. */
        const struct sockaddr *found = NULL;
        for (int pass = 0; pass < 2 && found == NULL; pass++) {
            for (struct ifaddrs *i = ifa; i != NULL && found == NULL; i = i->ifa_next) {
                if (!addr_usable(i->ifa_addr) ||
                    i->ifa_addr->sa_family != (pass == 0 ? AF_INET : AF_INET6))
                    continue;
                int match = strchr(iface, '/') ? in_cidr(i->ifa_addr, iface) == 1
                                               : strcmp(i->ifa_name, iface) == 0;
                if (match)
                    found = i->ifa_addr;
            }
        }
        if (found == NULL) {
            fprintf(stderr, FY_MPX_PROG ": -iface '%s': %s\n", iface,
                    strchr(iface, '/') ? "no address of this machine is in that network"
                                       : "the interface has no usable address");
            freeifaddrs(ifa);
            return -1;
        }
        sl = found->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                         : sizeof(struct sockaddr_in6);
        memcpy(&ss, found, sl);
        freeifaddrs(ifa);
    } else if (L->agent[0] == '\0') {
        /* Every proxy runs here (-launcher fork): the loopback. */
        struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        memcpy(&ss, &lo, sizeof(lo));
        sl = sizeof(lo);
    } else if (first_remote != NULL && route_to(first_remote, &ss) == 0) {
        sl = ss.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    } else {
        /* Every address, on one socket that takes both families. */
        struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
        struct sockaddr_in any4 = {.sin_family = AF_INET, .sin_addr.s_addr = INADDR_ANY};
        if (listen_on(L, (struct sockaddr *)&any6, sizeof(any6)) != 0 &&
            listen_on(L, (struct sockaddr *)&any4, sizeof(any4)) != 0) {
            fprintf(stderr, FY_MPX_PROG ": cannot listen for proxies: %s\n", strerror(errno));
            return -1;
        }
        struct ifaddrs *ifa;
        if (getifaddrs(&ifa) == 0) {
            for (int pass = 0; pass < 2; pass++)
                for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next)
                    if (addr_usable(i->ifa_addr) && (i->ifa_flags & IFF_UP) &&
                        !(i->ifa_flags & IFF_LOOPBACK) &&
                        i->ifa_addr->sa_family == (pass == 0 ? AF_INET : AF_INET6))
                        add_addr(L, i->ifa_addr);
            freeifaddrs(ifa);
        }
        if (L->addrs[0] == '\0')
            snprintf(L->addrs, sizeof(L->addrs), "127.0.0.1");
        return 0;
    }
    if (ss.ss_family == AF_INET)
        ((struct sockaddr_in *)&ss)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&ss)->sin6_port = 0;
    if (listen_on(L, (struct sockaddr *)&ss, sl) != 0) {
        char a[INET6_ADDRSTRLEN];
        ntop((struct sockaddr *)&ss, a, sizeof(a));
        fprintf(stderr, FY_MPX_PROG ": cannot listen for proxies on %s: %s\n", a,
                strerror(errno));
        return -1;
    }
    add_addr(L, (struct sockaddr *)&ss);
    return 0;
}

/* path as execvp would find it: 0, or -1. */
static int find_program(const char *name, char *out, size_t len)
{
    if (strchr(name, '/') != NULL) {
        snprintf(out, len, "%s", name);
        return access(name, X_OK) == 0 ? 0 : -1;
    }
    const char *p = getenv("PATH");
    if (p == NULL)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p != '\0') {
        size_t n = strcspn(p, ":");
        snprintf(out, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

static int find_proxy(launch_t *L)
{
    const char *env = getenv("FERRY_PROXY");
    if (env != NULL && *env != '\0') {
        if (realpath(env, L->proxy_path) == NULL || access(L->proxy_path, X_OK) != 0) {
            fprintf(stderr, FY_MPX_PROG ": FERRY_PROXY='%s': not an executable file\n", env);
            return -1;
        }
        return 0;
    }
    char self[PATH_MAX - 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        fprintf(stderr, FY_MPX_PROG ": cannot find our own program (/proc/self/exe)\n");
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(L->proxy_path, sizeof(L->proxy_path), "%s/ferry-proxy", self);
    if (access(L->proxy_path, X_OK) != 0) {
        fprintf(stderr, FY_MPX_PROG ": the proxy '%s' is missing (it is installed beside "
                "mpiexec; FERRY_PROXY names another)\n", L->proxy_path);
        return -1;
    }
    return 0;
}

int fy_mpx_launch(const fy_mpx_opts_t *opts)
{
    launch_t *L = calloc(1, sizeof(*L));
    if (L == NULL || fy_mpx_job_init(&L->job, opts, 0, opts->np) != 0) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    fy_mpx_job_t *job = &L->job;
    snprintf(job->kvsname, sizeof(job->kvsname), "fy%ldx%lx", (long)getpid(),
             (unsigned long)(fy_mpx_now_ms() & 0xffffffff));

    /* One proxy for each host with ranks, in host order. */
    const fy_mpx_hosts_t *hs = opts->hosts;
    int *count = calloc((size_t)hs->n, sizeof(*count));
    L->h = calloc((size_t)hs->n, sizeof(*L->h));
    if (count == NULL || L->h == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    for (int r = 0; r < opts->np; r++)
        count[opts->host_of[r]]++;
    const char *first_remote = NULL;
    for (int i = 0; i < hs->n; i++) {
        if (count[i] == 0)
            continue;
        host_t *h = &L->h[L->nh];
        *h = (host_t){.id = i, .name = hs->h[i].name, .nranks = count[i], .err_fd = -1,
                      .conn = {.fd = -1}};
        if (opts->host_of[0] == i)
            L->rank0 = L->nh;
        if (first_remote == NULL && !fy_mpx_host_is_local(h->name))
            first_remote = h->name;
        L->nh++;
    }
    free(count);

    if (find_proxy(L) != 0)
        return 1;
    if (strcmp(opts->launcher, "fork") != 0 || opts->launcher_exec != NULL) {
        const char *agent = opts->launcher_exec ? opts->launcher_exec : opts->launcher;
        if (find_program(agent, L->agent, sizeof(L->agent)) != 0) {
            if (opts->launcher_exec != NULL)
                fprintf(stderr, FY_MPX_PROG ": the launcher agent '%s' (-launcher-exec) is not "
                        "an executable file\n", agent);
            else
                fprintf(stderr, FY_MPX_PROG ": the launcher agent '%s' is not installed (not "
                        "in PATH); give -launcher-exec PATH, or -launcher fork to run every "
                        "proxy here\n", agent);
            return 1;
        }
    }
    if (fy_px_secret_new(L->secret) != 0) {
        fprintf(stderr, FY_MPX_PROG ": getrandom: %s\n", strerror(errno));
        return 1;
    }
    if (choose_address(L, first_remote) != 0)
        return 1;

    L->job.link = &launch_link;
    L->job.link_ctx = L;
    L->job.link_slots = 2 + PEND_MAX + 2 * L->nh + 1;
    L->kind = calloc((size_t)L->job.link_slots, sizeof(*L->kind));
    L->who = calloc((size_t)L->job.link_slots, sizeof(*L->who));
    if (L->kind == NULL || L->who == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    int status = fy_mpx_job_exec(job);

    for (int i = 0; i < L->nh; i++) {
        host_close(&L->h[i]);
        if (L->h[i].err_fd >= 0)
            close(L->h[i].err_fd);
    }
    while (L->npend > 0)
        pend_drop(L, L->npend - 1, NULL);
    for (int i = 0; i < L->nlfd; i++)
        close(L->lfd[i]);
    fy_px_buf_free(&L->fence);
    explicit_bzero(L->secret, sizeof(L->secret));
    free(L->kind);
    free(L->who);
    free(L->h);
    free(L);
    return status;
}
