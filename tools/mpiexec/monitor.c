/* mpiexec --monitor: what every rank is doing, once a second (docs/DESIGN.md, "The live view").
 *
 * --monitor preloads libferry_prof.so (preload.c) and gives the ranks FERRY_MONITOR_ADDR and
 * FERRY_MONITOR_KEY, as --check does for its server (check_server.c). Each rank's thread
 * (src/tools/prof/prof_monitor.c) connects after MPI_Init, authenticates (src/common/fy_auth.h,
 * proto FERRY-MONITOR: the job's key never crosses the wire), and sends a snapshot of its live
 * counters once a second: the call it is in and for how long, its totals of calls, messages,
 * bytes and time in MPI; BYE at MPI_Finalize. We keep each rank's last two snapshots and, once a
 * second from the first rank's arrival (or FIRST_BLOCK_MS after the start), draw a block: per
 * rank its host, state (starting: not connected yet, MPI, compute, finalized, exited, silent: no
 * snapshot for SILENT_MS), current call and its age, the share of its last second spent in MPI,
 * messages and bytes per second (sent and received together), and its calls. Up to TABLE_RANKS
 * ranks one line each (FERRY_MONITOR_ROWS); beyond, a summary and the ranks longest in one call.
 * The block goes to stderr (not with --monitor=quiet) and to every `ferry top` attached to our
 * Unix socket. On a terminal it replaces the previous block while nothing else was written in
 * between (the ranks' output, our messages); otherwise the blocks follow each other, so that
 * nothing anyone printed is ever erased. The last block (over each rank's whole run) is drawn
 * after the job.
 *
 * The Unix socket: ${XDG_RUNTIME_DIR:-/tmp}/ferry-<uid>/monitor.<our pid>.sock, in a directory
 * we make 0700 and use only if it is ours and private; a client must be our user or root
 * (SO_PEERCRED). Sockets of monitors that died without cleaning up (SIGKILL) are removed here
 * at start and by ferry top. What a client reads (it sends nothing):
 *   FERRY-TOP 1 <pid> <ranks> <elapsed ms> <program>       on connect
 *   B <bytes>\n<the block, bytes long>                     once a second (and the last at once)
 *   E <exit status>                                         the job has ended; then we close
 *
 * The ranks' lines: see src/tools/prof/prof_monitor.h. A rank that connects twice, or with the
 * size of another world (MPI_Comm_spawn's children), is told NO and goes unwatched. The
 * listening, the handshakes and the ranks' connections are toolsrv.c's, as for --check. */
#include "monitor.h"
#include "preload.h"
#include "toolsrv.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/ioctl.h>
#include <sys/un.h>
#include <unistd.h>

#define PERIOD_MS 1000        /* between blocks */
#define FIRST_BLOCK_MS 3000   /* with no rank connected yet, the first block (all "starting") */
#define BLOCK_LAG_MS 200      /* after the snapshots of that second (theirs count from connect) */
#define SILENT_MS 3000        /* a live rank without a snapshot this long is "silent" */
#define PEND_MAX 64           /* connections authenticating at once; more wait in the backlog */
#define LINE_MAX_BYTES 1024   /* a rank's line; longer is not our protocol */
#define TABLE_RANKS 64        /* one line per rank up to this many (FERRY_MONITOR_ROWS) */
#define LONGEST_SHOWN 8       /* beyond: the ranks longest in one call */
#define CLIENTS_MAX 16        /* ferry top attached at once */
#define CLIENT_QUEUE_MAX (1 << 20) /* a client that reads nothing is dropped past this */

enum rank_state { R_WAIT, R_LIVE, R_DONE, R_GONE };

typedef struct snap {
    long long t_ns; /* on the rank's clock, since its thread started */
    char call[40];  /* "-": computing */
    uint64_t in_call_ns, calls, mpi_ns, msgs_sent, bytes_sent, msgs_recv, bytes_recv, coll;
} snap_t;

typedef struct mrank {
    int state;
    char host[64];
    snap_t cur, prev; /* prev: zeros at t 0 until a second snapshot came */
    int nsnap;
    long long cur_at; /* our clock (ms) when cur arrived */
} mrank_t;

enum who_kind { W_ULISTEN, W_CLIENT }; /* our poll entries after the server's (toolsrv) */

