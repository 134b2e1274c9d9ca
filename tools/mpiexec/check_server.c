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
 * A connection that has not authenticated within 5 s is closed; at most PEND_MAX wait at once
 * (toolsrv.c, shared with --monitor's server, keeps them, and the ranks' connections).
 */
#include "check.h"
#include "preload.h"
#include "toolsrv.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STABLE_MS 1000     /* every live rank blocked, nothing changed: then we ask */
#define ASK_MS 3000        /* answers later than this: ask again after the next quiet second */
#define PEND_MAX 256       /* connections authenticating at once; more wait in the backlog */
#define LINE_MAX_BYTES (1 << 20) /* a communicator of FY_MPX_MAX_RANKS ranks fits */
#define REPORT_RANKS 16    /* ranks listed in a report */

static struct server {
    int on;
    fy_mpx_toolsrv_t srv; /* the listening, the handshakes, the ranks' connections */
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
    int done; /* a deadlock was reported */
} S;

/* ---- Setting up ---- */

static const fy_mpx_check_hooks_t hooks;
static const fy_mpx_toolsrv_conf_t srv_conf;

int fy_mpx_check_setup(fy_mpx_opts_t *o, int remote, const char *iface, int all_here,
                       const char *first_remote)
{
    char lib[PATH_MAX];
    if (fy_mpx_tool_lib("--check", "the checker library", "libferry_check.so", lib, sizeof(lib)) != 0)
        return -1;
    /* Ours first, the user's after it (preload.c). */
    if (fy_mpx_preload(o, lib) != 0) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return -1;
    }
    if (fy_mpx_toolsrv_open(&S.srv, &srv_conf, o, remote, iface, all_here, first_remote) != 0)
        return -1;
    S.J.size = o->np;
    S.J.r = calloc((size_t)o->np, sizeof(*S.J.r));
    S.res.release = calloc((size_t)o->np, 1);
    S.res.stuck = calloc((size_t)o->np, 1);
    S.res.cycle = calloc((size_t)o->np, sizeof(int));
    S.answered = calloc((size_t)o->np, 1);
    S.released = calloc((size_t)o->np, sizeof(*S.released));
    if (S.J.r == NULL || S.res.release == NULL || S.res.stuck == NULL || S.res.cycle == NULL ||
        S.answered == NULL || S.released == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return -1;
    }
    S.on = 1;
    fy_mpx_check_hooks = &hooks;
    return 0;
}

void fy_mpx_check_close(void)
{
    if (!S.on)
        return;
    fy_mpx_toolsrv_close(&S.srv);
    for (int r = 0; r < S.J.size; r++)
        free(S.J.r[r].items);
    fy_chk_job_free(&S.J);
    free(S.J.r);
    free(S.res.release);
    free(S.res.stuck);
    free(S.res.cycle);
    free(S.answered);
    free(S.released);
    free(S.pkeys);
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
static void say(int rank, const char *line)
{
    fy_mpx_toolsrv_say(&S.srv, rank, line);
}

/* toolsrv: accept() failed, out of descriptors most likely. */
static void srv_accept_failed(int err)
{
    /* The ranks not yet in go without the watch (they say so), and no deadlock can be judged
     * any more; the job itself goes on. */
    fprintf(stderr, "ferry check: cannot accept more ranks (%s); deadlocks will not be found in "
            "this job\n", strerror(err));
    fy_mpx_toolsrv_stop_listening(&S.srv);
    S.done = 1;
}

/* toolsrv: the key was right; a rank of another world (MPI_Comm_spawn's), or of a program that
 * ran MPI twice, goes without the watch: it covers the job's first world only. */
static int srv_admit(int rank)
{
    return S.J.r[rank].state == FY_CHK_RUNNING ? 0 : -1;
}

static void srv_joined(int rank)
{
    (void)rank;
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
        say(r, line);
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
    return fy_mpx_toolsrv_slots(&S.srv);
}

static int hk_add(struct pollfd *pfd)
{
    return fy_mpx_toolsrv_add(&S.srv, pfd);
}

static void hk_ready(fy_mpx_job_t *job, struct pollfd *pfd, int n)
{
    (void)job;
    (void)n; /* all of them are the server's */
    fy_mpx_toolsrv_ready(&S.srv, pfd);
}

static long long hk_tick(fy_mpx_job_t *job, long long now)
{
    long long wake = fy_mpx_toolsrv_tick(&S.srv, now);
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
            say(r, line);
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

static int srv_line(int rank, char *line)
{
    return on_rank_line(rank, line);
}

static const fy_mpx_toolsrv_conf_t srv_conf = {
    .option = "--check",
    .name = "ferry check",
    .proto = "FERRY-CHECK",
    .not_proto = "not the check protocol",
    .addr_var = "FERRY_CHECK_ADDR",
    .key_var = "FERRY_CHECK_KEY",
    .pend_max = PEND_MAX,
    .line_max = LINE_MAX_BYTES,
    .admit = srv_admit,
    .joined = srv_joined,
    .line = srv_line,
    .gone = rank_gone,
    .accept_failed = srv_accept_failed,
};
