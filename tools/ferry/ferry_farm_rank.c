/* `ferry _farm-rank OPTIONS`: the MPI program of `ferry farm` (ferry_farm.c starts it under
 * mpiexec), built on ferry/farm.h.
 *
 * Rank 0 is the master: it hands out task numbers and lines (item bytes "N LINE"), takes each
 * result ("status exit signal start seconds host") and writes the task's record to the results
 * file at once, with one write() (fsync at most once a second and at the end), so a finished
 * task is never lost and the file never holds half a record. A failed attempt goes back to the
 * queue while the task has retries left, preferably to a worker it did not fail on. It runs
 * tasks itself only when it is alone. The other ranks run tasks (ferry_farm_exec.c).
 *
 * Ctrl-C: mpiexec forwards SIGINT (or SIGTERM) to every rank. A worker kills its running task's
 * process group and answers "interrupted" for it and for any item it still holds; the master
 * stops handing out, records what finished, writes no record for interrupted tasks (so
 * --resume runs them), and exits 130. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ferry/farm.h>
#include <mpi.h>

#include "ferry.h"
#include "ferry_farm.h"

#define WHO "ferry farm"
/* Progress on a terminal: at most this often. Without one: a line this often. */
#define PROGRESS_TTY_S 0.25
#define PROGRESS_LINES_S 10.0
#define SYNC_S 1.0
/* Failures listed by name in the summary. */
#define SHOW_FAILURES 5

typedef struct opts {
    const char *tasks, *results, *cwd, *output, *progress, *tty, *tty_host;
    int chunk, depth, retries, resume, shell;
    long per_worker;
    double timeout;
} opts_t;

typedef struct farm_state {
    opts_t o;
    int rank, size;
    char host[256];
    /* master */
    fy_farm_tasks_t tasks;
    int json, fd, tty_fd;
    unsigned char *done; /* ok before this run (--resume) */
    int *attempts, *failed_on;
    long next_fresh;
    long *retryq, nretry; /* tasks to hand out again, oldest first */
    long *task_of, ntask_of;
    long to_run, already, nok, nfailed, ntimeout, nskipped, inflight;
    long failures[SHOW_FAILURES], nfailures;
    int failure_status[SHOW_FAILURES];
    int interrupted;
    double t0, last_sync, last_progress;
    char itembuf[FY_FARM_LINE_MAX + 32];
    /* worker */
    char resbuf[512];
    char *cmdbuf;
} farm_state_t;

static int parse_opts(int argc, char **argv, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->chunk = o->depth = 1;
    o->progress = "lines";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes = 1;
        if (!strcmp(a, "--tasks"))
            o->tasks = v;
        else if (!strcmp(a, "--results"))
            o->results = v;
        else if (!strcmp(a, "--cwd"))
            o->cwd = v;
        else if (!strcmp(a, "--output"))
            o->output = v;
        else if (!strcmp(a, "--progress"))
            o->progress = v;
        else if (!strcmp(a, "--tty"))
            o->tty = v;
        else if (!strcmp(a, "--tty-host"))
            o->tty_host = v;
        else if (!strcmp(a, "--chunk"))
            o->chunk = v ? atoi(v) : 0;
        else if (!strcmp(a, "--depth"))
            o->depth = v ? atoi(v) : 0;
        else if (!strcmp(a, "--retries"))
            o->retries = v ? atoi(v) : 0;
        else if (!strcmp(a, "--per-worker"))
            o->per_worker = v ? atol(v) : 0;
        else if (!strcmp(a, "--task-timeout"))
            o->timeout = v ? atof(v) : 0;
        else if (!strcmp(a, "--resume"))
            o->resume = 1, takes = 0;
        else if (!strcmp(a, "--shell"))
            o->shell = 1, takes = 0;
        else {
            fprintf(stderr, WHO ": internal: unknown rank option '%s'\n", a);
            return -1;
        }
        if (takes && v == NULL) {
            fprintf(stderr, WHO ": internal: rank option %s needs a value\n", a);
            return -1;
        }
        i += takes;
    }
    if (o->tasks == NULL || o->results == NULL || o->progress == NULL) {
        fprintf(stderr, WHO ": internal: the rank needs --tasks and --results\n");
        return -1;
    }
    return 0;
}

