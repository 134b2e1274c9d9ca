/* Collectives on intercommunicators (fy_inter.h): group A's data goes to group B and, for the
 * all-to-all kinds, B's to A at the same time. Messages between the groups use the
 * intercommunicator, phases inside a group the hidden intracommunicator c->local through the
 * intracommunicator collectives (so they get whatever algorithm selection picks there). Each
 * group's leader is its local rank 0. p is the local group's size, q the remote group's, n the
 * bytes of one process's data.
 *
 *   Barrier         local barrier; the leaders swap empty messages; the leader broadcasts a
 *                   byte in its group. A member leaves only after its leader heard from the
 *                   other leader, who had seen its whole group enter. 2 local phases + 1 hop.
 *   Bcast           the root sends to the remote leader, which broadcasts in its group.
 *                   1 hop + a local bcast.
 *   Gather(v)       linear: every member of the other group sends straight to the root, which
 *   Scatter(v)      has all its receives (sends) posted at once. q messages at the root, 1 hop.
 *   Reduce          the other group reduces to its leader (in its rank order, so
 *                   non-commutative operators are right), the leader sends to the root.
 *   Allreduce       each group reduces to its leader, the leaders swap the results, each
 *                   leader broadcasts the other group's result in its group.
 *   Reduce_scatter  as Allreduce, with a scatter(v) of the other group's result by the leader
 *   (_block)        instead of the broadcast (the counts are the local group's).
 *   Allgather(v)    every member sends its block straight to the remote leader, which receives
 *                   them all at once, packed, into one vector (the receiving side knows every
 *                   block's size, so the v-forms need no exchange of counts), then broadcasts
 *                   the vector in its group, where every member unpacks it into its blocks. q
 *                   messages at each leader, then a local bcast of the remote group's total.
 *   Alltoall(v/w)   every pair exchanges directly: all receives, then all sends, posted at once
 *                   (each process starts with a different partner). q messages per process, one
 *                   hop each; with groups of different sizes there is no pairwise schedule.
 *
 * The blocking forms use the small fixed tags on the intercommunicator's collective context;
 * their local phases are the blocking intracommunicator collectives on c->local. After a
 * failed phase the later ones still run, so that the other members are not left waiting; the
 * first error is returned. Temporary vectors are malloc'd per call: intercommunicator
 * collectives are not a latency path, and the shared scratch of fy_coll_scratch is in use by
 * the local phases (whose per-call scratch under MPI_THREAD_MULTIPLE the blocking forms release
 * when they end, fy_coll_scratch_done; the API does it after the reductions). */
#include <stdlib.h>

#include "fy_err.h"
#include "fy_inter.h"
#include "fy_op.h"
#include "fy_request.h"

static int first(int rc, int rc2)
{
    return rc != MPI_SUCCESS ? rc : rc2;
}

static int no_mem(void)
{
    return fy_err_set(MPI_ERR_NO_MEM, "collective on an intercommunicator: out of memory");
}

/* n vectors of count elements of dt, each in dt's own layout, malloc'd (*block_p is what to
 * free): the origin of vector 0; vector i starts *stride_p bytes further. NULL when out of
 * memory (message set). */
static char *vectors(const fy_dtype_t *dt, MPI_Aint count, int n, size_t *stride_p, void **block_p)
{
    size_t origin, span = fy_op_span(dt, count, &origin);
    span = (span + 63) & ~(size_t)63;
    char *b = malloc(span * (size_t)n + 1);
    *block_p = b;
    if (stride_p)
        *stride_p = span;
    if (!b) {
        no_mem();
        return NULL;
    }
    return b + origin;
}

/* The packed layout of the remote group's blocks: off[i] is where block i starts, off[q] the
 * total. NULL when out of memory. */
static size_t *packed_offsets(int q, MPI_Aint rcount, const MPI_Aint *rcounts,
                              const fy_dtype_t *rdt, size_t *mem)
{
    size_t *off = mem ? mem : malloc(sizeof *off * (size_t)(q + 1));
    if (!off)
        return NULL;
    off[0] = 0;
    for (int i = 0; i < q; i++)
        off[i + 1] = off[i] + fy_dtype_bytes(rdt, fy_coll_count(rcount, rcounts, i));
    return off;
}

/* Reduce_scatter: the element count of the whole vector, and in displs (unless NULL) the
 * displacements of the v-form's blocks in it, packed in rank order (the scatter's default
 * displacements suit equal blocks only). */
