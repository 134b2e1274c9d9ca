/* Point-to-point counters shown by MPI_T as performance variables (src/api/mpit_pvar.c).
 * Plain counters of this process, written only by the thread that holds the library (under
 * MPI_THREAD_MULTIPLE, its lock): no atomics on the message path. Counted where a message is
 * posted (sends) and where it meets its receive (receives), per transport. */
#ifndef FY_P2P_STATS_H
#define FY_P2P_STATS_H

#include <stdint.h>

enum { FY_XP_SELF, FY_XP_SHM, FY_XP_TCP, FY_XP_N };

typedef struct fy_p2p_stats {
    uint64_t msgs_sent[FY_XP_N], bytes_sent[FY_XP_N];
    uint64_t msgs_recv[FY_XP_N], bytes_recv[FY_XP_N];
    uint64_t rndv_sent; /* messages sent by rendezvous (RTS) */
    /* Which path moved rendezvous bytes: read by the receiver with single copy, written by a
     * running sender into the receiver (split rendezvous), streamed through the rings (counted
     * by the receiver). */
    uint64_t rndv_pulled, rndv_pushed, rndv_streamed;
    uint64_t unexp_len; /* messages now in the unexpected queues */
    uint64_t unexp_hwm; /* the most there ever were */
    uint64_t wait_ns;   /* time in fy_wait_* while `timing` */
    uint64_t wait_do[5]; /* the wait policy's decisions, by fy_wait_do_t (fy_wait_policy.h) */
    uint64_t wait_moves; /* times a waiting rank moved off the CPU its peer was stacked on */
    unsigned timing;    /* MPI_T handles measuring wait time that are started */
} __attribute__((aligned(64))) fy_p2p_stats_t;

extern fy_p2p_stats_t fy_p2p_stats;

#endif
