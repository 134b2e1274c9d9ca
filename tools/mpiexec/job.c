/* The life of a job: start it, run the poll loop, judge how each rank ended, tear it down, and
 * clean up what the ranks may have left in /dev/shm. */
#include "mpiexec.h"
#include "pxwire.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* After a rank fails, the others get SIGTERM and this long to go before SIGKILL. */
#define FAIL_GRACE_MS 500
/* After a signal we forward, the ranks get this long to go before SIGKILL. */
#define SIGNAL_GRACE_MS 1000
/* After the last rank exits, how long output from processes that escaped the group may hold
 * us. */
#define DRAIN_MS 2000
#define TIMEOUT_STATUS 124

const fy_mpx_check_hooks_t *fy_mpx_check_hooks;

long long fy_mpx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fy_mpx_job_terminate(fy_mpx_job_t *job, int sig, int grace_ms)
{
    if (job->terminating)
        return;
    job->terminating = 1;
    fy_mpx_signal_all(job, sig);
    job->kill_at_ms = fy_mpx_now_ms() + grace_ms;
}

void fy_mpx_job_fail(fy_mpx_job_t *job, int code, const char *fmt, ...)
{
    int first = job->exit_code < 0;
    if (first)
        job->exit_code = code;
    int ends = fmt != NULL && !job->terminating && !job->reported;
    const fy_mpx_link_t *link = job->link;
    if (!ends) {
        if (first && link != NULL && link->fail != NULL)
            link->fail(job, job->exit_code, NULL); /* a proxy: mpiexec decides the status */
        return;
    }
    job->reported = 1;
    va_list ap;
    va_start(ap, fmt);
    char line[1024];
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (link != NULL && link->fail != NULL)
        link->fail(job, job->exit_code, line);
    else
        fprintf(stderr, FY_MPX_PROG ": %s\n", line);
    fy_mpx_job_terminate(job, SIGTERM, FAIL_GRACE_MS);
}

static void on_rank_exit(fy_mpx_job_t *job, fy_mpx_rank_t *r, int status)
{
    /* What it sent before dying (a finalize, an abort) counts: read it before judging. */
    fy_mpx_pmi_input(job, r, 1);
    fy_mpx_pmi_close(job, r);
    if (r->rank == 0)
        fy_mpx_stdin_close(job);
    pid_t pid = r->pid;
    r->pid = 0;
    job->nlive--;
    if (fy_mpx_check_hooks != NULL)
        fy_mpx_check_hooks->rank_exit(r->rank);

    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE &&
        (job->dest_broken[1] || job->dest_broken[2])) {
        fy_mpx_job_fail(job, 128 + SIGPIPE, NULL); /* our reader left: quiet, as in a pipeline */
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        fy_mpx_job_fail(job, 128 + sig, "rank %d (pid %d)%s was killed by signal %d (%s)",
                        r->rank, (int)pid, job->where, sig, strsignal(sig));
    } else if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        if (r->pmi_state == FY_MPX_PMI_INIT)
            fy_mpx_job_fail(job, code ? code : 1,
                            "rank %d (pid %d)%s exited with status %d before MPI_Finalize",
                            r->rank, (int)pid, job->where, code);
        else if (code != 0)
            fy_mpx_job_fail(job, code, NULL); /* a plain program, or after MPI_Finalize */
        if (r->pmi_state == FY_MPX_PMI_NONE && job->plain_gone < 0) {
            job->plain_gone = r->rank;
            job->plain_gone_code = code;
            if (job->nbarrier > 0)
                fy_mpx_pmi_stalled(job);
        }
    }
}

static void reap(fy_mpx_job_t *job)
{
    /* By pid, never waitpid(-1): the leader must stay unreaped (see spawn.c). */
    for (int i = 0; i < job->nranks; i++) {
        fy_mpx_rank_t *r = &job->ranks[i];
        int status;
        if (r->pid > 0 && waitpid(r->pid, &status, WNOHANG) == r->pid)
            on_rank_exit(job, r, status);
    }
}

static void on_signal(fy_mpx_job_t *job)
{
    struct signalfd_siginfo si;
    while (read(job->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(job);
            if (job->link != NULL && job->link->child != NULL)
                job->link->child(job);
        } else if (!job->terminating) {
            job->caught_signal = sig;
            fy_mpx_job_terminate(job, sig, SIGNAL_GRACE_MS);
        } else if (!job->killed) {
            /* Asked twice: the user does not want to wait for the grace period. */
            fy_mpx_signal_all(job, SIGKILL);
            job->killed = 1;
        }
    }
}