/* ---- worker side --------------------------------------------------------------------------- */

static int work_cb(void *user, long index, const void *item, size_t len, const void **result,
                   size_t *result_len)
{
    farm_state_t *s = user;
    (void)index;
    memcpy(s->cmdbuf, item, len);
    s->cmdbuf[len] = '\0';
    char *cmd = NULL, *rest = NULL;
    long task = strtol(s->cmdbuf, &rest, 10);
    long attempt = strtol(rest, &cmd, 10);
    if (*cmd == ' ')
        cmd++;
    /* What a task may want to know about itself (as GNU parallel's $PARALLEL_SEQ). */
    char e_task[48], e_attempt[48], e_rank[48];
    snprintf(e_task, sizeof e_task, "FERRY_FARM_TASK=%ld", task);
    snprintf(e_attempt, sizeof e_attempt, "FERRY_FARM_ATTEMPT=%ld", attempt);
    snprintf(e_rank, sizeof e_rank, "FERRY_FARM_RANK=%d", s->rank);
    char *env[] = {e_task, e_attempt, e_rank, NULL};
    char out[PATH_MAX], err[PATH_MAX];
    const char *outp = NULL, *errp = NULL;
    if (s->o.output != NULL) {
        snprintf(out, sizeof out, "%s/%ld.out", s->o.output, task);
        snprintf(err, sizeof err, "%s/%ld.err", s->o.output, task);
        outp = out;
        errp = err;
    }
    fy_farm_run_t run;
    fy_farm_exec_run(cmd, env, s->o.timeout, s->o.shell, outp, errp, &run);
    int n = snprintf(s->resbuf, sizeof s->resbuf, "%d %d %d %.6f %.6f %s", run.status,
                     run.exit_code, run.signal, run.start, run.seconds, s->host);
    *result = s->resbuf;
    *result_len = n > 0 && (size_t)n < sizeof s->resbuf ? (size_t)n : 0;
    return run.status;
}

/* ---- master side --------------------------------------------------------------------------- */

static void write_record(farm_state_t *s, long t, int status, int exit_code, int sig,
                         double start, double seconds, const char *host, int rank)
{
    fy_farm_record_t r = {t + 1, s->tasks.v[t].line, status, exit_code, sig, s->attempts[t],
                          start, seconds, host, rank, s->tasks.v[t].cmd};
    char buf[FY_FARM_LINE_MAX * 2 + 1024];
    int n = fy_farm_record_format(&r, s->json, buf, sizeof buf);
    if (n < 0)
        return; /* cannot happen: the line is bounded */
    /* One write: a record is either all there or not at all. */
    ssize_t w;
    do
        w = write(s->fd, buf, (size_t)n);
    while (w < 0 && errno == EINTR);
    if (w != n)
        fprintf(stderr, WHO ": writing the record of task %ld to %s: %s\n", t + 1, s->o.results,
                w < 0 ? strerror(errno) : "short write");
    if (status == FY_FARM_OK)
        s->nok++;
    else if (status == FY_FARM_FAILED)
        s->nfailed++;
    else if (status == FY_FARM_TIMEOUT)
        s->ntimeout++;
    else
        s->nskipped++;
    if (status != FY_FARM_OK && s->nfailures < SHOW_FAILURES) {
        s->failure_status[s->nfailures] = status;
        s->failures[s->nfailures++] = t;
    }
}

