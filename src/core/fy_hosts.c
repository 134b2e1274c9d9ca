/* Which ranks share a host. A host is what the launcher says it is, never a guess from
 * gethostname: two network namespaces of one kernel, or a cluster's nodes that all answer
 * "localhost", would fool that. The launcher's PMI_process_mapping says it in one key (Ferry's
 * mpiexec and its proxies, Hydra); a launcher without it gets an exchange of each rank's
 * FY_HOST_ID (or, as a last resort, host name) through the key-value space, one fence more. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_err.h"
#include "fy_hosts.h"
#include "fy_pmi.h"
#include "fy_runtime.h"

/* Numbers hosts from 0 in order of their first rank, whatever numbers the launcher used. */
static void renumber(int *host_of, int size)
{
    int *seen = malloc(sizeof(int) * (size_t)size); /* seen[k]: the launcher's k-th host id */
    int n = 0;
    for (int r = 0; r < size && seen; r++) {
        int k = 0;
        while (k < n && seen[k] != host_of[r])
            k++;
        if (k == n)
            seen[n++] = host_of[r];
        host_of[r] = k;
    }
    free(seen);
}

static int exchange(int *host_of, int size)
{
    const char *fn = "MPI_Init";
    char key[FY_PMI_MAX_KEY], mine[FY_PMI_MAX_VAL];
    const char *id = getenv("FY_HOST_ID");
    snprintf(mine, sizeof mine, "%s", id && *id ? id : fy_rt.hostname);
    for (char *p = mine; *p; p++) /* PMI values: printable, no spaces, '=' or ';' */
        if (*p <= ' ' || *p == '=' || *p == ';' || *p > '~')
            *p = '_';
    snprintf(key, sizeof key, "fy-host-%d", fy_rt.rank);
    if (fy_pmi_put(fy_rt.pmi, key, mine) != 0 || fy_pmi_fence(fy_rt.pmi) != 0)
        return fy_err_set(MPI_ERR_OTHER, "%s: process manager exchange of hosts failed: %s", fn,
                          fy_pmi_last_error());
    /* Names to numbers: a rank's host is the first rank with the same name. */
    char (*names)[FY_PMI_MAX_VAL] = malloc(sizeof *names * (size_t)size);
    if (!names)
        return fy_err_set(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int rc = MPI_SUCCESS;
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++) {
        snprintf(key, sizeof key, "fy-host-%d", r);
        if (fy_pmi_get(fy_rt.pmi, r, key, names[r], sizeof names[r]) != 0) {
            rc = fy_err_set(MPI_ERR_OTHER, "%s: no host for rank %d in the process manager: %s",
                            fn, r, fy_pmi_last_error());
            break;
        }
        int first = 0;
        while (strcmp(names[first], names[r]) != 0)
            first++;
        host_of[r] = first;
    }
    free(names);
    return rc;
}

int fy_hosts_init(void)
{
    int size = fy_rt.size;
    fy_rt.host_of = malloc(sizeof(int) * (size_t)size);
    if (!fy_rt.host_of)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    if (fy_pmi_process_mapping(fy_rt.pmi, fy_rt.host_of, size) != 0) {
        int rc = exchange(fy_rt.host_of, size);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    renumber(fy_rt.host_of, size);
    fy_rt.host = fy_rt.host_of[fy_rt.rank];
    fy_rt.nhosts = 0;
    for (int r = 0; r < size; r++)
        if (fy_rt.host_of[r] >= fy_rt.nhosts)
            fy_rt.nhosts = fy_rt.host_of[r] + 1;
    return MPI_SUCCESS;
}

void fy_hosts_fini(void)
{
    free(fy_rt.host_of);
    fy_rt.host_of = NULL;
    fy_rt.nhosts = 0;
}

int fy_hosts_local(int **members_p, int *n_p, int *me_p)
{
    int *m = malloc(sizeof(int) * (size_t)fy_rt.size);
    if (!m)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    int n = 0;
    for (int r = 0; r < fy_rt.size; r++) {
        if (r == fy_rt.rank)
            *me_p = n;
        if (r == fy_rt.rank || (!fy_rt.netmod_tcp && fy_rt.host_of[r] == fy_rt.host))
            m[n++] = r;
    }
    *members_p = m;
    *n_p = n;
    return MPI_SUCCESS;
}