static MPI_Aint rs_total(const fy_comm_t *c, MPI_Aint rcount, const MPI_Aint *rcounts,
                         MPI_Aint *displs)
{
    MPI_Aint total = 0;
    for (int i = 0; i < c->size; i++) {
        if (displs)
            displs[i] = total;
        total += fy_coll_count(rcount, rcounts, i);
    }
    return total;
}

static char *block_at(void *buf, MPI_Aint count, const MPI_Aint *displs, const fy_dtype_t *dt,
                      int i)
{
    return (char *)buf + fy_coll_displ(count, displs, i) * dt->extent;
}

/* ---- Blocking forms ----------------------------------------------------------------- */

int fy_inter_barrier(fy_comm_t *c)
{
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    char token = 0;
    int rc = fy_barrier(c->local);
    if (c->rank == 0)
        rc = first(rc, fy_coll_sendrecv(NULL, 0, byte, 0, NULL, 0, byte, 0, FY_TAG_BARRIER, c));
    rc = first(rc, fy_bcast(&token, 1, byte, 0, c->local));
    fy_coll_scratch_done(); /* the local phases may have used per-call scratch */
    return rc;
}

int fy_inter_bcast(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c)
{
    if (root == MPI_PROC_NULL || count == 0 || dt->size == 0)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return fy_coll_send(buf, count, dt, 0, FY_TAG_BCAST, c);
    int rc = MPI_SUCCESS;
    if (c->rank == 0)
        rc = fy_coll_recv(buf, count, dt, root, FY_TAG_BCAST, c);
    rc = first(rc, fy_bcast(buf, count, dt, 0, c->local));
    fy_coll_scratch_done();
    return rc;
}

int fy_inter_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                    int root, fy_comm_t *c)
{
    if (root == MPI_PROC_NULL || count == 0)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return fy_coll_recv(rbuf, count, dt, 0, FY_TAG_REDUCE, c);
    void *block = NULL;
    char *acc = c->rank == 0 ? vectors(dt, count, 1, NULL, &block) : NULL;
    if (c->rank == 0 && !acc)
        return MPI_ERR_NO_MEM;
    int rc = fy_reduce(sbuf, acc, count, dt, op, 0, c->local);
    if (c->rank == 0)
        rc = first(rc, fy_coll_send(acc, count, dt, root, FY_TAG_REDUCE, c));
    free(block);
    return rc;
}

int fy_inter_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt,
                       MPI_Op op, fy_comm_t *c)
{
    if (count == 0)
        return MPI_SUCCESS;
    void *block = NULL;
    char *acc = c->rank == 0 ? vectors(dt, count, 1, NULL, &block) : NULL;
    int rc = c->rank == 0 && !acc ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        rc = fy_reduce(sbuf, acc, count, dt, op, 0, c->local);
    if (c->rank == 0 && acc)
        rc =
            first(rc, fy_coll_sendrecv(acc, count, dt, 0, rbuf, count, dt, 0, FY_TAG_ALLREDUCE, c));
    rc = first(rc, fy_bcast(rbuf, count, dt, 0, c->local));
    free(block);
    return rc;
}

int fy_inter_reduce_scatter(const void *sbuf, void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                            const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c)
{
    MPI_Aint total = rs_total(c, rcount, rcounts, NULL);
    if (total == 0) /* the same on both sides: each group's total is the other's */
        return MPI_SUCCESS;
    MPI_Aint *displs = rcounts ? malloc(sizeof *displs * (size_t)c->size) : NULL;
    bool ok = !rcounts || displs;
    if (displs)
        rs_total(c, rcount, rcounts, displs);
    void *block = NULL;
    size_t stride = 0;
    char *mine = c->rank == 0 ? vectors(dt, total, 2, &stride, &block) : NULL;
    char *theirs = mine ? mine + stride : NULL;
    int rc = c->rank == 0 && !mine ? MPI_ERR_NO_MEM : ok ? MPI_SUCCESS : no_mem();
    if (rc == MPI_SUCCESS)
        rc = fy_reduce(sbuf, mine, total, dt, op, 0, c->local);
    if (c->rank == 0 && mine)
        rc = first(rc, fy_coll_sendrecv(mine, total, dt, 0, theirs, total, dt, 0,
                                        FY_TAG_REDUCE_SCATTER, c));
    if (ok)
        rc = first(rc, fy_scatterv(theirs, rcount, rcounts, displs, dt, rbuf,
                                   fy_coll_count(rcount, rcounts, c->rank), dt, 0, c->local));
    free(block);
    free(displs);
    return rc;
}