static struct {
    int on, quiet;
    fy_mpx_toolsrv_t srv; /* the listening, the handshakes, the ranks' connections */
    mrank_t *r;
    int size;
    char prog[64];
    long long start_ms, next_block;
    int connected; /* some rank has connected: blocks are drawn from then on */
    int ended;     /* the block being drawn is the last */
    int rows;      /* one line per rank up to this many ranks, else the summary */
    /* On a terminal the block is redrawn in place when nothing else was written since the last
     * one: its lines, and the counts of rank output and of our messages when it was drawn. */
    int tty;
    int last_lines;
    unsigned long emitted_at;
    int refused_at;
    int ufd; /* the Unix socket, -1: none */
    char upath[sizeof(((struct sockaddr_un *)0)->sun_path)];
    fy_mpx_conn_t cl[CLIENTS_MAX]; /* ferry top's: only written to */
    char *block; /* the last block drawn */
    size_t blen;
    enum who_kind *kind;
    int *idx;
    int nslots;
} S = {.ufd = -1};

/* ---- Setting up ---- */

/* The private directory of our user's monitor sockets; 0, or -1 with why[] filled. */
static int socket_dir(char *out, size_t len, char *why, size_t wlen)
{
    if (fy_monitor_dir(out, len) != 0) {
        snprintf(why, wlen, "the path of our socket directory is too long (XDG_RUNTIME_DIR)");
        return -1;
    }
    if (mkdir(out, 0700) != 0 && errno != EEXIST) {
        snprintf(why, wlen, "cannot make %s: %s", out, strerror(errno));
        return -1;
    }
    struct stat st;
    if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077) != 0) {
        snprintf(why, wlen, "%s is not a directory of ours that only we can use (mode 0700)",
                 out);
        return -1;
    }
    return 0;
}

