/* Barrier, Bcast, Reduce and Allreduce in a shared-memory slot (fy_shmcoll.h has the slot
 * and its phases). Costs, p members, n bytes:
 *   barrier        one phase: each member raises its flag and waits for all the others'
 *   bcast          the root copies each piece in (n), every other member copies it out (n);
 *                  pieces of up to a half, alternating halves, so reading overlaps writing
 *   allreduce      flat: every member copies its vector in, then reduces all p vectors
 *                  itself ((p-1) n of reduction each, one phase): best for short vectors;
 *                  slice: each member reduces its p-th of the vector over all p inputs and
 *                  puts it back, then all copy the p slices out (two phases, n (p-1)/p of
 *                  reduction each): for long vectors
 *   reduce         the same with only the root reading the result
 * Vectors longer than an area go through in area-sized pieces, one collective each. */
#include <string.h>

#include "fy_coll.h"
#include "fy_op.h"
#include "fy_shmcoll.h"
#include "shm_slot.h"

/* A broadcast piece: long enough to amortize a phase, short enough that the readers start
 * copying while the root is still writing the rest. */
#define BCAST_PIECE_MAX (128 * 1024)

int fy_shm_barrier(fy_comm_t *c)
{
    int rc;
    fy_shmc_t *st = fy_shmc_get(c, &rc);
    if (!st)
        return rc != MPI_SUCCESS ? rc : FY_SHM_DECLINED;
    uint64_t first;
    fy_shmc_begin(st, 0, &first);
    fy_shmc_publish(st, c);
    fy_shmc_wait(st, 0, c->size, first);
    return MPI_SUCCESS;
}

int fy_shm_bcast(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c)
{
    int rc;
    fy_shmc_t *st = fy_shmc_get(c, &rc);
    if (!st)
        return rc != MPI_SUCCESS ? rc : FY_SHM_DECLINED;
    size_t bytes = fy_dtype_bytes(dt, count), n = (size_t)st->n;
    for (size_t off = 0, len; off < bytes; off += len) {
        len = bytes - off < BCAST_PIECE_MAX ? bytes - off : BCAST_PIECE_MAX;
        uint64_t first;
        int b;
        unsigned char *sh;
        if (len <= FY_SHMC_INLINE) { /* in the root's flag line */
            b = fy_shmc_begin(st, len, &first);
            sh = fy_shmc_area(st, b, root);
        } else { /* a whole generation or half: one writer, all n areas */
            size_t per = (len + n - 1) / n;
            b = fy_shmc_begin(st, per > FY_SHMC_INLINE ? per : FY_SHMC_INLINE + 1, &first);
            if (len > n * fy_shmc_cap(st, b))
                len = n * fy_shmc_cap(st, b);
            sh = fy_shmc_area(st, b, 0);
        }
        if (c->rank == root) {
            fy_shmc_guard(st, c, b);
            fy_dtype_pack_range(dt, buf, count, off, sh, len);
            fy_shmc_publish_ring(st, c); /* the readers wait for the root alone */
        } else {
            fy_shmc_publish(st, c); /* has finished the previous collective */
            fy_shmc_wait(st, root, root + 1, first);
            fy_dtype_unpack_range(dt, buf, count, off, sh, len);
        }
    }
    return MPI_SUCCESS;
}

/* out = v[0] o v[1] o ... o v[p-1] over elements [lo, hi) of buffer b's areas, in rank order
 * whatever the operator. */
static void reduce_all(fy_shmc_t *st, int b, int p, MPI_Op op, const fy_dtype_t *dt, size_t lo,
                       size_t hi, unsigned char *out)
{
    size_t at = lo * (size_t)dt->size, len = (hi - lo) * (size_t)dt->size;
    memcpy(out, fy_shmc_area(st, b, p - 1) + at, len);
    for (int i = p - 2; i >= 0; i--)
        fy_op_apply(op, dt, fy_shmc_area(st, b, i) + at, out, (MPI_Count)(hi - lo));
}

/* One piece of a reduction to `root` (-1: to everyone), n elements that fit an area of the
 * buffers. `in` and `out` are the piece's elements (out may equal in: in place; out is NULL
 * on non-roots of a reduce). */
