/* What mpiexec's tool servers share (toolsrv.h): listening with a key, the connections that
 * authenticate, the ranks' line-buffered connections. */
#include "toolsrv.h"

#include "preload.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define HANDSHAKE_MS 5000  /* to authenticate after connecting */
#define AUTH_LINE_MAX 256  /* the AUTH line is under 128 bytes */
#define LISTEN_BACKLOG 4096 /* every rank connects during MPI_Init, at about the same time */
#define MAX_REFUSED_LOGGED 5

struct fy_mpx_pend {
    fy_mpx_conn_t c; /* fd -1: free */
    uint8_t nonce[32];
    long long deadline;
    char peer[INET6_ADDRSTRLEN + 8];
};

/* ---- Connections ---- */

void fy_mpx_conn_close(fy_mpx_conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
    free(c->out);
    *c = (fy_mpx_conn_t){.fd = -1};
}

int fy_mpx_conn_flush(fy_mpx_conn_t *c)
{
    while (c->outlen > 0) {
        ssize_t n = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        memmove(c->out, c->out + n, c->outlen - (size_t)n);
        c->outlen -= (size_t)n;
    }
    return 0;
}

int fy_mpx_conn_say(fy_mpx_conn_t *c, const void *buf, size_t len, size_t max_queued)
{
    if (c->fd < 0 || c->outlen + len > max_queued)
        return -1;
    if (c->outlen + len > c->outcap) {
        size_t cap = c->outcap ? 2 * c->outcap : 256;
        while (cap < c->outlen + len)
            cap *= 2;
        char *o = realloc(c->out, cap);
        if (o == NULL)
            return -1;
        c->out = o;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, buf, len);
    c->outlen += len;
    return fy_mpx_conn_flush(c);
}

/* The whole lines waiting in c->in, to fn; the rest moved to the front. */
static int take_lines(fy_mpx_conn_t *c, size_t max, int (*fn)(void *, char *), void *ctx)
{
    char *nl;
    while (c->inoff < c->inlen &&
           (nl = memchr(c->in + c->inoff, '\n', c->inlen - c->inoff)) != NULL) {
        char *line = c->in + c->inoff;
        *nl = '\0';
        c->inoff = (size_t)(nl + 1 - c->in); /* taken before fn, which may move c */
        int rc = fn(ctx, line);
        if (rc != 0)
            return rc;
    }
    c->inlen -= c->inoff;
    if (c->inlen > 0)
        memmove(c->in, c->in + c->inoff, c->inlen);
    c->inoff = 0;
    return c->inlen >= max ? FY_MPX_CONN_LONG : 0;
}

