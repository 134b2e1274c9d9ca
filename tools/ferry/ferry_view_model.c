/* The view's model from the raw events: one pass over each rank's records.
 *
 * Intervals: an ENTER or REGION_BEGIN takes the next slot (so a rank's intervals come out sorted
 * by start), its LEAVE or REGION_END fills the duration; a call still open at the end of a file
 * (a killed rank) ends at the rank's last event. Depth 0 is an MPI call, 1 + n a user region
 * inside n others.
 * Messages: MPI's non-overtaking rule makes the k-th send of (sender, receiver, communicator,
 * tag) the k-th receive of the same; sends and receives are grouped by that key (a hash) and
 * paired in order, in time linear in their number.
 * Collectives: a communicator's k-th collective on each member is the same instance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry_view.h"

#define MAX_DEPTH 256

static int grow(void *pp, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < need)
        ncap *= 2;
    void *n = realloc(*(void **)pp, ncap * elem);
    if (!n)
        return -1;
    *(void **)pp = n;
    *cap = ncap;
    return 0;
}

typedef struct msg_end {
    uint32_t src, dst, comm;
    int32_t tag;
    double t;
    uint64_t bytes;
} msg_end_t;

typedef struct coll_inst {
    double start, last_in, end, bytes;
    uint32_t comm, seen;
    int32_t root;
    uint16_t name;
} coll_inst_t;

typedef struct open_iv {
    size_t iv;
    uint32_t name;
    uint8_t type;
} open_iv_t;

/* Key -> group number, open addressing over 64-bit hashes of the key. */
typedef struct keymap {
    uint32_t *slot; /* group + 1, 0 free */
    size_t cap;
    msg_end_t *keys; /* the first end seen of each group (its key) */
    size_t n, keys_cap;
} keymap_t;

