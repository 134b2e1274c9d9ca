/* Peers that left: a rank that entered MPI_Finalize receives nothing more, so a send that
 * waits for its answer (a rendezvous, a synchronous send) would wait forever, and so would a
 * receive that names it as the source (point-to-point contexts only: its final barrier still
 * runs on the collective ones). Such requests fail instead, with a message naming the rank;
 * under MPI_ERRORS_ARE_FATAL the job then ends with it.
 *
 * Cheap when nothing happens: the waiting loop calls fy_p2p_check_gone when idle; it compares
 * one shared counter (ranks that left) with the last value seen. When it changes, it reads the
 * peers' flags and remembers who left, whether or not this rank waits for anyone then: a send
 * to a leaver may start later (a rank still in the barrier before its send sees the count
 * change first, with nothing to fail yet). Once some peer has left, every idle check looks
 * for requests that wait for one; when there are, it drains the incoming queues (what a
 * leaving rank sent before leaving is already there, ordered before its flag) and only then
 * fails them. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fy_clock.h"
#include "fy_err.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

static unsigned seen_left;  /* fy_shm_left_count() when last looked at */
static unsigned char *gone; /* per world rank: its flag read, so before any later drain */
static int *gone_list;      /* the ranks marked in gone, ngone of them */
static int ngone;
static int waiting;         /* requests found waiting for a marked rank */

/* Left through shared memory (its flag) or over TCP (its end of stream after its last record). */
static int peer_gone(int w)
{
    return fy_shm_peer_gone(w) || (fy_tcp_active && fy_tcp_peer_gone(w));
}

static void note_recv_peer(fy_req_t *r)
{
    int w = fy_comm_peer_world(r->comm, r->peer);
    if (w >= 0 && gone[w])
        waiting++;
}

static void fail_recv(fy_req_t *r)
{
    int w = fy_comm_peer_world(r->comm, r->peer);
    if (w < 0 || !gone[w])
        return;
    if (fy_shm_reaches(w))
        fy_err_set(MPI_ERR_OTHER,
                   "MPI_Recv: rank %d (world rank %d) called MPI_Finalize without sending the "
                   "message this receive waits for (tag %d)",
                   r->peer, w, r->tag);
    else /* over TCP a finalize and a death both end the stream */
        fy_err_set(MPI_ERR_OTHER,
                   "MPI_Recv: rank %d (world rank %d) closed its connection (it called "
                   "MPI_Finalize, or died) without sending the message this receive waits for "
                   "(tag %d)",
                   r->peer, w, r->tag);
    fy_p2p_recv_fail(r, fy_err_code_for_message(MPI_ERR_OTHER));
}

/* A rank of this host that died without MPI_Finalize ends the job: anything may wait for it
 * (a receive, a collective), and no launcher may be there to end it (srun without
 * --kill-on-bad-exit leaves the others running). */
static void probe_recv_peer(fy_req_t *r)
{
    int w = fy_comm_peer_world(r->comm, r->peer);
    if (w >= 0 && w != fy_rt.rank && !fy_shm_reaches(w))
        fy_tcp_probe(w);
}

static void check_dead(void)
{
    static int64_t next_probe_ns;
    int64_t now = fy_now_ns();
    /* A rank of another host alone there has no neighbour to watch it: a receive that waits
     * for it connects to it (once a second at most), so its death shows as a refused
     * connection or an end of stream. */
    if (fy_tcp_active && fy_posted_total > 0 && now >= next_probe_ns) {
        next_probe_ns = now + 1000000000LL;
        fy_p2p_posted_foreach(probe_recv_peer);
    }
    int pid = 0, w = fy_shm_dead_peer(now, &pid);
    if (w < 0)
        return;
    char msg[256];
    snprintf(msg, sizeof msg,
             "rank %d (pid %d) on this host ended without calling MPI_Finalize (killed, "
             "crashed or exited); the job cannot go on",
             w, pid);
    /* A launcher that ends jobs itself (Ferry's mpiexec, Hydra, mpirun) is given 2 s to do
     * so with its own report, so that the user reads one account of the death, not two. */
    nanosleep(&(struct timespec){.tv_sec = 2}, NULL);
    fy_fatal(MPI_ERR_OTHER, msg);
}

int fy_p2p_check_gone(void)
{
    check_dead();
    unsigned left = fy_shm_left_count() + (fy_tcp_active ? fy_tcp_left_count() : 0);
    if (left != seen_left) {
        if (!gone) {
            gone = calloc((size_t)fy_rt.size, 1);
            gone_list = calloc((size_t)fy_rt.size, sizeof *gone_list);
            if (!gone || !gone_list) {
                fy_p2p_gone_fini();
                return 0; /* look again next time */
            }
        }
        seen_left = left;
        for (int w = 0; w < fy_rt.size; w++)
            if (w != fy_rt.rank && !gone[w] && peer_gone(w)) {
                gone[w] = 1;
                gone_list[ngone++] = w;
            }
    }
    if (ngone == 0 || (fy_inflight_total == 0 && fy_posted_total == 0))
        return 0;
    waiting = 0;
    for (int i = 0; i < ngone; i++)
        if (fy_peers[gone_list[i]].inflight.head)
            waiting++;
    fy_p2p_posted_foreach(note_recv_peer);
    if (!waiting)
        return 0;
    /* Everything the leavers sent before leaving, delivered before deciding. */
    int n = 0;
    while (fy_shm_progress() + (fy_tcp_active ? fy_tcp_progress() : 0) > 0)
        n++;
    int failed = fy_inflight_total + fy_posted_total;
    for (int i = 0; i < ngone; i++)
        fy_p2p_send_fail_gone(gone_list[i], "called MPI_Finalize before receiving it");
    fy_p2p_posted_foreach(fail_recv);
    failed -= fy_inflight_total + fy_posted_total;
    return n + failed;
}

void fy_p2p_leave(void)
{
    fy_shm_leave();
}

void fy_p2p_gone_fini(void)
{
    free(gone);
    free(gone_list);
    gone = NULL;
    gone_list = NULL;
    seen_left = 0;
    ngone = 0;
}
