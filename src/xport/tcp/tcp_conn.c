/* The TCP transport: records (a fy_hdr_t and its payload, as on shared memory) over one stream
 * socket per pair of ranks that talk, made on first use.
 *
 * Connections. Each rank listens on one address (tcp_addr.c) and publishes its business card
 * "address,port" as fy-tcp-<rank> at MPI_Init; a rank connects when it first sends to a peer,
 * so a job of 1,000 ranks that talk to neighbours opens a few thousand sockets, not a million.
 * Handshake (every message fixed-size):
 *   initiator -> acceptor  HELLO      magic, from, to, nonce_i
 *   acceptor -> initiator  CHALLENGE  magic, verdict, nonce_a, HMAC(secret, "C" verdict nonce_i from to)
 *   initiator -> acceptor  PROOF      HMAC(secret, "P" nonce_a from to)
 * so each side proves it knows the job's secret without sending it, and a connection carries
 * records only once both have. When two ranks connect to each other at once, the connection the
 * lower rank started wins: the lower rank answers the other's HELLO with verdict REJECT, the
 * higher one drops its own attempt when it accepts the lower one's. Records wait in the peer's
 * queue meanwhile, so order holds whichever socket carries them.
 *
 * Sending. A record goes straight to the socket with one sendmsg when nothing is queued; what
 * the socket does not take is copied to the peer's queue, except the payload of a DATA record
 * (a rendezvous fragment straight from the user's buffer), which the transport keeps pointing
 * at (`pin`) until it is written: fy_xport_tcp.holds tells the sender not to finish its request
 * until then, and the transport refuses further records to that peer meanwhile. Queues grow
 * geometrically and stay: no allocation per message in a steady stream.
 *
 * Receiving. Bytes are read into the peer's buffer and records handed on from there; a DATA
 * fragment bound for a contiguous receive buffer is read straight into it (fy_xport_place).
 *
 * Progress polls the sockets with epoll_wait(0) from fy_progress; a rank with nothing to do
 * sleeps in epoll_wait on its sockets and its shared-memory doorbell's eventfd (fy_tcp_sleep).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fy_clock.h"
#include "fy_err.h"
#include "fy_knobs.h"
#include "fy_pmi.h"
#include "fy_runtime.h"
#include "fy_sha256.h"
#include "fy_xport.h"
#include "tcp.h"

#define MAGIC 0x31545946u /* "FYT1" */
enum { NONCE = 16, MAC = 32 };
enum { VERDICT_ACCEPT = 1, VERDICT_REJECT = 2 };
typedef struct {
    uint32_t magic, from, to;
    uint8_t nonce[NONCE];
} hello_t;
typedef struct {
    uint32_t magic, verdict;
    uint8_t nonce[NONCE];
    uint8_t mac[MAC];
} challenge_t;

/* ST_ACCEPTING: the peer's HELLO was accepted, its PROOF is awaited (records queue). */
enum { ST_NONE, ST_CONNECTING, ST_HELLO, ST_ACCEPTING, ST_UP, ST_GONE };
enum {
    HDR = sizeof(fy_hdr_t),
    QUEUE_CAP = 4 << 20,    /* bytes queued to one peer before senders are told to wait */
    PLACE_MIN = 4096,       /* DATA payloads from this size are read straight into place */
    RX_MIN = 256 * 1024,    /* the receive buffer: many small records per read */
    FRAG = 512 * 1024,      /* DATA fragments (fewer headers and calls than shm's) */
    HANDSHAKE_NS = 1000000000,
};

typedef struct {
    int fd, state;
    uint8_t nonce[NONCE]; /* ours, as initiator */
    unsigned char *out;   /* queued bytes out[out_off..out_len), then the pinned payload */
    size_t out_off, out_len, out_cap;
    const unsigned char *pin;
    size_t pin_len;
    bool want_out; /* EPOLLOUT is registered */
    unsigned char *rx; /* received bytes rx[rx_off..rx_len) */
    size_t rx_off, rx_len, rx_cap;
    unsigned char *place; /* a DATA payload being read into place: where, how much is left */
    size_t place_left;
    fy_hdr_t place_h;
    bool gone; /* the peer closed after its last record (it finalized), or the link failed */
} peer_t;

/* An accepted connection not yet proved: what it has sent so far. */
typedef struct anon {
    struct anon *next;
    int fd, from;
    bool dup;    /* claims a rank we are connected to already: never attached (see anon_step) */
    bool doomed; /* our own attempt, abandoned while connecting: greet, then hang up */
    int64_t deadline;
    size_t got;
    uint8_t buf[sizeof(hello_t) > MAC ? sizeof(hello_t) : MAC];
    uint8_t nonce[NONCE];
    char who[64];
} anon_t;

