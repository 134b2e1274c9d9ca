/* The live view, the rank's side (prof_monitor.h): one thread that reads prof_live once a
 * second and sends it to mpiexec --monitor (tools/mpiexec/monitor.c).
 *
 * The MPI calls never see this file: the wrappers store into prof_live with relaxed stores, and
 * this thread only loads. It sleeps in poll() on its socket and a wake-up pipe between
 * snapshots, blocks every signal (the program's handlers never run on it), makes no MPI call,
 * and is joined at MPI_Finalize after one last snapshot. A rank that exits without
 * MPI_Finalize, or is killed, just takes the thread with it: mpiexec sees the connection close.
 *
 * The values are read one by one, not as one consistent copy: a call that ends between two loads
 * may be counted in both mpi_ticks and the current call, or in neither, for one snapshot.
 * mpiexec clamps the share of time in MPI to 0..100 %; the totals are right at the next one. */
#include "prof_monitor.h"

#include "fy_auth.h"
#include "fy_tool_thread.h"
#include "prof_live.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_MS 1000        /* between snapshots */
#define CONNECT_MS 5000       /* to reach mpiexec and pass its handshake */
#define SEND_MS 1000          /* a snapshot mpiexec does not take in this long is dropped */
#define STACK_BYTES (64 * 1024)

static struct {
    atomic_int state; /* 0: not started, 1: running, 2: stopped or never connected */
    int fd;
    fy_tool_thread_t t; /* its wake-up pipe */
    long long t0_ns; /* CLOCK_MONOTONIC when the thread started: snapshots' t_ns from it */
} M = {.fd = -1, .t.wake = {-1, -1}};

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Whole lines or nothing more: a snapshot mpiexec cannot take within SEND_MS ends the view. */
static int send_all(const char *buf, size_t len)
{
    return fy_auth_send_all(M.fd, buf, len, fy_auth_now_ms() + SEND_MS);
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
    double tpn = prof_ticks_per_ns();
    return tpn > 0 ? (uint64_t)((double)ticks / tpn) : ticks;
}

static int send_snapshot(void)
{
    int call = atomic_load_explicit(&prof_live.call, memory_order_relaxed);
    uint64_t since = atomic_load_explicit(&prof_live.call_since, memory_order_relaxed);
    uint64_t mpi = atomic_load_explicit(&prof_live.mpi_ticks, memory_order_relaxed);
    uint64_t now = prof_ticks();
    uint64_t in_call = call >= 0 && now > since ? now - since : 0;
    char line[512];
    const char *name = call >= 0 ? prof_call_name(call) : "-";
    int len = snprintf(
        line, sizeof(line),
        "S %lld %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
        " %" PRIu64 " %" PRIu64 "\n",
        mono_ns() - M.t0_ns, name != NULL && *name != '\0' ? name : "?", ticks_to_ns(in_call),
        atomic_load_explicit(&prof_live.calls, memory_order_relaxed),
        ticks_to_ns(mpi + in_call),
        atomic_load_explicit(&prof_live.msgs_sent, memory_order_relaxed),
        atomic_load_explicit(&prof_live.bytes_sent, memory_order_relaxed),
        atomic_load_explicit(&prof_live.msgs_recv, memory_order_relaxed),
        atomic_load_explicit(&prof_live.bytes_recv, memory_order_relaxed),
        atomic_load_explicit(&prof_live.coll_calls, memory_order_relaxed));
    if (len <= 0 || (size_t)len >= sizeof(line))
        return 0;
    return send_all(line, (size_t)len);
}

static void *monitor_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "ferry-monitor"); /* as top -H and gdb show it */
    long long next = fy_auth_now_ms() + PERIOD_MS;
    if (send_snapshot() != 0)
        return NULL;
    for (;;) {
        long long left = next - fy_auth_now_ms();
        struct pollfd p[2] = {{.fd = M.fd, .events = POLLIN}, {.fd = M.t.wake[0], .events = POLLIN}};
        int n = poll(p, 2, left > 0 ? (int)left : 0);
        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && p[1].revents != 0) {
            /* prof_monitor_stop: the last news, then goodbye. */
            if (send_snapshot() == 0)
                send_all("BYE\n", 4);
            break;
        }
        if (n > 0 && p[0].revents != 0) {
            char buf[256];
            ssize_t got = recv(M.fd, buf, sizeof(buf), MSG_DONTWAIT);
            if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
                break; /* mpiexec is gone: nothing more to tell */
        }
        long long now = fy_auth_now_ms();
        if (now >= next) {
            if (send_snapshot() != 0)
                break;
            /* A thread starved of the CPU for seconds sends one snapshot, not a burst. */
            next = now - next >= PERIOD_MS ? now + PERIOD_MS : next + PERIOD_MS;
        }
    }
    return NULL;
}

/* "host program", with the spaces a line cannot hold replaced. */
static void who_am_i(char *out, size_t len)
{
    char host[256] = "?", prog[128] = "?";
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "?");
    host[sizeof(host) - 1] = '\0';
    host[strcspn(host, ".")] = '\0'; /* the short name: the table is narrow */
    int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, prog, sizeof(prog) - 1);
        prog[n > 0 ? n : 0] = '\0';
        prog[strcspn(prog, "\n")] = '\0';
        close(fd);
    }
    for (char *p = host; *p; p++)
        if (*p == ' ' || *p == '\t')
            *p = '_';
    for (char *p = prog; *p; p++)
        if (*p == ' ' || *p == '\t')
            *p = '_';
    snprintf(out, len, "H %.100s %.100s\n", host, prog[0] ? prog : "?");
}

void prof_monitor_start(int rank, int size)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&M.state, &expect, 2))
        return; /* once per process */
    const char *addr = getenv("FERRY_MONITOR_ADDR");
    if (addr == NULL || *addr == '\0')
        return;
    char why[160];
    int fd = -1;
    int jrc = fy_auth_dial(addr, "FERRY_MONITOR_ADDR", "FERRY-MONITOR", getenv("FERRY_MONITOR_KEY"),
                           rank, size, CONNECT_MS, why, sizeof(why), &fd);
    if (jrc == FY_AUTH_FAIL_NO)
        return; /* the key was right but mpiexec does not watch this world (MPI_Comm_spawn's
                 * children, a rank connected twice): unwatched, quietly */
    if (jrc != 0) {
        if (jrc != FY_AUTH_FAIL_ADDR && jrc != FY_AUTH_FAIL_CONNECT) {
            size_t k = strlen(why);
            snprintf(why + k, sizeof(why) - k, " from %s (a wrong FERRY_MONITOR_KEY?)", addr);
        }
        fprintf(stderr, "ferry monitor: rank %d: %s; this rank is not shown\n", rank, why);
        return;
    }
    char hello[256];
    who_am_i(hello, sizeof(hello));
    M.fd = fd;
    M.t0_ns = mono_ns();
    if (send_all(hello, strlen(hello)) != 0 ||
        fy_tool_thread_start(&M.t, STACK_BYTES, monitor_main) != 0) {
        close(fd);
        M.fd = -1;
        return;
    }
    atomic_store(&M.state, 1);
}

void prof_monitor_stop(void)
{
    int expect = 1;
    if (!atomic_compare_exchange_strong(&M.state, &expect, 2))
        return;
    fy_tool_thread_stop(&M.t);
    close(M.fd);
    M.fd = -1;
}
