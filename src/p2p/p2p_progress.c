/* Progress and waiting: polling the transports, then sleeping on the doorbell so that ranks
 * that outnumber the cores give their CPU to the ranks that have work. */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fy_clock.h"
#include "fy_err.h"
#include "fy_knobs.h"
#include "fy_p2p_stats.h"
#include "fy_runtime.h"
#include "fy_bsend.h"
#include "fy_part.h"
#include "fy_machine.h"
#include "fy_wait_policy.h"
#include "p2p_internal.h"

void fy_p2p_recv_fini(void);

/* The world rank that sent the latest record: when a wait does not say whom it waits for,
 * most likely the next one comes from there too (a ping-pong, a ring, a pipeline). */
static int last_src = -1;

static void deliver(const fy_hdr_t *h, const void *payload)
{
    last_src = h->world_src;
    switch (h->kind) {
    case FY_MSG_EAGER:
    case FY_MSG_RTS: fy_p2p_on_message(h, payload); break;
    case FY_MSG_ACK:
    case FY_MSG_FIN: fy_p2p_on_ack_or_fin(h); break;
    case FY_MSG_CTS: fy_p2p_on_cts(h); break;
    case FY_MSG_DATA: fy_p2p_on_data(h, payload); break;
    case FY_MSG_CANCEL: fy_p2p_on_cancel(h); break;
    case FY_MSG_CANCEL_ACK: fy_p2p_on_cancel_ack(h); break;
    case FY_MSG_RDONE: fy_p2p_on_rdone(h); break;
    default: fy_fatal(MPI_ERR_INTERN, "corrupt record in a shared-memory queue");
    }
}

static int online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* Spinning pays only while every rank has a core; beyond that a spinning rank steals the time
 * its peer needs to produce what it waits for. The spin is a time, not a poll count, because a
 * poll costs more the more peers there are. Reread when MPI_T writes one of these knobs. */
static int wait_oversubscribed;
static int yield_auto; /* FERRY_YIELD unset and ranks outnumber cores: see check_load */
static void apply_wait(void)
{
    /* The knob's words, in order. */
    static const int modes[] = {FY_WAIT_AUTO, FY_WAIT_SPIN, FY_WAIT_BLOCK, FY_WAIT_FIXED};
    fy_rt.wait_mode = modes[fy_knob_word(FY_KNOB_WAIT, 0) % 4];
    fy_rt.spin_ns = fy_knob_number(FY_KNOB_SPIN_US, 50) * 1000;
    long y = fy_knob_number(FY_KNOB_YIELD, FY_KNOB_AUTO);
    yield_auto = y == FY_KNOB_AUTO && wait_oversubscribed;
    fy_rt.spin_yield = y == FY_KNOB_AUTO ? wait_oversubscribed : (int)y;
    if (y == FY_KNOB_AUTO)
        fy_knob_settle(FY_KNOB_YIELD, wait_oversubscribed);
    if (fy_rt.wait_mode == FY_WAIT_BLOCK)
        fy_rt.spin_ns = 0;
}

/* A job with ranks on other hosts polls its sockets too: on every pass while it has no
 * shared-memory peer, else on one pass in TCP_EVERY, since an epoll_wait costs as much as a
 * few dozen passes over the rings and a network message takes microseconds anyway. */
enum { TCP_EVERY = 8 };
/* A rank polling sockets gives its CPU away now and then: on a busy machine the kernel may hand
 * an arriving packet to its softirq thread (ksoftirqd) on this very CPU, which runs only when
 * we stop. Between the test hosts (veth, both CPUs busy) a 200 us spin then met every reply
 * only after it had slept: one-way 225 us with FERRY_SPIN_US=200, 6.4 with spinning alone when
 * the machine was quiet. */
enum { TCP_YIELD_EVERY = 16 };
static int tcp_every;
static unsigned tcp_pass;

