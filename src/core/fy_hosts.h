/* Hosts of the job (fy_hosts.c): which ranks share a machine, as the launcher says. */
#ifndef FY_HOSTS_H
#define FY_HOSTS_H

#include <stdbool.h>

#include "fy_runtime.h"

/* Fills fy_rt.host_of, host and nhosts (after the process manager is up). */
int fy_hosts_init(void);
void fy_hosts_fini(void);
/* The world ranks the shared-memory transport joins to this one, ascending (this host's, or
 * this rank alone under FERRY_NETMOD=tcp): *n_p of them in a malloc'd *members_p, ours at
 * index *me_p. An error class. */
int fy_hosts_local(int **members_p, int *n_p, int *me_p);

/* Whether world ranks a and b run on one host. */
static inline bool fy_hosts_same(int a, int b)
{
    return fy_rt.host_of[a] == fy_rt.host_of[b];
}

#endif
