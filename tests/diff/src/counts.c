/* MPI_Get_count and MPI_Get_elements on received messages, and the sizes and extents of
 * derived datatypes. Every rank sends to rank 0 (itself included, via Isend) messages
 * built from derived types; rank 0 receives them as other types and prints the counts. */
#include <mpi.h>
#include <stdio.h>

static void show(const char *what, MPI_Status *st, MPI_Datatype t)
{
    int count, elems;
    MPI_Get_count(st, t, &count);
    MPI_Get_elements(st, t, &elems);
    printf("%-28s count=", what);
    if (count == MPI_UNDEFINED)
        printf("MPI_UNDEFINED");
    else
        printf("%d", count);
    printf(" elements=");
    if (elems == MPI_UNDEFINED)
        printf("MPI_UNDEFINED");
    else
        printf("%d", elems);
    printf("\n");
}

static void describe(const char *name, MPI_Datatype t)
{
    int size;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    printf("type %-12s size=%d lb=%ld extent=%ld true_lb=%ld true_extent=%ld\n", name, size,
           (long)lb, (long)extent, (long)tlb, (long)textent);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Datatype pair, vec, strct, resized;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int bl[3] = {1, 2, 1};
    MPI_Aint disp[3] = {0, 8, 24};
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, types, &strct);
    MPI_Type_commit(&strct);
    MPI_Type_create_resized(pair, -4, 16, &resized);
    MPI_Type_commit(&resized);

    if (rank == 0) {
        describe("pair", pair);
        describe("vector", vec);
        describe("struct", strct);
        describe("resized", resized);
    }

    /* Each rank sends 5 + rank ints, 2 vectors, 1 struct and 0 bytes to rank 0. */
    int src_ints[64];
    for (int i = 0; i < 64; i++)
        src_ints[i] = i;
    char sbuf[256] = {0};
    MPI_Request rq[4];
    MPI_Isend(src_ints, 5 + rank, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(src_ints, 2, vec, 0, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(sbuf, 1, strct, 0, 3, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(sbuf, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD, &rq[3]);

    if (rank == 0) {
        char buf[4096];
        MPI_Status st;
        char what[64];
        for (int src = 0; src < size; src++) {
            printf("from rank %d:\n", src);
            MPI_Recv(buf, 64, MPI_INT, src, 1, MPI_COMM_WORLD, &st);
            show("  ints as MPI_INT", &st, MPI_INT);
            show("  ints as pair", &st, pair);
            show("  ints as MPI_BYTE", &st, MPI_BYTE);
            show("  ints as MPI_DOUBLE", &st, MPI_DOUBLE);
            MPI_Recv(buf, 12, MPI_INT, src, 2, MPI_COMM_WORLD, &st);
            show("  2 vectors as MPI_INT", &st, MPI_INT);
            show("  2 vectors as vector", &st, vec);
            show("  2 vectors as pair", &st, pair);
            MPI_Recv(buf, 1, strct, src, 3, MPI_COMM_WORLD, &st);
            show("  struct as struct", &st, strct);
            show("  struct as MPI_BYTE", &st, MPI_BYTE);
            MPI_Recv(buf, 10, MPI_BYTE, src, 4, MPI_COMM_WORLD, &st);
            snprintf(what, sizeof what, "  empty as MPI_INT");
            show(what, &st, MPI_INT);
            show("  empty as struct", &st, strct);
        }
    }
    MPI_Status sts[4];
    MPI_Waitall(4, rq, sts);

    /* Count of a status filled by MPI_Status_set_elements. */
    if (rank == 0) {
        MPI_Status st;
        MPI_Status_set_elements(&st, MPI_INT, 6);
        show("set_elements 6 MPI_INT", &st, pair);
        MPI_Status_set_elements(&st, pair, 3);
        show("set_elements 3 pair", &st, MPI_INT);
    }
    MPI_Type_free(&resized);
    MPI_Type_free(&strct);
    MPI_Type_free(&vec);
    MPI_Type_free(&pair);
    MPI_Finalize();
    return 0;
}
