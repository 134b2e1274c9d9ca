/* Process-wide state of the library, and the big lock taken only under MPI_THREAD_MULTIPLE. */
#ifndef FY_RUNTIME_H
#define FY_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi.h"

/* Thread-local state read on hot paths. The default model for a shared library calls
 * __tls_get_addr on every access (22 instructions per round trip of a ping-pong); initial-exec
 * is one load, and a few bytes of it fit in the static TLS that glibc keeps free for libraries
 * opened later (mpi4py dlopens us). Cold or large thread-locals keep the default. */
#define FY_TLS_HOT _Thread_local __attribute__((tls_model("initial-exec")))

struct fy_pmi;

enum { FY_WAIT_AUTO, FY_WAIT_SPIN, FY_WAIT_BLOCK, FY_WAIT_FIXED };

typedef struct fy_runtime {
    int rank, size; /* in MPI_COMM_WORLD */
    int appnum;
    int universe; /* MPI_UNIVERSE_SIZE: what the launcher offers, at least size */
    int thread_level;
    bool initialized, finalized; /* the world model: MPI_Init and MPI_Finalize were called */
    bool up;                     /* the library runs: world or at least one session is live */
    bool shut;                   /* it ran and was shut down: it cannot start again */
    int users;                   /* the world model (while live) plus every live session */
    bool locking; /* true under MPI_THREAD_MULTIPLE */
    pthread_t main_thread;
    pthread_mutex_t lock;
    struct fy_pmi *pmi;
    char kvsname[256];
    char hostname[MPI_MAX_PROCESSOR_NAME];
    int wait_mode;
    int64_t spin_ns; /* how long a waiting rank polls before sleeping (FERRY_SPIN_US) */
    int spin_yield;  /* polls yield the core (FERRY_YIELD; on when oversubscribed) */
    double wtime_base;
    int launcher_pid; /* our parent at MPI_Init: if it changes, the launcher died */
    /* Hosts, as the launcher names them (fy_hosts.c): host_of[w] is world rank w's host,
     * numbered from 0 in order of first rank; `host` is ours. */
    int *host_of;
    int host, nhosts;
    bool netmod_tcp; /* FERRY_NETMOD=tcp: no shared-memory transport between ranks */
} fy_runtime_t;

extern fy_runtime_t fy_rt;

static inline void fy_lock(void)
{
    if (fy_rt.locking)
        pthread_mutex_lock(&fy_rt.lock);
}
static inline void fy_unlock(void)
{
    if (fy_rt.locking)
        pthread_mutex_unlock(&fy_rt.lock);
}

#endif
