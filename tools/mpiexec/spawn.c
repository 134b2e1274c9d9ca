/* Starting the job's processes: the process-group leader, then one process per rank. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Sent to the leader by the kernel when mpiexec dies (even by SIGKILL). A signal nobody sends
 * to a process group by accident. */
#define LEADER_DEATH_SIG SIGRTMAX

/* The leader owns the group id. It is never reaped before the job ends, so the id cannot be
 * handed to an unrelated process while we may still signal the group; and if mpiexec itself is
 * killed, it cleans up for it: removes the job's shared memory and kills the group. */
static void leader_main(pid_t parent, const char *kvsname, int named)
{
    /* In a proxy: a name of its own, so that whoever kills the proxy by name (pkill) leaves
     * the leader to end the ranks. */
    if (named)
        prctl(PR_SET_NAME, "ferry-leader");
    int fd = open("/dev/null", O_RDWR);
    if (fd >= 0) {
        dup2(fd, 0);
        dup2(fd, 1);
        dup2(fd, 2); /* must not keep our output pipes open */
    }
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    sigset_t death;
    sigemptyset(&death);
    sigaddset(&death, LEADER_DEATH_SIG);
    sigprocmask(SIG_SETMASK, &death, NULL); /* taken by sigwaitinfo, not a handler */
    prctl(PR_SET_PDEATHSIG, LEADER_DEATH_SIG);
    if (getppid() == parent) {
        while (sigwaitinfo(&death, NULL) < 0)
            ;
    }
    fy_mpx_shm_cleanup(kvsname);
    kill(0, SIGKILL); /* the whole group, grandchildren included, and ourselves */
    _exit(1);
}

int fy_mpx_spawn_leader(fy_mpx_job_t *job)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, FY_MPX_PROG ": fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0);
        leader_main(parent, job->kvsname, job->link != NULL);
    }
    setpgid(pid, pid); /* also here: the ranks must not join a group that does not exist yet */
    job->leader = pid;
    return 0;
}

static void set_env_int(const char *name, int v)
{
    char s[32];
    snprintf(s, sizeof(s), "%d", v);
    setenv(name, s, 1);
}

/* In the child: everything between fork and exec. Never returns. With status_fd >= 0 (closed
 * by a successful exec), a failed exec is told to the parent as an errno value there, and the
 * parent prints the one message for the whole job. */
static void rank_exec(const fy_mpx_job_t *job, int idx, int pmi_fd, int in_fd, int out_fd,
                      int err_fd, int status_fd)
{
    const fy_mpx_opts_t *o = job->opts;
    const fy_mpx_app_t *app = &o->app[job->ranks[idx].appnum];
    int rank = job->ranks[idx].rank;

    setpgid(0, job->leader);
    /* Undo what mpiexec set for itself: blocked signals (for its signalfd) and ignored SIGPIPE
     * survive exec. */
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (job->nofile_saved)
        setrlimit(RLIMIT_NOFILE, &job->nofile);
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
        _exit(127);
    int flags = fcntl(pmi_fd, F_GETFD);
    fcntl(pmi_fd, F_SETFD, flags & ~FD_CLOEXEC);
    if (job->secret_fd >= 0)
        fcntl(job->secret_fd, F_SETFD, fcntl(job->secret_fd, F_GETFD) & ~FD_CLOEXEC);

    if (o->env_none || o->base_env != NULL)
        clearenv();
    if (!o->env_none && o->base_env != NULL) {
        for (char **e = o->base_env; *e != NULL; e++)
            putenv(*e);
    }
    for (int i = 0; i < o->env.n; i++)
        putenv(o->env.var[i]);
    for (int i = 0; i < app->env.n; i++)
        putenv(app->env.var[i]);
    /* We may run inside another job: its PMI settings are not ours. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    unsetenv("PMI_VERSION"); /* we serve PMI-1: a PMI_VERSION=2 meant for Hydra is not ours */
    set_env_int("PMI_FD", pmi_fd);
    set_env_int("PMI_RANK", rank);
    set_env_int("PMI_SIZE", job->size);
    setenv("PMI_SPAWNED", "0", 1);
    set_env_int("MPI_LOCALRANKID", idx);
    set_env_int("MPI_LOCALNRANKS", job->nranks);
    /* The contract with the library (docs/DESIGN.md, "Launching across hosts"). */
    set_env_int("FY_HOST_ID", job->host_id);
    if (job->secret_fd >= 0)
        set_env_int("FY_SECRET_FD", job->secret_fd);
    else
        unsetenv("FY_SECRET_FD");
    if (job->tcp_addr != NULL)
        setenv("FY_TCP_ADDR", job->tcp_addr, 1);
    else
        unsetenv("FY_TCP_ADDR");

    if (app->wdir != NULL && chdir(app->wdir) != 0) {
        fprintf(stderr, FY_MPX_PROG ": rank %d: cannot change to directory '%s': %s\n", rank,
                app->wdir, strerror(errno));
        _exit(127);
    }
    execv(app->prog, app->argv);
    int e = errno;
    if (status_fd >= 0 && write(status_fd, &e, sizeof(e)) == (ssize_t)sizeof(e))
        _exit(127);
    fprintf(stderr, FY_MPX_PROG ": rank %d: cannot run '%s': %s\n", rank, app->prog,
            strerror(e));
    _exit(127);
}

