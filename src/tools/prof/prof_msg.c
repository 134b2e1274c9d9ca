/* Point-to-point messages: sizes, peers as world ranks, the communication matrix, and the
 * receives posted with MPI_Irecv (and friends) followed to the Wait or Test that completes
 * them, where the status gives the source, tag and size of what arrived.
 *
 * Requests are followed in a table keyed by handle (open addressing, REQ_SLOTS entries); a
 * program with more receives outstanding at once than that has the extra ones counted as
 * untracked (a note in the profile) rather than slow down every call. */
#include "prof.h"

#include <stdio.h>
#include <stdlib.h>

uint64_t *prof_mat_bytes, *prof_mat_msgs;

uint64_t prof_tsize_slow(MPI_Datatype t)
{
    MPI_Count n = 0;
    if (t == MPI_DATATYPE_NULL || PMPI_Type_size_c(t, &n) != MPI_SUCCESS || n < 0)
        return 0;
    return (uint64_t)n;
}

uint64_t prof_sum_i(const int *a, int n)
{
    uint64_t s = 0;
    for (int i = 0; a != NULL && i < n; i++)
        s += a[i] > 0 ? (uint64_t)a[i] : 0;
    return s;
}

uint64_t prof_sum_c(const MPI_Count *a, int n)
{
    uint64_t s = 0;
    for (int i = 0; a != NULL && i < n; i++)
        s += a[i] > 0 ? (uint64_t)a[i] : 0;
    return s;
}

uint64_t prof_wsum_i(const int *a, const MPI_Datatype *t, int n)
{
    uint64_t s = 0;
    for (int i = 0; a != NULL && t != NULL && i < n; i++)
        if (a[i] > 0)
            s += (uint64_t)a[i] * prof_tsize(t[i]);
    return s;
}

uint64_t prof_wsum_c(const MPI_Count *a, const MPI_Datatype *t, int n)
{
    uint64_t s = 0;
    for (int i = 0; a != NULL && t != NULL && i < n; i++)
        if (a[i] > 0)
            s += (uint64_t)a[i] * prof_tsize(t[i]);
    return s;
}

void prof_matrix_add(int world_dest, uint64_t bytes)
{
    if (world_dest < 0 || world_dest >= prof_g.size || prof_mat_bytes == NULL)
        return;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    prof_mat_bytes[world_dest] += bytes;
    prof_mat_msgs[world_dest]++;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
}