int fy_p2p_init(void)
{
    fy_xport_deliver = deliver;
    fy_comm_bsend_free = fy_bsend_comm_freed;
    fy_pending_total = fy_inflight_total = fy_posted_total = 0;
    fy_peers = calloc((size_t)fy_rt.size, sizeof *fy_peers);
    if (!fy_peers)
        return fy_err_set(MPI_ERR_NO_MEM, "MPI_Init: out of memory");
    fy_xport_place = fy_p2p_data_place;
    for (int i = 0; i < fy_rt.size; i++) {
        fy_peers[i].ops = i == fy_rt.rank     ? &fy_xport_self
                          : fy_shm_reaches(i) ? &fy_xport_shm
                                              : &fy_xport_tcp;
        fy_peers[i].max_payload = fy_peers[i].ops->max_payload();
    }
    tcp_every = fy_rt.netmod_tcp ? 1 : TCP_EVERY;
    for (int i = 0; i < fy_rt.size && tcp_every > 1; i++)
        if (fy_peers[i].ops == &fy_xport_shm)
            break;
        else if (i == fy_rt.size - 1)
            tcp_every = 1;
    int oversubscribed = fy_rt.size > online_cpus();
    fy_p2p_thresholds(oversubscribed, fy_rt.size > 1 ? fy_xport_shm.max_payload() : 0);

    wait_oversubscribed = oversubscribed;
    apply_wait();
    fy_knob_on_write(FY_KNOB_WAIT, apply_wait);
    fy_knob_on_write(FY_KNOB_SPIN_US, apply_wait);
    fy_knob_on_write(FY_KNOB_YIELD, apply_wait);
    if (fy_rt.locking)
        fy_req_wake_hook = fy_shm_wake_self;
    return MPI_SUCCESS;
}

void fy_p2p_threads_on(void)
{
    fy_req_wake_hook = fy_shm_wake_self;
}

void fy_p2p_fini(void)
{
    fy_p2p_recv_fini();
    fy_p2p_iov_fini();
    fy_bsend_fini();
    fy_p2p_gone_fini();
    free(fy_peers);
    fy_peers = NULL;
    fy_req_wake_hook = NULL;
    fy_ubuf_fini();
}

int (*fy_progress_hook)(void);
int (*fy_progress_osc_hook)(void);

fy_p2p_stats_t fy_p2p_stats;

int fy_progress(void)
{
    int n = fy_shm_progress();
    if (fy_tcp_active && ++tcp_pass % (unsigned)tcp_every == 0)
        n += fy_tcp_progress();
    if (fy_pending_total)
        n += fy_p2p_drain_pending();
    if (fy_split_pushing) /* large sends whose receiver may be waiting for our half */
        n += fy_p2p_split_progress();
    int (*hook)(void) = fy_progress_hook;
    if (hook)
        n += hook();
    int (*osc)(void) = fy_progress_osc_hook;
    if (osc)
        n += osc();
    if (fy_part_nactive) /* partitioned operations in flight: one load when there are none */
        n += fy_part_progress();
    return n;
}

int fy_progress_full(void)
{
    tcp_pass = (unsigned)tcp_every - 1; /* this pass polls the sockets */
    return fy_progress();
}

/* Whom the current wait most likely needs (a world rank, -1: unknown, then last_src). */
static FY_TLS_HOT int wait_peer = -1;

void fy_wait_hint(int world_rank)
{
    wait_peer = world_rank;
}

_Static_assert(sizeof fy_p2p_stats.wait_do / sizeof *fy_p2p_stats.wait_do == FY_WAIT_DO_N,
               "one counter per decision");

/* A peer stacked on this rank's CPU can answer only when this rank stops running; sleeping
 * lets it, at the price of a wake-up per message, and the scheduler keeps such a pair together
 * (it wakes a sleeper near its waker). So a rank that keeps finding its peer on its own CPU,
 * while every rank has a CPU of its own, moves itself off: it narrows its affinity to the other
 * allowed CPUs, which migrates it at once, and restores the mask right away, so that it is
 * never pinned. Rate-limited: a move costs tens of microseconds. */
enum { SHARED_BEFORE_MOVE = 2 };
#define MOVE_GAP_NS 100000
static int shared_streak;
static int64_t last_move;

