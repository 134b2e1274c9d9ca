/* mpiexec --check: the check server, which finds deadlocks (docs/ferry.md, "--check", "Deadlocks").
 *
 * --check preloads libferry_check.so (found in <dir of mpiexec>/../lib) in front of libmpi in
 * every rank (LD_PRELOAD, the user's own kept after it), and tells the ranks where this server
 * listens and the key to prove they belong to the job: FERRY_CHECK_ADDR=ADDR[,ADDR...]:PORT and
 * FERRY_CHECK_KEY=<64 hex digits, 32 random bytes>. Both go through -genv's list, which the
 * proxies of a job across hosts pass on too. On one host the server listens on 127.0.0.1; across
 * hosts on the address the proxies are given (-iface, or the route to the first other host).
 * A program without the library (not MPI, or linked statically) never connects and just runs.
 *
 * Each rank's watch thread (src/tools/check/chk_watch.c) connects once, after MPI_Init, and
 * reports the calls it has been blocked in for about 100 ms, their end, and its goodbye after
 * MPI_Finalize. We keep each rank's state: running (also: not connected yet), blocked (with
 * what it waits for), finished (said goodbye), exited (its process is gone, or its connection
 * closed without goodbye). When no rank runs, at least one is blocked, and nothing has changed
 * for STABLE_MS, we ask every blocked rank whether that block is still current (its thread may
 * have been starved of CPU on an oversubscribed machine and not yet told us it moved on); when
 * all say yes, check_graph.c judges: progress possible (no report), a potential deadlock (a
 * warning, once per distinct set of ranks and places, and "release" to the ranks whose buffered
 * standard sends the checker was holding), or a deadlock: the report with the wait-for cycle,
 * and the job ends as when a rank fails, with status FY_MPX_CHECK_DEADLOCK_STATUS. A potential
 * deadlock seen before is released as soon as it is seen, without the wait; so is, quietly, a
 * held send whose receive is posted (a blocked receive, or a CHK_W_POSTED item): an MPI_Ssend
 * would complete there, only the checker holds it. The ranks' watch threads report such held
 * sends at once rather than after 100 ms.
 *
 * A deadlock is reported STABLE_MS plus a round trip after the last rank's block reached us
 * (which is BLOCK_MS, 100 ms, after it began): about 1.1 s; the job ends right after.
 *
 * The wire: text, one message a line, fields separated by one space.
 *   server -> rank, on accept:  FERRY-CHECK 1 <nonce: 64 hex digits>
 *   rank -> server:             AUTH <rank> <size> <pid> <HMAC-SHA256(key, nonce || rank as
 *                               4 bytes big-endian), 64 hex digits>
 *   server -> rank:             OK, or the connection closes: a wrong key or not this
 *                               protocol (counted and logged), or after NO: the key was right
 *                               but the rank is connected already or the size is not the
 *                               job's (a world started by MPI_Comm_spawn; quietly unwatched)
 *   rank -> server:  C <comm id> <n> <world rank>...    a communicator's members
 *                    N <comm id> <name>                 its MPI name
 *                    B <seq> <all 0|1> <items in the wait> <age ms> <call> <k>
 *                      {<kind> <peer> <tag> <comm id> <coll seq> <coll name|->}*k <location>
 *                                                       a block (kind: chk_wait_kind)
 *                    U <seq>        the block ended
 *                    Y <seq>        the block is still current (answer to A)
 *                    BYE            after the last MPI call
 *   server -> rank:  A <seq>        is that block still current?
 *                    R <seq>        release that block's held sends (a potential deadlock, or
 *                                   their receive is posted)
 * A connection that has not authenticated within HANDSHAKE_MS is closed; at most PEND_MAX wait
 * at once.
 */
#include "check.h"
#include "preload.h"

#include "fy_auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define STABLE_MS 1000     /* every live rank blocked, nothing changed: then we ask */
#define ASK_MS 3000        /* answers later than this: ask again after the next quiet second */
#define HANDSHAKE_MS 5000  /* to authenticate after connecting */
#define PEND_MAX 256       /* connections authenticating at once; more wait in the backlog */
#define LINE_MAX_BYTES (1 << 20) /* a communicator of FY_MPX_MAX_RANKS ranks fits */
#define REPORT_RANKS 16    /* ranks listed in a report */
#define MAX_REFUSED_LOGGED 5

