/* `ferry farm`: what its parts share. ferry_farm.c is the front (options, the task file checked,
 * --dry-run, then exec of mpiexec); ferry_farm_rank.c is the MPI program each rank runs
 * (`ferry _farm-rank`: rank 0 dispatches and records, the others run tasks) on ferry/farm.h;
 * ferry_farm_tasks.c reads task files and results files and writes records;
 * ferry_farm_exec.c runs one task line under a time limit. */
#ifndef FERRY_FARM_TOOL_H
#define FERRY_FARM_TOOL_H

#include <stddef.h>

/* A task line longer than this (after joining continued lines) is refused. Far below the
 * kernel's limit on one argument (128 KiB), which `sh -c LINE` must respect. */
#define FY_FARM_LINE_MAX 65536

/* Exit statuses of `ferry farm`. */
#define FY_FARM_EXIT_OK 0
#define FY_FARM_EXIT_FAILED 1
#define FY_FARM_EXIT_USAGE 2
#define FY_FARM_EXIT_INTERRUPTED 130

typedef struct fy_farm_task {
    char *cmd;   /* the command line, continuation lines joined */
    long line;   /* its first line in the task file */
} fy_farm_task_t;

typedef struct fy_farm_tasks {
    fy_farm_task_t *v;
    long n;
} fy_farm_tasks_t;

/* Reads a task file: blank lines and lines starting with '#' (after blanks) are skipped, a line
 * ending with '\' continues on the next, a trailing CR is dropped. A line with a NUL byte, a
 * control character, invalid UTF-8 or more than FY_FARM_LINE_MAX bytes is an error: the
 * message names the file and the line (prefixed with `who`), and -1 is returned. */
int fy_farm_tasks_read(const char *who, const char *path, fy_farm_tasks_t *tasks_p);
void fy_farm_tasks_free(fy_farm_tasks_t *tasks);

/* The outcome of one task, as recorded. */
enum fy_farm_status { FY_FARM_OK, FY_FARM_FAILED, FY_FARM_TIMEOUT, FY_FARM_SKIPPED };
const char *fy_farm_status_name(int status);

typedef struct fy_farm_record {
    long task;        /* 1-based number of the task in the file */
    long line;
    int status;       /* enum fy_farm_status */
    int exit_code;    /* when it exited, else -1 */
    int signal;       /* when killed, else 0 */
    int attempts;
    double start;     /* seconds since the epoch, of the last attempt */
    double seconds;   /* its wall time */
    const char *host;
    int rank;
    const char *cmd;
} fy_farm_record_t;

/* Results files: CSV (a header line, then one line per record), or JSON lines when the name
 * ends with .json or .jsonl. */
int fy_farm_results_is_json(const char *path);
/* Formats one record (with its newline) into buf; returns its length, or -1 if it did not fit. */
int fy_farm_record_format(const fy_farm_record_t *r, int json, char *buf, size_t size);
const char *fy_farm_results_header(void);

/* For --resume: reads a results file and sets done[i] = 1 for each task i (0-based) whose last
 * record says ok. A record whose command differs from the task file's is an error (the task
 * file changed), and so is a file whose first line is not ours: message, -1. A record cut
 * short by a crash is ignored with a warning. A missing file reads as empty. *nrecords_p counts the records
 * read; *needs_newline_p is 1 when the file ends without a newline (a cut record). */
int fy_farm_results_read(const char *who, const char *path, const fy_farm_tasks_t *tasks,
                         unsigned char *done, long *nrecords_p, int *needs_newline_p);

/* Running one task (ferry_farm_exec.c). */
typedef struct fy_farm_run {
    int status;     /* FY_FARM_OK, FY_FARM_FAILED, FY_FARM_TIMEOUT; -1: interrupted */
    int exit_code;  /* -1 when killed */
    int signal;
    double start, seconds;
} fy_farm_run_t;

/* Installs the handlers that let a task wait be interrupted (SIGINT, SIGTERM, SIGCHLD). */
int fy_farm_exec_init(void);
/* 1 once SIGINT or SIGTERM arrived. */
int fy_farm_exec_interrupted(void);
/* Runs `cmd` (directly when it is a simple command, else with /bin/sh -c) in a process group
 * of its own, stdin from /dev/null, stdout/stderr inherited or to out/err files when given,
 * with our environment plus extra_env (NAME=VALUE strings, NULL-terminated; may be NULL).
 * Kills the group (SIGTERM, then SIGKILL) after timeout seconds (0 = none) or when
 * interrupted. `use_shell` forces /bin/sh. */
void fy_farm_exec_run(const char *cmd, char *const *extra_env, double timeout, int use_shell,
                      const char *out_path, const char *err_path, fy_farm_run_t *run);
/* 1 if cmd needs a shell (metacharacters, a builtin or keyword first). */
int fy_farm_exec_needs_shell(const char *cmd);

double fy_farm_now(void);

/* The MPI side: `ferry _farm-rank ...` (ferry_farm_rank.c). */
int fy_tool_farm_rank(int argc, char **argv);

#endif