static bool move_off(int cpu, int64_t now)
{
    static cpu_set_t allowed;
    static int have_allowed = -1; /* -1: not read yet; 0: unusable */
    if (have_allowed < 0)
        have_allowed = sched_getaffinity(0, sizeof allowed, &allowed) == 0 &&
                       CPU_COUNT(&allowed) >= 2 && fy_rt.size <= CPU_COUNT(&allowed);
    if (!have_allowed || cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed) ||
        now - last_move < MOVE_GAP_NS)
        return false;
    cpu_set_t others = allowed;
    CPU_CLR(cpu, &others);
    last_move = now;
    if (sched_setaffinity(0, sizeof others, &others) != 0)
        return false;
    sched_setaffinity(0, sizeof allowed, &allowed);
    fy_p2p_stats.wait_moves++;
    return true;
}

/* Runnable threads on the machine now (the 4th field of /proc/loadavg, "running/total"), 0
 * when unknown. A read costs a few microseconds: check_load calls it rarely. */
static int runnable_threads(void)
{
    static int fd = -2;
    if (fd == -2)
        fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    char buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *p = buf;
    for (int field = 0; field < 3 && p; field++) {
        p = strchr(p, ' ');
        if (p)
            p++;
    }
    return p ? atoi(p) : 0;
}

/* Ranks that outnumber the cores poll with sched_yield, which hands the core to a rank that
 * has work when the other runnable threads are ranks of this job, but to a busy program for a
 * whole slice when they are not (8 ranks on 2 cores beside two busy loops: a ring hop took
 * 1-6 ms with yielding, 10-175 us without). So unless FERRY_YIELD says otherwise, yield only while
 * the machine's runnable threads are about as many as this machine's ranks that are awake;
 * looked at every 10 ms at most. */
#define LOAD_GAP_NS 10000000
int fy_p2p_contended;

static void check_load(int64_t now)
{
    static int64_t checked;
    if (now - checked < LOAD_GAP_NS)
        return;
    checked = now;
    int running = runnable_threads();
    if (running <= 0)
        return;
    /* More runnable threads than CPUs: ranks of this job take turns with other work (the
     * send side then avoids queueing eager messages behind a full ring, p2p_send.c). */
    fy_p2p_contended = running > fy_machine()->cpus_online;
    if (yield_auto)
        fy_rt.spin_yield = running <= fy_shm_awake_count() + 1;
}

/* One look at the peer and the policy's decision (fy_wait_policy.h). */
static fy_wait_do_t decide(int64_t now, int64_t idle_ns, int64_t spin_ns, int cpu)
{
    fy_wait_in_t in = {
        .idle_ns = idle_ns,
        .spin_ns = spin_ns,
        .adaptive = fy_rt.wait_mode == FY_WAIT_AUTO,
        .oversubscribed = wait_oversubscribed || fy_rt.spin_yield,
    };
    int peer = wait_peer >= 0 ? wait_peer : last_src;
    fy_shm_look_t look;
    if (in.adaptive && !in.oversubscribed && peer >= 0 && fy_shm_peer_look(peer, &look)) {
        in.peer_known = 1;
        in.peer_sleeping = look.sleeping;
        in.peer_polling = look.polling;
        in.peer_age_ns = now - look.beat_ns;
        in.same_cpu = look.cpu == cpu;
    }
    fy_wait_do_t d = fy_wait_policy(&in);
    fy_p2p_stats.wait_do[d]++;
    if (d != FY_WAIT_SLEEP_SHARED)
        shared_streak = 0;
    else if (++shared_streak >= SHARED_BEFORE_MOVE && move_off(cpu, now)) {
        shared_streak = 0;
        return FY_WAIT_POLL; /* on another CPU now: the peer can run where this rank was */
    }
    return d;
}

/* Copies shorter than a beat's staleness limit need no date: the peer sees the next beat in
 * time. Longer ones are dated to their expected end, at most FY_BUSY_MAX_NS ahead. */
