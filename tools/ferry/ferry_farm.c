/* `ferry farm TASKFILE [mpiexec options] [farm options]`: runs each line of TASKFILE as a
 * command, spread over the ranks of an MPI job, and records each task's outcome.
 *
 * This is the front: it reads the options (the farm's are the --long ones below; everything
 * else goes to mpiexec unchanged), checks the task file and, with --resume, the results file,
 * before anything starts (bad input: exit 2), and then replaces itself with
 *     mpiexec [mpiexec options] -- ferry _farm-rank [farm options, paths made absolute]
 * (the mpiexec next to this ferry), so a Ctrl-C or a kill of `ferry farm` is one of mpiexec,
 * which forwards it to every rank (ferry_farm_rank.c says what the ranks do with it), and the
 * exit status is mpiexec's: that of rank 0, the master, or 130 after a Ctrl-C. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry.h"
#include "ferry_farm.h"

#define WHO "ferry farm"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ferry farm TASKFILE [mpiexec options] [farm options]\n"
            "Runs each line of TASKFILE as a shell command line, first come first served, on\n"
            "the ranks of an MPI job: rank 0 hands out tasks and records them, the others run\n"
            "them (rank 0 runs them itself when it is alone). Blank lines and lines starting\n"
            "with '#' are skipped; a line ending with '\\' continues on the next. A task\n"
            "sees FERRY_FARM_TASK (its number), FERRY_FARM_ATTEMPT and FERRY_FARM_RANK.\n\n"
            "mpiexec options (-n N, -host LIST, -f FILE, -ppn N, ...) pass through; without\n"
            "-n or hosts, outside a batch allocation: -n <CPUs + 1> (one worker per CPU).\n\n"
            "  --results FILE      the results file, appended to (default TASKFILE.results.csv;\n"
            "                      a name ending in .json or .jsonl: JSON lines). Columns: task,\n"
            "                      line, status (ok failed timeout skipped), exit (code or\n"
            "                      signal name), attempts, start (UTC), seconds, host, rank,\n"
            "                      command. An existing results file needs --resume.\n"
            "  --resume            skip the tasks whose last record says ok; run the rest\n"
            "  --retries N         run a failed task up to N more times, preferably on\n"
            "                      another worker (default 0)\n"
            "  --task-timeout SEC  kill a task (its process group: SIGTERM, SIGKILL 2 s later)\n"
            "                      after SEC seconds; recorded as timeout\n"
            "  --chunk K           tasks per message to a worker (default 1)\n"
            "  --depth D           messages in flight per worker: a worker starts its next\n"
            "                      task without waiting for rank 0 (default 1)\n"
            "  --per-worker N      a worker runs at most N tasks (the rest: skipped)\n"
            "  --output DIR        each task's stdout and stderr to DIR/TASK.out, .err\n"
            "                      (default: the job's output, a line at a time)\n"
            "  --shell             run every line with /bin/sh -c (default: simple commands\n"
            "                      without shell syntax are run directly)\n"
            "  --progress          a progress line: live on a terminal, else every 10 s (the\n"
            "                      default); --quiet: none\n"
            "  --dry-run           list the tasks that would run, and the mpiexec command\n\n"
            "Exit status: 0 if every task ended ok, 1 if some failed, timed out or were\n"
            "skipped, 2 for bad usage or a bad task file, 130 after Ctrl-C (then --resume\n"
            "runs the rest).\n");
}

typedef struct front {
    const char *taskfile, *results, *output, *timeout;
    const char *chunk, *depth, *retries, *per_worker;
    int resume, dry_run, quiet, shell;
    char **mpx; /* the options for mpiexec */
    int nmpx;
} front_t;

/* A whole number >= min in s, else a message and -1. */
static int check_long(const char *opt, const char *s, long min, long max)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno || v < min || v > max) {
        fprintf(stderr, WHO ": %s '%s': expected a whole number from %ld to %ld\n", opt, s, min,
                max);
        return -1;
    }
    return 0;
}

