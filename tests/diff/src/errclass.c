/* Error classes returned under MPI_ERRORS_RETURN for invalid arguments, and the error-class
 * machinery (Add_error_class/code/string, Error_class of a user code).
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
    report("Recv source=size", MPI_Recv(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Recv tag=-7", MPI_Recv(&x, 1, MPI_INT, 0, -7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Recv count=-2", MPI_Recv(&x, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    report("Isend dest=size+1 (dup comm)",
           MPI_Isend(&x, 1, MPI_INT, size + 1, 0, dup, &(MPI_Request){MPI_REQUEST_NULL}));
    report("Bcast root=size", MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD));
    report("Bcast root=-1", MPI_Bcast(&x, 1, MPI_INT, -1, MPI_COMM_WORLD));
    report("Allreduce op=OP_NULL",
           MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD));
    report("Comm_rank comm=COMM_NULL", MPI_Comm_rank(MPI_COMM_NULL, &x));
    report("Comm_size comm=COMM_NULL", MPI_Comm_size(MPI_COMM_NULL, &x));
    report("Barrier comm=COMM_NULL", MPI_Barrier(MPI_COMM_NULL));
    report("Type_contiguous count=-1",
           MPI_Type_contiguous(-1, MPI_INT, &(MPI_Datatype){MPI_DATATYPE_NULL}));
    report("Type_size datatype=NULL", MPI_Type_size(MPI_DATATYPE_NULL, &x));
    report("Type_commit datatype=NULL", MPI_Type_commit(&(MPI_Datatype){MPI_DATATYPE_NULL}));
    report("Wait on REQUEST_NULL", MPI_Wait(&(MPI_Request){MPI_REQUEST_NULL}, MPI_STATUS_IGNORE));
    int incl[1] = {size};
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    report("Group_incl rank=size",
           MPI_Group_incl(world_group, 1, incl, &(MPI_Group){MPI_GROUP_NULL}));
    report("Group_size group=GROUP_NULL", MPI_Group_size(MPI_GROUP_NULL, &x));
    MPI_Group_free(&world_group);
    report("Comm_split (color=UNDEFINED ok)",
           MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &(MPI_Comm){MPI_COMM_NULL}));
    report("Comm_get_attr keyval=INVALID",
           MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &x, &y));

    /* Truncation, reported by the receive. */
    int big[4] = {1, 2, 3, 4}, small[2];
    MPI_Request rq;
    MPI_Irecv(small, 2, MPI_INT, rank, 77, MPI_COMM_WORLD, &rq);
    MPI_Send(big, 4, MPI_INT, rank, 77, MPI_COMM_WORLD);
    report("Recv of 4 ints into 2 (truncate)", MPI_Wait(&rq, MPI_STATUS_IGNORE));

    /* User-defined classes and codes. */
    int cls, code, cls_of_code;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Error_class(code, &cls_of_code);
    MPI_Add_error_string(code, "a user error");
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(code, msg, &len);
    if (rank == 0)
        printf("user class != predefined: %d; class of code is class: %d; "
               "string: \"%s\" (%d)\n",
               cls > MPI_T_ERR_NOT_SUPPORTED, cls_of_code == cls, msg, len);

    MPI_Comm_free(&dup);
    MPI_Finalize();
    return 0;
}
