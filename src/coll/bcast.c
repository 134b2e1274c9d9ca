/* Broadcast, two algorithms (p ranks, n bytes):
 *   binomial           a binomial tree rooted at root: ceil(log2 p) (alpha + n beta) on the
 *                      longest path; few messages, for short ones
 *   scatter_allgather  the message in p near-equal pieces; a binomial scatter (each subtree
 *                      gets its pieces once), then a ring allgather of the pieces:
 *                      (ceil(log2 p) + p - 1) alpha + 2 n (p-1)/p beta, for long ones
 * scatter_allgather moves bytes: a derived type is packed at the root and unpacked elsewhere
 * (a contiguous one is used in place). */
#include "fy_select.h"

int fy_bcast_binomial(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c)
{
    int p = c->size, rel = (c->rank - root + p) % p;
    int mask = 1;
    while (mask < p) { /* receive from the parent: clear our lowest set bit */
        if (rel & mask) {
            int rc = fy_coll_recv(buf, count, dt, (rel - mask + root) % p, FY_TAG_BCAST, c);
            if (rc != MPI_SUCCESS)
                return rc;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) /* then feed the children, largest subtree first */
        if (rel + mask < p) {
            int rc = fy_coll_send(buf, count, dt, (rel + mask + root) % p, FY_TAG_BCAST, c);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    return MPI_SUCCESS;
}

void fy_bcast_binomial_sched(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt,
                             int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    int p = c->size, rel = (c->rank - root + p) % p;
    if (count == 0 || dt->size == 0)
        return; /* nothing to move (the same on every rank: the signature is empty) */
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            fy_sched_recv(s, buf, count, dt, (rel - mask + root) % p);
            fy_sched_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) /* every child at once, largest subtree first */
        if (rel + mask < p)
            fy_sched_send(s, buf, count, dt, (rel + mask + root) % p);
}

static void scatter_allgather(fy_emit_t *e, void *buf, MPI_Aint count, const fy_dtype_t *dt,
                              int root)
{
    int p = e->c->size, rel = (e->c->rank - root + p) % p;
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    MPI_Aint n = (MPI_Aint)fy_dtype_bytes(dt, count);
    if (p == 1 || n == 0)
        return;
    char *bytes = dt->contig ? (char *)buf + dt->lb : fy_emit_scratch(e, 0, (size_t)n);
    if (!bytes)
        return;
    if (!dt->contig && rel == 0)
        fy_emit_copy(e, buf, count, dt, bytes, n, byte);
#define AT(i) fy_emit_cut(n, p, (i) < p ? (i) : p) /* piece i, relative to the root */
#define PEER(r) (((r) + root) % p)
    /* Scatter: the subtree of relative rank r (r and the 2^k - 1 ranks above it, k its lowest
     * set bit) receives pieces [r, r + 2^k) from r - 2^k. */
    int mask = 1;
    while (mask < p) {
        if (rel & mask) {
            fy_emit_recv(e, bytes + AT(rel), AT(rel + mask) - AT(rel), byte, PEER(rel - mask));
            fy_emit_wait(e);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < p)
            fy_emit_send(e, bytes + AT(rel + mask), AT(rel + 2 * mask) - AT(rel + mask), byte,
                         PEER(rel + mask));
    fy_emit_wait(e);
    /* Ring allgather of the pieces, in relative numbering. */
    for (int k = 0; k < p - 1; k++) {
        int out = (rel - k + p) % p, in = (rel - k - 1 + p) % p;
        fy_emit_sendrecv(e, bytes + AT(out), AT(out + 1) - AT(out), byte, PEER(rel + 1),
                         bytes + AT(in), AT(in + 1) - AT(in), byte, PEER(rel - 1 + p));
    }
#undef AT
#undef PEER
    if (!dt->contig && rel != 0)
        fy_emit_copy(e, bytes, n, byte, buf, count, dt);
}

int fy_bcast_scatter_allgather(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root,
                               fy_comm_t *c)
{
    fy_emit_t e = fy_emit_blocking(c, FY_TAG_BCAST);
    scatter_allgather(&e, buf, count, dt, root);
    fy_coll_scratch_done(); /* the API edge frees scratch after reductions only */
    return e.rc;
}

void fy_bcast_scatter_allgather_sched(fy_sched_t *s, void *buf, MPI_Aint count,
                                      const fy_dtype_t *dt, int root)
{
    fy_emit_t e = fy_emit_sched(s);
    scatter_allgather(&e, buf, count, dt, root);
}