/* 0, 1 after --help, -1 after a message. */
static int parse(int argc, char **argv, front_t *f)
{
    static const char *const valued[] = {"--results", "--output", "--task-timeout", "--chunk",
                                         "--depth", "--retries", "--per-worker"};
    f->mpx = calloc((size_t)argc + 1, sizeof *f->mpx);
    if (f->mpx == NULL)
        return -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 1;
        }
        if (!strcmp(a, "--resume")) {
            f->resume = 1;
            continue;
        }
        if (!strcmp(a, "--dry-run")) {
            f->dry_run = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            f->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--progress")) {
            f->quiet = 0;
            continue;
        }
        if (!strcmp(a, "--shell")) {
            f->shell = 1;
            continue;
        }
        const char *val = NULL;
        int which = -1;
        for (int k = 0; k < (int)(sizeof valued / sizeof *valued); k++) {
            size_t n = strlen(valued[k]);
            if (!strncmp(a, valued[k], n) && (a[n] == '\0' || a[n] == '=')) {
                which = k;
                if (a[n] == '=')
                    val = a + n + 1;
                else if (i + 1 < argc)
                    val = argv[++i];
                else {
                    fprintf(stderr, WHO ": %s needs a value\n", valued[k]);
                    return -1;
                }
            }
        }
        if (which >= 0) {
            const char **slot[] = {&f->results, &f->output, &f->timeout, &f->chunk,
                                   &f->depth, &f->retries, &f->per_worker};
            *slot[which] = val;
            continue;
        }
        if (f->taskfile == NULL && f->nmpx == 0 && a[0] != '-') {
            f->taskfile = a;
            continue;
        }
        if (f->taskfile == NULL && a[0] == '-' && a[1] == '-' && a[2] != '\0') {
            fprintf(stderr, WHO ": unknown option '%s' (mpiexec options come after TASKFILE)\n",
                    a);
            return -1;
        }
        f->mpx[f->nmpx++] = argv[i];
    }
    if (f->taskfile == NULL) {
        fprintf(stderr, WHO ": %s\n", f->nmpx ? "the task file comes first: ferry farm TASKFILE "
                                                "[options]"
                                              : "no task file given");
        fprintf(stderr, "usage: ferry farm TASKFILE [mpiexec options] [farm options] "
                        "(ferry farm --help)\n");
        return -1;
    }
    if ((f->chunk && check_long("--chunk", f->chunk, 1, 1000000)) ||
        (f->depth && check_long("--depth", f->depth, 1, 1000)) ||
        (f->retries && check_long("--retries", f->retries, 0, 1000000)) ||
        (f->per_worker && check_long("--per-worker", f->per_worker, 1, LONG_MAX)))
        return -1;
    if (f->timeout) {
        char *end = NULL;
        double t = strtod(f->timeout, &end);
        if (end == f->timeout || *end != '\0' || !(t > 0) || t > 1e9) {
            fprintf(stderr, WHO ": --task-timeout '%s': expected seconds, more than 0\n",
                    f->timeout);
            return -1;
        }
    }
    return 0;
}

/* An absolute path for p (its directory must exist). */
static char *absolute(const char *p)
{
    if (p[0] == '/')
        return strdup(p);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return NULL;
    size_t n = strlen(cwd) + strlen(p) + 2;
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, "%s/%s", cwd, p);
    return out;
}

/* Whether the user said how many ranks or where (else we choose -n). */
static int placement_given(const front_t *f)
{
    static const char *const opts[] = {"-n", "-np", "-host", "-hosts", "--host", "-f",
                                       "-hostfile", "-machinefile", "--hostfile", "-ppn",
                                       "-perhost", "-npernode", "-c", "--np"};
    for (int i = 0; i < f->nmpx; i++)
        for (size_t k = 0; k < sizeof opts / sizeof *opts; k++)
            if (!strcmp(f->mpx[i], opts[k]))
                return 1;
    static const char *const env[] = {"SLURM_JOB_NODELIST", "PBS_NODEFILE", "PE_HOSTFILE",
                                      "LSB_DJOB_HOSTFILE", "LSB_MCPU_HOSTS"};
    for (size_t k = 0; k < sizeof env / sizeof *env; k++)
        if (getenv(env[k]) != NULL)
            return 1;
    return 0;
}