int fy_tcp_active;
static peer_t *peers;
/* With few connections, most progress passes read them directly (one recv each) instead of
 * asking epoll first: on arrival that saves a system call per message (a ping-pong between
 * the test hosts: a sixth of the one-way time). Every DIRECT_EVERY-th pass, and always with
 * more connections, epoll looks at everything (accepts, handshakes, room to write). */
enum { DIRECT_MAX = 4, DIRECT_EVERY = 16 };
static int up_idx[DIRECT_MAX], nup; /* UP connections, while there are at most DIRECT_MAX */
static int nup_all;                 /* UP connections in all */
static unsigned direct_pass;
static anon_t *anons;
static int nanons;
static int listen_fd = -1, ep = -1;
static int me, nranks;
static uint8_t secret[32];
static int have_secret; /* 1: read; 0: to fetch from the KVS at first use */
static struct fy_pmi *pmi_conn;
static unsigned strays_logged;
static unsigned left_count; /* peers whose stream ended */

#define EV_LISTEN ((uint64_t)1 << 62)
#define EV_ANON ((uint64_t)1 << 61)
#define EV_BELL ((uint64_t)1 << 60)

static void stray(const char *who, const char *why)
{
    /* A port scanner or a hostile client must not flood the job's output. */
    if (strays_logged < 8)
        fprintf(stderr, "Ferry: rank %d: dropped a TCP connection from %s: %s\n", me, who, why);
    else if (strays_logged == 8)
        fprintf(stderr, "Ferry: rank %d: dropping further stray TCP connections silently\n", me);
    strays_logged++;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int from_hex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int a = hexval((unsigned char)s[2 * i]), b = a < 0 ? -1 : hexval((unsigned char)s[2 * i + 1]);
        if (b < 0)
            return -1;
        out[i] = (uint8_t)(a << 4 | b);
    }
    return 0;
}

static void to_hex(const uint8_t *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", in[i]);
}

/* The job's secret: from the launcher's file descriptor (Ferry's mpiexec and proxies), else
 * made by rank 0 and shared through the process manager, which only the job's ranks reach. */
static int secret_init(struct fy_pmi *pmi)
{
    const char *fd_text = getenv("FY_SECRET_FD");
    if (fd_text && *fd_text) {
        int fd = atoi(fd_text);
        char hex[64];
        ssize_t n = pread(fd, hex, sizeof hex, 0);
        if (n == (ssize_t)sizeof hex && from_hex(hex, secret, sizeof secret) == 0) {
            have_secret = 1;
            return MPI_SUCCESS;
        }
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: FY_SECRET_FD=%s holds no job secret", fd_text);
    }
    if (me != 0)
        return MPI_SUCCESS; /* fetched at first use, after the init fences */
    if (getrandom(secret, sizeof secret, 0) != (ssize_t)sizeof secret)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: no random numbers for the TCP secret");
    char hex[65];
    to_hex(secret, sizeof secret, hex);
    if (fy_pmi_put(pmi, "fy-tcp-secret", hex) != 0)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager put failed: %s",
                          fy_pmi_last_error());
    have_secret = 1;
    return MPI_SUCCESS;
}

static void need_secret(void)
{
    if (have_secret)
        return;
    char hex[FY_PMI_MAX_VAL];
    if (fy_pmi_get(pmi_conn, 0, "fy-tcp-secret", hex, sizeof hex) != 0 || strlen(hex) != 64 ||
        from_hex(hex, secret, sizeof secret) != 0)
        fy_fatal(MPI_ERR_OTHER, "the TCP transport found no job secret in the process manager");
    have_secret = 1;
}

/* mac = HMAC(secret, tag nonce verdict from to). */
static void mac_of(char tag, const uint8_t *nonce, uint32_t verdict, uint32_t from, uint32_t to,
                   uint8_t *mac)
{
    uint8_t msg[1 + NONCE + 12];
    msg[0] = (uint8_t)tag;
    memcpy(msg + 1, nonce, NONCE);
    memcpy(msg + 1 + NONCE, &verdict, 4);
    memcpy(msg + 5 + NONCE, &from, 4);
    memcpy(msg + 9 + NONCE, &to, 4);
    fy_hmac_sha256(secret, sizeof secret, msg, sizeof msg, mac);
}

static void ep_set(int fd, uint64_t data, uint32_t events, int op)
{
    struct epoll_event e = {.events = events, .data.u64 = data};
    epoll_ctl(ep, op, fd, &e);
}