static void check_deadlines(fy_mpx_job_t *job, long long now)
{
    if (job->timeout_at_ms > 0 && (now >= job->timeout_at_ms || job->terminating)) {
        /* A job already ending for another reason keeps that reason (and is not woken for a
         * deadline that no longer matters). */
        if (!job->terminating)
            fy_mpx_job_fail(job, TIMEOUT_STATUS, "job timed out after %d seconds; killing it",
                            job->opts->timeout);
        job->timeout_at_ms = 0;
    }
    if (job->terminating && !job->killed && now >= job->kill_at_ms) {
        fy_mpx_signal_all(job, SIGKILL);
        job->killed = 1;
    }
}

enum slot_kind { SLOT_SIGNAL, SLOT_STDIN, SLOT_STDIN_TO, SLOT_PMI, SLOT_OUT, SLOT_ERR };

/* The poll set, rebuilt each round, and what each entry stands for; the link's entries come
 * last, from link_at on. */
typedef struct slots {
    struct pollfd *pfd;
    enum slot_kind *kind;
    int *who; /* rank index, or -1 */
    int n;
    int link_at;
    int check_at, check_n; /* mpiexec --check's entries */
} slots_t;

static void add_slot(slots_t *s, int fd, short events, enum slot_kind kind, int who)
{
    s->pfd[s->n] = (struct pollfd){.fd = fd, .events = events};
    s->kind[s->n] = kind;
    s->who[s->n++] = who;
}

/* Returns how many rank output streams are still open. */
static int build_slots(const fy_mpx_job_t *job, slots_t *s)
{
    int open_streams = 0;
    const fy_mpx_link_t *link = job->link;
    int out_full = link != NULL && link->out_full != NULL && link->out_full((fy_mpx_job_t *)job);
    s->n = 0;
    add_slot(s, job->sigfd, POLLIN, SLOT_SIGNAL, -1);
    if (job->stdin_open && job->stdin_len == 0 && job->stdin_to >= 0 && !job->stdin_remote)
        add_slot(s, 0, POLLIN, SLOT_STDIN, -1);
    if (job->stdin_len > 0 && job->stdin_to >= 0)
        add_slot(s, job->stdin_to, POLLOUT, SLOT_STDIN_TO, -1);
    for (int i = 0; i < job->nranks; i++) {
        const fy_mpx_rank_t *r = &job->ranks[i];
        if (r->pmi_fd >= 0)
            add_slot(s, r->pmi_fd, POLLIN, SLOT_PMI, i);
        /* While the link's queue is full, output waits in the pipes (and then in the ranks). */
        if (r->out.fd >= 0) {
            if (!out_full)
                add_slot(s, r->out.fd, POLLIN, SLOT_OUT, i);
            open_streams++;
        }
        if (r->err.fd >= 0) {
            if (!out_full)
                add_slot(s, r->err.fd, POLLIN, SLOT_ERR, i);
            open_streams++;
        }
    }
    s->check_at = s->n;
    s->check_n = fy_mpx_check_hooks != NULL ? fy_mpx_check_hooks->add(s->pfd + s->n) : 0;
    for (int i = 0; i < s->check_n; i++) {
        s->kind[s->n + i] = SLOT_SIGNAL; /* not looked at: the hooks dispatch their own */
        s->who[s->n + i] = -1;
    }
    s->n += s->check_n;
    s->link_at = s->n;
    if (link != NULL && link->add != NULL) {
        int k = link->add((fy_mpx_job_t *)job, s->pfd + s->n);
        for (int i = 0; i < k; i++) {
            s->kind[s->n + i] = SLOT_SIGNAL; /* not looked at: the link dispatches its own */
            s->who[s->n + i] = -1;
        }
        s->n += k;
    }
    return open_streams;
}

static void dispatch(fy_mpx_job_t *job, const slots_t *s)
{
    if (job->link != NULL && job->link->ready != NULL && s->n > s->link_at)
        job->link->ready(job, s->pfd + s->link_at, s->n - s->link_at);
    if (s->check_n > 0 && fy_mpx_check_hooks != NULL)
        fy_mpx_check_hooks->ready(job, s->pfd + s->check_at, s->check_n);
    for (int k = 0; k < s->check_at; k++) {
        if (s->pfd[k].revents == 0)
            continue;
        fy_mpx_rank_t *r = s->who[k] >= 0 ? &job->ranks[s->who[k]] : NULL;
        switch (s->kind[k]) {
        case SLOT_SIGNAL: on_signal(job); break;
        case SLOT_STDIN: fy_mpx_stdin_read(job); break;
        case SLOT_STDIN_TO: fy_mpx_stdin_write(job); break;
        case SLOT_PMI: fy_mpx_pmi_input(job, r, 0); break;
        case SLOT_OUT: fy_mpx_stream_input(job, r->rank, &r->out); break;
        case SLOT_ERR: fy_mpx_stream_input(job, r->rank, &r->err); break;
        }
    }
}

