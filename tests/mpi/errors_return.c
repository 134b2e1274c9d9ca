/* Invalid arguments with MPI_ERRORS_RETURN (on COMM_WORLD and COMM_SELF, which errors without
 * a communicator may use): each call returns an error code of the right class and the job goes
 * on: bad ranks (== size, negative, ANY_SOURCE as a destination), bad tags (negative, above
 * MPI_TAG_UB, ANY_TAG on a send), negative counts, MPI_DATATYPE_NULL, MPI_COMM_NULL, a NULL
 * buffer with count > 0, null requests where a request is required, a bad root, MPI_OP_NULL. */
#include "mpitest.h"

#include <limits.h>

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int buf[4] = {0, 0, 0, 0}, rc, flag;
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Comm world = MPI_COMM_WORLD;
    int n = mt_size;

    /* Ranks. */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, n, 0, world), MPI_ERR_RANK, "Send to rank size");
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, -5, 0, world), MPI_ERR_RANK, "Send to rank -5");
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, world), MPI_ERR_RANK,
                "Send to MPI_ANY_SOURCE");
    CHECK_CLASS(MPI_Ssend(buf, 1, MPI_INT, n + 10, 0, world), MPI_ERR_RANK, "Ssend to a bad rank");
    CHECK_CLASS(MPI_Rsend(buf, 1, MPI_INT, n, 0, world), MPI_ERR_RANK, "Rsend to a bad rank");
    CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, n, 0, world, &r), MPI_ERR_RANK, "Isend to a bad rank");
    CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, n, 0, world, &r), MPI_ERR_RANK, "Irecv from a bad rank");
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, -7, 0, world, &st), MPI_ERR_RANK, "Recv from rank -7");
    CHECK_CLASS(MPI_Probe(n, 0, world, &st), MPI_ERR_RANK, "Probe of a bad rank");
    CHECK_CLASS(MPI_Iprobe(n, 0, world, &flag, &st), MPI_ERR_RANK, "Iprobe of a bad rank");
    CHECK_CLASS(MPI_Send_init(buf, 1, MPI_INT, n, 0, world, &r), MPI_ERR_RANK,
                "Send_init to a bad rank");
    CHECK_CLASS(MPI_Sendrecv(buf, 1, MPI_INT, n, 0, buf + 1, 1, MPI_INT, 0, 0, world, &st),
                MPI_ERR_RANK, "Sendrecv to a bad rank");
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK,
                "Send to rank 1 on COMM_SELF");

    /* Tags. */
    int *ubp = NULL, ub = 0;
    flag = 0;
    MPI_OK(MPI_Comm_get_attr(world, MPI_TAG_UB, &ubp, &flag));
    CHECK(flag && ubp, "MPI_TAG_UB attribute is not set");
    if (flag && ubp) {
        ub = *ubp;
        CHECK(ub >= 32767, "MPI_TAG_UB is %d, the standard requires at least 32767", ub);
    }
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, -1, world), MPI_ERR_TAG, "Send with tag -1");
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, MPI_ANY_TAG, world), MPI_ERR_TAG, "Send with ANY_TAG");
    CHECK_CLASS(MPI_Isend(buf, 1, MPI_INT, 0, -100, world, &r), MPI_ERR_TAG, "Isend with tag -100");
    CHECK_CLASS(MPI_Recv(buf, 1, MPI_INT, 0, -3, world, &st), MPI_ERR_TAG, "Recv with tag -3");
    if (ub > 0 && ub < INT_MAX) {
        CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, ub + 1, world), MPI_ERR_TAG,
                    "Send with TAG_UB + 1");
        CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, 0, ub + 1, world, &r), MPI_ERR_TAG,
                    "Irecv with TAG_UB + 1");
    }
    if (ub > 0) {
        /* TAG_UB itself is valid. */
        MPI_OK(MPI_Sendrecv(buf, 1, MPI_INT, mt_rank, ub, buf + 1, 1, MPI_INT, mt_rank, ub, world,
                            MPI_STATUS_IGNORE));
    }

    /* Counts. */
    CHECK_CLASS(MPI_Send(buf, -1, MPI_INT, 0, 0, world), MPI_ERR_COUNT, "Send with count -1");
    CHECK_CLASS(MPI_Recv(buf, -2, MPI_INT, 0, 0, world, &st), MPI_ERR_COUNT, "Recv with count -2");
    CHECK_CLASS(MPI_Isend(buf, -1, MPI_INT, 0, 0, world, &r), MPI_ERR_COUNT, "Isend with count -1");
    CHECK_CLASS(MPI_Irecv(buf, -1, MPI_INT, 0, 0, world, &r), MPI_ERR_COUNT, "Irecv with count -1");

    /* Datatypes. */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_DATATYPE_NULL, 0, 0, world), MPI_ERR_TYPE,
                "Send with MPI_DATATYPE_NULL");
    CHECK_CLASS(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, 0, 0, world, &r), MPI_ERR_TYPE,
                "Irecv with MPI_DATATYPE_NULL");

    /* Communicators. */
    CHECK_CLASS(MPI_Send(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM,
                "Send on MPI_COMM_NULL");
    CHECK_CLASS(MPI_Irecv(buf, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &r), MPI_ERR_COMM,
                "Irecv on MPI_COMM_NULL");
    int size = -1;
    CHECK_CLASS(MPI_Comm_size(MPI_COMM_NULL, &size), MPI_ERR_COMM, "Comm_size of MPI_COMM_NULL");
    CHECK_CLASS(MPI_Comm_rank(MPI_COMM_NULL, &size), MPI_ERR_COMM, "Comm_rank of MPI_COMM_NULL");
    MPI_Comm c;
    CHECK_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &c), MPI_ERR_COMM, "Comm_dup of MPI_COMM_NULL");
    c = MPI_COMM_NULL;
    CHECK_CLASS(MPI_Comm_free(&c), MPI_ERR_COMM, "Comm_free of MPI_COMM_NULL");
    CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "Barrier on MPI_COMM_NULL");

    /* Buffers. */
    CHECK_CLASS(MPI_Send(NULL, 4, MPI_INT, 0, 0, world), MPI_ERR_BUFFER, "Send of NULL, count 4");
    CHECK_CLASS(MPI_Irecv(NULL, 4, MPI_INT, 0, 0, world, &r), MPI_ERR_BUFFER,
                "Irecv into NULL, count 4");

    /* Requests. */
    r = MPI_REQUEST_NULL;
    CHECK_CLASS(MPI_Start(&r), MPI_ERR_REQUEST, "Start of MPI_REQUEST_NULL");
    MPI_Request rs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_CLASS(MPI_Startall(2, rs), MPI_ERR_REQUEST, "Startall of null requests");
    CHECK_CLASS(MPI_Request_free(&r), MPI_ERR_REQUEST, "Request_free of MPI_REQUEST_NULL");

    /* Collectives: every rank makes the same mistake, so none waits for the others. */
    CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, n, world), MPI_ERR_ROOT, "Bcast with root size");
    CHECK_CLASS(MPI_Bcast(buf, 1, MPI_INT, -1, world), MPI_ERR_ROOT, "Bcast with root -1");
    CHECK_CLASS(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_SUM, n + 1, world), MPI_ERR_ROOT,
                "Reduce with a bad root");
    CHECK_CLASS(MPI_Reduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, 0, world), MPI_ERR_OP,
                "Reduce with MPI_OP_NULL");
    CHECK_CLASS(MPI_Allreduce(buf, buf + 1, 1, MPI_INT, MPI_OP_NULL, world), MPI_ERR_OP,
                "Allreduce with MPI_OP_NULL");
    /* Known deviation, MPICH 4.0: Allreduce does not check for a negative count (it crashes). */
    if (!mt_is_mpich40())
        CHECK_CLASS(MPI_Allreduce(buf, buf + 1, -1, MPI_INT, MPI_SUM, world), MPI_ERR_COUNT,
                    "Allreduce with count -1");
    CHECK_CLASS(MPI_Bcast(buf, 1, MPI_DATATYPE_NULL, 0, world), MPI_ERR_TYPE,
                "Bcast with MPI_DATATYPE_NULL");

    /* Still alive: a ring and a reduction. */
    int next = (mt_rank + 1) % n, prev = (mt_rank + n - 1) % n, in = -1;
    rc = MPI_Sendrecv(&mt_rank, 1, MPI_INT, next, 3, &in, 1, MPI_INT, prev, 3, world,
                      MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS && in == prev, "ring after the errors: rc %d value %d", rc, in);
    int sum = -1;
    MPI_OK(MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, world));
    CHECK(sum == n * (n - 1) / 2, "Allreduce after the errors: %d", sum);
    return mt_finish();
}
