/* Node-aware collectives (src/coll/hier.c) against results computed locally. Run where the
 * ranks are on several hosts: on one machine the testlist lines say so with FERRY_COLL_HOSTS
 * (blocks, round robin, uneven hosts); across hosts tests/coll/hier.sh gives FY_HOST_ID per
 * rank. On each of MPI_COMM_WORLD, a duplicate, a communicator in reversed rank order, one that
 * interleaves the hosts, a subset without rank 1, and one whose first collective was the
 * creation of a duplicate of it (and that duplicate), in the blocking, nonblocking and persistent
 * forms (the persistent request started twice, with new data):
 *   - Barrier;
 *   - Bcast of 8 B, 1000 B, 64 KiB and 1 MiB of MPI_INT from every root at the small sizes, from
 *     the first, a middle and the last rank at the large ones, and of a vector type with holes;
 *   - Reduce and Allreduce at the same sizes: MPI_INT under MPI_SUM, MPI_DOUBLE under MPI_MAX,
 *     and pairs of unsigned ints under a non-commutative user operator (composing affine maps
 *     modulo 2^32: any combination out of rank order shows), MPI_IN_PLACE and not;
 *   - Allgather (8 B to 64 KiB a rank, in place and not) and Allgatherv with uneven counts,
 *     a zero and gaps between the blocks.
 * With FY_TEST_HIER=1 the selection's MPI_T counters must show that every one of the five took
 * its `hier` row on MPI_COMM_WORLD. */
#include <stdbool.h>

#include "mpitest.h"
#include "coll_modes.h"

static const char *mode_name[] = {"blocking", "nonblocking", "persistent"};
static MPI_Datatype pair_t;
static MPI_Op affine;
static int me, p;
static const char *cname;

/* Rank r's value for element i of a call numbered seed. */
static int val(int r, long i, int seed)
{
    return (int)((r * 131L + i * 7 + seed * 17L) % 1000);
}

/* a then b, as maps x -> m x + c: b(a(x)). inoutvec[i] = invec[i] o inoutvec[i], invec from
 * the lower ranks. */
static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    unsigned *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        unsigned m = b[2 * i] * a[2 * i], c = b[2 * i] * a[2 * i + 1] + b[2 * i + 1];
        b[2 * i] = m;
        b[2 * i + 1] = c;
    }
}

static void aff_of(int r, long i, int seed, unsigned *m, unsigned *c)
{
    *m = 2u * (unsigned)val(r, i, seed) + 1u;
    *c = (unsigned)val(r, i + 1, seed + 1);
}

#define DONE(mode, req)                                                                            \
    do {                                                                                           \
        if ((mode) == PERSIST)                                                                     \
            MPI_OK(MPI_Request_free(&(req)));                                                      \
    } while (0)

static const long sizes[] = {8, 1000, 64 * 1024, 1024 * 1024}; /* bytes */
enum { NSIZES = 4 };

static int root_tried(int root, int s)
{
    return s < 2 || root == 0 || root == p - 1 || root == p / 2;
}

static void test_bcast(MPI_Comm comm, int mode)
{
    for (int s = 0; s < NSIZES; s++) {
        long n = sizes[s] / 4;
        int *buf = mt_malloc(sizeof(int) * (size_t)n);
        for (int root = 0; root < p; root++) {
            if (!root_tried(root, s))
                continue;
            MPI_Request req = MPI_REQUEST_NULL;
            for (int rep = 0; rep < REPS(mode); rep++) {
                int seed = root * 5 + rep + s;
                for (long i = 0; i < n; i++)
                    buf[i] = me == root ? val(root, i, seed) : -1;
                RUN(mode, rep, req, MPI_Bcast(buf, (int)n, MPI_INT, root, comm),
                    MPI_Ibcast(buf, (int)n, MPI_INT, root, comm, &req),
                    MPI_Bcast_init(buf, (int)n, MPI_INT, root, comm, MPI_INFO_NULL, &req));
                for (long i = 0; i < n; i++)
                    if (buf[i] != val(root, i, seed)) {
                        CHECK(0, "%s %s bcast %ld B root %d: [%ld] = %d, expected %d", cname,
                              mode_name[mode], sizes[s], root, i, buf[i], val(root, i, seed));
                        break;
                    }
            }
            DONE(mode, req);
        }
        free(buf);
    }
    /* A vector with holes: 3 blocks of 2 ints, stride 3 (extent 8 ints, holes at 2 and 5 of
     * each 8); 4 of them, and 4 ints past the end. Holes and the tail stay. */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int v[36];
    for (int root = 0; root < p; root++) {
        for (int i = 0; i < 36; i++) {
            bool payload = i < 32 && i % 8 != 2 && i % 8 != 5;
            v[i] = me == root ? i * 11 + root : payload ? -1 : -7;
        }
        MPI_Request req = MPI_REQUEST_NULL;
        RUN(mode, 0, req, MPI_Bcast(v, 4, vec, root, comm), MPI_Ibcast(v, 4, vec, root, comm, &req),
            MPI_Bcast_init(v, 4, vec, root, comm, MPI_INFO_NULL, &req));
        DONE(mode, req);
        for (int i = 0; i < 36; i++) {
            bool payload = i < 32 && i % 8 != 2 && i % 8 != 5;
            int want = payload || me == root ? i * 11 + root : -7;
            CHECK(v[i] == want, "%s %s bcast of a vector from %d: int %d = %d, expected %d",
                  cname, mode_name[mode], root, i, v[i], want);
        }
    }
    MPI_Type_free(&vec);
}