/* Posts one receive (recv) or send per remote rank, then waits for them all. */
static int linear(bool recv, void *buf, MPI_Aint count, const MPI_Aint *counts,
                  const MPI_Aint *displs, const fy_dtype_t *dt, int tag, fy_comm_t *c)
{
    int q = c->peer_size, rc = MPI_SUCCESS;
    struct fy_req **reqs = calloc((size_t)q, sizeof *reqs);
    if (!reqs)
        return no_mem();
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        char *at = block_at(buf, count, displs, dt, k);
        MPI_Aint n = fy_coll_count(count, counts, k);
        reqs[k] = recv ? fy_coll_irecv(at, n, dt, k, tag, c) : fy_coll_isend(at, n, dt, k, tag, c);
        if (!reqs[k])
            rc = no_mem();
    }
    rc = first(rc, fy_coll_waitall(reqs, q));
    free(reqs);
    return rc;
}

int fy_inter_gatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                     MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                     const fy_dtype_t *rdt, int root, fy_comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root != MPI_ROOT)
        return fy_coll_send(sbuf, scount, sdt, root, FY_TAG_GATHER, c);
    return linear(true, rbuf, rcount, rcounts, displs, rdt, FY_TAG_GATHER, c);
}

int fy_inter_scatterv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                      const MPI_Aint *displs, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                      const fy_dtype_t *rdt, int root, fy_comm_t *c)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root != MPI_ROOT)
        return fy_coll_recv(rbuf, rcount, rdt, root, FY_TAG_SCATTER, c);
    return linear(false, (void *)sbuf, scount, scounts, displs, sdt, FY_TAG_SCATTER, c);
}

int fy_inter_allgatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                        MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                        const fy_dtype_t *rdt, fy_comm_t *c)
{
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    int q = c->peer_size, rc = MPI_SUCCESS;
    size_t *off = packed_offsets(q, rcount, rcounts, rdt, NULL);
    struct fy_req **reqs = calloc((size_t)q + 1, sizeof *reqs);
    char *packed = off ? malloc(off[q] + 1) : NULL;
    if (!off || !reqs || !packed) {
        free(off);
        free(reqs);
        free(packed);
        return no_mem();
    }
    for (int i = 0; c->rank == 0 && i < q && rc == MPI_SUCCESS; i++)
        if (!(reqs[i] = fy_coll_irecv(packed + off[i], (MPI_Aint)(off[i + 1] - off[i]), byte, i,
                                      FY_TAG_ALLGATHER, c)))
            rc = no_mem();
    if (rc == MPI_SUCCESS && !(reqs[q] = fy_coll_isend(sbuf, scount, sdt, 0, FY_TAG_ALLGATHER, c)))
        rc = no_mem();
    rc = first(rc, fy_coll_waitall(reqs, q + 1));
    if (off[q] > 0)
        rc = first(rc, fy_bcast(packed, (MPI_Aint)off[q], byte, 0, c->local));
    if (rc == MPI_SUCCESS)
        for (int i = 0; i < q; i++)
            fy_dtype_unpack(rdt, packed + off[i], off[i + 1] - off[i],
                            block_at(rbuf, rcount, displs, rdt, i));
    free(off);
    free(reqs);
    free(packed);
    fy_coll_scratch_done();
    return rc;
}

int fy_inter_alltoallv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                       const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                       const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                       fy_comm_t *c)
{
    int q = c->peer_size, rc = MPI_SUCCESS;
    struct fy_req **reqs = calloc(2 * (size_t)q, sizeof *reqs);
    if (!reqs)
        return no_mem();
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        int i = (c->rank + k) % q;
        if (!(reqs[k] =
                  fy_coll_irecv(block_at(rbuf, rcount, rdispls, rdt, i),
                                fy_coll_count(rcount, rcounts, i), rdt, i, FY_TAG_ALLTOALL, c)))
            rc = no_mem();
    }
    for (int k = 0; k < q && rc == MPI_SUCCESS; k++) {
        int i = (c->rank + k) % q;
        if (!(reqs[q + k] =
                  fy_coll_isend(block_at((void *)sbuf, scount, sdispls, sdt, i),
                                fy_coll_count(scount, scounts, i), sdt, i, FY_TAG_ALLTOALL, c)))
            rc = no_mem();
    }
    rc = first(rc, fy_coll_waitall(reqs, 2 * q));
    free(reqs);
    return rc;
}

