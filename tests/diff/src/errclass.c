/* Moved to later issues: Type_contiguous/commit, Group_incl/size, Comm_split, Add_error_*. */
/* Error classes returned under MPI_ERRORS_RETURN for invalid arguments of this release's
 * functions (bad rank, tag, count, datatype, communicator, root, op/datatype pairs, keyval,
 * request), truncation, MPI_ERR_IN_STATUS, and the predefined classes' own error classes.
 * Only classes are printed (never the implementation's message text), by name. Every rank
 * makes the calls; rank 0 prints, and the others report disagreement with rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *class_name(int c)
{
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_TAG: return "MPI_ERR_TAG";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TOPOLOGY: return "MPI_ERR_TOPOLOGY";
    case MPI_ERR_DIMS: return "MPI_ERR_DIMS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_UNKNOWN: return "MPI_ERR_UNKNOWN";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_REQUEST: return "MPI_ERR_REQUEST";
    case MPI_ERR_KEYVAL: return "MPI_ERR_KEYVAL";
    case MPI_ERR_INFO_KEY: return "MPI_ERR_INFO_KEY";
    case MPI_ERR_INFO_NOKEY: return "MPI_ERR_INFO_NOKEY";
    case MPI_ERR_INFO_VALUE: return "MPI_ERR_INFO_VALUE";
    case MPI_ERR_INFO: return "MPI_ERR_INFO";
    case MPI_ERR_IN_STATUS: return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING: return "MPI_ERR_PENDING";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    default: return "(other)";
    }
}

static int rank;
static int line_no;

static void report(const char *what, int rc)
{
    int cls = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    else
        cls = MPI_SUCCESS;
    /* Every rank computes the line; rank 0 prints it, others compare with rank 0's class. */
    int cls0 = cls;
    MPI_Bcast(&cls0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    line_no++;
    if (rank == 0)
        printf("%2d %-44s %s (%d)\n", line_no, what, class_name(cls), cls);
    else if (cls0 != cls)
        printf("rank %d disagrees on %s: %s\n", rank, what, class_name(cls));
}