enum { OP_SUM, OP_MAX, OP_AFF, NOPS };
static const char *op_name[] = {"int sum", "double max", "affine (non-commutative)"};

static void fill_in(int op, void *b, long n, int r, int seed)
{
    for (long i = 0; i < n; i++) {
        if (op == OP_SUM)
            ((int *)b)[i] = val(r, i, seed);
        else if (op == OP_MAX)
            ((double *)b)[i] = val(r, i, seed) + 0.25 * r;
        else
            aff_of(r, i, seed, &((unsigned *)b)[2 * i], &((unsigned *)b)[2 * i + 1]);
    }
}

/* Checks the reduction over ranks 0..p-1 in rank order; returns 0 at the first wrong element. */
static int check_reduced(int op, const void *b, long n, int seed, const char *what)
{
    for (long i = 0; i < n; i++) {
        if (op == OP_SUM) {
            int want = 0;
            for (int r = 0; r < p; r++)
                want += val(r, i, seed);
            if (((const int *)b)[i] != want) {
                CHECK(0, "%s: [%ld] = %d, expected %d", what, i, ((const int *)b)[i], want);
                return 0;
            }
        } else if (op == OP_MAX) {
            double want = -1;
            for (int r = 0; r < p; r++)
                if (val(r, i, seed) + 0.25 * r > want)
                    want = val(r, i, seed) + 0.25 * r;
            if (((const double *)b)[i] != want) {
                CHECK(0, "%s: [%ld] = %g, expected %g", what, i, ((const double *)b)[i], want);
                return 0;
            }
        } else {
            unsigned m, c, m2, c2;
            aff_of(0, i, seed, &m, &c);
            for (int r = 1; r < p; r++) {
                aff_of(r, i, seed, &m2, &c2);
                c = m2 * c + c2;
                m = m2 * m;
            }
            const unsigned *g = (const unsigned *)b + 2 * i;
            if (g[0] != m || g[1] != c) {
                CHECK(0, "%s: [%ld] = (%u, %u), expected (%u, %u)", what, i, g[0], g[1], m, c);
                return 0;
            }
        }
    }
    return 1;
}

static void test_reduce(MPI_Comm comm, int mode, int all)
{
    const MPI_Datatype types[NOPS] = {MPI_INT, MPI_DOUBLE, pair_t};
    const MPI_Op ops[NOPS] = {MPI_SUM, MPI_MAX, affine};
    const int esize[NOPS] = {4, 8, 8};
    for (int op = 0; op < NOPS; op++)
        for (int s = 0; s < NSIZES; s++)
            for (int inplace = 0; inplace < 2; inplace++) {
                long n = sizes[s] / esize[op];
                size_t bytes = (size_t)(n * esize[op]);
                void *sb = mt_malloc(bytes), *rb = mt_malloc(bytes);
                for (int root = 0; root < (all ? 1 : p); root++) {
                    if (!all && !root_tried(root, s))
                        continue;
                    MPI_Request req = MPI_REQUEST_NULL;
                    for (int rep = 0; rep < REPS(mode); rep++) {
                        int seed = 3 * s + rep + root + op;
                        bool in_place = inplace && (all || me == root);
                        fill_in(op, in_place ? rb : sb, n, me, seed);
                        if (!in_place)
                            memset(rb, 0xee, (size_t)(n * esize[op]));
                        const void *src = in_place ? MPI_IN_PLACE : sb;
                        char what[160];
                        snprintf(what, sizeof what, "%s %s %s %s %ld B%s root %d", cname,
                                 mode_name[mode], all ? "allreduce" : "reduce", op_name[op],
                                 sizes[s], inplace ? " in place" : "", root);
                        if (all)
                            RUN(mode, rep, req,
                                MPI_Allreduce(src, rb, (int)n, types[op], ops[op], comm),
                                MPI_Iallreduce(src, rb, (int)n, types[op], ops[op], comm, &req),
                                MPI_Allreduce_init(src, rb, (int)n, types[op], ops[op], comm,
                                                   MPI_INFO_NULL, &req));
                        else
                            RUN(mode, rep, req,
                                MPI_Reduce(src, rb, (int)n, types[op], ops[op], root, comm),
                                MPI_Ireduce(src, rb, (int)n, types[op], ops[op], root, comm, &req),
                                MPI_Reduce_init(src, rb, (int)n, types[op], ops[op], root, comm,
                                                MPI_INFO_NULL, &req));
                        if (all || me == root)
                            check_reduced(op, rb, n, seed, what);
                    }
                    DONE(mode, req);
                }
                free(sb);
                free(rb);
            }
}

