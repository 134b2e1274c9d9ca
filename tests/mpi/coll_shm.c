/* The cases that only the shared-memory collectives have (src/coll/shm_*.c): vectors split into
 * pieces (small generations, halves, several halves), a root or the leaves of a reduction
 * running many collectives ahead of slow readers (the buffer guards), more communicators doing
 * collectives than the pool has slots (the rest fall back to messages), slots given back and
 * taken again by communicators created and freed in a loop, ranks renumbered by a split (the
 * doorbells are rung by world rank), non-commutative operators, in place, derived types in a
 * broadcast, and a point-to-point transfer that needs the waiting rank's progress while it
 * waits in a shared-memory barrier. Every result is checked against values computed locally.
 *
 * Run with FERRY_COLL_*=shm or shm_slice (testlist) to force each algorithm, and with
 * FERRY_SHM_COLL_SLOTS small or 0. Passes on any MPI (it only checks MPI semantics). */
#include <unistd.h>

#include "mpitest.h"

static int rank, size;

/* Element i of rank r's contribution in round k. */
static double val(int r, long i, int k)
{
    return (double)((r * 7 + i * 3 + k) % 1000);
}

/* A non-commutative operator on pairs (a, b) of doubles: affine maps x -> a x + b composed in
 * rank order, kept small (mod 64) so every value is exact. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    double *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        double a1 = x[2 * i], b1 = x[2 * i + 1], a2 = y[2 * i], b2 = y[2 * i + 1];
        /* (in o inout)(v) = in(inout(v)): apply inout first, then in. */
        y[2 * i] = (double)(((long)(a1 * a2)) % 64);
        y[2 * i + 1] = (double)(((long)(a1 * b2 + b1)) % 64);
    }
}

static void check_allreduce(MPI_Comm comm, long n, int k, int in_place)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    double *s = malloc(sizeof(double) * (size_t)(n + 1)),
           *r = malloc(sizeof(double) * (size_t)(n + 1));
    for (long i = 0; i < n; i++)
        s[i] = r[i] = val(me, i, k);
    r[n] = -1;
    MPI_OK(MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, (int)n, MPI_DOUBLE, MPI_SUM, comm));
    int bad = 0;
    for (long i = 0; i < n && bad < 3; i++) {
        double want = 0;
        for (int j = 0; j < p; j++)
            want += val(j, i, k);
        if (r[i] != want) {
            CHECK(0, "allreduce n=%ld k=%d in_place=%d: [%ld] = %g, expected %g", n, k, in_place, i,
                  r[i], want);
            bad++;
        }
    }
    CHECK(r[n] == -1, "allreduce n=%ld wrote past the end", n);
    free(s);
    free(r);
}

static void check_reduce(MPI_Comm comm, long n, int k, int root, MPI_Op op, int noncomm)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    long m = noncomm ? 2 * n : n;
    double *s = malloc(sizeof(double) * (size_t)m), *r = malloc(sizeof(double) * (size_t)m);
    for (long i = 0; i < m; i++)
        s[i] = noncomm ? (double)((me + i + k) % 5 + (i % 2 ? 0 : 1)) : val(me, i, k);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    int rc = noncomm ? MPI_Reduce(s, r, (int)n, pair, op, root, comm)
                     : MPI_Reduce(s, r, (int)n, MPI_DOUBLE, op, root, comm);
    MPI_OK(rc);
    if (me == root) {
        int bad = 0;
        for (long i = 0; i < n && bad < 3; i++) {
            if (noncomm) {
                /* r = f0 o f1 o ... o f(p-1): apply f(p-1) first. */
                double a = 1, b = 0;
                for (int j = p - 1; j >= 0; j--) {
                    double aj = (double)((j + 2 * i + k) % 5 + 1),
                           bj = (double)((j + 2 * i + 1 + k) % 5);
                    double na = (double)(((long)(aj * a)) % 64),
                           nb = (double)(((long)(aj * b + bj)) % 64);
                    a = na;
                    b = nb;
                }
                /* The first combination takes f(p-1) unchanged: compare modulo nothing more. */
                if (p == 1) {
                    a = (double)((0 + 2 * i + k) % 5 + 1);
                    b = (double)((0 + 2 * i + 1 + k) % 5);
                }
                if (r[2 * i] != a || r[2 * i + 1] != b) {
                    CHECK(0, "reduce(affine) n=%ld root=%d: [%ld] = (%g,%g), expected (%g,%g)", n,
                          root, i, r[2 * i], r[2 * i + 1], a, b);
                    bad++;
                }
            } else {
                double want = 0;
                for (int j = 0; j < p; j++)
                    want += val(j, i, k);
                if (r[i] != want) {
                    CHECK(0, "reduce n=%ld root=%d k=%d: [%ld] = %g, expected %g", n, root, k, i,
                          r[i], want);
                    bad++;
                }
            }
        }
    }
    MPI_Type_free(&pair);
    free(s);
    free(r);
}

