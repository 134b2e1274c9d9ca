/* mpiexec --check: judging what the ranks are blocked in (check.h).
 *
 * The server calls fy_chk_analyze once every live rank has been blocked, unchanged, for a while.
 * Nobody runs then, so a wait can only complete if its partner is already waiting for it:
 * a receive and a send (or a buffered standard send, CHK_W_SYNC) that match (fy_chk_pair: one
 * message for one receive), or every member of a communicator in the same collective. Such a
 * wait makes its rank "free"; a rank whose wait names a free rank may be freed in turn (the
 * free rank, once it runs, may send what it waits for), and so on to a fixed point. Any free rank: progress is possible (a large
 * transfer in flight) and nothing is reported. None: the same again with every CHK_W_SYNC item
 * taken as complete, which is what the library did when it buffered the send; ranks free then
 * only go on thanks to buffering (a potential deadlock), else it is a deadlock.
 *
 * A wait on several items (MPI_Waitall: all; Waitany/Waitsome: one) is satisfied when all
 * (resp. one) of its items are. Items beyond the ones the rank sent (a wait on more than
 * CHK_WATCH_MAX_ITEMS) count as satisfiable in an OR wait, and so do items of kind OTHER (waits
 * the wrappers cannot describe), so we never report on a guess. */
#include "check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const fy_chk_comm_t *fy_chk_comm_find(const fy_chk_job_t *J, uint64_t id)
{
    for (int i = 0; i < J->ncomm; i++)
        if (J->comm[i].id == id)
            return &J->comm[i];
    return NULL;
}

int fy_chk_comm_add(fy_chk_job_t *J, uint64_t id, int n, const int *ranks)
{
    if (fy_chk_comm_find(J, id) != NULL)
        return 0;
    if (J->ncomm == J->capcomm) {
        int cap = J->capcomm ? 2 * J->capcomm : 16;
        fy_chk_comm_t *c = realloc(J->comm, sizeof(*c) * (size_t)cap);
        if (c == NULL)
            return -1;
        J->comm = c;
        J->capcomm = cap;
    }
    fy_chk_comm_t *c = &J->comm[J->ncomm];
    *c = (fy_chk_comm_t){.id = id, .n = n};
    c->ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (c->ranks == NULL)
        return -1;
    memcpy(c->ranks, ranks, sizeof(int) * (size_t)n);
    J->ncomm++;
    return 0;
}

void fy_chk_job_free(fy_chk_job_t *J)
{
    for (int i = 0; i < J->ncomm; i++)
        free(J->comm[i].ranks);
    free(J->comm);
    J->comm = NULL;
    J->ncomm = J->capcomm = 0;
}

static int is_live(const fy_chk_job_t *J, int r)
{
    return r >= 0 && r < J->size && J->r[r].state != FY_CHK_FINISHED &&
           J->r[r].state != FY_CHK_EXITED;
}

/* Members of comm: out[0..n) (world when it was never announced). */
static int members(const fy_chk_job_t *J, uint64_t comm, const int **out)
{
    const fy_chk_comm_t *c = fy_chk_comm_find(J, comm);
    if (c != NULL) {
        *out = c->ranks;
        return c->n;
    }
    *out = NULL;
    return J->size;
}

static int member_at(const int *m, int k)
{
    return m != NULL ? m[k] : k;
}

static int in_comm(const fy_chk_job_t *J, uint64_t comm, int r)
{
    const int *m;
    int n = members(J, comm, &m);
    if (m == NULL)
        return r >= 0 && r < n;
    for (int k = 0; k < n; k++)
        if (m[k] == r)
            return 1;
    return 0;
}

/* Does the send item o of rank j meet the receive item it of rank i? */
static int meets(const fy_chk_job_t *J, int i, const fy_chk_item_t *it, int j,
                 const fy_chk_item_t *o)
{
    return (o->kind == FY_CHK_SEND || o->kind == FY_CHK_SYNC) && o->peer == i &&
           o->comm == it->comm && (it->peer == j || (it->peer < 0 && in_comm(J, it->comm, j))) &&
           (it->tag < 0 || it->tag == o->tag);
}

