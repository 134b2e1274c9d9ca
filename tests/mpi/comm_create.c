/* MPI_Comm_create (collective over the parent; disjoint groups per process allowed) and
 * MPI_Comm_create_group (collective over the group only, several at once told apart by tag). */
#include "mpitest.h"

static void check_comm(MPI_Comm c, int expect_size, int expect_rank, const char *what)
{
    int n = -1, r = -1, sum = 0, expect_sum = 0;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK(n == expect_size && r == expect_rank, "%s: size %d rank %d, expected %d %d", what, n, r,
          expect_size, expect_rank);
    /* The sum of world ranks over the members, compared with what the caller expects. */
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c));
    int *all = malloc(sizeof(int) * (size_t)n);
    MPI_OK(MPI_Allgather(&mt_rank, 1, MPI_INT, all, 1, MPI_INT, c));
    for (int i = 0; i < n; i++)
        expect_sum += all[i];
    CHECK(sum == expect_sum && all[r] == mt_rank, "%s: sum %d, expected %d", what, sum, expect_sum);
    free(all);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    MPI_Group world, evens, odds, rev;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int re[1][3] = {{0, mt_size - 1, 2}}, ro[1][3] = {{1, mt_size - 1, 2}},
        rr[1][3] = {{mt_size - 1, 0, -1}};
    MPI_Group_range_incl(world, 1, re, &evens);
    if (mt_size > 1)
        MPI_Group_range_incl(world, 1, ro, &odds);
    else
        odds = MPI_GROUP_EMPTY;
    MPI_Group_range_incl(world, 1, rr, &rev);
    int ne = (mt_size + 1) / 2, no = mt_size / 2;

    /* Comm_create with one group for all: non-members get MPI_COMM_NULL. */
    MPI_Comm c;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
    if (mt_rank % 2 == 0)
        check_comm(c, ne, mt_rank / 2, "create(evens)");
    else
        CHECK(c == MPI_COMM_NULL, "create(evens): odd rank got a communicator");
    if (c != MPI_COMM_NULL)
        MPI_Comm_free(&c);
    /* Disjoint groups: each process passes its own half. */
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, mt_rank % 2 ? odds : evens, &c));
    check_comm(c, mt_rank % 2 ? no : ne, mt_rank / 2, "create(own half)");
    MPI_Comm_free(&c);
    /* Reversed order. */
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, rev, &c));
    check_comm(c, mt_size, mt_size - 1 - mt_rank, "create(reversed)");
    MPI_Comm_free(&c);

    /* Comm_create_group: only the members call. Evens and odds at once, same tag. */
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, mt_rank % 2 ? odds : evens, 3, &c));
    check_comm(c, mt_rank % 2 ? no : ne, mt_rank / 2, "create_group(own half)");
    MPI_Comm_free(&c);
    /* Overlapping groups one after the other: the first three ranks, then the last three. */
    if (mt_size >= 4) {
        MPI_Group first3, last3;
        int f[1][3] = {{0, 2, 1}}, l[1][3] = {{mt_size - 3, mt_size - 1, 1}};
        MPI_Group_range_incl(world, 1, f, &first3);
        MPI_Group_range_incl(world, 1, l, &last3);
        MPI_Comm a = MPI_COMM_NULL, b = MPI_COMM_NULL;
        if (mt_rank < 3)
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, first3, 10, &a));
        if (mt_rank >= mt_size - 3)
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, last3, 11, &b));
        if (a != MPI_COMM_NULL) {
            check_comm(a, 3, mt_rank, "create_group(first three)");
            MPI_Comm_free(&a);
        }
        if (b != MPI_COMM_NULL) {
            check_comm(b, 3, mt_rank - (mt_size - 3), "create_group(last three)");
            MPI_Comm_free(&b);
        }
        MPI_Group_free(&first3);
        MPI_Group_free(&last3);
    }
    /* MPI-4: from a group alone, told apart by string tags. */
    MPI_OK(MPI_Comm_create_from_group(mt_rank % 2 ? odds : evens, "ferry.test.halves",
                                      MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    check_comm(c, mt_rank % 2 ? no : ne, mt_rank / 2, "create_from_group(own half)");
    MPI_Comm_free(&c);
    MPI_OK(MPI_Comm_create_from_group(rev, "ferry.test.reversed", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                      &c));
    check_comm(c, mt_size, mt_size - 1 - mt_rank, "create_from_group(reversed)");
    MPI_Comm_free(&c);

    /* Errors: a process outside the group must not call; a group not within the comm. */
    MPI_Comm self;
    if (mt_size > 1 && !mt_is_mpich40()) /* MPICH 4.0 crashes on this erroneous call */
        CHECK_CLASS(MPI_Comm_create_group(MPI_COMM_SELF, world, 0, &self), MPI_ERR_GROUP,
                    "group larger than MPI_COMM_SELF");
    MPI_Group_free(&rev);
    if (odds != MPI_GROUP_EMPTY)
        MPI_Group_free(&odds);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    return mt_finish();
}
