/* The watch, the ranks' side (chk_watch.h): a per-rank slot the wrappers fill, and one thread
 * that tells mpiexec's check server (tools/mpiexec/check_server.c) about the blocks that last.
 *
 * The slot is written by the application's threads under a sequence lock (no system call: it
 * runs on every blocking call) and only read by the watch thread, which looks at it every
 * LOOK_MS. A block seen with the same sequence number for BLOCK_MS or more (a buffered send the
 * checker holds, CHK_W_SYNC: at once) is sent once, with
 * its source location (the wrapper's return address, resolved by dladdr and addr2line in this
 * thread, cached per address); its end is sent when the number moves on. The thread blocks
 * every signal, makes no MPI call, and sleeps in poll() on the server's socket and a wake-up
 * pipe, so the program never sees it.
 *
 * The wire is text, one message a line; see the top of check_server.c. */
#include "chk_watch.h"

#include "fy_addr2line.h"
#include "fy_auth.h"
#include "fy_tool_thread.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LOOK_MS 50          /* how often the thread looks at the slot */
#define BLOCK_MS 100        /* a block this old is reported */
#define CONNECT_MS 5000     /* to reach the server and pass its handshake */
#define RESOLVE_MS 5000     /* addr2line's longest run */
#define STACK_BYTES (256 * 1024)
#define NCACHE 64           /* resolved return addresses kept */

static struct {
    _Atomic uint64_t seq; /* odd while the slot is being written; even values name a block */
    const char *call;     /* NULL: not blocked */
    const void *ra;
    bool all;
    int n;
    chk_item_t items[CHK_WATCH_MAX_ITEMS];
    /* The block the server released (a potential deadlock): compared with seq, so a release
     * that arrives after the block ended cannot touch the next one. 1: none (seq is even). */
    _Atomic uint64_t released_seq;
    /* Threads inside a blocking call (MPI_THREAD_MULTIPLE): with more than one, the slot shows
     * only the last, so the rank counts as running (never judged on half of what it does). The
     * writers take turns on `busy`, uncontended but for such programs. */
    atomic_int nblocked;
    atomic_flag busy;
} slot = {.released_seq = 1, .busy = ATOMIC_FLAG_INIT};

/* Below MPI_THREAD_MULTIPLE one application thread at a time writes the slot: no turns to take
 * and no read-modify-write of nblocked. That matters: a locked instruction right after the
 * library's spin wait costs tens of nanoseconds, and a ping-pong makes four of them per call. */
static atomic_bool slot_shared = true;
/* No server to tell (none given, or it could not be reached): nothing reads the slot. */
static atomic_bool slot_idle;

void chk_watch_threads(bool multiple)
{
    atomic_store_explicit(&slot_shared, multiple, memory_order_relaxed);
}

static bool slot_lock(void)
{
    if (!atomic_load_explicit(&slot_shared, memory_order_relaxed))
        return false;
    while (atomic_flag_test_and_set_explicit(&slot.busy, memory_order_acquire))
        ;
    return true;
}

static void slot_unlock(bool locked)
{
    if (locked)
        atomic_flag_clear_explicit(&slot.busy, memory_order_release);
}

/* nblocked += d: a plain load and store when only one thread writes it (the watch thread only
 * reads it). */
static void slot_count(bool shared, int d)
{
    if (shared)
        atomic_fetch_add_explicit(&slot.nblocked, d, memory_order_relaxed);
    else
        atomic_store_explicit(&slot.nblocked,
                              atomic_load_explicit(&slot.nblocked, memory_order_relaxed) + d,
                              memory_order_relaxed);
}