typedef struct conn {
    int fd; /* -1: free */
    int rank;
    uint8_t nonce[32];
    long long deadline;
    char peer[INET6_ADDRSTRLEN + 8];
    char *in;
    size_t inlen, incap;
    char *out;
    size_t outlen, outcap;
} conn_t;

enum who_kind { W_LISTEN, W_PEND, W_RANK };

static struct server {
    int on;
    fy_mpx_listen_t ls;
    uint8_t key[32];
    conn_t pend[PEND_MAX];
    conn_t *rc; /* per rank */
    fy_chk_job_t J;
    fy_chk_result_t res;
    long long last_change;
    unsigned long changes, judged; /* state changes, and the count last judged */
    unsigned long quick;           /* the count last looked at for a known potential deadlock */
    unsigned long paired_at;       /* the count last looked at for matched buffered sends */
    uint64_t *released;            /* per rank: the block last released (0: none) */
    int asking;
    long long ask_until;
    char *answered;
    uint64_t *pkeys; /* potential deadlocks reported (their hashes) */
    int npkeys, cappkeys;
    int refused;
    int done; /* a deadlock was reported */
    /* What each poll entry we added stands for. */
    enum who_kind *kind;
    int *idx;
    int nslots;
} S;

/* ---- Setting up ---- */

static const fy_mpx_check_hooks_t hooks;

int fy_mpx_check_setup(fy_mpx_opts_t *o, int remote, const char *iface, int all_here,
                       const char *first_remote)
{
    char lib[PATH_MAX];
    if (fy_mpx_tool_lib("--check", "the checker library", "libferry_check.so", lib, sizeof(lib)) != 0)
        return -1;
    S.ls.nlfd = 0;
    if (!remote || all_here) {
        if (fy_mpx_listen_at(&S.ls, "127.0.0.1") != 0) {
            fprintf(stderr, FY_MPX_PROG ": --check: cannot listen on 127.0.0.1: %s\n",
                    strerror(errno));
            return -1;
        }
    } else if (fy_mpx_listen_choose(&S.ls, iface, 0, first_remote) != 0) {
        return -1;
    }
    /* Every rank connects during MPI_Init, at about the same time. */
    for (int i = 0; i < S.ls.nlfd; i++)
        listen(S.ls.lfd[i], 4096);
    if (getrandom(S.key, sizeof(S.key), 0) != (ssize_t)sizeof(S.key)) {
        fprintf(stderr, FY_MPX_PROG ": --check: getrandom: %s\n", strerror(errno));
        return -1;
    }
    char keyhex[65], addr[sizeof(S.ls.addrs) + 16];
    fy_auth_tohex(S.key, 32, keyhex);
    snprintf(addr, sizeof(addr), "%s:%d", S.ls.addrs, S.ls.port);
    /* Ours first, the user's after it (preload.c). */
    int rc = fy_mpx_preload(o, lib);
    rc |= fy_mpx_env_add(&o->env, "FERRY_CHECK_ADDR", addr) |
          fy_mpx_env_add(&o->env, "FERRY_CHECK_KEY", keyhex);
    S.J.size = o->np;
    S.J.r = calloc((size_t)o->np, sizeof(*S.J.r));
    S.rc = calloc((size_t)o->np, sizeof(*S.rc));
    S.res.release = calloc((size_t)o->np, 1);
    S.res.stuck = calloc((size_t)o->np, 1);
    S.res.cycle = calloc((size_t)o->np, sizeof(int));
    S.answered = calloc((size_t)o->np, 1);
    S.released = calloc((size_t)o->np, sizeof(*S.released));
    S.nslots = 2 + PEND_MAX + o->np;
    S.kind = calloc((size_t)S.nslots, sizeof(*S.kind));
    S.idx = calloc((size_t)S.nslots, sizeof(*S.idx));
    if (rc != 0 || S.J.r == NULL || S.rc == NULL || S.res.release == NULL || S.res.stuck == NULL ||
        S.res.cycle == NULL || S.answered == NULL || S.released == NULL || S.kind == NULL ||
        S.idx == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return -1;
    }
    for (int i = 0; i < PEND_MAX; i++)
        S.pend[i].fd = -1;
    for (int r = 0; r < o->np; r++)
        S.rc[r].fd = -1;
    S.on = 1;
    fy_mpx_check_hooks = &hooks;
    return 0;
}

static void stop_listening(void)
{
    for (int i = 0; i < S.ls.nlfd; i++)
        close(S.ls.lfd[i]);
    S.ls.nlfd = 0;
}