static void want_out(peer_t *p, int idx, bool on)
{
    if (p->want_out == on || p->fd < 0 || p->state != ST_UP)
        return;
    p->want_out = on;
    ep_set(p->fd, (uint64_t)idx, EPOLLIN | (on ? EPOLLOUT : 0), EPOLL_CTL_MOD);
}

static void set_sockopts(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    long buf = fy_knob_number(FY_KNOB_TCP_BUF, 0);
    if (buf > 0) {
        int b = buf > (1L << 30) ? 1 << 30 : (int)buf;
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &b, sizeof b);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &b, sizeof b);
    }
}

/* Makes *buf hold at least `need` bytes, doubling (queues and receive buffers only grow: a
 * steady stream allocates nothing). */
static void grow(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 64 * 1024;
    while (c < need)
        c *= 2;
    unsigned char *b = realloc(*buf, c);
    if (!b)
        fy_fatal(MPI_ERR_NO_MEM, "out of memory for a TCP connection's buffer");
    *buf = b;
    *cap = c;
}

/* Appends bytes to p's queue (growing it); the caller has checked QUEUE_CAP. */
static unsigned char *queue_room(peer_t *p, size_t n)
{
    if (p->out_off == p->out_len)
        p->out_off = p->out_len = 0;
    if (p->out_len + n > p->out_cap) {
        if (p->out_off > 0) { /* slide the unsent bytes down first */
            memmove(p->out, p->out + p->out_off, p->out_len - p->out_off);
            p->out_len -= p->out_off;
            p->out_off = 0;
        }
        grow(&p->out, &p->out_cap, p->out_len + n);
    }
    unsigned char *at = p->out + p->out_len;
    p->out_len += n;
    return at;
}

static void queue(peer_t *p, const void *a, size_t na, const void *b, size_t nb)
{
    unsigned char *at = queue_room(p, na + nb);
    memcpy(at, a, na);
    if (nb)
        memcpy(at + na, b, nb);
}

static void left_up(int idx)
{
    if (peers[idx].state != ST_UP)
        return;
    nup_all--;
    for (int i = 0; i < nup; i++)
        if (up_idx[i] == idx) {
            up_idx[i] = up_idx[--nup];
            break;
        }
    if (nup_all > DIRECT_MAX) /* the list holds only the first few: rebuilt when it fits */
        nup = 0;
    else if (nup < nup_all) {
        nup = 0;
        for (int w = 0; w < nranks && nup < DIRECT_MAX; w++)
            if (peers[w].state == ST_UP && w != idx)
                up_idx[nup++] = w;
    }
}

static void lost(int idx, const char *why)
{
    peer_t *p = &peers[idx];
    left_up(idx);
    if (p->fd >= 0) {
        epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
        close(p->fd);
    }
    p->fd = -1;
    p->state = ST_GONE;
    p->gone = true;
    p->pin = NULL;
    p->pin_len = 0;
    p->out_off = p->out_len = 0;
    if (why)
        fy_fatal(MPI_ERR_OTHER, why);
}

/* Writes what is queued for p (then its pinned payload). 1 when something was written. */
static int flush(int idx)
{
    peer_t *p = &peers[idx];
    if (p->state != ST_UP)
        return 0;
    int wrote = 0;
    while (p->out_off < p->out_len || p->pin_len) {
        struct iovec iov[2];
        int n = 0;
        if (p->out_off < p->out_len)
            iov[n++] = (struct iovec){p->out + p->out_off, p->out_len - p->out_off};
        if (p->pin_len)
            iov[n++] = (struct iovec){(void *)p->pin, p->pin_len};
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t k = sendmsg(p->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            char why[160];
            snprintf(why, sizeof why, "the TCP connection to rank %d failed: %s", idx, strerror(errno));
            lost(idx, why);
        }
        wrote = 1;
        size_t q = p->out_len - p->out_off, used = (size_t)k;
        if (used <= q) {
            p->out_off += used;
        } else {
            p->out_off = p->out_len;
            p->pin += used - q;
            p->pin_len -= used - q;
            if (!p->pin_len)
                p->pin = NULL;
        }
    }
    want_out(p, idx, p->out_off < p->out_len || p->pin_len);
    return wrote;
}