/* The watch thread and its connection. */
static struct {
    atomic_int state; /* 0: not started, 1: running, 2: stopped (or never connected) */
    int fd;
    fy_tool_thread_t t; /* its wake-up pipe */
    int rank;
    /* Lines to send before the next block (communicators), written by any thread. */
    pthread_mutex_t qlock;
    char *q;
    size_t qlen, qcap;
    /* The thread's own. */
    char in[512];
    size_t inlen;
    uint64_t watched;    /* seq of the block being timed, 0: none */
    long long since;     /* when it was first seen */
    int reported;        /* sent to the server */
    struct {
        const void *ra;
        char loc[256];
    } cache[NCACHE];
    int ncache;
} W = {.fd = -1, .t.wake = {-1, -1}, .qlock = PTHREAD_MUTEX_INITIALIZER};

/* A bounded copy that always ends the string. */
static void copy_str(char *dst, size_t len, const char *src)
{
    size_t n = strnlen(src, len - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---- The slot (application threads) ---- */

void chk_watch_block(const char *call, const void *ra, bool all, int n, const chk_item_t *items)
{
    if (atomic_load_explicit(&slot_idle, memory_order_relaxed))
        return;
    bool locked = slot_lock();
    slot_count(locked, 1);
    uint64_t s = atomic_load_explicit(&slot.seq, memory_order_relaxed);
    atomic_store_explicit(&slot.seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    slot.call = call;
    slot.ra = ra;
    slot.all = all;
    slot.n = n;
    memcpy(slot.items, items,
           sizeof(chk_item_t) * (size_t)(n < CHK_WATCH_MAX_ITEMS ? n : CHK_WATCH_MAX_ITEMS));
    atomic_store_explicit(&slot.seq, s + 2, memory_order_release);
    slot_unlock(locked);
}

void chk_watch_unblock(void)
{
    if (atomic_load_explicit(&slot_idle, memory_order_relaxed))
        return;
    bool locked = slot_lock();
    uint64_t s = atomic_load_explicit(&slot.seq, memory_order_relaxed);
    atomic_store_explicit(&slot.seq, s + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    slot.call = NULL;
    atomic_store_explicit(&slot.seq, s + 2, memory_order_release);
    slot_count(locked, -1);
    slot_unlock(locked);
}

bool chk_watch_released(void)
{
    return atomic_load_explicit(&slot.released_seq, memory_order_acquire) ==
           atomic_load_explicit(&slot.seq, memory_order_relaxed);
}

typedef struct snap {
    uint64_t seq;
    const char *call;
    const void *ra;
    bool all;
    int n;
    chk_item_t items[CHK_WATCH_MAX_ITEMS];
} snap_t;

/* A consistent copy of the slot; 0, or -1 when it is being written (look again later). */
static int read_slot(snap_t *s)
{
    for (int tries = 0; tries < 100; tries++) {
        uint64_t a = atomic_load_explicit(&slot.seq, memory_order_acquire);
        if (a & 1)
            continue;
        s->call = slot.call;
        s->ra = slot.ra;
        s->all = slot.all;
        s->n = slot.n;
        int k = s->n < CHK_WATCH_MAX_ITEMS ? s->n : CHK_WATCH_MAX_ITEMS;
        if (s->call != NULL && k > 0)
            memcpy(s->items, slot.items, sizeof(chk_item_t) * (size_t)k);
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&slot.seq, memory_order_relaxed) == a) {
            s->seq = a;
            if (atomic_load_explicit(&slot.nblocked, memory_order_relaxed) > 1)
                s->call = NULL; /* several threads in blocking calls: see slot.nblocked */
            return 0;
        }
    }
    return -1;
}

/* ---- Sending ---- */

static int send_all(const char *buf, size_t len)
{
    if (W.fd < 0)
        return -1;
    return fy_auth_send_all(W.fd, buf, len, fy_auth_now_ms() + CONNECT_MS);
}

static void queue_line(const char *line, size_t len)
{
    pthread_mutex_lock(&W.qlock);
    if (W.qlen + len > W.qcap) {
        size_t cap = W.qcap ? W.qcap : 4096;
        while (cap < W.qlen + len)
            cap *= 2;
        char *q = realloc(W.q, cap);
        if (q == NULL) {
            pthread_mutex_unlock(&W.qlock);
            return; /* the communicator stays unknown: taken as the world's members */
        }
        W.q = q;
        W.qcap = cap;
    }
    memcpy(W.q + W.qlen, line, len);
    W.qlen += len;
    pthread_mutex_unlock(&W.qlock);
}

static int flush_queue(void)
{
    pthread_mutex_lock(&W.qlock);
    int rc = W.qlen > 0 ? send_all(W.q, W.qlen) : 0;
    W.qlen = 0;
    pthread_mutex_unlock(&W.qlock);
    return rc;
}

/* Whether to keep communicators: only when there is a server to tell (or may be, before
 * chk_watch_start). */
static int wanted(void)
{
    int st = atomic_load(&W.state);
    if (st == 2)
        return 0;
    const char *a = getenv("FERRY_CHECK_ADDR");
    return a != NULL && *a != '\0';
}

void chk_watch_comm(uint64_t id, int n, const int *world_ranks)
{
    if (!wanted() || n < 0)
        return;
    size_t cap = 64 + 12 * (size_t)n;
    char *line = malloc(cap);
    if (line == NULL)
        return;
    size_t len = (size_t)snprintf(line, cap, "C %" PRIu64 " %d", id, n);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(line + len, cap - len, " %d", world_ranks[i]);
    line[len++] = '\n';
    queue_line(line, len);
    free(line);
}

void chk_watch_comm_name(uint64_t id, const char *name)
{
    if (!wanted() || name == NULL || *name == '\0')
        return;
    char line[160];
    int len = snprintf(line, sizeof(line), "N %" PRIu64 " ", id);
    for (const char *p = name; *p != '\0' && len < (int)sizeof(line) - 2; p++)
        line[len++] = (*p == '\n' || *p == '\r') ? ' ' : *p;
    line[len++] = '\n';
    queue_line(line, (size_t)len);
}

/* ---- Where a block is: the return address as file:line ---- */

/* Runs addr2line on module at addr (src/common/fy_addr2line.c): the function and file:line. */
static int addr2line(const char *module, uintptr_t addr, char *func, size_t flen, char *file,
                     size_t len)
{
    char fbuf[PATH_MAX], nbuf[PATH_MAX];
    char *fp = fbuf, *np = nbuf;
    uint64_t off = addr;
    /* Not our library again (LD_PRELOAD, dropped by fy_addr2line), nor the server's address. */
    if (fy_addr2line(module, &off, 1, &fp, &np, sizeof(fbuf), "FERRY_CHECK_", RESOLVE_MS) != 0)
        return -1;
    copy_str(func, flen, nbuf);
    copy_str(file, len, fbuf);
    return 0;
}

static void resolve(const void *ra, char *out, size_t len)
{
    for (int i = 0; i < W.ncache; i++)
        if (W.cache[i].ra == ra) {
            copy_str(out, len, W.cache[i].loc);
            return;
        }
    out[0] = '\0';
    Dl_info di;
    struct link_map *lm = NULL;
    /* ra - 1: inside the call instruction, whose line is the caller's (ra may start the next
     * line). */
    const char *ca = (const char *)ra - 1;
    if (ra != NULL && dladdr1(ca, &di, (void **)&lm, RTLD_DL_LINKMAP) != 0 && lm != NULL) {
        char module[PATH_MAX];
        if (lm->l_name != NULL && lm->l_name[0] != '\0') {
            snprintf(module, sizeof(module), "%s", lm->l_name);
        } else {
            ssize_t n = readlink("/proc/self/exe", module, sizeof(module) - 1);
            module[n > 0 ? n : 0] = '\0';
        }
        uintptr_t off = (uintptr_t)ca - (uintptr_t)lm->l_addr;
        char func[256], file[PATH_MAX];
        const char *base = strrchr(module, '/') ? strrchr(module, '/') + 1 : module;
        if (addr2line(module, off, func, sizeof(func), file, sizeof(file)) == 0 &&
            file[0] != '?' && file[0] != '\0') {
            const char *f = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
            copy_str(out, len, f);
        } else if (di.dli_sname != NULL) {
            snprintf(out, len, "%.128s (%.100s+0x%" PRIxPTR ")", di.dli_sname, base, off);
        } else {
            snprintf(out, len, "%.200s+0x%" PRIxPTR, base, off);
        }
    }
    int i = W.ncache < NCACHE ? W.ncache++ : (int)((uintptr_t)ra % NCACHE);
    W.cache[i].ra = ra;
    copy_str(W.cache[i].loc, sizeof(W.cache[i].loc), out);
}

/* ---- The thread ---- */

static int send_block(const snap_t *s, long long age)
{
    char loc[256], line[4096];
    resolve(s->ra, loc, sizeof(loc));
    int k = s->n < CHK_WATCH_MAX_ITEMS ? s->n : CHK_WATCH_MAX_ITEMS;
    if (k < 0)
        k = 0;
    size_t len = (size_t)snprintf(line, sizeof(line), "B %" PRIu64 " %d %d %lld %s %d", s->seq,
                                  s->all ? 1 : 0, s->n, age, s->call, k);
    for (int i = 0; i < k && len < sizeof(line); i++) {
        const chk_item_t *it = &s->items[i];
        len += (size_t)snprintf(line + len, sizeof(line) - len,
                                " %d %d %d %" PRIu64 " %" PRIu64 " %s", it->kind, it->peer,
                                it->tag, it->comm, it->seq,
                                it->coll != NULL && *it->coll != '\0' ? it->coll : "-");
    }
    if (len < sizeof(line))
        len += (size_t)snprintf(line + len, sizeof(line) - len, " %s", loc);
    if (len >= sizeof(line) - 1)
        len = sizeof(line) - 2;
    line[len++] = '\n';
    if (flush_queue() != 0)
        return -1;
    return send_all(line, len);
}

static int send_unblock(uint64_t seq)
{
    char line[48];
    int len = snprintf(line, sizeof(line), "U %" PRIu64 "\n", seq);
    return send_all(line, (size_t)len);
}

/* Compares the slot with what the server knows; sends what changed. */
static int look(void)
{
    snap_t s;
    if (read_slot(&s) != 0)
        return 0;
    long long now = fy_auth_now_ms();
    int blocked = s.call != NULL;
    if (W.watched != 0 && (!blocked || s.seq != W.watched)) {
        if (W.reported && send_unblock(W.watched) != 0)
            return -1;
        W.watched = 0;
        W.reported = 0;
    }
    if (!blocked)
        return flush_queue();
    if (W.watched == 0) {
        W.watched = s.seq;
        W.since = now;
    }
    /* A buffered send held by the checker is told at once: the server may release it. */
    int sync = 0;
    for (int i = 0; i < s.n && i < CHK_WATCH_MAX_ITEMS; i++)
        sync |= s.items[i].kind == CHK_W_SYNC;
    if (!W.reported && (sync || now - W.since >= BLOCK_MS)) {
        if (send_block(&s, now - W.since) != 0)
            return -1;
        W.reported = 1;
    }
    return 0;
}

/* One line from the server: "R seq" (release the block seq), "A seq" (is seq still current?). */
static int on_line(const char *line)
{
    uint64_t seq;
    if (sscanf(line + 1, " %" SCNu64, &seq) != 1)
        return 0;
    if (line[0] == 'R') {
        atomic_store_explicit(&slot.released_seq, seq, memory_order_release);
    } else if (line[0] == 'A') {
        if (look() != 0)
            return -1;
        if (W.reported && W.watched == seq) {
            char out[48];
            int len = snprintf(out, sizeof(out), "Y %" PRIu64 "\n", seq);
            return send_all(out, (size_t)len);
        }
    }
    return 0;
}

static int read_server(void)
{
    ssize_t n = recv(W.fd, W.in + W.inlen, sizeof(W.in) - 1 - W.inlen, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0)
        return -1;
    W.inlen += (size_t)n;
    W.in[W.inlen] = '\0';
    char *p = W.in, *nl;
    while ((nl = strchr(p, '\n')) != NULL) {
        *nl = '\0';
        if (on_line(p) != 0)
            return -1;
        p = nl + 1;
    }
    W.inlen -= (size_t)(p - W.in);
    memmove(W.in, p, W.inlen);
    if (W.inlen == sizeof(W.in) - 1)
        W.inlen = 0; /* not our protocol: drop it */
    return 0;
}

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = W.fd, .events = POLLIN}, {.fd = W.t.wake[0], .events = POLLIN}};
        int n = poll(p, 2, LOOK_MS);
        if (n < 0 && errno != EINTR)
            break;
        if (p[1].revents != 0) {
            /* chk_watch_stop: the last news, then goodbye. */
            if (look() == 0)
                send_all("BYE\n", 4);
            break;
        }
        if (p[0].revents != 0 && read_server() != 0)
            break; /* mpiexec is gone: nothing more to tell */
        if (look() != 0)
            break;
    }
    return NULL;
}

