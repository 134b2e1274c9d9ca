/* The pack engine: copies any byte range of a type's packed stream to or from memory laid out
 * as the type says, reading only the compiled loops (dtype_dl.h). A range starts anywhere: the
 * engine seeks to it by division (vectors) or binary search (block lists), so a message can be
 * packed fragment by fragment straight into a transport's buffers. */
#include <stdint.h>
#include <string.h>

#include "dtype_dl.h"

/* Copies of short runs without a call: two overlapping loads and stores cover any length
 * from 4 to 16 (each byte written is a byte of the run); longer runs go to memcpy. */
static inline void copy_run(char *dst, const char *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    } else {
        memcpy(dst, src, n);
    }
}

/* The copy direction is a parameter of every function below; each is instantiated twice by
 * the compiler (constant propagation of `unpack` through static inlines at -O3). */
#define COPY(mem, n)                                                                               \
    do {                                                                                           \
        if (unpack)                                                                                \
            copy_run((mem), *io, (n));                                                             \
        else                                                                                       \
            copy_run(*io, (mem), (n));                                                             \
        *io += (n);                                                                                \
    } while (0)

/* Whole runs of a strided loop: fixed-size copies for the common small element sizes, so that
 * a column of doubles is a load and a store per element. The cursor lives in a register: a
 * store through a char pointer could alias *io, so the loop must not update it in memory. */
#define STRIDED(T)                                                                                 \
    do {                                                                                           \
        char *q = *io;                                                                             \
        for (MPI_Count j = 0; j < nfull; j++, p += stride, q += sizeof(T)) {                       \
            if (unpack)                                                                            \
                memcpy(p, q, sizeof(T));                                                           \
            else                                                                                   \
                memcpy(q, p, sizeof(T));                                                           \
        }                                                                                          \
        *io = q;                                                                                   \
    } while (0)

typedef struct {
    uint64_t a, b;
} pair16_t;
typedef struct {
    uint64_t a[4];
} quad32_t;
typedef struct {
    uint64_t a[8];
} oct64_t;

static inline void strided_runs(char *p, MPI_Aint stride, size_t len, MPI_Count nfull, char **io,
                                const int unpack)
{
    switch (len) {
    case 4: STRIDED(uint32_t); return;
    case 8: STRIDED(uint64_t); return;
    case 16: STRIDED(pair16_t); return;
    case 32: STRIDED(quad32_t); return;
    case 64: STRIDED(oct64_t); return;
    default: break;
    }
    char *q = *io;
    if (len > 16) { /* long runs: memcpy, without copy_run's size tests per run */
        for (MPI_Count j = 0; j < nfull; j++, p += stride, q += len) {
            if (unpack)
                memcpy(p, q, len);
            else
                memcpy(q, p, len);
        }
    } else {
        for (MPI_Count j = 0; j < nfull; j++, p += stride, q += len) {
            if (unpack)
                copy_run(p, q, len);
            else
                copy_run(q, p, len);
        }
    }
    *io = q;
}

/* Whole instances of a type made of a few runs (a struct): no seeking, runs copied in turn. */
static inline void whole_runs(const fy_dl_t *n, char *p, MPI_Aint extent, MPI_Count ninst,
                              char **io, const int unpack)
{
    char *q = *io;
    for (MPI_Count i = 0; i < ninst; i++, p += extent)
        for (MPI_Count k = 0; k < n->count; k++) {
            if (unpack)
                copy_run(p + n->displs[k], q, n->runs[k]);
            else
                copy_run(q, p + n->displs[k], n->runs[k]);
            q += n->runs[k];
        }
    *io = q;
}

/* Largest i with prefix[i] <= lo. */
static MPI_Count seek(const size_t *prefix, MPI_Count n, size_t lo)
{
    MPI_Count a = 0, b = n - 1;
    while (a < b) {
        MPI_Count m = (a + b + 1) / 2;
        if (prefix[m] <= lo)
            a = m;
        else
            b = m - 1;
    }
    return a;
}

static void xfer(const fy_dl_t *n, char *base, size_t lo, size_t hi, char **io, const int unpack);

/* `blocklen` children of dl c, cext apart, from `at`; packed bytes [lo, hi) of the block. */
static inline void block(const fy_dl_t *c, MPI_Aint cext, char *at, size_t lo, size_t hi, char **io,
                         const int unpack)
{
    size_t csz = c->size;
    MPI_Count k = (MPI_Count)(lo / csz);
    size_t o = lo % csz;
    char *p = at + k * cext;
    if (o) { /* the end of a child the range starts inside */
        size_t take = csz - o < hi - lo ? csz - o : hi - lo;
        xfer(c, p, o, o + take, io, unpack);
        lo += take;
        p += cext;
    }
    /* Whole children that are one run, or a few: flat loops instead of a call each. */
    MPI_Count whole = (MPI_Count)((hi - lo) / csz);
    if (whole > 1 && (c->kind == FY_DL_RUN || c->kind == FY_DL_RUNS)) {
        if (c->kind == FY_DL_RUN)
            strided_runs(p + c->off, cext, csz, whole, io, unpack);
        else
            whole_runs(c, p, cext, whole, io, unpack);
        lo += (size_t)whole * csz;
        p += whole * cext;
    }
    while (lo < hi) {
        size_t take = csz < hi - lo ? csz : hi - lo;
        xfer(c, p, 0, take, io, unpack);
        lo += take;
        p += cext;
    }
}

