/* Partitioned communication on top of point-to-point messages (see fy_part.h and
 * docs/DESIGN.md).
 *
 * Tags, on the collective context (negative, bit 30 set: the range neither user receives,
 * which only see the point-to-point context, nor collectives use):
 *   setup  0xC0000000 | 0x3ff << 20 | (user tag mod 0xfffff)
 *   unit j 0xC0000000 | id << 20 | j          (id: the receiver's, 0..1022, unique among its
 *                                              live partitioned receives)
 * Setup messages of one (communicator, pair, user tag) match in the order the requests were
 * made, which is the standard's matching order for partitioned operations. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_p2p.h"
#include "fy_part.h"
#include "fy_runtime.h"

#define TAG_BASE 0xC0000000u
#define SETUP_ID 0x3ffu

typedef struct {
    int32_t id, units;
    int64_t unit_bytes, total;
} setup_t;

typedef struct fy_part {
    fy_req_t *req; /* the user's request */
    bool send;
    bool active;
    int parts;       /* this side's partitions */
    MPI_Count count; /* elements per partition */
    const fy_dtype_t *dt;
    char *buf;
    fy_comm_t *comm;
    int peer, tag;
    int id;            /* receiver: its id in the unit tags (-1: none taken) */
    size_t part_bytes; /* this side's bytes per partition */
    setup_t setup;     /* receiver: what it announced; sender: what arrived */
    fy_req_t *setup_req;
    int units; /* receiver partitions; a sender knows them once the setup arrived */
    fy_req_t **sub; /* one request per unit */
    int first_pending;
    /* Sender only. */
    uint8_t *ready;           /* per sender partition, this round */
    int *missing, *missing0;  /* per unit: sender partitions not ready yet; its start value */
    char *staging;            /* packed copy of the data when the type is not contiguous */
    int error;                /* a size mismatch found when the layout arrived */
    struct fy_part *next, *prev; /* the active list */
} fy_part_t;

int fy_part_nactive;
static fy_part_t *active_head;
static uint64_t ids_used[(FY_PART_MAX_RECVS + 64) / 64];

static int take_id(void)
{
    for (int i = 0; i < FY_PART_MAX_RECVS; i++)
        if (!(ids_used[i / 64] & (1ull << (i % 64)))) {
            ids_used[i / 64] |= 1ull << (i % 64);
            return i;
        }
    return -1;
}

static void put_id(int i)
{
    ids_used[i / 64] &= ~(1ull << (i % 64));
}

static int setup_tag(int user_tag)
{
    return (int)(TAG_BASE | (SETUP_ID << 20) | ((unsigned)user_tag % 0xfffffu));
}

static int unit_tag(int id, int j)
{
    return (int)(TAG_BASE | ((unsigned)id << 20) | (unsigned)j);
}

static const fy_dtype_t *byte_type(void)
{
    return fy_dtype_get(MPI_BYTE);
}