/* ---- Connecting ---- */

/* Connects and authenticates (fy_auth.h); the socket, or -1 with why[] saying what failed
 * (empty: the server does not watch this world, quietly). */
static int join_server(const char *addr, const char *keyhex, int rank, int size, char *why,
                       size_t wlen)
{
    int fd = -1;
    /* Our own words but for the address's faults (fy_auth_dial's). */
    switch (fy_auth_dial(addr, "FERRY_CHECK_ADDR", "FERRY-CHECK", keyhex, rank, size, CONNECT_MS,
                         why, wlen, &fd)) {
    case 0: return fd;
    case FY_AUTH_FAIL_ADDR:
    case FY_AUTH_FAIL_CONNECT: break;
    case FY_AUTH_FAIL_KEY: snprintf(why, wlen, "FERRY_CHECK_KEY is not 64 hex digits"); break;
    case FY_AUTH_FAIL_GREETING: snprintf(why, wlen, "%s is not a check server", addr); break;
    case FY_AUTH_FAIL_NO:
        /* NO: not of the job's first world (a spawned one): the watch is off, quietly. */
        why[0] = '\0';
        break;
    default:
        snprintf(why, wlen, "the server at %s refused us (a wrong FERRY_CHECK_KEY?)", addr);
        break;
    }
    return -1;
}

