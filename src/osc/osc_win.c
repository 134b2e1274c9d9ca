/* Windows: the table of live windows, creation of every flavour, how each target is reached
 * (fy_osc.h), and freeing.
 *
 * Creation exchanges one record per rank (allgather on the window's private communicator).
 * The lowest window rank of each host then makes the host's shared file (a memfd): the
 * metadata of the host's ranks and, for Win_allocate and Win_allocate_shared, their data; a
 * second exchange tells the others its descriptor number, and they open it through
 * /proc/<pid>/fd (or pidfd_getfd) and map it. The maker keeps its descriptor until the window
 * is freed, so late openers always find it; nothing is named in /dev/shm, so nothing can be
 * left behind by a crash. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_errhandler.h"
#include "fy_attr.h"
#include "fy_handle.h"
#include "fy_info.h"
#include "fy_knobs.h"
#include "fy_mem.h"
#include "fy_osc.h"
#include "fy_runtime.h"
#include "fy_xport.h"

#define PAGE 4096u

fy_win_t **fy_win_table;
unsigned fy_win_table_cap;
_Static_assert(FY_HKIND_DIRECT == 2 && FY_HCLASS_WIN == 0x8, "fy_win_get's handle test");

static int table_add(fy_win_t *w)
{
    unsigned i = 0;
    while (i < fy_win_table_cap && fy_win_table[i])
        i++;
    if (i == fy_win_table_cap) {
        unsigned cap = fy_win_table_cap ? fy_win_table_cap * 2 : 16;
        fy_win_t **t = realloc(fy_win_table, cap * sizeof *t);
        if (!t)
            return MPI_ERR_NO_MEM;
        memset(t + fy_win_table_cap, 0, (cap - fy_win_table_cap) * sizeof *t);
        fy_win_table = t;
        fy_win_table_cap = cap;
    }
    fy_win_table[i] = w;
    w->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_WIN, i);
    return MPI_SUCCESS;
}

void *fy_win_scratch(fy_win_t *w, int k, size_t len)
{
    if (w->scratch_len[k] < len) {
        size_t want = len < 4096 ? 4096 : len;
        void *p = realloc(w->scratch[k], want);
        if (!p)
            return NULL;
        w->scratch[k] = p;
        w->scratch_len[k] = want;
    }
    return w->scratch[k];
}

const char *fy_win_text(const fy_win_t *w)
{
    static _Thread_local char buf[MPI_MAX_OBJECT_NAME + 32];
    if (w->name[0])
        snprintf(buf, sizeof buf, "window \"%s\"", w->name);
    else
        snprintf(buf, sizeof buf, "window 0x%x", (unsigned)w->handle);
    return buf;
}

/* What each rank tells the others at creation. */
typedef struct {
    uint64_t base;
    int64_t size, disp_unit;
    int32_t pid, world;
    int32_t memfd; /* Win_create over Alloc_mem memory: the file holding it, else -1 */
    int32_t flags; /* 1: alloc_shared_noncontig asked */
    uint64_t memoff;
} rec_t;

static int open_peer_fd(int pid, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    int f = open(path, O_RDWR | O_CLOEXEC);
    if (f >= 0)
        return f;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd >= 0) {
        f = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
        close(pfd);
    }
#endif
    return f;
}

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) / a * a;
}

/* Parses the hints the window acts on. */
static bool info_true(fy_info_t *in, const char *key)
{
    int k = in ? fy_info_find(in, key) : -1;
    return k >= 0 && strcmp(in->kv[k].value, "true") == 0;
}

static void read_hints(fy_win_t *w)
{
    fy_info_t *in = w->info;
    w->no_locks = info_true(in, "no_locks");
    w->same_size = info_true(in, "same_size");
    w->same_disp_unit = info_true(in, "same_disp_unit");
    int k = in ? fy_info_find(in, "accumulate_ordering") : -1;
    w->acc_ordering_none = k >= 0 && strcmp(in->kv[k].value, "none") == 0;
    k = in ? fy_info_find(in, "accumulate_ops") : -1;
    w->acc_ops = k >= 0 && strcmp(in->kv[k].value, "same_op") == 0;
}

/* Whether CMA to pid works: one byte read from its window (a window of 0 bytes is never
 * accessed, so it needs no test). */
static bool cma_works(int pid, uint64_t addr, int64_t size)
{
    if (size <= 0)
        return true;
    char c;
    struct iovec l = {&c, 1}, r = {(void *)(uintptr_t)addr, 1};
    return process_vm_readv(pid, &l, 1, &r, 1, 0) == 1;
}

