/* One rank's events as OTF2 events. Called on a worker thread, one rank per call; it reads only
 * the rank's own map and the trace's read-only tables.
 *
 * OTF2 wants, per location, timestamps that never go back and Enter/Leave pairs properly nested.
 * The raw file gives both for a rank that ran to the end; for one that was killed, or whose
 * recording was cut by a filter or the size cap, a LEAVE may come without its ENTER (skipped)
 * and calls may be left open (closed here at the rank's last time). */
#include <ctype.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry_otf2.h"

#define MAX_DEPTH 256

typedef struct open_call {
    uint32_t region;
    uint8_t type; /* FYT_ENTER or FYT_REGION_BEGIN */
} open_call_t;

#define CHECK(call)                                                                               \
    do {                                                                                          \
        OTF2_ErrorCode rc_ = (call);                                                              \
        if (rc_ != OTF2_SUCCESS) {                                                                \
            snprintf(out->err, sizeof out->err, "rank %d: writing its events: %s (%s)", rank,      \
                     OTF2_Error_GetDescription(rc_), OTF2_Error_GetName(rc_));                    \
            goto fail;                                                                            \
        }                                                                                         \
    } while (0)

int fyo_write_rank(OTF2_Archive *ar, fy_trace_t *tr, int rank, fyo_rank_out_t *out)
{
    fy_trace_rank_t *r = &tr->ranks[rank];
    memset(out, 0, sizeof *out);
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (OTF2_LocationRef)rank);
    if (!w) {
        snprintf(out->err, sizeof out->err, "rank %d: OTF2 gave no event writer", rank);
        return -1;
    }
    open_call_t stack[MAX_DEPTH];
    int depth = 0, coll_open = 0;
    const fyt_coll_t *coll_begin = NULL;
    uint64_t prev = 0, n = 0, rma_id = 0;
    uint32_t max_win = 0;
    fy_trace_iter_t it;
    fy_trace_iter_init(r, &it);
    const fyt_head_t *h;
    while (r->present && (h = fy_trace_next(&it))) {
        if (h->type < FYT_ENTER || h->type > FYT_REGION_END)
            continue;
        /* Every event type has its time right after the head. */
        int64_t ns = fy_trace_ns(r, ((const fyt_ev_t *)h)->t) - tr->ns_min;
        uint64_t ts = ns < 0 ? 0 : (uint64_t)ns;
        if (ts < prev)
            ts = prev;
        prev = ts;
        switch (h->type) {
        case FYT_ENTER:
        case FYT_REGION_BEGIN: {
            uint32_t g = h->type == FYT_ENTER ? fy_trace_name(r, h->id) : fy_trace_region(r, h->id);
            if (g == FY_TRACE_NONE || depth == MAX_DEPTH)
                break;
            stack[depth++] = (open_call_t){g, h->type};
            CHECK(OTF2_EvtWriter_Enter(w, NULL, ts, g));
            n++;
            break;
        }
        case FYT_LEAVE:
        case FYT_REGION_END: {
            uint32_t g = h->type == FYT_LEAVE ? fy_trace_name(r, h->id) : fy_trace_region(r, h->id);
            uint8_t want = h->type == FYT_LEAVE ? FYT_ENTER : FYT_REGION_BEGIN;
            int k = depth - 1;
            while (k >= 0 && !(stack[k].region == g && stack[k].type == want))
                k--;
            if (k < 0)
                break; /* no ENTER for it: recording started inside the call */
            while (depth > k) { /* inner calls left open end here too */
                CHECK(OTF2_EvtWriter_Leave(w, NULL, ts, stack[--depth].region));
                n++;
            }
            break;
        }
        case FYT_SEND:
        case FYT_RECV: {
            const fyt_msg_t *m = (const fyt_msg_t *)h;
            uint32_t c = fy_trace_comm(r, m->comm);
            if (c == FY_TRACE_NONE)
                break;
            int peer = fy_trace_comm_rank(&tr->comms[c], m->peer);
            if (peer < 0)
                break;
            if (h->type == FYT_SEND)
                CHECK(OTF2_EvtWriter_MpiSend(w, NULL, ts, (uint32_t)peer, c, (uint32_t)m->tag,
                                             m->bytes));
            else
                CHECK(OTF2_EvtWriter_MpiRecv(w, NULL, ts, (uint32_t)peer, c, (uint32_t)m->tag,
                                             m->bytes));
            n++;
            break;
        }
        case FYT_COLL_BEGIN:
            if (coll_open)
                break;
            coll_begin = (const fyt_coll_t *)h;
            coll_open = 1;
            CHECK(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, ts));
            n++;
            break;
        case FYT_COLL_END: {
            const fyt_coll_t *cl = (const fyt_coll_t *)h;
            uint32_t c = fy_trace_comm(r, cl->comm), name = fy_trace_name(r, h->id);
            if (!coll_open)
                break;
            int root = cl->root >= 0 && c != FY_TRACE_NONE
                           ? fy_trace_comm_rank(&tr->comms[c], cl->root) : -1;
            CHECK(OTF2_EvtWriter_MpiCollectiveEnd(
                w, NULL, ts, name == FY_TRACE_NONE ? OTF2_COLLECTIVE_OP_BARRIER
                                                   : fyo_coll_op(tr->names[name].name),
                c == FY_TRACE_NONE ? OTF2_UNDEFINED_COMM : c,
                root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, cl->sent, cl->received));
            coll_open = 0;
            n++;
            break;
        }
        case FYT_RMA: {
            const fyt_rma_t *a = (const fyt_rma_t *)h;
            uint32_t name = fy_trace_name(r, h->id);
            const char *s = name == FY_TRACE_NONE ? "" : tr->names[name].name;
            if (strncmp(s, "MPI_", 4) == 0)
                s += 4;
            if (a->win + 1 > max_win)
                max_win = a->win + 1;
            uint32_t target = a->target < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)a->target;
            if (strcasecmp(s, "Put") == 0 || strcasecmp(s, "Rput") == 0)
                CHECK(OTF2_EvtWriter_RmaPut(w, NULL, ts, a->win, target, a->bytes, rma_id++));
            else if (strcasecmp(s, "Get") == 0 || strcasecmp(s, "Rget") == 0)
                CHECK(OTF2_EvtWriter_RmaGet(w, NULL, ts, a->win, target, a->bytes, rma_id++));
            else if (strcasecmp(s, "Compare_and_swap") == 0)
                CHECK(OTF2_EvtWriter_RmaAtomic(w, NULL, ts, a->win, target,
                                               OTF2_RMA_ATOMIC_TYPE_COMPARE_AND_SWAP, a->bytes,
                                               a->bytes, rma_id++));
            else if (strcasecmp(s, "Fetch_and_op") == 0 || strcasecmp(s, "Get_accumulate") == 0 ||
                     strcasecmp(s, "Rget_accumulate") == 0)
                CHECK(OTF2_EvtWriter_RmaAtomic(w, NULL, ts, a->win, target,
                                               OTF2_RMA_ATOMIC_TYPE_FETCH_AND_ACCUMULATE, a->bytes,
                                               a->bytes, rma_id++));
            else
                CHECK(OTF2_EvtWriter_RmaAtomic(w, NULL, ts, a->win, target,
                                               OTF2_RMA_ATOMIC_TYPE_ACCUMULATE, a->bytes, 0,
                                               rma_id++));
            n++;
            break;
        }
        default:
            break;
        }
    }
    /* A killed rank: what is open ends at its last time. */
    if (coll_open || depth > 0)
        out->closed = depth;
    if (coll_open) {
        uint32_t c = fy_trace_comm(r, coll_begin->comm), name = fy_trace_name(r, coll_begin->h.id);
        CHECK(OTF2_EvtWriter_MpiCollectiveEnd(
            w, NULL, prev, name == FY_TRACE_NONE ? OTF2_COLLECTIVE_OP_BARRIER
                                                 : fyo_coll_op(tr->names[name].name),
            c == FY_TRACE_NONE ? OTF2_UNDEFINED_COMM : c, OTF2_UNDEFINED_UINT32, coll_begin->sent,
            0));
        n++;
    }
    if (depth > 0 && r->present) {
        int64_t last = fy_trace_ns(r, r->t_last) - tr->ns_min;
        if (last > 0 && (uint64_t)last > prev)
            prev = (uint64_t)last;
    }
    while (depth > 0) {
        CHECK(OTF2_EvtWriter_Leave(w, NULL, prev, stack[--depth].region));
        n++;
    }
    out->events = n;
    out->max_win = max_win;
    OTF2_ErrorCode rc = OTF2_Archive_CloseEvtWriter(ar, w);
    if (rc != OTF2_SUCCESS) {
        snprintf(out->err, sizeof out->err, "rank %d: closing its events: %s", rank,
                 OTF2_Error_GetDescription(rc));
        return -1;
    }
    return 0;