static void conn_close(conn_t *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->in);
    free(c->out);
    c->in = c->out = NULL;
    c->inlen = c->incap = c->outlen = c->outcap = 0;
}

void fy_mpx_check_close(void)
{
    if (!S.on)
        return;
    stop_listening();
    for (int i = 0; i < PEND_MAX; i++)
        conn_close(&S.pend[i]);
    for (int r = 0; r < S.J.size; r++) {
        conn_close(&S.rc[r]);
        free(S.J.r[r].items);
    }
    fy_chk_job_free(&S.J);
    free(S.J.r);
    free(S.rc);
    free(S.res.release);
    free(S.res.stuck);
    free(S.res.cycle);
    free(S.answered);
    free(S.released);
    free(S.pkeys);
    free(S.kind);
    free(S.idx);
    explicit_bzero(S.key, sizeof(S.key));
    S.on = 0;
    fy_mpx_check_hooks = NULL;
}

/* ---- Connections ---- */

static void changed(void)
{
    S.changes++;
    S.last_change = fy_mpx_now_ms();
    S.asking = 0;
}

/* Queues a line for a rank and writes what it can now. */
static void say(conn_t *c, const char *line)
{
    size_t len = strlen(line);
    if (c->fd < 0)
        return;
    if (c->outlen + len > c->outcap) {
        size_t cap = c->outcap ? 2 * c->outcap : 256;
        while (cap < c->outlen + len)
            cap *= 2;
        char *o = realloc(c->out, cap);
        if (o == NULL)
            return;
        c->out = o;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, line, len);
    c->outlen += len;
    ssize_t n = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        memmove(c->out, c->out + n, c->outlen - (size_t)n);
        c->outlen -= (size_t)n;
    }
}

static conn_t *free_pending(void)
{
    for (int i = 0; i < PEND_MAX; i++)
        if (S.pend[i].fd < 0)
            return &S.pend[i];
    return NULL;
}

static void accept_all(int lfd)
{
    conn_t *c;
    while ((c = free_pending()) != NULL) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (fd < 0 && (errno == EINTR || errno == ECONNABORTED))
            continue;
        if (fd < 0) {
            /* Out of descriptors, most likely: the ranks not yet in go without the watch (they
             * say so), and no deadlock can be judged any more; the job itself goes on. */
            fprintf(stderr, "ferry check: cannot accept more ranks (%s); deadlocks will not be "
                    "found in this job\n", strerror(errno));
            stop_listening();
            S.done = 1;
            return;
        }
        *c = (conn_t){.fd = fd, .rank = -1, .deadline = fy_mpx_now_ms() + HANDSHAKE_MS};
        char line[128];
        if (fy_auth_hello("FERRY-CHECK", c->nonce, line, sizeof(line)) != 0) {
            conn_close(c);
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
        snprintf(c->peer, sizeof(c->peer), "%s:%d", host, port);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        say(c, line);
    }
}

static void refuse(conn_t *c, const char *why)
{
    S.refused++;
    if (S.refused <= MAX_REFUSED_LOGGED)
        fprintf(stderr, "ferry check: refused a connection from %s: %s (%d refused so far)\n",
                c->peer, why, S.refused);
    conn_close(c);
}

static void on_auth(conn_t *c, const char *line)
{
    int rank, size;
    long pid;
    int rc = fy_auth_verify(S.key, c->nonce, line, &rank, &size, &pid);
    if (rc != FY_AUTH_OK) {
        refuse(c, rc == FY_AUTH_WRONG_KEY ? "wrong key" : "not the check protocol");
        return;
    }
    if (size != S.J.size || rank < 0 || rank >= S.J.size || S.rc[rank].fd >= 0 ||
        S.J.r[rank].state != FY_CHK_RUNNING) {
        /* It knows the key: processes the job started with MPI_Comm_spawn (another world),
         * or a program that ran MPI twice. The watch covers the job's first world only; they
         * go without it, quietly. */
        say(c, "NO\n");
        conn_close(c);
        return;
    }
    /* Moves to the rank's place, with what it has sent after AUTH. */
    conn_t *r = &S.rc[rank];
    *r = *c;
    r->rank = rank;
    *c = (conn_t){.fd = -1};
    say(r, "OK\n");
    changed();
}

