/* The wait policy (fy_wait_policy.h). Polling pays only while the peer that will answer is on
 * another CPU and running; sleeping pays when it cannot run until this rank stops (it shares
 * this CPU) or is not running anyway (descheduled). A fixed spin cannot tell these apart: under
 * load it either starves a peer stacked on the same CPU for the whole spin, per message, or
 * sleeps through an answer that was a microsecond away. */
#include "fy_wait_policy.h"

static fy_wait_do_t base(const fy_wait_in_t *in)
{
    return in->idle_ns < in->spin_ns ? FY_WAIT_POLL : FY_WAIT_SLEEP_SPENT;
}

fy_wait_do_t fy_wait_policy(const fy_wait_in_t *in)
{
    /* Ranks that outnumber the cores poll with sched_yield, which already hands this CPU to
     * whoever has work, the peer included; sleeping earlier only adds wake-ups. */
    if (!in->adaptive || in->oversubscribed || !in->peer_known)
        return base(in);
    if (in->peer_sleeping)
        /* Its wake-up may well put it on this CPU (the waker's): leave the CPU to it. */
        return in->same_cpu ? FY_WAIT_SLEEP_SHARED : base(in);
    if (in->peer_age_ns < 0 && !in->same_cpu)
        /* Its beat is dated ahead: it is copying a large message and said when it expects to
         * be done (fy_p2p_busy_begin). It runs elsewhere; the answer comes when the copy ends. */
        return in->idle_ns < in->spin_ns ? FY_WAIT_POLL : FY_WAIT_POLL_RUNNING;
    if (in->peer_age_ns <= FY_WAIT_STALE_NS) {
        /* Seen running a moment ago. On this CPU, it now waits for this CPU to be free. */
        if (in->same_cpu)
            return FY_WAIT_SLEEP_SHARED;
        if (in->idle_ns < in->spin_ns)
            return FY_WAIT_POLL;
        return in->idle_ns < in->spin_ns * FY_WAIT_RUNNING_FACTOR ? FY_WAIT_POLL_RUNNING
                                                                   : FY_WAIT_SLEEP_SPENT;
    }
    if (in->peer_polling) /* it would have beaten if it ran: it is descheduled */
        return in->same_cpu ? FY_WAIT_SLEEP_SHARED : FY_WAIT_SLEEP_OFF;
    /* Outside MPI's waits (computing, or between calls) and not seen lately: its CPU is
     * still telling for a while, beyond that there is nothing to go on but the base. */
    if (in->same_cpu && in->peer_age_ns <= FY_WAIT_RECENT_NS)
        return FY_WAIT_SLEEP_SHARED;
    return base(in);
}
