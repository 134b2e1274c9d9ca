/* What the monitor (mpiexec --monitor, ferry top) sees of a running rank.
 *
 * The wrappers of libferry_prof.so store into this rank's prof_live on every MPI call with
 * relaxed atomic stores only (plain moves on x86: the hot path pays nothing for them); the
 * monitor's thread (prof_monitor.c) reads it once a second and sends a snapshot to mpiexec.
 * Counters only grow; the reader takes differences between snapshots for rates. */
#ifndef PROF_LIVE_H
#define PROF_LIVE_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct prof_live {
    _Atomic int32_t call;          /* the MPI function the rank is in (prof_call_name), -1: none */
    _Atomic uint64_t call_since;  /* the library's clock (prof_ticks()) when it entered that call */
    _Atomic uint64_t mpi_ticks;    /* total ticks spent inside MPI calls that have returned */
    _Atomic uint64_t calls;        /* MPI calls made */
    _Atomic uint64_t msgs_sent, bytes_sent; /* point-to-point sends posted */
    _Atomic uint64_t msgs_recv, bytes_recv; /* point-to-point receives completed */
    _Atomic uint64_t coll_calls;   /* collectives entered */
} __attribute__((aligned(64))) prof_live_t;

extern prof_live_t prof_live;

/* The library's clock: prof_ticks() now, and ticks to nanoseconds (prof_clock.c). */
uint64_t prof_ticks(void);
double prof_ticks_per_ns(void);

/* The name of a function id ("MPI_Recv"); "?" for an unknown id. */
const char *prof_call_name(int id);

#endif