static void fmt_duration(double sec, char *out, size_t size)
{
    long v = (long)(sec + 0.5);
    if (v >= 3600)
        snprintf(out, size, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
    else
        snprintf(out, size, "%ld:%02ld", v / 60, v % 60);
}

static void progress(farm_state_t *s, int final)
{
    int tty = s->tty_fd >= 0;
    if (!tty && strcmp(s->o.progress, "lines") != 0)
        return;
    double now = fy_farm_now();
    if (!final && now - s->last_progress < (tty ? PROGRESS_TTY_S : PROGRESS_LINES_S))
        return;
    if (final && !tty)
        return;
    s->last_progress = now;
    if (final) {
        if (write(s->tty_fd, "\r\033[K", 4) < 0) {
            /* the terminal went away: nothing to clean */
        }
        return;
    }
    long finished = s->nok + s->nfailed + s->ntimeout;
    double el = now - s->t0, rate = el > 0 ? finished / el : 0;
    char eta[32] = "?", line[256];
    if (rate > 0)
        fmt_duration((double)(s->to_run - finished) / rate, eta, sizeof eta);
    int n = snprintf(line, sizeof line,
                     "%sferry farm: %ld/%ld done, %ld failed, %ld running, %.3g tasks/s, ETA %s%s",
                     tty ? "\r\033[K" : "", finished, s->to_run, s->nfailed + s->ntimeout,
                     s->inflight, rate, eta, tty ? "" : "\n");
    if (n > 0 && write(tty ? s->tty_fd : 2, line, (size_t)n) < 0) {
        /* progress is best effort */
    }
}

static void sync_maybe(farm_state_t *s, int now_anyway)
{
    double now = fy_farm_now();
    if (now_anyway || now - s->last_sync >= SYNC_S) {
        fsync(s->fd);
        s->last_sync = now;
    }
}

/* Takes the oldest retry that last failed on another worker, or with `any` the oldest retry;
 * -1 if there is none. */
static long take_retry(farm_state_t *s, int worker, int any)
{
    long pick = -1;
    for (long k = 0; k < s->nretry && pick < 0; k++)
        if (any || s->failed_on[s->retryq[k]] != worker)
            pick = k;
    if (pick < 0)
        return -1;
    long t = s->retryq[pick];
    memmove(s->retryq + pick, s->retryq + pick + 1, (size_t)(s->nretry - pick - 1) * sizeof(long));
    s->nretry--;
    return t;
}

static int next_cb(void *user, long index, int worker, const void **data, size_t *len)
{
    farm_state_t *s = user;
    if (s->interrupted || fy_farm_exec_interrupted()) {
        s->interrupted = 1;
        return FERRY_FARM_END;
    }
    /* A failed task goes preferably to another worker: to this one only when there is no
     * fresh task to give it instead (waiting for another worker would leave this one idle). */
    long t = take_retry(s, worker, s->size <= 2);
    while (t < 0 && s->next_fresh < s->tasks.n) {
        long c = s->next_fresh++;
        if (!s->done[c])
            t = c;
    }
    if (t < 0)
        t = take_retry(s, worker, 1);
    if (t < 0)
        return s->inflight > 0 && s->o.retries > 0 ? FERRY_FARM_LATER : FERRY_FARM_END;
    if (index >= s->ntask_of) {
        long cap = s->ntask_of ? s->ntask_of * 2 : 1024;
        while (cap <= index)
            cap *= 2;
        long *v = realloc(s->task_of, (size_t)cap * sizeof *v);
        if (v == NULL) {
            fprintf(stderr, WHO ": out of memory\n");
            return -1;
        }
        s->task_of = v;
        s->ntask_of = cap;
    }
    s->task_of[index] = t;
    s->attempts[t]++;
    s->inflight++;
    int n = snprintf(s->itembuf, sizeof s->itembuf, "%ld %d %s", t + 1, s->attempts[t],
                     s->tasks.v[t].cmd);
    *data = s->itembuf;
    *len = (size_t)n;
    return FERRY_FARM_ITEM;
}

static int result_cb(void *user, long index, int worker, int status, const void *result,
                     size_t len)
{
    farm_state_t *s = user;
    long t = s->task_of[index];
    s->inflight--;
    char buf[512];
    size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
    memcpy(buf, result, n);
    buf[n] = '\0';
    int st = -1, code = -1, sig = 0, at = 0;
    double start = 0, seconds = 0;
    if (sscanf(buf, "%d %d %d %lf %lf %n", &st, &code, &sig, &start, &seconds, &at) < 5) {
        fprintf(stderr, WHO ": a malformed result for task %ld from rank %d\n", t + 1, worker);
        st = FY_FARM_FAILED;
    }
    const char *host = buf + at;
    (void)status;
    if (st < 0) { /* interrupted: no record, --resume runs it again */
        s->interrupted = 1;
        return 1;
    }
    if (st != FY_FARM_OK && s->attempts[t] <= s->o.retries && !s->interrupted &&
        !fy_farm_exec_interrupted()) {
        s->failed_on[t] = worker;
        s->retryq[s->nretry++] = t;
    } else {
        write_record(s, t, st, code, sig, start, seconds, host, worker);
    }
    sync_maybe(s, 0);
    progress(s, 0);
    if (fy_farm_exec_interrupted())
        s->interrupted = 1;
    return s->interrupted ? 1 : 0;
}

static int tick_cb(void *user)
{
    farm_state_t *s = user;
    if (fy_farm_exec_interrupted())
        s->interrupted = 1;
    sync_maybe(s, 0);
    progress(s, 0);
    return s->interrupted ? 1 : 0;
}

static int master_prepare(farm_state_t *s)
{
    if (fy_farm_tasks_read(WHO, s->o.tasks, &s->tasks) != 0)
        return -1;
    long n = s->tasks.n;
    s->done = calloc((size_t)n + 1, 1);
    s->attempts = calloc((size_t)n + 1, sizeof(int));
    s->failed_on = calloc((size_t)n + 1, sizeof(int));
    s->retryq = calloc((size_t)n + 1, sizeof(long));
    if (!s->done || !s->attempts || !s->failed_on || !s->retryq) {
        fprintf(stderr, WHO ": out of memory\n");
        return -1;
    }
    long nrec = 0;
    int needs_nl = 0;
    s->json = fy_farm_results_is_json(s->o.results);
    if (s->o.resume &&
        fy_farm_results_read(WHO, s->o.results, &s->tasks, s->done, &nrec, &needs_nl) != 0)
        return -1;
    for (long i = 0; i < n; i++)
        s->already += s->done[i];
    s->to_run = n - s->already;
    s->fd = open(s->o.results, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        fprintf(stderr, WHO ": cannot open the results file '%s': %s\n", s->o.results,
                strerror(errno));
        return -1;
    }
    /* Two farms appending to one results file would each skip or redo the other's tasks. */
    if (flock(s->fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        fprintf(stderr, WHO ": the results file %s is in use by another ferry farm\n",
                s->o.results);
        return -1;
    }
    struct stat sb;
    const char *head = "";
    if (fstat(s->fd, &sb) == 0 && sb.st_size == 0 && !s->json)
        head = fy_farm_results_header();
    else if (needs_nl)
        head = "\n"; /* end the record cut short, so ours start on a line of their own */
    if (*head && write(s->fd, head, strlen(head)) < 0) {
        fprintf(stderr, WHO ": writing to '%s': %s\n", s->o.results, strerror(errno));
        return -1;
    }
    s->tty_fd = -1;
    if (s->o.tty != NULL && strcmp(s->o.progress, "none") != 0 && s->o.tty_host != NULL &&
        strcmp(s->o.tty_host, s->host) == 0)
        s->tty_fd = open(s->o.tty, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    return 0;
}

static int master_summary(farm_state_t *s, int rc)
{
    if (rc == FERRY_FARM_INCOMPLETE && !s->interrupted) {
        /* Every worker reached --per-worker: the rest is recorded as skipped. */
        for (long t = 0; t < s->tasks.n; t++)
            if (!s->done[t] && s->attempts[t] == 0)
                write_record(s, t, FY_FARM_SKIPPED, -1, 0, 0, 0, "", -1);
        for (long k = 0; k < s->nretry; k++)
            write_record(s, s->retryq[k], FY_FARM_FAILED, -1, 0, 0, 0, "", -1);
    }
    sync_maybe(s, 1);
    progress(s, 1);
    long recorded = s->nok + s->nfailed + s->ntimeout + s->nskipped;
    char el[48];
    double secs = fy_farm_now() - s->t0;
    if (secs < 60)
        snprintf(el, sizeof el, "%.3g s", secs);
    else
        fmt_duration(secs, el, sizeof el);
    fprintf(stderr, WHO ": %ld task%s in %s (%.4g/s): %ld ok, %ld failed, %ld timed out",
            recorded, recorded == 1 ? "" : "s", el, secs > 0 ? recorded / secs : 0.0, s->nok,
            s->nfailed, s->ntimeout);
    if (s->nskipped)
        fprintf(stderr, ", %ld skipped (every worker reached --per-worker)", s->nskipped);
    if (s->already)
        fprintf(stderr, " (%ld done before, skipped by --resume)", s->already);
    fprintf(stderr, "; results in %s\n", s->o.results);
    for (long k = 0; k < s->nfailures; k++) {
        long t = s->failures[k];
        fprintf(stderr, "  task %ld (line %ld) %s, %d attempt%s: %s\n", t + 1,
                s->tasks.v[t].line, s->failure_status[k] == FY_FARM_TIMEOUT ? "timed out"
                                    : s->attempts[t]                        ? "failed"
                                                                            : "skipped",
                s->attempts[t], s->attempts[t] == 1 ? "" : "s", s->tasks.v[t].cmd);
    }
    long other = s->nfailed + s->ntimeout + s->nskipped - s->nfailures;
    if (other > 0)
        fprintf(stderr, "  and %ld more (see the results file)\n", other);
    if (s->interrupted) {
        fprintf(stderr, WHO ": interrupted: %ld task%s not run; `ferry farm ... --resume` runs "
                        "them\n",
                s->to_run - recorded, s->to_run - recorded == 1 ? "" : "s");
        return FY_FARM_EXIT_INTERRUPTED;
    }
    if (rc < 0)
        return FY_FARM_EXIT_FAILED;
    return s->nfailed + s->ntimeout + s->nskipped ? FY_FARM_EXIT_FAILED : FY_FARM_EXIT_OK;
}

int fy_tool_farm_rank(int argc, char **argv)
{
    farm_state_t *s = calloc(1, sizeof *s);
    if (s == NULL)
        return FY_FARM_EXIT_FAILED;
    if (parse_opts(argc, argv, &s->o) != 0) {
        free(s);
        return FY_FARM_EXIT_USAGE;
    }
    /* Before MPI_Init: a Ctrl-C during the start is seen too. */
    if (fy_farm_exec_init() != 0) {
        free(s);
        return FY_FARM_EXIT_FAILED;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->size);
    if (gethostname(s->host, sizeof s->host - 1) != 0)
        strcpy(s->host, "?");
    s->cmdbuf = malloc(FY_FARM_LINE_MAX + 32);
    int ok = s->cmdbuf != NULL;
    if (ok && s->o.cwd != NULL && chdir(s->o.cwd) != 0) {
        fprintf(stderr, WHO ": rank %d on %s: cannot enter %s: %s\n", s->rank, s->host, s->o.cwd,
                strerror(errno));
        ok = 0;
    }
    if (ok && s->rank == 0)
        ok = master_prepare(s) == 0;
    /* Everyone learns whether everyone is ready, so no rank waits for a farm that never
     * starts. */
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int code = FY_FARM_EXIT_OK;
    if (!all_ok) {
        code = FY_FARM_EXIT_USAGE;
        goto out;
    }
    ferry_farm_opts_t fo;
    ferry_farm_opts_init(&fo);
    fo.chunk = s->o.chunk;
    fo.depth = s->o.depth;
    fo.max_per_worker = s->o.per_worker;
    fo.tick_ms = 50;
    ferry_farm_t *farm = NULL;
    if (ferry_farm_create(MPI_COMM_WORLD, 0, &fo, &farm) != FERRY_FARM_OK) {
        code = FY_FARM_EXIT_USAGE;
        goto out;
    }
    ferry_farm_ops_t ops = {next_cb, work_cb, result_cb, tick_cb};
    s->t0 = s->last_sync = fy_farm_now();
    s->last_progress = s->t0;
    int rc = ferry_farm_run(farm, &ops, s);
    if (s->rank == 0)
        code = master_summary(s, rc);
    else if (rc < 0)
        code = FY_FARM_EXIT_FAILED;
    ferry_farm_free(&farm);
out:
    if (s->rank == 0) {
        if (s->fd > 0)
            close(s->fd);
        if (s->tty_fd >= 0)
            close(s->tty_fd);
        fy_farm_tasks_free(&s->tasks);
    }
    MPI_Finalize();
    free(s->done);
    free(s->attempts);
    free(s->failed_on);
    free(s->retryq);
    free(s->task_of);
    free(s->cmdbuf);
    free(s);
    return code;
}