void fy_chk_pair(fy_chk_job_t *J)
{
    for (int i = 0; i < J->size; i++)
        for (int k = 0; k < J->r[i].nitems; k++)
            J->r[i].items[k].paired = 0;
    /* Receivers by rank, each one's receives in the order of its wait (then those it posted
     * and does not wait for), senders by rank: one message for one receive (a buffered send
     * seen by a Waitall on many wildcard receives completes one of them, not all). A send to
     * or a receive from a rank the wrapper could not name (out of range) is taken as matched:
     * we do not judge what we do not know. */
    for (int i = 0; i < J->size; i++) {
        fy_chk_rank_t *ri = &J->r[i];
        for (int k = 0; ri->state == FY_CHK_BLOCKED && k < ri->nitems; k++) {
            fy_chk_item_t *it = &ri->items[k];
            if ((it->kind == FY_CHK_SEND || it->kind == FY_CHK_SYNC) &&
                (it->peer < 0 || it->peer >= J->size))
                it->paired = 1;
            if (it->kind == FY_CHK_RECV && it->peer >= J->size)
                it->paired = 1;
        }
    }
    for (int i = 0; i < J->size; i++) {
        fy_chk_rank_t *ri = &J->r[i];
        if (ri->state != FY_CHK_BLOCKED)
            continue;
        for (int k = 0; k < ri->nitems; k++) {
            fy_chk_item_t *it = &ri->items[k];
            if ((it->kind != FY_CHK_RECV && it->kind != FY_CHK_POSTED) || it->paired)
                continue;
            for (int j = 0; j < J->size && !it->paired; j++) {
                fy_chk_rank_t *rj = &J->r[j];
                if (j == i || rj->state != FY_CHK_BLOCKED)
                    continue;
                for (int m = 0; m < rj->nitems && !it->paired; m++) {
                    if (!rj->items[m].paired && meets(J, i, it, j, &rj->items[m]))
                        it->paired = rj->items[m].paired = 1;
                }
            }
        }
    }
}

int fy_chk_matched_sync(const fy_chk_job_t *J, char *release)
{
    int n = 0;
    for (int i = 0; i < J->size; i++) {
        const fy_chk_rank_t *r = &J->r[i];
        release[i] = 0;
        for (int k = 0; r->state == FY_CHK_BLOCKED && k < r->nitems; k++)
            if (r->items[k].kind == FY_CHK_SYNC && r->items[k].paired)
                release[i] = 1;
        n += release[i];
    }
    return n;
}

static int in_same_coll(const fy_chk_job_t *J, int j, const fy_chk_item_t *it)
{
    const fy_chk_rank_t *rj = &J->r[j];
    /* A rank that said goodbye is through MPI_Finalize: one still in it does not wait for it. */
    if (rj->state == FY_CHK_FINISHED && strcmp(it->coll, "MPI_Finalize") == 0)
        return 1;
    if (rj->state != FY_CHK_BLOCKED)
        return 0;
    for (int k = 0; k < rj->nitems; k++) {
        const fy_chk_item_t *o = &rj->items[k];
        if (o->kind == FY_CHK_COLL && o->comm == it->comm && o->seq == it->seq)
            return 1;
    }
    return 0;
}

/* Can rank i's item complete with nobody else moving? A paired receive has its message; a
 * paired send its receive; a paired buffered send is released by the server (its receive is
 * posted: an MPI_Ssend would complete too). */
static int item_now(const fy_chk_job_t *J, int i, const fy_chk_item_t *it, int sync_done)
{
    switch (it->kind) {
    case FY_CHK_SYNC:
        if (sync_done)
            return 1;
        /* fall through */
    case FY_CHK_SEND:
    case FY_CHK_RECV: return it->paired;
    case FY_CHK_COLL: {
        /* A communicator we were never told of (its announcement lost): not judged. */
        if (it->comm != 0 && fy_chk_comm_find(J, it->comm) == NULL)
            return 1;
        const int *m;
        int n = members(J, it->comm, &m);
        for (int k = 0; k < n; k++) {
            int j = member_at(m, k);
            if (j != i && !in_same_coll(J, j, it))
                return 0;
        }
        return 1;
    }
    /* One-sided synchronisation, communicator creation, requests the wrappers do not know:
     * often collective, on a communicator we are not told. All ranks in MPI_Win_fence during
     * a long transfer would otherwise look stuck: such a wait is taken as able to complete. */
    default: return 1;
    }
}

