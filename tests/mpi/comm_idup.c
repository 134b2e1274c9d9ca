/* MPI_Comm_idup and MPI_Comm_idup_with_info:
 *   - the new communicator is congruent to its parent, works, and is set when the request
 *     completes;
 *   - idup overlapping with other traffic on the parent: point-to-point, a nonblocking
 *     collective, a blocking collective, then both requests completed in reverse order;
 *   - several idups outstanding at once (of world, of a duplicate, of a split), completed in
 *     reverse order: the new communicators are distinct (messages on one never match receives
 *     on another);
 *   - a blocking MPI_Comm_dup while an idup is pending, and many idups outstanding at once
 *     (more creations in progress than a fixed table would hold);
 *   - attributes are copied by their copy functions, info hints are the parent's (idup) or the
 *     given ones (idup_with_info);
 *   - under MPI_THREAD_MULTIPLE (when provided): two threads per process, each on its own
 *     communicator, making idups and running nonblocking collectives at the same time. */
#include <pthread.h>

#include "mpitest.h"

static int check_new(MPI_Comm parent, MPI_Comm c, const char *what)
{
    int cmp = -1, sum = 0, r = -1, p = -1, pr = -1, pp = -1;
    CHECK(c != MPI_COMM_NULL, "%s: the new communicator is MPI_COMM_NULL", what);
    if (c == MPI_COMM_NULL)
        return 0;
    MPI_OK(MPI_Comm_compare(parent, c, &cmp));
    CHECK(cmp == MPI_CONGRUENT, "%s: compare gives %d, expected MPI_CONGRUENT", what, cmp);
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &p);
    MPI_Comm_rank(parent, &pr);
    MPI_Comm_size(parent, &pp);
    CHECK(r == pr && p == pp, "%s: rank/size %d/%d, parent %d/%d", what, r, p, pr, pp);
    MPI_OK(MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == p * (p - 1) / 2, "%s: Allreduce on it gives %d", what, sum);
    return 1;
}

static void basic(void)
{
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request r;
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "Wait did not free the idup request");
    if (check_new(MPI_COMM_WORLD, c, "idup of world"))
        MPI_OK(MPI_Comm_free(&c));
    /* Test until done. */
    MPI_OK(MPI_Comm_idup(MPI_COMM_SELF, &c, &r));
    for (int flag = 0; !flag;)
        MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
    if (check_new(MPI_COMM_SELF, c, "idup of self"))
        MPI_OK(MPI_Comm_free(&c));
}

/* Traffic on the parent while the idup runs. */
static void overlap(MPI_Comm parent)
{
    int p, me;
    MPI_Comm_size(parent, &p);
    MPI_Comm_rank(parent, &me);
    int right = (me + 1) % p, left = (me - 1 + p) % p, got = -1, in[100], out[100], b = -1;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request r[2];
    for (int i = 0; i < 100; i++)
        in[i] = me + i;
    MPI_OK(MPI_Comm_idup(parent, &c, &r[0]));
    MPI_OK(MPI_Sendrecv(&me, 1, MPI_INT, right, 0, &got, 1, MPI_INT, left, 0, parent,
                        MPI_STATUS_IGNORE));
    MPI_OK(MPI_Iallreduce(in, out, 100, MPI_INT, MPI_SUM, parent, &r[1]));
    if (me == 0)
        b = 42;
    MPI_OK(MPI_Bcast(&b, 1, MPI_INT, 0, parent));
    MPI_Request rev[2] = {r[1], r[0]};
    MPI_OK(MPI_Waitall(2, rev, MPI_STATUSES_IGNORE));
    CHECK(got == left && b == 42, "traffic beside idup: got %d (expected %d), bcast %d", got, left,
          b);
    int bad = 0;
    for (int i = 0; i < 100; i++)
        bad += out[i] != p * (p - 1) / 2 + p * i;
    CHECK(bad == 0, "Iallreduce beside idup: %d wrong values", bad);
    if (check_new(parent, c, "idup beside traffic"))
        MPI_OK(MPI_Comm_free(&c));
}