fail:
    OTF2_Archive_CloseEvtWriter(ar, w);
    return -1;
}

OTF2_CollectiveOp fyo_coll_op(const char *mpi_name)
{
    static const struct {
        const char *name;
        OTF2_CollectiveOp op;
    } ops[] = {
        {"barrier", OTF2_COLLECTIVE_OP_BARRIER}, {"bcast", OTF2_COLLECTIVE_OP_BCAST},
        {"gather", OTF2_COLLECTIVE_OP_GATHER}, {"gatherv", OTF2_COLLECTIVE_OP_GATHERV},
        {"scatter", OTF2_COLLECTIVE_OP_SCATTER}, {"scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
        {"allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
        {"allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV}, {"alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
        {"alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV}, {"alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
        {"allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE}, {"reduce", OTF2_COLLECTIVE_OP_REDUCE},
        {"reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
        {"reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
        {"scan", OTF2_COLLECTIVE_OP_SCAN}, {"exscan", OTF2_COLLECTIVE_OP_EXSCAN},
        /* Neighbourhood collectives have no OTF2 operation: the nearest all-to-all one. */
        {"neighbor_allgather", OTF2_COLLECTIVE_OP_ALLGATHER},
        {"neighbor_allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
        {"neighbor_alltoall", OTF2_COLLECTIVE_OP_ALLTOALL},
        {"neighbor_alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
        {"neighbor_alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW},
    };
    const char *s = strncmp(mpi_name, "MPI_", 4) == 0 ? mpi_name + 4 : mpi_name;
    char low[64];
    size_t n = strnlen(s, sizeof low - 1);
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[n] = 0;
    if (n > 5 && strcmp(low + n - 5, "_init") == 0)
        low[n - 5] = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *k = pass == 0 ? low : low + 1; /* then without the I of a nonblocking one */
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (strcmp(k, ops[i].name) == 0)
                return ops[i].op;
        if (low[0] != 'i')
            break;
    }
    return OTF2_COLLECTIVE_OP_BARRIER;
}
