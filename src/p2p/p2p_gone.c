/* Peers that left: a rank that entered MPI_Finalize receives nothing more, so a send that
 * waits for its answer (a rendezvous, a synchronous send) would wait forever, and so would a
 * receive that names it as the source (point-to-point contexts only: its final barrier still
 * runs on the collective ones). Such requests fail instead, with a message naming the rank;
 * under MPI_ERRORS_ARE_FATAL the job then ends with it.
 *
 * Cheap when nothing happens: the waiting loop calls fy_p2p_check_gone when idle; it compares
 * one shared counter (ranks that left) with the last value seen. When it changes and this
 * rank waits for anyone, it reads the peers' flags first, then drains its incoming queues
 * (what a leaving rank sent before leaving is already there, ordered before its flag), and
 * only then fails what still waits for a rank that has left. */
#include <stdlib.h>

#include "fy_err.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

static unsigned seen_left;  /* fy_shm_left_count() when last looked at */
static unsigned char *gone; /* per world rank: seen gone before the last drain */
static int marked;

/* Left through shared memory (its flag) or over TCP (its end of stream after its last record). */
static int peer_gone(int w)
{
    return fy_shm_peer_gone(w) || (fy_tcp_active && fy_tcp_peer_gone(w));
}

static void mark_recv_peer(fy_req_t *r)
{
    int w = fy_comm_peer_world(r->comm, r->peer);
    if (w >= 0 && w != fy_rt.rank && !gone[w] && peer_gone(w)) {
        gone[w] = 1;
        marked++;
    }
}

static void fail_recv(fy_req_t *r)
{
    int w = fy_comm_peer_world(r->comm, r->peer);
    if (w < 0 || !gone[w])
        return;
    fy_err_set(MPI_ERR_OTHER,
               "MPI_Recv: rank %d (world rank %d) called MPI_Finalize without sending the "
               "message this receive waits for (tag %d)",
               r->peer, w, r->tag);
    fy_p2p_recv_fail(r, fy_err_code_for_message(MPI_ERR_OTHER));
}

int fy_p2p_check_gone(void)
{
    unsigned left = fy_shm_left_count() + (fy_tcp_active ? fy_tcp_left_count() : 0);
    if (left == seen_left)
        return 0;
    if (fy_inflight_total == 0 && fy_posted_total == 0) {
        seen_left = left; /* nothing waits for anyone: nothing to fail */
        return 0;
    }
    if (!gone) {
        gone = calloc((size_t)fy_rt.size, 1);
        if (!gone)
            return 0; /* look again next time */
    }
    seen_left = left;
    marked = 0;
    for (int w = 0; w < fy_rt.size; w++)
        if (w != fy_rt.rank && !gone[w] &&
            fy_peers[w].inflight.head && peer_gone(w)) {
            gone[w] = 1;
            marked++;
        }
    fy_p2p_posted_foreach(mark_recv_peer);
    if (!marked)
        return 0;
    /* Everything the leavers sent before leaving, delivered before deciding. */
    int n = 0;
    while (fy_shm_progress() + (fy_tcp_active ? fy_tcp_progress() : 0) > 0)
        n++;
    int failed = fy_inflight_total + fy_posted_total;
    for (int w = 0; w < fy_rt.size; w++)
        if (gone[w])
            fy_p2p_send_fail_gone(w, "called MPI_Finalize before receiving it");
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
    gone = NULL;
    seen_left = 0;
}