static uint64_t key_hash(const msg_end_t *e)
{
    uint64_t h = ((uint64_t)e->src << 32 | e->dst) * 0x9e3779b97f4a7c15ULL;
    h ^= ((uint64_t)e->comm << 32 | (uint32_t)e->tag) + 0x632be59bd9b4e019ULL + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

static int key_eq(const msg_end_t *a, const msg_end_t *b)
{
    return a->src == b->src && a->dst == b->dst && a->comm == b->comm && a->tag == b->tag;
}

/* The group of e's key; a new one when `add`, else UINT32_MAX when absent. */
static uint32_t key_group(keymap_t *km, const msg_end_t *e, int add)
{
    if (add && (km->n + 1) * 2 > km->cap) {
        size_t ncap = km->cap ? km->cap * 2 : 1024;
        uint32_t *ns = calloc(ncap, sizeof *ns);
        if (!ns)
            return UINT32_MAX - 1;
        for (size_t g = 0; g < km->n; g++) {
            size_t i = key_hash(&km->keys[g]) & (ncap - 1);
            while (ns[i])
                i = (i + 1) & (ncap - 1);
            ns[i] = (uint32_t)g + 1;
        }
        free(km->slot);
        km->slot = ns;
        km->cap = ncap;
    }
    if (km->cap == 0)
        return UINT32_MAX;
    size_t i = key_hash(e) & (km->cap - 1);
    while (km->slot[i]) {
        if (key_eq(&km->keys[km->slot[i] - 1], e))
            return km->slot[i] - 1;
        i = (i + 1) & (km->cap - 1);
    }
    if (!add)
        return UINT32_MAX;
    if (grow(&km->keys, &km->keys_cap, km->n + 1, sizeof *km->keys))
        return UINT32_MAX - 1;
    km->keys[km->n] = *e;
    km->slot[i] = (uint32_t)km->n + 1;
    return (uint32_t)km->n++;
}

static int oom(void)
{
    fprintf(stderr, VIEW_WHO ": out of memory building the view\n");
    return -1;
}

static const coll_inst_t *sort_base;
static int inst_cmp(const void *a, const void *b)
{
    double x = sort_base[*(const uint32_t *)a].start, y = sort_base[*(const uint32_t *)b].start;
    return x < y ? -1 : x > y;
}

int view_model_build(fy_trace_t *tr, view_model_t *m)
{
    memset(m, 0, sizeof *m);
    if (tr->nnames > 65535 || tr->nranks > 65535) {
        fprintf(stderr, VIEW_WHO ": %s: %u names and %d ranks; the view holds at most 65535 of "
                        "each\n", tr->dir, tr->nnames, tr->nranks);
        return -1;
    }
    int rc = -1;
    size_t s_cap = 0, r_cap = 0, ci_cap = 0, ns = 0, nr = 0, ninst = 0;
    size_t c_start = 0, c_dur = 0, c_rank = 0, c_name = 0, c_depth = 0;
    msg_end_t *sends = NULL, *recvs = NULL;
    coll_inst_t *inst = NULL;
    uint32_t **comm_inst = calloc(tr->ncomms ? tr->ncomms : 1, sizeof *comm_inst);
    size_t *comm_ninst = calloc(tr->ncomms ? tr->ncomms : 1, sizeof *comm_ninst);
    size_t *comm_cap = calloc(tr->ncomms ? tr->ncomms : 1, sizeof *comm_cap);
    uint32_t *kth = calloc(tr->ncomms ? tr->ncomms : 1, sizeof *kth);
    keymap_t km = {0};
    uint32_t *gcount = NULL, *gfirst = NULL, *rorder = NULL;
    m->rank_off = calloc((size_t)tr->nranks + 1, sizeof *m->rank_off);
    if (!comm_inst || !comm_ninst || !comm_cap || !kth || !m->rank_off)
        goto out_oom;

    for (int rank = 0; rank < tr->nranks; rank++) {
        fy_trace_rank_t *r = &tr->ranks[rank];
        m->rank_off[rank] = (uint32_t)m->niv;
        if (!r->present)
            continue;
        memset(kth, 0, (tr->ncomms ? tr->ncomms : 1) * sizeof *kth);
        open_iv_t stack[MAX_DEPTH];
        int depth = 0, regions = 0;
        double coll_t = NAN, prev = 0;
        fy_trace_iter_t it;
        fy_trace_iter_init(r, &it);
        const fyt_head_t *h;
        while ((h = fy_trace_next(&it))) {
            if (h->type < FYT_ENTER || h->type > FYT_REGION_END)
                continue;
            double ts = (double)(fy_trace_ns(r, ((const fyt_ev_t *)h)->t) - tr->ns_min);
            if (ts < prev)
                ts = prev;
            prev = ts;
            switch (h->type) {
            case FYT_ENTER:
            case FYT_REGION_BEGIN: {
                int region = h->type == FYT_REGION_BEGIN;
                uint32_t g = region ? fy_trace_region(r, h->id) : fy_trace_name(r, h->id);
                if (g == FY_TRACE_NONE || depth == MAX_DEPTH)
                    break;
                size_t i = m->niv;
                if (grow(&m->iv_start, &c_start, i + 1, sizeof *m->iv_start) ||
                    grow(&m->iv_dur, &c_dur, i + 1, sizeof *m->iv_dur) ||
                    grow(&m->iv_rank, &c_rank, i + 1, sizeof *m->iv_rank) ||
                    grow(&m->iv_name, &c_name, i + 1, sizeof *m->iv_name) ||
                    grow(&m->iv_depth, &c_depth, i + 1, sizeof *m->iv_depth))
                    goto out_oom;
                m->iv_start[i] = ts;
                m->iv_dur[i] = 0;
                m->iv_rank[i] = (uint16_t)rank;
                m->iv_name[i] = (uint16_t)g;
                m->iv_depth[i] = region ? (uint8_t)(regions + 1 > 255 ? 255 : regions + 1) : 0;
                regions += region;
                stack[depth++] = (open_iv_t){i, g, h->type};
                m->niv++;
                break;
            }
            case FYT_LEAVE:
            case FYT_REGION_END: {
                int region = h->type == FYT_REGION_END;
                uint32_t g = region ? fy_trace_region(r, h->id) : fy_trace_name(r, h->id);
                uint8_t want = region ? FYT_REGION_BEGIN : FYT_ENTER;
                int k = depth - 1;
                while (k >= 0 && !(stack[k].name == g && stack[k].type == want))
                    k--;
                if (k < 0)
                    break;
                while (depth > k) {
                    open_iv_t *o = &stack[--depth];
                    m->iv_dur[o->iv] = (float)(ts - m->iv_start[o->iv]);
                    regions -= o->type == FYT_REGION_BEGIN;
                }
                break;
            }
            case FYT_SEND:
            case FYT_RECV: {
                const fyt_msg_t *msg = (const fyt_msg_t *)h;
                uint32_t c = fy_trace_comm(r, msg->comm);
                if (c == FY_TRACE_NONE || msg->peer < 0 || msg->peer >= tr->nranks)
                    break;
                msg_end_t e = {h->type == FYT_SEND ? (uint32_t)rank : (uint32_t)msg->peer,
                               h->type == FYT_SEND ? (uint32_t)msg->peer : (uint32_t)rank, c,
                               msg->tag, ts, msg->bytes};
                if (h->type == FYT_SEND) {
                    if (grow(&sends, &s_cap, ns + 1, sizeof *sends))
                        goto out_oom;
                    sends[ns++] = e;
                } else {
                    if (grow(&recvs, &r_cap, nr + 1, sizeof *recvs))
                        goto out_oom;
                    recvs[nr++] = e;
                }
                break;
            }
            case FYT_COLL_BEGIN:
                coll_t = ts;
                break;
            case FYT_COLL_END: {
                const fyt_coll_t *cl = (const fyt_coll_t *)h;
                uint32_t c = fy_trace_comm(r, cl->comm), g = fy_trace_name(r, h->id);
                double begin = isnan(coll_t) ? ts : coll_t;
                coll_t = NAN;
                if (c == FY_TRACE_NONE)
                    break;
                uint32_t k = kth[c]++;
                if (k >= comm_ninst[c]) {
                    if (grow(&comm_inst[c], &comm_cap[c], k + 1, sizeof **comm_inst) ||
                        grow(&inst, &ci_cap, ninst + 1, sizeof *inst))
                        goto out_oom;
                    comm_inst[c][comm_ninst[c]++] = (uint32_t)ninst;
                    inst[ninst++] = (coll_inst_t){begin, begin, ts, 0, c, 0, cl->root,
                                                  (uint16_t)(g == FY_TRACE_NONE ? 0 : g)};
                }
                coll_inst_t *in = &inst[comm_inst[c][k]];
                if (begin < in->start)
                    in->start = begin;
                if (begin > in->last_in)
                    in->last_in = begin;
                if (ts > in->end)
                    in->end = ts;
                in->bytes += (double)cl->sent;
                in->seen++;
                break;
            }
            default:
                break;
            }
        }
        if (depth > 0) {
            double last = (double)(fy_trace_ns(r, r->t_last) - tr->ns_min);
            if (last < prev)
                last = prev;
            m->closed += depth;
            while (depth > 0) {
                open_iv_t *o = &stack[--depth];
                m->iv_dur[o->iv] = (float)(last - m->iv_start[o->iv]);
            }
        }
    }
    m->rank_off[tr->nranks] = (uint32_t)m->niv;

    /* Messages: group numbers for the sends' keys, then the receives' (existing keys only). */
    uint32_t *sgroup = malloc((ns ? ns : 1) * sizeof *sgroup);
    if (!sgroup)
        goto out_oom;
    for (size_t i = 0; i < ns; i++) {
        sgroup[i] = key_group(&km, &sends[i], 1);
        if (sgroup[i] == UINT32_MAX - 1) {
            free(sgroup);
            goto out_oom;
        }
    }
    size_t ng = km.n;
    gcount = calloc(ng + 1, sizeof *gcount); /* receives of each group seen so far */
    gfirst = calloc(ng + 1, sizeof *gfirst);
    rorder = malloc((nr ? nr : 1) * sizeof *rorder);
    uint32_t *rgroup = malloc((nr ? nr : 1) * sizeof *rgroup);
    if (!gcount || !gfirst || !rorder || !rgroup) {
        free(sgroup);
        free(rgroup);
        goto out_oom;
    }
    /* Receives per group, in order: a counting sort (stable, so per group in file order). */
    for (size_t i = 0; i < nr; i++) {
        rgroup[i] = key_group(&km, &recvs[i], 0);
        if (rgroup[i] != UINT32_MAX)
            gcount[rgroup[i] + 1]++;
        else
            m->unmatched_recvs++;
    }
    for (size_t g = 0; g < ng; g++)
        gcount[g + 1] += gcount[g];
    memcpy(gfirst, gcount, (ng + 1) * sizeof *gfirst);
    for (size_t i = 0; i < nr; i++)
        if (rgroup[i] != UINT32_MAX)
            rorder[gcount[rgroup[i]]++] = (uint32_t)i;
    /* Now gfirst[g]..gfirst[g+1] are group g's receives; hand them out to its sends in order. */
    memcpy(gcount, gfirst, (ng + 1) * sizeof *gcount);
    m->nmsg = ns;
    m->msg_send = malloc((ns ? ns : 1) * sizeof *m->msg_send);
    m->msg_recv = malloc((ns ? ns : 1) * sizeof *m->msg_recv);
    m->msg_src = malloc((ns ? ns : 1) * sizeof *m->msg_src);
    m->msg_dst = malloc((ns ? ns : 1) * sizeof *m->msg_dst);
    m->msg_tag = malloc((ns ? ns : 1) * sizeof *m->msg_tag);
    m->msg_bytes = malloc((ns ? ns : 1) * sizeof *m->msg_bytes);
    if (!m->msg_send || !m->msg_recv || !m->msg_src || !m->msg_dst || !m->msg_tag ||
        !m->msg_bytes) {
        free(sgroup);
        free(rgroup);
        goto out_oom;
    }
    for (size_t i = 0; i < ns; i++) {
        uint32_t g = sgroup[i];
        m->msg_send[i] = sends[i].t;
        m->msg_src[i] = (uint16_t)sends[i].src;
        m->msg_dst[i] = (uint16_t)sends[i].dst;
        m->msg_tag[i] = sends[i].tag;
        m->msg_bytes[i] = (double)sends[i].bytes;
        m->msg_recv[i] = NAN;
        if (gcount[g] < gfirst[g + 1])
            m->msg_recv[i] = recvs[rorder[gcount[g]++]].t;
    }
    for (size_t g = 0; g < ng; g++)
        m->unmatched_recvs += gfirst[g + 1] - gcount[g];
    free(sgroup);
    free(rgroup);

    /* Collectives, by their first member's entry. */
    m->ncoll = ninst;
    uint32_t *ord = malloc((ninst ? ninst : 1) * sizeof *ord);
    m->coll_start = malloc((ninst ? ninst : 1) * sizeof(double));
    m->coll_last_in = malloc((ninst ? ninst : 1) * sizeof(double));
    m->coll_end = malloc((ninst ? ninst : 1) * sizeof(double));
    m->coll_bytes = malloc((ninst ? ninst : 1) * sizeof(double));
    m->coll_name = malloc((ninst ? ninst : 1) * sizeof(uint16_t));
    m->coll_root = malloc((ninst ? ninst : 1) * sizeof(int32_t));
    m->coll_comm = malloc((ninst ? ninst : 1) * sizeof(uint32_t));
    if (!ord || !m->coll_start || !m->coll_last_in || !m->coll_end || !m->coll_bytes ||
        !m->coll_name || !m->coll_root || !m->coll_comm) {
        free(ord);
        goto out_oom;
    }
    for (size_t i = 0; i < ninst; i++)
        ord[i] = (uint32_t)i;
    sort_base = inst;
    qsort(ord, ninst, sizeof *ord, inst_cmp);
    for (size_t j = 0; j < ninst; j++) {
        const coll_inst_t *in = &inst[ord[j]];
        m->coll_start[j] = in->start;
        m->coll_last_in[j] = in->last_in;
        m->coll_end[j] = in->end;
        m->coll_bytes[j] = in->bytes;
        m->coll_name[j] = in->name;
        m->coll_root[j] = in->root;
        m->coll_comm[j] = in->comm;
        if (in->seen < tr->comms[in->comm].size)
            m->incomplete_colls++;
    }
    free(ord);
    rc = 0;
    goto out;
out_oom:
    oom();
out:
    if (tr->ncomms)
        for (uint32_t c = 0; c < tr->ncomms; c++)
            free(comm_inst[c]);
    free(comm_inst);
    free(comm_ninst);
    free(comm_cap);
    free(kth);
    free(sends);
    free(recvs);
    free(inst);
    free(km.slot);
    free(km.keys);
    free(gcount);
    free(gfirst);
    free(rorder);
    if (rc != 0)
        view_model_free(m);
    return rc;
}

void view_model_free(view_model_t *m)
{
    free(m->iv_start);
    free(m->iv_dur);
    free(m->iv_rank);
    free(m->iv_name);
    free(m->iv_depth);
    free(m->rank_off);
    free(m->msg_send);
    free(m->msg_recv);
    free(m->msg_src);
    free(m->msg_dst);
    free(m->msg_tag);
    free(m->msg_bytes);
    free(m->coll_start);
    free(m->coll_last_in);
    free(m->coll_end);
    free(m->coll_bytes);
    free(m->coll_name);
    free(m->coll_root);
    free(m->coll_comm);
    memset(m, 0, sizeof *m);
}