static void check_bcast(MPI_Comm comm, long n, int k, int root)
{
    int me;
    MPI_Comm_rank(comm, &me);
    int *b = malloc(sizeof(int) * (size_t)(n + 1));
    for (long i = 0; i < n; i++)
        b[i] = me == root ? (int)(i * 13 + k * 101 + root) : -7;
    b[n] = -9;
    MPI_OK(MPI_Bcast(b, (int)n, MPI_INT, root, comm));
    int bad = 0;
    for (long i = 0; i < n && bad < 3; i++)
        if (b[i] != (int)(i * 13 + k * 101 + root)) {
            CHECK(0, "bcast n=%ld k=%d root=%d: [%ld] = %d, expected %d", n, k, root, i, b[i],
                  (int)(i * 13 + k * 101 + root));
            bad++;
        }
    CHECK(b[n] == -9, "bcast n=%ld wrote past the end", n);
    free(b);
}

/* A column of a matrix (a vector type with holes) broadcast into a contiguous receive on odd
 * ranks: the root packs into the slot, readers unpack; the holes stay untouched. */
static void check_bcast_derived(MPI_Comm comm, int rows)
{
    int me;
    MPI_Comm_rank(comm, &me);
    MPI_Datatype col;
    MPI_Type_vector(rows, 1, 3, MPI_INT, &col);
    MPI_Type_commit(&col);
    int *m = malloc(sizeof(int) * 3 * (size_t)rows);
    for (int i = 0; i < 3 * rows; i++)
        m[i] = me == 0 ? i : -1;
    if (me == 0 || me % 2 == 0) {
        MPI_OK(MPI_Bcast(m, 1, col, 0, comm));
        for (int i = 0; i < 3 * rows; i++)
            if (me != 0 && m[i] != (i % 3 == 0 ? i : -1)) {
                CHECK(0, "bcast(column of %d) [%d] = %d", rows, i, m[i]);
                break;
            }
    } else {
        MPI_OK(MPI_Bcast(m, rows, MPI_INT, 0, comm));
        for (int i = 0; i < rows; i++)
            if (m[i] != 3 * i) {
                CHECK(0, "bcast(column of %d into ints) [%d] = %d, expected %d", rows, i, m[i],
                      3 * i);
                break;
            }
    }
    MPI_Type_free(&col);
    free(m);
}

static const long sizes[] = {1, 7, 100, 129, 1000, 4096, 20000, 70000, 300000};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static void sweep(MPI_Comm comm, MPI_Op affine_op)
{
    int p;
    MPI_Comm_size(comm, &p);
    for (int s = 0; s < NSIZES; s++) {
        long n = sizes[s];
        check_allreduce(comm, n, s, 0);
        check_allreduce(comm, n, s + 1, 1);
        check_reduce(comm, n, s, s % p, MPI_SUM, 0);
        check_reduce(comm, n < 20000 ? n : 20000, s, (s + 1) % p, affine_op, 1);
        check_bcast(comm, n, s, (s + 2) % p);
    }
    check_bcast_derived(comm, 5);
    check_bcast_derived(comm, 40000);
    MPI_OK(MPI_Barrier(comm));
}