/* ---- Schedules ---------------------------------------------------------------------- */

void fy_inter_barrier_sched(fy_sched_t *s)
{
    fy_comm_t *c = fy_sched_comm(s);
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    char *token = fy_sched_scratch(s, 1);
    if (!token)
        return;
    fy_sched_local(s, true);
    fy_barrier_sched(s);
    fy_sched_local(s, false);
    fy_sched_round(s);
    if (c->rank == 0) {
        fy_sched_recv(s, NULL, 0, byte, 0);
        fy_sched_send(s, NULL, 0, byte, 0);
        fy_sched_round(s);
    }
    fy_sched_local(s, true);
    fy_bcast_sched(s, token, 1, byte, 0);
    fy_sched_local(s, false);
}

void fy_inter_bcast_sched(fy_sched_t *s, void *buf, MPI_Aint count, const fy_dtype_t *dt, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (root == MPI_PROC_NULL || count == 0 || dt->size == 0)
        return;
    if (root == MPI_ROOT) {
        fy_sched_send(s, buf, count, dt, 0);
        return;
    }
    if (c->rank == 0) {
        fy_sched_recv(s, buf, count, dt, root);
        fy_sched_round(s);
    }
    fy_sched_local(s, true);
    fy_bcast_sched(s, buf, count, dt, 0);
    fy_sched_local(s, false);
}

void fy_inter_reduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                           const fy_dtype_t *dt, MPI_Op op, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (root == MPI_PROC_NULL || count == 0)
        return;
    if (root == MPI_ROOT) {
        fy_sched_recv(s, rbuf, count, dt, 0);
        return;
    }
    char *acc = NULL;
    if (c->rank == 0 && !(acc = fy_sched_scratch_typed(s, dt, count, 1, NULL)))
        return;
    fy_sched_local(s, true);
    fy_reduce_sched(s, sbuf, acc, count, dt, op, 0);
    fy_sched_local(s, false);
    fy_sched_round(s);
    if (c->rank == 0)
        fy_sched_send(s, acc, count, dt, root);
}

void fy_inter_allreduce_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint count,
                              const fy_dtype_t *dt, MPI_Op op)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (count == 0)
        return;
    char *acc = NULL;
    if (c->rank == 0 && !(acc = fy_sched_scratch_typed(s, dt, count, 1, NULL)))
        return;
    fy_sched_local(s, true);
    fy_reduce_sched(s, sbuf, acc, count, dt, op, 0);
    fy_sched_local(s, false);
    fy_sched_round(s);
    if (c->rank == 0) {
        fy_sched_recv(s, rbuf, count, dt, 0);
        fy_sched_send(s, acc, count, dt, 0);
        fy_sched_round(s);
    }
    fy_sched_local(s, true);
    fy_bcast_sched(s, rbuf, count, dt, 0);
    fy_sched_local(s, false);
}

void fy_inter_reduce_scatter_sched(fy_sched_t *s, const void *sbuf, void *rbuf, MPI_Aint rcount,
                                   const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op)
{
    fy_comm_t *c = fy_sched_comm(s);
    MPI_Aint *displs = NULL, total = rs_total(c, rcount, rcounts, NULL);
    size_t stride = 0;
    char *mine = NULL, *theirs = NULL;
    if (total == 0)
        return;
    if (rcounts) {
        if (!(displs = fy_sched_scratch(s, sizeof *displs * (size_t)c->size)))
            return;
        rs_total(c, rcount, rcounts, displs);
    }
    if (c->rank == 0) {
        if (!(mine = fy_sched_scratch_typed(s, dt, total, 2, &stride)))
            return;
        theirs = mine + stride;
    }
    fy_sched_local(s, true);
    fy_reduce_sched(s, sbuf, mine, total, dt, op, 0);
    fy_sched_local(s, false);
    fy_sched_round(s);
    if (c->rank == 0) {
        fy_sched_recv(s, theirs, total, dt, 0);
        fy_sched_send(s, mine, total, dt, 0);
        fy_sched_round(s);
    }
    fy_sched_local(s, true);
    fy_scatterv_sched(s, theirs, rcount, rcounts, displs, dt, rbuf,
                      fy_coll_count(rcount, rcounts, c->rank), dt, 0);
    fy_sched_local(s, false);
}

