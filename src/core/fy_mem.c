/* MPI_Alloc_mem's allocator (fy_mem.h): first fit over one memfd mapped once. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "fy_err.h"
#include "fy_mem.h"

enum {
    MIN_ALIGN = 64,         /* a cache line: more than max_align_t, and no false sharing */
    PAGE = 4096,            /* blocks of a page or more start on a page (window mapping) */
    PUNCH_MIN = 8 << 20,    /* smaller freed blocks keep their pages (no syscall per free) */
    GROW = 2 * 1024 * 1024, /* the file grows by at least this much */
    LARGE = 64 << 20,       /* allocations checked against the memory available first */
};

typedef struct {
    size_t off, len;
} block_t;

static int fd = -1;
static char *base;       /* the file's mapping, FY_MEM_MAX_ALIGN-aligned */
static size_t reserved;  /* bytes of address space behind base */
static size_t file_size; /* the file's length */
static block_t *blocks;  /* live allocations, sorted by offset */
static size_t nblocks, capblocks;
/* Pages known to be allocated: [0, backed_hi) except the holes (punched by frees, or skipped
 * over by an aligned allocation), so that an allocation there needs no fallocate: over 1 MiB of
 * pages already there it still costs 35 us. */
static size_t backed_hi;
static block_t *holes; /* off/len of page ranges not allocated below backed_hi */
static size_t nholes, capholes;

static size_t round_up(size_t x, size_t a)
{
    return (x + a - 1) & ~(a - 1);
}

/* Maps the file over the largest reservation the address space limits allow (1 TiB first:
 * PROT_NONE with MAP_NORESERVE costs no memory, only address space). */
static int setup(const char *fn)
{
    int f = memfd_create("ferry-alloc-mem", MFD_CLOEXEC);
    if (f < 0)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: cannot create the shared-memory file: %s", fn,
                          strerror(errno));
    for (size_t want = (size_t)1 << 40; want >= FY_MEM_MAX_ALIGN; want /= 2) {
        size_t span = want + FY_MEM_MAX_ALIGN;
        char *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (r == MAP_FAILED)
            continue;
        char *at = (char *)round_up((uintptr_t)r, FY_MEM_MAX_ALIGN);
        if (at > r)
            munmap(r, (size_t)(at - r));
        if (r + span > at + want)
            munmap(at + want, (size_t)(r + span - (at + want)));
        void *m = mmap(at, want, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, f,
                       0);
        if (m == MAP_FAILED) {
            munmap(at, want);
            continue;
        }
        fd = f;
        base = at;
        reserved = want;
        return MPI_SUCCESS;
    }
    close(f);
    return fy_err_set(MPI_ERR_NO_MEM, "%s: no address space left to map shared memory", fn);
}

static bool add_hole(size_t lo, size_t hi)
{
    if (nholes == capholes) {
        size_t ncap = capholes ? capholes * 2 : 8;
        block_t *n = realloc(holes, ncap * sizeof *n);
        if (!n)
            return false;
        holes = n;
        capholes = ncap;
    }
    holes[nholes++] = (block_t){lo, hi - lo};
    return true;
}

/* Bytes the system could still give: free and reclaimable memory plus free swap (a rough
 * MemAvailable; shared memory can be swapped out). */
static size_t available(void)
{
    struct sysinfo si;
    if (sysinfo(&si) != 0)
        return SIZE_MAX;
    return ((size_t)si.freeram + si.bufferram + si.freeswap) * si.mem_unit;
}

/* Makes sure the pages [lo, hi) are allocated: 0, or an errno. */
static int back(size_t lo, size_t hi)
{
    bool need = hi > backed_hi;
    for (size_t i = 0; i < nholes && !need; i++)
        need = holes[i].off < hi && lo < holes[i].off + holes[i].len;
    if (!need)
        return 0;
    /* fallocate past what the machine has does not fail cleanly: the OOM killer picks a victim
     * first. Large requests are compared with the memory left before trying. */
    if (hi - lo >= LARGE && hi - lo > available())
        return ENOMEM;
    if (fallocate(fd, 0, (off_t)lo, (off_t)(hi - lo)) != 0)
        return errno;
    /* Trim the holes this range filled (one may split in two). */
    for (size_t i = 0; i < nholes;) {
        size_t hlo = holes[i].off, hhi = hlo + holes[i].len;
        if (hhi <= lo || hi <= hlo) {
            i++;
            continue;
        }
        holes[i] = holes[--nholes];
        if (hlo < lo)
            add_hole(hlo, lo); /* cannot fail: one entry was just freed */
        if (hi < hhi && !add_hole(hi, hhi))
            fallocate(fd, 0, (off_t)hi, (off_t)(hhi - hi)); /* no room to remember: fill it */
    }
    if (hi > backed_hi) {
        if (lo > backed_hi && !add_hole(backed_hi, lo))
            fallocate(fd, 0, (off_t)backed_hi, (off_t)(lo - backed_hi));
        backed_hi = hi;
    }
    return 0;
}

