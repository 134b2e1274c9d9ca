/* The wait policy: whether a rank that waits and has polled idle for a while should poll on
 * or sleep on its doorbell, given what it can see of the peer it most likely waits for. A pure
 * function of its inputs (wait_policy.c) so that every rule can be tested without a scheduler;
 * the wait loop (p2p_progress.c) gathers the inputs. See docs/DESIGN.md "Waiting". */
#ifndef FY_WAIT_POLICY_H
#define FY_WAIT_POLICY_H

#include <stdint.h>

/* A peer whose latest beat is older than this while it says it polls is off its CPU: it beats
 * every few microseconds while it runs. */
#define FY_WAIT_STALE_NS 20000
/* How long the CPU of a peer that left its wait still says where it runs. */
#define FY_WAIT_RECENT_NS 1000000
/* How much longer than the base spin a rank polls for a peer that polls on another CPU. */
#define FY_WAIT_RUNNING_FACTOR 20

typedef struct fy_wait_in {
    int64_t idle_ns;    /* this wait has polled without progress for this long */
    int64_t spin_ns;    /* the base spin: how long to poll when the peer's state says nothing */
    int adaptive;       /* FERRY_WAIT=auto: use the peer's state (0: the base spin alone) */
    int oversubscribed; /* ranks outnumber cores: polls yield the core (the base spin alone) */
    int peer_known;     /* the fields below describe the rank this wait most likely needs */
    int peer_sleeping;  /* it sits in futex_wait: it answers no sooner than its wake-up */
    int peer_polling;   /* it is inside a wait, polling */
    int64_t peer_age_ns; /* since its latest beat (< 0: dated ahead, a copy's expected end) */
    int same_cpu;        /* its latest CPU is the one this rank runs on */
} fy_wait_in_t;

/* The decision and its reason (the reasons are counted: MPI_T pvars). */
typedef enum fy_wait_do {
    FY_WAIT_POLL,         /* within the base spin */
    FY_WAIT_POLL_RUNNING, /* beyond it: the peer polls on another CPU, an answer is near */
    FY_WAIT_SLEEP_SPENT,  /* the spin is spent */
    FY_WAIT_SLEEP_SHARED, /* the peer last ran on this CPU: polling here keeps it off */
    FY_WAIT_SLEEP_OFF,    /* the peer polls but has not beaten lately: it is descheduled */
    FY_WAIT_DO_N
} fy_wait_do_t;

static inline int fy_wait_sleeps(fy_wait_do_t d)
{
    return d >= FY_WAIT_SLEEP_SPENT;
}

fy_wait_do_t fy_wait_policy(const fy_wait_in_t *in);

#endif
