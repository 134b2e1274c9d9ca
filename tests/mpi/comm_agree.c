/* Context-id agreements that overlap in every order the standard allows; each must complete.
 *   - order: even ranks MPI_Comm_create_group (all ranks) then MPI_Comm_idup of another
 *     communicator, odd ranks the reverse (the idup still pending during the create_group);
 *   - barrier: odd ranks start an idup, enter MPI_Barrier, then create_group among the odd ranks
 *     while the idup is still pending; even ranks create_group among themselves first;
 *   - random: rounds of random partitions of world into subgroups, each made by create_group,
 *     with an idup of another communicator started before it on a random subset of ranks and
 *     after it on the rest;
 *   - threads (MPI_THREAD_MULTIPLE): every process runs THREADS threads; thread t of rank r
 *     duplicates (Comm_dup, then Comm_idup and wait) communicator (t + r) mod THREADS, so every
 *     communicator is used by one thread per process, a different one on each rank.
 * Every new communicator is checked by traffic on it (a sum over its members). */
#include <pthread.h>

#include "mpitest.h"

enum { THREADS = 3, THREAD_ROUNDS = 12, RANDOM_ROUNDS = 10 };

/* The new communicator's size, and an Allreduce on it of a value particular to it (salt), so
 * that two communicators sharing a context id by mistake would mix their sums. */
static void check_salted(MPI_Comm c, int expect_size, int salt, const char *what)
{
    int n = -1, one = 1 + 1000 * salt, sum = 0;
    CHECK(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    if (c == MPI_COMM_NULL)
        return;
    MPI_Comm_size(c, &n);
    CHECK(n == expect_size, "%s: size %d, expected %d", what, n, expect_size);
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == expect_size * one, "%s: Allreduce gives %d, expected %d", what, sum,
          expect_size * one);
}

static void check_comm(MPI_Comm c, int expect_size, const char *what)
{
    check_salted(c, expect_size, 0, what);
}

static MPI_Group group_of(const int *ranks, int n)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

static void order(void)
{
    MPI_Comm other, made, dup;
    MPI_Group all;
    MPI_Request req;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &other));
    MPI_Comm_group(MPI_COMM_WORLD, &all);
    for (int round = 0; round < 4; round++) {
        if (mt_rank % 2 == 0) {
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, all, round, &made));
            MPI_OK(MPI_Comm_idup(other, &dup, &req));
        } else {
            MPI_OK(MPI_Comm_idup(other, &dup, &req));
            MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, all, round, &made));
        }
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check_comm(made, mt_size, "order: create_group");
        check_comm(dup, mt_size, "order: idup");
        MPI_Comm_free(&made);
        MPI_Comm_free(&dup);
    }
    MPI_Group_free(&all);
    MPI_Comm_free(&other);
}

static void barrier(void)
{
    MPI_Comm other, made, dup;
    MPI_Request req;
    int ranks[64], n = 0;
    for (int r = mt_rank % 2; r < mt_size; r += 2)
        ranks[n++] = r;
    MPI_Group g = group_of(ranks, n);
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &other));
    if (mt_rank % 2) {
        MPI_OK(MPI_Comm_idup(other, &dup, &req));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &made));
    } else {
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 7, &made));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Comm_idup(other, &dup, &req));
    }
    MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    check_comm(made, n, "barrier: create_group");
    check_comm(dup, mt_size, "barrier: idup");
    MPI_Comm_free(&made);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&other);
    MPI_Group_free(&g);
}

static void random_groups(void)
{
    MPI_Comm other;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &other));
    unsigned seed = 12345; /* the same sequence on every rank */
    for (int round = 0; round < RANDOM_ROUNDS; round++) {
        int part[64], ranks[64], n = 0, parts = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
        for (int r = 0; r < mt_size; r++)
            part[r] = (int)((seed = seed * 1103515245u + 12345u) >> 16) % parts;
        for (int r = 0; r < mt_size; r++)
            if (part[r] == part[mt_rank])
                ranks[n++] = r;
        int idup_first = ((seed = seed * 1103515245u + 12345u) >> (16 + mt_rank % 8)) & 1;
        MPI_Group g = group_of(ranks, n);
        MPI_Comm made = MPI_COMM_NULL, dup = MPI_COMM_NULL;
        MPI_Request req;
        if (idup_first)
            MPI_OK(MPI_Comm_idup(other, &dup, &req));
        MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, round, &made));
        if (!idup_first)
            MPI_OK(MPI_Comm_idup(other, &dup, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        char what[64];
        snprintf(what, sizeof what, "random round %d: create_group", round);
        check_comm(made, n, what);
        check_comm(dup, mt_size, "random: idup");
        MPI_Comm_free(&made);
        MPI_Comm_free(&dup);
        MPI_Group_free(&g);
    }
    MPI_Comm_free(&other);
}

static MPI_Comm shared[THREADS];

static void *dupper(void *arg)
{
    int t = (int)(intptr_t)arg;
    int k = (t + mt_rank) % THREADS;
    MPI_Comm parent = shared[k];
    for (int i = 0; i < THREAD_ROUNDS; i++) {
        MPI_Comm a, b;
        MPI_Request req;
        if (MPI_OK(MPI_Comm_dup(parent, &a)) != MPI_SUCCESS)
            return NULL;
        MPI_OK(MPI_Comm_idup(parent, &b, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        check_salted(a, mt_size, 2 * k + 1, "threads: dup");
        check_salted(b, mt_size, 2 * k + 2, "threads: idup");
        MPI_Comm_free(&a);
        MPI_Comm_free(&b);
    }
    return NULL;
}

static void threads(void)
{
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &shared[t]));
    for (int t = 1; t < THREADS; t++)
        pthread_create(&th[t], NULL, dupper, (void *)(intptr_t)t);
    dupper((void *)(intptr_t)0);
    for (int t = 1; t < THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&shared[t]);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_setup();
    const char *only = getenv("FY_TEST_AGREE");
    if (!only || strstr(only, "order"))
        order();
    if (!only || strstr(only, "barrier"))
        barrier();
    if (!only || strstr(only, "random"))
        random_groups();
    if (provided == MPI_THREAD_MULTIPLE && (!only || strstr(only, "threads")))
        threads();
    return mt_finish();
}
