/* Starting and stopping the library, for the world model and for sessions alike.
 *
 * The library runs while anything uses it: the world model (MPI_Init to MPI_Finalize) and each
 * live session count as one user each. The first user brings every layer up, in order from the
 * bottom (process manager, collective selection, shared memory, point-to-point, core tables);
 * the last one takes them down in the reverse order. Only this file knows the order, so no layer
 * calls up into another. Once down, the library cannot start again in this process: the job's
 * shared-memory segment was unlinked after everyone mapped it, and the process manager was told
 * this process is done. */
#include <stdio.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "fy_knobs.h"
#include <string.h>

#include "fy_api.h"
#include "fy_coll.h"
#include "fy_dtype.h"
#include "fy_init.h"
#include "fy_osc.h"
#include "fy_machine.h"
#include "fy_op.h"
#include "fy_p2p.h"
#include "fy_sched.h"
#include <stdlib.h>

#include "fy_hier.h"
#include "fy_hosts.h"
#include "fy_select.h"
#include "fy_session.h"
#include "fy_xport.h"

extern int fy_pending_total;

static int layers_up(int required)
{
    int rc = fy_core_init(required);
    if (rc == MPI_SUCCESS)
        rc = fy_select_init(); /* FERRY_COLL_<NAME>: a wrong name stops here, before any work */
    fy_hier_agree = fy_api_agree_hier; /* the node-aware collectives' ids, agreed up here */
    if (rc == MPI_SUCCESS) /* rank 0 reads the machine's calibration or measures it */
        rc = fy_machine_share(fy_rt.pmi, fy_rt.rank, fy_rt.size);
    if (rc == MPI_SUCCESS && fy_rt.size > 1) { /* its first fence carries rank 0's calibration */
        int *members, n, me;
        rc = fy_hosts_local(&members, &n, &me);
        /* TCP's address goes into the key-value space before the shm init's fence. */
        if (rc == MPI_SUCCESS && n < fy_rt.size)
            rc = fy_tcp_init(fy_rt.pmi, fy_rt.rank, fy_rt.size, fy_rt.nhosts == 1);
        if (rc == MPI_SUCCESS)
            rc = fy_shm_init(fy_rt.pmi, members, n, me, fy_rt.size);
        else
            free(members);
        if (rc == MPI_SUCCESS && fy_tcp_active)
            fy_tcp_bell(fy_shm_use_eventfd());
    }
    if (rc == MPI_SUCCESS)
        rc = fy_machine_receive(fy_rt.pmi, fy_rt.rank, fy_rt.size,
                                fy_rt.host_of[0] == fy_rt.host);
    if (rc == MPI_SUCCESS)
        rc = fy_p2p_init(); /* thresholds from fy_machine() */
    if (rc == MPI_SUCCESS)
        rc = fy_comm_init();
    return rc;
}

static bool no_pending(void *arg)
{
    (void)arg;
    return fy_pending_total == 0;
}

/* The progress thread the user may ask for (FERRY_PROGRESS_THREAD=N: a pass every N us): it
 * turns the library lock on, as MPI_THREAD_MULTIPLE does, and takes it only when free
 * (trylock), so it never makes an MPI call wait for it, and stops at the first pass after
 * layers_down asks (the lock is held then: its trylock fails and it leaves). */
static pthread_t progress_tid;
static atomic_bool progress_on, progress_stop;