static int parse_block(fy_chk_rank_t *rk, const char *line)
{
    unsigned long long seq;
    int all, ntotal, k, n;
    long long age;
    char call[48];
    const char *p = line + 1;
    if (sscanf(p, " %llu %d %d %lld %47s %d%n", &seq, &all, &ntotal, &age, call, &k, &n) != 6 ||
        k < 0 || k > 64)
        return -1;
    p += n;
    fy_chk_item_t *items = calloc((size_t)(k > 0 ? k : 1), sizeof(*items));
    if (items == NULL)
        return -1;
    for (int i = 0; i < k; i++) {
        unsigned long long comm, cseq;
        char coll[32];
        if (sscanf(p, " %d %d %d %llu %llu %31s%n", &items[i].kind, &items[i].peer, &items[i].tag,
                   &comm, &cseq, coll, &n) != 6) {
            free(items);
            return -1;
        }
        p += n;
        items[i].comm = comm;
        items[i].seq = cseq;
        snprintf(items[i].coll, sizeof(items[i].coll), "%s", strcmp(coll, "-") ? coll : "");
    }
    free(rk->items);
    rk->items = items;
    rk->nitems = k;
    rk->ntotal = ntotal > k ? ntotal : k;
    rk->all = all;
    rk->bseq = seq;
    rk->state = FY_CHK_BLOCKED;
    rk->since_ms = fy_mpx_now_ms() - (age > 0 ? age : 0);
    snprintf(rk->call, sizeof(rk->call), "%s", call);
    while (*p == ' ')
        p++;
    snprintf(rk->loc, sizeof(rk->loc), "%s", p);
    return 0;
}

static int parse_comm(const char *line)
{
    char *end;
    uint64_t id = strtoull(line + 2, &end, 10);
    long n = strtol(end, &end, 10);
    if (n < 0 || n > S.J.size)
        return -1;
    int *ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (ranks == NULL)
        return 0;
    for (long i = 0; i < n; i++)
        ranks[i] = (int)strtol(end, &end, 10);
    fy_chk_comm_add(&S.J, id, (int)n, ranks); /* out of memory: taken as the world */
    free(ranks);
    return 0;
}

/* One line of an authenticated rank; -1 drops the connection. */
static int on_rank_line(int rank, const char *line)
{
    fy_chk_rank_t *rk = &S.J.r[rank];
    unsigned long long seq;
    if (rk->state == FY_CHK_FINISHED || rk->state == FY_CHK_EXITED)
        return 0;
    if (strcmp(line, "BYE") == 0) {
        rk->state = FY_CHK_FINISHED;
        changed();
        return 0;
    }
    switch (line[0]) {
    case 'B':
        if (parse_block(rk, line) != 0)
            return -1;
        changed();
        return 0;
    case 'U':
        if (sscanf(line + 1, " %llu", &seq) == 1 && rk->state == FY_CHK_BLOCKED &&
            rk->bseq == seq) {
            rk->state = FY_CHK_RUNNING;
            changed();
        }
        return 0;
    case 'Y':
        if (sscanf(line + 1, " %llu", &seq) == 1 && rk->state == FY_CHK_BLOCKED &&
            rk->bseq == seq)
            S.answered[rank] = 1;
        return 0;
    case 'C': return parse_comm(line);
    case 'N': {
        char *end;
        uint64_t id = strtoull(line + 2, &end, 10);
        const fy_chk_comm_t *c = fy_chk_comm_find(&S.J, id);
        if (c != NULL && *end == ' ')
            snprintf(((fy_chk_comm_t *)c)->name, sizeof(c->name), "%s", end + 1);
        return 0;
    }
    default: return 0; /* a later version's message */
    }
}

static void rank_gone(int rank)
{
    fy_chk_rank_t *rk = &S.J.r[rank];
    if (rk->state != FY_CHK_FINISHED && rk->state != FY_CHK_EXITED) {
        rk->state = FY_CHK_EXITED;
        changed();
    }
}