/* Several at once, of different parents, completed last first; then messages on each. */
static void several(void)
{
    enum { K = 5 };
    MPI_Comm dup, split, parents[K], c[K];
    MPI_Request r[K], rev[K];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, mt_size - mt_rank, &split));
    parents[0] = MPI_COMM_WORLD;
    parents[1] = dup;
    parents[2] = split;
    parents[3] = MPI_COMM_WORLD;
    parents[4] = dup;
    for (int k = 0; k < K; k++)
        MPI_OK(MPI_Comm_idup(parents[k], &c[k], &r[k]));
    for (int k = 0; k < K; k++)
        rev[k] = r[K - 1 - k];
    MPI_OK(MPI_Waitall(K, rev, MPI_STATUSES_IGNORE));
    int ok = 1;
    for (int k = 0; k < K; k++)
        ok &= check_new(parents[k], c[k], "one of several idups");
    if (ok) {
        /* Each communicator carries its own index; receives posted on each in reverse order
         * with wildcards must still get the message sent on that communicator. */
        MPI_Request rr[K], sr[K];
        int got[K], val[K];
        for (int k = K - 1; k >= 0; k--) {
            got[k] = -1;
            MPI_OK(MPI_Irecv(&got[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c[k], &rr[k]));
        }
        for (int k = 0; k < K; k++) {
            int p, me;
            MPI_Comm_size(c[k], &p);
            MPI_Comm_rank(c[k], &me);
            val[k] = k;
            MPI_OK(MPI_Isend(&val[k], 1, MPI_INT, (me + 1) % p, 0, c[k], &sr[k]));
        }
        MPI_OK(MPI_Waitall(K, rr, MPI_STATUSES_IGNORE));
        MPI_OK(MPI_Waitall(K, sr, MPI_STATUSES_IGNORE));
        for (int k = 0; k < K; k++)
            CHECK(got[k] == k, "message on idup %d arrived on it as %d", k, got[k]);
        for (int k = 0; k < K; k++)
            MPI_OK(MPI_Comm_free(&c[k]));
    }
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_Comm_free(&split));
}

/* A blocking creation while an idup is pending, and many idups at once. */
static void crowd(void)
{
    MPI_Comm a, b;
    MPI_Request r;
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &r));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int ok = check_new(MPI_COMM_WORLD, a, "idup beside a blocking dup");
    ok &= check_new(MPI_COMM_WORLD, b, "blocking dup beside an idup");
    if (ok) {
        int cmp;
        MPI_OK(MPI_Comm_compare(a, b, &cmp));
        CHECK(cmp == MPI_CONGRUENT, "the two duplicates compare as %d", cmp);
        MPI_OK(MPI_Comm_free(&a));
        MPI_OK(MPI_Comm_free(&b));
    }
    /* Creations in progress agree one at a time (the others retry), so most are of self. */
    enum { MANY = 80 };
    MPI_Comm *m = mt_malloc(sizeof *m * MANY);
    MPI_Request *mr = mt_malloc(sizeof *mr * MANY);
    for (int k = 0; k < MANY; k++)
        MPI_OK(MPI_Comm_idup(k % 8 == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF, &m[k], &mr[k]));
    MPI_OK(MPI_Waitall(MANY, mr, MPI_STATUSES_IGNORE));
    int nulls = 0;
    for (int k = 0; k < MANY; k++) {
        nulls += m[k] == MPI_COMM_NULL;
        for (int j = 0; j < k; j++)
            CHECK(m[j] != m[k], "idups %d and %d returned the same handle", j, k);
    }
    CHECK(nulls == 0, "%d of %d idups gave MPI_COMM_NULL", nulls, MANY);
    if (nulls == 0) {
        int x = 1, sum = 0;
        MPI_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, m[MANY - 8]));
        CHECK(sum == mt_size, "Allreduce on the last idup of world: %d", sum);
        MPI_OK(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, m[MANY - 1]));
        CHECK(sum == 1, "Allreduce on the last idup of self: %d", sum);
        for (int k = 0; k < MANY; k++)
            MPI_OK(MPI_Comm_free(&m[k]));
    }
    free(m);
    free(mr);
}

