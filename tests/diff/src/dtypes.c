/* Derived datatypes, differential: for a fixed list of types built with every constructor
 * (nested, negative strides and displacements, resized with a negative lower bound, structs
 * laid out as C structs, subarrays in both orders, darrays of a 2x3 process grid), rank 0
 * prints the size, bounds, true bounds, the envelope (combiner and counts) and the contents'
 * integers, and a checksum of the bytes MPI_Pack produces for two elements of a fixed input.
 * Then every rank sends rank 0 a column of a matrix, a subarray face and an array of structs;
 * rank 0 receives them into contiguous buffers and derived types and prints checksums and
 * Get_count / Get_elements, including partial messages (MPI_UNDEFINED counts).
 *
 * Only what MPI 4.1 defines and MPICH 4.0 gets right is printed: no Pack_size (the packed
 * format may carry a header), no true bounds of cyclic darrays, no Get_elements of types that
 * mix basic types, no structs of a single basic type (their padding is implementation-defined),
 * and long double padding bytes are zero in the input and the output buffer. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static unsigned long fnv(const unsigned char *p, size_t n)
{
    unsigned long h = 1469598103934665603ul;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ul;
    return h;
}

static unsigned char in[1 << 16], out[1 << 16];

static void fill_input(void)
{
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 31 + (i >> 7) * 7 + 5);
}

static void show(const char *name, MPI_Datatype t)
{
    int size, ni, na, nd, comb, pos = 0;
    MPI_Aint lb, ex, tlb, tex;
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ex);
    MPI_Type_get_true_extent(t, &tlb, &tex);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    printf("%-26s size %5d lb %6ld extent %6ld", name, size, (long)lb, (long)ex);
    if (strstr(name, "cyclic"))
        printf(" true (not compared)");
    else
        printf(" true %6ld %6ld", (long)tlb, (long)tex);
    printf(" combiner %2d n %d %d %d", comb, ni, na, nd);
    if (comb != MPI_COMBINER_NAMED) {
        int ints[64];
        MPI_Aint addrs[64];
        MPI_Datatype types[64];
        MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
        printf(" ints");
        for (int i = 0; i < ni; i++)
            printf(" %d", ints[i]);
        printf(" addrs");
        for (int i = 0; i < na; i++)
            printf(" %ld", (long)addrs[i]);
        for (int i = 0; i < nd; i++) {
            int a, b, c, k;
            MPI_Type_get_envelope(types[i], &a, &b, &c, &k);
            if (k != MPI_COMBINER_NAMED)
                MPI_Type_free(&types[i]);
        }
    }
    memset(out, 0, sizeof out);
    MPI_Pack(in + 4096, 2, t, out, (int)sizeof out, &pos, MPI_COMM_WORLD);
    printf("\n%-26s packed 2: %d bytes, fnv %016lx\n", "", pos, fnv(out, (size_t)pos));
    MPI_Type_free(&t);
}

typedef struct {
    char c;
    double d;
    short s[3];
} rec_t;

typedef struct {
    long double v;
    char c;
} ldc_t;

static MPI_Datatype rec_type(void)
{
    MPI_Datatype t;
    MPI_Type_create_struct(3, (int[]){1, 1, 3},
                           (MPI_Aint[]){offsetof(rec_t, c), offsetof(rec_t, d), offsetof(rec_t, s)},
                           (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, &t);
    return t;
}

static void show_types(void)
{
    MPI_Datatype t, a, b;
    MPI_Type_contiguous(5, MPI_INT, &t);
    show("contiguous", t);
    MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &t);
    show("vector", t);
    MPI_Type_vector(3, 2, -4, MPI_SHORT, &t);
    show("vector negative", t);
    MPI_Type_create_hvector(3, 2, 28, MPI_FLOAT, &t);
    show("hvector", t);
    MPI_Type_indexed(3, (int[]){2, 0, 4}, (int[]){7, 1, -2}, MPI_INT, &t);
    show("indexed", t);
    MPI_Type_create_hindexed(3, (int[]){1, 2, 3}, (MPI_Aint[]){40, -8, 17}, MPI_CHAR, &t);
    show("hindexed", t);
    MPI_Type_create_indexed_block(4, 2, (int[]){0, 5, 2, 9}, MPI_DOUBLE, &t);
    show("indexed_block", t);
    MPI_Type_create_hindexed_block(3, 2, (MPI_Aint[]){0, 100, 50}, MPI_SHORT, &t);
    show("hindexed_block", t);
    show("struct rec", rec_type());
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 4},
                           (MPI_Datatype[]){MPI_INT, MPI_CHAR}, &t);
    show("struct int char", t);
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){-7, 5},
                           (MPI_Datatype[]){MPI_INT, MPI_CHAR}, &t);
    show("struct negative", t);
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){offsetof(ldc_t, v), offsetof(ldc_t, c)},
                           (MPI_Datatype[]){MPI_LONG_DOUBLE, MPI_CHAR}, &t);
    /* Zero long double padding in the input: MPICH copies only the value's bytes. */
    for (int k = 0; k < 2; k++)
        memset(in + 4096 + k * sizeof(ldc_t) + 10, 0, 6);
    show("struct long double", t);
    fill_input();

    int sz[3] = {5, 4, 6}, sub[3] = {2, 3, 4}, st[3] = {1, 0, 2};
    MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_C, MPI_INT, &t);
    show("subarray C", t);
    MPI_Type_create_subarray(3, sz, sub, st, MPI_ORDER_FORTRAN, MPI_SHORT, &t);
    show("subarray Fortran", t);
    for (int r = 0; r < 6; r++) {
        char name[64];
        int g[2] = {7, 9}, ps[2] = {2, 3};
        snprintf(name, sizeof name, "darray block r%d", r);
        MPI_Type_create_darray(6, r, 2, g, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
                               (int[]){MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps,
                               MPI_ORDER_C, MPI_INT, &t);
        show(name, t);
        snprintf(name, sizeof name, "darray cyclic r%d", r);
        MPI_Type_create_darray(6, r, 2, g, (int[]){MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC},
                               (int[]){2, MPI_DISTRIBUTE_DFLT_DARG}, ps, MPI_ORDER_FORTRAN,
                               MPI_CHAR, &t);
        show(name, t);
        snprintf(name, sizeof name, "darray none/block r%d", r);
        MPI_Type_create_darray(
            6, r, 2, (int[]){12, 5}, (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
            (int[]){2, MPI_DISTRIBUTE_DFLT_DARG}, (int[]){6, 1}, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
        show(name, t);
    }
    MPI_Type_vector(3, 1, 4, MPI_INT, &a);
    MPI_Type_create_resized(a, -8, 100, &t);
    show("resized negative lb", t);
    MPI_Type_create_resized(a, 4, 6, &b);
    MPI_Type_contiguous(3, b, &t);
    show("contiguous of resized", t);
    MPI_Type_free(&b);
    MPI_Type_dup(a, &t);
    show("dup", t);
    b = rec_type();
    MPI_Type_create_hvector(2, 1, 20, b, &t);
    show("hvector of struct", t);
    MPI_Type_vector(2, 2, 3, b, &t);
    show("vector of struct", t);
    MPI_Type_create_struct(3, (int[]){2, 1, 1}, (MPI_Aint[]){0, 60, 100},
                           (MPI_Datatype[]){b, a, MPI_SHORT}, &t);
    show("struct of types", t);
    MPI_Type_free(&b);
    MPI_Type_indexed(2, (int[]){1, 2}, (int[]){3, 0}, a, &t);
    show("indexed of vector", t);
    MPI_Type_free(&a);
}

static void show_counts(const char *what, MPI_Status *st, MPI_Datatype t, int elements)
{
    int c, e = -1;
    MPI_Get_count(st, t, &c);
    if (elements)
        MPI_Get_elements(st, t, &e);
    printf("  %-34s count ", what);
    if (c == MPI_UNDEFINED)
        printf("MPI_UNDEFINED");
    else
        printf("%d", c);
    if (elements)
        printf(" elements %d", e);
    printf("\n");
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fill_input();
    if (rank == 0)
        show_types();

    /* Every rank sends rank 0: a column of 50 rows of a 50x4 matrix; a 2-D face of a
     * 6x5x4 array; 7 records; 11 ints in 3 messages (partial receives). */
    enum { ROWS = 50 };
    static double mat[ROWS][4], face[6][5][4];
    rec_t recs[7];
    int ints[11];
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < 4; j++)
            mat[i][j] = rank * 1000 + i * 4 + j;
    for (int i = 0; i < 6 * 5 * 4; i++)
        (&face[0][0][0])[i] = rank + i * 0.5;
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < 7; i++)
        recs[i] = (rec_t){(char)('A' + rank + i), i * 0.25, {(short)i, (short)rank, 3}};
    for (int i = 0; i < 11; i++)
        ints[i] = rank * 100 + i;
    MPI_Datatype col, fc, rec, rec_r, v3;
    MPI_Type_vector(ROWS, 1, 4, MPI_DOUBLE, &col);
    MPI_Type_create_subarray(3, (int[]){6, 5, 4}, (int[]){6, 1, 4}, (int[]){0, 3, 0}, MPI_ORDER_C,
                             MPI_DOUBLE, &fc);
    rec = rec_type();
    MPI_Type_create_resized(rec, 0, sizeof(rec_t), &rec_r);
    MPI_Type_vector(2, 1, 2, MPI_INT, &v3); /* two ints, every other one */
    MPI_Type_commit(&col);
    MPI_Type_commit(&fc);
    MPI_Type_commit(&rec_r);
    MPI_Type_commit(&v3);
    MPI_Request rq[6];
    MPI_Isend(&mat[0][2], 1, col, 0, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(face, 1, fc, 0, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(recs, 7, rec_r, 0, 3, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(ints, 5, MPI_INT, 0, 4, MPI_COMM_WORLD, &rq[3]);
    MPI_Isend(ints, 4, MPI_INT, 0, 5, MPI_COMM_WORLD, &rq[4]);
    MPI_Isend(ints, 0, MPI_INT, 0, 6, MPI_COMM_WORLD, &rq[5]);
    if (rank == 0) {
        for (int src = 0; src < size; src++) {
            static double dbuf[400];
            static double m2[ROWS][4];
            static rec_t r2[10];
            static int ibuf[40];
            MPI_Status st;
            printf("from rank %d:\n", src);
            MPI_Recv(dbuf, 400, MPI_DOUBLE, src, 1, MPI_COMM_WORLD, &st);
            show_counts("column as doubles", &st, MPI_DOUBLE, 1);
            printf("  column fnv %016lx\n", fnv((unsigned char *)dbuf, ROWS * sizeof(double)));
            MPI_Probe(src, 2, MPI_COMM_WORLD, &st);
            show_counts("probed face as column", &st, col, 1);
            memset(m2, 0, sizeof m2);
            MPI_Recv(&m2[0][1], 1, col, src, 2, MPI_COMM_WORLD, &st); /* 24 of 50 rows */
            show_counts("face into a column", &st, col, 1);
            show_counts("face into a column, as doubles", &st, MPI_DOUBLE, 1);
            printf("  matrix fnv %016lx\n", fnv((unsigned char *)m2, sizeof m2));
            memset(r2, 0, sizeof r2);
            MPI_Recv(r2, 10, rec_r, src, 3, MPI_COMM_WORLD, &st);
            show_counts("7 records into 10", &st, rec_r, 0);
            printf("  records:");
            for (int i = 0; i < 7; i++)
                printf(" %c/%g/%d,%d,%d", r2[i].c, r2[i].d, r2[i].s[0], r2[i].s[1], r2[i].s[2]);
            printf("\n");
            memset(ibuf, 0, sizeof ibuf);
            MPI_Recv(ibuf, 10, v3, src, 4, MPI_COMM_WORLD, &st);
            show_counts("5 ints as vector(2,1,2)", &st, v3, 1);
            printf("  ints:");
            for (int i = 0; i < 12; i++)
                printf(" %d", ibuf[i]);
            printf("\n");
            MPI_Recv(ibuf, 10, v3, src, 5, MPI_COMM_WORLD, &st);
            show_counts("4 ints as vector(2,1,2)", &st, v3, 1);
            MPI_Recv(ibuf, 10, v3, src, 6, MPI_COMM_WORLD, &st);
            show_counts("0 ints as vector(2,1,2)", &st, v3, 1);
        }
    }
    for (int i = 0; i < 6; i++)
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    MPI_Type_free(&col);
    MPI_Type_free(&fc);
    MPI_Type_free(&rec);
    MPI_Type_free(&rec_r);
    MPI_Type_free(&v3);
    MPI_Finalize();
    return 0;
}
