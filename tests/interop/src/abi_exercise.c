/* Exercises the library through the plain MPI C interface, for the ABI tests: the same source
 * is compiled against one implementation's mpi.h and run on another one's library.
 *
 *   abi_exercise NRANKS
 *
 * Checks that the job has NRANKS ranks (not NRANKS singletons), then a ring of sends, probe
 * with Get_count, Allreduce, and the return codes of ERRORS_RETURN. Rank 0 prints
 * "library: <first line of MPI_Get_library_version>" and, when every check passed on every
 * rank, "No Errors". Exits 1 on any failed check.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;
static int my_rank;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errs++;                                                                                \
            fprintf(stderr, "rank %d: check failed at line %d: %s: ", my_rank, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static void check_ring(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[4] = {rank, rank * 10, -rank, 12345}, in[4] = {0};
    MPI_Status st;
    int rc;

    if (rank % 2 == 0) {
        rc = MPI_Send(out, 4, MPI_INT, right, 7, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "MPI_Send returned %d", rc);
        rc = MPI_Recv(in, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
    } else {
        rc = MPI_Recv(in, 4, MPI_INT, left, 7, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS, "MPI_Recv returned %d", rc);
        rc = MPI_Send(out, 4, MPI_INT, right, 7, MPI_COMM_WORLD);
    }
    CHECK(rc == MPI_SUCCESS, "ring returned %d", rc);
    CHECK(in[0] == left && in[1] == left * 10 && in[2] == -left && in[3] == 12345,
          "ring received {%d,%d,%d,%d} from %d", in[0], in[1], in[2], in[3], left);
    CHECK(st.MPI_SOURCE == left, "status.MPI_SOURCE %d, expected %d", st.MPI_SOURCE, left);
    CHECK(st.MPI_TAG == 7, "status.MPI_TAG %d, expected 7", st.MPI_TAG);

    /* Sendrecv with a second tag and MPI_DOUBLE. */
    double dout = rank + 0.5, din = -1;
    rc = MPI_Sendrecv(&dout, 1, MPI_DOUBLE, right, 8, &din, 1, MPI_DOUBLE, left, 8, MPI_COMM_WORLD,
                      &st);
    CHECK(rc == MPI_SUCCESS && din == left + 0.5, "Sendrecv rc %d got %g", rc, din);
}

/* Every rank but 0 sends rank+1 doubles to rank 0 with tag 100+rank; rank 0 probes with
 * wildcards, sizes its buffer from MPI_Get_count and receives. */
static void check_probe(int rank, int size)
{
    if (rank != 0) {
        double buf[64];
        for (int i = 0; i <= rank; i++)
            buf[i] = rank * 100 + i;
        int rc = MPI_Send(buf, rank + 1, MPI_DOUBLE, 0, 100 + rank, MPI_COMM_WORLD);
        CHECK(rc == MPI_SUCCESS, "MPI_Send returned %d", rc);
        return;
    }
    int seen[64] = {0};
    for (int n = 1; n < size; n++) {
        MPI_Status st;
        int count = -1, flag = 0;
        int rc = MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS, "MPI_Probe returned %d", rc);
        int src = st.MPI_SOURCE;
        CHECK(src > 0 && src < size && !seen[src], "probe source %d", src);
        if (!(src > 0 && src < size) || seen[src])
            return;
        seen[src] = 1;
        CHECK(st.MPI_TAG == 100 + src, "probe tag %d from %d", st.MPI_TAG, src);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        CHECK(count == src + 1, "Get_count %d from %d, expected %d", count, src, src + 1);
        rc = MPI_Iprobe(src, st.MPI_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS && flag, "Iprobe after Probe: rc %d flag %d", rc, flag);
        double *buf = calloc((size_t)count + 1, sizeof(double));
        rc = MPI_Recv(buf, count, MPI_DOUBLE, src, st.MPI_TAG, MPI_COMM_WORLD, &st);
        CHECK(rc == MPI_SUCCESS, "MPI_Recv returned %d", rc);
        for (int i = 0; i < count; i++)
            CHECK(buf[i] == src * 100 + i, "element %d from %d is %g", i, src, buf[i]);
        free(buf);
    }
}

static void check_allreduce(int rank, int size)
{
    int v[3] = {rank + 1, rank * rank, 1}, r[3] = {0};
    int rc = MPI_Allreduce(v, r, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int sq = 0;
    for (int i = 0; i < size; i++)
        sq += i * i;
    CHECK(rc == MPI_SUCCESS, "Allreduce returned %d", rc);
    CHECK(r[0] == size * (size + 1) / 2 && r[1] == sq && r[2] == size,
          "Allreduce SUM gave {%d,%d,%d}", r[0], r[1], r[2]);

    double d = rank * 1.5, dm = 0;
    rc = MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    CHECK(rc == MPI_SUCCESS && dm == (size - 1) * 1.5, "Allreduce MAX gave %g", dm);

    long l = rank + 1;
    rc = MPI_Allreduce(MPI_IN_PLACE, &l, 1, MPI_LONG, MPI_PROD, MPI_COMM_WORLD);
    long fact = 1;
    for (int i = 1; i <= size; i++)
        fact *= i;
    CHECK(rc == MPI_SUCCESS && l == fact, "Allreduce IN_PLACE PROD gave %ld", l);
}

static void expect_class(int rc, int want, const char *what)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: error class %d, expected %d", what, cls, want);
    char msg[MPI_MAX_ERROR_STRING];
    int len = -1;
    MPI_Error_string(rc, msg, &len);
    CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (int)strlen(msg) == len,
          "%s: Error_string length %d", what, len);
}

static void check_errors_return(int rank, int size)
{
    int x = 0, rc;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;

    rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(rc == MPI_SUCCESS, "Comm_set_errhandler returned %d", rc);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler gave %d", (int)eh);

    expect_class(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK,
                 "Send to rank size");
    expect_class(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "Send with tag -5");
    expect_class(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT,
                 "Send with count -1");
    expect_class(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "Send with MPI_DATATYPE_NULL");
    expect_class(MPI_Allreduce(&x, &rc, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
                 "Allreduce with MPI_OP_NULL");
    expect_class(MPI_Bcast(&x, 1, MPI_INT, size + 3, MPI_COMM_WORLD), MPI_ERR_ROOT,
                 "Bcast with root size+3");

    /* A truncated receive. */
    int big[3] = {1, 2, 3}, small[2];
    MPI_Status st;
    int peer = rank ^ 1;
    if (peer < size) {
        MPI_Request req;
        MPI_Irecv(small, 2, MPI_INT, peer, 9, MPI_COMM_WORLD, &req);
        MPI_Send(big, 3, MPI_INT, peer, 9, MPI_COMM_WORLD);
        rc = MPI_Wait(&req, &st);
        expect_class(rc, MPI_ERR_TRUNCATE, "receive of 3 ints into 2");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size, want = argc > 1 ? atoi(argv[1]) : -1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    if (want > 0 && size != want) {
        fprintf(stderr, "rank %d: MPI_COMM_WORLD has %d ranks, expected %d\n", rank, size, want);
        return 1;
    }
    if (rank == 0) {
        char ver[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(ver, &len);
        ver[strcspn(ver, "\n")] = '\0';
        printf("library: %s\n", ver);
        int major = 0, minor = 0;
        MPI_Get_version(&major, &minor);
        printf("version: %d.%d\n", major, minor);
    }
    if (size > 1) {
        check_ring(rank, size);
        check_probe(rank, size);
    }
    check_allreduce(rank, size);
    check_errors_return(rank, size);

    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total);
    }
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
