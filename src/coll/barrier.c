/* Barrier by dissemination: ceil(log2 p) rounds; in round k each rank signals rank+2^k and
 * waits for rank-2^k. Works for any p, no root, every rank busy in every round. */
#include "fy_select.h"

int fy_barrier_dissemination(fy_comm_t *c)
{
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    for (int k = 1; k < c->size; k <<= 1) {
        int to = (c->rank + k) % c->size;
        int from = (c->rank - k + c->size) % c->size;
        int rc = fy_coll_sendrecv(NULL, 0, byte, to, NULL, 0, byte, from, FY_TAG_BARRIER, c);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void fy_barrier_dissemination_sched(fy_sched_t *s)
{
    fy_comm_t *c = fy_sched_comm(s);
    const fy_dtype_t *byte = fy_dtype_get(MPI_BYTE);
    for (int k = 1; k < c->size; k <<= 1) {
        fy_sched_recv(s, NULL, 0, byte, (c->rank - k + c->size) % c->size);
        fy_sched_send(s, NULL, 0, byte, (c->rank + k) % c->size);
        fy_sched_round(s);
    }
}
