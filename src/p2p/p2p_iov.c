/* Large non-contiguous sends read by the receiver alone: the sender publishes where the bytes
 * of one element of its type lie (a run table: offsets and lengths, in packing order), and
 * the receiver reads the whole message with process_vm_readv from a remote iovec it builds
 * from that table, element after element. The sender does nothing but wait for FIN, so the
 * message moves when only the receiver runs, like a contiguous one.
 *
 * Tables are built once per type and kept in a small cache that holds a reference to the
 * type (so it cannot be freed and its address reused while cached) and counts the messages
 * in flight that use each table (an entry in use is never evicted). Types whose runs are many
 * or short are not worth it: remote reads of tiny pieces are slower than packing, so those
 * messages stream (FY_MSGF_STREAM), as they did before. */
#include <stdlib.h>
#include <sys/uio.h>

#include "fy_p2p_stats.h"
#include "fy_runtime.h"
#include "p2p_internal.h"

enum { IOV_CACHE = 8, IOV_MAX_RUNS = 4096, IOV_MIN_AVG_RUN = 1024, IOV_BATCH = 1024 };

/* Entry 0 of a table: {extent, number of runs}; then the runs, offsets from the element's
 * origin. The receiver reads it with one remote read. */
typedef struct iorun {
    int64_t off;
    uint64_t len;
} iorun_t;

typedef struct iov_entry {
    const fy_dtype_t *d;
    iorun_t *tab; /* NULL: not worth it for this type */
    int inflight;
} iov_entry_t;

static iov_entry_t cache[IOV_CACHE];
static unsigned next_victim;

typedef struct build {
    iorun_t *tab;
    int n, cap;
    const char *base;
} build_t;

static int add_run(void *arg, fy_basic_t kind, char *addr, MPI_Count n)
{
    build_t *b = arg;
    uint64_t len = fy_basic_size(kind) * (uint64_t)n;
    int64_t off = addr - b->base;
    if (b->n > 1 && b->tab[b->n - 1].off + (int64_t)b->tab[b->n - 1].len == off) {
        b->tab[b->n - 1].len += len; /* adjacent: one run */
        return 0;
    }
    if (b->n > IOV_MAX_RUNS)
        return 1;
    if (b->n == b->cap) {
        int cap = b->cap ? 2 * b->cap : 16;
        iorun_t *t = realloc(b->tab, (size_t)cap * sizeof *t);
        if (!t)
            return 1;
        b->tab = t;
        b->cap = cap;
    }
    b->tab[b->n++] = (iorun_t){off, len};
    return 0;
}

static iorun_t *build_table(const fy_dtype_t *d)
{
    static const char origin[1];
    build_t b = {malloc(16 * sizeof(iorun_t)), 1, 16, origin}; /* entry 0 filled last */
    if (!b.tab)
        return NULL;
    if (fy_dtype_walk(d, origin, 1, add_run, &b) != 0 || b.n < 2 ||
        (size_t)d->size / (size_t)(b.n - 1) < IOV_MIN_AVG_RUN) {
        free(b.tab);
        return NULL;
    }
    b.tab[0] = (iorun_t){(int64_t)d->extent, (uint64_t)(b.n - 1)};
    return b.tab;
}

void fy_p2p_iov_offer(fy_req_t *r, fy_hdr_t *h)
{
    if (!(r->hdr.flags & FY_MSGF_IOV)) {
        if (fy_rndv_mode == FY_RNDV_STREAM || fy_peers[r->world_peer].ops != &fy_xport_shm ||
            !fy_shm_cma_usable())
            return;
        int i = 0;
        while (i < IOV_CACHE && cache[i].d != r->dt)
            i++;
        if (i == IOV_CACHE) { /* not cached: replace an idle entry */
            for (int k = 0; k < IOV_CACHE && i == IOV_CACHE; k++) {
                unsigned v = (next_victim + (unsigned)k) % IOV_CACHE;
                if (cache[v].inflight == 0)
                    i = (int)v;
            }
            if (i == IOV_CACHE)
                return;
            next_victim = (unsigned)i + 1;
            if (cache[i].d) {
                free(cache[i].tab);
                fy_dtype_release(cache[i].d);
            }
            fy_dtype_ref(r->dt);
            cache[i].d = r->dt;
            cache[i].tab = build_table(r->dt);
        }
        if (!cache[i].tab)
            return;
        cache[i].inflight++;
        r->hdr.flags = FY_MSGF_IOV;
        r->hdr.frag = (uint32_t)i;
    }
    iov_entry_t *e = &cache[r->hdr.frag];
    h->flags |= FY_MSGF_IOV;
    h->frag = (uint32_t)(e->tab[0].len + 1); /* table entries, entry 0 included */
    h->addr = (uint64_t)(uintptr_t)e->tab;
    h->rreq = (uint64_t)(uintptr_t)r->buf; /* in an RTS, the origin of the first element */
}

void fy_p2p_iov_release(fy_req_t *r)
{
    cache[r->hdr.frag].inflight--;
    r->hdr.flags = 0;
}

void fy_p2p_iov_fini(void)
{
    for (int i = 0; i < IOV_CACHE; i++) {
        if (cache[i].d) {
            free(cache[i].tab);
            fy_dtype_release(cache[i].d);
        }
        cache[i] = (iov_entry_t){0};
    }
}

/* The receiver: the sender's table, then the message in batches of remote pieces. */
int fy_p2p_iov_pull(fy_req_t *r, const fy_hdr_t *h)
{
    static iorun_t *tab;
    static size_t tab_cap;
    static struct iovec riov[IOV_BATCH];
    size_t nt = h->frag;
    if (nt > tab_cap) {
        iorun_t *t = realloc(tab, nt * sizeof *t);
        if (!t)
            return FY_XPORT_NOTSUP;
        tab = t;
        tab_cap = nt;
    }
    int rc = fy_peers[h->world_src].ops->get(h->world_src, h->addr, tab, nt * sizeof *tab);
    if (rc != 0)
        return rc;
    int64_t extent = tab[0].off;
    char *dst = (char *)r->buf + r->dt->lb;
    fy_busy_t busy = fy_p2p_busy_begin(h->len);
    uint64_t base = h->rreq, left = h->len, at = 0;
    int n = 0;
    for (uint64_t e = 0; left > 0; e++)
        for (size_t j = 1; j < nt && left > 0; j++) {
            uint64_t k = tab[j].len < left ? tab[j].len : left;
            int64_t at_elem = (int64_t)e * extent + tab[j].off;
            riov[n].iov_base = (void *)(uintptr_t)(base + (uint64_t)at_elem);
            riov[n].iov_len = k;
            left -= k;
            if (++n == IOV_BATCH || left == 0) {
                size_t bytes = 0;
                for (int q = 0; q < n; q++)
                    bytes += riov[q].iov_len;
                rc = fy_shm_getv(h->world_src, riov, n, dst + at, bytes);
                if (rc != 0) {
                    fy_p2p_busy_end(busy);
                    return rc;
                }
                at += bytes;
                n = 0;
            }
        }
    fy_p2p_busy_end(busy);
    fy_p2p_stats.rndv_pulled += h->len;
    return 0;
}