static void start_connect(int idx)
{
    peer_t *p = &peers[idx];
    need_secret();
    char card[FY_PMI_MAX_VAL], key[FY_PMI_MAX_KEY];
    snprintf(key, sizeof key, "fy-tcp-%d", idx);
    struct sockaddr_storage a;
    if (fy_pmi_get(pmi_conn, idx, key, card, sizeof card) != 0 || fy_tcp_card_parse(card, &a) != 0) {
        char why[200];
        snprintf(why, sizeof why, "rank %d published no TCP address (%s)", idx, fy_pmi_last_error());
        fy_fatal(MPI_ERR_OTHER, why);
    }
    int fd = socket(a.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    socklen_t len = a.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (fd < 0 || (connect(fd, (struct sockaddr *)&a, len) != 0 && errno != EINPROGRESS)) {
        char why[240];
        snprintf(why, sizeof why, "cannot connect to rank %d at %.64s over TCP: %s", idx, card,
                 strerror(errno));
        fy_fatal(MPI_ERR_OTHER, why);
    }
    set_sockopts(fd);
    p->fd = fd;
    p->state = ST_CONNECTING;
    getrandom(p->nonce, sizeof p->nonce, 0);
    ep_set(fd, (uint64_t)idx, EPOLLOUT, EPOLL_CTL_ADD);
}

/* Reads exactly n bytes of a handshake message that is known to be arriving (a few dozen bytes
 * sent at once): a short wait, never a hang (the connection is dropped after a second). */
static int read_small(int fd, void *buf, size_t n)
{
    size_t got = 0;
    int64_t until = fy_now_ns() + HANDSHAKE_NS;
    while (got < n) {
        ssize_t k = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
        if (k > 0) {
            got += (size_t)k;
        } else if (k == 0 || (errno != EAGAIN && errno != EINTR) || fy_now_ns() > until) {
            return -1;
        }
    }
    return 0;
}

static int write_small(int fd, const void *buf, size_t n)
{
    return send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)n ? 0 : -1;
}

static void became_up(int idx)
{
    peer_t *p = &peers[idx];
    /* Receive buffers are made when a connection comes up, not for every possible peer. */
    if (!p->rx && !(p->rx = malloc(RX_MIN)))
        fy_fatal(MPI_ERR_NO_MEM, "out of memory for a TCP connection");
    p->rx_cap = RX_MIN;
    p->state = ST_UP;
    if (nup_all++ < DIRECT_MAX)
        up_idx[nup++] = idx;
    p->want_out = false;
    ep_set(p->fd, (uint64_t)idx, EPOLLIN, EPOLL_CTL_MOD);
    flush(idx);
}

/* Initiator side: the socket connected (writable) or the challenge arrived (readable). */
static void initiator_step(int idx)
{
    peer_t *p = &peers[idx];
    char why[200];
    if (p->state == ST_CONNECTING) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        if (err) {
            snprintf(why, sizeof why, "cannot connect to rank %d over TCP: %s", idx, strerror(err));
            fy_fatal(MPI_ERR_OTHER, why);
        }
        hello_t h = {MAGIC, (uint32_t)me, (uint32_t)idx, {0}};
        memcpy(h.nonce, p->nonce, NONCE);
        if (write_small(p->fd, &h, sizeof h) != 0) {
            snprintf(why, sizeof why, "cannot greet rank %d over TCP: %s", idx, strerror(errno));
            fy_fatal(MPI_ERR_OTHER, why);
        }
        p->state = ST_HELLO;
        ep_set(p->fd, (uint64_t)idx, EPOLLIN, EPOLL_CTL_MOD);
        return;
    }
    challenge_t c;
    uint8_t mac[MAC];
    if (read_small(p->fd, &c, sizeof c) != 0) {
        /* Closed without a word: the peer rejected us, or is taking our attempt over. */
        epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
        close(p->fd);
        p->fd = -1;
        p->state = ST_NONE;
        if (me < idx) /* the lower rank's connection should have won: try again */
            start_connect(idx);
        return;
    }
    mac_of('C', p->nonce, c.verdict, (uint32_t)me, (uint32_t)idx, mac);
    if (c.magic != MAGIC || !fy_ct_equal(mac, c.mac, MAC)) {
        snprintf(why, sizeof why, "rank %d's TCP address answered without the job's secret", idx);
        fy_fatal(MPI_ERR_OTHER, why);
    }
    if (c.verdict == VERDICT_REJECT) { /* its own connection to us wins; it arrives as anon */
        epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
        close(p->fd);
        p->fd = -1;
        p->state = ST_NONE;
        return;
    }
    mac_of('P', c.nonce, 0, (uint32_t)me, (uint32_t)idx, mac);
    if (write_small(p->fd, mac, MAC) != 0) {
        snprintf(why, sizeof why, "lost rank %d during the TCP handshake", idx);
        fy_fatal(MPI_ERR_OTHER, why);
    }
    became_up(idx);
}