#define FY_BUSY_MAX_NS 5000000
fy_busy_t fy_p2p_busy_begin(size_t n)
{
    fy_busy_t b = {0, false};
    double ns = (double)n * fy_copy_ns_per_byte;
    if (ns < FY_WAIT_STALE_NS / 2 || fy_rt.wait_mode != FY_WAIT_AUTO)
        return b;
    int64_t until = fy_now_ns() + (ns > FY_BUSY_MAX_NS ? FY_BUSY_MAX_NS : (int64_t)ns);
    b.was_polling = fy_shm_busy(until, sched_getcpu());
    b.on = true;
    return b;
}

void fy_p2p_busy_end(fy_busy_t b)
{
    if (b.on)
        fy_shm_busy_end(fy_now_ns(), b.was_polling);
}


/* Polls, publishing every 32 polls that this rank polls (a beat), and at those moments asks the
 * policy whether to go on polling or to sleep on the doorbell (see fy_wait_until). */
static void wait_spinning(bool (*done)(void *), void *arg, int64_t spin_ns)
{
    int64_t idle_since = 0; /* 0: not idle yet */
    unsigned polls = 0;
    bool beating = false;
    /* Wait time is measured only while an MPI_T handle asks for it: two clock reads per
     * wait would show in a ping-pong. */
    int64_t began = fy_p2p_stats.timing ? fy_now_ns() : 0;
    fy_p2p_stuck_t st = {0};
    fy_shm_in_wait(1);
    while (!done(arg)) {
        /* Every 32 passes, busy or idle (a clock read costs as much as a poll): a beat, so that
         * peers see this rank runs, and for an idle wait the policy's decision. */
        /* A yielding pass may last a whole slice of another program: look at every one. */
        bool look = ((++polls & 31) == 0 || fy_rt.spin_yield) && fy_rt.wait_mode != FY_WAIT_SPIN;
        int64_t now = 0;
        int cpu = -1;
        if (look) {
            now = fy_now_ns();
            cpu = sched_getcpu();
            fy_shm_beat(now, cpu);
            beating = true;
            check_load(now);
        }
        if (fy_progress()) {
            idle_since = 0;
            if (st.stuck)
                fy_p2p_deadlock_check(&st, true, false);
            continue;
        }
        bool sleep = false;
        if (fy_rt.wait_mode == FY_WAIT_SPIN) {
            /* FERRY_WAIT=spin never sleeps: look for peers that left now and then. */
            if ((polls & 4095) == 0 && fy_p2p_check_gone())
                continue;
        } else {
            /* Idle time counts from the first look: a clock read at the first idle poll of
             * every wait was a tenth of a ping-pong's instructions, and the policy decides
             * only at looks anyway (at most 32 polls late). */
            if (look && idle_since == 0)
                idle_since = now;
            sleep = look && fy_wait_sleeps(decide(now, now - idle_since, spin_ns, cpu));
        }
        if (!sleep) {
            if (fy_rt.locking) { /* let other threads in between polls */
                fy_unlock();
                fy_cpu_relax();
                fy_lock();
            } else if (fy_rt.spin_yield) {
                sched_yield(); /* a rank that has work may be waiting for this core */
            } else if (fy_tcp_active && (polls & (TCP_YIELD_EVERY - 1)) == 0) {
                sched_yield(); /* the kernel's packet processing may wait for this CPU */
            } else if (polls >= FY_WAIT_EAGER_POLLS) {
                fy_cpu_relax();
            }
            continue;
        }
        /* About to sleep: a peer we wait for may have left (MPI_Finalize) for good. */
        if (fy_p2p_check_gone()) {
            idle_since = 0;
            if (st.stuck)
                fy_p2p_deadlock_check(&st, true, false);
            continue;
        }
        fy_shm_beat_end(); /* asleep now: the sleeper count says so */
        fy_shm_in_wait(0); /* a wake-up may take long: producers keep their whole rings */
        fy_shm_sleep_prepare();
        if (fy_progress() || done(arg)) {
            fy_shm_sleep_done();
            idle_since = 0;
            if (st.stuck)
                fy_p2p_deadlock_check(&st, true, false);
            continue;
        }
        fy_p2p_deadlock_check(&st, false, true);
        fy_unlock();
        if (fy_tcp_active) /* sockets and the doorbell's eventfd together */
            fy_tcp_sleep(fy_shm_sleep_bound_ms(200));
        else
            fy_shm_sleep(200);
        fy_lock();
        fy_shm_sleep_done();
        /* Running again: say so at once, before a peer takes the stale beat for a descheduled
         * poller. */
        now = fy_now_ns();
        fy_shm_beat(now, sched_getcpu());
        fy_shm_in_wait(1);
        /* The launcher is gone: nobody will ever stop this job, so stop now. */
        if (fy_rt.size > 1 && getppid() != fy_rt.launcher_pid)
            fy_fatal(MPI_ERR_OTHER, "the launcher has died; ending this rank");
        /* Woken: what we wait for is probably here; poll a little before sleeping again. */
        idle_since = now - spin_ns / 2;
    }
    if (beating)
        fy_shm_beat_end();
    fy_shm_in_wait(0);
    wait_peer = -1;
    if (began)
        fy_p2p_stats.wait_ns += (uint64_t)(fy_now_ns() - began);
    if (st.stuck)
        fy_p2p_deadlock_check(&st, false, false);
}