static int loop(fy_mpx_job_t *job)
{
    size_t cap = 3 + 3 * (size_t)job->nranks + (size_t)job->link_slots +
                 (fy_mpx_check_hooks != NULL ? (size_t)fy_mpx_check_hooks->slots() : 0);
    slots_t s = {calloc(cap, sizeof(*s.pfd)), calloc(cap, sizeof(*s.kind)),
                 calloc(cap, sizeof(*s.who)), 0, 0, 0, 0};
    const fy_mpx_link_t *link = job->link;
    long long drain_until = 0;
    int rc = 0;

    if (s.pfd == NULL || s.kind == NULL || s.who == NULL) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        rc = -1;
        goto out;
    }
    for (;;) {
        long long now = fy_mpx_now_ms();
        check_deadlines(job, now);
        long long link_wake = link != NULL && link->tick != NULL ? link->tick(job, now) : -1;
        if (fy_mpx_check_hooks != NULL) {
            long long w = fy_mpx_check_hooks->tick(job, now);
            if (w >= 0 && (link_wake < 0 || w < link_wake))
                link_wake = w;
        }
        if (job->nranks > 0 && job->nlive == 0 && drain_until == 0) {
            /* Whatever the ranks left running in their group goes now; its output, if any,
             * is still read below. */
            kill(-job->leader, SIGKILL);
            drain_until = now + DRAIN_MS;
        }
        int open_streams = build_slots(job, &s);
        int ranks_done = job->nlive == 0 && (open_streams == 0 || now >= drain_until);
        if (ranks_done && (link == NULL || link->busy == NULL || !link->busy(job)))
            break;

        long long wake = link_wake;
        if (job->terminating && !job->killed)
            wake = job->kill_at_ms;
        if (job->timeout_at_ms > 0 && (wake < 0 || job->timeout_at_ms < wake))
            wake = job->timeout_at_ms;
        if (drain_until > now && (wake < 0 || drain_until < wake))
            wake = drain_until;
        int ms = wake < 0 ? -1 : wake <= now ? 0 : (int)(wake - now);

        if (poll(s.pfd, (nfds_t)s.n, ms) < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, FY_MPX_PROG ": poll: %s\n", strerror(errno));
            rc = -1;
            break;
        }
        dispatch(job, &s);
    }
out:
    free(s.pfd);
    free(s.kind);
    free(s.who);
    return rc;
}

/* The library names its segments /fy-<kvsname>-<suffix>; a crashed or killed rank leaves them. */
void fy_mpx_shm_cleanup(const char *kvsname)
{
    char prefix[128];
    int plen = snprintf(prefix, sizeof(prefix), "fy-%s-", kvsname);
    DIR *d = opendir("/dev/shm");
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)plen) == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* Child fds 0-2 are dup2'd from pipes we create: our own 0-2 must be taken, or a pipe could get
 * one of those numbers. */
static int stdio_open(void)
{
    int stdin_ok = fcntl(0, F_GETFD) >= 0;
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return -1;
    }
    return stdin_ok;
}

/* We hold four descriptors per rank (five with --check): large jobs need more than the usual
 * soft limit of 1024. The ranks get the original limit back (spawn.c). */
static void raise_fd_limit(fy_mpx_job_t *job)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    job->nofile = rl;
    job->nofile_saved = 1;
    rlim_t need = 64 + (4 + (fy_mpx_check_hooks != NULL)) * (rlim_t)job->opts->np;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int fy_mpx_job_init(fy_mpx_job_t *job, const fy_mpx_opts_t *opts, int nranks, int size)
{
    *job = (fy_mpx_job_t){.opts = opts,
                          .nranks = nranks,
                          .size = size,
                          .where = "",
                          .secret_fd = -1,
                          .exit_code = -1,
                          .plain_gone = -1,
                          .stdin_to = -1,
                          .sigfd = -1,
                          .midline_rank = {-1, -1, -1}};
    fy_pmi_kvs_init(&job->kvs);
    if (nranks == 0)
        return 0;
    job->ranks = calloc((size_t)nranks, sizeof(*job->ranks));
    if (job->ranks == NULL)
        return -1;
    for (int i = 0; i < nranks; i++) {
        fy_mpx_rank_t *r = &job->ranks[i];
        r->pmi_fd = -1;
        fy_pmi_linebuf_init(&r->pmi_in);
        fy_mpx_stream_init(&r->out, -1, 1);
        fy_mpx_stream_init(&r->err, -1, 2);
    }
    return 0;
}

