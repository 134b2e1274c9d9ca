/* Differential: the object model of issue 5, printed by rank 0 so that MPICH and Ferry can be
 * compared line by line: communicator splits (sizes, orders), comparisons, group operations and
 * translations, intercommunicator sizes and merges, Dims_create, Cartesian coordinates and
 * shifts, graph neighbours. Only behaviour the standard fixes is printed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size;

/* Rank 0 prints one line per rank, gathered in rank order. */
static void print_all(const char *what, const int *v, int n)
{
    int *all = malloc(sizeof(int) * (size_t)n * (size_t)size);
    MPI_Gather(v, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0; r < size; r++) {
            printf("%s rank %d:", what, r);
            for (int i = 0; i < n; i++)
                printf(" %d", all[r * n + i]);
            printf("\n");
        }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* Splits. */
    MPI_Comm s1, s2;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &s1);
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? MPI_UNDEFINED : 0, 0, &s2);
    int v[8] = {0};
    MPI_Comm_rank(s1, &v[0]);
    MPI_Comm_size(s1, &v[1]);
    v[2] = s2 == MPI_COMM_NULL;
    if (s2 != MPI_COMM_NULL)
        MPI_Comm_rank(s2, &v[3]);
    MPI_Comm_compare(MPI_COMM_WORLD, s1, &v[4]);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Comm_compare(MPI_COMM_WORLD, d, &v[5]);
    print_all("split", v, 6);

    /* Groups. */
    MPI_Group w, g1, g2, u, in, df;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    MPI_Comm_group(s1, &g1);
    int range[1][3] = {{size - 1, 0, -2}};
    MPI_Group_range_incl(w, 1, range, &g2);
    MPI_Group_union(g1, g2, &u);
    MPI_Group_intersection(g1, g2, &in);
    MPI_Group_difference(w, g2, &df);
    int gs[6];
    MPI_Group_size(g1, &gs[0]);
    MPI_Group_size(g2, &gs[1]);
    MPI_Group_size(u, &gs[2]);
    MPI_Group_size(in, &gs[3]);
    MPI_Group_size(df, &gs[4]);
    MPI_Group_compare(u, w, &gs[5]);
    print_all("groups", gs, 6);
    int ranks[8], out[8];
    for (int i = 0; i < size && i < 8; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(w, size < 8 ? size : 8, ranks, g2, out);
    int n8[8];
    for (int i = 0; i < 8; i++)
        n8[i] = i < size ? out[i] : -7;
    print_all("translate", n8, 8);
    MPI_Group_rank(g2, &v[0]);
    print_all("g2 rank", v, 1);

    /* Intercommunicator between the halves. */
    if (size >= 2) {
        MPI_Comm ic, local;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &local);
        MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 5, &ic);
        MPI_Comm_remote_size(ic, &v[0]);
        MPI_Comm_size(ic, &v[1]);
        MPI_Comm merged;
        MPI_Intercomm_merge(ic, rank % 2, &merged);
        MPI_Comm_rank(merged, &v[2]);
        print_all("inter", v, 3);
        MPI_Comm_free(&merged);
        MPI_Comm_free(&ic);
        MPI_Comm_free(&local);
    }

    /* Topologies. */
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size, 3, dims);
    int periods[3] = {1, 0, 1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
    int c[7] = {dims[0], dims[1], dims[2], 0, 0, 0, 0};
    MPI_Cart_coords(cart, rank, 3, &c[3]);
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    c[6] = dst;
    print_all("cart", c, 7);
    int dd[6] = {0};
    for (int n = 1; n <= 6; n++) {
        int t[2] = {0, 0};
        MPI_Dims_create(n * 12, 2, t);
        dd[n - 1] = t[0] * 1000 + t[1];
    }
    print_all("dims", dd, 6);
    MPI_Comm_free(&cart);

    MPI_Group_free(&df);
    MPI_Group_free(&in);
    MPI_Group_free(&u);
    MPI_Group_free(&g2);
    MPI_Group_free(&g1);
    MPI_Group_free(&w);
    MPI_Comm_free(&d);
    MPI_Comm_free(&s1);
    if (s2 != MPI_COMM_NULL)
        MPI_Comm_free(&s2);
    MPI_Finalize();
    return 0;
}