static void live_add(_Atomic uint64_t *a, uint64_t v)
{
    atomic_store_explicit(a, atomic_load_explicit(a, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

static void send_event(prof_frame_t *f, const prof_comm_t *pc, int wd, int tag, uint64_t bytes,
                       int nb)
{
    f->bytes += bytes;
    f->counted = true;
    prof_matrix_add(wd, bytes);
    live_add(&prof_live.msgs_sent, 1);
    live_add(&prof_live.bytes_sent, bytes);
    if (f->rec) {
        fyt_msg_t m = {.h = {.type = FYT_SEND, .flags = nb ? FYT_MSG_NONBLOCKING : 0,
                             .len8 = sizeof m / 8, .id = (uint32_t)f->id},
                       .t = f->t0, .peer = wd, .tag = tag, .comm = pc->idx, .bytes = bytes};
        prof_put(&m, sizeof m, false);
    }
}

void prof_send_rec(prof_frame_t *f, uint64_t bytes, int dest, int tag, MPI_Comm comm, int nb)
{
    prof_comm_t *pc = prof_comm_get(comm);
    send_event(f, pc, prof_world_of(pc, dest), tag, bytes, nb);
}

void prof_recv(prof_frame_t *f, const MPI_Status *st, prof_comm_t *pc, int nb)
{
    if (!f->t0 || st == NULL || st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
        return;
    uint64_t n = prof_status_bytes(st);
    f->bytes += n;
    f->counted = true;
    live_add(&prof_live.msgs_recv, 1);
    live_add(&prof_live.bytes_recv, n);
    if (f->rec) {
        fyt_msg_t m = {.h = {.type = FYT_RECV, .flags = nb ? FYT_MSG_NONBLOCKING : 0,
                             .len8 = sizeof m / 8, .id = (uint32_t)f->id},
                       .t = f->t1, .peer = prof_world_of(pc, st->MPI_SOURCE), .tag = st->MPI_TAG,
                       .comm = pc ? pc->idx : 0, .bytes = n};
        prof_put(&m, sizeof m, true);
    }
}

/* ---- Requests followed to their completion ---- */
enum { REQ_RECV = 1, REQ_PSEND = 2, REQ_IDUP = 3 };
typedef struct preq {
    MPI_Request h;
    uint8_t kind;
    uint8_t persistent;
    int16_t id;
    int dest_world, tag;
    prof_comm_t *pc;
    uint64_t bytes;      /* REQ_IDUP: the new communicator's id */
    MPI_Comm *newcomm;   /* REQ_IDUP: where the handle will be (valid until completion) */
} preq_t;

#define REQ_SLOTS 16384
static preq_t req[REQ_SLOTS];
int prof_nreq;

static size_t rhash(MPI_Request r)
{
    return ((uint32_t)r * 2654435761u) & (REQ_SLOTS - 1);
}

static void req_put(const preq_t *e)
{
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    if (prof_nreq >= REQ_SLOTS / 2) {
        prof_g.nwarn_req++;
    } else {
        size_t i = rhash(e->h);
        while (req[i].kind != 0 && req[i].h != e->h)
            i = (i + 1) & (REQ_SLOTS - 1);
        if (req[i].kind == 0)
            prof_nreq++;
        req[i] = *e;
    }
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
}

/* The entry of r (copied out), removed unless `keep` and it is persistent. false: none. */
static bool req_get(MPI_Request r, preq_t *out, bool keep)
{
    bool found = false;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    size_t i = rhash(r);
    while (req[i].kind != 0 && req[i].h != r)
        i = (i + 1) & (REQ_SLOTS - 1);
    if (req[i].kind != 0) {
        found = true;
        *out = req[i];
        if (!(keep && req[i].persistent)) {
            req[i].kind = 0;
            prof_nreq--;
            for (size_t j = (i + 1) & (REQ_SLOTS - 1); req[j].kind != 0;
                 j = (j + 1) & (REQ_SLOTS - 1)) {
                preq_t m = req[j];
                req[j].kind = 0;
                size_t k = rhash(m.h);
                while (req[k].kind != 0)
                    k = (k + 1) & (REQ_SLOTS - 1);
                req[k] = m;
            }
        }
    }
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    return found;
}

void prof_req_recv(MPI_Request r, prof_comm_t *pc, int id, int persistent)
{
    if (r == MPI_REQUEST_NULL || !atomic_load_explicit(&prof_g.on, memory_order_relaxed))
        return;
    preq_t e = {.h = r, .kind = REQ_RECV, .persistent = (uint8_t)persistent, .id = (int16_t)id,
                .pc = pc};
    req_put(&e);
}

void prof_req_idup(MPI_Request r, MPI_Comm *newcomm, uint64_t uid)
{
    if (r == MPI_REQUEST_NULL)
        return;
    preq_t e = {.h = r, .kind = REQ_IDUP, .bytes = uid, .newcomm = newcomm};
    req_put(&e);
}

void prof_req_psend(MPI_Request r, MPI_Count count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm)
{
    if (r == MPI_REQUEST_NULL || dest == MPI_PROC_NULL ||
        !atomic_load_explicit(&prof_g.on, memory_order_relaxed))
        return;
    prof_comm_t *pc = prof_comm_get(comm);
    preq_t e = {.h = r, .kind = REQ_PSEND, .persistent = 1, .pc = pc,
                .dest_world = prof_world_of(pc, dest), .tag = tag,
                .bytes = (uint64_t)count * prof_tsize(type)};
    req_put(&e);
}

/* A request completed in the call of frame f, with status st (of a receive). */
void prof_req_done(prof_frame_t *f, MPI_Request r, const MPI_Status *st)
{
    preq_t e;
    if (r == MPI_REQUEST_NULL || !req_get(r, &e, true))
        return;
    if (e.kind == REQ_IDUP) {
        prof_comm_idup_done(*e.newcomm, e.bytes);
        return;
    }
    if (e.kind != REQ_RECV || st == NULL)
        return;
    if (!prof_status_cancelled(st))
        prof_recv(f, st, e.pc, 1);
}

/* MPI_Start of a persistent send: its message is posted now. */
void prof_req_started(prof_frame_t *f, MPI_Request r)
{
    preq_t e;
    if (!f->t0 || r == MPI_REQUEST_NULL || !req_get(r, &e, true) || e.kind != REQ_PSEND)
        return;
    send_event(f, e.pc, e.dest_world, e.tag, e.bytes, 1);
}

void prof_req_forget(MPI_Request r)
{
    preq_t e;
    if (r != MPI_REQUEST_NULL)
        req_get(r, &e, false);
}

/* ---- Matched probes: the message's communicator until it is received ---- */
#define MSG_SLOTS 64
static struct {
    MPI_Message m;
    prof_comm_t *pc;
} msgs[MSG_SLOTS];

void prof_msg_track(MPI_Message m, MPI_Comm comm)
{
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return;
    prof_comm_t *pc = prof_comm_get(comm);
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    int free_at = -1;
    for (int i = 0; i < MSG_SLOTS; i++)
        if (msgs[i].pc == NULL && free_at < 0)
            free_at = i;
    if (free_at < 0)
        free_at = (int)((unsigned)m % MSG_SLOTS);
    msgs[free_at].m = m;
    msgs[free_at].pc = pc;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
}

prof_comm_t *prof_msg_take(MPI_Message m)
{
    prof_comm_t *pc = NULL;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    for (int i = 0; i < MSG_SLOTS; i++)
        if (msgs[i].pc != NULL && msgs[i].m == m) {
            pc = msgs[i].pc;
            msgs[i].pc = NULL;
            break;
        }
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    return pc ? pc : prof_comm_get(MPI_COMM_WORLD);
}

/* ---- Bytes by size ---- */
static int bucket_of(uint64_t b)
{
    if (b == 0)
        return 0;
    if (b <= 64)
        return 1;
    int k = 64 - __builtin_clzll(b - 1) - 5; /* (2^(k+4), 2^(k+5)] */
    return k < PROF_NBUCKETS ? k : PROF_NBUCKETS - 1;
}

void prof_leave_bytes(prof_frame_t *f, uint64_t d)
{
    (void)d;
    prof_stats[f->id].bytes += f->bytes;
    if (prof_buckets != NULL) {
        prof_bucket_t *b = &prof_buckets[f->id][bucket_of(f->bytes)];
        b->count++;
        b->bytes += f->bytes;
    }
}
