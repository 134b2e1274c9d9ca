/* `ferry top [-n N] [-l] [PID]`: the live view of a job started with mpiexec --monitor, from
 * another terminal. It finds the jobs by their Unix sockets (src/common/fy_monitor_path.h),
 * lists them when there are several and no PID is given, attaches to the one chosen and shows
 * the per-rank block mpiexec draws once a second (tools/mpiexec/monitor.c has the wire): full
 * screen on a terminal, plain blocks otherwise. It ends after N blocks (-n), or when the job
 * ends, with its last block and exit status. A socket whose mpiexec is gone (killed with
 * SIGKILL) is removed on the way. */
#include "ferry.h"

#include "fy_auth.h"
#include "fy_monitor_path.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define HELLO_MS 2000      /* for a monitor to greet us */
#define QUIET_MS 10000     /* no block for this long: say so (once), keep waiting */
#define MAX_JOBS 256
#define MAX_BLOCK (16 << 20)

typedef struct job {
    long pid;
    int ranks;
    long long elapsed_ms;
    char prog[128];
    int fd; /* connected, greeted; -1 once closed */
} job_t;

static void usage(FILE *f)
{
    fprintf(f, "usage: ferry top [-n N] [-l] [PID]\n"
               "Shows a job started with `mpiexec --monitor` (or --monitor=quiet) as it runs:\n"
               "a line per rank once a second: its host, whether it is in MPI or computing, the\n"
               "call it is in and for how long, %% of the last second in MPI, messages and bytes\n"
               "per second, calls made. PID is mpiexec's; without it, the only job running.\n"
               "  -n N   N refreshes, then exit (default: until the job ends)\n"
               "  -l     list the monitored jobs (pid, program, ranks, elapsed) and exit\n"
               "The jobs' sockets are in ${XDG_RUNTIME_DIR:-/tmp}/ferry-<uid>/.\n");
}

/* Reads one line (up to its newline) byte by byte within ms; 0 or -1. */
static int read_line(int fd, char *buf, size_t cap, int ms)
{
    return fy_auth_read_line(fd, buf, cap, fy_auth_now_ms() + ms);
}

/* Connects to one socket and reads its greeting into j; 0, or -1 (stale: removed, or not a
 * monitor). */
static int greet(const char *dir, const char *name, long pid, job_t *j)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name) >=
        sizeof(sa.sun_path))
        return -1;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
        unlink(sa.sun_path); /* its mpiexec was killed before it could remove it */
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    char line[256];
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        read_line(fd, line, sizeof(line), HELLO_MS) != 0) {
        close(fd);
        return -1;
    }
    *j = (job_t){.fd = fd};
    if (sscanf(line, FY_MONITOR_TOP_PROTO " 1 %ld %d %lld %127s", &j->pid, &j->ranks,
               &j->elapsed_ms, j->prog) != 4) {
        close(fd);
        return -1; /* BUSY (too many attached), or not ours */
    }
    return 0;
}

/* The running monitored jobs, by pid; how many. */
static int find_jobs(const char *dir, job_t *jobs, int max)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    struct dirent *e;
    int n = 0;
    size_t plen = strlen(FY_MONITOR_SOCK_PREFIX);
    while ((e = readdir(d)) != NULL && n < max) {
        char *end;
        if (strncmp(e->d_name, FY_MONITOR_SOCK_PREFIX, plen) != 0)
            continue;
        long pid = strtol(e->d_name + plen, &end, 10);
        if (pid <= 0 || strcmp(end, FY_MONITOR_SOCK_SUFFIX) != 0)
            continue;
        if (greet(dir, e->d_name, pid, &jobs[n]) == 0)
            n++;
    }
    closedir(d);
    for (int a = 1; a < n; a++) /* by pid: a stable list */
        for (int b = a; b > 0 && jobs[b].pid < jobs[b - 1].pid; b--) {
            job_t t = jobs[b];
            jobs[b] = jobs[b - 1];
            jobs[b - 1] = t;
        }
    return n;
}

static void list_jobs(const job_t *jobs, int n)
{
    printf("%8s %-24s %6s %10s\n", "PID", "PROGRAM", "RANKS", "ELAPSED");
    for (int i = 0; i < n; i++)
        printf("%8ld %-24.24s %6d %8.1f s\n", jobs[i].pid, jobs[i].prog, jobs[i].ranks,
               (double)jobs[i].elapsed_ms / 1000);
}

