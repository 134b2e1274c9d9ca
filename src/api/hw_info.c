/* MPI_Get_hw_resource_info (MPI-4.1): what this process knows of the hardware it runs on, as a
 * new info object the caller frees.
 *
 * Keys:
 *   mpi_hw_resource_type   the resource types MPI_Comm_split_type(MPI_COMM_TYPE_HW_GUIDED)
 *                          accepts in its info key of the same name: "mpi_shared_memory" (the
 *                          one level Ferry can name: processes that share this machine's
 *                          memory)
 *   mpi_shared_memory      the instance of that resource the process is in: the host name
 *   ferry_cpus_online      processors online on the host
 *   ferry_cpus_allowed     processors this process may run on (its affinity mask)
 *   ferry_cpu              the processor it ran on at the moment of the call
 *   ferry_memory_bytes     physical memory of the host
 * Like the other info calls it works before MPI_Init and after MPI_Finalize. */
#include <sched.h>
#include <stdio.h>
#include <unistd.h>

#include "fy_api.h"
#include "fy_info.h"

static int set_long(fy_info_t *info, const char *key, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return fy_info_set(info, key, buf);
}

static int describe(fy_info_t *info)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    int rc = fy_info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
    if (rc == MPI_SUCCESS)
        rc = fy_info_set(info, "mpi_shared_memory", host);
    if (rc == MPI_SUCCESS)
        rc = set_long(info, "ferry_cpus_online", sysconf(_SC_NPROCESSORS_ONLN));
    cpu_set_t set;
    if (rc == MPI_SUCCESS && sched_getaffinity(0, sizeof set, &set) == 0)
        rc = set_long(info, "ferry_cpus_allowed", CPU_COUNT(&set));
    int cpu = sched_getcpu();
    if (rc == MPI_SUCCESS && cpu >= 0)
        rc = set_long(info, "ferry_cpu", cpu);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (rc == MPI_SUCCESS && pages > 0 && page > 0)
        rc = set_long(info, "ferry_memory_bytes", (long long)pages * page);
    return rc;
}

int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    const char *fn = "MPI_Get_hw_resource_info";
    int rc = MPI_SUCCESS;
    if (!hw_info)
        rc = fy_err_set(MPI_ERR_ARG, "%s: hw_info is NULL", fn);
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, rc);
    fy_lock();
    fy_info_t *info = fy_info_new();
    rc = info ? describe(info) : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = fy_info_publish(info, hw_info); /* frees info on failure */
    else
        fy_info_free(info);
    fy_unlock();
    if (rc != MPI_SUCCESS)
        return fy_err_raise_comm(MPI_COMM_SELF, fy_err_set(rc, "%s: out of memory", fn));
    return MPI_SUCCESS;
}