int fy_tool_farm(int argc, char **argv)
{
    front_t f;
    memset(&f, 0, sizeof f);
    fy_farm_tasks_t tasks = {NULL, 0};
    unsigned char *done = NULL;
    char *tasks_abs = NULL, *res_abs = NULL, *out_abs = NULL;
    char **av = NULL;
    int rc = FY_FARM_EXIT_USAGE;
    int parsed = parse(argc, argv, &f);
    if (parsed != 0) {
        rc = parsed > 0 ? 0 : FY_FARM_EXIT_USAGE; /* > 0: --help */
        goto out;
    }
    if (fy_farm_tasks_read(WHO, f.taskfile, &tasks) != 0)
        goto out;
    char defres[PATH_MAX];
    if (f.results == NULL) {
        snprintf(defres, sizeof defres, "%s.results.csv", f.taskfile);
        f.results = defres;
    }
    done = calloc((size_t)tasks.n + 1, 1);
    if (done == NULL)
        goto nomem;
    long nrec = 0, ndone = 0;
    int needs_nl = 0;
    struct stat sb;
    if (!f.resume && stat(f.results, &sb) == 0 && sb.st_size > 0) {
        fprintf(stderr,
                WHO ": the results file %s exists: --resume continues it (skips the tasks "
                    "done); to start again, remove it or name another with --results\n",
                f.results);
        goto out;
    }
    if (f.resume && fy_farm_results_read(WHO, f.results, &tasks, done, &nrec, &needs_nl) != 0)
        goto out;
    for (long i = 0; i < tasks.n; i++)
        ndone += done[i];
    /* mpiexec and ferry, from where this ferry is. */
    char self[PATH_MAX], mpiexec[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, WHO ": cannot find my own program: %s\n", strerror(errno));
        goto failed;
    }
    self[n] = '\0';
    snprintf(mpiexec, sizeof mpiexec, "%.*s/mpiexec", (int)(strrchr(self, '/') - self), self);

    char cwd[PATH_MAX], np[32];
    if (getcwd(cwd, sizeof cwd) == NULL) {
        fprintf(stderr, WHO ": getcwd: %s\n", strerror(errno));
        goto failed;
    }
    tasks_abs = absolute(f.taskfile);
    res_abs = absolute(f.results);
    out_abs = f.output ? absolute(f.output) : NULL;
    const char *tty = NULL;
    if (!f.quiet && isatty(2))
        tty = ttyname(2);
    av = calloc((size_t)f.nmpx + 48, sizeof *av);
    if (!tasks_abs || !res_abs || (f.output && !out_abs) || !av)
        goto nomem;
    int k = 0;
    av[k++] = mpiexec;
    if (!placement_given(&f)) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        snprintf(np, sizeof np, "%ld", (cpus > 0 ? cpus : 1) + 1);
        av[k++] = "-n";
        av[k++] = np;
    }
    for (int i = 0; i < f.nmpx; i++)
        av[k++] = f.mpx[i];
    av[k++] = "--";
    av[k++] = self;
    av[k++] = "_farm-rank";
    av[k++] = "--tasks";
    av[k++] = tasks_abs;
    av[k++] = "--results";
    av[k++] = res_abs;
    av[k++] = "--cwd";
    av[k++] = cwd;
    av[k++] = "--progress";
    av[k++] = f.quiet ? "none" : "lines";
    char host[256] = "";
    if (tty && gethostname(host, sizeof host - 1) == 0) {
        /* The terminal is ours only on this host: rank 0 may run on another. */
        av[k++] = "--tty";
        av[k++] = (char *)tty;
        av[k++] = "--tty-host";
        av[k++] = host;
    }
    const char *pairs[][2] = {{"--chunk", f.chunk},     {"--depth", f.depth},
                              {"--retries", f.retries}, {"--per-worker", f.per_worker},
                              {"--task-timeout", f.timeout}, {"--output", out_abs}};
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++)
        if (pairs[p][1] != NULL) {
            av[k++] = (char *)pairs[p][0];
            av[k++] = (char *)pairs[p][1];
        }
    if (f.resume)
        av[k++] = "--resume";
    if (f.shell)
        av[k++] = "--shell";
    av[k] = NULL;

    if (f.dry_run) {
        long runs = 0;
        for (long i = 0; i < tasks.n; i++) {
            if (done[i])
                continue;
            runs++;
            printf("task %ld (line %ld)%s: %s\n", i + 1, tasks.v[i].line,
                   f.shell || fy_farm_exec_needs_shell(tasks.v[i].cmd) ? " [sh -c]" : "",
                   tasks.v[i].cmd);
        }
        printf("# %ld task%s to run, %ld done before (--resume); results to %s\n# ", runs,
               runs == 1 ? "" : "s", ndone, res_abs);
        for (int i = 0; av[i] != NULL; i++)
            printf("%s%s", i ? " " : "", av[i]);
        printf("\n");
        rc = 0;
        goto out;
    }
    /* What the master will open, checked here: a mistake ends before any rank starts. */
    if (f.output != NULL && mkdir(f.output, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, WHO ": --output %s: cannot create it: %s\n", f.output, strerror(errno));
        goto out;
    }
    int fd = open(f.results, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, WHO ": cannot write the results file %s: %s\n", f.results,
                strerror(errno));
        goto out;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        /* The master holds it for the whole run (ferry_farm_rank.c). */
        fprintf(stderr, WHO ": the results file %s is in use by another ferry farm\n",
                f.results);
        close(fd);
        goto out;
    }
    close(fd);
    if (tasks.n == 0)
        fprintf(stderr, WHO ": %s has no tasks\n", f.taskfile);
    if (access(mpiexec, X_OK) != 0) {
        fprintf(stderr, WHO ": cannot run %s: %s\n", mpiexec, strerror(errno));
        goto failed;
    }
    fflush(NULL);
    execv(mpiexec, av);
    fprintf(stderr, WHO ": cannot run %s: %s\n", mpiexec, strerror(errno));
    goto failed;
nomem:
    fprintf(stderr, WHO ": out of memory\n");
failed:
    rc = FY_FARM_EXIT_FAILED;
out:
    free(av);
    free(out_abs);
    free(res_abs);
    free(tasks_abs);
    free(done);
    fy_farm_tasks_free(&tasks);
    free(f.mpx);
    return rc;
}