int fy_mpx_conn_read(fy_mpx_conn_t *c, size_t max, int (*fn)(void *ctx, char *line), void *ctx)
{
    for (;;) {
        int rc = take_lines(c, max, fn, ctx);
        if (rc != 0)
            return rc;
        if (c->inlen == c->incap) {
            size_t cap = c->incap ? 2 * c->incap : 1024;
            cap = cap > max + 1 ? max + 1 : cap;
            char *in = realloc(c->in, cap);
            if (in == NULL)
                return FY_MPX_CONN_CLOSED; /* out of memory: as good as gone */
            c->in = in;
            c->incap = cap;
        }
        ssize_t n = recv(c->fd, c->in + c->inlen, c->incap - c->inlen, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return FY_MPX_CONN_CLOSED;
        c->inlen += (size_t)n;
    }
}

/* ---- Setting up and closing ---- */

int fy_mpx_toolsrv_open(fy_mpx_toolsrv_t *srv, const fy_mpx_toolsrv_conf_t *conf,
                        fy_mpx_opts_t *o, int remote, const char *iface, int all_here,
                        const char *first_remote)
{
    srv->conf = conf;
    srv->ls.nlfd = 0;
    if (!remote || all_here) {
        if (fy_mpx_listen_at(&srv->ls, "127.0.0.1") != 0) {
            fprintf(stderr, FY_MPX_PROG ": %s: cannot listen on 127.0.0.1: %s\n", conf->option,
                    strerror(errno));
            return -1;
        }
    } else if (fy_mpx_listen_choose(&srv->ls, iface, 0, first_remote) != 0) {
        return -1;
    }
    for (int i = 0; i < srv->ls.nlfd; i++)
        listen(srv->ls.lfd[i], LISTEN_BACKLOG);
    if (getrandom(srv->key, sizeof(srv->key), 0) != (ssize_t)sizeof(srv->key)) {
        fprintf(stderr, FY_MPX_PROG ": %s: getrandom: %s\n", conf->option, strerror(errno));
        return -1;
    }
    char keyhex[2 * FY_AUTH_KEY_LEN + 1], addr[sizeof(srv->ls.addrs) + 16];
    fy_auth_tohex(srv->key, sizeof(srv->key), keyhex);
    snprintf(addr, sizeof(addr), "%s:%d", srv->ls.addrs, srv->ls.port);
    int rc = fy_mpx_env_add(&o->env, conf->addr_var, addr) |
             fy_mpx_env_add(&o->env, conf->key_var, keyhex);
    explicit_bzero(keyhex, sizeof(keyhex));
    srv->np = o->np;
    srv->rank = calloc((size_t)o->np, sizeof(*srv->rank));
    srv->pend = calloc((size_t)conf->pend_max, sizeof(*srv->pend));
    srv->slot = calloc((size_t)fy_mpx_toolsrv_slots(srv), sizeof(*srv->slot));
    if (rc != 0 || srv->rank == NULL || srv->pend == NULL || srv->slot == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return -1;
    }
    for (int i = 0; i < conf->pend_max; i++)
        srv->pend[i].c.fd = -1;
    for (int r = 0; r < o->np; r++)
        srv->rank[r].fd = -1;
    return 0;
}

void fy_mpx_toolsrv_stop_listening(fy_mpx_toolsrv_t *srv)
{
    for (int i = 0; i < srv->ls.nlfd; i++)
        close(srv->ls.lfd[i]);
    srv->ls.nlfd = 0;
}

void fy_mpx_toolsrv_close(fy_mpx_toolsrv_t *srv)
{
    fy_mpx_toolsrv_stop_listening(srv);
    for (int i = 0; srv->pend != NULL && i < srv->conf->pend_max; i++)
        fy_mpx_conn_close(&srv->pend[i].c);
    for (int r = 0; srv->rank != NULL && r < srv->np; r++)
        fy_mpx_conn_close(&srv->rank[r]);
    free(srv->rank);
    free(srv->pend);
    free(srv->slot);
    srv->rank = NULL;
    srv->pend = NULL;
    srv->slot = NULL;
    srv->nadded = 0;
    explicit_bzero(srv->key, sizeof(srv->key));
}

/* ---- The ranks' connections ---- */

typedef struct rank_ctx {
    fy_mpx_toolsrv_t *srv;
    int rank;
} rank_ctx_t;

static int rank_line(void *ctx, char *line)
{
    const rank_ctx_t *x = ctx;
    return x->srv->conf->line(x->rank, line) != 0 ? 1 : 0;
}

void fy_mpx_toolsrv_read(fy_mpx_toolsrv_t *srv, int rank)
{
    if (rank < 0 || rank >= srv->np || srv->rank[rank].fd < 0)
        return;
    rank_ctx_t x = {srv, rank};
    if (fy_mpx_conn_read(&srv->rank[rank], srv->conf->line_max, rank_line, &x) != 0) {
        fy_mpx_conn_close(&srv->rank[rank]);
        srv->conf->gone(rank);
    }
}

void fy_mpx_toolsrv_hangup(fy_mpx_toolsrv_t *srv, int rank)
{
    if (rank >= 0 && rank < srv->np)
        fy_mpx_conn_close(&srv->rank[rank]);
}

void fy_mpx_toolsrv_say(fy_mpx_toolsrv_t *srv, int rank, const char *line)
{
    /* A line lost for memory is like one the rank never read: the protocols ask again. */
    if (rank >= 0 && rank < srv->np)
        (void)fy_mpx_conn_say(&srv->rank[rank], line, strlen(line), (size_t)-1);
}

/* ---- Connections authenticating ---- */

static void refuse(fy_mpx_toolsrv_t *srv, fy_mpx_pend_t *p, const char *why)
{
    srv->refused++;
    if (srv->refused <= MAX_REFUSED_LOGGED)
        fprintf(stderr, "%s: refused a connection from %s: %s (%d refused so far)\n",
                srv->conf->name, p->peer, why, srv->refused);
    fy_mpx_conn_close(&p->c);
}

static fy_mpx_pend_t *free_pending(fy_mpx_toolsrv_t *srv)
{
    for (int i = 0; i < srv->conf->pend_max; i++)
        if (srv->pend[i].c.fd < 0)
            return &srv->pend[i];
    return NULL;
}

static void accept_all(fy_mpx_toolsrv_t *srv, int lfd)
{
    fy_mpx_pend_t *p;
    while ((p = free_pending(srv)) != NULL) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
            continue;
        if (fd < 0) {
            if (srv->conf->accept_failed != NULL)
                srv->conf->accept_failed(errno);
            return;
        }
        *p = (fy_mpx_pend_t){.c = {.fd = fd}, .deadline = fy_mpx_now_ms() + HANDSHAKE_MS};
        char line[128];
        if (fy_auth_hello(srv->conf->proto, p->nonce, line, sizeof(line)) != 0) {
            fy_mpx_conn_close(&p->c);
            continue;
        }
        char host[INET6_ADDRSTRLEN] = "?";
        int port = 0;
        if (ss.ss_family == AF_INET) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
            port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
        } else if (ss.ss_family == AF_INET6) {
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
            port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
        }
        snprintf(p->peer, sizeof(p->peer), "%s:%d", host, port);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        (void)fy_mpx_conn_say(&p->c, line, strlen(line), (size_t)-1);
    }
}

typedef struct pend_ctx {
    fy_mpx_toolsrv_t *srv;
    fy_mpx_pend_t *p;
} pend_ctx_t;