static void anon_drop(anon_t *a, const char *why)
{
    if (why)
        stray(a->who, why);
    if (a->from >= 0 && !a->dup && !a->doomed && peers[a->from].state == ST_ACCEPTING) {
        peer_t *p = &peers[a->from];
        p->state = ST_NONE;
        if (p->out_len > p->out_off) /* records wait for it: connect ourselves */
            start_connect(a->from);
    }
    epoll_ctl(ep, EPOLL_CTL_DEL, a->fd, NULL);
    close(a->fd);
    anon_t **pp = &anons;
    while (*pp != a)
        pp = &(*pp)->next;
    *pp = a->next;
    nanons--;
    free(a);
}

static void accept_all(void)
{
    for (;;) {
        struct sockaddr_storage from;
        socklen_t l = sizeof from;
        int fd = accept4(listen_fd, (struct sockaddr *)&from, &l, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        anon_t *a = calloc(1, sizeof *a);
        if (!a) {
            close(fd);
            return;
        }
        a->fd = fd;
        a->from = -1;
        a->deadline = fy_now_ns() + HANDSHAKE_NS;
        char ip[64] = "?";
        fy_tcp_addr_text(&from, ip, sizeof ip);
        snprintf(a->who, sizeof a->who, "%s", ip);
        a->next = anons;
        anons = a;
        nanons++;
        set_sockopts(fd);
        ep_set(fd, EV_ANON | (uint64_t)(uintptr_t)a, EPOLLIN, EPOLL_CTL_ADD);
    }
}

/* Our attempt to `idx` lost to its own while still connecting: rather than hang up
 * unannounced (a stray to the other side's eyes), it greets once connected, which the other
 * side takes for an abandoned attempt (dup) and drops quietly. */
static void doom(int idx)
{
    peer_t *p = &peers[idx];
    anon_t *a = p->state == ST_CONNECTING ? calloc(1, sizeof *a) : NULL;
    if (!a) { /* greeted already (or no memory): just close */
        epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
        close(p->fd);
        p->fd = -1;
        return;
    }
    a->fd = p->fd;
    a->from = idx;
    a->doomed = true;
    a->deadline = fy_now_ns() + HANDSHAKE_NS;
    memcpy(a->nonce, p->nonce, NONCE);
    a->next = anons;
    anons = a;
    nanons++;
    ep_set(a->fd, EV_ANON | (uint64_t)(uintptr_t)a, EPOLLOUT, EPOLL_CTL_MOD);
    p->fd = -1;
}

/* Acceptor side: HELLO, then (after our challenge) PROOF. */
static void anon_step(anon_t *a)
{
    if (a->doomed) {
        int err = 0;
        socklen_t l = sizeof err;
        getsockopt(a->fd, SOL_SOCKET, SO_ERROR, &err, &l);
        hello_t h = {MAGIC, (uint32_t)me, (uint32_t)a->from, {0}};
        memcpy(h.nonce, a->nonce, NONCE);
        if (!err)
            write_small(a->fd, &h, sizeof h);
        anon_drop(a, NULL);
        return;
    }
    size_t need = a->from < 0 ? sizeof(hello_t) : MAC;
    ssize_t k = recv(a->fd, a->buf + a->got, need - a->got, MSG_DONTWAIT);
    if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR)) {
        anon_drop(a, a->from < 0 ? "closed before saying who it is"
                     : a->dup    ? NULL /* an abandoned simultaneous attempt */
                                 : "closed during the handshake");
        return;
    }
    if (k < 0 || (a->got += (size_t)k) < need)
        return;
    a->got = 0;
    if (a->from < 0) {
        hello_t h;
        memcpy(&h, a->buf, sizeof h);
        if (h.magic != MAGIC || h.to != (uint32_t)me || h.from >= (uint32_t)nranks ||
            h.from == (uint32_t)me) {
            anon_drop(a, "not a Ferry rank of this job (bad greeting)");
            return;
        }
        need_secret();
        peer_t *p = &peers[h.from];
        uint32_t verdict = VERDICT_ACCEPT;
        /* Already connected (or being): the peer's own attempt, abandoned when ours arrived
         * (it hangs up without a word: dropped quietly), or an impostor (its proof fails:
         * logged). Never attached either way. */
        a->dup = p->state == ST_UP || p->state == ST_GONE || p->state == ST_ACCEPTING;
        if (!a->dup && (p->state == ST_CONNECTING || p->state == ST_HELLO) && me < (int)h.from)
            verdict = VERDICT_REJECT; /* our own attempt wins */
        challenge_t c = {MAGIC, verdict, {0}, {0}};
        getrandom(a->nonce, NONCE, 0);
        memcpy(c.nonce, a->nonce, NONCE);
        mac_of('C', h.nonce, verdict, h.from, (uint32_t)me, c.mac);
        if (write_small(a->fd, &c, sizeof c) != 0 || verdict == VERDICT_REJECT) {
            anon_drop(a, NULL);
            return;
        }
        a->from = (int)h.from;
        if (a->dup)
            return;
        if (p->fd >= 0) /* our own attempt (we are the higher rank): theirs wins */
            doom((int)h.from);
        p->state = ST_ACCEPTING; /* records to it queue until the PROOF */
        return;
    }
    uint8_t mac[MAC];
    mac_of('P', a->nonce, 0, (uint32_t)a->from, (uint32_t)me, mac);
    if (!fy_ct_equal(mac, a->buf, MAC)) {
        anon_drop(a, "does not know the job's secret");
        return;
    }
    if (a->dup) { /* proved, yet we have that rank already: nothing to do with it */
        anon_drop(a, NULL);
        return;
    }
    int idx = a->from;
    peer_t *p = &peers[idx];
    if (p->fd >= 0) { /* our own attempt, from the higher rank: the lower one's wins */
        epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
        close(p->fd);
    }
    p->fd = a->fd;
    a->fd = -1;
    anon_t **pp = &anons;
    while (*pp != a)
        pp = &(*pp)->next;
    *pp = a->next;
    nanons--;
    free(a);
    ep_set(p->fd, (uint64_t)idx, EPOLLIN, EPOLL_CTL_MOD);
    became_up(idx);
}

