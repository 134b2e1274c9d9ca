/* Buffered sends (fy_bsend.h): the message is copied into the buffer of its communicator,
 * session or process, and an internal request sends it from there while the user's request
 * completes at once.
 *
 * A buffer keeps a table of the messages in it: for the user's memory sorted by offset, which
 * first fit walks; for an automatic buffer, the malloc'd copies in any order. Each message gets
 * an increasing id, so a flush waits only for the messages that were there when it began (ids
 * below its mark), even while new ones keep coming. */
#include <stdlib.h>
#include <string.h>

#include "fy_bsend.h"
#include "fy_err.h"
#include "fy_p2p.h"
#include "fy_runtime.h"

/* Written at the start of each message's space; the packed data follow. Within the
 * MPI_BSEND_OVERHEAD a user's buffer reserves per message. */
typedef struct {
    fy_bsend_buf_t *owner;
    uint64_t id;
} msg_hdr_t;
_Static_assert(sizeof(msg_hdr_t) <= MPI_BSEND_OVERHEAD, "header within MPI_BSEND_OVERHEAD");

typedef struct {
    size_t off, len; /* user memory: offset and bytes reserved; automatic: address, 0 */
    uint64_t id;
} region_t;

typedef struct {
    fy_req_t *req;
    uint64_t mark; /* complete once no message with a smaller id is left */
} flush_t;

struct fy_bsend_buf {
    char *base; /* NULL: automatic */
    size_t size;
    region_t *used;
    int nused, capused;
    uint64_t next_id;
    flush_t *flushes;
    int nflush, capflush;
    bool orphan; /* its communicator was freed: freed with its last message */
};

fy_bsend_buf_t *fy_bsend_process;

static void free_buf(fy_bsend_buf_t *b)
{
    free(b->used);
    free(b->flushes);
    free(b);
}

int fy_bsend_attach(const char *fn, fy_bsend_buf_t **owner, void *buf, MPI_Count size)
{
    if (*owner)
        return fy_err_set(MPI_ERR_BUFFER, "%s: a buffer is already attached (detach it first)",
                          fn);
    fy_bsend_buf_t *b = calloc(1, sizeof *b);
    if (!b)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    if (buf != MPI_BUFFER_AUTOMATIC) {
        b->base = buf;
        b->size = (size_t)size;
    }
    *owner = b;
    return MPI_SUCCESS;
}

/* Whether every message below the mark has been sent. */
static bool flushed(const fy_bsend_buf_t *b, uint64_t mark)
{
    for (int i = 0; i < b->nused; i++)
        if (b->used[i].id < mark)
            return false;
    return true;
}

typedef struct {
    const fy_bsend_buf_t *b;
    uint64_t mark;
} wait_t;

static bool wait_done(void *arg)
{
    const wait_t *w = arg;
    return flushed(w->b, w->mark);
}

int fy_bsend_flush(const char *fn, fy_bsend_buf_t *b)
{
    (void)fn;
    if (b) {
        wait_t w = {b, b->next_id};
        fy_wait_until(wait_done, &w);
    }
    return MPI_SUCCESS;
}

int fy_bsend_iflush(const char *fn, fy_bsend_buf_t *b, fy_req_t **req_p)
{
    fy_req_t *r = fy_req_alloc(FY_REQ_COLL);
    if (!r)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for a request", fn);
    fy_status_set(&r->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, MPI_SUCCESS);
    if (!b || flushed(b, b->next_id)) {
        fy_req_complete(r);
        *req_p = r;
        return MPI_SUCCESS;
    }
    if (b->nflush == b->capflush) {
        int ncap = b->capflush ? b->capflush * 2 : 4;
        flush_t *n = realloc(b->flushes, sizeof *n * (size_t)ncap);
        if (!n) {
            fy_req_free(r);
            return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        }
        b->flushes = n;
        b->capflush = ncap;
    }
    b->flushes[b->nflush++] = (flush_t){r, b->next_id};
    *req_p = r;
    return MPI_SUCCESS;
}

int fy_bsend_detach(const char *fn, fy_bsend_buf_t **owner, void *buf_p, MPI_Count *size_p)
{
    fy_bsend_buf_t *b = *owner;
    if (!b) {
        *(void **)buf_p = NULL;
        *size_p = 0;
        return MPI_SUCCESS;
    }
    fy_bsend_flush(fn, b); /* the flushes waiting on it complete on the way */
    *(void **)buf_p = b->base ? (void *)b->base : MPI_BUFFER_AUTOMATIC;
    *size_p = (MPI_Count)b->size;
    *owner = NULL;
    free_buf(b);
    return MPI_SUCCESS;
}

void fy_bsend_comm_freed(fy_comm_t *c)
{
    fy_bsend_buf_t *b = c->bsend;
    c->bsend = NULL;
    if (b->nused == 0)
        free_buf(b);
    else
        b->orphan = true;
}

void fy_bsend_fini(void)
{
    if (fy_bsend_process) {
        free_buf(fy_bsend_process);
        fy_bsend_process = NULL;
    }
}