void fy_wait_until(bool (*done)(void *), void *arg)
{
    wait_spinning(done, arg, fy_rt.spin_ns);
}

static bool req_done(void *r)
{
    return fy_req_is_done(r);
}

/* A sender whose peer is copying its message out (single-copy rendezvous) will wait about as
 * long as the copy takes: spin that long (at a pessimistic 4 bytes/ns) rather than sleep
 * through it and pay a wake-up. */
void fy_wait_req(fy_req_t *r)
{
    if (fy_req_is_done(r))
        return;
    int64_t spin = fy_rt.spin_ns;
    if (r->kind == FY_REQ_SEND && r->pstate == FY_PS_WAIT_FIN && (int64_t)(r->bytes / 4) > spin)
        spin = (int64_t)(r->bytes / 4);
    if (r->kind == FY_REQ_SEND)
        wait_peer = r->world_peer;
    else if (r->kind == FY_REQ_RECV && r->peer >= 0 && r->comm)
        wait_peer = fy_comm_peer_world(r->comm, r->peer);
    wait_spinning(req_done, r, spin);
}

/* Unexpected eager payloads: blocks recycled through two free lists, small (up to 512 bytes,
 * the common case of many early small messages) and eager-sized, so that a steady stream of
 * early messages allocates nothing and a thousand early 8-byte messages do not pin a thousand
 * eager-sized blocks. Larger ones (possible only to self) are plain malloc. */
typedef struct ubuf {
    struct ubuf *next;
} ubuf_t;
enum { UBUF_SMALL = 512 };
static ubuf_t *ubuf_free[2]; /* [0] small, [1] eager-sized */

static int ubuf_class(size_t len)
{
    return len > UBUF_SMALL;
}
static size_t ubuf_block(int cls)
{
    return cls == 0 ? UBUF_SMALL : (fy_eager_max > UBUF_SMALL ? fy_eager_max : UBUF_SMALL);
}

void *fy_ubuf_get(size_t len)
{
    if (len > fy_eager_max && len > UBUF_SMALL)
        return malloc(len);
    int cls = ubuf_class(len);
    if (ubuf_free[cls]) {
        ubuf_t *b = ubuf_free[cls];
        ubuf_free[cls] = b->next;
        return b;
    }
    return malloc(ubuf_block(cls));
}

void fy_ubuf_put(void *p, size_t len)
{
    if (len > fy_eager_max && len > UBUF_SMALL) {
        free(p);
        return;
    }
    int cls = ubuf_class(len);
    ubuf_t *b = p;
    b->next = ubuf_free[cls];
    ubuf_free[cls] = b;
}

void fy_ubuf_fini(void)
{
    for (int cls = 0; cls < 2; cls++)
        while (ubuf_free[cls]) {
            ubuf_t *b = ubuf_free[cls];
            ubuf_free[cls] = b->next;
            free(b);
        }
}