static void win_release(fy_win_t *w)
{
    if (w->am)
        fy_osc_am_fini(w);
    if (w->peer_map)
        for (int r = 0; r < w->size; r++)
            if (w->peer_map[r])
                munmap(w->peer_map[r], w->peer_map_len[r]);
    free(w->peer_map);
    free(w->peer_map_len);
    if (w->seg_map)
        munmap(w->seg_map, w->seg_len);
    if (w->meta_map)
        munmap(w->meta_map, w->meta_len);
    if (w->own_base)
        free(w->base);
    free(w->t);
    free(w->local_rank);
    free(w->start_grp);
    free(w->post_grp);
    free(w->consumed_post);
    free(w->consumed_done);
    free(w->rposted);
    free(w->rcompleted);
    for (int k = 0; k < 3; k++)
        free(w->scratch[k]);
    fy_info_free(w->info);
    if (w->comm)
        fy_comm_release(w->comm);
    fy_errhandler_unref(w->errhandler);
    if (fy_win_get(w->handle) == w)
        fy_win_table[fy_handle_index(w->handle)] = NULL;
    free(w);
}

int fy_win_create(const char *fn, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                  void *info, fy_comm_t *comm, MPI_Comm user_comm, void **base_p,
                  fy_win_t **w_p)
{
    fy_win_t *w = calloc(1, sizeof *w);
    if (!w) {
        fy_comm_release(comm);
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    w->flavor = flavor;
    w->comm = comm;
    w->user_comm = user_comm;
    w->rank = comm->rank;
    w->size = comm->size;
    w->disp_unit = disp_unit;
    w->wsize = flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : size;
    w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? MPI_BOTTOM : base;
    w->errhandler = MPI_ERRORS_ARE_FATAL;
    w->info = info ? fy_info_dup(info) : NULL;
    read_hints(w);
    int n = w->size, rc = MPI_SUCCESS, mfd = -1;
    rec_t *all = NULL;
    w->t = calloc((size_t)n, sizeof *w->t);
    w->local_rank = calloc((size_t)n, sizeof(int));
    w->consumed_post = calloc((size_t)n, sizeof(uint32_t));
    w->consumed_done = calloc((size_t)n, sizeof(uint32_t));
    w->rposted = calloc((size_t)n, sizeof(uint32_t));
    w->rcompleted = calloc((size_t)n, sizeof(uint32_t));
    all = calloc((size_t)n * 2, sizeof *all);
    if (!w->t || !w->local_rank || !w->consumed_post || !w->consumed_done || !w->rposted ||
        !w->rcompleted || !all || (info && !w->info)) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto fail;
    }

    /* 1. Who is where. */
    rec_t me = {.base = (uint64_t)(uintptr_t)base,
                .size = size,
                .disp_unit = disp_unit,
                .pid = (int32_t)getpid(),
                .world = fy_comm_world_rank(comm, comm->rank),
                .memfd = -1,
                .flags = info_true(info, "alloc_shared_noncontig")};
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0) {
        int fd;
        size_t off;
        void *b;
        size_t bs;
        if (fy_mem_find(base, (size_t)size, &fd, &off, &b, &bs)) {
            me.memfd = fd;
            me.memoff = off;
        }
    }
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    rc = fy_allgatherv(&me, sizeof me, byte, all, sizeof me, NULL, NULL, byte, comm);
    if (rc != MPI_SUCCESS)
        goto fail;
    int myhost = fy_rt.host_of ? fy_rt.host_of[me.world] : 0;
    for (int r = 0; r < n; r++) {
        int h = fy_rt.host_of ? fy_rt.host_of[all[r].world] : 0;
        w->t[r].local = -1;
        if (h == myhost) {
            w->t[r].local = w->nlocal;
            w->local_rank[w->nlocal++] = r;
        }
        w->t[r].world = all[r].world;
        w->t[r].pid = all[r].pid;
        w->t[r].raddr = all[r].base;
        w->t[r].size = all[r].size;
        w->t[r].disp_unit = all[r].disp_unit;
    }
    w->mylocal = w->t[w->rank].local;
    if (flavor == MPI_WIN_FLAVOR_SHARED && w->nlocal != n) {
        rc = fy_err_set(MPI_ERR_RMA_SHARED,
                        "%s: the communicator spans %d hosts; MPI_Win_allocate_shared needs all "
                        "its ranks on one host (MPI_Comm_split_type with MPI_COMM_TYPE_SHARED "
                        "gives such communicators)",
                        fn, fy_rt.nhosts);
        goto fail; /* every rank sees the same records, so all fail alike */
    }

    /* 2. The host's shared file: metadata, then the data of allocated windows. */
    size_t nl = (size_t)w->nlocal;
    size_t meta = round_up(nl * sizeof(fy_osc_rank_meta_t) + 2 * nl * nl * sizeof(uint32_t), PAGE);
    size_t *data_off = calloc(nl, sizeof(size_t));
    size_t data = 0;
    if (!data_off) {
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto fail;
    }
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
        /* Shared windows are contiguous unless asked (any rank asking counts): rank r + 1's
         * memory starts where rank r's ends. Otherwise each rank's memory starts on a page,
         * so a rank's neighbours cannot share its cache lines. */
        bool noncontig = flavor == MPI_WIN_FLAVOR_ALLOCATE;
        for (int l = 0; l < w->nlocal; l++)
            noncontig |= all[w->local_rank[l]].flags != 0;
        for (int l = 0; l < w->nlocal; l++) {
            data_off[l] = data;
            data += noncontig ? round_up((size_t)all[w->local_rank[l]].size, PAGE)
                              : (size_t)all[w->local_rank[l]].size;
        }
        data = round_up(data, PAGE);
    }
    rec_t mk = {.memfd = -1, .pid = me.pid};
    int mkrc = MPI_SUCCESS;
    if (w->mylocal == 0) {
        mfd = memfd_create("ferry-window", MFD_CLOEXEC);
        if (mfd < 0 || ftruncate(mfd, (off_t)(meta + data)) != 0 ||
            (data && fallocate(mfd, 0, (off_t)meta, (off_t)data) != 0)) {
            mkrc = fy_err_set(MPI_ERR_NO_MEM,
                              "%s: cannot make the %zu-byte shared-memory file of the window on "
                              "this host: %s",
                              fn, meta + data, strerror(errno));
            mk.flags = -1;
        }
        mk.memfd = mfd;
    }
    rc = fy_allgatherv(&mk, sizeof mk, byte, all + n, sizeof mk, NULL, NULL, byte, comm);
    if (rc == MPI_SUCCESS) {
        for (int r = 0; r < n; r++)
            if (all[n + r].flags == -1 && rc == MPI_SUCCESS)
                rc = mkrc != MPI_SUCCESS
                         ? mkrc
                         : fy_err_set(MPI_ERR_NO_MEM,
                                      "%s: window rank %d could not make its host's "
                                      "shared-memory file",
                                      fn, r);
    }
    int fd = -1;
    if (rc == MPI_SUCCESS) {
        const rec_t *lead = &all[n + w->local_rank[0]];
        fd = w->mylocal == 0 ? mfd : open_peer_fd(lead->pid, lead->memfd);
        if (fd < 0)
            rc = fy_err_set(MPI_ERR_WIN,
                            "%s: cannot open the window's shared-memory file of rank %d (pid "
                            "%d): %s",
                            fn, w->local_rank[0], lead->pid, strerror(errno));
    }
    if (rc == MPI_SUCCESS) {
        w->meta_len = meta;
        w->meta_map = mmap(NULL, meta, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (data && w->meta_map != MAP_FAILED) {
            w->seg_len = data;
            w->seg_map = mmap(NULL, data, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)meta);
        }
        if (w->meta_map == MAP_FAILED || w->seg_map == MAP_FAILED) {
            rc = fy_err_set(MPI_ERR_NO_MEM, "%s: cannot map the window's shared memory: %s", fn,
                            strerror(errno));
            if (w->meta_map == MAP_FAILED)
                w->meta_map = NULL;
            if (w->seg_map == MAP_FAILED)
                w->seg_map = NULL;
        }
    }
    if (fd >= 0 && fd != mfd)
        close(fd);
    /* Everybody has mapped (or failed) before the maker lets go of its descriptor. */
    int brc = fy_barrier(comm);
    if (mfd >= 0)
        close(mfd);
    if (rc == MPI_SUCCESS)
        rc = brc;
    /* A failure anywhere fails everywhere: no rank keeps a window the others lack. */
    int bad = rc != MPI_SUCCESS, anybad = 0;
    if (fy_allreduce(&bad, &anybad, 1, fy_dtype_get(MPI_INT), MPI_MAX, comm) != MPI_SUCCESS ||
        anybad) {
        if (rc == MPI_SUCCESS)
            rc = fy_err_set(MPI_ERR_WIN, "%s: another rank of the window failed to create it",
                            fn);
        free(data_off);
        goto fail;
    }
    w->meta = w->meta_map;
    w->pscw = (_Atomic uint32_t *)((char *)w->meta_map + nl * sizeof(fy_osc_rank_meta_t));

    /* 3. How each target is reached. */
    bool cma = fy_knob_number(FY_KNOB_CMA, 1) != 0;
    w->peer_map = calloc((size_t)n, sizeof(void *));
    w->peer_map_len = calloc((size_t)n, sizeof(size_t));
    if (!w->peer_map || !w->peer_map_len) {
        free(data_off);
        rc = fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
        goto fail;
    }
    for (int r = 0; r < n; r++) {
        fy_win_target_t *t = &w->t[r];
        if (t->local >= 0 && w->seg_map) {
            t->reach = r == w->rank ? FY_REACH_SELF : FY_REACH_MAPPED;
            t->base = (char *)w->seg_map + data_off[t->local];
            t->raddr = 0;
        } else if (r == w->rank) {
            t->reach = FY_REACH_SELF;
            t->base = base;
        } else if (t->local >= 0 && flavor == MPI_WIN_FLAVOR_CREATE && all[r].memfd >= 0) {
            int f = open_peer_fd(all[r].pid, all[r].memfd);
            size_t lo = all[r].memoff & ~(size_t)(PAGE - 1);
            size_t len = round_up(all[r].memoff + (size_t)all[r].size, PAGE) - lo;
            void *m = f < 0 ? MAP_FAILED
                            : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f, (off_t)lo);
            if (f >= 0)
                close(f);
            if (m == MAP_FAILED) {
                /* The others map it: all must, or accumulates there would not exclude each
                 * other (CPU atomics against stripe locks). */
                rc = fy_err_set(MPI_ERR_WIN,
                                "%s: cannot map window rank %d's memory (pid %d, from "
                                "MPI_Alloc_mem): %s",
                                fn, r, all[r].pid, strerror(errno));
                break;
            }
            w->peer_map[r] = m;
            w->peer_map_len[r] = len;
            t->reach = FY_REACH_MAPPED;
            t->base = (char *)m + (all[r].memoff - lo);
        } else if (t->local >= 0 && flavor == MPI_WIN_FLAVOR_CREATE && all[r].size == 0) {
            t->reach = FY_REACH_MAPPED; /* nothing to reach: every access is out of range */
        } else if (t->local >= 0 && cma &&
                   (flavor == MPI_WIN_FLAVOR_DYNAMIC || cma_works(t->pid, t->raddr, t->size))) {
            t->reach = FY_REACH_CMA;
        } else {
            t->reach = FY_REACH_AM;
        }
    }
    free(data_off);
    for (int r = 0; r < n; r++)
        w->t[r].atomic_ok = w->seg_map || (flavor == MPI_WIN_FLAVOR_CREATE && all[r].memfd >= 0);
    if (rc != MPI_SUCCESS)
        goto fail;
    if (flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) {
        w->base = w->t[w->rank].base;
        *base_p = w->base;
    }
    w->bells = true;
    for (int l = 0; l < w->nlocal; l++)
        if (w->local_rank[l] != w->rank && !fy_shm_reaches(w->t[w->local_rank[l]].world))
            w->bells = false;
    /* Active messages whenever some rank reaches another that way: a target must serve
     * them even if it reaches everybody directly itself. */
    int need_am = 0, any_am = 0;
    for (int r = 0; r < n; r++)
        need_am |= w->t[r].reach == FY_REACH_AM;
    rc = fy_allreduce(&need_am, &any_am, 1, fy_dtype_get(MPI_INT), MPI_MAX, comm);
    if (rc == MPI_SUCCESS && any_am)
        rc = fy_osc_am_init(w);
    if (rc == MPI_SUCCESS)
        rc = table_add(w);
    if (rc != MPI_SUCCESS)
        goto fail;
    free(all);
    *w_p = w;
    return MPI_SUCCESS;
