/* Broadcast along a binomial tree rooted at root: ceil(log2 p) steps of the whole message.
 * Right for short messages; the collectives issue adds scatter-allgather for long ones. */
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
