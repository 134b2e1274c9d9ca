/* Gather(v), Scatter(v), Allgather(v), Alltoall(v), Reduce_scatter(_block): every root, block
 * sizes 0, 1, odd and large (past the eager limit), uneven v-counts with gaps between blocks,
 * MPI_IN_PLACE where the standard allows it, a pair type (MPI_DOUBLE_INT) and the _c forms. */
#include "mpitest.h"

static int val(int from, int to, int i)
{
    return from * 1000003 + to * 1009 + i;
}

static void gathers(int n)
{
    int p = mt_size, me = mt_rank;
    int *sb = mt_malloc(sizeof(int) * (size_t)(n ? n : 1));
    int *rb = mt_malloc(sizeof(int) * (size_t)(p * n + 1));
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < n; i++)
            sb[i] = val(me, root, i);
        MPI_OK(MPI_Gather(sb, n, MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD));
        if (me == root)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < n; i++)
                    CHECK(rb[r * n + i] == val(r, root, i), "Gather n=%d root=%d block %d [%d]", n,
                          root, r, i);
        /* In place at the root: its block already sits in the receive buffer. */
        for (int i = 0; i < p * n; i++)
            rb[i] = -1;
        for (int i = 0; i < n; i++)
            rb[me * n + i] = val(me, root, i);
        MPI_OK(MPI_Gather(me == root ? MPI_IN_PLACE : sb, n, MPI_INT, rb, n, MPI_INT, root,
                          MPI_COMM_WORLD));
        if (me == root)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < n; i++)
                    CHECK(rb[r * n + i] == val(r, root, i), "Gather in place n=%d root=%d", n,
                          root);
        /* Scatter the blocks back out. */
        if (me == root)
            for (int r = 0; r < p; r++)
                for (int i = 0; i < n; i++)
                    rb[r * n + i] = val(root, r, i);
        for (int i = 0; i < n; i++)
            sb[i] = -1;
        MPI_OK(MPI_Scatter(rb, n, MPI_INT, sb, n, MPI_INT, root, MPI_COMM_WORLD));
        for (int i = 0; i < n; i++)
            CHECK(sb[i] == val(root, me, i), "Scatter n=%d root=%d [%d]", n, root, i);
    }
    /* Allgather, and in place. */
    for (int i = 0; i < n; i++)
        sb[i] = val(me, 0, i);
    MPI_OK(MPI_Allgather(sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++)
            CHECK(rb[r * n + i] == val(r, 0, i), "Allgather n=%d block %d [%d]", n, r, i);
    for (int i = 0; i < p * n; i++)
        rb[i] = me == i / (n ? n : 1) ? val(me, 1, i % (n ? n : 1)) : -1;
    MPI_OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++)
            CHECK(rb[r * n + i] == val(r, 1, i), "Allgather in place n=%d block %d", n, r);
    free(sb);
    free(rb);
}

static void alltoalls(int n)
{
    int p = mt_size, me = mt_rank;
    int *sb = mt_malloc(sizeof(int) * (size_t)(p * n + 1));
    int *rb = mt_malloc(sizeof(int) * (size_t)(p * n + 1));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++)
            sb[r * n + i] = val(me, r, i);
    MPI_OK(MPI_Alltoall(sb, n, MPI_INT, rb, n, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++)
            CHECK(rb[r * n + i] == val(r, me, i), "Alltoall n=%d from %d [%d]", n, r, i);
    MPI_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sb, n, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < n; i++)
            CHECK(sb[r * n + i] == val(r, me, i), "Alltoall in place n=%d from %d", n, r);
    free(sb);
    free(rb);
}