/* Re-arms a request made once (fy_api_start does the same for the user's requests). */
static int restart(fy_req_t *s)
{
    atomic_store_explicit(&s->done, false, memory_order_relaxed);
    s->error = MPI_SUCCESS;
    s->cancelled = false;
    s->streamed = 0;
    s->pstate = 0;
    fy_status_set(&s->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    return s->kind == FY_REQ_RECV ? fy_p2p_irecv(s) : fy_p2p_isend(s);
}

static void list_add(fy_part_t *p)
{
    p->prev = NULL;
    p->next = active_head;
    if (active_head)
        active_head->prev = p;
    active_head = p;
    fy_part_nactive++;
}

static void list_remove(fy_part_t *p)
{
    if (p->prev)
        p->prev->next = p->next;
    else
        active_head = p->next;
    if (p->next)
        p->next->prev = p->prev;
    fy_part_nactive--;
}

/* Bytes [lo, hi) of unit j within the sender's data (clipped to what the sender has). */
static void unit_range(const fy_part_t *p, int j, size_t total, size_t *lo, size_t *hi)
{
    size_t ub = (size_t)p->setup.unit_bytes;
    *lo = (size_t)j * ub;
    *hi = *lo + ub;
    if (*hi > total)
        *hi = total;
    if (*lo > *hi)
        *lo = *hi;
}

static void free_subs(fy_part_t *p)
{
    if (!p->sub)
        return;
    for (int j = 0; j < p->units; j++)
        if (p->sub[j])
            fy_req_free(p->sub[j]);
    free(p->sub);
    p->sub = NULL;
}

/* The sender's side once the receiver's layout is known: one send request per unit, and how
 * many sender partitions each unit waits for. Runs once per request. */
static int sender_layout(fy_part_t *p)
{
    size_t total = p->part_bytes * (size_t)p->parts;
    int units = p->setup.units;
    size_t ub = (size_t)p->setup.unit_bytes;
    if (units < 0 || p->setup.unit_bytes < 0)
        return fy_err_set(MPI_ERR_INTERN, "partitioned send: malformed setup message");
    if ((size_t)p->setup.total != total)
        p->error = fy_err_code_for_message(fy_err_set(
            MPI_ERR_TRUNCATE,
            "MPI_Psend_init: the matching partitioned receive (rank %d, tag %d) expects %lld "
            "bytes, this send has %zu",
            p->peer, p->tag, (long long)p->setup.total, total));
    p->sub = calloc((size_t)units ? (size_t)units : 1, sizeof *p->sub);
    p->missing = calloc((size_t)units ? (size_t)units : 1, sizeof *p->missing);
    p->missing0 = calloc((size_t)units ? (size_t)units : 1, sizeof *p->missing0);
    if (!p->dt->contig && total)
        p->staging = malloc(total);
    if (!p->sub || !p->missing || !p->missing0 || (!p->dt->contig && total && !p->staging))
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Psend_init: out of memory");
    const char *base = p->dt->contig ? p->buf + p->dt->lb : p->staging;
    for (int j = 0; j < units; j++) {
        size_t lo, hi;
        unit_range(p, j, total, &lo, &hi);
        if (ub == 0 || p->part_bytes == 0)
            p->missing0[j] = ub == 0 ? p->parts : 0; /* no bytes: waits for every partition */
        else if (lo < hi)
            p->missing0[j] = (int)((hi - 1) / p->part_bytes - lo / p->part_bytes + 1);
        p->sub[j] = fy_req_new_p2p(FY_REQ_SEND, base + lo, (MPI_Aint)(hi - lo), byte_type(),
                                   p->peer, unit_tag(p->setup.id, j), p->comm,
                                   FY_CTX_COLL(p->comm), FY_MODE_STANDARD);
        if (!p->sub[j]) {
            p->units = j; /* free_subs frees those made */
            free_subs(p);
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Psend_init: out of memory");
        }
        atomic_store(&p->sub[j]->done, true);
    }
    p->units = units;
    return MPI_SUCCESS;
}

static int send_unit(fy_part_t *p, int j)
{
    fy_req_t *s = p->sub[j];
    if (p->staging && s->count)
        fy_dtype_pack_range(p->dt, p->buf, p->count * p->parts,
                            (size_t)((char *)s->buf - p->staging), s->buf, (size_t)s->count);
    return restart(s);
}

/* Sender partition i is ready: units that now have all their data go out. */
static int mark_ready(fy_part_t *p, int i)
{
    p->ready[i] = 1;
    if (!p->units)
        return MPI_SUCCESS;
    size_t ub = (size_t)p->setup.unit_bytes, total = p->part_bytes * (size_t)p->parts;
    int jlo, jhi;
    if (ub == 0) { /* nothing to carry: every unit waits for every partition */
        jlo = 0;
        jhi = p->units - 1;
    } else {
        size_t blo = (size_t)i * p->part_bytes, bhi = blo + p->part_bytes;
        if (bhi > total)
            bhi = total;
        if (blo >= bhi)
            return MPI_SUCCESS;
        jlo = (int)(blo / ub);
        jhi = (int)((bhi - 1) / ub);
        if (jhi >= p->units)
            jhi = p->units - 1;
    }
    for (int j = jlo; j <= jhi; j++)
        if (--p->missing[j] == 0) {
            int rc = send_unit(p, j);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    return MPI_SUCCESS;
}

/* A new round of a sender: every unit is pending until it is sent, and units that wait for
 * no partition (beyond a shorter sender's data) go at once. */
static int send_round_start(fy_part_t *p)
{
    memcpy(p->missing, p->missing0, (size_t)p->units * sizeof *p->missing);
    for (int j = 0; j < p->units; j++)
        atomic_store_explicit(&p->sub[j]->done, false, memory_order_relaxed);
    for (int j = 0; j < p->units; j++)
        if (p->missing[j] == 0) {
            int rc = send_unit(p, j);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    return MPI_SUCCESS;
}

/* An active sender whose setup has just arrived: lay out, then send what is ready. */
static int sender_catch_up(fy_part_t *p)
{
    int rc = sender_layout(p);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = send_round_start(p);
    for (int i = 0; i < p->parts && rc == MPI_SUCCESS; i++)
        if (p->ready[i]) {
            p->ready[i] = 0;
            rc = mark_ready(p, i);
        }
    return rc;
}

int fy_part_init(const char *fn, bool send, void *buf, int partitions, MPI_Count count,
                 const fy_dtype_t *dt, int peer, int tag, fy_comm_t *comm, fy_req_t **r_p)
{
    if (!send && partitions > FY_PART_MAX_UNITS)
        return fy_err_set(MPI_ERR_ARG,
                          "%s: %d partitions; Ferry takes at most %d in a partitioned receive",
                          fn, partitions, FY_PART_MAX_UNITS);
    fy_part_t *p = calloc(1, sizeof *p);
    fy_req_t *r = p ? fy_req_alloc(FY_REQ_PART) : NULL;
    if (!r) {
        free(p);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    r->part = p;
    r->persistent = true;
    r->comm = comm;
    r->peer = peer;
    r->tag = tag;
    atomic_store(&r->done, true); /* inactive */
    p->req = r;
    p->send = send;
    p->parts = partitions;
    p->count = count;
    p->dt = dt;
    fy_dtype_ref(dt);
    p->buf = buf;
    p->comm = comm;
    p->peer = peer;
    p->tag = tag;
    p->id = -1;
    p->part_bytes = fy_dtype_bytes(dt, count);
    int rc = MPI_SUCCESS;
    if (peer == MPI_PROC_NULL)
        goto out;
    if (send) {
        p->ready = calloc((size_t)partitions ? (size_t)partitions : 1, 1);
        p->setup_req = fy_req_new_p2p(FY_REQ_RECV, &p->setup, sizeof p->setup, byte_type(), peer,
                                      setup_tag(tag), comm, FY_CTX_COLL(comm), FY_MODE_STANDARD);
        if (!p->ready || !p->setup_req)
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        else
            rc = restart(p->setup_req);
        goto out;
    }
    int id = take_id();
    if (id < 0) {
        rc = fy_err_set(MPI_ERR_OTHER,
                        "%s: %d partitioned receives are alive in this process, the most Ferry "
                        "keeps at once",
                        fn, FY_PART_MAX_RECVS);
        goto out;
    }
    p->id = id;
    p->setup = (setup_t){.id = id,
                         .units = partitions,
                         .unit_bytes = (int64_t)p->part_bytes,
                         .total = (int64_t)(p->part_bytes * (size_t)partitions)};
    p->sub = calloc((size_t)partitions ? (size_t)partitions : 1, sizeof *p->sub);
    if (!p->sub) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto out;
    }
    p->units = partitions;
    MPI_Aint ext = dt->extent;
    for (int j = 0; j < partitions && rc == MPI_SUCCESS; j++) {
        p->sub[j] = fy_req_new_p2p(FY_REQ_RECV, p->buf + (MPI_Aint)j * (MPI_Aint)count * ext,
                                   (MPI_Aint)count, dt, peer, unit_tag(id, j), comm,
                                   FY_CTX_COLL(comm), FY_MODE_STANDARD);
        if (!p->sub[j])
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        else
            atomic_store(&p->sub[j]->done, true);
    }
    p->setup_req = rc == MPI_SUCCESS ? fy_req_new_p2p(FY_REQ_SEND, &p->setup, sizeof p->setup,
                                                      byte_type(), peer, setup_tag(tag), comm,
                                                      FY_CTX_COLL(comm), FY_MODE_STANDARD)
                                     : NULL;
    if (rc == MPI_SUCCESS && !p->setup_req)
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (rc == MPI_SUCCESS)
        rc = restart(p->setup_req);
out:
    if (rc != MPI_SUCCESS) {
        fy_part_free(r);
        return rc;
    }
    *r_p = r;
    return MPI_SUCCESS;
}

int fy_part_start(fy_req_t *r)
{
    fy_part_t *p = r->part;
    atomic_store_explicit(&r->done, false, memory_order_relaxed);
    r->error = MPI_SUCCESS;
    r->active = true;
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    p->active = true;
    p->first_pending = 0;
    list_add(p);
    if (p->peer == MPI_PROC_NULL)
        return MPI_SUCCESS; /* the progress pass completes it */
    if (!p->send) {
        for (int j = 0; j < p->units; j++) {
            int rc = restart(p->sub[j]);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        return MPI_SUCCESS;
    }
    memset(p->ready, 0, (size_t)p->parts);
    if (!p->units && fy_req_is_done(p->setup_req))
        return sender_catch_up(p);
    if (p->units)
        return send_round_start(p);
    return MPI_SUCCESS;
}

int fy_part_ready(const char *fn, fy_req_t *r, int lo, int hi, const int *list, int n)
{
    fy_part_t *p = r->part;
    if (!p->send)
        return fy_err_set(MPI_ERR_REQUEST, "%s: request 0x%x is a partitioned receive", fn,
                          (unsigned)r->handle);
    if (!p->active)
        return fy_err_set(MPI_ERR_REQUEST, "%s: request 0x%x is not active (MPI_Start it first)",
                          fn, (unsigned)r->handle);
    int count = list ? n : hi - lo + 1;
    /* Check every partition before marking any, so that an error changes nothing. */
    for (int k = 0; k < count; k++) {
        int i = list ? list[k] : lo + k;
        if (i < 0 || i >= p->parts)
            return fy_err_set(MPI_ERR_ARG, "%s: invalid partition %d (the request has %d)", fn, i,
                              p->parts);
        if (p->ready[i])
            return fy_err_set(MPI_ERR_ARG, "%s: partition %d is already ready in this round", fn,
                              i);
    }
    if (p->peer == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (!p->units && fy_req_is_done(p->setup_req)) {
        int rc = sender_catch_up(p);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    for (int k = 0; k < count; k++) {
        int rc = mark_ready(p, list ? list[k] : lo + k);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int fy_part_arrived(const char *fn, fy_req_t *r, int partition, int *flag)
{
    fy_part_t *p = r->part;
    if (p->send)
        return fy_err_set(MPI_ERR_REQUEST, "%s: request 0x%x is a partitioned send", fn,
                          (unsigned)r->handle);
    if (partition < 0 || partition >= p->parts)
        return fy_err_set(MPI_ERR_ARG, "%s: invalid partition %d (the request has %d)", fn,
                          partition, p->parts);
    if (!p->active || p->peer == MPI_PROC_NULL) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!fy_req_is_done(p->sub[partition]))
        fy_progress();
    *flag = fy_req_is_done(p->sub[partition]);
    return MPI_SUCCESS;
}

static void destroy(fy_part_t *p)
{
    fy_req_t *s = p->setup_req;
    if (s && !fy_req_is_done(s)) {
        /* A sender whose receiver never made its request: withdraw the setup receive. A
         * receiver's setup send needs only room in a ring; let it go out. */
        if (s->kind != FY_REQ_RECV || !fy_p2p_cancel_recv(s))
            fy_wait_req(s);
    }
    if (s)
        fy_req_free(s);
    free_subs(p);
    if (p->id >= 0)
        put_id(p->id);
    fy_dtype_release(p->dt);
    free(p->ready);
    free(p->missing);
    free(p->missing0);
    free(p->staging);
    free(p);
}

void fy_part_free(fy_req_t *r)
{
    fy_part_t *p = r->part;
    if (p->active) {
        r->user_freed = true; /* fy_part_progress frees both once the operation completes */
        return;
    }
    destroy(p);
    r->part = NULL;
    fy_req_free(r);
}

/* Every unit done: the user's request completes. */
static bool all_done(fy_part_t *p)
{
    if (p->peer == MPI_PROC_NULL)
        return true;
    if (p->send && !p->units)
        return p->error != MPI_SUCCESS; /* the layout failed: nothing will be sent */
    for (; p->first_pending < p->units; p->first_pending++)
        if (!fy_req_is_done(p->sub[p->first_pending]))
            return false;
    return true;
}

static void complete(fy_part_t *p)
{
    fy_req_t *r = p->req;
    list_remove(p);
    p->active = false;
    int err = p->send ? p->error : MPI_SUCCESS;
    size_t bytes = 0;
    for (int j = 0; j < p->units && p->peer != MPI_PROC_NULL; j++) {
        if (err == MPI_SUCCESS)
            err = p->sub[j]->error;
        bytes += fy_status_bytes(&p->sub[j]->status);
    }
    if (p->send || p->peer == MPI_PROC_NULL)
        fy_status_set(&r->status, MPI_PROC_NULL, MPI_ANY_TAG, 0, err);
    else
        fy_status_set(&r->status, p->peer, p->tag, bytes, err);
    r->error = err;
    if (r->user_freed) {
        destroy(p);
        r->part = NULL;
    }
    fy_req_complete(r);
}

int fy_part_progress(void)
{
    int n = 0;
    for (fy_part_t *p = active_head, *next; p; p = next) {
        next = p->next;
        if (p->send && !p->units && p->peer != MPI_PROC_NULL && fy_req_is_done(p->setup_req)) {
            int rc = sender_catch_up(p);
            if (rc != MPI_SUCCESS)
                p->error = fy_err_code_for_message(rc);
            n++;
        }
        if (all_done(p)) {
            complete(p);
            n++;
        }
    }
    return n;
}
