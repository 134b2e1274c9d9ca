/* The core's part of starting and stopping the library: the runtime record, the process
 * manager connection, and the core's own tables. The order in which the layers start and stop
 * is decided by the API layer (api/runtime.c), so no layer below calls up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fy_attr.h"
#include "fy_comm.h"
#include "fy_err.h"
#include "fy_errhandler.h"
#include "fy_group.h"
#include "fy_hosts.h"
#include "fy_init.h"
#include "fy_knobs.h"
#include "fy_pmi.h"
#include "fy_request.h"
#include "fy_runtime.h"

/* Recursive: attribute and error-handler callbacks may call MPI while the lock is held. */
fy_runtime_t fy_rt = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

int fy_core_init(int required)
{
    fy_rt.thread_level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                         : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                          : required;
    fy_rt.locking = fy_rt.thread_level == MPI_THREAD_MULTIPLE;
    fy_rt.main_thread = pthread_self();
    fy_rt.launcher_pid = (int)getppid();
    fy_knob_freeze(true);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    fy_rt.wtime_base = (double)ts.tv_sec;
    if (gethostname(fy_rt.hostname, sizeof fy_rt.hostname) != 0)
        strcpy(fy_rt.hostname, "localhost");
    fy_rt.hostname[sizeof fy_rt.hostname - 1] = '\0';

    long wait_s = fy_knob_number(FY_KNOB_PMI_TIMEOUT, 60);
    fy_pmi_params_t pp = {
        .timeout_ms = wait_s > 0 && wait_s < 86400 ? (int)wait_s * 1000 : 60000,
        .pmix_lib = fy_knob_text(FY_KNOB_PMIX_LIB),
    };
    if (fy_pmi_init(&fy_rt.pmi, &pp) != 0)
        return fy_err_set(MPI_ERR_OTHER, "cannot reach the process manager: %s",
                          fy_pmi_last_error());
    fy_rt.rank = fy_pmi_rank(fy_rt.pmi);
    fy_rt.size = fy_pmi_size(fy_rt.pmi);
    fy_rt.appnum = fy_pmi_appnum(fy_rt.pmi);
    fy_rt.universe = fy_pmi_universe_size(fy_rt.pmi);
    snprintf(fy_rt.kvsname, sizeof fy_rt.kvsname, "%s", fy_pmi_kvsname(fy_rt.pmi));
    fy_rt.netmod_tcp = fy_knob_word(FY_KNOB_NETMOD, 0) == 1;
    return fy_hosts_init();
}

void fy_core_fini(void)
{
    fy_comm_fini();
    fy_group_fini();
    fy_errhandler_fini();
    fy_keyval_fini();
    fy_req_pool_fini();
}

void fy_core_pmi_fini(void)
{
    fy_hosts_fini();
    if (fy_rt.pmi)
        fy_pmi_finalize(fy_rt.pmi);
    fy_rt.pmi = NULL;
    fy_knob_freeze(false);
}
