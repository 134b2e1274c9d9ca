/* TEMPORARY stand-in for the recorder (helper A's prof_*.c), so that the monitor builds and is
 * tested alone on its branch. The lead drops this file at the merge: A's wrappers and
 * prof_clock.c define the same symbols (prof_live, prof_ticks, prof_ticks_per_ns,
 * prof_call_name) and call prof_monitor_start/prof_monitor_stop from MPI_Init/MPI_Finalize.
 *
 * A few wrappers only (enough for the monitor's tests): MPI_Init, MPI_Init_thread,
 * MPI_Finalize, MPI_Send, MPI_Recv, MPI_Barrier, MPI_Allreduce. */
#include "prof_live.h"
#include "prof_monitor.h"

#include <mpi.h>
#include <time.h>

prof_live_t prof_live = {.call = -1};

enum { ID_INIT, ID_INIT_THREAD, ID_FINALIZE, ID_SEND, ID_RECV, ID_BARRIER, ID_ALLREDUCE, ID_N };
static const char *const names[ID_N] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize", "MPI_Send",
                                        "MPI_Recv", "MPI_Barrier", "MPI_Allreduce"};

uint64_t prof_ticks(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double prof_ticks_per_ns(void)
{
    return 1.0;
}

const char *prof_call_name(int id)
{
    return id >= 0 && id < ID_N ? names[id] : "?";
}

static uint64_t enter(int id)
{
    uint64_t t = prof_ticks();
    atomic_store_explicit(&prof_live.call_since, t, memory_order_relaxed);
    atomic_store_explicit(&prof_live.call, id, memory_order_relaxed);
    return t;
}

static void leave(uint64_t t0)
{
    uint64_t t = prof_ticks();
    atomic_store_explicit(&prof_live.call, -1, memory_order_relaxed);
    atomic_store_explicit(&prof_live.mpi_ticks,
                          atomic_load_explicit(&prof_live.mpi_ticks, memory_order_relaxed) + t - t0,
                          memory_order_relaxed);
    atomic_store_explicit(&prof_live.calls,
                          atomic_load_explicit(&prof_live.calls, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static void add(_Atomic uint64_t *c, uint64_t v)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + v,
                          memory_order_relaxed);
}

static void started(void)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    prof_monitor_start(rank, size);
}

int MPI_Init(int *argc, char ***argv)
{
    uint64_t t = enter(ID_INIT);
    int rc = PMPI_Init(argc, argv);
    leave(t);
    if (rc == MPI_SUCCESS)
        started();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t = enter(ID_INIT_THREAD);
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    leave(t);
    if (rc == MPI_SUCCESS)
        started();
    return rc;
}

int MPI_Finalize(void)
{
    prof_monitor_stop();
    return PMPI_Finalize();
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    uint64_t t = enter(ID_SEND);
    int rc = PMPI_Send(buf, count, dt, dest, tag, comm);
    int sz = 0;
    PMPI_Type_size(dt, &sz);
    add(&prof_live.msgs_sent, 1);
    add(&prof_live.bytes_sent, (uint64_t)sz * (uint64_t)count);
    leave(t);
    return rc;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    uint64_t t = enter(ID_RECV);
    MPI_Status st;
    int rc = PMPI_Recv(buf, count, dt, src, tag, comm, &st);
    int n = 0;
    PMPI_Get_count(&st, MPI_BYTE, &n);
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    add(&prof_live.msgs_recv, 1);
    add(&prof_live.bytes_recv, n > 0 ? (uint64_t)n : 0);
    leave(t);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    uint64_t t = enter(ID_BARRIER);
    add(&prof_live.coll_calls, 1);
    int rc = PMPI_Barrier(comm);
    leave(t);
    return rc;
}

int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    uint64_t t = enter(ID_ALLREDUCE);
    add(&prof_live.coll_calls, 1);
    int rc = PMPI_Allreduce(sb, rb, count, dt, op, comm);
    leave(t);
    return rc;
}
