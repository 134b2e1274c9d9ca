/* Cartesian topologies: MPI_Dims_create (the standard's examples, balance, order, fixed entries,
 * errors), MPI_Cart_create on COMM_WORLD, COMM_SELF, a duplicate and a split numbered
 * backwards, in 1 to 3 dimensions with every pattern of periods and with reorder 0 and 1:
 * Topo_test, Cartdim_get, Cart_get, Cart_rank, Cart_coords, Cart_shift (wrap-around,
 * MPI_PROC_NULL at open edges, large displacements) checked against row-major arithmetic and by
 * sending along every shift; Cart_sub for every choice of kept dimensions (members, order,
 * sub-grid); grids smaller than the communicator (MPI_COMM_NULL for the rest), zero
 * dimensions, Cart_map, MPI_Comm_dup keeping the topology, and the errors. */
#include "mpitest.h"

#define MAXD 4

/* Row-major coordinates of rank r in dims[nd]. */
static void coords_of(int r, int nd, const int *dims, int *c)
{
    for (int i = nd - 1; i >= 0; i--) {
        c[i] = r % dims[i];
        r /= dims[i];
    }
}

static int rank_of(int nd, const int *dims, const int *c)
{
    int r = 0;
    for (int i = 0; i < nd; i++)
        r = r * dims[i] + c[i];
    return r;
}

static void check_dims_create(void)
{
    int d2[2] = {0, 0};
    MPI_OK(MPI_Dims_create(6, 2, d2));
    CHECK(d2[0] == 3 && d2[1] == 2, "Dims_create(6, 2): %d x %d, expected 3 x 2", d2[0], d2[1]);
    int d3[3] = {0, 0, 0};
    MPI_OK(MPI_Dims_create(7, 3, d3));
    CHECK(d3[0] == 7 && d3[1] == 1 && d3[2] == 1, "Dims_create(7, 3): %d %d %d", d3[0], d3[1],
          d3[2]);
    int f3[3] = {0, 3, 0};
    MPI_OK(MPI_Dims_create(6, 3, f3));
    CHECK(f3[0] == 2 && f3[1] == 3 && f3[2] == 1, "Dims_create(6, (0,3,0)): %d %d %d", f3[0], f3[1],
          f3[2]);
    int g3[3] = {0, 3, 0};
    CHECK_CLASS(MPI_Dims_create(7, 3, g3), MPI_ERR_DIMS, "Dims_create(7, (0,3,0))");
    int h[4] = {0, 0, 0, 0};
    MPI_OK(MPI_Dims_create(16, 4, h));
    CHECK(h[0] == 2 && h[1] == 2 && h[2] == 2 && h[3] == 2, "Dims_create(16, 4): %d %d %d %d", h[0],
          h[1], h[2], h[3]);
    int k[3] = {0, 0, 0};
    MPI_OK(MPI_Dims_create(24, 3, k));
    CHECK(k[0] == 4 && k[1] == 3 && k[2] == 2, "Dims_create(24, 3): %d %d %d", k[0], k[1], k[2]);
    int m[2] = {0, 0};
    MPI_OK(MPI_Dims_create(mt_size, 2, m));
    CHECK(m[0] * m[1] == mt_size && m[0] >= m[1], "Dims_create(%d, 2): %d x %d", mt_size, m[0],
          m[1]);
    /* Every nonzero entry kept, no zero entry: the product must be nnodes. */
    int full[2] = {2, 3};
    MPI_OK(MPI_Dims_create(6, 2, full));
    CHECK(full[0] == 2 && full[1] == 3, "Dims_create(6, (2,3)) changed dims");
    if (!mt_is_mpich40()) /* Known deviation, MPICH 4.0: accepts dims whose product is wrong */
        CHECK_CLASS(MPI_Dims_create(12, 2, full), MPI_ERR_DIMS, "Dims_create(12, (2,3))");
    int neg[2] = {-1, 0};
    CHECK_CLASS(MPI_Dims_create(4, 2, neg), MPI_ERR_DIMS, "Dims_create with dims[0] = -1");
    CHECK_CLASS(MPI_Dims_create(-1, 2, m), MPI_ERR_ARG, "Dims_create(nnodes -1)");
    MPI_OK(MPI_Dims_create(1, 0, NULL));
    if (!mt_is_mpich40()) { /* Known deviation, MPICH 4.0: ndims 0 accepts any nnodes */
        CHECK_CLASS(MPI_Dims_create(2, 0, NULL), MPI_ERR_DIMS, "Dims_create(2, 0)");
        /* MPICH 4.0 reports MPI_ERR_ARG; the class is ours to choose: dims are wrong */
        CHECK_CLASS(MPI_Dims_create(4, -1, m), MPI_ERR_DIMS, "Dims_create(ndims -1)");
    }
}

