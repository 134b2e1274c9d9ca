/* Buffered sends: the message is copied into the buffer the user attached, and an internal
 * request sends it from there while the user's request completes at once.
 *
 * The attached buffer is managed first-fit through a small sorted table of the regions in
 * use (allocated outside the buffer); MPI_BSEND_OVERHEAD stays unused headroom per message. */
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_p2p.h"
#include "fy_runtime.h"

typedef struct {
    size_t off, len;
} region_t;

static char *buf_base;
static size_t buf_size;
static region_t *used;
static int nused, capused;

int fy_bsend_attach(void *buf, size_t size)
{
    if (buf_base)
        return fy_err_set(MPI_ERR_BUFFER, "MPI_Buffer_attach: a buffer is already attached");
    buf_base = buf;
    buf_size = size;
    return MPI_SUCCESS;
}

static bool none_used(void *arg)
{
    (void)arg;
    return nused == 0;
}

int fy_bsend_detach(void *buf_p, MPI_Count *size)
{
    fy_wait_until(none_used, NULL);
    *(void **)buf_p = buf_base;
    *size = (MPI_Count)buf_size;
    buf_base = NULL;
    buf_size = 0;
    free(used);
    used = NULL;
    nused = capused = 0;
    return MPI_SUCCESS;
}

static long reserve(size_t len)
{
    size_t need = len + MPI_BSEND_OVERHEAD, at = 0;
    int i = 0;
    for (; i < nused; i++) {
        if (used[i].off - at >= need)
            break;
        at = used[i].off + used[i].len;
    }
    if (i == nused && buf_size - at < need)
        return -1;
    if (nused == capused) {
        int ncap = capused ? capused * 2 : 16;
        region_t *n = realloc(used, sizeof *n * (size_t)ncap);
        if (!n)
            return -1;
        used = n;
        capused = ncap;
    }
    memmove(&used[i + 1], &used[i], sizeof *used * (size_t)(nused - i));
    used[i] = (region_t){at, need};
    nused++;
    return (long)at;
}

static void release_at(size_t off)
{
    for (int i = 0; i < nused; i++)
        if (used[i].off == off) {
            memmove(&used[i], &used[i + 1], sizeof *used * (size_t)(nused - i - 1));
            nused--;
            return;
        }
}

void fy_bsend_release(fy_req_t *r)
{
    release_at((size_t)((char *)r->packed - buf_base));
}

int fy_bsend_start(fy_req_t *user)
{
    size_t bytes = fy_dtype_bytes(user->dt, user->count);
    long off = reserve(bytes);
    if (off < 0) {
        fy_progress(); /* earlier buffered sends may just have finished */
        off = reserve(bytes);
    }
    if (off < 0)
        return fy_err_set(MPI_ERR_BUFFER,
                          "MPI_Bsend: the attached buffer (%zu bytes) has no room for %zu bytes "
                          "plus MPI_BSEND_OVERHEAD",
                          buf_size, bytes);
    fy_req_t *r = fy_req_alloc(FY_REQ_SEND);
    if (!r) {
        release_at((size_t)off);
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Bsend: out of memory for a request");
    }
    int handle = r->handle;
    *r = *user;
    r->handle = handle;
    fy_dtype_ref(r->dt); /* each request releases its own reference when freed */
    r->persistent = false;
    r->internal = true;
    r->packed = buf_base + off;
    fy_dtype_pack(user->dt, user->buf, user->count, r->packed);
    int rc = fy_p2p_isend(r);
    if (rc != MPI_SUCCESS)
        return rc;
    user->pstate = 0;
    fy_req_complete(user);
    return MPI_SUCCESS;
}
