/* The checker's core: its knobs, the report format, source locations, and the wrappers of
 * MPI_Init, MPI_Init_thread, MPI_Finalize and MPI_Abort that start and end the checks. */
#include "chk.h"
#include "fy_addr2line.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned chk_on = ~0u;
int chk_state;
int chk_sessions;
int chk_rank = -1, chk_size = -1;

static pthread_mutex_t big_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int nreports;
static bool keep_status;

bool chk_multi = true;

void chk_lock_mutex(void)
{
    pthread_mutex_lock(&big_lock);
}

void chk_unlock_mutex(void)
{
    pthread_mutex_unlock(&big_lock);
}

/* A rank that reported a problem exits with 3 when the program would have exited with 0, so
 * that scripts and test drivers see it. on_exit (not atexit) because only it sees the status. */
static void exit_hook(int status, void *arg)
{
    (void)arg;
    if (status == 0 && nreports > 0 && !keep_status) {
        fflush(NULL);
        _exit(3);
    }
}

static const struct {
    const char *name;
    unsigned bit;
} knob_names[] = {
    {"life", CHK_C_LIFE}, {"handle", CHK_C_HANDLE}, {"leak", CHK_C_LEAK}, {"type", CHK_C_TYPE},
    {"coll", CHK_C_COLL}, {"buffer", CHK_C_BUFFER}, {"watch", CHK_C_WATCH},
};

static bool leak_named; /* FERRY_CHECK names `leak`: reported even under mpi4py */

__attribute__((constructor)) static void chk_load(void)
{
    const char *e = getenv("FERRY_CHECK_EXIT");
    keep_status = e && strcmp(e, "0") == 0;
    const char *l = getenv("FERRY_CHECK");
    if (l && *l && strcmp(l, "all") != 0 && strcmp(l, "1") != 0) {
        chk_on = 0;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", l);
        for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
            bool neg = w[0] == '-';
            unsigned bit = 0;
            for (size_t i = 0; i < sizeof knob_names / sizeof knob_names[0]; i++)
                if (strcmp(w + neg, knob_names[i].name) == 0)
                    bit = knob_names[i].bit;
            if (!bit) {
                fprintf(stderr, "ferry check: FERRY_CHECK: unknown check '%s' (known: life, handle, "
                                "leak, type, coll, buffer, watch, all)\n", w);
                continue;
            }
            if (bit == CHK_C_LEAK && !neg)
                leak_named = true;
            if (neg)
                chk_on = (chk_on ? chk_on : ~0u) & ~bit;
            else
                chk_on |= bit;
        }
    }
    on_exit(exit_hook, NULL);
}

/* ---- where a call came from --------------------------------------------------------------- */

typedef struct where_ent {
    struct where_ent *next;
    const void *ra;
    const char *module; /* strdup'ed once per module (modules table) */
    uint64_t off;
    char *text;         /* resolved lazily */
    int calls;          /* chk_ra_count */
    char *func;
} where_ent_t;
static where_ent_t *where_tab[1024];

static const char *module_intern(const char *path)
{
    static const char *mods[64];
    static int nmods;
    for (int i = 0; i < nmods; i++)
        if (strcmp(mods[i], path) == 0)
            return mods[i];
    const char *p = strdup(path);
    if (nmods < 64)
        mods[nmods++] = p;
    return p;
}

static where_ent_t *where_get(const void *ra)
{
    unsigned b = (unsigned)(((uintptr_t)ra >> 2) * 2654435761u) % 1024;
    for (where_ent_t *w = where_tab[b]; w; w = w->next)
        if (w->ra == ra)
            return w;
    where_ent_t *w = calloc(1, sizeof *w);
    w->ra = ra;
    Dl_info di;
    if (ra && dladdr(ra, &di) && di.dli_fname) {
        const char *path = di.dli_fname;
        char exe[4096];
        /* The main program's name as dladdr gives it may be relative or empty: use the real one. */
        if (!path[0] || !strchr(path, '/')) {
            ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
            if (n > 0) {
                exe[n] = 0;
                path = exe;
            }
        }
        w->module = module_intern(path);
        const Elf64_Ehdr *eh = di.dli_fbase;
        /* Position-independent modules are resolved by offset, fixed ones by address. */
        w->off = eh && eh->e_type == ET_DYN ? (uint64_t)((uintptr_t)ra - (uintptr_t)di.dli_fbase)
                                              : (uint64_t)(uintptr_t)ra;
    } else {
        w->module = "?";
        w->off = (uint64_t)(uintptr_t)ra;
    }
    w->next = where_tab[b];
    where_tab[b] = w;
    return w;
}