static int copies;
static int copy_fn(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)key;
    (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void attrs_and_info(void)
{
    int kcopy, knone, flag = 0;
    static int v1 = 11, v2 = 22;
    MPI_Comm parent, c = MPI_COMM_NULL, ci = MPI_COMM_NULL;
    MPI_Request r[2];
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
    MPI_OK(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kcopy, NULL));
    MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knone, NULL));
    MPI_OK(MPI_Comm_set_attr(parent, kcopy, &v1));
    MPI_OK(MPI_Comm_set_attr(parent, knone, &v2));
    MPI_Info hints, given;
    MPI_OK(MPI_Info_create(&hints));
    MPI_OK(MPI_Info_set(hints, "mpi_assert_no_any_tag", "true"));
    MPI_OK(MPI_Comm_set_info(parent, hints));
    MPI_OK(MPI_Info_create(&given));
    MPI_OK(MPI_Info_set(given, "mpi_assert_no_any_source", "true"));
    copies = 0;
    MPI_OK(MPI_Comm_idup(parent, &c, &r[0]));
    MPI_OK(MPI_Comm_idup_with_info(parent, given, &ci, &r[1]));
    MPI_OK(MPI_Info_free(&given)); /* the call copied what it needs */
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK(copies == 2, "the copy function ran %d times for two idups", copies);
    MPI_Comm made[2] = {c, ci};
    for (int i = 0; i < 2; i++) {
        void *val = NULL;
        if (!check_new(parent, made[i], i ? "idup_with_info" : "idup with attributes"))
            continue;
        MPI_OK(MPI_Comm_get_attr(made[i], kcopy, &val, &flag));
        CHECK(flag && val == &v1, "idup %d: attribute with a copy function not copied", i);
        MPI_OK(MPI_Comm_get_attr(made[i], knone, &val, &flag));
        CHECK(!flag, "idup %d: attribute with MPI_COMM_NULL_COPY_FN copied", i);
        /* A hint in use reads "true"; an implementation may list the others as "false". */
        MPI_Info used;
        char v[MPI_MAX_INFO_VAL + 1];
        int fa = 0, fs = 0;
        MPI_OK(MPI_Comm_get_info(made[i], &used));
        MPI_OK(MPI_Info_get(used, "mpi_assert_no_any_tag", MPI_MAX_INFO_VAL, v, &fa));
        fa = fa && strcmp(v, "true") == 0;
        MPI_OK(MPI_Info_get(used, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, v, &fs));
        fs = fs && strcmp(v, "true") == 0;
        MPI_OK(MPI_Info_free(&used));
        if (i == 0) /* Known deviation, MPICH 4.0: it does not copy the hints (as in info.c) */
            CHECK((fa || mt_is_mpich40()) && !fs, "idup: hints %d %d, expected the parent's", fa,
                  fs);
        else
            CHECK(fs && !fa, "idup_with_info: hints %d %d, expected the given ones", fa, fs);
        MPI_OK(MPI_Comm_free(&made[i]));
    }
    MPI_OK(MPI_Info_free(&hints));
    MPI_OK(MPI_Comm_free(&parent));
    MPI_OK(MPI_Comm_free_keyval(&kcopy));
    MPI_OK(MPI_Comm_free_keyval(&knone));
}

/* One thread's work on its own communicator: idups of it, with an Iallreduce beside each. */
static void *thread_work(void *arg)
{
    MPI_Comm parent = *(MPI_Comm *)arg, c;
    int p, me;
    MPI_Comm_size(parent, &p);
    MPI_Comm_rank(parent, &me);
    for (int k = 0; k < 10; k++) {
        int in = me + k, sum = -1;
        MPI_Request r[2];
        MPI_OK(MPI_Comm_idup(parent, &c, &r[0]));
        MPI_OK(MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, parent, &r[1]));
        MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
        CHECK(sum == p * (p - 1) / 2 + p * k, "threaded Iallreduce %d gave %d", k, sum);
        if (check_new(parent, c, "threaded idup"))
            MPI_OK(MPI_Comm_free(&c));
    }
    return NULL;
}

static void threads(void)
{
    MPI_Comm mine[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &mine[i]));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, thread_work, &mine[i]) == 0, "pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++)
        MPI_OK(MPI_Comm_free(&mine[i]));
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_setup();
    basic();
    overlap(MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, mt_rank < mt_size / 2, mt_rank, &half));
    overlap(half);
    MPI_OK(MPI_Comm_free(&half));
    several();
    crowd();
    attrs_and_info();
    if (provided == MPI_THREAD_MULTIPLE)
        threads();
    return mt_finish();
}