static void test_allgather(MPI_Comm comm, int mode)
{
    /* Allgather: a rank's block of `n` ints. */
    for (int s = 0; s < 3; s++) {
        long n = sizes[s] / 4;
        for (int inplace = 0; inplace < 2; inplace++) {
            int *sb = mt_malloc(sizeof(int) * (size_t)n);
            int *rb = mt_malloc(sizeof(int) * (size_t)(n * p));
            MPI_Request req = MPI_REQUEST_NULL;
            for (int rep = 0; rep < REPS(mode); rep++) {
                int seed = s + 7 * rep + inplace;
                for (long i = 0; i < n * p; i++)
                    rb[i] = -1;
                for (long i = 0; i < n; i++)
                    (inplace ? rb + n * me : sb)[i] = val(me, i, seed);
                const void *src = inplace ? MPI_IN_PLACE : sb;
                RUN(mode, rep, req, MPI_Allgather(src, (int)n, MPI_INT, rb, (int)n, MPI_INT, comm),
                    MPI_Iallgather(src, (int)n, MPI_INT, rb, (int)n, MPI_INT, comm, &req),
                    MPI_Allgather_init(src, (int)n, MPI_INT, rb, (int)n, MPI_INT, comm,
                                       MPI_INFO_NULL, &req));
                for (int r = 0; r < p; r++)
                    for (long i = 0; i < n; i++)
                        if (rb[r * n + i] != val(r, i, seed)) {
                            CHECK(0, "%s %s allgather %ld B%s: block %d [%ld] = %d, expected %d",
                                  cname, mode_name[mode], sizes[s], inplace ? " in place" : "", r,
                                  i, rb[r * n + i], val(r, i, seed));
                            r = p;
                            break;
                        }
            }
            DONE(mode, req);
            free(sb);
            free(rb);
        }
    }
    /* Allgatherv: rank r gives (r * 37) % 5 * 100 ints (some zero), blocks placed in reverse rank
     * order with a gap of 3 ints after each; the gaps stay untouched. */
    int *counts = mt_malloc(sizeof(int) * (size_t)p), *displs = mt_malloc(sizeof(int) * (size_t)p);
    int total = 0;
    for (int r = p - 1; r >= 0; r--) {
        counts[r] = (r * 37) % 5 * 100;
        displs[r] = total;
        total += counts[r] + 3;
    }
    for (int inplace = 0; inplace < 2; inplace++) {
        int *sb = mt_malloc(sizeof(int) * (size_t)(counts[me] + 1));
        int *rb = mt_malloc(sizeof(int) * (size_t)total);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int rep = 0; rep < REPS(mode); rep++) {
            int seed = 40 + rep + inplace;
            for (int i = 0; i < total; i++)
                rb[i] = -5;
            for (int i = 0; i < counts[me]; i++)
                (inplace ? rb + displs[me] : sb)[i] = val(me, i, seed);
            const void *src = inplace ? MPI_IN_PLACE : sb;
            RUN(mode, rep, req,
                MPI_Allgatherv(src, counts[me], MPI_INT, rb, counts, displs, MPI_INT, comm),
                MPI_Iallgatherv(src, counts[me], MPI_INT, rb, counts, displs, MPI_INT, comm, &req),
                MPI_Allgatherv_init(src, counts[me], MPI_INT, rb, counts, displs, MPI_INT, comm,
                                    MPI_INFO_NULL, &req));
            for (int r = 0; r < p; r++) {
                for (int i = 0; i < counts[r]; i++)
                    if (rb[displs[r] + i] != val(r, i, seed)) {
                        CHECK(0, "%s %s allgatherv%s: block %d [%d] = %d, expected %d", cname,
                              mode_name[mode], inplace ? " in place" : "", r, i,
                              rb[displs[r] + i], val(r, i, seed));
                        break;
                    }
                for (int i = 0; i < 3; i++)
                    CHECK(rb[displs[r] + counts[r] + i] == -5,
                          "%s %s allgatherv: the gap after block %d changed", cname,
                          mode_name[mode], r);
            }
        }
        DONE(mode, req);
        free(sb);
        free(rb);
    }
    free(counts);
    free(displs);
}