static int reduce_piece(fy_shmc_t *st, const unsigned char *in, unsigned char *out, size_t n,
                        const fy_dtype_t *dt, MPI_Op op, int root, int mode, fy_comm_t *c)
{
    int p = c->size, me = c->rank;
    size_t sz = (size_t)dt->size;
    uint64_t first;
    int b = fy_shmc_begin(st, n * sz, &first);
    fy_shmc_guard(st, c, b);
    unsigned char *mine = fy_shmc_area(st, b, me);
    memcpy(mine, in, n * sz);
    if (mode == FY_SHMR_LAST) { /* allreduce only */
        if (fy_shmc_arrive(st, c)) {
            /* Everyone's vector is in (the counter's acquire): reduce them all and put the
             * result where the others copy it from, our own area (read by nobody else). */
            reduce_all(st, b, p, op, dt, 0, n, out);
            memcpy(mine, out, n * sz);
            fy_shmc_result(st, first, me);
            fy_shmc_ring(st, c);
        } else {
            int who = fy_shmc_wait_result(st, first);
            memcpy(out, fy_shmc_area(st, b, who), n * sz);
        }
        return MPI_SUCCESS;
    }
    fy_shmc_publish(st, c);
    bool reader = root < 0 || me == root;
    if (mode == FY_SHMR_FLAT) {
        if (reader) {
            fy_shmc_wait(st, 0, p, first);
            reduce_all(st, b, p, op, dt, 0, n, out);
        }
        return MPI_SUCCESS;
    }
    size_t lo = n * (size_t)me / (size_t)p, hi = n * (size_t)(me + 1) / (size_t)p;
    unsigned char *acc = reader ? out + lo * sz : fy_coll_scratch(0, (hi - lo) * sz + 1);
    if (!acc)
        return MPI_ERR_NO_MEM;
    fy_shmc_wait(st, 0, p, first);
    reduce_all(st, b, p, op, dt, lo, hi, acc);
    /* Our slice of our own area is read by nobody else in the first phase. */
    memcpy(fy_shmc_area(st, b, me) + lo * sz, acc, (hi - lo) * sz);
    fy_shmc_publish(st, c);
    if (reader) {
        fy_shmc_wait(st, 0, p, first + 1);
        for (int j = 0; j < p; j++) {
            size_t jl = n * (size_t)j / (size_t)p, jh = n * (size_t)(j + 1) / (size_t)p;
            if (j != me)
                memcpy(out + jl * sz, fy_shmc_area(st, b, j) + jl * sz, (jh - jl) * sz);
        }
    }
    return MPI_SUCCESS;
}

static int reduce_common(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                         MPI_Op op, int root, int mode, fy_comm_t *c)
{
    int rc;
    fy_shmc_t *st = fy_shmc_get(c, &rc);
    if (!st)
        return rc != MPI_SUCCESS ? rc : FY_SHM_DECLINED;
    size_t sz = (size_t)dt->size, per = st->area / sz; /* >= 1: fy_shmcoll_reducible */
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf;
    /* Contiguous: the elements are the bytes from the buffer's lower bound on. */
    const unsigned char *in = (const unsigned char *)sbuf + dt->lb;
    unsigned char *out = root < 0 || c->rank == root ? (unsigned char *)rbuf + dt->lb : NULL;
    rc = MPI_SUCCESS;
    for (size_t done = 0, n; done < (size_t)count && rc == MPI_SUCCESS; done += n) {
        n = (size_t)count - done < per ? (size_t)count - done : per;
        rc = reduce_piece(st, in + done * sz, out ? out + done * sz : NULL, n, dt, op, root, mode,
                          c);
    }
    fy_coll_scratch_done();
    return rc;
}

int fy_shm_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                  int root, int mode, fy_comm_t *c)
{
    /* LAST serves an allreduce: a rooted reduction's root is its natural last reader. */
    return reduce_common(sbuf, rbuf, count, dt, op, root, mode == FY_SHMR_LAST ? FY_SHMR_FLAT : mode,
                         c);
}

int fy_shm_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                     int mode, fy_comm_t *c)
{
    return reduce_common(sbuf, rbuf, count, dt, op, -1, mode, c);
}

/* ---- Rows of the selection tables: on a decline (no slot, the same on every member) the
 * dispatcher chooses again, and the shared-memory rows no longer qualify. */

int fy_barrier_shm(fy_comm_t *c)
{
    int rc = fy_shm_barrier(c);
    return rc == FY_SHM_DECLINED ? fy_barrier(c) : rc;
}

int fy_bcast_shm(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c)
{
    int rc = fy_shm_bcast(buf, count, dt, root, c);
    return rc == FY_SHM_DECLINED ? fy_bcast(buf, count, dt, root, c) : rc;
}

static int reduce_row(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                      int root, int mode, fy_comm_t *c)
{
    int rc = fy_shm_reduce(sbuf, rbuf, count, dt, op, root, mode, c);
    return rc == FY_SHM_DECLINED ? fy_reduce(sbuf, rbuf, count, dt, op, root, c) : rc;
}

int fy_reduce_shm(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                  int root, fy_comm_t *c)
{
    return reduce_row(sbuf, rbuf, count, dt, op, root, FY_SHMR_FLAT, c);
}

int fy_reduce_shm_slice(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                        MPI_Op op, int root, fy_comm_t *c)
{
    return reduce_row(sbuf, rbuf, count, dt, op, root, FY_SHMR_SLICE, c);
}

static int allreduce_row(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                         MPI_Op op, int mode, fy_comm_t *c)
{
    int rc = fy_shm_allreduce(sbuf, rbuf, count, dt, op, mode, c);
    return rc == FY_SHM_DECLINED ? fy_allreduce(sbuf, rbuf, count, dt, op, c) : rc;
}

int fy_allreduce_shm(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                     fy_comm_t *c)
{
    return allreduce_row(sbuf, rbuf, count, dt, op, FY_SHMR_FLAT, c);
}

int fy_allreduce_shm_slice(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                           MPI_Op op, fy_comm_t *c)
{
    return allreduce_row(sbuf, rbuf, count, dt, op, FY_SHMR_SLICE, c);
}

int fy_allreduce_shm_last(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                          MPI_Op op, fy_comm_t *c)
{
    return allreduce_row(sbuf, rbuf, count, dt, op, FY_SHMR_LAST, c);
}