/* Removes monitor.<pid>.sock of processes that are gone (a monitor killed by SIGKILL). */
static void sweep_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    size_t plen = strlen(FY_MONITOR_SOCK_PREFIX);
    while ((e = readdir(d)) != NULL) {
        char *end;
        if (strncmp(e->d_name, FY_MONITOR_SOCK_PREFIX, plen) != 0)
            continue;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (pid > 0 && strcmp(end, FY_MONITOR_SOCK_SUFFIX) == 0 && kill((pid_t)pid, 0) != 0 &&
            errno == ESRCH)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

static void unlink_socket(void)
{
    if (S.upath[0] != '\0')
        unlink(S.upath);
    S.upath[0] = '\0';
}

/* The socket ferry top attaches to. Without it the job still runs and prints (a warning). */
static void listen_unix(void)
{
    char dir[PATH_MAX], why[PATH_MAX + 128];
    if (socket_dir(dir, sizeof(dir), why, sizeof(why)) != 0) {
        fprintf(stderr, FY_MPX_PROG ": --monitor: %s; ferry top cannot attach to this job\n", why);
        return;
    }
    sweep_stale(dir);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" FY_MONITOR_SOCK_PREFIX "%ld"
                         FY_MONITOR_SOCK_SUFFIX, dir, (long)getpid()) >= sizeof(sa.sun_path)) {
        fprintf(stderr, FY_MPX_PROG ": --monitor: the socket's path in %s is too long (%zu bytes "
                "at most; set XDG_RUNTIME_DIR to a shorter directory); ferry top cannot attach "
                "to this job\n", dir, sizeof(sa.sun_path) - 1);
        return;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    unlink(sa.sun_path); /* ours, from a process of our pid long gone */
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 16) != 0) {
        fprintf(stderr, FY_MPX_PROG ": --monitor: cannot listen on %s: %s; ferry top cannot "
                "attach to this job\n", sa.sun_path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    chmod(sa.sun_path, 0600); /* the directory keeps others out already; this says so too */
    snprintf(S.upath, sizeof(S.upath), "%s", sa.sun_path);
    S.ufd = fd;
}

static const fy_mpx_check_hooks_t hooks;
static const fy_mpx_toolsrv_conf_t srv_conf;

int fy_mpx_monitor_setup(fy_mpx_opts_t *o, int quiet, int remote, const char *iface, int all_here,
                         const char *first_remote)
{
    /* The table's size limit: FERRY_MONITOR_ROWS ranks (tests use a small one for the summary). */
    S.rows = TABLE_RANKS;
    const char *rows = getenv("FERRY_MONITOR_ROWS");
    if (rows != NULL && *rows != '\0') {
        char *end;
        long v = strtol(rows, &end, 10);
        if (*end != '\0' || v < 0 || v > FY_MPX_MAX_RANKS) {
            fprintf(stderr, FY_MPX_PROG ": FERRY_MONITOR_ROWS='%s': the most ranks shown a line "
                    "each, 0 to %d\n", rows, FY_MPX_MAX_RANKS);
            return -1;
        }
        S.rows = (int)v;
    }
    char lib[PATH_MAX];
    if (fy_mpx_tool_lib("--monitor", "the recorder library", "libferry_prof.so", lib,
                        sizeof(lib)) != 0 ||
        fy_mpx_preload(o, lib) != 0)
        return -1;
    if (fy_mpx_toolsrv_open(&S.srv, &srv_conf, o, remote, iface, all_here, first_remote) != 0)
        return -1;
    S.size = o->np;
    S.r = calloc((size_t)o->np, sizeof(*S.r));
    S.nslots = fy_mpx_toolsrv_slots(&S.srv) + 1 + CLIENTS_MAX;
    S.kind = calloc((size_t)S.nslots, sizeof(*S.kind));
    S.idx = calloc((size_t)S.nslots, sizeof(*S.idx));
    if (S.r == NULL || S.kind == NULL || S.idx == NULL)
        goto err_memory;
    for (int i = 0; i < CLIENTS_MAX; i++)
        S.cl[i].fd = -1;
    const char *p = o->app[0].argv[0], *slash = strrchr(p, '/');
    snprintf(S.prog, sizeof(S.prog), "%s", slash ? slash + 1 : p);
    for (char *c = S.prog; *c; c++)
        if (*c == ' ' || *c == '\n')
            *c = '_';
    S.quiet = quiet;
    const char *term = getenv("TERM");
    S.tty = isatty(2) && term != NULL && strcmp(term, "dumb") != 0;
    S.start_ms = fy_mpx_now_ms();
    /* A rank slow to reach MPI_Init (or hung before it) shows as starting after a while. */
    S.next_block = S.start_ms + FIRST_BLOCK_MS;
    /* The loop takes these signals from a signalfd once the job starts (job.c); blocked from
     * here, one arriving before that waits for it instead of killing us with the socket left. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    listen_unix();
    S.on = 1;
    fy_mpx_check_hooks = &hooks;
    return 0;
err_memory:
    fprintf(stderr, FY_MPX_PROG ": out of memory\n");
    return -1;
}

/* ---- Drawing ---- */

/* "12.3k" for counts per second. */
static void human_count(double v, char *out, size_t len)
{
    if (v < 999.5)
        snprintf(out, len, "%.0f", v);
    else if (v < 999.5e3)
        snprintf(out, len, "%.1fk", v / 1e3);
    else if (v < 999.5e6)
        snprintf(out, len, "%.1fM", v / 1e6);
    else
        snprintf(out, len, "%.1fG", v / 1e9);
}

/* "1.2 MiB" */
static void human_bytes(double v, char *out, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (v >= 1023.5 && u < 4) {
        v /= 1024;
        u++;
    }
    snprintf(out, len, u == 0 ? "%.0f %s" : "%.1f %s", v, unit[u]);
}

typedef struct view {
    const char *state;
    const char *call; /* "" when not in one */
    double for_s;     /* in that call */
    double pct;       /* of the last interval in MPI; < 0: unknown */
    double msgs, bytes; /* per second */
    uint64_t calls;
} view_t;

/* What a rank's line shows: rates over its last interval, or over its whole run (the last
 * block, when the last interval is a sliver between a snapshot and MPI_Finalize). */
static void rank_view(const mrank_t *r, long long now, int whole, view_t *v)
{
    static const snap_t zero = {.call = "-"};
    *v = (view_t){.state = "starting", .call = "", .pct = -1}; /* not past MPI_Init yet */
    if (r->state == R_WAIT)
        return;
    const snap_t *c = &r->cur, *p = whole ? &zero : &r->prev;
    v->calls = c->calls;
    double dt = (double)(c->t_ns - p->t_ns) / 1e9;
    if (r->nsnap > 0 && dt > 0.05) {
        double d = (double)(c->mpi_ns > p->mpi_ns ? c->mpi_ns - p->mpi_ns : 0) / 1e9;
        v->pct = d / dt * 100;
        v->pct = v->pct > 100 ? 100 : v->pct;
        v->msgs = (double)(c->msgs_sent + c->msgs_recv - p->msgs_sent - p->msgs_recv) / dt;
        v->bytes = (double)(c->bytes_sent + c->bytes_recv - p->bytes_sent - p->bytes_recv) / dt;
    }
    if (r->state == R_DONE) {
        v->state = "finalized";
        return;
    }
    if (r->state == R_GONE) {
        v->state = "exited";
        return;
    }
    int in_mpi = strcmp(c->call, "-") != 0;
    v->state = now - r->cur_at > SILENT_MS ? "silent" : in_mpi ? "MPI" : "compute";
    if (in_mpi) {
        v->call = c->call;
        /* As the rank saw it (at most a second old): not extrapolated, or a rank making many
         * short calls would seem to sit in one for as long as the snapshot is old. */
        v->for_s = (double)c->in_call_ns / 1e9;
    }
}

static void rank_line(FILE *f, int rank, const mrank_t *r, const view_t *v)
{
    char fr[24] = "", pct[8] = "-", msgs[16] = "", bytes[24] = "";
    if (v->call[0] != '\0' && v->for_s >= 1)
        snprintf(fr, sizeof(fr), "%.1f s", v->for_s);
    else if (v->call[0] != '\0' && v->for_s >= 1e-3)
        snprintf(fr, sizeof(fr), "%.0f ms", v->for_s * 1e3);
    else if (v->call[0] != '\0')
        snprintf(fr, sizeof(fr), "%.0f us", v->for_s * 1e6);
    if (v->pct >= 0)
        snprintf(pct, sizeof(pct), "%.0f%%", v->pct);
    human_count(v->msgs, msgs, sizeof(msgs));
    human_bytes(v->bytes, bytes, sizeof(bytes));
    fprintf(f, "%5d %-10.10s %-9s %-18.18s %8s %5s %7s %10s/s %9" PRIu64 "\n", rank,
            r->host[0] ? r->host : "-", v->state, v->call[0] ? v->call : "-", fr, pct, msgs,
            bytes, v->calls);
}

static const char *const HEAD = " rank host       state     call                    for  %mpi"
                                "   msg/s      bytes/s     calls\n";

/* Beyond TABLE_RANKS: counts by state, the spread of %mpi, totals, the ranks longest in a call. */
static void summary(FILE *f, long long now, view_t *v)
{
    int n_mpi = 0, n_comp = 0, n_done = 0, n_gone = 0, n_wait = 0, n_silent = 0, known = 0;
    int rmin = -1, rmax = -1;
    double sum = 0, msgs = 0, bytes = 0;
    uint64_t calls = 0;
    for (int r = 0; r < S.size; r++) {
        rank_view(&S.r[r], now, S.ended, &v[r]);
        const char *s = v[r].state;
        n_mpi += strcmp(s, "MPI") == 0;
        n_comp += strcmp(s, "compute") == 0;
        n_done += strcmp(s, "finalized") == 0;
        n_gone += strcmp(s, "exited") == 0;
        n_wait += strcmp(s, "starting") == 0;
        n_silent += strcmp(s, "silent") == 0;
        msgs += v[r].msgs;
        bytes += v[r].bytes;
        calls += v[r].calls;
        if (v[r].pct < 0)
            continue;
        known++;
        sum += v[r].pct;
        if (rmin < 0 || v[r].pct < v[rmin].pct)
            rmin = r;
        if (rmax < 0 || v[r].pct > v[rmax].pct)
            rmax = r;
    }
    fprintf(f, " in MPI %d, computing %d, silent %d, finalized %d, exited %d, not connected %d\n",
            n_mpi, n_comp, n_silent, n_done, n_gone, n_wait);
    char m[16], b[24];
    human_count(msgs, m, sizeof(m));
    human_bytes(bytes, b, sizeof(b));
    if (known > 0)
        fprintf(f, " %%mpi: min %.0f%% (rank %d), mean %.0f%%, max %.0f%% (rank %d); all ranks: "
                "%s msg/s, %s/s, %" PRIu64 " calls\n", v[rmin].pct, rmin, sum / known,
                v[rmax].pct, rmax, m, b, calls);
    /* The ranks longest in one call: where a hang shows. */
    char *shown = calloc((size_t)S.size, 1);
    int header = 0;
    for (int k = 0; k < LONGEST_SHOWN && shown != NULL; k++) {
        int best = -1;
        for (int r = 0; r < S.size; r++)
            if (!shown[r] && v[r].call[0] != '\0' && (best < 0 || v[r].for_s > v[best].for_s))
                best = r;
        if (best < 0 || v[best].for_s < 1.0)
            break;
        shown[best] = 1;
        if (!header)
            fprintf(f, " longest in one call:\n%s", HEAD);
        header = 1;
        rank_line(f, best, &S.r[best], &v[best]);
    }
    free(shown);
}

/* Draws the block into S.block. */
static void draw(long long now, int ended)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    S.ended = ended;
    fprintf(f, "ferry monitor: %s, %d rank%s, %.1f s%s\n", S.prog, S.size, S.size > 1 ? "s" : "",
            (double)(now - S.start_ms) / 1000,
            ended ? ", ended (%mpi and rates over each rank's whole run)" : "");
    view_t *v = calloc((size_t)S.size, sizeof(*v));
    if (v != NULL && S.size <= S.rows) {
        fputs(HEAD, f);
        for (int r = 0; r < S.size; r++) {
            rank_view(&S.r[r], now, S.ended, &v[r]);
            rank_line(f, r, &S.r[r], &v[r]);
        }
    } else if (v != NULL) {
        summary(f, now, v);
    }
    free(v);
    if (fclose(f) != 0) {
        free(buf);
        return;
    }
    free(S.block);
    S.block = buf;
    S.blen = len;
}

/* ---- ferry top's clients ---- */

static void client_close(fy_mpx_conn_t *c)
{
    fy_mpx_conn_close(c);
}

static void client_flush(fy_mpx_conn_t *c)
{
    if (fy_mpx_conn_flush(c) != 0)
        client_close(c);
}

static void client_say(fy_mpx_conn_t *c, const char *buf, size_t len)
{
    /* A client past CLIENT_QUEUE_MAX reads nothing: not worth our memory. */
    if (c->fd >= 0 && fy_mpx_conn_say(c, buf, len, CLIENT_QUEUE_MAX) != 0)
        client_close(c);
}

static void client_block(fy_mpx_conn_t *c)
{
    if (S.block == NULL)
        return;
    char head[32];
    int n = snprintf(head, sizeof(head), "B %zu\n", S.blen);
    client_say(c, head, (size_t)n);
    client_say(c, S.block, S.blen);
}

static void accept_clients(void)
{
    for (;;) {
        int fd = accept4(S.ufd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0 && errno == EINTR)
            continue;
        if (fd < 0)
            return;
        struct ucred cr;
        socklen_t cl = sizeof(cr);
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 ||
            (cr.uid != getuid() && cr.uid != 0)) {
            close(fd); /* the directory is private: someone went around it */
            continue;
        }
        fy_mpx_conn_t *c = NULL;
        for (int i = 0; i < CLIENTS_MAX && c == NULL; i++)
            if (S.cl[i].fd < 0)
                c = &S.cl[i];
        if (c == NULL) {
            static const char busy[] = "BUSY\n";
            (void)!send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            close(fd);
            continue;
        }
        *c = (fy_mpx_conn_t){.fd = fd};
        char hello[160];
        int n = snprintf(hello, sizeof(hello), FY_MONITOR_TOP_PROTO " 1 %ld %d %lld %s\n",
                         (long)getpid(), S.size, fy_mpx_now_ms() - S.start_ms, S.prog);
        client_say(c, hello, (size_t)n);
        client_block(c);
    }
}

