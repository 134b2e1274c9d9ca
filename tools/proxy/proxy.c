/* ferry-proxy: mpiexec's hands on one host of a job across hosts (docs/DESIGN.md, "Launching
 * across hosts").
 *
 *   ferry-proxy --connect ADDR[,ADDR...] --port PORT --index I [--all-cpus]
 *                                                             (the secret on stdin)
 *
 * Started by the launcher agent (ssh, srun) or by mpiexec itself, it reads the job's secret from
 * its stdin (one line of 64 hex digits: never on a command line), connects to mpiexec (to all the
 * addresses at once, keeping the first that answers), proves it knows the secret and checks
 * that mpiexec does, receives its host's part of the job, and runs it with mpiexec's own job
 * loop (tools/mpiexec/job.c): forks the ranks, serves them PMI-1, and sends upstream what
 * mpiexec does itself on one host: output lines, KVS puts and barriers (one FENCE per barrier),
 * failures, and DONE when its ranks are gone. When mpiexec goes away (its connection closes, or
 * it is silent for 5 s) every rank is killed at once.
 */
#include "mpiexec.h"
#include "pxwire.h"

#include "fy_addr.h"
#include "fy_sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG "ferry-proxy"
#define CONNECT_MS 10000 /* to reach mpiexec */
#define STEP_MS 10000    /* for each step of the start-up: secret, handshake, the job */
#define DEAD_MS 5000     /* mpiexec silent this long (it pings every second) is gone */
#define OUT_FULL (4u << 20)

typedef struct proxy {
    fy_mpx_job_t job;
    fy_mpx_opts_t opts;
    fy_px_conn_t up;
    int lost;
    long long last_rx;
    fy_px_buf_t puts; /* KVS puts since the last barrier */
    uint32_t nputs;
    size_t stdin_cap;
    unsigned long long stdin_recv, stdin_acked;
    char where[300];
    char tcp_addr[INET6_ADDRSTRLEN];
    char *host;
    /* The tree: proxies below us (from JOB), and the relay for them once started. */
    char *agent, *proxy_path;
    int srun; /* the agent is srun */
    int ndesc;
    int *desc_index, *desc_parent;
    char **desc_name;
    fy_mpx_relay_t *relay;
    int relay_at; /* where the relay's poll entries start */
    int started;  /* the loop has run once: the ranks exist */
} proxy_t;

