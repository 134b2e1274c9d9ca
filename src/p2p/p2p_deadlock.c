/* The deadlock detector: a job in which every rank sleeps in an MPI wait and nothing has
 * moved for FERRY_DEADLOCK_S seconds (default 60, 0: off) can never move again, so instead
 * of hanging until someone kills it, each rank prints what it waits for and the job ends.
 *
 * Why no false positives: a rank counts as stuck from its first sleep in a wait until the
 * wait makes progress (a record handled, a queued record sent, a schedule step) or ends; it
 * then bumps the shared `moved` counter. A record published for a stuck rank wakes it (or
 * its next 200 ms poll finds it), so while anything is in flight some rank keeps leaving the
 * stuck state within a fraction of a second. A rank computing, sleeping outside MPI or
 * polling with MPI_Test is not stuck, and while it is not, nothing is reported. A
 * single-copy read in progress belongs to a receiver that is copying, not stuck.
 * Only where one thread at a time calls MPI: under MPI_THREAD_MULTIPLE another thread may
 * still send what a sleeping one waits for, so the detector is off there. All ranks of the
 * job share this machine's segment today; ranks on other hosts (a later issue) must be
 * counted before this can stay on there. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "fy_clock.h"
#include "fy_err.h"
#include "fy_knobs.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

static int64_t limit_ns = -1; /* -1: not read yet; 0: off */

static bool enabled(void)
{
    if (limit_ns < 0)
        limit_ns = fy_knob_number(FY_KNOB_DEADLOCK_S, 60) * 1000000000LL;
    /* The stuck count lives in one host's segment: with ranks elsewhere (or reached over TCP)
     * it cannot see the whole job, and a host whose ranks all wait for another is no deadlock. */
    return limit_ns > 0 && !fy_rt.locking && fy_rt.size > 1 && fy_rt.nhosts == 1 &&
           !fy_rt.netmod_tcp;
}

static char line[2048];
static size_t used;
static int items;

static void add(const char *item)
{
    if (items++ >= 8)
        return;
    used += (size_t)snprintf(line + used, sizeof line - used, "%s%s", items > 1 ? "; " : "", item);
    if (used >= sizeof line)
        used = sizeof line - 1;
}

static void note_recv(fy_req_t *r)
{
    char b[160];
    snprintf(b, sizeof b, "a receive from rank %d (tag %d, context %u)", r->peer, r->tag, r->ctx);
    add(b);
}

static void report(int64_t secs)
{
    char b[160];
    used = 0;
    items = 0;
    line[0] = '\0';
    fy_p2p_posted_foreach_all(note_recv);
    for (int w = 0; w < fy_rt.size; w++) {
        for (fy_req_t *r = fy_peers[w].inflight.head; r; r = r->next) {
            snprintf(b, sizeof b, "a send of %zu bytes to world rank %d (tag %d) not yet received",
                     r->bytes, w, r->tag);
            add(b);
        }
        for (fy_req_t *r = fy_peers[w].pending.head; r; r = r->next) {
            snprintf(b, sizeof b, "a record to world rank %d queued behind its full queue", w);
            add(b);
        }
    }
    if (items > 8 && used < sizeof line - 32)
        snprintf(line + used, sizeof line - used, "; and %d more", items - 8);
    fprintf(stderr,
            "Ferry: rank %d: deadlock? every rank has been blocked in MPI with nothing moving for "
            "%lld s; this rank waits for: %s\n",
            fy_rt.rank, (long long)secs,
            items ? line : "no point-to-point message (a collective or a shared-memory wait)");
    fflush(stderr);
}

void fy_p2p_deadlock_check(fy_p2p_stuck_t *st, bool progressed, bool sleeping)
{
    if (progressed || !sleeping) {
        if (st->stuck) {
            fy_shm_stuck(0);
            st->stuck = false;
        }
        st->since = 0;
        return;
    }
    if (!enabled())
        return;
    if (!st->stuck) {
        fy_shm_stuck(1);
        st->stuck = true;
    }
    unsigned moved;
    if (!fy_shm_all_stuck(&moved)) {
        st->since = 0;
        return;
    }
    int64_t now = fy_now_ns();
    if (st->since == 0 || moved != st->moved) {
        st->since = now;
        st->moved = moved;
        return;
    }
    if (now - st->since < limit_ns)
        return;
    /* Everyone prints first (up to a second), then the job ends. */
    report(limit_ns / 1000000000LL);
    fy_shm_reported(1);
    for (int i = 0; i < 100 && fy_shm_reported(0) < (unsigned)fy_rt.size; i++)
        usleep(10000);
    char msg[200];
    snprintf(msg, sizeof msg,
             "deadlock: all %d ranks were blocked in MPI with nothing moving for %lld s "
             "(FERRY_DEADLOCK_S); ending the job",
             fy_rt.size, (long long)(limit_ns / 1000000000LL));
    fy_fatal(MPI_ERR_OTHER, msg);
}