static void *progress_main(void *arg)
{
    struct timespec ts = {0, (long)(intptr_t)arg * 1000L};
    while (!atomic_load(&progress_stop)) {
        if (pthread_mutex_trylock(&fy_rt.lock) == 0) {
            if (!atomic_load(&progress_stop))
                fy_progress();
            pthread_mutex_unlock(&fy_rt.lock);
        }
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void progress_thread_start(void)
{
    long us = fy_knob_number(FY_KNOB_PROGRESS_THREAD, 0);
    if (us <= 0)
        return;
    if (us > 1000000)
        us = 1000000;
    if (!fy_rt.locking) {
        fy_rt.locking = true;
        fy_p2p_threads_on();
    }
    atomic_store(&progress_stop, false);
    if (pthread_create(&progress_tid, NULL, progress_main, (void *)(intptr_t)us) == 0)
        atomic_store(&progress_on, true);
}

static void progress_thread_stop(void)
{
    if (!atomic_load(&progress_on))
        return;
    atomic_store(&progress_stop, true);
    pthread_join(progress_tid, NULL);
    atomic_store(&progress_on, false);
}

static void layers_down(void)
{
    progress_thread_stop();
    /* Queued control records (FIN, ACK) may be what a peer still waits for. */
    fy_wait_until(no_pending, NULL);
    fy_win_fini(); /* windows left open hold communicators and mappings */
    /* Collectives whose requests were freed still run (MPI_Request_free): let them finish. */
    fy_sched_fini();
    fy_coll_fini();
    fy_tcp_fini(); /* may still deliver what peers send while it flushes: before p2p goes */
    fy_p2p_fini();
    fy_session_fini();
    fy_core_fini();
    fy_dtype_fini();
    fy_op_fini();
    fy_shm_fini();
    fy_core_pmi_fini();
}

void fy_api_runtime_quiesce(void)
{
    /* Queued control records (FIN, ACK) may be what a peer still waits for. */
    fy_wait_until(no_pending, NULL);
    /* Collectives whose requests were freed still run (MPI_Request_free): let them finish. */
    fy_sched_fini();
    /* From here no user message leaves or enters this rank: a peer still sending to it, or
     * waiting for a message from it, gets an error instead of waiting forever. */
    fy_p2p_leave();
}

/* Raising the thread level of a running library is safe only from MULTIPLE's point of view:
 * the caller is inside MPI alone (it could not be otherwise at a lower level), so turning the
 * lock on here cannot race with another thread inside MPI. It is never turned off. */
static void raise_thread_level(int required)
{
    if (required > MPI_THREAD_MULTIPLE)
        required = MPI_THREAD_MULTIPLE;
    if (required <= fy_rt.thread_level)
        return;
    fy_rt.thread_level = required;
    if (required == MPI_THREAD_MULTIPLE && !fy_rt.locking) {
        fy_rt.locking = true;
        fy_p2p_threads_on();
    }
}

int fy_api_runtime_join(const char *fn, int required)
{
    /* Two threads may start sessions at once; the lock exists whether or not it is in use. */
    pthread_mutex_lock(&fy_rt.lock);
    int rc = MPI_SUCCESS;
    if (fy_rt.shut) {
        rc = fy_err_set(MPI_ERR_OTHER,
                        "%s: the library already shut down in this process (MPI_Finalize or "
                        "the last MPI_Session_finalize); Ferry cannot start it again",
                        fn);
    } else if (!fy_rt.up) {
        rc = layers_up(required);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            const char *m = fy_err_last_message();
            size_t fl = strlen(fn);
            /* Layers below name the call themselves ("MPI_Init: ..."): not twice. */
            if (strncmp(m, fn, fl) == 0 && m[fl] == ':')
                snprintf(msg, sizeof msg, "%s", m);
            else
                snprintf(msg, sizeof msg, "%s: %s", fn, m);
            fy_fatal(rc, msg); /* a half-started library cannot report errors any other way */
        }
        fy_rt.up = true;
        progress_thread_start();
    } else {
        raise_thread_level(required);
    }
    if (rc == MPI_SUCCESS)
        fy_rt.users++;
    pthread_mutex_unlock(&fy_rt.lock);
    return rc;
}

void fy_api_runtime_leave(void)
{
    pthread_mutex_lock(&fy_rt.lock);
    if (--fy_rt.users == 0) {
        layers_down();
        fy_rt.up = false;
        fy_rt.shut = true;
    }
    pthread_mutex_unlock(&fy_rt.lock);
}