/* Index of the first block whose offset is >= off. */
static size_t lower_bound(size_t off)
{
    size_t lo = 0, hi = nblocks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int fy_mem_alloc(const char *fn, size_t size, size_t align, void **p)
{
    if (fd < 0) {
        int rc = setup(fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (align < MIN_ALIGN)
        align = MIN_ALIGN;
    if (size >= PAGE && align < PAGE)
        align = PAGE;
    if (size > reserved)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes (at most %zu)", fn, size,
                          reserved);
    size_t len = round_up(size ? size : 1, MIN_ALIGN); /* size 0 still gets its own address */
    /* First fit: the lowest aligned gap between live blocks that holds len. */
    size_t at = 0, i = 0;
    for (; i < nblocks; i++) {
        at = round_up(at, align);
        if (at + len <= blocks[i].off)
            break;
        at = blocks[i].off + blocks[i].len;
    }
    at = round_up(at, align);
    if (at > reserved || reserved - at < len)
        return fy_err_set(MPI_ERR_NO_MEM,
                          "%s: cannot allocate %zu bytes: the %zu bytes of shared memory address "
                          "space reserved for it are in use",
                          fn, size, reserved);
    if (nblocks == capblocks) {
        size_t ncap = capblocks ? capblocks * 2 : 64;
        block_t *n = realloc(blocks, ncap * sizeof *n);
        if (!n)
            return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory for the allocation table", fn);
        blocks = n;
        capblocks = ncap;
    }
    if (at + len > file_size) {
        size_t nsize = round_up(at + len, GROW);
        if (nsize > reserved)
            nsize = reserved;
        if (ftruncate(fd, (off_t)nsize) != 0)
            return fy_err_set(MPI_ERR_NO_MEM, "%s: cannot grow the shared memory to %zu bytes: %s",
                              fn, nsize, strerror(errno));
        file_size = nsize;
    }
    /* Reserve the pages now, so that a shortage is this call's error, not a SIGBUS later. */
    size_t pg = at & ~(size_t)(PAGE - 1), pend = round_up(at + len, PAGE);
    int e = back(pg, pend);
    if (e)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes of shared memory: %s", fn,
                          size, strerror(e));
    memmove(&blocks[i + 1], &blocks[i], (nblocks - i) * sizeof *blocks);
    blocks[i] = (block_t){at, len};
    nblocks++;
    *p = base + at;
    return MPI_SUCCESS;
}

/* The block that starts at p, or nblocks. */
static size_t block_at(const void *p)
{
    if (!base || (const char *)p < base || (const char *)p >= base + reserved)
        return nblocks;
    size_t off = (size_t)((const char *)p - base), i = lower_bound(off);
    return i < nblocks && blocks[i].off == off ? i : nblocks;
}

int fy_mem_free(const char *fn, void *p)
{
    size_t i = block_at(p);
    if (i == nblocks)
        return fy_err_set(MPI_ERR_ARG,
                          "%s: address %p was not returned by MPI_Alloc_mem (or was freed already)",
                          fn, p);
    block_t b = blocks[i];
    memmove(&blocks[i], &blocks[i + 1], (nblocks - i - 1) * sizeof *blocks);
    nblocks--;
    /* Give back the pages no other block touches. */
    size_t lo = round_up(b.off, PAGE), hi = (b.off + b.len) & ~(size_t)(PAGE - 1);
    if (hi > lo && hi - lo >= PUNCH_MIN && add_hole(lo, hi))
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)lo, (off_t)(hi - lo));
    return MPI_SUCCESS;
}

bool fy_mem_find(const void *p, size_t len, int *fd_p, size_t *off_p, void **base_p,
                 size_t *size_p)
{
    if (!base || (const char *)p < base || (const char *)p >= base + reserved)
        return false;
    size_t off = (size_t)((const char *)p - base), i = lower_bound(off + 1);
    if (i == 0)
        return false;
    const block_t *b = &blocks[i - 1];
    if (off + len > b->off + b->len)
        return false;
    *fd_p = fd;
    *off_p = off;
    *base_p = base + b->off;
    *size_p = b->len;
    return true;
}