int fy_mpx_job_run(const fy_mpx_opts_t *opts)
{
    fy_mpx_job_t job;
    if (fy_mpx_job_init(&job, opts, opts->np, opts->np) != 0) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return 1;
    }
    /* pid and time: unique among jobs on this host, even after pid reuse. */
    snprintf(job.kvsname, sizeof(job.kvsname), "fy%ldx%lx", (long)getpid(),
             (unsigned long)(fy_mpx_now_ms() & 0xffffffff));
    char map[64];
    snprintf(map, sizeof(map), "(vector,(0,1,%d))", opts->np); /* all ranks on node 0 */
    fy_pmi_kvs_put(&job.kvs, "PMI_process_mapping", map);

    int app = 0, app_end = opts->app[0].np; /* ranks of app k come after those of app k-1 */
    for (int i = 0; i < opts->np; i++) {
        if (i == app_end)
            app_end += opts->app[++app].np;
        job.ranks[i].rank = i;
        job.ranks[i].appnum = app;
    }
    /* The job's secret, for the library's authenticated TCP connections (FERRY_NETMOD=tcp). */
    uint8_t secret[FY_PX_SECRET_LEN];
    if (fy_px_secret_new(secret) != 0 || (job.secret_fd = fy_px_secret_memfd(secret)) < 0) {
        fprintf(stderr, FY_MPX_PROG ": cannot make the job's secret: %s\n", strerror(errno));
        return 1;
    }
    return fy_mpx_job_exec(&job);
}

int fy_mpx_job_exec(fy_mpx_job_t *job)
{
    const fy_mpx_opts_t *opts = job->opts;
    int stdin_ok = stdio_open();
    if (stdin_ok < 0) {
        fprintf(stderr, FY_MPX_PROG ": cannot open /dev/null\n");
        return 1;
    }
    raise_fd_limit(job);
    /* Read a terminal only when we are in the foreground, or the shell stops us (SIGTTIN). */
    if (!job->stdin_remote)
        job->stdin_open = stdin_ok && (!isatty(0) || tcgetpgrp(0) == getpgrp());

    /* Signals arrive through the poll loop; blocked before any child exists so none is lost. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGCHLD);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    sigaddset(&sigs, SIGHUP);
    sigprocmask(SIG_BLOCK, &sigs, NULL);
    /* Started with SIGCHLD ignored, our children would be reaped by the kernel and their
     * status lost. */
    signal(SIGCHLD, SIG_DFL);
    job->sigfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
    signal(SIGPIPE, SIG_IGN);
    if (job->sigfd < 0) {
        fprintf(stderr, FY_MPX_PROG ": signalfd: %s\n", strerror(errno));
        return 1;
    }

    if (job->nranks > 0 && fy_mpx_spawn_leader(job) != 0)
        return 1;
    if (opts->timeout > 0)
        job->timeout_at_ms = fy_mpx_now_ms() + (long long)opts->timeout * 1000;
    if (fy_mpx_spawn_ranks(job) != 0)
        fy_mpx_job_terminate(job, SIGKILL, 0); /* spawn recorded the failure */

    if (loop(job) != 0) {
        /* Cannot watch the job any more: end it. */
        fy_mpx_job_fail(job, 1, NULL);
        fy_mpx_signal_all(job, SIGKILL);
        for (int i = 0; i < job->nranks; i++) {
            if (job->ranks[i].pid > 0)
                waitpid(job->ranks[i].pid, NULL, 0);
        }
    }

    if (job->leader > 0) {
        kill(-job->leader, SIGKILL);
        waitpid(job->leader, NULL, 0);
    }
    for (int i = 0; i < job->nranks; i++) {
        fy_mpx_rank_t *r = &job->ranks[i];
        fy_mpx_stream_close(job, r->rank, &r->out);
        fy_mpx_stream_close(job, r->rank, &r->err);
        fy_mpx_pmi_close(job, r);
    }
    fy_mpx_stdin_close(job);
    if (job->nranks > 0)
        fy_mpx_shm_cleanup(job->kvsname);
    fy_pmi_kvs_fini(&job->kvs);
    free(job->stdin_buf);
    job->stdin_buf = NULL;
    free(job->ranks);
    job->ranks = NULL;
    close(job->sigfd);
    if (job->secret_fd >= 0)
        close(job->secret_fd);

    if (job->exit_code >= 0)
        return job->exit_code;
    return job->caught_signal ? 128 + job->caught_signal : 0;
}