/* Reads what c has sent; lines go to the handshake or the rank's state. */
static void conn_read(conn_t *c)
{
    for (;;) {
        if (c->incap - c->inlen < 4096) {
            size_t cap = c->incap ? 2 * c->incap : 8192;
            char *in = cap <= LINE_MAX_BYTES ? realloc(c->in, cap) : NULL;
            if (in == NULL)
                goto drop;
            c->in = in;
            c->incap = cap;
        }
        ssize_t n = recv(c->fd, c->in + c->inlen, c->incap - c->inlen - 1, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0)
            goto drop;
        c->inlen += (size_t)n;
        c->in[c->inlen] = '\0';
        char *p = c->in, *nl;
        while (c->fd >= 0 && (nl = strchr(p, '\n')) != NULL) {
            *nl = '\0';
            if (c->rank < 0) {
                char line[256];
                snprintf(line, sizeof(line), "%s", p);
                c->inlen -= (size_t)(nl + 1 - c->in);
                memmove(c->in, nl + 1, c->inlen);
                on_auth(c, line); /* moves the connection, or closes it */
                return;
            }
            if (on_rank_line(c->rank, p) != 0)
                goto drop;
            p = nl + 1;
        }
        c->inlen -= (size_t)(p - c->in);
        memmove(c->in, p, c->inlen);
    }
drop:
    if (c->rank < 0) {
        refuse(c, "closed before authenticating");
    } else {
        int rank = c->rank;
        conn_close(c);
        rank_gone(rank);
    }
}

static void conn_write(conn_t *c)
{
    ssize_t n = send(c->fd, c->out, c->outlen, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
        memmove(c->out, c->out + n, c->outlen - (size_t)n);
        c->outlen -= (size_t)n;
    }
}

/* ---- Judging ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static double since_last_block(long long now)
{
    long long last = 0;
    for (int r = 0; r < S.J.size; r++)
        if (S.J.r[r].state == FY_CHK_BLOCKED && S.J.r[r].since_ms > last)
            last = S.J.r[r].since_ms;
    return (double)(now - last) / 1000.0;
}

/* "ranks 0 and 1", "ranks 0, 2 and 5", "rank 3", "9 ranks". */
static void rank_list(const char *set, char *out, size_t len)
{
    int n = 0, k = 0;
    for (int r = 0; r < S.J.size; r++)
        n += set[r] != 0;
    if (n > 6) {
        snprintf(out, len, "%d ranks", n);
        return;
    }
    size_t used = (size_t)snprintf(out, len, "rank%s", n > 1 ? "s" : "");
    for (int r = 0; r < S.J.size && used < len; r++) {
        if (!set[r])
            continue;
        k++;
        used += (size_t)snprintf(out + used, len - used, "%s%d",
                                 k == 1 ? " " : k == n ? " and " : ", ", r);
    }
}

/* The ranks involved, one line each (the cycle's first), and the cycle. */
static void print_ranks(FILE *f, const char *set)
{
    char line[2048];
    char *shown = calloc((size_t)S.J.size, 1);
    int printed = 0, total = 0;
    for (int r = 0; r < S.J.size; r++)
        total += set[r] != 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < (pass == 0 ? S.res.ncycle : S.J.size); k++) {
            int r = pass == 0 ? S.res.cycle[k] : k;
            if (!set[r] || (shown != NULL && shown[r]) || printed >= REPORT_RANKS)
                continue;
            if (shown != NULL)
                shown[r] = 1;
            fy_chk_describe(&S.J, r, line, sizeof(line));
            fprintf(f, "  rank %d: %s\n", r, line);
            printed++;
        }
    }
    free(shown);
    if (total > printed)
        fprintf(f, "  ... and %d more ranks\n", total - printed);
    if (S.res.ncycle > 0) {
        /* A long one: its first ranks, then its last. */
        int n = S.res.ncycle, head = n > 16 ? 12 : n;
        if (n > 16)
            fprintf(f, "  wait-for cycle of %d ranks:", n);
        else
            fprintf(f, "  wait-for cycle:");
        for (int k = 0; k < head; k++)
            fprintf(f, " %d ->", S.res.cycle[k]);
        if (n > 16)
            fprintf(f, " ... -> %d -> %d ->", S.res.cycle[n - 2], S.res.cycle[n - 1]);
        fprintf(f, " %d\n", S.res.cycle[0]);
    } else {
        fprintf(f, "  no cycle: the ranks wait for ranks that have finished or exited\n");
    }
}

static void report_deadlock(fy_mpx_job_t *job, long long now)
{
    fprintf(stderr, "ferry check: deadlock: every rank is blocked and no message can complete "
            "(after %.1f s)\n", since_last_block(now));
    print_ranks(stderr, S.res.stuck);
    fflush(stderr);
    S.done = 1;
    fy_mpx_job_fail(job, FY_MPX_CHECK_DEADLOCK_STATUS,
                    "--check found a deadlock; ending the job (status %d)",
                    FY_MPX_CHECK_DEADLOCK_STATUS);
}