/* The interpreter named by a "#!" line at the start of path, or "" when there is none. */
static void script_interpreter(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[256];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n < 2 || buf[0] != '#' || buf[1] != '!')
        return;
    buf[n] = '\0';
    char *p = buf + 2 + strspn(buf + 2, " \t");
    snprintf(out, cap, "%.*s", (int)strcspn(p, " \t\r\n"), p);
}

/* The one line about a program that mpiexec found but the kernel would not run; returns the exit
 * status a shell gives for it (127 when something is missing, 126 otherwise). */
static int report_exec_failure(const fy_mpx_app_t *app, int e)
{
    char interp[256], path[PATH_MAX];
    if (app->wdir != NULL && app->prog[0] != '/')
        snprintf(path, sizeof(path), "%s/%s", app->wdir, app->prog); /* exec'd from there */
    else
        snprintf(path, sizeof(path), "%s", app->prog);
    script_interpreter(path, interp, sizeof(interp));
    if (e == ENOENT && interp[0] != '\0') {
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': its interpreter '%s' (its '#!' line) "
                "was not found\n", app->argv[0], interp);
    } else if (e == ENOENT) {
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': the dynamic loader it names was not "
                "found (built for another system?)\n", app->argv[0]);
    } else if (e == ENOEXEC) {
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': not a program this machine can run "
                "(a script needs a '#!' line)\n", app->argv[0]);
    } else {
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': %s\n", app->argv[0], strerror(e));
    }
    return e == ENOENT ? 127 : 126;
}

/* Starts one rank. For the first rank of each program it also waits until the exec has been
 * done: a program the kernel will not run then ends the job with one message, not one per
 * rank. Returns 0, or -1 (message printed, failure recorded). */
static int spawn_rank(fy_mpx_job_t *job, fy_mpx_rank_t *r)
{
    int sv[2], out[2], err[2], in[2] = {-1, -1}, st[2] = {-1, -1};
    const fy_mpx_app_t *app = &job->opts->app[r->appnum];
    int idx = (int)(r - job->ranks);
    int first_of_app = idx == 0 || r[-1].appnum != r->appnum;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        goto err_msg;
    if (pipe2(out, O_CLOEXEC) != 0)
        goto err_sv;
    if (pipe2(err, O_CLOEXEC) != 0)
        goto err_out;
    /* Stdin goes to rank 0 only; the others read /dev/null. */
    if (r->rank == 0 && job->stdin_open) {
        if (pipe2(in, O_CLOEXEC) != 0)
            goto err_err;
    } else if ((in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        goto err_err;
    }

    if (first_of_app && pipe2(st, O_CLOEXEC) != 0)
        goto err_in;

    pid_t pid = fork();
    if (pid < 0)
        goto err_st;
    if (pid == 0)
        rank_exec(job, idx, sv[1], in[0], out[1], err[1], st[1]);

    setpgid(pid, job->leader);
    close(sv[1]);
    close(out[1]);
    close(err[1]);
    close(in[0]);
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(err[0], F_SETFL, O_NONBLOCK);
    if (in[1] >= 0) {
        fcntl(in[1], F_SETFL, O_NONBLOCK);
        job->stdin_to = in[1];
    }
    r->pid = pid;
    r->pmi_fd = sv[0];
    fy_mpx_stream_init(&r->out, out[0], 1);
    fy_mpx_stream_init(&r->err, err[0], 2);
    job->nlive++;

    if (st[0] >= 0) {
        close(st[1]);
        int e = 0;
        ssize_t n;
        while ((n = read(st[0], &e, sizeof(e))) < 0 && errno == EINTR)
            ;
        close(st[0]);
        if (n == (ssize_t)sizeof(e)) {
            fy_mpx_job_fail(job, report_exec_failure(app, e), NULL);
            return -1;
        }
    }
    return 0;

err_st:
    if (st[0] >= 0) {
        close(st[0]);
        close(st[1]);
    }
err_in:
    close(in[0]);
    if (in[1] >= 0)
        close(in[1]);
err_err:
    close(err[0]);
    close(err[1]);
err_out:
    close(out[0]);
    close(out[1]);
err_sv:
    close(sv[0]);
    close(sv[1]);
err_msg:
    fprintf(stderr, FY_MPX_PROG ": cannot start rank %d: %s\n", r->rank, strerror(errno));
    fy_mpx_job_fail(job, 1, NULL);
    return -1;
}

int fy_mpx_spawn_ranks(fy_mpx_job_t *job)
{
    for (int i = 0; i < job->nranks; i++) {
        if (spawn_rank(job, &job->ranks[i]) != 0)
            return -1;
    }
    return 0;
}

void fy_mpx_signal_all(fy_mpx_job_t *job, int sig)
{
    if (job->leader > 0)
        kill(-job->leader, sig);
    /* A rank that left the job's process group (setsid) still gets the signal; the others
     * must not get it twice: a handler that is still running when the second copy arrives
     * runs again. */
    for (int i = 0; i < job->nranks; i++) {
        pid_t pid = job->ranks[i].pid;
        if (pid > 0 && (job->leader <= 0 || getpgid(pid) != job->leader))
            kill(pid, sig);
    }
    if (job->link != NULL && job->link->signal != NULL)
        job->link->signal(job, sig);
}
