/* MPI_Comm_split, MPI_Comm_split_type and MPI_Comm_compare: membership and order by color
 * and key, MPI_UNDEFINED, communication on the results, and a create/free loop that must keep
 * reusing context ids. */
#include "mpitest.h"

static void check_split(int ncolors, int reverse)
{
    int color = mt_rank % ncolors, key = reverse ? -mt_rank : mt_rank;
    MPI_Comm sub;
    if (MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, color, key, &sub)) != MPI_SUCCESS)
        return;
    int r, n, expect_n = 0, expect_r = 0;
    for (int w = 0; w < mt_size; w++)
        if (w % ncolors == color) {
            expect_n++;
            if (reverse ? w > mt_rank : w < mt_rank)
                expect_r++;
        }
    MPI_Comm_rank(sub, &r);
    MPI_Comm_size(sub, &n);
    CHECK(n == expect_n, "split(%d colors): size %d, expected %d", ncolors, n, expect_n);
    CHECK(r == expect_r, "split(%d colors, reverse %d): rank %d, expected %d", ncolors, reverse, r,
          expect_r);
    /* Every member passes its world rank to the next: a ring inside the new communicator. */
    int from = -1, to = (r + 1) % n, src = (r + n - 1) % n;
    MPI_OK(MPI_Sendrecv(&mt_rank, 1, MPI_INT, to, 7, &from, 1, MPI_INT, src, 7, sub,
                        MPI_STATUS_IGNORE));
    int expect_from = -1, seen = 0;
    for (int w = 0; w < mt_size; w++) /* the member of rank src */
        if (w % ncolors == color) {
            int wr = 0;
            for (int v = 0; v < mt_size; v++)
                if (v % ncolors == color && (reverse ? v > w : v < w))
                    wr++;
            if (wr == src) {
                expect_from = w;
                seen++;
            }
        }
    CHECK(seen == 1 && from == expect_from, "ring in split: got %d from rank %d, expected %d", from,
          src, expect_from);
    int sum = 0, expect_sum = 0;
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, sub));
    for (int w = 0; w < mt_size; w++)
        if (w % ncolors == color)
            expect_sum += w;
    CHECK(sum == expect_sum, "allreduce on split: %d, expected %d", sum, expect_sum);
    MPI_OK(MPI_Comm_free(&sub));
    CHECK(sub == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    for (int nc = 1; nc <= 3; nc++)
        for (int rev = 0; rev < 2; rev++)
            check_split(nc, rev);

    /* MPI_UNDEFINED: no communicator, but the call is still collective. */
    MPI_Comm u;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank == 0 ? MPI_UNDEFINED : 1, 0, &u));
    CHECK((mt_rank == 0) == (u == MPI_COMM_NULL), "MPI_UNDEFINED color: got %s communicator",
          u == MPI_COMM_NULL ? "no" : "a");
    if (u != MPI_COMM_NULL)
        MPI_Comm_free(&u);

    /* Comparisons. */
    int res;
    MPI_Comm d, sh, rev;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res));
    CHECK(res == MPI_IDENT, "compare(world, world) = %d, expected MPI_IDENT", res);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &res));
    CHECK(res == MPI_CONGRUENT, "compare(world, dup) = %d, expected MPI_CONGRUENT", res);
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, -mt_rank, &rev));
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &res));
    CHECK(res == (mt_size == 1 ? MPI_CONGRUENT : MPI_SIMILAR),
          "compare(world, reversed) = %d, expected %s", res,
          mt_size == 1 ? "MPI_CONGRUENT" : "MPI_SIMILAR");
    MPI_OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &res));
    CHECK(res == (mt_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "compare(self, world) = %d", res);
    /* SHARED holds the ranks of this host: those with our processor name (the test hosts have
     * names of their own), in rank order; on one machine the whole job. */
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mt_rank, MPI_INFO_NULL, &sh));
    char names[64][MPI_MAX_PROCESSOR_NAME], me_name[MPI_MAX_PROCESSOR_NAME] = "";
    int nl, on_host = 0, sh_size = 0, sh_rank = -1;
    MPI_OK(MPI_Get_processor_name(me_name, &nl));
    if (mt_size <= 64) {
        MPI_OK(MPI_Allgather(me_name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
                             MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD));
        int below = 0;
        for (int r = 0; r < mt_size; r++)
            if (strcmp(names[r], me_name) == 0) {
                on_host++;
                below += r < mt_rank;
            }
        MPI_Comm_size(sh, &sh_size);
        MPI_Comm_rank(sh, &sh_rank);
        CHECK(sh_size == on_host && sh_rank == below,
              "split_type(SHARED): rank %d of %d, expected %d of %d (ranks named %s)", sh_rank,
              sh_size, below, on_host, me_name);
    }
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, sh, &res));
    CHECK(res == (on_host == mt_size ? MPI_CONGRUENT : MPI_UNEQUAL),
          "split_type(SHARED): compare with world = %d", res);
    MPI_Comm_free(&sh);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&d);

    /* Errors. */
    if (!mt_is_mpich40()) /* MPICH 4.0 takes a negative color without complaint */
        CHECK_CLASS(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &u), MPI_ERR_ARG, "negative color");
    CHECK_CLASS(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &u), MPI_ERR_ARG,
                "unknown split_type");

    /* Far more communicators than there are context ids: ids must come back after free. */
    for (int i = 0; i < 5000; i++) {
        MPI_Comm x;
        if (MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_rank, &x)) != MPI_SUCCESS)
            break;
        MPI_Comm_free(&x);
    }
    return mt_finish();
}
