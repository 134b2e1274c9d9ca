/* Creating, mapping and unlinking the job's segment (layout in shm_seg.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fy_err.h"
#include "fy_pmi.h"
#include "fy_runtime.h"
#include "fy_xport.h"
#include "shm_seg.h"

fy_shm_t fy_shm;

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* A ring per ordered pair costs n^2 rings, so the ring shrinks as the job grows: 1 MiB while
 * the rings fit in 64 MiB (up to 8 ranks), halving beyond, never below 16 KiB. Large rings
 * pay: a rendezvous message streams through its ring at memcpy speed, 2-3x what a single
 * process_vm_readv copy reaches here (docs/DESIGN.md). */
static uint32_t pick_ring_bytes(int n)
{
    long env = fy_env_size("FERRY_SHM_RING", 0);
    uint32_t r = 1024 * 1024;
    if (env > 0) {
        r = 4096;
        while (r < (uint64_t)env && r < (1u << 30))
            r <<= 1;
        return r;
    }
    while (r > 16 * 1024 && (uint64_t)r * n * n > (64ull << 20))
        r >>= 1;
    return r;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Maps the pages of the rings this rank writes to or reads from now: otherwise the first lap
 * through each ring takes a page fault every 4 KiB, most of the time of the first thousand
 * small messages. Other ranks' rings are left alone. Best effort (Linux 5.14+). */
static void populate_own_rings(fy_shm_t *s)
{
    for (int peer = 0; peer < s->n; peer++) {
        madvise(fy_shm_ring(s->rank, peer), s->ring_stride, MADV_POPULATE_WRITE);
        if (peer != s->rank)
            madvise(fy_shm_ring(peer, s->rank), s->ring_stride, MADV_POPULATE_WRITE);
    }
}

static void seg_name(char *buf, size_t len)
{
    snprintf(buf, len, "/fy-%s-shm", fy_rt.kvsname);
}

int fy_shm_init(struct fy_pmi *pmi, int rank, int n)
{
    fy_shm_t *s = &fy_shm;
    char name[300];
    seg_name(name, sizeof name);
    s->rank = rank;
    s->n = n;
    s->ring_bytes = pick_ring_bytes(n);
    /* Page-aligned rings: each can be populated on its own (madvise wants page bounds). */
    s->ring_stride = round_up(offsetof(fy_ring_t, data) + s->ring_bytes, 4096);
    size_t bells_off = round_up(sizeof(fy_shm_hdr_t), FY_CACHELINE);
    size_t rings_off = round_up(bells_off + sizeof(fy_bell_t) * n, 4096);
    s->bytes = rings_off + s->ring_stride * (size_t)n * n;

    /* Before the first fence: every rank must be registered before any relies on it. */
    fy_shm_fence_init();
    int fd;
    if (rank == 0) {
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno == EEXIST) { /* left by a crashed job of the same name */
            shm_unlink(name);
            fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        }
        if (fd < 0)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot create shared memory %s: %s", name,
                              strerror(errno));
        if (ftruncate(fd, (off_t)s->bytes) != 0) {
            int e = errno;
            close(fd);
            shm_unlink(name);
            return fy_err_set(MPI_ERR_NO_MEM,
                              "MPI_Init: cannot size shared memory %s to %zu bytes: %s", name,
                              s->bytes, strerror(e));
        }
    }
    if (fy_pmi_fence(pmi) != 0)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager barrier failed: %s",
                          fy_pmi_last_error());
    if (rank != 0) {
        fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot open shared memory %s: %s", name,
                              strerror(errno));
    }
    s->base = mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: cannot map %zu bytes of shared memory: %s",
                          s->bytes, strerror(errno));
    }
    s->hdr = s->base;
    s->bell = (fy_bell_t *)((char *)s->base + bells_off);
    s->rings = (unsigned char *)s->base + rings_off;
    if (rank == 0) {
        s->hdr->nranks = (uint32_t)n;
        s->hdr->ring_bytes = s->ring_bytes;
        s->hdr->magic = FY_SHM_MAGIC;
    }
    s->bell[rank].pid = (int32_t)getpid();
    populate_own_rings(s);
    /* Everyone has mapped the segment after this fence: the name is no longer needed. */
    if (fy_pmi_fence(pmi) != 0)
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: process manager barrier failed: %s",
                          fy_pmi_last_error());
    if (rank == 0)
        shm_unlink(name);
    if (s->hdr->magic != FY_SHM_MAGIC || s->hdr->nranks != (uint32_t)n)
        return fy_err_set(MPI_ERR_INTERN, "MPI_Init: shared memory segment %s is not this job's",
                          name);
    fy_shm_cma_init();
    return MPI_SUCCESS;
}

void fy_shm_fini(void)
{
    if (fy_shm.base)
        munmap(fy_shm.base, fy_shm.bytes);
    memset(&fy_shm, 0, sizeof fy_shm);
}