fail:
    free(all);
    win_release(w);
    return rc;
}

int fy_win_free(const char *fn, fy_win_t *w)
{
    if (w->epoch & (FY_EPOCH_LOCK | FY_EPOCH_LOCK_ALL | FY_EPOCH_PSCW) || w->post_grp)
        return fy_err_set(MPI_ERR_RMA_SYNC,
                          "%s: %s still has an epoch open (%s); close it first", fn,
                          fy_win_text(w),
                          w->epoch & FY_EPOCH_LOCK_ALL ? "MPI_Win_lock_all"
                          : w->epoch & FY_EPOCH_LOCK   ? "MPI_Win_lock"
                          : w->epoch & FY_EPOCH_PSCW   ? "MPI_Win_start"
                                                       : "MPI_Win_post");
    /* Collective: nobody unmaps memory another rank may still be accessing. Operations on
     * direct targets are complete at return; active messages are flushed first. */
    int rc = MPI_SUCCESS;
    if (w->am)
        rc = fy_osc_am_flush(w, -1);
    int brc = fy_barrier(w->comm);
    if (rc == MPI_SUCCESS)
        rc = brc;
    int arc = fy_attrs_delete_all_anyway(&w->attrs, w->handle);
    win_release(w);
    return rc != MPI_SUCCESS ? rc : arc;
}

