/* Node-aware ("hierarchical") collectives (hier.c): for an intracommunicator whose members run
 * on several hosts, with two or more of them on at least one host, Barrier, Bcast, Reduce,
 * Allreduce and Allgather(v) work in two levels: inside each host over a hidden communicator of
 * that host's members (the shared-memory collectives where they apply), and across hosts over
 * a hidden communicator of one leader per host (the host's lowest rank), whose algorithm the
 * selection tables choose as for any communicator.
 *
 * The two hidden communicators are made on the first blocking collective that takes a `hier`
 * row, collectively over all members (an agreement of two context ids: the host communicators
 * of all hosts share one, since they never share a process; the leaders' takes the other), and
 * are freed with the communicator. The nonblocking and persistent forms take the `hier` rows
 * only once they exist (a schedule cannot wait for an agreement), through fy_sched_on.
 *
 * Which member is on which host is fy_rt.host_of (the launcher's word), or, for tests on one
 * machine, FERRY_COLL_HOSTS (a list of host ids repeated over world ranks): it changes what the
 * node-aware collectives believe, not which transport carries what. */
#ifndef FY_HIER_H
#define FY_HIER_H

#include <stdint.h>

#include "fy_select.h"

/* Agreeing the two context ids of the hidden communicators over c's members, point to point on
 * c's collective context with `tag` (a collective step over c). Provided by the API layer
 * (comm_cid.c), which owns the agreement, and set by it at start-up. Returns an error class
 * for a failed exchange; otherwise *outcome_p says, the same on every member: */
enum {
    FY_HIER_IDS_OK,    /* `agreed` holds the two ids: take them before the lock is let go */
    FY_HIER_IDS_LATER, /* not now (a creation in progress on some member must decide first) */
    FY_HIER_IDS_NONE   /* no two ids are free on every member */
};
typedef int fy_hier_agree_fn_t(fy_comm_t *c, int tag, uint64_t *agreed, int *outcome_p);
extern fy_hier_agree_fn_t *fy_hier_agree;

/* The rows' requirement: c spans several hosts with two or more members on one of them, and
 * (schedules) its hidden communicators exist. Reductions with a non-commutative operator also
 * need every host's members to be consecutive ranks, so that host partial results combined in
 * host order are in rank order. */
fy_sel_pred_t fy_hier_sel_ok, fy_hier_sel_reduce_ok;

fy_barrier_fn_t fy_barrier_hier;
fy_barrier_sched_fn_t fy_barrier_hier_sched;
fy_bcast_fn_t fy_bcast_hier;
fy_bcast_sched_fn_t fy_bcast_hier_sched;
fy_reduce_fn_t fy_reduce_hier;
fy_reduce_sched_fn_t fy_reduce_hier_sched;
fy_allreduce_fn_t fy_allreduce_hier;
fy_allreduce_sched_fn_t fy_allreduce_hier_sched;
fy_allgather_fn_t fy_allgatherv_hier;
fy_allgather_sched_fn_t fy_allgatherv_hier_sched;

/* What the collective layer holds on c (its shared-memory slot, its hidden communicators),
 * given back when c is freed: the core's fy_comm_coll_free. */
void fy_coll_comm_free(fy_comm_t *c);
/* shm_slot.c's part of it. */
void fy_shmc_free(fy_comm_t *c);

#endif