/* One Cartesian communicator on the grid dims[nd] with periods: every query against row-major
 * arithmetic. */
static void check_cart(MPI_Comm cart, int nd, const int *dims, const int *periods, const char *what)
{
    int n = 1;
    for (int i = 0; i < nd; i++)
        n *= dims[i];
    int r, s, status, ndims;
    MPI_Comm_rank(cart, &r);
    MPI_Comm_size(cart, &s);
    CHECK(s == n, "%s: size %d, expected %d", what, s, n);
    MPI_OK(MPI_Topo_test(cart, &status));
    CHECK(status == MPI_CART, "%s: Topo_test %d, expected MPI_CART", what, status);
    MPI_OK(MPI_Cartdim_get(cart, &ndims));
    CHECK(ndims == nd, "%s: Cartdim_get %d, expected %d", what, ndims, nd);
    int gd[MAXD], gp[MAXD], gc[MAXD], want[MAXD];
    MPI_OK(MPI_Cart_get(cart, MAXD, gd, gp, gc));
    coords_of(r, nd, dims, want);
    for (int i = 0; i < nd; i++) {
        CHECK(gd[i] == dims[i] && (gp[i] != 0) == (periods[i] != 0),
              "%s: Cart_get dim %d: %d periodic %d, expected %d, %d", what, i, gd[i], gp[i],
              dims[i], periods[i]);
        CHECK(gc[i] == want[i], "%s: rank %d coordinate %d is %d, expected %d", what, r, i, gc[i],
              want[i]);
    }
    int back = -1;
    MPI_OK(MPI_Cart_rank(cart, gc, &back));
    CHECK(back == r, "%s: Cart_rank of my coordinates %d, expected %d", what, back, r);
    for (int q = 0; q < n; q++) {
        int c[MAXD], e[MAXD];
        MPI_OK(MPI_Cart_coords(cart, q, nd, c));
        coords_of(q, nd, dims, e);
        for (int i = 0; i < nd; i++)
            CHECK(c[i] == e[i], "%s: Cart_coords(%d)[%d] = %d, expected %d", what, q, i, c[i],
                  e[i]);
        MPI_OK(MPI_Cart_rank(cart, c, &back));
        CHECK(back == q, "%s: Cart_rank(Cart_coords(%d)) = %d", what, q, back);
    }
    /* Coordinates out of range wrap in periodic dimensions and are refused in the others. */
    for (int i = 0; i < nd; i++) {
        int c[MAXD];
        for (int j = 0; j < nd; j++)
            c[j] = gc[j];
        c[i] = gc[i] - 3 * dims[i];
        int rc = MPI_Cart_rank(cart, c, &back);
        if (periods[i]) {
            MPI_OK(rc);
            CHECK(back == r, "%s: periodic Cart_rank with coordinate %d in dim %d: %d, expected %d",
                  what, c[i], i, back, r);
        } else {
            CHECK_CLASS(rc, MPI_ERR_ARG, "Cart_rank outside a non-periodic dimension");
        }
    }
    /* Shifts: against coordinates, then by sending along each dimension. */
    for (int i = 0; i < nd; i++)
        for (int disp = -dims[i] - 1; disp <= dims[i] + 1; disp++) {
            int src, dst;
            MPI_OK(MPI_Cart_shift(cart, i, disp, &src, &dst));
            for (int way = 0; way < 2; way++) {
                int c[MAXD], expect;
                for (int j = 0; j < nd; j++)
                    c[j] = gc[j];
                c[i] += way ? disp : -disp;
                if (c[i] >= 0 && c[i] < dims[i])
                    expect = rank_of(nd, dims, c);
                else if (periods[i]) {
                    c[i] = ((c[i] % dims[i]) + dims[i]) % dims[i];
                    expect = rank_of(nd, dims, c);
                } else
                    expect = MPI_PROC_NULL;
                CHECK((way ? dst : src) == expect,
                      "%s: Cart_shift(dim %d, disp %d) %s = %d, "
                      "expected %d",
                      what, i, disp, way ? "dest" : "source", way ? dst : src, expect);
            }
        }
    for (int i = 0; i < nd; i++) {
        int src, dst, got = -1;
        MPI_OK(MPI_Cart_shift(cart, i, 1, &src, &dst));
        MPI_OK(MPI_Sendrecv(&r, 1, MPI_INT, dst, 10 + i, &got, 1, MPI_INT, src, 10 + i, cart,
                            MPI_STATUS_IGNORE));
        CHECK(got == (src == MPI_PROC_NULL ? -1 : src), "%s: shift along dim %d: got %d from %d",
              what, i, got, src);
    }
    /* Large displacements wrap without overflow. */
    if (nd > 0 && periods[0]) {
        int src, dst, c[MAXD];
        MPI_OK(MPI_Cart_shift(cart, 0, 2000000001, &src, &dst));
        for (int j = 0; j < nd; j++)
            c[j] = gc[j];
        c[0] = (int)((gc[0] + 2000000001LL) % dims[0]);
        CHECK(dst == rank_of(nd, dims, c), "%s: shift by 2000000001: dest %d", what, dst);
    }
    int sum = 0;
    MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, cart));
    CHECK(sum == n * (n - 1) / 2, "%s: allreduce of ranks %d", what, sum);
}