/* Shows the job's blocks until N of them (0: no limit) or its end; the exit status. */
static int watch(job_t *j, long limit)
{
    int tty = isatty(1);
    long shown = 0;
    int warned = 0;
    char line[128];
    for (;;) {
        struct pollfd p = {.fd = j->fd, .events = POLLIN};
        int r = poll(&p, 1, QUIET_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            if (!warned)
                fprintf(stderr, "ferry top: no news from mpiexec (pid %ld) for %d s; waiting\n",
                        j->pid, QUIET_MS / 1000);
            warned = 1;
            continue;
        }
        warned = 0;
        if (read_line(j->fd, line, sizeof(line), HELLO_MS) != 0) {
            fprintf(stderr, "ferry top: mpiexec (pid %ld) went away without saying how the "
                    "job ended\n", j->pid);
            return 1;
        }
        int status;
        size_t len;
        if (sscanf(line, "E %d", &status) == 1) {
            printf("ferry top: the job (mpiexec pid %ld) has ended, exit status %d\n", j->pid,
                   status);
            return 0;
        }
        if (sscanf(line, "B %zu", &len) != 1 || len > MAX_BLOCK)
            continue; /* a later version's message */
        char *block = malloc(len + 1);
        if (block == NULL || fy_auth_recv_all(j->fd, block, len, -1) != 0) {
            free(block);
            fprintf(stderr, "ferry top: mpiexec (pid %ld) went away\n", j->pid);
            return 1;
        }
        if (tty)
            fputs("\033[H\033[2J", stdout); /* home, clear: the block redrawn in place */
        fwrite(block, 1, len, stdout);
        if (!tty)
            fputc('\n', stdout);
        fflush(stdout);
        free(block);
        if (limit > 0 && ++shown >= limit)
            return 0;
    }
}

int fy_tool_top(int argc, char **argv)
{
    long limit = 0, pid = 0;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "-l") == 0 || strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "-n") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "ferry top: -n needs a number of refreshes\n");
                return 2;
            }
            limit = strtol(argv[++i], &end, 10);
            if (*argv[i] == '\0' || *end != '\0' || limit < 1 || limit > 1000000) {
                fprintf(stderr, "ferry top: -n '%s': a number of refreshes from 1 to 1000000\n",
                        argv[i]);
                return 2;
            }
        } else if (a[0] != '-' && pid == 0) {
            pid = strtol(a, &end, 10);
            if (*end != '\0' || pid <= 0) {
                fprintf(stderr, "ferry top: '%s' is not a process id (mpiexec's pid, as ferry "
                        "top -l lists them)\n", a);
                return 2;
            }
        } else {
            fprintf(stderr, "ferry top: unknown argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    char dir[PATH_MAX];
    if (fy_monitor_dir(dir, sizeof(dir)) != 0) {
        fprintf(stderr, "ferry top: XDG_RUNTIME_DIR is too long\n");
        return 1;
    }
    job_t *jobs = calloc(MAX_JOBS, sizeof(*jobs));
    if (jobs == NULL) {
        fprintf(stderr, "ferry top: out of memory\n");
        return 1;
    }
    int n = find_jobs(dir, jobs, MAX_JOBS), rc = 0, pick = -1;
    for (int i = 0; i < n && pid > 0; i++)
        if (jobs[i].pid == pid)
            pick = i;
    if (list) {
        if (n == 0)
            printf("ferry top: no running job was started with mpiexec --monitor (no socket in "
                   "%s)\n", dir);
        else
            list_jobs(jobs, n);
    } else if (n == 0) {
        fprintf(stderr, "ferry top: no running job was started with mpiexec --monitor (no "
                "socket in %s)\n", dir);
        rc = 1;
    } else if (pid > 0 && pick < 0) {
        fprintf(stderr, "ferry top: no job started with mpiexec --monitor has pid %ld; the "
                "running ones:\n", pid);
        list_jobs(jobs, n);
        rc = 1;
    } else if (pid == 0 && n > 1) {
        fprintf(stderr, "ferry top: %d monitored jobs are running; give the pid of one "
                "(ferry top PID):\n", n);
        list_jobs(jobs, n);
        rc = 2;
    } else {
        rc = watch(&jobs[pick >= 0 ? pick : 0], limit);
    }
    for (int i = 0; i < n; i++)
        if (jobs[i].fd >= 0)
            close(jobs[i].fd);
    free(jobs);
    return rc;
}