/* Room for len bytes plus the overhead in the user's memory: the offset, or -1. */
static long reserve(fy_bsend_buf_t *b, size_t len, int *at_index)
{
    size_t need = len + MPI_BSEND_OVERHEAD, at = 0;
    int i = 0;
    for (; i < b->nused; i++) {
        if (b->used[i].off - at >= need)
            break;
        at = b->used[i].off + b->used[i].len;
    }
    if (i == b->nused && (at > b->size || b->size - at < need))
        return -1;
    *at_index = i;
    return (long)at;
}

static bool grow_table(fy_bsend_buf_t *b)
{
    if (b->nused < b->capused)
        return true;
    int ncap = b->capused ? b->capused * 2 : 16;
    region_t *n = realloc(b->used, sizeof *n * (size_t)ncap);
    if (!n)
        return false;
    b->used = n;
    b->capused = ncap;
    return true;
}

void fy_bsend_release(fy_req_t *r)
{
    char *start = (char *)r->packed - sizeof(msg_hdr_t);
    msg_hdr_t h;
    memcpy(&h, start, sizeof h); /* the user's memory need not be aligned */
    fy_bsend_buf_t *b = h.owner;
    size_t key = b->base ? (size_t)(start - b->base) : (size_t)(uintptr_t)start;
    for (int i = 0; i < b->nused; i++)
        if (b->used[i].id == h.id && b->used[i].off == key) {
            memmove(&b->used[i], &b->used[i + 1], sizeof *b->used * (size_t)(b->nused - i - 1));
            b->nused--;
            break;
        }
    if (!b->base)
        free(start);
    r->packed = NULL;
    for (int i = 0; i < b->nflush;)
        if (flushed(b, b->flushes[i].mark)) {
            fy_req_complete(b->flushes[i].req);
            b->flushes[i] = b->flushes[--b->nflush];
        } else {
            i++;
        }
    if (b->orphan && b->nused == 0)
        free_buf(b);
    fy_comm_release(r->comm); /* last: it may free the communicator and its buffer */
}

static fy_bsend_buf_t *pick(const fy_comm_t *c)
{
    if (c->bsend)
        return c->bsend;
    if (c->bsend_session && *c->bsend_session)
        return *c->bsend_session;
    return fy_bsend_process;
}

/* Space for a message of `bytes`: its start (the header goes there), or NULL. */
static char *take(fy_bsend_buf_t *b, size_t bytes)
{
    if (!grow_table(b))
        return NULL;
    if (!b->base) {
        char *p = malloc(sizeof(msg_hdr_t) + bytes);
        if (p)
            b->used[b->nused++] = (region_t){(size_t)(uintptr_t)p, 0, b->next_id};
        return p;
    }
    int i;
    long off = reserve(b, bytes, &i);
    if (off < 0) {
        fy_progress(); /* earlier buffered sends may just have finished */
        off = reserve(b, bytes, &i);
    }
    if (off < 0)
        return NULL;
    memmove(&b->used[i + 1], &b->used[i], sizeof *b->used * (size_t)(b->nused - i));
    b->used[i] = (region_t){(size_t)off, bytes + MPI_BSEND_OVERHEAD, b->next_id};
    b->nused++;
    return b->base + off;
}

int fy_bsend_start(fy_req_t *user)
{
    fy_bsend_buf_t *b = pick(user->comm);
    size_t bytes = fy_dtype_bytes(user->dt, user->count);
    if (!b)
        return fy_err_set(MPI_ERR_BUFFER,
                          "MPI_Bsend: no buffer is attached for buffered sends on %s "
                          "(MPI_Buffer_attach or MPI_Comm_attach_buffer)",
                          user->comm->name);
    fy_req_t *r = fy_req_alloc(FY_REQ_SEND);
    if (!r)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Bsend: out of memory for a request");
    char *start = take(b, bytes);
    if (!start) {
        fy_req_free(r);
        if (!b->base)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Bsend: out of memory for a copy of %zu bytes",
                              bytes);
        return fy_err_set(MPI_ERR_BUFFER,
                          "MPI_Bsend: the attached buffer (%zu bytes) has no room for %zu bytes "
                          "plus MPI_BSEND_OVERHEAD",
                          b->size, bytes);
    }
    msg_hdr_t h = {b, b->next_id++};
    memcpy(start, &h, sizeof h);
    int handle = r->handle;
    *r = *user;
    r->handle = handle;
    fy_dtype_ref(r->dt); /* each request releases its own reference when freed */
    /* MPI_Comm_free while it is in flight must not pull the communicator away (world and self
     * are never freed, and fy_comm_release does not count them). */
    if (r->comm->handle != MPI_COMM_WORLD && r->comm->handle != MPI_COMM_SELF)
        r->comm->refs++;
    r->persistent = false;
    r->internal = true;
    r->packed = start + sizeof h;
    fy_dtype_pack(user->dt, user->buf, user->count, r->packed);
    int rc = fy_p2p_isend(r);
    if (rc != MPI_SUCCESS)
        return rc;
    user->pstate = 0;
    fy_req_complete(user);
    return MPI_SUCCESS;
}