/* A thread's last call site: most loops call from one place again and again. */
static __thread CHK_TLS where_ent_t *last_w[4];
static __thread CHK_TLS unsigned last_next;

static where_ent_t *where_cached(const void *ra)
{
    for (int i = 0; i < 4; i++)
        if (last_w[i] && last_w[i]->ra == ra)
            return last_w[i];
    chk_lock();
    where_ent_t *w = where_get(ra);
    chk_unlock();
    last_w[last_next++ & 3] = w; /* entries are never freed */
    return w;
}

int chk_ra_count(const void *ra)
{
    where_ent_t *w = where_cached(ra);
    if (w->calls >= 1 << 20)
        return w->calls;
    return __atomic_fetch_add(&w->calls, 1, __ATOMIC_RELAXED);
}

bool chk_ra_first(const void *ra, int n)
{
    where_ent_t *w = where_cached(ra);
    /* A plain load first: past the first n calls (every message of a long run) no locked
     * instruction. */
    if (__atomic_load_n(&w->calls, __ATOMIC_RELAXED) >= n)
        return false;
    return __atomic_fetch_add(&w->calls, 1, __ATOMIC_RELAXED) < n;
}

const char *chk_module_of(const void *ra, uint64_t *off)
{
    where_ent_t *w = where_cached(ra);
    *off = w->off;
    return w->module;
}

/* addr2line on one address of one module (src/common/fy_addr2line.c): "file:line" (basename)
 * and the function. The return address points after the call: one byte back is inside it. */
static void resolve(const char *module, uint64_t off, char **text, char **func)
{
    char line1[512], line2[512];
    char *l1 = line1, *l2 = line2;
    uint64_t at = off ? off - 1 : 0;
    fy_addr2line(module, &at, 1, &l2, &l1, sizeof line1, "FERRY_CHECK_", 10000);
    char out[600];
    if (line2[0] && line2[0] != '?') {
        const char *base = strrchr(line2, '/');
        snprintf(out, sizeof out, "%s", base ? base + 1 : line2);
    } else {
        const char *base = strrchr(module, '/');
        snprintf(out, sizeof out, "%s+0x%llx", base ? base + 1 : module, (unsigned long long)off);
    }
    *text = strdup(out);
    *func = strdup(line1[0] && line1[0] != '?' ? line1 : "?");
}

const char *chk_where(const void *ra, char *buf, int len)
{
    if (!ra) {
        snprintf(buf, (size_t)len, "?");
        return buf;
    }
    chk_lock();
    where_ent_t *w = where_get(ra);
    if (!w->text)
        resolve(w->module, w->off, &w->text, &w->func);
    snprintf(buf, (size_t)len, "%s", w->text);
    chk_unlock();
    return buf;
}

const char *chk_where_remote(const char *module, uint64_t off, char *buf, int len)
{
    char *text, *func;
    resolve(module, off, &text, &func);
    snprintf(buf, (size_t)len, "%s", text);
    free(text);
    free(func);
    return buf;
}

/* "(called from f at a.c:12, main at a.c:30)": the user frames above `ra` when `ra` is on the
 * current stack (a report about the call being made) and they have line information. */
static void callers(const void *ra, char *buf, size_t len)
{
    void *fr[32];
    int n = backtrace(fr, 32), i;
    buf[0] = 0;
    for (i = 0; i < n && fr[i] != ra; i++)
        ;
    size_t used = 0;
    int shown = 0;
    for (i++; i < n && shown < 3; i++) {
        where_ent_t *w = where_get(fr[i]);
        if (strncmp(w->module, "/lib", 4) == 0 || strncmp(w->module, "/usr/lib", 8) == 0)
            break; /* the C library's start-up: not the program's */
        if (!w->text)
            resolve(w->module, w->off, &w->text, &w->func);
        if (strchr(w->text, '+') || strcmp(w->func, "?") == 0)
            break; /* no debug info: stop at the first frame without a line */
        used += (size_t)snprintf(buf + used, len - used, "%s%s at %s", shown ? ", " : " (called from ",
                                 w->func, w->text);
        shown++;
        if (used >= len || strcmp(w->func, "main") == 0)
            break;
    }
    if (shown && used < len)
        snprintf(buf + used, len - used, ")");
}