/* Calls fn(j) for every rank that rank i's item waits on (live or not); stops when fn returns
 * nonzero and returns that. */
typedef int (*visit_fn)(void *ctx, int j);
static int item_targets(const fy_chk_job_t *J, int i, const fy_chk_item_t *it, visit_fn fn,
                        void *ctx)
{
    int rc;
    switch (it->kind) {
    case FY_CHK_SEND:
    case FY_CHK_SYNC: return it->peer >= 0 && it->peer < J->size ? fn(ctx, it->peer) : 0;
    case FY_CHK_POSTED: return 0;
    case FY_CHK_RECV:
        if (it->peer >= 0)
            return it->peer < J->size ? fn(ctx, it->peer) : 0;
        /* any member of the communicator: */
        __attribute__((fallthrough));
    case FY_CHK_COLL: {
        const int *m;
        int n = members(J, it->comm, &m);
        for (int k = 0; k < n; k++) {
            int j = member_at(m, k);
            if (j == i || j < 0 || j >= J->size)
                continue;
            if (it->kind == FY_CHK_COLL && in_same_coll(J, j, it))
                continue;
            if ((rc = fn(ctx, j)) != 0)
                return rc;
        }
        return 0;
    }
    default:
        for (int j = 0; j < J->size; j++)
            if (j != i && (rc = fn(ctx, j)) != 0)
                return rc;
        return 0;
    }
}

static int visit_free(void *ctx, int j)
{
    return ((const char *)ctx)[j] != 0;
}

typedef struct first_ctx {
    const char *set;
    int found;
} first_ctx_t;

static int visit_first(void *ctx, int j)
{
    first_ctx_t *f = ctx;
    if (!f->set[j])
        return 0;
    f->found = j;
    return 1;
}

static int visit_dead(void *ctx, int j)
{
    const fy_chk_job_t *J = ctx;
    return !is_live(J, j);
}

/* A collective with a member gone can never complete, whatever the others do. */
static int coll_lost(const fy_chk_job_t *J, int i, const fy_chk_item_t *it)
{
    return it->kind == FY_CHK_COLL && item_targets(J, i, it, visit_dead, (void *)J) != 0;
}

/* Rank i's wait can complete: now (fr == NULL) or once the ranks in fr run. */
static int wait_ok(const fy_chk_job_t *J, int i, const char *fr, int sync_done)
{
    const fy_chk_rank_t *r = &J->r[i];
    int all = r->all;
    if (!all && r->ntotal > r->nitems)
        return 1; /* an item we were not told about may be the one that completes */
    for (int k = 0; k < r->nitems; k++) {
        const fy_chk_item_t *it = &r->items[k];
        if (it->kind == FY_CHK_POSTED)
            continue; /* not waited for */
        int ok = item_now(J, i, it, sync_done);
        if (!ok && fr != NULL && !coll_lost(J, i, it))
            ok = item_targets(J, i, it, visit_free, (void *)fr) != 0;
        if (all && !ok)
            return 0;
        if (!all && ok)
            return 1;
    }
    return all;
}

/* fr[r]: rank r can go on (now, or after others who can); returns how many can. */
static int free_set(const fy_chk_job_t *J, char *fr, int sync_done)
{
    int nfree = 0;
    memset(fr, 0, (size_t)J->size);
    for (int i = 0; i < J->size; i++) {
        if (J->r[i].state == FY_CHK_BLOCKED && wait_ok(J, i, NULL, sync_done)) {
            fr[i] = 1;
            nfree++;
        }
    }
    for (int changed = nfree > 0; changed;) {
        changed = 0;
        for (int i = 0; i < J->size; i++) {
            if (fr[i] || J->r[i].state != FY_CHK_BLOCKED || !wait_ok(J, i, fr, sync_done))
                continue;
            fr[i] = 1;
            nfree++;
            changed = 1;
        }
    }
    return nfree;
}