static void anon_expire(void)
{
    int64_t now = fy_now_ns();
    for (anon_t *a = anons, *next; a; a = next) {
        next = a->next;
        if (now > a->deadline)
            anon_drop(a, a->doomed || a->dup ? NULL : "did not complete the handshake within a second");
    }
}

/* ---- receiving ------------------------------------------------------------------------- */

fy_xport_place_fn fy_xport_place;

static size_t payload_len(const fy_hdr_t *h)
{
    return h->kind == FY_MSG_EAGER ? (size_t)h->len : h->kind == FY_MSG_DATA ? h->frag : 0;
}

static void deliver_placed(peer_t *p)
{
    fy_hdr_t h = p->place_h;
    h.flags |= FY_MSGF_PLACED;
    p->place = NULL;
    fy_xport_deliver(&h, NULL);
}

/* Hands on every whole record in p's buffer. */
static int parse(peer_t *p)
{
    int n = 0;
    while (p->rx_len - p->rx_off >= HDR) {
        fy_hdr_t h;
        memcpy(&h, p->rx + p->rx_off, HDR);
        size_t plen = payload_len(&h), have = p->rx_len - p->rx_off - HDR;
        void *dst;
        if (h.kind == FY_MSG_DATA && plen >= PLACE_MIN && fy_xport_place &&
            (dst = fy_xport_place(&h)) != NULL) {
            size_t k = have < plen ? have : plen;
            memcpy(dst, p->rx + p->rx_off + HDR, k);
            p->rx_off += HDR + k;
            p->place_h = h;
            n++;
            if (k == plen) {
                p->place = dst; /* for deliver_placed's bookkeeping */
                deliver_placed(p);
                continue;
            }
            p->place = (unsigned char *)dst + k;
            p->place_left = plen - k;
            break;
        }
        if (have < plen) {
            if (HDR + plen > p->rx_cap - p->rx_off) { /* make room for the whole record */
                memmove(p->rx, p->rx + p->rx_off, p->rx_len - p->rx_off);
                p->rx_len -= p->rx_off;
                p->rx_off = 0;
                grow(&p->rx, &p->rx_cap, HDR + plen);
            }
            break;
        }
        p->rx_off += HDR + plen;
        n++;
        fy_xport_deliver(&h, p->rx + p->rx_off - plen);
    }
    if (p->rx_off == p->rx_len)
        p->rx_off = p->rx_len = 0;
    return n;
}

static int receive(int idx)
{
    peer_t *p = &peers[idx];
    int n = 0;
    for (int round = 0; round < 4; round++) {
        ssize_t k;
        if (p->place) {
            k = recv(p->fd, p->place, p->place_left, MSG_DONTWAIT);
            if (k > 0) {
                p->place += k;
                p->place_left -= (size_t)k;
                if (!p->place_left) {
                    deliver_placed(p);
                    n++;
                }
            }
        } else {
            if (p->rx_len == p->rx_cap && p->rx_off > 0) {
                memmove(p->rx, p->rx + p->rx_off, p->rx_len - p->rx_off);
                p->rx_len -= p->rx_off;
                p->rx_off = 0;
            }
            k = recv(p->fd, p->rx + p->rx_len, p->rx_cap - p->rx_len, MSG_DONTWAIT);
            if (k > 0) {
                p->rx_len += (size_t)k;
                n += parse(p);
            }
        }
        if (k == 0) { /* the peer finalized (or died: its launcher tells) */
            left_up(idx);
            epoll_ctl(ep, EPOLL_CTL_DEL, p->fd, NULL);
            close(p->fd);
            p->fd = -1;
            p->state = ST_GONE;
            p->gone = true;
            left_count++;
            return n + 1;
        }
        if (k < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                return n;
            char why[160];
            snprintf(why, sizeof why, "the TCP connection to rank %d failed: %s", idx,
                     strerror(errno));
            lost(idx, why);
        }
        if (!p->place && p->rx_len < p->rx_cap)
            return n; /* the socket had less than we could take: drained */
    }
    return n;
}