static void client_read(fy_mpx_conn_t *c)
{
    char buf[256];
    ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
        client_close(c); /* it left (ferry top -n, or ^C) */
}

/* ---- The ranks ---- */

/* toolsrv: the key was right; a rank of another world is told NO (state: not R_WAIT). */
static int srv_admit(int rank)
{
    return S.r[rank].state == R_WAIT ? 0 : -1;
}

static void srv_joined(int rank)
{
    mrank_t *r = &S.r[rank];
    r->state = R_LIVE;
    r->cur_at = fy_mpx_now_ms();
    snprintf(r->cur.call, sizeof(r->cur.call), "-");
    if (!S.connected) {
        S.connected = 1;
        long long first = fy_mpx_now_ms() + PERIOD_MS + BLOCK_LAG_MS;
        S.next_block = first < S.next_block ? first : S.next_block;
    }
}

/* One line of an authenticated rank; non-zero drops the connection (after BYE: nothing more
 * to read). */
static int srv_line(int rank, char *line)
{
    mrank_t *r = &S.r[rank];
    if (strcmp(line, "BYE") == 0) {
        r->state = R_DONE;
        return 1;
    }
    if (line[0] == 'H' && line[1] == ' ') {
        char host[64];
        if (sscanf(line + 2, "%63s", host) == 1)
            snprintf(r->host, sizeof(r->host), "%s", host);
        return 0;
    }
    if (line[0] != 'S' || line[1] != ' ')
        return 0; /* a later version's message */
    snap_t s = {0};
    if (sscanf(line + 2,
               "%lld %39s %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
               " %" SCNu64 " %" SCNu64,
               &s.t_ns, s.call, &s.in_call_ns, &s.calls, &s.mpi_ns, &s.msgs_sent, &s.bytes_sent,
               &s.msgs_recv, &s.bytes_recv, &s.coll) != 10)
        return -1;
    if (r->nsnap > 0)
        r->prev = r->cur;
    else
        r->prev = (snap_t){.call = "-"};
    r->cur = s;
    r->nsnap++;
    r->cur_at = fy_mpx_now_ms();
    return 0;
}