/* Tells the ranks marked in S.res.release to stop holding their buffered sends (once per
 * block). */
static void release_marked(void)
{
    char line[48];
    for (int r = 0; r < S.J.size; r++) {
        if (!S.res.release[r] || S.released[r] == S.J.r[r].bseq)
            continue;
        S.released[r] = S.J.r[r].bseq;
        snprintf(line, sizeof(line), "R %" PRIu64 "\n", S.J.r[r].bseq);
        say(&S.rc[r], line);
    }
}

/* A potential deadlock: warned about once per set of ranks and places; released always. */
static void potential(long long now, int stable)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int r = 0; r < S.J.size; r++) {
        if (!S.res.release[r])
            continue;
        h = fnv(h, &r, sizeof(r));
        h = fnv(h, S.J.r[r].call, strlen(S.J.r[r].call));
        h = fnv(h, S.J.r[r].loc, strlen(S.J.r[r].loc));
    }
    int seen = 0;
    for (int i = 0; i < S.npkeys && !seen; i++)
        seen = S.pkeys[i] == h;
    if (!seen && !stable)
        return; /* new ones are judged only after the quiet second */
    if (!seen) {
        if (S.npkeys == S.cappkeys) {
            int cap = S.cappkeys ? 2 * S.cappkeys : 8;
            uint64_t *k = realloc(S.pkeys, sizeof(*k) * (size_t)cap);
            if (k != NULL) {
                S.pkeys = k;
                S.cappkeys = cap;
            }
        }
        if (S.npkeys < S.cappkeys)
            S.pkeys[S.npkeys++] = h;
        char who[128], where[512] = "";
        const char *call = NULL;
        int one_call = 1;
        size_t used = 0;
        int nloc = 0;
        rank_list(S.res.release, who, sizeof(who));
        for (int r = 0; r < S.J.size; r++) {
            if (!S.res.release[r])
                continue;
            const fy_chk_rank_t *rk = &S.J.r[r];
            if (call != NULL && strcmp(call, rk->call) != 0)
                one_call = 0;
            call = rk->call;
            if (rk->loc[0] == '\0' || strstr(where, rk->loc) != NULL || nloc == 3)
                continue;
            used += (size_t)snprintf(where + used, sizeof(where) - used, "%s%s",
                                     nloc ? ", " : "", rk->loc);
            nloc++;
        }
        /* "for each other" when the senders wait for nobody else; else they wait on ranks
         * that wait (directly or not) for them. */
        int among = 1;
        for (int r = 0; r < S.J.size; r++)
            among &= !S.res.stuck[r] || S.res.release[r];
        int one = strncmp(who, "rank ", 5) == 0;
        fprintf(stderr, "ferry check: potential deadlock: %s wait%s in %s %s%s%s%s; this works "
                "only because the library buffered the message%s: with larger messages or "
                "another MPI it hangs (after %.1f s)\n", who, one ? "s" : "",
                one_call && call ? call : "sends",
                among && !one ? "for each other"
                : one        ? "on a rank that waits for it"
                             : "on ranks that wait for them",
                nloc ? " (at " : "", where, nloc ? ")" : "", one ? "" : "s",
                since_last_block(now));
        print_ranks(stderr, S.res.stuck);
        fprintf(stderr, "  (the checker lets these sends go on; this is reported once)\n");
        fflush(stderr);
    }
    release_marked();
    S.judged = S.changes;
}

static void judge(fy_mpx_job_t *job, long long now, int stable)
{
    fy_chk_analyze(&S.J, &S.res);
    if (S.res.verdict == FY_CHK_POTENTIAL)
        potential(now, stable);
    else if (S.res.verdict == FY_CHK_DEADLOCK && stable)
        report_deadlock(job, now);
    if (stable)
        S.judged = S.changes;
}

/* ---- The poll loop's hooks (job.c) ---- */

static int hk_slots(void)
{
    return S.nslots;
}