/* Readers slowed down: the root broadcasts 50 times in a row (more than the pool's
 * generations), the leaves of a reduction run ahead of a slow root; every value must be the
 * one of its own round. */
static void run_ahead(MPI_Comm comm)
{
    int me;
    MPI_Comm_rank(comm, &me);
    for (int k = 0; k < 50; k++) {
        if (me != 0 && k % 10 == 0)
            usleep(2000);
        check_bcast(comm, 1 + k % 5, k, 0);
    }
    for (int k = 0; k < 50; k++) {
        if (me == 0 && k % 10 == 0)
            usleep(2000);
        check_reduce(comm, 1 + k % 5, k, 0, MPI_SUM, 0);
    }
    for (int k = 0; k < 6; k++) { /* the same with pieces in the halves */
        if (me != 0)
            usleep(1000);
        check_bcast(comm, 100000, k, 0);
    }
}

/* Rank 1 receives a long message that rank 0 sends with Isend and then enters a barrier:
 * rank 1 reaches the barrier only once the message is in, and with streamed rendezvous the
 * message moves only while rank 0 makes progress, which it must do inside the barrier. */
static void progress_in_barrier(void)
{
    if (size < 2)
        return;
    size_t n = 4u << 20;
    char *buf = malloc(n);
    if (rank == 0) {
        memset(buf, 0x5a, n);
        MPI_Request r;
        MPI_OK(MPI_Isend(buf, (int)n, MPI_CHAR, 1, 99, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
        if (rank == 1) {
            MPI_OK(MPI_Recv(buf, (int)n, MPI_CHAR, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK(buf[0] == 0x5a && buf[n - 1] == 0x5a, "the long message arrived intact");
        }
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    free(buf);
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    rank = mt_rank;
    size = mt_size;
    MPI_Op affine_op;
    MPI_Op_create(affine, 0, &affine_op);

    sweep(MPI_COMM_WORLD, affine_op);
    run_ahead(MPI_COMM_WORLD);
    progress_in_barrier();

    /* Renumbered: reversed order, then odd and even halves. */
    MPI_Comm rev, half;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev));
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    sweep(rev, affine_op);
    sweep(half, affine_op);
    run_ahead(rev);

    /* More communicators doing collectives at once than the pool has slots (16 by default),
     * used interleaved: those without a slot use messages, all must agree. */
    enum { NC = 20 };
    MPI_Comm many[NC];
    for (int i = 0; i < NC; i++)
        MPI_OK(MPI_Comm_dup(i % 2 ? rev : MPI_COMM_WORLD, &many[i]));
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < NC; i++) {
            check_allreduce(many[i], 1 + (i + round) % 9, round, i % 2);
            check_bcast(many[i], 3 + i, round, i % size);
            MPI_OK(MPI_Barrier(many[i]));
        }
    for (int i = 0; i < NC; i++)
        MPI_OK(MPI_Comm_free(&many[i]));

    /* Slots given back: communicators made and freed in a loop, each doing collectives. */
    for (int i = 0; i < 100; i++) {
        MPI_Comm c;
        MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, i % 3 == 0 ? 0 : rank % 2, rank, &c));
        check_allreduce(c, 5 + i % 7, i, 0);
        check_bcast(c, 2 + i % 5, i, 0);
        MPI_OK(MPI_Comm_free(&c));
    }
    sweep(MPI_COMM_WORLD, affine_op);

    MPI_Comm_free(&rev);
    MPI_Comm_free(&half);
    MPI_Op_free(&affine_op);
    return mt_finish();
}