static void rank_gone(int rank)
{
    mrank_t *r = &S.r[rank];
    if (r->state == R_LIVE || r->state == R_WAIT)
        r->state = R_GONE;
}

/* ---- The poll loop's hooks (job.c) ---- */

static int hk_slots(void)
{
    return S.nslots;
}

static void add(struct pollfd *pfd, int *n, int fd, short ev, enum who_kind k, int i)
{
    pfd[*n] = (struct pollfd){.fd = fd, .events = ev};
    S.kind[*n] = k;
    S.idx[(*n)++] = i;
}

static int hk_add(struct pollfd *pfd)
{
    int n = fy_mpx_toolsrv_add(&S.srv, pfd);
    if (S.ufd >= 0)
        add(pfd, &n, S.ufd, POLLIN, W_ULISTEN, 0);
    for (int i = 0; i < CLIENTS_MAX; i++)
        if (S.cl[i].fd >= 0)
            add(pfd, &n, S.cl[i].fd, (short)(POLLIN | (S.cl[i].outlen ? POLLOUT : 0)), W_CLIENT,
                i);
    return n;
}

static void hk_ready(fy_mpx_job_t *job, struct pollfd *pfd, int n)
{
    (void)job;
    for (int k = fy_mpx_toolsrv_ready(&S.srv, pfd); k < n; k++) {
        if (pfd[k].revents == 0)
            continue;
        int i = S.idx[k];
        switch (S.kind[k]) {
        case W_ULISTEN: accept_clients(); break;
        case W_CLIENT:
            if (S.cl[i].fd != pfd[k].fd)
                break;
            if (pfd[k].revents & POLLOUT)
                client_flush(&S.cl[i]);
            if (S.cl[i].fd >= 0 && (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
                client_read(&S.cl[i]);
            break;
        }
    }
}

/* Whether the last block is still the last thing on the terminal and the new one can replace
 * it: no rank output and no message of ours since, and both fit on the screen. */
static int can_redraw(int lines, int calm)
{
    struct winsize ws;
    if (!S.tty || !calm || S.last_lines == 0 || S.emitted_at != fy_mpx_emitted ||
        S.refused_at != S.srv.refused)
        return 0;
    if (ioctl(2, TIOCGWINSZ, &ws) != 0)
        return 0;
    return ws.ws_row == 0 || (ws.ws_row > lines && ws.ws_row > S.last_lines); /* 0: unknown */
}

/* Draws the block and shows it (stderr unless quiet, and every ferry top). calm: the job is
 * not being torn down (mpiexec's own messages then come, and must stay on the screen). */
static void publish(long long now, int ended, int calm)
{
    draw(now, ended);
    if (S.block == NULL)
        return;
    if (!S.quiet) {
        int lines = 0;
        for (size_t i = 0; i < S.blen; i++)
            lines += S.block[i] == '\n';
        /* Up to the first line of the last block, and clear from there down. */
        if (can_redraw(lines, calm))
            fprintf(stderr, "\033[%dF\033[J", S.last_lines);
        fwrite(S.block, 1, S.blen, stderr);
        fflush(stderr);
        S.last_lines = lines;
        S.emitted_at = fy_mpx_emitted;
        S.refused_at = S.srv.refused;
    }
    for (int i = 0; i < CLIENTS_MAX; i++)
        client_block(&S.cl[i]);
}

static long long hk_tick(fy_mpx_job_t *job, long long now)
{
    long long wake = fy_mpx_toolsrv_tick(&S.srv, now);
    if (now >= S.next_block) {
        publish(now, 0, !job->terminating && !job->reported);
        /* Late (a busy loop, a stopped terminal): the next one a period from now, no burst. */
        S.next_block = now - S.next_block >= PERIOD_MS ? now + PERIOD_MS : S.next_block + PERIOD_MS;
    }
    return wake < 0 || S.next_block < wake ? S.next_block : wake;
}

static void hk_rank_exit(int rank)
{
    if (rank < 0 || rank >= S.size)
        return;
    /* Its connection may still hold its last lines: read them first. */
    fy_mpx_toolsrv_read(&S.srv, rank);
    fy_mpx_toolsrv_hangup(&S.srv, rank);
    rank_gone(rank);
}

static const fy_mpx_check_hooks_t hooks = {
    .slots = hk_slots,
    .add = hk_add,
    .ready = hk_ready,
    .tick = hk_tick,
    .rank_exit = hk_rank_exit,
};

void fy_mpx_monitor_close(int status)
{
    if (!S.on)
        return;
    long long now = fy_mpx_now_ms();
    for (int r = 0; r < S.size; r++)
        fy_mpx_toolsrv_read(&S.srv, r); /* the last snapshots and goodbyes */
    if (S.connected)
        publish(now, 1, status == 0);
    else if (!S.quiet)
        fprintf(stderr, "ferry monitor: %s: no rank connected (not an MPI program, ended before "
                "MPI_Init, or built without loading libferry_prof.so: linked statically)\n",
                S.prog);
    char end[32];
    int n = snprintf(end, sizeof(end), "E %d\n", status);
    for (int i = 0; i < CLIENTS_MAX; i++) {
        if (S.cl[i].fd < 0)
            continue;
        client_say(&S.cl[i], end, (size_t)n);
        if (S.cl[i].fd >= 0 && S.cl[i].outlen > 0) {
            /* A last chance for a slow reader, bounded: we are ending. */
            struct pollfd p = {.fd = S.cl[i].fd, .events = POLLOUT};
            if (poll(&p, 1, 200) == 1)
                client_flush(&S.cl[i]);
        }
        client_close(&S.cl[i]);
    }
    if (S.ufd >= 0)
        close(S.ufd);
    S.ufd = -1;
    unlink_socket();
    fy_mpx_toolsrv_close(&S.srv);
    free(S.r);
    free(S.kind);
    free(S.idx);
    free(S.block);
    S.r = NULL;
    S.block = NULL;
    S.on = 0;
    fy_mpx_check_hooks = NULL;
}

static const fy_mpx_toolsrv_conf_t srv_conf = {
    .option = "--monitor",
    .name = "ferry monitor",
    .proto = "FERRY-MONITOR",
    .not_proto = "not the monitor's protocol",
    .addr_var = "FERRY_MONITOR_ADDR",
    .key_var = "FERRY_MONITOR_KEY",
    .pend_max = PEND_MAX,
    .line_max = LINE_MAX_BYTES,
    .admit = srv_admit,
    .joined = srv_joined,
    .line = srv_line,
    .gone = rank_gone,
};