int main(int argc, char **argv)
{
    int size, x = 0, y = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    report("Send dest=size", MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD));
    report("Send dest=-5", MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD));
    report("Send tag=-1", MPI_Send(&x, 1, MPI_INT, 0, -1, MPI_COMM_WORLD));
    report("Send count=-1", MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    report("Send datatype=NULL", MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD));
    report("Send dest=PROC_NULL", MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    report("Recv source=size",
           MPI_Recv(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Recv tag=-7", MPI_Recv(&x, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Recv count=-2", MPI_Recv(&x, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Isend dest=size+1 (dup comm)",
           MPI_Isend(&x, 1, MPI_INT, size + 1, 0, dup, &(MPI_Request){MPI_REQUEST_NULL}));
    report("Bcast root=size", MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD));
    report("Bcast root=-1", MPI_Bcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD));
    report("Allreduce op=OP_NULL", MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    report("Comm_rank comm=COMM_NULL", MPI_Comm_rank(MPI_COMM_NULL, &x));
    report("Comm_size comm=COMM_NULL", MPI_Comm_size(MPI_COMM_NULL, &x));
    report("Barrier comm=COMM_NULL", MPI_Barrier(MPI_COMM_NULL));
    report("Type_size datatype=NULL", MPI_Type_size(MPI_DATATYPE_NULL, &x));
    MPI_Aint lb, extent;
    report("Type_get_extent datatype=NULL", MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &extent));
    report("Send comm=COMM_NULL", MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL));
    report("Irecv comm=COMM_NULL",
           MPI_Irecv(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL, &(MPI_Request){MPI_REQUEST_NULL}));
    report("Ssend count=-1", MPI_Ssend(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    report("Send_init tag=-2",
           MPI_Send_init(&x, 1, MPI_INT, 0, -2, MPI_COMM_WORLD, &(MPI_Request){MPI_REQUEST_NULL}));
    report("Recv_init source=-5",
           MPI_Recv_init(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD, &(MPI_Request){MPI_REQUEST_NULL}));
    report("Sendrecv dest=size", MPI_Sendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, 0, 0,
                                              MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Probe source=size", MPI_Probe(size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Iprobe tag=-3", MPI_Iprobe(0, -3, MPI_COMM_WORLD, &x, MPI_STATUS_IGNORE));
    report("Bcast count=-1", MPI_Bcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD));
    report("Bcast datatype=NULL", MPI_Bcast(&x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD));
    report("Reduce root=size", MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD));
    report("Reduce op=MAXLOC type=INT",
           MPI_Reduce(&x, &y, 1, MPI_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD));
    double d = 1, e = 0;
    report("Allreduce op=BAND type=DOUBLE",
           MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD));
    struct {
        double v;
        int i;
    } di = {1.0, rank}, dio;
    report("Allreduce op=SUM type=DOUBLE_INT",
           MPI_Allreduce(&di, &dio, 1, MPI_DOUBLE_INT, MPI_SUM, MPI_COMM_WORLD));
    report("Allreduce op=MINLOC type=DOUBLE_INT (ok)",
           MPI_Allreduce(&di, &dio, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
    /* Not LXOR/LAND/LOR on floating point: MPICH accepts it as an extension. */
    report("Allreduce op=PROD type=2INT",
           MPI_Allreduce(&(int[2]){1, 2}, &(int[2]){0, 0}, 1, MPI_2INT, MPI_PROD, MPI_COMM_WORLD));
    report("Allreduce op=MAXLOC type=FLOAT",
           MPI_Allreduce(&(float){1}, &(float){0}, 1, MPI_FLOAT, MPI_MAXLOC, MPI_COMM_WORLD));
    report("Reduce op=BOR type=INT (ok)",
           MPI_Reduce(&x, &y, 1, MPI_INT, MPI_BOR, 0, MPI_COMM_WORLD));
    report("Comm_dup comm=COMM_NULL", MPI_Comm_dup(MPI_COMM_NULL, &(MPI_Comm){MPI_COMM_NULL}));
    report("Comm_set_name comm=COMM_NULL", MPI_Comm_set_name(MPI_COMM_NULL, "x"));
    report("Comm_free comm=COMM_NULL", MPI_Comm_free(&(MPI_Comm){MPI_COMM_NULL}));
    report("Comm_set_attr keyval=INVALID",
           MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &x));
    report("Comm_delete_attr keyval=INVALID",
           MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID));
    report("Wait on REQUEST_NULL", MPI_Wait(&(MPI_Request){MPI_REQUEST_NULL}, MPI_STATUS_IGNORE));
    report("Start on REQUEST_NULL", MPI_Start(&(MPI_Request){MPI_REQUEST_NULL}));
    MPI_Request nonpersistent;
    MPI_Irecv(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &nonpersistent);
    report("Start on a non-persistent request", MPI_Start(&nonpersistent));
    MPI_Wait(&nonpersistent, MPI_STATUS_IGNORE);
    report("Request_free on REQUEST_NULL", MPI_Request_free(&(MPI_Request){MPI_REQUEST_NULL}));
    report("Cancel on REQUEST_NULL", MPI_Cancel(&(MPI_Request){MPI_REQUEST_NULL}));
    report("Get_count datatype=NULL", MPI_Get_count(&(MPI_Status){0}, MPI_DATATYPE_NULL, &x));
    report("Comm_get_attr keyval=INVALID",
           MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &x, &y));

    /* Truncation, reported by the receive. */
    int big[4] = {1, 2, 3, 4}, small[2];
    MPI_Request rq;
    MPI_Irecv(small, 2, MPI_INT, rank, 77, MPI_COMM_WORLD, &rq);
    MPI_Send(big, 4, MPI_INT, rank, 77, MPI_COMM_WORLD);
    report("Recv of 4 ints into 2 (truncate)", MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_Request sq;
    MPI_Isend(big, 3, MPI_INT, rank, 78, MPI_COMM_WORLD, &sq);
    report("blocking Recv of 3 ints into 2",
           MPI_Recv(small, 2, MPI_INT, rank, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Wait(&sq, MPI_STATUS_IGNORE);

    /* Waitall with one truncated receive: MPI_ERR_IN_STATUS, the class in that status. */
    MPI_Request two[2];
    MPI_Status sts[2];
    int ok = 0;
    MPI_Irecv(&ok, 1, MPI_INT, rank, 79, MPI_COMM_WORLD, &two[0]);
    MPI_Irecv(small, 1, MPI_INT, rank, 80, MPI_COMM_WORLD, &two[1]);
    MPI_Send(big, 1, MPI_INT, rank, 79, MPI_COMM_WORLD);
    MPI_Send(big, 2, MPI_INT, rank, 80, MPI_COMM_WORLD);
    report("Waitall, second receive truncated", MPI_Waitall(2, two, sts));
    report("  its status[0].MPI_ERROR", sts[0].MPI_ERROR);
    report("  its status[1].MPI_ERROR", sts[1].MPI_ERROR);

    /* Every predefined error class is its own class, and has a message. */
    int bad = 0;
    for (int c = MPI_SUCCESS; c <= MPI_T_ERR_NOT_SUPPORTED; c++) {
        int k = -1, len = 0;
        char msg[MPI_MAX_ERROR_STRING];
        if (MPI_Error_class(c, &k) != MPI_SUCCESS || k != c ||
            MPI_Error_string(c, msg, &len) != MPI_SUCCESS || len <= 0 ||
            len >= MPI_MAX_ERROR_STRING || (int)strlen(msg) != len) {
            if (rank == 0)
                printf("class %d: class %d, message length %d\n", c, k, len);
            bad++;
        }
    }
    if (rank == 0)
        printf("predefined classes 0..%d: %d not their own class or without a message\n",
               MPI_T_ERR_NOT_SUPPORTED, bad);

    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
