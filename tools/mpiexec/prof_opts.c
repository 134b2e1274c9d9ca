/* mpiexec --profile and --trace (prof_opts.h). The values are checked here, before any rank
 * starts, with the parsers the library uses (src/common/fy_prof_opts.c), and passed on as
 * FERRY_PROFILE, FERRY_PROFILE_JOBID (our process id, in the profile's file name),
 * FERRY_TRACE_DIR (absolute), FERRY_TRACE_CALLS, FERRY_TRACE_RANKS, FERRY_TRACE_WINDOW and
 * FERRY_TRACE_MAX; src/tools/prof/prof_opts.c reads them. */
#include "prof_opts.h"

#include "fy_prof_opts.h"
#include "preload.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static struct {
    int profile;
    const char *dir, *calls, *ranks, *window, *max;
    char abs_dir[PATH_MAX];
    int traced; /* the directory was made: convert after the job */
} P;

int fy_mpx_prof_option(const char *name, const char *val, char *err, size_t len)
{
    if (strcmp(name, "profile") == 0) {
        P.profile = 1;
        return 0;
    }
    const char **slot = strcmp(name, "trace") == 0          ? &P.dir
                        : strcmp(name, "trace-calls") == 0  ? &P.calls
                        : strcmp(name, "trace-ranks") == 0  ? &P.ranks
                        : strcmp(name, "trace-window") == 0 ? &P.window
                        : strcmp(name, "trace-max") == 0    ? &P.max
                                                            : NULL;
    if (slot == NULL) {
        snprintf(err, len, "--%s: not an option of the recorder", name);
        return -1;
    }
    if (val == NULL || *val == '\0') {
        snprintf(err, len, "--%s needs a value", name);
        return -1;
    }
    *slot = val;
    return 0;
}

static int bad(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, FY_MPX_PROG ": ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return -1;
}

