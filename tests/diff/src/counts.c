/* Moved to later issues (datatypes): derived types' sizes/extents/counts, partial pairs. */
/* MPI_Get_count and MPI_Get_elements on received messages, with predefined datatypes only
 * (including the pair types), and the sizes and extents of predefined datatypes. Every rank
 * sends to rank 0 (itself included, via Isend) messages shorter than the receive buffer;
 * rank 0 receives them and prints the counts of each status taken as several types.
 * Statuses also come from Probe, Mprobe/Mrecv, Sendrecv, Wait/Test families, PROC_NULL and
 * MPI_Status_set_elements. Messages are shorter than the receive buffer (partial receives);
 * some queries count a message in bytes or in another predefined type of other size (ints
 * as MPI_SHORT or MPI_DOUBLE). A message of ints is never counted as MPI_2INT pairs when the
 * count is odd: the standard and MPICH disagree there. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static void show(const char *what, MPI_Status *st, MPI_Datatype t)
{
    int count, elems;
    MPI_Get_count(st, t, &count);
    MPI_Get_elements(st, t, &elems);
    printf("%-32s count=", what);
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
    printf("type %-20s size=%d lb=%ld extent=%ld true_lb=%ld true_extent=%ld\n", name, size,
           (long)lb, (long)extent, (long)tlb, (long)textent);
}

struct dint {
    double d;
    int i;
};
struct sint {
    short s;
    int i;
};

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        static const struct {
            const char *name;
            MPI_Datatype t;
        } types[] = {
            {"MPI_CHAR", MPI_CHAR},           {"MPI_BYTE", MPI_BYTE},
            {"MPI_SHORT", MPI_SHORT},         {"MPI_INT", MPI_INT},
            {"MPI_LONG", MPI_LONG},           {"MPI_LONG_LONG", MPI_LONG_LONG},
            {"MPI_FLOAT", MPI_FLOAT},         {"MPI_DOUBLE", MPI_DOUBLE},
            {"MPI_INT64_T", MPI_INT64_T},     {"MPI_C_BOOL", MPI_C_BOOL},
            {"MPI_AINT", MPI_AINT},           {"MPI_2INT", MPI_2INT},
            {"MPI_SHORT_INT", MPI_SHORT_INT}, {"MPI_FLOAT_INT", MPI_FLOAT_INT},
            {"MPI_LONG_INT", MPI_LONG_INT},   {"MPI_DOUBLE_INT", MPI_DOUBLE_INT},
        };
        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
            describe(types[i].name, types[i].t);
    }

    /* Each rank sends to rank 0: 5 + rank ints; 1 + rank DOUBLE_INT pairs; 3 SHORT_INT
     * pairs; 2 * rank + 1 2INT pairs; 13 bytes; nothing. */
    int ints[64];
    for (int i = 0; i < 64; i++)
        ints[i] = i;
    struct dint di[8];
    struct sint si[3];
    memset(di, 0, sizeof di);
    memset(si, 0, sizeof si);
    for (int i = 0; i < 8; i++)
        di[i] = (struct dint){i * 0.5 + rank, i - rank};
    for (int i = 0; i < 3; i++)
        si[i] = (struct sint){(short)(i + 1), 10 * rank + i};
    char bytes[13] = "thirteen byte";
    MPI_Request rq[6];
    MPI_Isend(ints, 5 + rank, MPI_INT, 0, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(di, 1 + rank, MPI_DOUBLE_INT, 0, 2, MPI_COMM_WORLD, &rq[1]);
    MPI_Isend(si, 3, MPI_SHORT_INT, 0, 3, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(ints, 2 * rank + 1, MPI_2INT, 0, 4, MPI_COMM_WORLD, &rq[3]);
    MPI_Isend(bytes, 13, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &rq[4]);
    MPI_Isend(NULL, 0, MPI_BYTE, 0, 6, MPI_COMM_WORLD, &rq[5]);

    if (rank == 0) {
        union {
            char c[4096];
            int i[1024];
            struct dint di[256];
            struct sint si[256];
        } buf;
        MPI_Status st;
        for (int src = 0; src < size; src++) {
            printf("from rank %d:\n", src);

            MPI_Recv(buf.i, 64, MPI_INT, src, 1, MPI_COMM_WORLD, &st);
            show("  ints as MPI_INT", &st, MPI_INT);
            show("  ints as MPI_BYTE", &st, MPI_BYTE);
            show("  ints as MPI_SHORT", &st, MPI_SHORT);
            show("  ints as MPI_DOUBLE", &st, MPI_DOUBLE);
            printf("  ints last=%d\n", buf.i[4 + src]);

            /* Probe first: the count is known before the receive. */
            MPI_Probe(src, 2, MPI_COMM_WORLD, &st);
            show("  probed DOUBLE_INT", &st, MPI_DOUBLE_INT);
            MPI_Recv(buf.di, 16, MPI_DOUBLE_INT, src, 2, MPI_COMM_WORLD, &st);
            show("  DOUBLE_INT as MPI_DOUBLE_INT", &st, MPI_DOUBLE_INT);
            show("  DOUBLE_INT as MPI_BYTE", &st, MPI_BYTE);
            printf("  DOUBLE_INT last=(%g,%d)\n", buf.di[src].d, buf.di[src].i);

            MPI_Message msg;
            MPI_Mprobe(src, 3, MPI_COMM_WORLD, &msg, &st);
            show("  mprobed SHORT_INT", &st, MPI_SHORT_INT);
            MPI_Mrecv(buf.si, 10, MPI_SHORT_INT, &msg, &st);
            show("  SHORT_INT as MPI_SHORT_INT", &st, MPI_SHORT_INT);
            show("  SHORT_INT as MPI_BYTE", &st, MPI_BYTE);
            printf("  SHORT_INT last=(%d,%d)\n", buf.si[2].s, buf.si[2].i);

            MPI_Recv(buf.i, 64, MPI_2INT, src, 4, MPI_COMM_WORLD, &st);
            show("  2INT as MPI_2INT", &st, MPI_2INT);
            show("  2INT as MPI_INT", &st, MPI_INT);
            show("  2INT as MPI_LONG_LONG", &st, MPI_LONG_LONG);

            MPI_Recv(buf.c, 100, MPI_BYTE, src, 5, MPI_COMM_WORLD, &st);
            show("  13 bytes as MPI_BYTE", &st, MPI_BYTE);
            show("  13 bytes as MPI_CHAR", &st, MPI_CHAR);
            show("  13 bytes as MPI_INT", &st, MPI_INT);
            printf("  13 bytes: %.13s\n", buf.c);

            MPI_Recv(buf.c, 10, MPI_BYTE, src, 6, MPI_COMM_WORLD, &st);
            show("  empty as MPI_INT", &st, MPI_INT);
            show("  empty as MPI_DOUBLE_INT", &st, MPI_DOUBLE_INT);
        }
    }
    MPI_Status sts[6];
    MPI_Waitall(6, rq, sts);

    /* Statuses from Sendrecv, Test and a receive from MPI_PROC_NULL. */
    {
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        double out[7] = {0}, in[9];
        MPI_Status st;
        MPI_Sendrecv(out, 3 + rank % 2, MPI_DOUBLE, right, 7, in, 9, MPI_DOUBLE, left, 7,
                     MPI_COMM_WORLD, &st);
        int c;
        MPI_Get_count(&st, MPI_DOUBLE, &c);
        int cs[64];
        if (rank == 0) {
            cs[0] = c;
            for (int r = 1; r < size; r++)
                MPI_Recv(&cs[r], 1, MPI_INT, r, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("sendrecv counts:");
            for (int r = 0; r < size; r++)
                printf(" %d", cs[r]);
            printf("\n");
        } else {
            MPI_Send(&c, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }

        long l[4] = {1, 2, 3, 4};
        MPI_Request r;
        MPI_Irecv(in, 9, MPI_DOUBLE, rank, 9, MPI_COMM_WORLD, &r);
        MPI_Send(l, 3, MPI_LONG, rank, 9, MPI_COMM_WORLD);
        int flag = 0;
        while (!flag)
            MPI_Test(&r, &flag, &st);
        if (rank == 0)
            show("self 3 longs as MPI_LONG", &st, MPI_LONG);

        MPI_Recv(in, 9, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
        if (rank == 0) {
            printf("PROC_NULL source=%d tag=%d\n", st.MPI_SOURCE, st.MPI_TAG);
            show("PROC_NULL as MPI_DOUBLE", &st, MPI_DOUBLE);
        }
    }

    /* Count of a status filled by MPI_Status_set_elements. */
    if (rank == 0) {
        MPI_Status st;
        MPI_Status_set_elements(&st, MPI_INT, 6);
        show("set_elements 6 MPI_INT", &st, MPI_2INT);
        MPI_Status_set_elements(&st, MPI_DOUBLE, 5);
        show("set_elements 5 MPI_DOUBLE", &st, MPI_INT);
        MPI_Status_set_elements(&st, MPI_BYTE, 0);
        show("set_elements 0 MPI_BYTE", &st, MPI_DOUBLE_INT);
    }
    MPI_Finalize();
    return 0;
}
