/* Intercommunicators: MPI_Intercomm_create between the even and odd ranks, point-to-point
 * across (sources are remote-group ranks), MPI_Comm_dup of one, MPI_Intercomm_merge in both
 * orders, and the queries. Needs at least 2 ranks. */
#include "mpitest.h"

static void exchange(MPI_Comm ic, int color, int lr, int ls, int rs, int tag)
{
    /* Each rank of the even group sends its world rank to remote rank lr % rs. */
    if (color == 0) {
        MPI_OK(MPI_Send(&mt_rank, 1, MPI_INT, lr % rs, tag, ic));
        return;
    }
    for (int s = 0; s < rs; s++) {
        if (s % ls != lr)
            continue;
        int v = -1;
        MPI_Status st;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, s, tag, ic, &st));
        CHECK(v == 2 * s && st.MPI_SOURCE == s, "from remote rank %d: value %d source %d", s, v,
              st.MPI_SOURCE);
    }
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    if (mt_size < 2) {
        CHECK(0, "needs at least 2 ranks");
        return mt_finish();
    }
    int color = mt_rank % 2, lr, ls, rs, flag;
    MPI_Comm local, inter, idup, m0, m1;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, mt_rank, &local));
    MPI_Comm_rank(local, &lr);
    MPI_Comm_size(local, &ls);
    MPI_OK(MPI_Comm_test_inter(local, &flag));
    CHECK(!flag, "an intracommunicator tests as inter");
    MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, color ? 0 : 1, 42, &inter));
    MPI_OK(MPI_Comm_test_inter(inter, &flag));
    CHECK(flag, "MPI_Comm_test_inter: intercommunicator not recognised");
    MPI_OK(MPI_Comm_remote_size(inter, &rs));
    int expect_rs = color ? (mt_size + 1) / 2 : mt_size / 2;
    CHECK(rs == expect_rs, "remote size %d, expected %d", rs, expect_rs);
    int r, n;
    MPI_Comm_rank(inter, &r);
    MPI_Comm_size(inter, &n);
    CHECK(r == lr && n == ls, "local rank/size of the intercommunicator %d/%d, expected %d/%d", r,
          n, lr, ls);
    exchange(inter, color, lr, ls, rs, 5);
    MPI_OK(MPI_Comm_dup(inter, &idup));
    MPI_OK(MPI_Comm_test_inter(idup, &flag));
    CHECK(flag, "a duplicate of an intercommunicator is not inter");
    exchange(idup, color, lr, ls, rs, 6);
    /* A bad destination names the remote group. */
    CHECK_CLASS(MPI_Send(&r, 1, MPI_INT, rs, 0, inter), MPI_ERR_RANK, "send beyond remote group");

    /* Merge: the group saying high = 0 comes first. */
    MPI_OK(MPI_Intercomm_merge(inter, color, &m0));
    MPI_OK(MPI_Intercomm_merge(idup, !color, &m1));
    int r0, r1, evens = (mt_size + 1) / 2, odds = mt_size / 2;
    MPI_Comm_rank(m0, &r0);
    MPI_Comm_rank(m1, &r1);
    CHECK(r0 == (color ? evens + lr : lr), "merge (evens low): rank %d", r0);
    CHECK(r1 == (color ? lr : odds + lr), "merge (odds low): rank %d", r1);
    int sum = 0;
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, m1));
    CHECK(sum == mt_size * (mt_size - 1) / 2, "allreduce on merged: %d", sum);
    if (!mt_is_mpich40()) /* MPICH 4.0 fails an internal assertion here instead */
        CHECK_CLASS(MPI_Intercomm_merge(local, 0, &m1), MPI_ERR_COMM,
                    "merge of an intracommunicator");
    MPI_Comm_free(&m0);
    MPI_Comm_free(&m1);

    /* MPI-4: the same intercommunicator from the two groups, without a parent. */
    MPI_Group world, geven, godd;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int re[1][3] = {{0, mt_size - 1, 2}}, ro[1][3] = {{1, mt_size - 1, 2}};
    MPI_Group_range_incl(world, 1, re, &geven);
    MPI_Group_range_incl(world, 1, ro, &godd);
    MPI_Comm fg;
    MPI_OK(MPI_Intercomm_create_from_groups(color ? godd : geven, 0, color ? geven : godd, 0,
                                            "ferry.test.inter", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                            &fg));
    MPI_OK(MPI_Comm_remote_size(fg, &rs));
    CHECK(rs == expect_rs, "from_groups: remote size %d, expected %d", rs, expect_rs);
    exchange(fg, color, lr, ls, rs, 8);
    MPI_Comm_free(&fg);
    MPI_Group_free(&godd);
    MPI_Group_free(&geven);
    MPI_Group_free(&world);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    return mt_finish();
}
