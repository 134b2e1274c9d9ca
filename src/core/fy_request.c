/* The request pool: chunks of requests that are never returned to the system, a free list
 * threaded through `next`, and handles that index the chunk table directly. A chunk's requests
 * are made one at a time as they are first needed (fresh()), not all when the chunk comes:
 * threading all 1,024 requests (516 bytes each) through the free list touched the chunk's 129
 * pages in every rank at its first request, half the page faults of a 256-rank hello job. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "fy_handle.h"
#include "fy_request.h"

#define CHUNK_BITS 10
#define CHUNK (1u << CHUNK_BITS)
#define MAX_CHUNKS (1u << (FY_HINDEX_BITS - CHUNK_BITS))

void (*fy_req_wake_hook)(void);
static fy_req_t **chunks;
static unsigned nchunks;
static unsigned nslots; /* indexes below this have been made (have a handle) */
static fy_req_t *free_list;

static int grow(void)
{
    if (nchunks == MAX_CHUNKS)
        return -1;
    if (!chunks) {
        chunks = calloc(MAX_CHUNKS, sizeof *chunks);
        if (!chunks)
            return -1;
    }
    fy_req_t *c = calloc(CHUNK, sizeof *c);
    if (!c)
        return -1;
    chunks[nchunks] = c;
    if (nchunks == 0) {
        /* Index 0 of chunk 0 stays unused so that no live handle equals a *_NULL value. */
        c[0].kind = 0xff;
        nslots = 1;
    }
    nchunks++;
    return 0;
}

/* A request never handed out before: the next index, in a new chunk when the last is full. */
static fy_req_t *fresh(void)
{
    if (nslots == nchunks * CHUNK && grow() != 0)
        return NULL;
    unsigned i = nslots++;
    fy_req_t *r = &chunks[i >> CHUNK_BITS][i & (CHUNK - 1)];
    r->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_REQUEST, i);
    return r;
}

/* Clears what a new request must not inherit (everything before `status`) with plain vector
 * stores: gcc expands a memset of this size as `rep stosq`, whose start-up cost alone was 11 %
 * of the samples of an 8-byte ping-pong on the EPYC of Nov 2026 (about 30 ns per request). */
typedef unsigned char fy_zero32_t __attribute__((vector_size(32)));
static inline void zero_head(fy_req_t *r)
{
    enum { N = offsetof(fy_req_t, status), WHOLE = N / 32 * 32 };
    static const fy_zero32_t z;
    unsigned char *p = (unsigned char *)r;
    for (size_t i = 0; i < WHOLE; i += 32)
        memcpy(p + i, &z, 32);
    memset(p + WHOLE, 0, N - WHOLE);
}

fy_req_t *fy_req_alloc(fy_req_kind_t kind)
{
    fy_req_t *r = free_list;
    if (r)
        free_list = r->next;
    else if (!(r = fresh()))
        return NULL;
    int h = r->handle;
    zero_head(r);
    r->handle = h;
    r->kind = (uint8_t)kind;
    r->error = MPI_SUCCESS;
    return r;
}

void fy_req_free(fy_req_t *r)
{
    if (r->dt)
        fy_dtype_release(r->dt); /* a no-op for predefined types */
    r->kind = 0xff;
    r->next = free_list;
    free_list = r;
    fy_comm_t *c = r->comm;
    if (__builtin_expect(c != NULL && c->zombie, 0))
        fy_comm_zombie_check(c); /* the program freed c while this request named it */
}

void fy_req_child_done(fy_req_t *r)
{
    fy_req_t *p = r->parent;
    if (r->kind == FY_REQ_RECV) {
        int err = p->status.MPI_ERROR;
        p->status = r->status;
        p->status.MPI_ERROR = err;
    }
    if (r->error != MPI_SUCCESS && p->error == MPI_SUCCESS)
        p->error = r->error;
    fy_req_free(r);
    if (--p->pstate > 0)
        return;
    free(p->packed);
    p->packed = NULL;
    fy_req_complete(p);
}

fy_req_t *fy_req_get(MPI_Request h)
{
    if (fy_handle_kind(h) != FY_HKIND_DIRECT || fy_handle_class(h) != FY_HCLASS_REQUEST)
        return NULL;
    unsigned idx = fy_handle_index(h);
    if (idx >= nslots)
        return NULL;
    fy_req_t *r = &chunks[idx >> CHUNK_BITS][idx & (CHUNK - 1)];
    return r->kind == 0xff ? NULL : r;
}

void fy_req_pool_fini(void)
{
    for (unsigned i = 0; i < nchunks; i++)
        free(chunks[i]);
    free(chunks);
    chunks = NULL;
    nchunks = nslots = 0;
    free_list = NULL;
}

bool fy_req_names(const fy_comm_t *c)
{
    for (unsigned i = 1; i < nslots; i++) {
        const fy_req_t *r = &chunks[i >> CHUNK_BITS][i & (CHUNK - 1)];
        if (r->kind != 0xff && r->comm == c)
            return true;
    }
    return false;
}

bool fy_req_pending_on(const fy_comm_t *c)
{
    for (unsigned i = 1; i < nslots; i++) {
        const fy_req_t *r = &chunks[i >> CHUNK_BITS][i & (CHUNK - 1)];
        if (r->kind != 0xff && r->kind != FY_REQ_UNEXP && r->comm == c && !fy_req_is_done(r))
            return true;
    }
    return false;
}