/* A cycle among the stuck ranks: from each in turn, follow the first stuck rank it waits on
 * until a rank repeats (a cycle) or none is left (the waits end at finished ranks). */
static void find_cycle(const fy_chk_job_t *J, fy_chk_result_t *res)
{
    int n = J->size;
    int *step = malloc(sizeof(int) * (size_t)n);
    int *path = malloc(sizeof(int) * (size_t)n);
    res->ncycle = 0;
    if (step == NULL || path == NULL)
        goto out;
    for (int s = 0; s < n && res->ncycle == 0; s++) {
        if (!res->stuck[s])
            continue;
        for (int i = 0; i < n; i++)
            step[i] = -1;
        int len = 0, cur = s;
        while (cur >= 0 && step[cur] < 0) {
            step[cur] = len;
            path[len++] = cur;
            first_ctx_t f = {res->stuck, -1};
            const fy_chk_rank_t *r = &J->r[cur];
            for (int k = 0; k < r->nitems && f.found < 0; k++)
                item_targets(J, cur, &r->items[k], visit_first, &f);
            cur = f.found;
        }
        if (cur < 0)
            continue;
        /* path[step[cur]..len) is the cycle; start it at its lowest rank. */
        int from = step[cur], m = len - from, low = from;
        for (int k = from; k < len; k++)
            if (path[k] < path[low])
                low = k;
        for (int k = 0; k < m; k++)
            res->cycle[k] = path[from + (low - from + k) % m];
        res->ncycle = m;
    }
out:
    free(step);
    free(path);
}

void fy_chk_analyze(fy_chk_job_t *J, fy_chk_result_t *res)
{
    int n = J->size, blocked = 0;
    res->verdict = FY_CHK_NONE;
    res->ncycle = 0;
    memset(res->release, 0, (size_t)n);
    memset(res->stuck, 0, (size_t)n);
    for (int i = 0; i < n; i++) {
        if (J->r[i].state == FY_CHK_RUNNING)
            return;
        blocked += J->r[i].state == FY_CHK_BLOCKED;
    }
    if (blocked == 0)
        return;
    fy_chk_pair(J);
    if (free_set(J, res->stuck, 0) > 0) {
        res->verdict = FY_CHK_PROGRESS;
        memset(res->stuck, 0, (size_t)n);
        return;
    }
    /* Nobody can go on: every blocked rank is stuck unless buffering frees it. */
    for (int i = 0; i < n; i++)
        res->stuck[i] = J->r[i].state == FY_CHK_BLOCKED;
    char *fr = malloc((size_t)n);
    if (fr != NULL && free_set(J, fr, 1) > 0) {
        res->verdict = FY_CHK_POTENTIAL;
        for (int i = 0; i < n; i++) {
            const fy_chk_rank_t *r = &J->r[i];
            int has_sync = 0;
            for (int k = 0; k < r->nitems; k++)
                has_sync |= r->items[k].kind == FY_CHK_SYNC;
            res->release[i] = r->state == FY_CHK_BLOCKED && has_sync && wait_ok(J, i, NULL, 1);
        }
    } else {
        res->verdict = FY_CHK_DEADLOCK;
    }
    free(fr);
    find_cycle(J, res);
}

void fy_chk_comm_label(const fy_chk_job_t *J, uint64_t id, char *out, size_t len)
{
    const fy_chk_comm_t *c = fy_chk_comm_find(J, id);
    if (c != NULL && c->name[0] != '\0')
        snprintf(out, len, "%s", c->name);
    else if (id == 0)
        snprintf(out, len, "MPI_COMM_WORLD"); /* the wrappers' id for it (chk_watch.h) */
    else
        snprintf(out, len, "comm #%" PRIu64, id);
}