static void test_comm(MPI_Comm comm, const char *name)
{
    if (comm == MPI_COMM_NULL)
        return;
    cname = name;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    for (int mode = 0; mode < NMODES; mode++) {
        MPI_Request req = MPI_REQUEST_NULL;
        RUN(mode, 0, req, MPI_Barrier(comm), MPI_Ibarrier(comm, &req),
            MPI_Barrier_init(comm, MPI_INFO_NULL, &req));
        DONE(mode, req);
        test_bcast(comm, mode);
        test_reduce(comm, mode, 0);
        test_reduce(comm, mode, 1);
        test_allgather(comm, mode);
    }
}

/* MPI_T counters of the hier rows (a handle counts from its allocation). */
static const char *colls[] = {"barrier", "bcast", "reduce", "allreduce", "allgather"};
static MPI_T_pvar_session sess;
static MPI_T_pvar_handle handles[5];
static int have[5];

static void picks_start(void)
{
    if (MPI_T_pvar_session_create(&sess) != MPI_SUCCESS)
        return;
    for (int k = 0; k < 5; k++) {
        char name[64];
        int i, n;
        snprintf(name, sizeof name, "coll_%s_hier", colls[k]);
        have[k] = MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i) == MPI_SUCCESS &&
                  MPI_T_pvar_handle_alloc(sess, i, NULL, &handles[k], &n) == MPI_SUCCESS;
    }
}

static unsigned long long picks(int k)
{
    unsigned long long v = 0;
    if (have[k])
        MPI_T_pvar_read(sess, handles[k], &v);
    return v;
}

int main(int argc, char **argv)
{
    int prov;
    mt_init(&argc, &argv);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &pair_t);
    MPI_Type_commit(&pair_t);
    MPI_Op_create(affine_fn, 0, &affine);
    int wrank = mt_rank, wsize = mt_size;

    picks_start();
    test_comm(MPI_COMM_WORLD, "world");
    const char *want = getenv("FY_TEST_HIER");
    for (int k = 0; k < 5 && want && atoi(want); k++)
        CHECK(picks(k) > 0, "the %s on world never took the hier row", colls[k]);

    MPI_Comm dup, rev, mixed, sub;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    test_comm(dup, "a duplicate of world");
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - 1 - wrank, &rev);
    test_comm(rev, "world reversed");
    /* Even world ranks first, then the odd ones: blocks of hosts become interleaved. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, (wrank % 2) * wsize + wrank, &mixed);
    test_comm(mixed, "world, even ranks first");
    MPI_Comm_split(MPI_COMM_WORLD, wrank == 1 ? MPI_UNDEFINED : 0, wrank, &sub);
    test_comm(sub, "world without rank 1");
    /* A communicator whose first collective is the allreduce of MPI_Comm_dup over it: the
     * hidden communicators cannot be made inside that creation (it took its ids' mask as
     * the only creation in progress), so that one runs flat and a later collective makes them. */
    MPI_Comm fresh, fresh_dup;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wrank, &fresh);
    MPI_Comm_dup(fresh, &fresh_dup);
    test_comm(fresh, "a split whose first collective made a duplicate of it");
    test_comm(fresh_dup, "that duplicate");
    MPI_Comm_free(&fresh_dup);
    MPI_Comm_free(&fresh);

    MPI_Comm_free(&dup);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&mixed);
    if (sub != MPI_COMM_NULL)
        MPI_Comm_free(&sub);
    MPI_Op_free(&affine);
    MPI_Type_free(&pair_t);
    for (int k = 0; k < 5; k++)
        if (have[k])
            MPI_T_pvar_handle_free(sess, &handles[k]);
    MPI_T_pvar_session_free(&sess);
    MPI_T_finalize();
    return mt_finish();
}
