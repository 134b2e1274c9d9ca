/* Reduce along a binomial tree towards root: ceil(log2 p) steps, each a whole-vector message
 * and one local reduction. Operators here are the predefined, commutative ones, so partial
 * results may combine in tree order. */
#include <stdlib.h>
#include <string.h>

#include "fy_coll.h"
#include "fy_err.h"
#include "fy_op.h"

int fy_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
              int root, fy_comm_t *c)
{
    int p = c->size, rel = (c->rank - root + p) % p;
    size_t span = (size_t)dt->extent * (size_t)count;
    char *acc = c->rank == root ? rbuf : fy_coll_scratch(1, span ? span : 1);
    char *tmp = fy_coll_scratch(0, span ? span : 1);
    int rc = MPI_SUCCESS;
    if (!acc || !tmp)
        return MPI_ERR_NO_MEM;
    if (acc != sbuf)
        memcpy(acc, sbuf, span);
    for (int mask = 1; mask < p; mask <<= 1) {
        if (rel & mask) {
            rc = fy_coll_send(acc, count, dt, (rel - mask + root) % p, FY_TAG_REDUCE, c);
            break;
        }
        if (rel + mask < p) {
            rc = fy_coll_recv(tmp, count, dt, (rel + mask + root) % p, FY_TAG_REDUCE, c);
            if (rc != MPI_SUCCESS)
                break;
            fy_op_apply(op, dt, tmp, acc, count);
        }
    }
    return rc;
}
