/* A correct program from mpi4py's Datatype.decode pattern: MPI_Type_get_contents hands out a
 * new derived type, which the library may give the handle value of a type freed just before.
 * Using and freeing it is correct; the checker must not call it a use of the freed type.
 * With the argument "leak", the returned type is not freed: a leak naming
 * MPI_Type_get_contents. A named pair type (MPI_FLOAT_INT) comes back as itself: never a leak. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    MPI_Init(&argc, &argv);
    MPI_Datatype inner, outer, gone, st;
    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_vector(2, 1, 3, inner, &outer);
    for (int k = 0; k < 4; k++) {
        MPI_Type_contiguous(3, MPI_INT, &gone);
        MPI_Type_free(&gone); /* its handle value is free for the library to reuse */
        int ints[3];
        MPI_Aint addrs[1];
        MPI_Datatype types[1];
        MPI_Type_get_contents(outer, 3, 0, 1, ints, addrs, types); /* CONTENTS */
        MPI_Aint lb, extent;
        MPI_Type_get_extent(types[0], &lb, &extent);
        int ni, na, nd, comb;
        MPI_Type_get_envelope(types[0], &ni, &na, &nd, &comb);
        if (!leak || k > 0)
            MPI_Type_free(&types[0]);
    }
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 16};
    MPI_Datatype tt[2] = {MPI_FLOAT_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, tt, &st);
    int ints[3];
    MPI_Aint addrs[2];
    MPI_Datatype types[2];
    MPI_Type_get_contents(st, 3, 2, 2, ints, addrs, types);
    MPI_Type_free(&st);
    MPI_Type_free(&outer);
    MPI_Type_free(&inner);
    MPI_Finalize();
    return 0;
}