void fy_win_fini(void)
{
    for (unsigned i = 0; i < fy_win_table_cap; i++)
        if (fy_win_table[i]) {
            /* Windows the program never freed: their memory and mappings go (called before
             * the communicators, which they hold, are torn down). */
            fy_attrs_delete_all_anyway(&fy_win_table[i]->attrs, fy_win_table[i]->handle);
            win_release(fy_win_table[i]);
        }
    free(fy_win_table);
    fy_win_table = NULL;
    fy_win_table_cap = 0;
}

/* ---- dynamic windows ------------------------------------------------------------------- */

int fy_win_attach(const char *fn, fy_win_t *w, void *base, MPI_Aint size)
{
    fy_osc_rank_meta_t *m = &w->meta[w->mylocal];
    if (m->dyn_n == FY_OSC_DYN_MAX)
        return fy_err_set(MPI_ERR_RMA_ATTACH,
                          "%s: %d regions are attached to this window already (Ferry's limit); "
                          "detach one first",
                          fn, FY_OSC_DYN_MAX);
    uint64_t lo = (uint64_t)(uintptr_t)base, hi = lo + (uint64_t)size;
    for (uint32_t i = 0; i < m->dyn_n; i++)
        if (lo < m->dyn[i].base + m->dyn[i].len && m->dyn[i].base < hi)
            return fy_err_set(MPI_ERR_RMA_ATTACH,
                              "%s: region %p of %ld bytes overlaps a region attached before "
                              "(%p, %lu bytes)",
                              fn, base, (long)size, (void *)(uintptr_t)m->dyn[i].base,
                              (unsigned long)m->dyn[i].len);
    atomic_fetch_add_explicit(&m->dyn_seq, 1, memory_order_acq_rel);
    m->dyn[m->dyn_n].base = lo;
    m->dyn[m->dyn_n].len = (uint64_t)size;
    m->dyn_n++;
    atomic_fetch_add_explicit(&m->dyn_seq, 1, memory_order_release);
    return MPI_SUCCESS;
}

