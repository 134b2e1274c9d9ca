/* `ferry farm`: running one task line on a worker.
 *
 * A simple command (words without shell metacharacters, not starting with a builtin) is run
 * directly: execvp of its words, which saves the shell's own start. Anything else runs as
 * `/bin/sh -c LINE`. The task gets the worker's environment plus the caller's extra variables
 * (FERRY_FARM_TASK...), a process group of its own, so a time limit or a Ctrl-C can take down everything it started (kill of the group:
 * SIGTERM, then SIGKILL after a grace period), stdin from /dev/null (the job's stdin belongs to
 * rank 0), default signal dispositions and an empty signal mask, and none of the rank's file
 * descriptors beyond 0-2 (the MPI library's sockets and shared memory stay ours); spawn_task
 * says how.
 *
 * Waiting: SIGCHLD, SIGINT and SIGTERM each write a byte to a pipe, and the worker polls that
 * pipe with the time left; waitid(WNOWAIT) looks at the task without reaping it, so its process
 * group id stays reserved until the group has been killed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ferry_farm.h"

extern char **environ;

/* After SIGTERM, a task killed for its time limit gets this long before SIGKILL. */
#define TIMEOUT_GRACE_S 2.0
/* After a Ctrl-C the launcher kills the ranks 1 s after it forwarded the signal: the tasks get
 * a shorter grace, so that the worker can still report. */
#define INTERRUPT_GRACE_S 0.3

static int sig_pipe[2] = {-1, -1};
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    int saved = errno;
    if (sig != SIGCHLD)
        interrupted = 1;
    char c = 0;
    if (write(sig_pipe[1], &c, 1) < 0) {
        /* full: a wake-up is pending anyway */
    }
    errno = saved;
}

int fy_farm_exec_init(void)
{
    if (sig_pipe[0] >= 0)
        return 0;
    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "ferry farm: pipe: %s\n", strerror(errno));
        return -1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    return 0;
}

int fy_farm_exec_interrupted(void)
{
    return interrupted != 0;
}

double fy_farm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int fy_farm_exec_needs_shell(const char *cmd)
{
    if (strpbrk(cmd, "|&;<>()$`\\\"'*?[]#~=%{}!\n") != NULL)
        return 1;
    static const char *const builtins[] = {
        ".",     "source", "cd",    "exec",   "eval",   "exit",  "export",   "set",
        "unset", "ulimit", "umask", "alias",  "trap",   "shift", "read",     "wait",
        "if",    "for",    "while", "until",  "case",   "local", "readonly", "return",
        "break", "continue", "times", "type", "hash",   "command", "getopts", "fg",
        "bg",    "jobs",   "let",   "declare", "typeset", "function", "select", "time"};
    size_t b = strspn(cmd, " \t");
    size_t n = strcspn(cmd + b, " \t");
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (strlen(builtins[i]) == n && strncmp(cmd + b, builtins[i], n) == 0)
            return 1;
    return 0;
}

/* Splits a simple command into words (no quoting: needs_shell said there is none). */
static char **split_words(const char *cmd, char **copy_p)
{
    char *copy = strdup(cmd);
    size_t n = 0, cap = 8;
    char **argv = malloc(cap * sizeof *argv);
    if (copy == NULL || argv == NULL) {
        free(copy);
        free(argv);
        return NULL;
    }
    char *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save)) {
        if (n + 2 > cap) {
            cap *= 2;
            char **v = realloc(argv, cap * sizeof *v);
            if (v == NULL) {
                free(copy);
                free(argv);
                return NULL;
            }
            argv = v;
        }
        argv[n++] = w;
    }
    argv[n] = NULL;
    *copy_p = copy;
    return argv;
}

static void drain_pipe(void)
{
    char buf[64];
    while (read(sig_pipe[0], buf, sizeof buf) > 0)
        ;
}

/* Waits until the task has exited (not reaped) or `until` (monotonic) passes, or an interrupt
 * arrives when stop_on_interrupt. Returns 1 if it exited. */
static int wait_exit(pid_t pid, double until, int stop_on_interrupt)
{
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
            return 1;
        if (stop_on_interrupt && interrupted)
            return 0;
        double left = until > 0 ? until - fy_farm_now() : 1e9;
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = sig_pipe[0], .events = POLLIN};
        int ms = left > 1000.0 ? 1000000 : (int)(left * 1000.0) + 1;
        if (poll(&p, 1, ms) > 0)
            drain_pipe();
    }
}

/* Written by the child of vfork (it shares our memory until it execs): why it could not. */
static volatile int spawn_errno;
static const char *volatile spawn_failed_at;

/* Starts argv as the task: a child of vfork (as cheap as posix_spawn) that, before it execs,
 * takes a process group of its own, asks the kernel to SIGKILL it if this worker dies (a
 * second Ctrl-C, mpiexec killed: the group kill cannot reach it then), resets the signals we
 * handle to their defaults, takes stdin from /dev/null and stdout/stderr from out/err when
 * given, and closes every other descriptor; envp is its environment. Returns 0 or an errno value (then *failed_at_p
 * names the file that could not be opened, or stays NULL when the exec failed). */
