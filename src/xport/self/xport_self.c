/* The self transport: a record to our own rank is handed straight to the point-to-point
 * layer, and a rendezvous "remote read" is a memcpy within our own address space. */
#include <stdlib.h>
#include <string.h>

#include "fy_xport.h"

static int self_send(int dst, const fy_hdr_t *h, const void *payload, size_t len)
{
    (void)dst;
    (void)len;
    fy_xport_deliver(h, payload);
    return 0;
}

/* A packed payload needs a contiguous home for the length of the call: one buffer, grown to
 * the largest record seen (eager limit or stream fragment), reused. */
static int self_send_fill(int dst, const fy_hdr_t *h, size_t len, fy_xport_fill_fn fill, void *arg)
{
    static unsigned char *scratch;
    static size_t cap;
    if (len > cap) {
        unsigned char *n = realloc(scratch, len);
        if (!n)
            return FY_XPORT_AGAIN;
        scratch = n;
        cap = len;
    }
    if (len)
        fill(arg, scratch, len);
    (void)dst;
    fy_xport_deliver(h, scratch);
    return 0;
}

static int self_get(int src, uint64_t raddr, void *dst, size_t len)
{
    (void)src;
    memcpy(dst, (const void *)(uintptr_t)raddr, len);
    return 0;
}

static size_t self_max_payload(void)
{
    return (size_t)1 << 40;
}

const fy_xport_ops_t fy_xport_self = {
    .name = "self",
    .send = self_send,
    .send_fill = self_send_fill,
    .get = self_get,
    .max_payload = self_max_payload,
};
