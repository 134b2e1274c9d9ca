/* User operators shared by the collective tests (coll_cases.h, coll_algos.c, coll_inter.c).
 *
 * affine_fn: a pair of unsigned ints (m, c) is the map x -> m x + c, modulo 2^32; combining
 * composes the maps, `in` (the lower ranks) applied first: inout = inout o in. Not
 * commutative, so a wrong order of combination gives another answer (odd factors never
 * collapse to 0).
 * vsum_fn: a commutative sum over MPI_Type_vector(2, 1, 3, MPI_INT) (ints 0 and 3 of every 4),
 * reading its two ints per element through the holes and leaving the holes alone (predefined
 * operators on derived types are not required by the standard). */
#ifndef COLL_OPS_H
#define COLL_OPS_H

#include <mpi.h>

static inline void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int k = 0; k < *len; k++) {
        unsigned m1 = a[2 * k], c1 = a[2 * k + 1], m2 = b[2 * k], c2 = b[2 * k + 1];
        b[2 * k] = m2 * m1;
        b[2 * k + 1] = m2 * c1 + c2;
    }
}

static inline void vsum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const int *a = in;
    int *b = inout;
    for (int k = 0; k < *len; k++) {
        b[4 * k] += a[4 * k];
        b[4 * k + 3] += a[4 * k + 3];
    }
}

#endif