void fy_inter_gatherv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                            void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                            const MPI_Aint *displs, const fy_dtype_t *rdt, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (root == MPI_PROC_NULL)
        return;
    if (root != MPI_ROOT) {
        fy_sched_send(s, sbuf, scount, sdt, root);
        return;
    }
    for (int i = 0; i < c->peer_size; i++)
        fy_sched_recv(s, block_at(rbuf, rcount, displs, rdt, i), fy_coll_count(rcount, rcounts, i),
                      rdt, i);
}

void fy_inter_scatterv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                             const MPI_Aint *scounts, const MPI_Aint *displs, const fy_dtype_t *sdt,
                             void *rbuf, MPI_Aint rcount, const fy_dtype_t *rdt, int root)
{
    fy_comm_t *c = fy_sched_comm(s);
    if (root == MPI_PROC_NULL)
        return;
    if (root != MPI_ROOT) {
        fy_sched_recv(s, rbuf, rcount, rdt, root);
        return;
    }
    for (int i = 0; i < c->peer_size; i++)
        fy_sched_send(s, block_at((void *)sbuf, scount, displs, sdt, i),
                      fy_coll_count(scount, scounts, i), sdt, i);
}

void fy_inter_allgatherv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                               const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                               const MPI_Aint *rcounts, const MPI_Aint *displs,
                               const fy_dtype_t *rdt)
{
    fy_comm_t *c = fy_sched_comm(s);
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    int q = c->peer_size;
    size_t *off = fy_sched_scratch(s, sizeof *off * (size_t)(q + 1));
    if (!off)
        return;
    packed_offsets(q, rcount, rcounts, rdt, off);
    char *packed = fy_sched_scratch(s, off[q]);
    if (!packed)
        return;
    for (int i = 0; c->rank == 0 && i < q; i++)
        fy_sched_recv(s, packed + off[i], (MPI_Aint)(off[i + 1] - off[i]), byte, i);
    fy_sched_send(s, sbuf, scount, sdt, 0);
    fy_sched_round(s);
    fy_sched_local(s, true);
    fy_bcast_sched(s, packed, (MPI_Aint)off[q], byte, 0);
    fy_sched_local(s, false);
    fy_sched_round(s);
    for (int i = 0; i < q; i++)
        fy_sched_copy(s, packed + off[i], (MPI_Aint)(off[i + 1] - off[i]), byte,
                      block_at(rbuf, rcount, displs, rdt, i), fy_coll_count(rcount, rcounts, i),
                      rdt);
}

void fy_inter_alltoallv_sched(fy_sched_t *s, const void *sbuf, MPI_Aint scount,
                              const MPI_Aint *scounts, const MPI_Aint *sdispls,
                              const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                              const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                              const fy_dtype_t *rdt)
{
    fy_comm_t *c = fy_sched_comm(s);
    int q = c->peer_size;
    for (int k = 0; k < q; k++) {
        int i = (c->rank + k) % q;
        fy_sched_recv(s, block_at(rbuf, rcount, rdispls, rdt, i), fy_coll_count(rcount, rcounts, i),
                      rdt, i);
    }
    for (int k = 0; k < q; k++) {
        int i = (c->rank + k) % q;
        fy_sched_send(s, block_at((void *)sbuf, scount, sdispls, sdt, i),
                      fy_coll_count(scount, scounts, i), sdt, i);
    }
}

void fy_inter_alltoallw_sched(fy_sched_t *s, const void *sbuf, const MPI_Aint *scounts,
                              const MPI_Aint *sdispls, const fy_dtype_t *const *sdts, void *rbuf,
                              const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                              const fy_dtype_t *const *rdts)
{
    fy_comm_t *c = fy_sched_comm(s);
    int q = c->peer_size;
    for (int k = 0; k < q; k++) {
        int i = (c->rank + k) % q;
        fy_sched_recv(s, (char *)rbuf + rdispls[i], rcounts[i], rdts[i], i);
    }
    for (int k = 0; k < q; k++) {
        int i = (c->rank + k) % q;
        fy_sched_send(s, (const char *)sbuf + sdispls[i], scounts[i], sdts[i], i);
    }
}