static int hk_add(struct pollfd *pfd)
{
    int n = 0;
    /* With every handshake slot taken, new connections wait in the listen backlog. */
    for (int i = 0; i < S.ls.nlfd && free_pending() != NULL; i++) {
        pfd[n] = (struct pollfd){.fd = S.ls.lfd[i], .events = POLLIN};
        S.kind[n] = W_LISTEN;
        S.idx[n++] = i;
    }
    for (int i = 0; i < PEND_MAX; i++) {
        if (S.pend[i].fd < 0)
            continue;
        pfd[n] = (struct pollfd){.fd = S.pend[i].fd,
                                 .events = (short)(POLLIN | (S.pend[i].outlen ? POLLOUT : 0))};
        S.kind[n] = W_PEND;
        S.idx[n++] = i;
    }
    for (int r = 0; r < S.J.size; r++) {
        if (S.rc[r].fd < 0)
            continue;
        pfd[n] = (struct pollfd){.fd = S.rc[r].fd,
                                 .events = (short)(POLLIN | (S.rc[r].outlen ? POLLOUT : 0))};
        S.kind[n] = W_RANK;
        S.idx[n++] = r;
    }
    return n;
}

static void hk_ready(fy_mpx_job_t *job, struct pollfd *pfd, int n)
{
    (void)job;
    for (int k = 0; k < n; k++) {
        if (pfd[k].revents == 0)
            continue;
        if (S.kind[k] == W_LISTEN) {
            accept_all(S.ls.lfd[S.idx[k]]);
            continue;
        }
        conn_t *c = S.kind[k] == W_PEND ? &S.pend[S.idx[k]] : &S.rc[S.idx[k]];
        if (c->fd != pfd[k].fd)
            continue; /* moved or closed by an earlier entry */
        if ((pfd[k].revents & POLLOUT) && c->outlen > 0)
            conn_write(c);
        if (pfd[k].revents & (POLLIN | POLLHUP | POLLERR))
            conn_read(c);
    }
}

static long long hk_tick(fy_mpx_job_t *job, long long now)
{
    long long wake = -1;
    for (int i = 0; i < PEND_MAX; i++) {
        if (S.pend[i].fd < 0)
            continue;
        if (now >= S.pend[i].deadline)
            refuse(&S.pend[i], "no answer to the handshake");
        else if (wake < 0 || S.pend[i].deadline < wake)
            wake = S.pend[i].deadline;
    }
    if (S.done || job->terminating || S.judged == S.changes)
        return wake;
    /* A buffered send whose receive is posted in a blocked wait goes at once, unreported: a
     * synchronous send would complete there too; only the checker holds it. */
    if (S.paired_at != S.changes) {
        S.paired_at = S.changes;
        fy_chk_pair(&S.J);
        if (fy_chk_matched_sync(&S.J, S.res.release) > 0)
            release_marked();
    }
    int blocked = 0;
    for (int r = 0; r < S.J.size; r++) {
        if (S.J.r[r].state == FY_CHK_RUNNING)
            return wake;
        blocked += S.J.r[r].state == FY_CHK_BLOCKED;
    }
    if (blocked == 0)
        return wake;
    long long at;
    if (S.asking) {
        int all = 1;
        for (int r = 0; r < S.J.size && all; r++)
            all = S.J.r[r].state != FY_CHK_BLOCKED || S.answered[r];
        if (all) {
            S.asking = 0;
            judge(job, now, 1);
            return wake;
        }
        if (now >= S.ask_until) {
            S.asking = 0; /* a starved thread: ask again after another quiet second */
            S.last_change = now;
        }
        at = S.asking ? S.ask_until : now + STABLE_MS;
    } else if (now - S.last_change >= STABLE_MS) {
        char line[48];
        for (int r = 0; r < S.J.size; r++) {
            S.answered[r] = 0;
            if (S.J.r[r].state != FY_CHK_BLOCKED)
                continue;
            snprintf(line, sizeof(line), "A %" PRIu64 "\n", S.J.r[r].bseq);
            say(&S.rc[r], line);
        }
        S.asking = 1;
        S.ask_until = now + ASK_MS;
        at = S.ask_until;
    } else {
        /* Before the quiet second: only a potential deadlock seen before is released now. */
        if (S.npkeys > 0 && S.quick != S.changes) {
            S.quick = S.changes;
            judge(job, now, 0);
        }
        at = S.last_change + STABLE_MS;
    }
    return wake < 0 || at < wake ? at : wake;
}

static void hk_rank_exit(int rank)
{
    if (rank >= 0 && rank < S.J.size)
        rank_gone(rank);
}

static const fy_mpx_check_hooks_t hooks = {
    .slots = hk_slots,
    .add = hk_add,
    .ready = hk_ready,
    .tick = hk_tick,
    .rank_exit = hk_rank_exit,
};