/* Cart_sub for every choice of kept dimensions. */
static void check_sub(MPI_Comm cart, int nd, const int *dims, const int *periods, const char *what)
{
    int r, me[MAXD];
    MPI_Comm_rank(cart, &r);
    coords_of(r, nd, dims, me);
    /* Known deviation, MPICH 4.0: with every dimension dropped only rank 0 gets a communicator
     * (each process should get its own, with a 0-dimensional topology). */
    for (int keep = mt_is_mpich40() ? 1 : 0; keep < (1 << nd); keep++) {
        int remain[MAXD], kd[MAXD], kp[MAXD], kn = 0, ksize = 1;
        for (int i = 0; i < nd; i++) {
            remain[i] = keep >> i & 1;
            if (remain[i]) {
                kd[kn] = dims[i];
                kp[kn++] = periods[i];
                ksize *= dims[i];
            }
        }
        MPI_Comm sub;
        if (MPI_OK(MPI_Cart_sub(cart, remain, &sub)) != MPI_SUCCESS)
            continue;
        char w[160];
        snprintf(w, sizeof w, "%s, Cart_sub keep mask %d", what, keep);
        int sr, ss, expect_rank = 0;
        MPI_Comm_rank(sub, &sr);
        MPI_Comm_size(sub, &ss);
        for (int i = 0; i < nd; i++)
            if (remain[i])
                expect_rank = expect_rank * dims[i] + me[i];
        CHECK(ss == ksize && sr == expect_rank, "%s: rank %d of %d, expected %d of %d", w, sr, ss,
              expect_rank, ksize);
        int sd = -1;
        MPI_OK(MPI_Cartdim_get(sub, &sd));
        CHECK(sd == kn, "%s: %d dimensions, expected %d", w, sd, kn);
        if (kn > 0) {
            int gd[MAXD], gp[MAXD], gc[MAXD];
            MPI_OK(MPI_Cart_get(sub, MAXD, gd, gp, gc));
            for (int i = 0, j = 0; i < nd; i++)
                if (remain[i]) {
                    CHECK(gd[j] == kd[j] && (gp[j] != 0) == (kp[j] != 0) && gc[j] == me[i],
                          "%s: sub dim %d: %d/%d/%d, expected %d/%d/%d", w, j, gd[j], gp[j], gc[j],
                          kd[j], kp[j], me[i]);
                    j++;
                }
        }
        /* The members: every process of the grid that shares my dropped coordinates, each
         * where its kept coordinates put it. */
        int *parents = mt_malloc(sizeof(int) * (size_t)ss);
        MPI_OK(MPI_Allgather(&r, 1, MPI_INT, parents, 1, MPI_INT, sub));
        for (int q = 0; q < ss; q++) {
            int c[MAXD], pc[MAXD];
            coords_of(q, kn, kd, c);
            for (int i = 0, j = 0; i < nd; i++)
                pc[i] = remain[i] ? c[j++] : me[i];
            int expect = rank_of(nd, dims, pc);
            CHECK(parents[q] == expect, "%s: sub rank %d is grid rank %d, expected %d", w, q,
                  parents[q], expect);
        }
        free(parents);
        MPI_Comm_free(&sub);
    }
}