static int spawn_task(char **argv, char **envp, const char *out_path, const char *err_path,
                      pid_t *pid_p, const char **failed_at_p)
{
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    /* No handler of ours may run in the child before it has reset them. */
    sigprocmask(SIG_SETMASK, &all, &old);
    spawn_errno = 0;
    spawn_failed_at = NULL;
    pid_t pid = vfork();
    if (pid == 0) {
        static const int reset[] = {SIGINT, SIGTERM, SIGCHLD, SIGPIPE, SIGQUIT, SIGHUP};
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (size_t i = 0; i < sizeof reset / sizeof *reset; i++)
            sigaction(reset[i], &dfl, NULL);
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127); /* the worker is already gone */
        const char *paths[3] = {"/dev/null", out_path, err_path};
        for (int fd = 0; fd < 3; fd++) {
            if (paths[fd] == NULL)
                continue;
            int nfd = fd == 0 ? open(paths[fd], O_RDONLY)
                              : open(paths[fd], O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (nfd < 0 || (nfd != fd && dup2(nfd, fd) < 0)) {
                spawn_errno = errno;
                spawn_failed_at = paths[fd];
                _exit(126);
            }
            if (nfd != fd)
                close(nfd);
        }
        close_range(3, ~0U, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execvpe(argv[0], argv, envp);
        spawn_errno = errno;
        _exit(127);
    }
    int err = pid < 0 ? errno : spawn_errno;
    *failed_at_p = pid < 0 ? "vfork" : spawn_failed_at;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0)
        return err;
    if (err != 0) {
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        return err;
    }
    *pid_p = pid;
    return 0;
}

/* The variables the launcher gives a rank to join its job (PMI connection, rank, host, secret).
 * A task is not that rank: an MPI program run as a task (`../nbody 1000 > out_3`) must start as
 * a job of its own (a singleton, or its own mpiexec), not try to join the farm's. */
static int launcher_var(const char *v)
{
    static const char *const prefixes[] = {"PMI_", "PMIX_", "FY_", "MPI_LOCALRANKID=",
                                           "MPI_LOCALNRANKS="};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(v, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* environ without the launcher's variables, with `extra` (NAME=VALUE strings, NULL-terminated)
 * in place of the same names. Built before vfork: the child may not allocate. */
static char **task_env(char *const *extra)
{
    size_t n = 0, k = 0;
    while (environ[n] != NULL)
        n++;
    while (extra != NULL && extra[k] != NULL)
        k++;
    char **env = malloc((n + k + 1) * sizeof *env);
    if (env == NULL)
        return NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (size_t j = 0; j < k && !replaced; j++) {
            size_t len = strcspn(extra[j], "=") + 1;
            replaced = strncmp(environ[i], extra[j], len) == 0;
        }
        if (!replaced && !launcher_var(environ[i]))
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        env[m++] = extra[j];
    env[m] = NULL;
    return env;
}

void fy_farm_exec_run(const char *cmd, char *const *extra_env, double timeout, int use_shell,
                      const char *out_path, const char *err_path, fy_farm_run_t *run)
{
    memset(run, 0, sizeof *run);
    run->exit_code = -1;
    run->start = wall_now();
    double t0 = fy_farm_now();
    if (interrupted) {
        run->status = -1;
        return;
    }
    char *copy = NULL;
    char *sh_argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
    char **argv = sh_argv;
    if (!use_shell && !fy_farm_exec_needs_shell(cmd)) {
        argv = split_words(cmd, &copy);
        if (argv == NULL) {
            fprintf(stderr, "ferry farm: out of memory for task '%s'\n", cmd);
            run->status = FY_FARM_FAILED;
            run->exit_code = 126;
            return;
        }
    }
    pid_t pid = 0;
    const char *failed_at = NULL;
    char **envp = task_env(extra_env);
    int err = envp != NULL ? spawn_task(argv, envp, out_path, err_path, &pid, &failed_at) : ENOMEM;
    free(envp);
    if (err != 0) {
        /* As a shell would say it, and with its statuses. */
        if (failed_at != NULL)
            fprintf(stderr, "ferry farm: %s: %s\n", failed_at, strerror(err));
        else if (err == ENOENT)
            fprintf(stderr, "ferry farm: %s: command not found\n", argv[0]);
        else
            fprintf(stderr, "ferry farm: %s: %s\n", argv[0], strerror(err));
        run->status = FY_FARM_FAILED;
        run->exit_code = err == ENOENT && failed_at == NULL ? 127 : 126;
        run->seconds = fy_farm_now() - t0;
        free(copy);
        if (argv != sh_argv)
            free(argv);
        return;
    }
    free(copy);
    if (argv != sh_argv)
        free(argv);

    int exited = wait_exit(pid, timeout > 0 ? t0 + timeout : 0, 1);
    int killed_for = 0; /* FY_FARM_TIMEOUT, or -1 for an interrupt */
    if (!exited) {
        killed_for = interrupted ? -1 : FY_FARM_TIMEOUT;
        kill(-pid, SIGTERM);
        wait_exit(pid, fy_farm_now() + (killed_for < 0 ? INTERRUPT_GRACE_S : TIMEOUT_GRACE_S), 0);
        kill(-pid, SIGKILL); /* whatever of the group is left; the unreaped task keeps the id */
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    run->seconds = fy_farm_now() - t0;
    if (WIFEXITED(status))
        run->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        run->signal = WTERMSIG(status);
    if (killed_for)
        run->status = killed_for;
    else
        run->status = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? FY_FARM_OK : FY_FARM_FAILED;
}