void chk_watch_start(int world_rank, int world_size)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&W.state, &expect, 2))
        return; /* once per process */
    const char *addr = getenv("FERRY_CHECK_ADDR");
    if (addr == NULL || *addr == '\0') {
        atomic_store(&slot_idle, true);
        return;
    }
    char why[256];
    int fd = join_server(addr, getenv("FERRY_CHECK_KEY"), world_rank, world_size, why,
                         sizeof(why));
    if (fd < 0) {
        if (why[0] != '\0')
            fprintf(stderr, "ferry check: rank %d: %s; deadlocks will not be found\n",
                    world_rank, why);
        atomic_store(&slot_idle, true);
        return;
    }
    W.fd = fd;
    W.rank = world_rank;
    if (fy_tool_thread_start(&W.t, STACK_BYTES, watch_main) != 0) {
        close(fd);
        W.fd = -1;
        atomic_store(&slot_idle, true);
        return;
    }
    atomic_store(&W.state, 1);
}

void chk_watch_stop(void)
{
    int expect = 1;
    if (!atomic_compare_exchange_strong(&W.state, &expect, 2))
        return;
    fy_tool_thread_stop(&W.t);
    close(W.fd);
    W.fd = -1;
    pthread_mutex_lock(&W.qlock);
    free(W.q);
    W.q = NULL;
    W.qlen = W.qcap = 0;
    pthread_mutex_unlock(&W.qlock);
}
