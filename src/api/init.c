/* MPI_Init and friends: the environment of a Ferry process. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fy_api.h"
#include "fy_attr.h"
#include "fy_coll.h"
#include "fy_pmi.h"

static int do_init(const char *fn, int required, int *provided)
{
    if (fy_rt.initialized || fy_rt.finalized) {
        fy_err_set(MPI_ERR_OTHER, "%s: MPI is already %s", fn,
                   fy_rt.finalized ? "finalized" : "initialized");
        return fy_err_raise_comm(MPI_COMM_NULL, MPI_ERR_OTHER);
    }
    int rc = fy_api_runtime_join(fn, required);
    if (rc != MPI_SUCCESS)
        fy_fatal(rc, fy_err_last_message()); /* MPI_Init has no handler to return through */
    fy_rt.initialized = true;
    if (provided)
        *provided = fy_rt.thread_level;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return do_init("MPI_Init", MPI_THREAD_SINGLE, NULL);
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    return do_init("MPI_Init_thread", required, provided);
}

int PMPI_Finalize(void)
{
    int rc = fy_api_check_world("MPI_Finalize");
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_WORLD, rc);
    fy_lock();
    /* The standard's hook for libraries: attributes on MPI_COMM_SELF are deleted first,
     * newest first, while MPI is still fully usable. */
    fy_attr_delete_all_anyway(fy_comm_get(MPI_COMM_SELF));
    /* When no session keeps the library running, no user message leaves or enters this rank
     * from here on: peers still sending to it, or waiting for a message from it, get an error
     * instead of waiting forever. (users is changed only with the lock held, by this thread
     * or by a session call that would have to run beside MPI_Finalize.) */
    if (fy_rt.users == 1)
        fy_api_runtime_quiesce();
    rc = fy_barrier(fy_comm_get(MPI_COMM_WORLD));
    fy_rt.finalized = true;
    fy_unlock();
    /* Sessions still live keep the library running; the last user stops it. */
    fy_api_runtime_leave();
    return rc;
}

/* Both describe the world model alone (MPI-4.1 11.2.1): sessions do not make MPI
 * "initialized", nor does their end make it "finalized". */
int PMPI_Initialized(int *flag)
{
    *flag = fy_rt.initialized;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    *flag = fy_rt.finalized;
    return MPI_SUCCESS;
}

int PMPI_Query_thread(int *provided)
{
    *provided = fy_rt.thread_level;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    *flag = pthread_equal(pthread_self(), fy_rt.main_thread);
    return MPI_SUCCESS;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm; /* the whole job ends: there is no smaller unit to stop */
    /* The launcher names the rank and the code; there is nothing to add. */
    if (fy_rt.pmi)
        fy_pmi_abort(fy_rt.pmi, errorcode, NULL);
    _exit(errorcode);
}

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "Ferry MPI %s (MPI %d.%d, MPICH ABI libmpi.so.12; transports: self, shm)",
                     FERRY_VERSION, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!fy_rt.hostname[0] && gethostname(fy_rt.hostname, sizeof fy_rt.hostname) != 0)
        strcpy(fy_rt.hostname, "localhost");
    snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", fy_rt.hostname);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((double)ts.tv_sec - fy_rt.wtime_base) + (double)ts.tv_nsec * 1e-9;
}

double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