/* Uneven counts (rank r contributes r+k ints) placed with a gap of 3 between blocks. */
static void vforms(int k)
{
    int p = mt_size, me = mt_rank;
    int *counts = mt_malloc(sizeof(int) * (size_t)p), *displs = mt_malloc(sizeof(int) * (size_t)p);
    int total = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = r + k;
        displs[r] = total;
        total += counts[r] + 3;
    }
    int *sb = mt_malloc(sizeof(int) * (size_t)(me + k + 1));
    int *rb = mt_malloc(sizeof(int) * (size_t)(total + 1));
    for (int i = 0; i < me + k; i++)
        sb[i] = val(me, 7, i);
    int root = p - 1;
    MPI_OK(MPI_Gatherv(sb, me + k, MPI_INT, rb, counts, displs, MPI_INT, root, MPI_COMM_WORLD));
    if (me == root)
        for (int r = 0; r < p; r++)
            for (int i = 0; i < counts[r]; i++)
                CHECK(rb[displs[r] + i] == val(r, 7, i), "Gatherv k=%d block %d [%d]", k, r, i);
    for (int i = 0; i < total; i++)
        rb[i] = -7;
    MPI_OK(MPI_Allgatherv(sb, me + k, MPI_INT, rb, counts, displs, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++) {
        for (int i = 0; i < counts[r]; i++)
            CHECK(rb[displs[r] + i] == val(r, 7, i), "Allgatherv k=%d block %d [%d]", k, r, i);
        for (int g = 0; g < 3; g++)
            CHECK(rb[displs[r] + counts[r] + g] == -7, "Allgatherv wrote into a gap");
    }
    if (me == root)
        for (int r = 0; r < p; r++)
            for (int i = 0; i < counts[r]; i++)
                rb[displs[r] + i] = val(root, r, i);
    for (int i = 0; i < me + k; i++)
        sb[i] = -1;
    MPI_OK(MPI_Scatterv(rb, counts, displs, MPI_INT, sb, me + k, MPI_INT, root, MPI_COMM_WORLD));
    for (int i = 0; i < me + k; i++)
        CHECK(sb[i] == val(root, me, i), "Scatterv k=%d [%d]", k, i);
    /* Alltoallv: to rank r we send r+k ints; from rank r we get me+k. */
    int *scounts = mt_malloc(sizeof(int) * (size_t)p),
        *sdispls = mt_malloc(sizeof(int) * (size_t)p);
    int *rcounts = mt_malloc(sizeof(int) * (size_t)p),
        *rdispls = mt_malloc(sizeof(int) * (size_t)p);
    int st = 0, rt = 0;
    for (int r = 0; r < p; r++) {
        scounts[r] = r + k;
        sdispls[r] = st;
        st += scounts[r] + 1;
        rcounts[r] = me + k;
        rdispls[r] = rt;
        rt += rcounts[r] + 2;
    }
    int *a = mt_malloc(sizeof(int) * (size_t)(st + 1)),
        *b = mt_malloc(sizeof(int) * (size_t)(rt + 1));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < scounts[r]; i++)
            a[sdispls[r] + i] = val(me, r, i);
    MPI_OK(
        MPI_Alltoallv(a, scounts, sdispls, MPI_INT, b, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p; r++)
        for (int i = 0; i < rcounts[r]; i++)
            CHECK(b[rdispls[r] + i] == val(r, me, i), "Alltoallv k=%d from %d [%d]", k, r, i);
    free(a), free(b), free(scounts), free(sdispls), free(rcounts), free(rdispls);
    free(counts), free(displs), free(sb), free(rb);
}

static void reduce_scatters(int n)
{
    int p = mt_size, me = mt_rank;
    int *counts = mt_malloc(sizeof(int) * (size_t)p);
    int total = 0;
    for (int r = 0; r < p; r++)
        total += counts[r] = n + (r % 2);
    long *in = mt_malloc(sizeof(long) * (size_t)(total + p * n + 1));
    long *out = mt_malloc(sizeof(long) * (size_t)(total + p * n + 1));
    for (int i = 0; i < total; i++)
        in[i] = (long)(me + 1) * (i + 1);
    MPI_OK(MPI_Reduce_scatter(in, out, counts, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    int first = 0;
    for (int r = 0; r < me; r++)
        first += counts[r];
    long ranks = (long)p * (p + 1) / 2;
    for (int i = 0; i < counts[me]; i++)
        CHECK(out[i] == ranks * (first + i + 1), "Reduce_scatter n=%d [%d] = %ld", n, i, out[i]);
    for (int i = 0; i < p * n; i++)
        in[i] = (long)(me + 1) * (i + 1);
    MPI_OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, in, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    for (int i = 0; i < n; i++)
        CHECK(in[i] == ranks * (me * n + i + 1), "Reduce_scatter_block in place n=%d [%d]", n, i);
    free(counts), free(in), free(out);
}

static void pairs_and_large_count(void)
{
    int p = mt_size, me = mt_rank;
    struct {
        double v;
        int k;
    } mine = {me * 0.5, me}, all[64];
    MPI_OK(MPI_Allgather(&mine, 1, MPI_DOUBLE_INT, all, 1, MPI_DOUBLE_INT, MPI_COMM_WORLD));
    for (int r = 0; r < p && r < 64; r++)
        CHECK(all[r].v == r * 0.5 && all[r].k == r, "Allgather MPI_DOUBLE_INT block %d", r);
    int x = me + 100, got[64];
    MPI_OK(MPI_Gather_c(&x, 1, MPI_INT, got, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (me == 0)
        for (int r = 0; r < p && r < 64; r++)
            CHECK(got[r] == r + 100, "Gather_c block %d", r);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    const int sizes[] = {0, 1, 7, 1000, 40000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int n = mt_size >= 8 && sizes[s] > 1000 ? 5000 : sizes[s];
        gathers(n);
        alltoalls(n);
        reduce_scatters(n);
    }
    vforms(0);
    vforms(5);
    pairs_and_large_count();
    return mt_finish();
}