/* The first line of a pending connection: it moves to its rank's place, or is closed. */
static int on_auth(void *ctx, char *line)
{
    fy_mpx_toolsrv_t *srv = ((pend_ctx_t *)ctx)->srv;
    fy_mpx_pend_t *p = ((pend_ctx_t *)ctx)->p;
    int rank, size;
    long pid;
    int rc = fy_auth_verify(srv->key, p->nonce, line, &rank, &size, &pid);
    if (rc != FY_AUTH_OK) {
        refuse(srv, p, rc == FY_AUTH_WRONG_KEY ? "wrong key" : srv->conf->not_proto);
        return 1;
    }
    if (size != srv->np || rank < 0 || rank >= srv->np || srv->rank[rank].fd >= 0 ||
        srv->conf->admit(rank) != 0) {
        /* It knows the key: processes the job started with MPI_Comm_spawn (another world), or
         * a program that ran MPI twice. They go unwatched, quietly. */
        (void)fy_mpx_conn_say(&p->c, "NO\n", 3, (size_t)-1);
        fy_mpx_conn_close(&p->c);
        return 1;
    }
    /* Moves to the rank's place, with what it has sent after AUTH. */
    srv->rank[rank] = p->c;
    p->c = (fy_mpx_conn_t){.fd = -1};
    (void)fy_mpx_conn_say(&srv->rank[rank], "OK\n", 3, (size_t)-1);
    srv->conf->joined(rank);
    fy_mpx_toolsrv_read(srv, rank);
    return 1;
}

static void pend_read(fy_mpx_toolsrv_t *srv, fy_mpx_pend_t *p)
{
    pend_ctx_t x = {srv, p};
    int rc = fy_mpx_conn_read(&p->c, AUTH_LINE_MAX, on_auth, &x);
    if (rc == FY_MPX_CONN_CLOSED)
        refuse(srv, p, "closed before authenticating");
    else if (rc == FY_MPX_CONN_LONG)
        refuse(srv, p, srv->conf->not_proto);
}

long long fy_mpx_toolsrv_tick(fy_mpx_toolsrv_t *srv, long long now)
{
    long long wake = -1;
    for (int i = 0; i < srv->conf->pend_max; i++) {
        fy_mpx_pend_t *p = &srv->pend[i];
        if (p->c.fd < 0)
            continue;
        if (now >= p->deadline)
            refuse(srv, p, "no answer to the handshake");
        else if (wake < 0 || p->deadline < wake)
            wake = p->deadline;
    }
    return wake;
}

/* ---- The poll loop ---- */

/* An entry's slot: a listening socket (0, 1), a pending connection (2 + i), a rank's. */
#define SLOT_PEND 2

int fy_mpx_toolsrv_slots(const fy_mpx_toolsrv_t *srv)
{
    return SLOT_PEND + srv->conf->pend_max + srv->np;
}

static void add(fy_mpx_toolsrv_t *srv, struct pollfd *pfd, const fy_mpx_conn_t *c, int slot)
{
    pfd[srv->nadded] = (struct pollfd){.fd = c->fd,
                                       .events = (short)(POLLIN | (c->outlen ? POLLOUT : 0))};
    srv->slot[srv->nadded++] = slot;
}

int fy_mpx_toolsrv_add(fy_mpx_toolsrv_t *srv, struct pollfd *pfd)
{
    srv->nadded = 0;
    /* With every handshake slot taken, new connections wait in the listen backlog. */
    for (int i = 0; i < srv->ls.nlfd && free_pending(srv) != NULL; i++) {
        pfd[srv->nadded] = (struct pollfd){.fd = srv->ls.lfd[i], .events = POLLIN};
        srv->slot[srv->nadded++] = i;
    }
    for (int i = 0; i < srv->conf->pend_max; i++)
        if (srv->pend[i].c.fd >= 0)
            add(srv, pfd, &srv->pend[i].c, SLOT_PEND + i);
    for (int r = 0; r < srv->np; r++)
        if (srv->rank[r].fd >= 0)
            add(srv, pfd, &srv->rank[r], SLOT_PEND + srv->conf->pend_max + r);
    return srv->nadded;
}

int fy_mpx_toolsrv_ready(fy_mpx_toolsrv_t *srv, const struct pollfd *pfd)
{
    int pend_end = SLOT_PEND + srv->conf->pend_max;
    for (int k = 0; k < srv->nadded; k++) {
        int s = srv->slot[k];
        if (pfd[k].revents == 0)
            continue;
        if (s < SLOT_PEND) {
            if (s < srv->ls.nlfd && srv->ls.lfd[s] == pfd[k].fd)
                accept_all(srv, pfd[k].fd);
            continue;
        }
        fy_mpx_conn_t *c = s < pend_end ? &srv->pend[s - SLOT_PEND].c : &srv->rank[s - pend_end];
        if (c->fd != pfd[k].fd)
            continue; /* moved or closed by an earlier entry */
        if ((pfd[k].revents & POLLOUT) && c->outlen > 0)
            (void)fy_mpx_conn_flush(c); /* a failure shows when reading */
        if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        if (s < pend_end)
            pend_read(srv, &srv->pend[s - SLOT_PEND]);
        else
            fy_mpx_toolsrv_read(srv, s - pend_end);
    }
    return srv->nadded;
}