static int check_values(int np)
{
    if (!P.dir) {
        const char *which = P.calls ? "--trace-calls" : P.ranks ? "--trace-ranks" :
                            P.window ? "--trace-window" : P.max ? "--trace-max" : NULL;
        if (which)
            return bad("%s needs --trace DIR (it filters what the trace records)%s", which, "");
        return 0;
    }
    if (P.calls) {
        for (const char *p = P.calls; *p; p++)
            if (!(*p == '_' || *p == ',' || *p == '-' || (*p >= '0' && *p <= '9') ||
                  ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')))
                return bad("--trace-calls '%s': a comma-separated list of MPI functions "
                           "(MPI_Send or Send), classes (p2p, coll, rma) and -NAME to leave "
                           "one out%s", P.calls, "");
    }
    int in;
    if (P.ranks) {
        if (fy_prof_parse_ranks(P.ranks, 0, &in) != 0)
            return bad("--trace-ranks '%s': a list of ranks and ranges, like 0-3,7%s", P.ranks,
                       "");
        int any = 0;
        for (int r = 0; r < np && !any; r++)
            fy_prof_parse_ranks(P.ranks, r, &any);
        if (!any) {
            char n[16];
            snprintf(n, sizeof n, "%d", np);
            return bad("--trace-ranks '%s': the job has %s ranks, none of them listed", P.ranks,
                       n);
        }
    }
    double a, b;
    if (P.window && fy_prof_parse_window(P.window, &a, &b) != 0)
        return bad("--trace-window '%s': START:END in seconds after MPI_Init, START <= END "
                   "(END may be left out: to the end), like 0.5:2%s", P.window, "");
    uint64_t max;
    if (P.max && (fy_prof_parse_size(P.max, &max) != 0 || max == 0))
        return bad("--trace-max '%s': a size like 200M or 2G (for the whole job)%s", P.max, "");
    return 0;
}

/* Makes the trace directory: it must not exist, and its parent must let us. */
static int make_dir(void)
{
    struct stat st;
    if (lstat(P.dir, &st) == 0)
        return bad("--trace '%s': it already exists; give a directory that does not (a trace "
                   "is never written over another)%s", P.dir, "");
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", P.dir);
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/')
        parent[--n] = '\0';
    char *slash = strrchr(parent, '/');
    if (slash == NULL)
        snprintf(parent, sizeof parent, ".");
    else if (slash == parent)
        parent[1] = '\0';
    else
        *slash = '\0';
    if (stat(parent, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, FY_MPX_PROG ": --trace '%s': its parent directory '%s' %s\n", P.dir,
                parent, errno == ENOENT || errno == 0 ? "does not exist" : strerror(errno));
        return -1;
    }
    if (access(parent, W_OK | X_OK) != 0) {
        fprintf(stderr, FY_MPX_PROG ": --trace '%s': cannot make it: its parent directory '%s' "
                "is not writable (%s)\n", P.dir, parent, strerror(errno));
        return -1;
    }
    if (mkdir(P.dir, 0777) != 0) {
        fprintf(stderr, FY_MPX_PROG ": --trace '%s': cannot make it: %s\n", P.dir,
                strerror(errno));
        return -1;
    }
    if (realpath(P.dir, P.abs_dir) == NULL)
        snprintf(P.abs_dir, sizeof P.abs_dir, "%s", P.dir);
    P.traced = 1;
    return 0;
}

int fy_mpx_prof_setup(fy_mpx_opts_t *o, int check)
{
    const char *env = getenv("FERRY_PROFILE");
    if (env != NULL && *env != '\0' && strcmp(env, "0") != 0)
        P.profile = 1;
    if (check_values(o->np) != 0)
        return -1;
    if (!P.profile && !P.dir)
        return 0;
    if (check)
        return bad("--check cannot go with %s: each preloads its own library of MPI wrappers "
                   "(run them one after the other)%s", P.dir ? "--trace" : "--profile", "");
    char lib[PATH_MAX];
    if (fy_mpx_tool_lib(P.dir ? "--trace" : "--profile", "the recorder library",
                        "libferry_prof.so", lib, sizeof lib) != 0)
        return -1;
    if (P.dir && make_dir() != 0)
        return -1;
    char job[32];
    snprintf(job, sizeof job, "%d", (int)getpid());
    int rc = fy_mpx_preload(o, lib);
    rc |= fy_mpx_env_add(&o->env, "FERRY_PROFILE", "1");
    rc |= fy_mpx_env_add(&o->env, "FERRY_PROFILE_JOBID", job);
    if (P.dir) {
        rc |= fy_mpx_env_add(&o->env, "FERRY_TRACE_DIR", P.abs_dir);
        if (P.calls)
            rc |= fy_mpx_env_add(&o->env, "FERRY_TRACE_CALLS", P.calls);
        if (P.ranks)
            rc |= fy_mpx_env_add(&o->env, "FERRY_TRACE_RANKS", P.ranks);
        if (P.window)
            rc |= fy_mpx_env_add(&o->env, "FERRY_TRACE_WINDOW", P.window);
        if (P.max)
            rc |= fy_mpx_env_add(&o->env, "FERRY_TRACE_MAX", P.max);
    }
    if (rc != 0) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return -1;
    }
    return 0;
}

void fy_mpx_prof_finish(void)
{
    if (!P.traced)
        return;
    char self[PATH_MAX - 16], conv[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(conv, sizeof conv, "%s/ferry-otf2", slash != NULL ? self : ".");
    if (access(conv, X_OK) != 0) {
        fprintf(stderr, FY_MPX_PROG ": note: no ferry-otf2 next to mpiexec (%s); the trace is "
                "left in its raw form in %s/ferry/\n", conv, P.abs_dir);
        return;
    }
    char *argv[] = {conv, P.abs_dir, NULL};
    pid_t pid;
    if (posix_spawn(&pid, conv, NULL, NULL, argv, environ) != 0) {
        fprintf(stderr, FY_MPX_PROG ": cannot run %s: %s; the trace is left in its raw form in "
                "%s/ferry/\n", conv, strerror(errno), P.abs_dir);
        return;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fprintf(stderr, FY_MPX_PROG ": %s %s failed; the raw trace is in %s/ferry/\n", conv,
                P.abs_dir, P.abs_dir);
}