static const char *gone_word(const fy_chk_job_t *J, int p)
{
    if (p < 0 || p >= J->size)
        return "";
    if (J->r[p].state == FY_CHK_FINISHED)
        return ", which has finished";
    if (J->r[p].state == FY_CHK_EXITED)
        return ", which has exited";
    return "";
}

static void describe_item(const fy_chk_job_t *J, const fy_chk_item_t *it, char *out, size_t len)
{
    char comm[96], tag[32];
    fy_chk_comm_label(J, it->comm, comm, sizeof(comm));
    if (it->tag < 0)
        snprintf(tag, sizeof(tag), "any tag");
    else
        snprintf(tag, sizeof(tag), "tag %d", it->tag);
    switch (it->kind) {
    case FY_CHK_RECV:
        if (it->peer < 0)
            snprintf(out, len, "from any rank, %s, %s", tag, comm);
        else
            snprintf(out, len, "from rank %d%s, %s, %s", it->peer, gone_word(J, it->peer), tag,
                     comm);
        break;
    case FY_CHK_SEND:
        snprintf(out, len, "to rank %d%s, %s, %s", it->peer, gone_word(J, it->peer), tag, comm);
        break;
    case FY_CHK_SYNC:
        snprintf(out, len, "to rank %d%s, %s, %s (buffered, not yet received)", it->peer,
                 gone_word(J, it->peer), tag, comm);
        break;
    case FY_CHK_COLL:
        snprintf(out, len, "%s on %s (its collective #%" PRIu64 " there)", it->coll, comm,
                 it->seq);
        break;
    default: snprintf(out, len, "waiting on other ranks"); break;
    }
}

void fy_chk_describe(const fy_chk_job_t *J, int i, char *out, size_t len)
{
    const fy_chk_rank_t *r = &J->r[i];
    size_t used = 0;
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (used < len)                                                                            \
            used += (size_t)snprintf(out + used, len - used, __VA_ARGS__);                         \
    } while (0)
    char item[256];
    if (r->state == FY_CHK_FINISHED || r->state == FY_CHK_EXITED) {
        snprintf(out, len, "%s", r->state == FY_CHK_FINISHED ? "finished" : "exited");
        return;
    }
    if (r->state != FY_CHK_BLOCKED) {
        snprintf(out, len, "running");
        return;
    }
    ADD("%s", r->call);
    int posted = 0;
    for (int k = 0; k < r->nitems; k++)
        posted += r->items[k].kind == FY_CHK_POSTED;
    if (r->nitems - posted == 1 && r->ntotal - posted == 1) {
        const fy_chk_item_t *it = &r->items[0];
        /* "MPI_Barrier on X", not "MPI_Barrier MPI_Barrier on X". */
        if (it->kind == FY_CHK_COLL && strcmp(it->coll, "MPI_Finalize") == 0) {
            /* Waits for ranks still short of it; nothing more to say. */
        } else if (it->kind == FY_CHK_COLL && strcmp(it->coll, r->call) == 0) {
            char comm[96];
            fy_chk_comm_label(J, it->comm, comm, sizeof(comm));
            ADD(" on %s (its collective #%" PRIu64 " there)", comm, it->seq);
        } else {
            describe_item(J, it, item, sizeof(item));
            ADD(" %s", item);
        }
    } else {
        ADD(", %s of %d:", r->all ? "all" : "any", r->ntotal - posted);
        for (int k = 0, shown = 0; k < r->nitems; k++) {
            if (r->items[k].kind == FY_CHK_POSTED)
                continue;
            describe_item(J, &r->items[k], item, sizeof(item));
            ADD("%s %s %s", shown++ ? ";" : "",
                r->items[k].kind == FY_CHK_RECV   ? "receive"
                : r->items[k].kind == FY_CHK_COLL ? "collective"
                : r->items[k].kind == FY_CHK_OTHER ? "other"
                                                   : "send",
                item);
        }
        if (r->ntotal > r->nitems)
            ADD("; and %d more", r->ntotal - r->nitems);
    }
    if (r->loc[0] != '\0')
        ADD(" at %s", r->loc);
#undef ADD
}