static void xfer(const fy_dl_t *n, char *base, size_t lo, size_t hi, char **io, const int unpack)
{
    switch (n->kind) {
    case FY_DL_RUN: COPY(base + n->off + lo, hi - lo); return;
    case FY_DL_VRUN: {
        size_t len = n->len;
        MPI_Count j = (MPI_Count)(lo / len);
        size_t o = lo % len;
        char *p = base + n->off + j * n->stride;
        if (o) {
            size_t take = len - o < hi - lo ? len - o : hi - lo;
            COPY(p + o, take);
            lo += take;
            p += n->stride;
        }
        MPI_Count nfull = (MPI_Count)((hi - lo) / len);
        strided_runs(p, n->stride, len, nfull, io, unpack);
        lo += (size_t)nfull * len;
        p += nfull * n->stride;
        if (lo < hi)
            COPY(p, hi - lo);
        return;
    }
    case FY_DL_VEC: {
        size_t bb = (size_t)n->blocklen * n->child->size;
        MPI_Count j = (MPI_Count)(lo / bb);
        size_t o = lo % bb;
        char *p = base + n->off + j * n->stride;
        while (lo < hi) {
            size_t take = bb - o < hi - lo ? bb - o : hi - lo;
            block(n->child, n->cext, p, o, o + take, io, unpack);
            lo += take;
            o = 0;
            p += n->stride;
        }
        return;
    }
    case FY_DL_RUNS: {
        MPI_Count i = seek(n->prefix, n->count, lo);
        size_t o = lo - n->prefix[i];
        for (; lo < hi; i++, o = 0) {
            size_t take = n->runs[i] - o < hi - lo ? n->runs[i] - o : hi - lo;
            COPY(base + n->displs[i] + o, take);
            lo += take;
        }
        return;
    }
    case FY_DL_IDX: {
        MPI_Count i = seek(n->prefix, n->count, lo);
        size_t o = lo - n->prefix[i];
        for (; lo < hi; i++, o = 0) {
            size_t bb = n->prefix[i + 1] - n->prefix[i];
            size_t take = bb - o < hi - lo ? bb - o : hi - lo;
            const fy_dl_t *c = n->children ? n->children[i] : n->child;
            MPI_Aint cext = n->children ? n->cexts[i] : n->cext;
            block(c, cext, base + n->displs[i], o, o + take, io, unpack);
            lo += take;
        }
        return;
    }
    }
}

static void range(const fy_dtype_t *d, char *buf, size_t lo, char *io, size_t len, const int unpack)
{
    if (len == 0)
        return;
    if (d->contig) {
        if (unpack)
            memcpy(buf + d->lb + lo, io, len);
        else
            memcpy(io, buf + d->lb + lo, len);
        return;
    }
    size_t size = (size_t)d->size;
    MPI_Count i = (MPI_Count)(lo / size);
    size_t o = lo % size, hi = lo + len;
    char *p = buf + i * d->extent;
    char **cur = &io;
    /* Instances of a single run: one strided loop over them all; of a few runs: a loop
     * without seeking. */
    if (o == 0 && (d->dl->kind == FY_DL_RUN || d->dl->kind == FY_DL_RUNS)) {
        MPI_Count nfull = (MPI_Count)(len / size);
        if (d->dl->kind == FY_DL_RUN)
            strided_runs(p + d->dl->off, d->extent, size, nfull, cur, unpack);
        else
            whole_runs(d->dl, p, d->extent, nfull, cur, unpack);
        lo += (size_t)nfull * size;
        p += nfull * d->extent;
    }
    while (lo < hi) {
        size_t take = size - o < hi - lo ? size - o : hi - lo;
        xfer(d->dl, p, o, o + take, cur, unpack);
        lo += take;
        o = 0;
        p += d->extent;
    }
}

void fy_dtype_pack_range(const fy_dtype_t *d, const void *buf, MPI_Count count, size_t lo,
                         void *out, size_t len)
{
    (void)count;
    range(d, (char *)buf, lo, out, len, 0);
}

void fy_dtype_unpack_range(const fy_dtype_t *d, void *buf, MPI_Count count, size_t lo,
                           const void *in, size_t len)
{
    (void)count;
    range(d, buf, lo, (char *)in, len, 1);
}

void fy_dtype_pack(const fy_dtype_t *d, const void *src, MPI_Aint count, void *dst)
{
    range(d, (char *)src, 0, dst, fy_dtype_bytes(d, count), 0);
}

void fy_dtype_unpack(const fy_dtype_t *d, const void *src, size_t bytes, void *dst)
{
    range(d, dst, 0, (char *)src, bytes, 1);
}