void chk_report(const char *call, const void *ra, const char *fmt, ...)
{
    char msg[2048], where[600], from[800] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    chk_lock();
    nreports++;
    if (ra) {
        chk_where(ra, where, sizeof where);
        callers(ra, from, sizeof from);
    }
    chk_unlock();
    char rank[32] = "";
    if (chk_rank >= 0)
        snprintf(rank, sizeof rank, "rank %d: ", chk_rank);
    else if (getenv("PMI_RANK"))
        snprintf(rank, sizeof rank, "rank %s: ", getenv("PMI_RANK"));
    /* One write per report so that the lines of concurrent ranks do not interleave. */
    char line[4096];
    if (ra)
        snprintf(line, sizeof line, "ferry check: %s%s at %s: %s%s\n", rank, call, where, msg, from);
    else
        snprintf(line, sizeof line, "ferry check: %s%s: %s\n", rank, call, msg);
    fflush(stdout);
    ssize_t rc = write(2, line, strlen(line));
    (void)rc;
}

int chk_count_int(MPI_Count c)
{
    return c > 0x7fffffff ? 0x7fffffff : (int)c;
}

uint64_t chk_hash_bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    if (!h)
        h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

/* ---- the start and end of MPI ------------------------------------------------------------ */

static void started(void)
{
    int provided = MPI_THREAD_MULTIPLE;
    PMPI_Query_thread(&provided);
    chk_multi = provided == MPI_THREAD_MULTIPLE || chk_sessions > 0;
    chk_watch_threads(chk_multi);
    PMPI_Comm_rank(MPI_COMM_WORLD, &chk_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &chk_size);
    chk_state = 1;
    chk_comm_init();
    chk_p2p_init();
    if (chk_on & CHK_C_WATCH)
        chk_watch_start(chk_rank, chk_size);
}

int MPI_Init(int *argc, char ***argv)
{
    const void *ra = CHK_RA();
    if (chk_state != 0) {
        chk_report("MPI_Init", ra, "MPI is already %s", chk_state == 1 ? "initialized" : "finalized");
        return PMPI_Init(argc, argv);
    }
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        started();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    const void *ra = CHK_RA();
    if (chk_state != 0) {
        chk_report("MPI_Init_thread", ra, "MPI is already %s", chk_state == 1 ? "initialized" : "finalized");
        return PMPI_Init_thread(argc, argv, required, provided);
    }
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        started();
    return rc;
}

int MPI_Finalize(void)
{
    const void *ra = CHK_RA();
    if (chk_outside("MPI_Finalize", ra))
        return PMPI_Finalize();
    chk_p2p_fini();
    if ((chk_on & CHK_C_LEAK) && (leak_named || !chk_runtime_collects()))
        chk_leak_report();
    if (chk_on & CHK_C_WATCH) {
        chk_item_t it = {.kind = CHK_W_COLL, .peer = -1, .tag = -1, .comm = 0, .coll = "MPI_Finalize"};
        chk_watch_block("MPI_Finalize", ra, true, 1, &it);
    }
    chk_comm_fini();
    int rc = PMPI_Finalize();
    if (chk_on & CHK_C_WATCH) {
        chk_watch_unblock();
        chk_watch_stop();
    }
    chk_state = 2;
    if (nreports > 0)
        fprintf(stderr, "ferry check: rank %d: %d problem%s reported\n", chk_rank, nreports,
                nreports == 1 ? "" : "s");
    return rc;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    const void *ra = CHK_RA();
    chk_outside("MPI_Abort", ra);
    /* An abort is the program's own decision: not a problem of its own, and its status stays. */
    keep_status = true;
    return PMPI_Abort(comm, errorcode);
}