static int index_arg = -1;

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG " %d: ", index_arg);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static int wait_fd(int fd, short ev, long long deadline)
{
    for (;;) {
        long long left = deadline - fy_mpx_now_ms();
        if (left <= 0)
            return -1;
        struct pollfd p = {.fd = fd, .events = ev};
        int n = poll(&p, 1, (int)left);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* The secret: one line on stdin. */
static void read_secret(uint8_t secret[FY_PX_SECRET_LEN])
{
    char line[2 * FY_PX_SECRET_LEN + 2];
    size_t got = 0;
    long long deadline = fy_mpx_now_ms() + STEP_MS;
    while (got < sizeof(line) - 1 && (got == 0 || line[got - 1] != '\n')) {
        if (wait_fd(0, POLLIN, deadline) != 0)
            die("no secret on stdin");
        ssize_t n = read(0, line + got, 1); /* no further: the rest of stdin is not ours */
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            die("no secret on stdin");
        got++;
    }
    line[got] = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    if (fy_px_secret_parse(line, secret) != 0)
        die("the secret on stdin is not 64 hex digits");
    explicit_bzero(line, sizeof(line));
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0 && null != 0) {
        dup2(null, 0);
        close(null);
    }
}

/* Connects to every address at once; the first connection made wins. */
static int connect_any(const char *list, int port)
{
    int fds[32], n = 0;
    char *copy = strdup(list), *save = NULL;
    if (copy == NULL)
        die("out of memory");
    for (char *a = strtok_r(copy, ",", &save); a != NULL && n < 32; a = strtok_r(NULL, ",", &save)) {
        struct sockaddr_storage ss;
        socklen_t sl;
        if (fy_addr_parse(a, port, &ss, &sl) != 0)
            die("'%s' is not an address", a);
        int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        if (connect(fd, (struct sockaddr *)&ss, sl) != 0 && errno != EINPROGRESS) {
            close(fd);
            continue;
        }
        fds[n++] = fd;
    }
    free(copy);
    /* The first to connect wins; of those ready together, the first listed (IPv4 first). */
    int won = -1, open_n = n;
    long long deadline = fy_mpx_now_ms() + CONNECT_MS;
    while (won < 0 && open_n > 0) {
        struct pollfd p[32];
        for (int i = 0; i < n; i++)
            p[i] = (struct pollfd){.fd = fds[i], .events = POLLOUT};
        long long left = deadline - fy_mpx_now_ms();
        if (left <= 0)
            break;
        int r = poll(p, (nfds_t)n, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (int i = 0; i < n; i++) {
            if (fds[i] < 0 || p[i].revents == 0)
                continue;
            int err = 0;
            socklen_t el = sizeof(err);
            getsockopt(fds[i], SOL_SOCKET, SO_ERROR, &err, &el);
            if (err == 0 && won < 0) {
                won = fds[i];
            } else {
                close(fds[i]);
                open_n--;
            }
            fds[i] = -1;
        }
    }
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (won < 0)
        die("cannot connect to mpiexec at %s port %d", list, port);
    int one = 1;
    setsockopt(won, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return won;
}

static void recv_exact(fy_px_conn_t *c, void *out, size_t n, long long deadline, const char *what)
{
    while (!fy_px_conn_take(c, out, n)) {
        if (wait_fd(c->fd, POLLIN, deadline) != 0)
            die("no %s from mpiexec", what);
        ssize_t r = fy_px_conn_fill(c);
        if (r == 0 || r == -1)
            die("mpiexec closed the connection during the %s", what);
    }
}

static void send_all(fy_px_conn_t *c, long long deadline)
{
    while (c->out.len > c->out.off) {
        if (fy_px_conn_flush(c) != 0)
            die("mpiexec closed the connection");
        if (c->out.len > c->out.off && wait_fd(c->fd, POLLOUT, deadline) != 0)
            die("cannot send to mpiexec");
    }
}

static void handshake(fy_px_conn_t *c, const uint8_t secret[FY_PX_SECRET_LEN], uint32_t idx)
{
    long long deadline = fy_mpx_now_ms() + STEP_MS;
    uint8_t hello[FY_PX_HELLO_LEN];
    recv_exact(c, hello, sizeof(hello), deadline, "handshake");
    if (memcmp(hello, FY_PX_MAGIC, FY_PX_MAGIC_LEN) != 0)
        die("the other end is not mpiexec (bad handshake)");
    uint8_t proof[32], nonce[FY_PX_NONCE_LEN], idx_be[4] = {(uint8_t)(idx >> 24),
                                                           (uint8_t)(idx >> 16),
                                                           (uint8_t)(idx >> 8), (uint8_t)idx};
    fy_px_proof_proxy(secret, hello + FY_PX_MAGIC_LEN, idx, proof);
    if (fy_px_secret_new(nonce) != 0)
        die("getrandom: %s", strerror(errno));
    fy_px_put(&c->out, FY_PX_MAGIC, FY_PX_MAGIC_LEN);
    fy_px_put(&c->out, idx_be, 4);
    fy_px_put(&c->out, proof, 32);
    fy_px_put(&c->out, nonce, FY_PX_NONCE_LEN);
    send_all(c, deadline);
    uint8_t answer[32], want[32];
    recv_exact(c, answer, sizeof(answer), deadline, "handshake");
    fy_px_proof_mpiexec(secret, nonce, want);
    if (!fy_ct_equal(answer, want, 32))
        die("mpiexec did not prove that it knows the job's secret");
}

/* ---- The job description ---- */

static char **get_strs(fy_px_reader_t *r, int *n_p)
{
    uint32_t n = fy_px_get_u32(r);
    if (r->bad || n > r->left / 4)
        die("malformed job description");
    char **v = calloc((size_t)n + 1, sizeof(*v));
    if (v == NULL)
        die("out of memory");
    for (uint32_t i = 0; i < n; i++)
        if ((v[i] = fy_px_get_str(r)) == NULL)
            die("malformed job description");
    if (n_p != NULL)
        *n_p = (int)n;
    return v;
}

static void read_job(proxy_t *P)
{
    long long deadline = fy_mpx_now_ms() + STEP_MS;
    int type, rc;
    fy_px_reader_t r;
    while ((rc = fy_px_conn_next(&P->up, &type, &r)) == 0) {
        if (wait_fd(P->up.fd, POLLIN, deadline) != 0)
            die("no job description from mpiexec");
        ssize_t n = fy_px_conn_fill(&P->up);
        if (n == 0 || n == -1)
            exit(1); /* mpiexec ended the job before it started here: nothing to say */
    }
    if (rc > 0 && type == FY_PX_RELAY_DOWN) {
        /* Through the proxies above us (the tree). */
        uint32_t dest = fy_px_get_u32(&r);
        const uint8_t *q = r.p;
        if (r.bad || dest != (uint32_t)index_arg || r.left < 5)
            die("malformed job description");
        uint32_t n = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        if (n < 1 || (size_t)n + 4 != r.left)
            die("malformed job description");
        type = q[4];
        r = (fy_px_reader_t){q + 5, n - 1, 0};
    }
    if (rc < 0 || type != FY_PX_JOB)
        die("malformed job description");
    fy_mpx_opts_t *o = &P->opts;
    int size = (int)fy_px_get_u32(&r);
    int host_id = (int)fy_px_get_u32(&r);
    P->host = fy_px_get_str(&r);
    char *kvsname = fy_px_get_str(&r), *cwd = fy_px_get_str(&r);
    o->env_none = (int)fy_px_get_u32(&r);
    o->base_env = get_strs(&r, NULL);
    o->env.var = get_strs(&r, &o->env.n);
    o->napps = (int)fy_px_get_u32(&r);
    if (r.bad || o->napps < 1 || o->napps > size || size < 1 || size > FY_MPX_MAX_RANKS ||
        P->host == NULL || kvsname == NULL || cwd == NULL)
        die("malformed job description");
    o->np = size;
    o->app = calloc((size_t)o->napps, sizeof(*o->app));
    if (o->app == NULL)
        die("out of memory");
    for (int k = 0; k < o->napps; k++) {
        fy_mpx_app_t *a = &o->app[k];
        a->np = (int)fy_px_get_u32(&r);
        a->prog = fy_px_get_str(&r);
        char *wdir = fy_px_get_str(&r);
        a->wdir = wdir != NULL && *wdir != '\0' ? wdir : NULL;
        if (a->wdir == NULL)
            free(wdir);
        a->argv = get_strs(&r, NULL);
        a->env.var = get_strs(&r, &a->env.n);
        if (r.bad || a->prog == NULL)
            die("malformed job description");
    }
    uint32_t nlocal = fy_px_get_u32(&r);
    if (r.bad || nlocal < 1 || nlocal > (uint32_t)size)
        die("malformed job description");
    fy_mpx_job_t *job = &P->job;
    if (fy_mpx_job_init(job, o, (int)nlocal, size) != 0)
        die("out of memory");
    for (uint32_t i = 0; i < nlocal; i++) {
        job->ranks[i].rank = (int)fy_px_get_u32(&r);
        job->ranks[i].appnum = (int)fy_px_get_u32(&r);
        if (job->ranks[i].rank >= size || job->ranks[i].appnum >= o->napps)
            die("malformed job description");
    }
    job->stdin_open = (int)fy_px_get_u32(&r);
    uint32_t nkvs = fy_px_get_u32(&r);
    for (uint32_t i = 0; i < nkvs && !r.bad; i++) {
        char *k = fy_px_get_str(&r), *v = fy_px_get_str(&r);
        if (k != NULL && v != NULL)
            fy_pmi_kvs_put(&job->kvs, k, v);
        free(k);
        free(v);
    }
    P->agent = fy_px_get_str(&r);
    P->srun = (int)fy_px_get_u32(&r);
    P->proxy_path = fy_px_get_str(&r);
    uint32_t ndesc = fy_px_get_u32(&r);
    if (r.bad || P->agent == NULL || P->proxy_path == NULL || ndesc > r.left / 12)
        die("malformed job description");
    P->ndesc = (int)ndesc;
    P->desc_index = calloc(ndesc + 1, sizeof(int));
    P->desc_parent = calloc(ndesc + 1, sizeof(int));
    P->desc_name = calloc(ndesc + 1, sizeof(char *));
    if (P->desc_index == NULL || P->desc_parent == NULL || P->desc_name == NULL)
        die("out of memory");
    for (uint32_t i = 0; i < ndesc; i++) {
        P->desc_index[i] = (int)fy_px_get_u32(&r);
        P->desc_name[i] = fy_px_get_str(&r);
        P->desc_parent[i] = (int)fy_px_get_u32(&r);
        if (r.bad || P->desc_name[i] == NULL)
            die("malformed job description");
    }
    snprintf(job->kvsname, sizeof(job->kvsname), "%s", kvsname);
    job->host_id = host_id;
    snprintf(P->where, sizeof(P->where), " on host %s", P->host);
    job->where = P->where;
    if (chdir(cwd) != 0 && o->app[0].wdir == NULL)
        fprintf(stderr, PROG " on %s: cannot change to mpiexec's directory '%s': %s\n",
                P->host, cwd, strerror(errno));
    free(kvsname);
    free(cwd);
}

/* ---- The link up to mpiexec ---- */

static proxy_t *P_of(fy_mpx_job_t *job)
{
    return job->link_ctx;
}

static void up_lost(proxy_t *P)
{
    if (P->lost)
        return;
    P->lost = 1;
    close(P->up.fd);
    P->up.fd = -1;
    if (P->relay != NULL)
        fy_mpx_relay_abandon(P->relay); /* they see us go and end their ranks */
    fy_mpx_job_t *job = &P->job;
    /* Nobody to report to: the ranks go now. */
    if (!job->terminating) {
        fy_mpx_job_terminate(job, SIGKILL, 0);
    } else {
        fy_mpx_signal_all(job, SIGKILL);
        job->killed = 1;
    }
}

static void up_flush(proxy_t *P)
{
    if (!P->lost && fy_px_conn_flush(&P->up) != 0)
        up_lost(P);
}

static int link_add(fy_mpx_job_t *job, struct pollfd *pfd)
{
    proxy_t *P = P_of(job);
    int n = 0;
    if (!P->lost)
        pfd[n++] = (struct pollfd){
            .fd = P->up.fd, .events = POLLIN | (P->up.out.len > P->up.out.off ? POLLOUT : 0)};
    P->relay_at = n;
    if (P->relay != NULL)
        n += fy_mpx_relay_add(P->relay, pfd + n);
    return n;
}

/* A whole frame from the relay for mpiexec. */
static void relay_up(void *ctx, const void *frame, size_t len)
{
    proxy_t *P = ctx;
    if (P->lost)
        return;
    fy_px_put(&P->up.out, frame, len);
    up_flush(P);
}

static void on_stdin(proxy_t *P, const char *p, size_t n)
{
    fy_mpx_job_t *job = &P->job;
    P->stdin_recv += n;
    if (n == 0) {
        job->stdin_open = 0; /* end of input: closed once what is buffered went through */
        fy_mpx_stdin_write(job);
        return;
    }
    if (job->stdin_to < 0)
        return; /* rank 0 closed its stdin, or is gone */
    if (job->stdin_len + n > P->stdin_cap) {
        size_t cap = P->stdin_cap ? P->stdin_cap : 65536;
        while (cap < job->stdin_len + n)
            cap *= 2;
        char *b = realloc(job->stdin_buf, cap);
        if (b == NULL)
            return;
        job->stdin_buf = b;
        P->stdin_cap = cap;
    }
    memcpy(job->stdin_buf + job->stdin_len, p, n);
    job->stdin_len += n;
    fy_mpx_stdin_write(job);
}

static int on_frame(proxy_t *P, int type, fy_px_reader_t *r)
{
    fy_mpx_job_t *job = &P->job;
    switch (type) {
    case FY_PX_RELAY_DOWN: {
        /* For us, for our whole subtree, or for a proxy below us. */
        const uint8_t *raw = r->p - 5;
        size_t rawlen = r->left + 5;
        uint32_t dest = fy_px_get_u32(r);
        if (r->bad || r->left < 5)
            return -1;
        const uint8_t *q = r->p;
        uint32_t n = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        if (n < 1 || (size_t)n + 4 != r->left)
            return -1;
        if ((dest == FY_PX_ALL || dest != (uint32_t)index_arg) && P->relay != NULL)
            fy_mpx_relay_down(P->relay, dest, raw, rawlen);
        if (dest != FY_PX_ALL && dest != (uint32_t)index_arg)
            return 0;
        fy_px_reader_t inner = {q + 5, n - 1, 0};
        return q[4] == FY_PX_RELAY_DOWN ? -1 : on_frame(P, q[4], &inner);
    }
    case FY_PX_KVS: {
        uint32_t n = fy_px_get_u32(r);
        for (uint32_t i = 0; i < n && !r->bad; i++) {
            char *k = fy_px_get_str(r), *v = fy_px_get_str(r);
            if (k != NULL && v != NULL)
                fy_pmi_kvs_put(&job->kvs, k, v);
            free(k);
            free(v);
        }
        if (r->bad)
            return -1;
        fy_mpx_pmi_barrier_out(job);
        return 0;
    }
    case FY_PX_STDIN: {
        size_t n;
        const char *p = fy_px_get_bytes(r, &n);
        if (r->bad)
            return -1;
        on_stdin(P, p, n);
        return 0;
    }
    case FY_PX_SIGNAL: {
        int sig = (int)fy_px_get_u32(r), grace = (int)fy_px_get_u32(r);
        if (r->bad || sig <= 0 || sig >= NSIG)
            return -1;
        if (sig == SIGKILL) {
            fy_mpx_signal_all(job, SIGKILL);
            job->killed = job->terminating = 1;
        } else if (!job->terminating) {
            fy_mpx_job_terminate(job, sig, grace);
        }
        return 0;
    }
    case FY_PX_BROKEN: {
        uint32_t dest = fy_px_get_u32(r);
        if (r->bad || (dest != 1 && dest != 2))
            return -1;
        job->dest_broken[dest] = 1; /* iofwd.c closes the pipes as they are next read */
        return 0;
    }
    case FY_PX_PING: {
        size_t f = fy_px_frame_begin(&P->up.out, FY_PX_PONG);
        fy_px_frame_end(&P->up.out, f);
        return 0;
    }
    default: return -1;
    }
}

static void up_ready(proxy_t *P, struct pollfd *pfd);
static void up_frames(proxy_t *P);

static void link_ready(fy_mpx_job_t *job, struct pollfd *pfd, int n)
{
    proxy_t *P = P_of(job);
    int at = P->relay_at;
    if (at > 0)
        up_ready(P, pfd);
    if (P->relay != NULL && n > at)
        fy_mpx_relay_ready(P->relay, pfd + at, n - at);
}

static void up_ready(proxy_t *P, struct pollfd *pfd)
{
    if (P->lost || pfd[0].revents == 0)
        return;
    if (pfd[0].revents & POLLOUT)
        up_flush(P);
    if (P->lost || !(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
        return;
    ssize_t got = fy_px_conn_fill(&P->up);
    if (got == -2)
        return;
    if (got <= 0) {
        up_lost(P);
        return;
    }
    P->last_rx = fy_mpx_now_ms();
    up_frames(P);
}

/* Every complete frame from mpiexec. */
static void up_frames(proxy_t *P)
{
    int type, rc;
    fy_px_reader_t r;
    while (!P->lost && (rc = fy_px_conn_next(&P->up, &type, &r)) != 0) {
        if (rc < 0 || on_frame(P, type, &r) != 0) {
            fprintf(stderr, PROG " on %s: malformed message from mpiexec\n", P->host);
            up_lost(P);
            return;
        }
    }
    up_flush(P);
}

static long long up_tick(fy_mpx_job_t *job, long long now);

static long long link_tick(fy_mpx_job_t *job, long long now)
{
    proxy_t *P = P_of(job);
    long long a = up_tick(job, now);
    long long b = P->relay != NULL ? fy_mpx_relay_tick(P->relay, now) : -1;
    return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

static int link_busy(fy_mpx_job_t *job)
{
    proxy_t *P = P_of(job);
    return P->relay != NULL && fy_mpx_relay_busy(P->relay);
}

static void link_child(fy_mpx_job_t *job)
{
    proxy_t *P = P_of(job);
    if (P->relay != NULL)
        fy_mpx_relay_child(P->relay);
}

static void link_signal(fy_mpx_job_t *job, int sig)
{
    proxy_t *P = P_of(job);
    if (P->relay != NULL)
        fy_mpx_relay_signal(P->relay, sig);
}

static long long up_tick(fy_mpx_job_t *job, long long now)
{
    proxy_t *P = P_of(job);
    if (P->lost)
        return -1;
    if (!P->started) {
        /* What came with the JOB (stdin, BROKEN) waits for the ranks, now started. */
        P->started = 1;
        up_frames(P);
        if (P->lost)
            return -1;
    }
    if (now - P->last_rx >= DEAD_MS) {
        fprintf(stderr, PROG " on %s: no word from mpiexec for 5 s; ending the ranks\n",
                P->host);
        up_lost(P);
        return -1;
    }
    /* Stdin taken by rank 0 (or dropped with it): mpiexec may send that much more. */
    unsigned long long done = P->stdin_recv - job->stdin_len;
    if (done > P->stdin_acked) {
        size_t f = fy_px_frame_begin(&P->up.out, FY_PX_STDIN_ACK);
        fy_px_put_u32(&P->up.out, (uint32_t)(done - P->stdin_acked));
        fy_px_frame_end(&P->up.out, f);
        P->stdin_acked = done;
        up_flush(P);
    }
    return P->last_rx + DEAD_MS;
}

static void link_fail(fy_mpx_job_t *job, int code, const char *msg)
{
    proxy_t *P = P_of(job);
    if (P->lost)
        return;
    size_t f = fy_px_frame_begin(&P->up.out, FY_PX_FAIL);
    fy_px_put_u32(&P->up.out, (uint32_t)code);
    fy_px_put_u32(&P->up.out, msg != NULL);
    if (msg != NULL)
        fy_px_put_str(&P->up.out, msg);
    fy_px_frame_end(&P->up.out, f);
    up_flush(P);
}

static void link_emit(fy_mpx_job_t *job, int rank, int dest, const char *buf, size_t len)
{
    proxy_t *P = P_of(job);
    if (P->lost || len == 0)
        return;
    size_t f = fy_px_frame_begin(&P->up.out, FY_PX_OUT);
    fy_px_put_u32(&P->up.out, (uint32_t)rank);
    fy_px_put_u32(&P->up.out, (uint32_t)dest);
    fy_px_put_bytes(&P->up.out, buf, len);
    fy_px_frame_end(&P->up.out, f);
    up_flush(P);
}

static void link_put(fy_mpx_job_t *job, const char *key, const char *val)
{
    proxy_t *P = P_of(job);
    if (fy_px_put_str(&P->puts, key) == 0 && fy_px_put_str(&P->puts, val) == 0)
        P->nputs++;
}

static void link_fence(fy_mpx_job_t *job)
{
    proxy_t *P = P_of(job);
    if (!P->lost) {
        size_t f = fy_px_frame_begin(&P->up.out, FY_PX_FENCE);
        fy_px_put_u32(&P->up.out, P->nputs);
        fy_px_put(&P->up.out, P->puts.d, P->puts.len);
        fy_px_frame_end(&P->up.out, f);
        up_flush(P);
    }
    P->puts.off = P->puts.len = 0;
    P->nputs = 0;
}

static int link_out_full(fy_mpx_job_t *job)
{
    proxy_t *P = P_of(job);
    return !P->lost && P->up.out.len - P->up.out.off > OUT_FULL;
}

static const fy_mpx_link_t proxy_link = {
    .add = link_add,
    .ready = link_ready,
    .tick = link_tick,
    .busy = link_busy,
    .child = link_child,
    .signal = link_signal,
    .fail = link_fail,
    .emit = link_emit,
    .put = link_put,
    .fence = link_fence,
    .out_full = link_out_full,
};

/* --all-cpus (a proxy started as a Slurm step): a task plugin may have bound us to one CPU, and
 * every rank we fork would inherit it. Asking for every CPU gets those the step's cpuset allows
 * (the kernel keeps only those): all of the job's CPUs on this node. */
static void widen_affinity(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);
    if (n < 1)
        return;
    cpu_set_t *set = CPU_ALLOC((int)n);
    if (set == NULL)
        return;
    size_t size = CPU_ALLOC_SIZE((int)n);
    CPU_ZERO_S(size, set);
    for (int c = 0; c < (int)n; c++)
        CPU_SET_S(c, size, set);
    if (sched_setaffinity(0, size, set) != 0) {
        /* keep the binding we were given: the job still runs */
    }
    CPU_FREE(set);
}

static void usage(void)
{
    fprintf(stderr, "Usage: " PROG " --connect ADDR[,ADDR...] --port PORT --index I\n"
                    "                   [--all-cpus]\n"
                    "Started by mpiexec on each host of a job (the job's secret on stdin);\n"
                    "not meant to be run by hand.\n");
    exit(1);
}

int main(int argc, char **argv)
{
    const char *addrs = NULL;
    int port = -1, all_cpus = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && strcmp(argv[i], "--connect") == 0)
            addrs = argv[++i];
        else if (i + 1 < argc && strcmp(argv[i], "--port") == 0)
            port = atoi(argv[++i]);
        else if (i + 1 < argc && strcmp(argv[i], "--index") == 0)
            index_arg = atoi(argv[++i]);
        else if (strcmp(argv[i], "--all-cpus") == 0)
            all_cpus = 1;
        else
            usage();
    }
    if (addrs == NULL || port <= 0 || port > 65535 || index_arg < 0)
        usage();
    if (all_cpus)
        widen_affinity();

    static proxy_t proxy;
    proxy_t *P = &proxy;
    uint8_t secret[FY_PX_SECRET_LEN];
    read_secret(secret);
    P->up = (fy_px_conn_t){.fd = connect_any(addrs, port)};
    handshake(&P->up, secret, (uint32_t)index_arg);
    read_job(P);

    fy_mpx_job_t *job = &P->job;
    struct sockaddr_storage ss;
    socklen_t sl = sizeof(ss);
    if (getsockname(P->up.fd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, P->tcp_addr,
                      sizeof(P->tcp_addr));
        else
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, P->tcp_addr,
                      sizeof(P->tcp_addr));
        /* An IPv4 connection on a dual-stack socket shows as ::ffff:a.b.c.d. */
        if (strncmp(P->tcp_addr, "::ffff:", 7) == 0 && strchr(P->tcp_addr, '.') != NULL)
            memmove(P->tcp_addr, P->tcp_addr + 7, strlen(P->tcp_addr + 7) + 1);
        job->tcp_addr = P->tcp_addr;
    }
    if ((job->secret_fd = fy_px_secret_memfd(secret)) < 0)
        die("cannot make the secret's memfd: %s", strerror(errno));
    job->link = &proxy_link;
    job->link_ctx = P;
    job->link_slots = 1;
    if (P->ndesc > 0) {
        /* We relay for the proxies below us, on the address mpiexec reached us by. */
        P->relay = fy_mpx_relay_new(job, secret, P->agent, P->srun, P->proxy_path, P->tcp_addr,
                                    index_arg, P->ndesc, P->desc_index, P->desc_name,
                                    P->desc_parent, relay_up, P);
        if (P->relay == NULL)
            die("cannot relay for the proxies below this one");
        job->link_slots += fy_mpx_relay_slots(P->relay);
    }
    explicit_bzero(secret, sizeof(secret));
    job->stdin_remote = 1;
    P->last_rx = fy_mpx_now_ms();

    fy_mpx_job_exec(job);
    fy_mpx_relay_free(P->relay);

    if (P->lost)
        return 1;
    size_t f = fy_px_frame_begin(&P->up.out, FY_PX_DONE);
    fy_px_frame_end(&P->up.out, f);
    long long deadline = fy_mpx_now_ms() + STEP_MS;
    while (P->up.out.len > P->up.out.off) {
        if (fy_px_conn_flush(&P->up) != 0 ||
            (P->up.out.len > P->up.out.off && wait_fd(P->up.fd, POLLOUT, deadline) != 0))
            return 1;
    }
    /* Wait for mpiexec to close: our end closing first could reset what it has not read. */
    char buf[4096];
    while (wait_fd(P->up.fd, POLLIN, deadline) == 0 && recv(P->up.fd, buf, sizeof(buf), 0) > 0)
        ;
    return 0;
}