/* ---- the transport's operations ---------------------------------------------------------- */

static int tcp_send(int dst, const fy_hdr_t *h, const void *payload, size_t len)
{
    peer_t *p = &peers[dst];
    size_t queued = p->out_len - p->out_off;
    if (p->state != ST_UP) {
        if (p->state == ST_GONE)
            return 0; /* it finalized: nothing it could still want (p2p_gone.c fails waiters) */
        if (queued + HDR + len > QUEUE_CAP && queued)
            return FY_XPORT_AGAIN;
        if (p->state == ST_NONE)
            start_connect(dst);
        queue(p, h, HDR, payload, len);
        return 0;
    }
    if (p->pin_len || (queued && (h->kind == FY_MSG_DATA || queued + HDR + len > QUEUE_CAP)))
        return FY_XPORT_AGAIN;
    if (queued) {
        queue(p, h, HDR, payload, len);
        flush(dst);
        return 0;
    }
    struct iovec iov[2] = {{(void *)h, HDR}, {(void *)payload, len}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
    ssize_t k;
    do
        k = sendmsg(p->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (k < 0 && errno == EINTR);
    if (k == (ssize_t)(HDR + len))
        return 0;
    if (k < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            char why[160];
            snprintf(why, sizeof why, "the TCP connection to rank %d failed: %s", dst, strerror(errno));
            lost(dst, why);
        }
        k = 0;
    }
    size_t sent = (size_t)k;
    if (sent < HDR)
        queue(p, (const char *)h + sent, HDR - sent, NULL, 0);
    size_t from = sent > HDR ? sent - HDR : 0;
    if (h->kind == FY_MSG_DATA) { /* the user's buffer outlives the request: see holds */
        p->pin = (const unsigned char *)payload + from;
        p->pin_len = len - from;
    } else if (from < len) {
        queue(p, (const char *)payload + from, len - from, NULL, 0);
    }
    want_out(p, dst, true);
    return 0;
}

static int tcp_send_fill(int dst, const fy_hdr_t *h, size_t len, fy_xport_fill_fn fill, void *arg)
{
    peer_t *p = &peers[dst];
    size_t queued = p->out_len - p->out_off;
    if (p->state == ST_GONE)
        return 0;
    if (p->pin_len || (queued && queued + HDR + len > QUEUE_CAP))
        return FY_XPORT_AGAIN;
    if (p->state == ST_NONE)
        start_connect(dst);
    unsigned char *at = queue_room(p, HDR + len);
    memcpy(at, h, HDR);
    if (len)
        fill(arg, at + HDR, len);
    flush(dst);
    return 0;
}

static int tcp_get(int src, uint64_t raddr, void *dst, size_t len)
{
    (void)src, (void)raddr, (void)dst, (void)len;
    return FY_XPORT_NOTSUP; /* the receiver asks for DATA instead (CTS) */
}

static size_t tcp_max_payload(void)
{
    long e = fy_knob_number(FY_KNOB_TCP_EAGER, FY_KNOB_AUTO);
    return e > 0 ? (size_t)e : 64 * 1024;
}

static int tcp_holds(int dst)
{
    return peers[dst].pin_len != 0;
}

const fy_xport_ops_t fy_xport_tcp = {
    .name = "tcp",
    .send = tcp_send,
    .send_fill = tcp_send_fill,
    .get = tcp_get,
    .max_payload = tcp_max_payload,
    .holds = tcp_holds,
};

size_t fy_tcp_frag(void)
{
    return FRAG;
}

/* ---- progress, sleep, start and end ------------------------------------------------------ */

static int bell_fd = -1; /* the shared-memory doorbell's eventfd, in the sleep set */

int fy_tcp_progress(void)
{
    if (nup_all && nup_all <= DIRECT_MAX && !nanons && ++direct_pass % DIRECT_EVERY != 0) {
        int n = 0;
        for (int i = 0; i < nup; i++) {
            int idx = up_idx[i];
            if (peers[idx].want_out)
                n += flush(idx);
            if (peers[idx].state == ST_UP)
                n += receive(idx);
        }
        return n;
    }
    struct epoll_event ev[32];
    int k = epoll_wait(ep, ev, 32, 0);
    int n = 0;
    for (int i = 0; i < k; i++) {
        uint64_t d = ev[i].data.u64;
        if (d == EV_LISTEN) {
            accept_all();
        } else if (d == EV_BELL) {
            /* Left as it is: the next sleeper empties it (fy_shm_sleep_prepare). */
        } else if (d & EV_ANON) {
            anon_step((anon_t *)(uintptr_t)(d & ~EV_ANON));
        } else {
            int idx = (int)d;
            peer_t *p = &peers[idx];
            if (p->state == ST_CONNECTING || p->state == ST_HELLO) {
                initiator_step(idx);
                n++;
                continue;
            }
            if (p->state != ST_UP)
                continue;
            if (ev[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                n += receive(idx);
            if (p->state == ST_UP && (ev[i].events & EPOLLOUT))
                n += flush(idx);
        }
    }
    if (nanons)
        anon_expire();
    return n;
}

unsigned fy_tcp_left_count(void)
{
    return left_count;
}

int fy_tcp_peer_gone(int w)
{
    return peers && peers[w].gone;
}

void fy_tcp_sleep(int timeout_ms)
{
    struct epoll_event ev;
    if (fy_shm_rung()) /* rung between the prepare and now: the eventfd may be emptied */
        return;
    /* Only waits: what woke us is handled by the next progress pass. */
    epoll_wait(ep, &ev, 1, timeout_ms);
}

void fy_tcp_bell(int efd)
{
    bell_fd = efd;
    if (efd >= 0)
        ep_set(efd, EV_BELL, EPOLLIN, EPOLL_CTL_ADD);
}

int fy_tcp_init(struct fy_pmi *pmi, int rank, int size, bool one_host)
{
    me = rank;
    nranks = size;
    pmi_conn = pmi;
    peers = calloc((size_t)size, sizeof *peers);
    if (!peers)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    for (int i = 0; i < size; i++)
        peers[i].fd = -1;
    int rc = secret_init(pmi);
    if (rc != MPI_SUCCESS)
        return rc;
    struct sockaddr_storage a;
    rc = fy_tcp_choose_addr(&a, one_host);
    if (rc != MPI_SUCCESS)
        return rc;
    int port;
    listen_fd = fy_tcp_listen(&a, &port);
    if (listen_fd < 0)
        return MPI_ERR_OTHER;
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: epoll_create1: %s", strerror(errno));
    ep_set(listen_fd, EV_LISTEN, EPOLLIN, EPOLL_CTL_ADD);
    char ip[INET6_ADDRSTRLEN], card[INET6_ADDRSTRLEN + 16], key[FY_PMI_MAX_KEY];
    fy_tcp_addr_text(&a, ip, sizeof ip);
    snprintf(card, sizeof card, "%s,%d", ip, port);
    snprintf(key, sizeof key, "fy-tcp-%d", rank);
    if (fy_pmi_put(pmi, key, card) != 0)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager put failed: %s",
                          fy_pmi_last_error());
    fy_tcp_active = 1;
    return MPI_SUCCESS;
}

/* Flushes what is queued (a peer may wait for our last records), then closes every socket
 * after saying we are done (shutdown: the peer reads the end of our stream after our last
 * record, and takes it as our leaving). Bounded: a peer that reads nothing for 10 s loses. */
void fy_tcp_fini(void)
{
    if (!peers)
        return;
    int64_t until = fy_now_ns() + 10 * 1000000000LL;
    /* Records wait in queues of connections still being made too (a last message to a rank
     * we never spoke to before): make them and write everything. */
    for (int i = 0; i < nranks; i++) {
        peer_t *p = &peers[i];
        while (p->state != ST_GONE && (p->out_off < p->out_len || p->pin_len) &&
               fy_now_ns() < until)
            if (!flush(i))
                fy_tcp_progress(); /* handshakes, and peers that must read to let us write */
    }
    for (int i = 0; i < nranks; i++) {
        peer_t *p = &peers[i];
        if (p->fd >= 0) {
            shutdown(p->fd, SHUT_WR);
            close(p->fd);
        }
        free(p->out);
        free(p->rx);
    }
    while (anons)
        anon_drop(anons, NULL);
    if (listen_fd >= 0)
        close(listen_fd);
    if (ep >= 0)
        close(ep);
    listen_fd = ep = -1;
    free(peers);
    peers = NULL;
    fy_tcp_active = 0;
    nup = nup_all = 0;
    have_secret = 0;
    bell_fd = -1;
}

_Static_assert(sizeof(fy_hdr_t) == 56, "records on the wire have a 56-byte header");