int fy_win_detach(const char *fn, fy_win_t *w, const void *base)
{
    fy_osc_rank_meta_t *m = &w->meta[w->mylocal];
    uint64_t b = (uint64_t)(uintptr_t)base;
    for (uint32_t i = 0; i < m->dyn_n; i++)
        if (m->dyn[i].base == b) {
            atomic_fetch_add_explicit(&m->dyn_seq, 1, memory_order_acq_rel);
            m->dyn[i] = m->dyn[--m->dyn_n];
            atomic_fetch_add_explicit(&m->dyn_seq, 1, memory_order_release);
            return MPI_SUCCESS;
        }
    return fy_err_set(MPI_ERR_RMA_ATTACH,
                      "%s: %p is not the base of a region attached to this window", fn, base);
}

int fy_win_shared_query(const char *fn, fy_win_t *w, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void **base_p)
{
    (void)fn;
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory; all zero when none has any. */
        for (int r = 0; r < w->size; r++)
            if (w->t[r].size > 0) {
                rank = r; /* not mapped here (another host): size 0 and NULL below */
                break;
            }
        if (rank == MPI_PROC_NULL) {
            *size = 0;
            *disp_unit = w->t[0].disp_unit;
            *base_p = NULL;
            return MPI_SUCCESS;
        }
    }
    fy_win_target_t *t = &w->t[rank];
    if (t->reach == FY_REACH_SELF || t->reach == FY_REACH_MAPPED) {
        *size = t->size;
        *disp_unit = t->disp_unit;
        *base_p = t->base;
    } else {
        *size = 0;
        *disp_unit = t->disp_unit;
        *base_p = NULL;
    }
    return MPI_SUCCESS;
}