/* Cartesian topologies over the communicator base. */
static void check_on(MPI_Comm base, const char *name)
{
    int prank, psize;
    MPI_Comm_rank(base, &prank);
    MPI_Comm_size(base, &psize);
    int status;
    MPI_OK(MPI_Topo_test(base, &status));
    CHECK(status == MPI_UNDEFINED, "%s: Topo_test %d, expected MPI_UNDEFINED", name, status);
    for (int nd = 1; nd <= 3; nd++) {
        int dims[MAXD] = {0, 0, 0, 0};
        MPI_OK(MPI_Dims_create(psize, nd, dims));
        for (int pm = 0; pm < (1 << nd); pm++)
            for (int reorder = 0; reorder < 2; reorder++) {
                int periods[MAXD];
                for (int i = 0; i < nd; i++)
                    periods[i] = pm >> i & 1;
                MPI_Comm cart;
                char what[128];
                snprintf(what, sizeof what, "%s, %dD grid, periods mask %d, reorder %d", name, nd,
                         pm, reorder);
                if (MPI_OK(MPI_Cart_create(base, nd, dims, periods, reorder, &cart)) != MPI_SUCCESS)
                    continue;
                if (cart == MPI_COMM_NULL) {
                    CHECK(0, "%s: MPI_COMM_NULL for a grid of every process", what);
                    continue;
                }
                if (reorder) { /* whatever the order, the same processes */
                    int res;
                    MPI_OK(MPI_Comm_compare(base, cart, &res));
                    CHECK(res == MPI_CONGRUENT || res == MPI_SIMILAR, "%s: compare %d", what, res);
                }
                check_cart(cart, nd, dims, periods, what);
                if (reorder == 0 && (pm == 0 || pm == (1 << nd) - 1))
                    check_sub(cart, nd, dims, periods, what);
                if (pm == 1 && reorder == 0) { /* a duplicate keeps the topology */
                    MPI_Comm dup;
                    MPI_OK(MPI_Comm_dup(cart, &dup));
                    snprintf(what, sizeof what, "%s, dup of a %dD grid", name, nd);
                    check_cart(dup, nd, dims, periods, what);
                    MPI_Comm_free(&dup);
                }
                MPI_Comm_free(&cart);
            }
    }
    /* A grid of fewer processes than the communicator: the rest get MPI_COMM_NULL. */
    if (psize > 1) {
        int dims[2] = {psize - 1, 1}, periods[2] = {1, 0};
        MPI_Comm cart;
        MPI_OK(MPI_Cart_create(base, 2, dims, periods, 0, &cart));
        CHECK((prank < psize - 1) == (cart != MPI_COMM_NULL),
              "%s: grid of %d: rank %d got %s communicator", name, psize - 1, prank,
              cart == MPI_COMM_NULL ? "no" : "a");
        if (cart != MPI_COMM_NULL) {
            char what[96];
            snprintf(what, sizeof what, "%s, grid of %d x 1", name, psize - 1);
            check_cart(cart, 2, dims, periods, what);
            MPI_Comm_free(&cart);
        }
        int nr = -2;
        MPI_OK(MPI_Cart_map(base, 2, dims, periods, &nr));
        CHECK(nr == (prank < psize - 1 ? prank : MPI_UNDEFINED), "%s: Cart_map %d", name, nr);
    }
    /* Zero dimensions: one process, no coordinates. */
    MPI_Comm z;
    MPI_OK(MPI_Cart_create(base, 0, NULL, NULL, 0, &z));
    CHECK((prank == 0) == (z != MPI_COMM_NULL), "%s: 0-dimensional grid on rank %d: %s", name,
          prank, z == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (z != MPI_COMM_NULL) {
        int zs = 0, zd = -1, zr = -1;
        MPI_Comm_size(z, &zs);
        MPI_OK(MPI_Cartdim_get(z, &zd));
        MPI_OK(MPI_Cart_rank(z, NULL, &zr));
        CHECK(zs == 1 && zd == 0 && zr == 0, "%s: 0-dimensional grid: size %d ndims %d rank %d",
              name, zs, zd, zr);
        MPI_Comm_free(&z);
    }
    int nr = -2;
    MPI_OK(MPI_Cart_map(base, 0, NULL, NULL, &nr));
    CHECK(nr == (prank == 0 ? 0 : MPI_UNDEFINED), "%s: Cart_map of 0 dimensions: %d", name, nr);
}

static void check_errors(void)
{
    int dims[2] = {mt_size + 1, 1}, periods[2] = {0, 0}, nr, x, y;
    MPI_Comm cart;
    /* Known deviation, MPICH 4.0: reports MPI_ERR_ARG (the standard names no class; the dims
     * are what is wrong). */
    int big_class = mt_is_mpich40() ? MPI_ERR_ARG : MPI_ERR_DIMS;
    CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), big_class,
                "Cart_create with more processes than the communicator");
    CHECK_CLASS(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &nr), MPI_ERR_DIMS,
                "Cart_map with more processes than the communicator");
    if (!mt_is_mpich40()) { /* Known deviation, MPICH 4.0: accepts a dimension of size 0 or -1
                               and a negative ndims is MPI_ERR_ARG */
        dims[0] = 0;
        CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_ERR_DIMS,
                    "Cart_create with a dimension of 0");
        dims[0] = -2;
        CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_ERR_DIMS,
                    "Cart_create with a dimension of -2");
        CHECK_CLASS(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &cart), MPI_ERR_DIMS,
                    "Cart_create with ndims -1");
    }
    /* Topology calls on a communicator without one, or with another kind. */
    CHECK_CLASS(MPI_Cartdim_get(MPI_COMM_WORLD, &x), MPI_ERR_TOPOLOGY, "Cartdim_get on world");
    CHECK_CLASS(MPI_Cart_shift(MPI_COMM_SELF, 0, 1, &x, &y), MPI_ERR_TOPOLOGY,
                "Cart_shift on self");
    int c[2];
    CHECK_CLASS(MPI_Cart_coords(MPI_COMM_WORLD, 0, 2, c), MPI_ERR_TOPOLOGY, "Cart_coords on world");
    dims[0] = mt_size;
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
    CHECK_CLASS(MPI_Graphdims_get(cart, &x, &y), MPI_ERR_TOPOLOGY, "Graphdims_get on a grid");
    CHECK_CLASS(MPI_Dist_graph_neighbors_count(cart, &x, &y, &nr), MPI_ERR_TOPOLOGY,
                "Dist_graph_neighbors_count on a grid");
    CHECK_CLASS(MPI_Cart_coords(cart, mt_size, 2, c), MPI_ERR_RANK, "Cart_coords of rank size");
    CHECK_CLASS(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK, "Cart_coords of rank -1");
    CHECK_CLASS(MPI_Cart_coords(cart, 0, 1, c), MPI_ERR_ARG, "Cart_coords with maxdims 1 of 2");
    CHECK_CLASS(MPI_Cart_shift(cart, 2, 1, &x, &y), MPI_ERR_ARG, "Cart_shift along dim 2 of 2");
    CHECK_CLASS(MPI_Cart_shift(cart, -1, 1, &x, &y), MPI_ERR_ARG, "Cart_shift along dim -1");
    c[0] = mt_size;
    c[1] = 0;
    CHECK_CLASS(MPI_Cart_rank(cart, c, &x), MPI_ERR_ARG, "Cart_rank past a non-periodic edge");
    /* The error handler of the grid is the parent's (errors return). */
    MPI_Comm_free(&cart);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    check_dims_create();
    check_on(MPI_COMM_WORLD, "world");
    check_on(MPI_COMM_SELF, "self");
    MPI_Comm dup, split;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    check_on(dup, "dup of world");
    MPI_Comm_free(&dup);
    /* Two halves, each numbered backwards. */
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank < mt_size / 2, -mt_rank, &split));
    check_on(split, "split");
    MPI_Comm_free(&split);
    check_errors();

    /* Create and free many grids: context ids come back, topologies are freed. */
    for (int i = 0; i < 1100; i++) { /* 2200 creations, 2048 ids */
        int dims[1] = {mt_size}, periods[1] = {1};
        MPI_Comm cart, sub;
        if (MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, i & 1, &cart)) != MPI_SUCCESS)
            break;
        int remain[1] = {0};
        MPI_OK(MPI_Cart_sub(cart, remain, &sub));
        MPI_Comm_free(&sub);
        MPI_Comm_free(&cart);
    }
    return mt_finish();
}
