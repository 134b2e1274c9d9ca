/* Starting the job of `ferry run`: Ferry's own mpiexec (beside this `ferry`), with the user's
 * mpiexec options unchanged, then `--`, then either the cached binary itself (one host, no
 * --debug) or `ferry _exec [--debug DIR] [-v] KEY -- args` (ranks that find or build the binary
 * for their own host, or set up their sanitizer reports first).
 *
 * When nothing is left to do after the job, mpiexec replaces this process (execv): no fork, no
 * waiting parent, its exit status is ours, signals reach it directly. Otherwise (--no-cache's
 * temporary directory, --debug's reports) we wait for it; like system(3) we ignore SIGINT and
 * SIGQUIT meanwhile (the terminal sends them to mpiexec too, and mpiexec treats a second one as
 * "kill now"), and pass SIGTERM and SIGHUP on. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry_debug.h"
#include "ferry_run.h"

/* Largest bundle shipped in the environment to the ranks (a single environment string may hold
 * up to 128 KiB on Linux); a larger program must find its bundle in a shared cache. */
#define BUNDLE_ENV_MAX (96 * 1024)

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static void push(char ***v, int *n, const char *s)
{
    char **nv = realloc(*v, sizeof(char *) * (size_t)(*n + 2));
    if (nv == NULL) {
        fprintf(stderr, "ferry: out of memory\n");
        exit(FY_RUN_EXIT_FAIL);
    }
    nv[(*n)++] = (char *)s;
    nv[*n] = NULL;
    *v = nv;
}

int fy_run_launch(const fy_run_cmd_t *c, const char *exe, const char *key, const char *bundle,
                  size_t blen, const char *cleanup, const char *debug_dir)
{
    char *mpiexec = fy_run_xprintf("%s/bin/mpiexec", fy_run_prefix());
    char **av = NULL;
    int n = 0;
    push(&av, &n, mpiexec);
    for (int i = 0; i < c->nmpx; i++)
        push(&av, &n, c->mpx[i]);
    if (c->check)
        push(&av, &n, "--check");
    push(&av, &n, "--");
    if (c->multihost || debug_dir != NULL) {
        char self[4096];
        ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (len <= 0) {
            fprintf(stderr, "ferry run: cannot find the ferry binary: %s\n", strerror(errno));
            return FY_RUN_EXIT_FAIL;
        }
        self[len] = '\0';
        push(&av, &n, fy_run_xstrdup(self));
        push(&av, &n, "_exec");
        if (debug_dir != NULL) {
            push(&av, &n, "--debug");
            push(&av, &n, debug_dir);
        }
        if (c->verbose)
            push(&av, &n, "-v");
        if (c->no_cache) { /* this host's ranks run the temporary binary */
            push(&av, &n, "--exe");
            push(&av, &n, exe);
        }
        push(&av, &n, key);
        push(&av, &n, "--");
        /* Hosts without the cache directory compile from this copy of the program. */
        if (c->multihost && blen <= BUNDLE_ENV_MAX && memchr(bundle, '\0', blen) == NULL)
            setenv("FERRY_RUN_BUNDLE", bundle, 1);
        else
            unsetenv("FERRY_RUN_BUNDLE");
    } else {
        push(&av, &n, exe);
    }
    for (int i = 0; i < c->nargs; i++)
        push(&av, &n, c->args[i]);
    if (c->verbose) {
        fprintf(stderr, "ferry run: running:");
        for (int i = 0; i < n; i++)
            fprintf(stderr, " %s", av[i]);
        fputc('\n', stderr);
    }
    fflush(NULL);

    if (cleanup == NULL && debug_dir == NULL) {
        execv(mpiexec, av);
        fprintf(stderr, "ferry run: cannot run '%s': %s\n", mpiexec, strerror(errno));
        return FY_RUN_EXIT_FAIL;
    }

    struct sigaction ign = {.sa_handler = SIG_IGN}, fwd = {.sa_handler = forward}, old[4];
    sigemptyset(&ign.sa_mask);
    sigemptyset(&fwd.sa_mask);
    sigaction(SIGINT, &ign, &old[0]);
    sigaction(SIGQUIT, &ign, &old[1]);
    sigaction(SIGTERM, &fwd, &old[2]);
    sigaction(SIGHUP, &fwd, &old[3]);
    pid_t pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old[0], NULL);
        sigaction(SIGQUIT, &old[1], NULL);
        sigaction(SIGTERM, &old[2], NULL);
        sigaction(SIGHUP, &old[3], NULL);
        execv(mpiexec, av);
        fprintf(stderr, "ferry run: cannot run '%s': %s\n", mpiexec, strerror(errno));
        _exit(FY_RUN_EXIT_FAIL);
    }
    int status = FY_RUN_EXIT_FAIL;
    if (pid < 0) {
        fprintf(stderr, "ferry run: cannot start mpiexec: %s\n", strerror(errno));
    } else {
        child_pid = pid;
        int st;
        pid_t w;
        while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
            ;
        if (w == pid)
            status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        child_pid = 0;
    }
    if (debug_dir != NULL) {
        /* The full reports are removed with their directory unless asked for. */
        const char *k = getenv("FERRY_DEBUG_KEEP");
        bool keep = k != NULL && strcmp(k, "1") == 0;
        if (fy_debug_report(debug_dir, stderr, keep) == 0 || !keep)
            fy_run_rmtree(debug_dir);
    }
    if (cleanup != NULL)
        fy_run_rmtree(cleanup);
    free(av);
    free(mpiexec);
    return status;
}
