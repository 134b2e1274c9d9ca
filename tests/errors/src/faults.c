/* One program, many ways to fail; the first argument picks one. The ranks that do not fail
 * wait in MPI_Recv on the failing rank, so a job that does not end by itself hangs.
 *
 *   badrank | badtag | badcount   rank 0 calls MPI_Send with dest size+1 / tag -7 / count -3
 *   badroot                       every rank calls MPI_Bcast with root 9
 *   abort [CODE]                  rank 2 (or the last) calls MPI_Abort(MPI_COMM_WORLD, CODE),
 *                                 7 by default
 *   segv                          rank 1 raises SIGSEGV
 *   exit3                         the last rank calls exit(3) before MPI_Finalize
 *   unsupported                   under ERRORS_RETURN, calls functions that may not be
 *                                 implemented yet and prints "FUNC: implemented" or
 *                                 "FUNC: class C: <error string>"
 *   fatal FUNC                    calls FUNC (one of those) under the default handler
 *   singleton                     prints "size N rank R" and does a self exchange
 *
 * A failing rank prints "rank R pid P" (flushed) first, so that the test can check the pid
 * in mpiexec's report.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void say_pid(void)
{
    printf("rank %d pid %ld\n", rank, (long)getpid());
    fflush(stdout);
}

/* The other ranks wait for a message from `culprit` that never comes. */
static void wait_on(int culprit)
{
    int x;
    MPI_Recv(&x, 1, MPI_INT, culprit, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("rank %d: unexpected message from rank %d\n", rank, culprit);
}

static int extent_fn(MPI_Datatype t, MPI_Aint *extent, void *state)
{
    (void)state;
    MPI_Aint lb;
    return MPI_Type_get_extent(t, &lb, extent);
}

/* Calls FUNC with valid arguments; returns its error code. */
static int call(const char *func, MPI_Comm comm)
{
    if (strcmp(func, "MPI_Win_create") == 0) {
        static char buf[64];
        MPI_Win win;
        int rc = MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, comm, &win);
        if (rc == MPI_SUCCESS)
            MPI_Win_free(&win);
        return rc;
    }
    if (strcmp(func, "MPI_File_open") == 0) {
        MPI_File fh;
        char name[64];
        snprintf(name, sizeof name, "fy-probe-%ld.dat", (long)getpid());
        int rc =
            MPI_File_open(comm, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh);
        if (rc == MPI_SUCCESS)
            MPI_File_close(&fh);
        return rc;
    }
    if (strcmp(func, "MPI_Register_datarep") == 0) {
        char name[64];
        snprintf(name, sizeof name, "fy_probe_%ld", (long)getpid());
        return MPI_Register_datarep(name, MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, extent_fn,
                                    NULL);
    }
    fprintf(stderr, "faults: unknown function %s\n", func);
    exit(2);
}

static const char *const candidates[] = {"MPI_Win_create", "MPI_File_open", "MPI_Register_datarep"};

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int x = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (strcmp(mode, "badrank") == 0 || strcmp(mode, "badtag") == 0 ||
        strcmp(mode, "badcount") == 0) {
        if (rank == 0) {
            say_pid();
            if (mode[3] == 'r')
                MPI_Send(&x, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
            else if (mode[3] == 't')
                MPI_Send(&x, 1, MPI_INT, 0, -7, MPI_COMM_WORLD);
            else
                MPI_Send(&x, -3, MPI_INT, 0, 0, MPI_COMM_WORLD);
            printf("rank 0: the invalid call returned\n");
        } else {
            wait_on(0);
        }
    } else if (strcmp(mode, "badroot") == 0) {
        MPI_Bcast(&x, 1, MPI_INT, 9, MPI_COMM_WORLD);
        printf("rank %d: the invalid call returned\n", rank);
    } else if (strcmp(mode, "abort") == 0) {
        int culprit = size > 2 ? 2 : size - 1;
        if (rank == culprit) {
            say_pid();
            MPI_Abort(MPI_COMM_WORLD, argc > 2 ? atoi(argv[2]) : 7);
            printf("rank %d: MPI_Abort returned\n", rank);
        } else {
            wait_on(culprit);
        }
    } else if (strcmp(mode, "segv") == 0) {
        int culprit = size > 1 ? 1 : 0;
        if (rank == culprit) {
            say_pid();
            raise(SIGSEGV);
        } else {
            wait_on(culprit);
        }
    } else if (strcmp(mode, "exit3") == 0) {
        if (rank == size - 1) {
            say_pid();
            exit(3);
        } else {
            wait_on(size - 1);
        }
    } else if (strcmp(mode, "unsupported") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        for (unsigned i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
            int rc = call(candidates[i], MPI_COMM_SELF), cls = -1, len = 0;
            char msg[MPI_MAX_ERROR_STRING] = "";
            if (rc == MPI_SUCCESS) {
                printf("%s: implemented\n", candidates[i]);
                continue;
            }
            MPI_Error_class(rc, &cls);
            MPI_Error_string(rc, msg, &len);
            msg[strcspn(msg, "\n")] = ' ';
            printf("%s: class %d: %s\n", candidates[i], cls, msg);
        }
    } else if (strcmp(mode, "fatal") == 0 && argc > 2) {
        say_pid();
        call(argv[2], MPI_COMM_WORLD);
        printf("rank %d: %s returned under MPI_ERRORS_ARE_FATAL\n", rank, argv[2]);
    } else if (strcmp(mode, "singleton") == 0) {
        int in = -1, sum = 0;
        printf("size %d rank %d\n", size, rank);
        MPI_Sendrecv(&rank, 1, MPI_INT, 0, 5, &in, 1, MPI_INT, 0, 5, MPI_COMM_SELF,
                     MPI_STATUS_IGNORE);
        MPI_Allreduce(&size, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (in == rank && sum == size)
            printf("No Errors\n");
    } else {
        fprintf(stderr, "faults: unknown mode '%s'\n", mode);
        return 2;
    }
    MPI_Finalize();
    return 0;
}
