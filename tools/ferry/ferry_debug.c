/* `ferry run --debug`: the flags of a sanitizer build, each rank's sanitizer settings, and the
 * reports read back after the job and told as one short message per rank, the way an
 * interpreter reports a run-time error:
 *
 *   rank 1: oob_stack.c:16:12: array index 10 is out of bounds of 'buf' (int [10])
 *      16 |         buf[i] = rank + i;
 *         |            ^
 *
 * The sanitizers write their reports to DIR/rank.<rank>.<pid> (log_path; the runtime adds the
 * pid). ferry_debug_read.c reads the first error of each file; here, one message per rank,
 * the same error at the same place told once in full, the source line with its caret, and
 * where the full reports are. */
#include "ferry_debug.h"
#include "ferry_debug_read.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* gcc 12, checked one by one:
 * - address,undefined: ASan (use-after-scope is on by default in gcc) and UBSan, whose
 *   "undefined" includes bounds (index out of a declared array), signed-integer-overflow,
 *   integer-divide-by-zero, null, alignment, shift, vla-bound, pointer-overflow;
 * - -fno-sanitize-recover=all: UBSan stops the rank at the first error (as ASan does) rather
 *   than printing and going on with a wrong value;
 * - -static-libasan -static-libubsan: with the two runtimes as shared libraries, libubsan's
 *   call to __sanitizer_set_report_path binds to libasan's copy, so UBSan ignores log_path and
 *   writes to stderr; linked into the program, each runtime keeps its own report file. Not
 *   when Ferry itself is a sanitizer build: its libmpi needs the shared runtime, and two ASan
 *   runtimes in one process refuse to start ("incompatible ASan runtimes"); there, UBSan's
 *   reports go to the ranks' stderr and only ASan's reach the report;
 * - -O0 -fno-omit-frame-pointer: every variable and line where the source has it, and the
 *   fast unwinder's stacks complete (no inlining happens at -O0, so -fno-inline adds nothing;
 *   object-size needs -O1 and is lost, bounds covers arrays of known size). */
#ifndef FY_BUILD_SANITIZE
#define FY_BUILD_SANITIZE 0
#endif
const char *const fy_debug_cflags[] = {
    "-g", "-O0", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
#if !FY_BUILD_SANITIZE
    "-static-libasan", "-static-libubsan",
#endif
    NULL,
};

/* ---------------------------------------------------------------------------------------- */
/* The ranks' settings */

/* The separators of the sanitizers' option strings. */
static int opt_sep(char c)
{
    return c == ':' || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Whether the option string `opts` sets `key` (values may be quoted). */
static int opts_have(const char *opts, const char *key, size_t klen)
{
    const char *p = opts;
    while (*p != '\0') {
        while (opt_sep(*p))
            p++;
        if (*p == '\0')
            break;
        const char *k = p;
        while (*p != '\0' && *p != '=' && !opt_sep(*p))
            p++;
        if ((size_t)(p - k) == klen && strncmp(k, key, klen) == 0)
            return 1;
        if (*p == '=') {
            p++;
            if (*p == '"' || *p == '\'') {
                char q = *p++;
                while (*p != '\0' && *p != q)
                    p++;
                if (*p == q)
                    p++;
            } else {
                while (*p != '\0' && !opt_sep(*p))
                    p++;
            }
        }
    }
    return 0;
}

/* Appends to the environment variable `var` each of `ours` ("key=value") whose key the user
 * did not set, and `forced` whatever they set (it comes last: the last setting wins). */
static void opts_merge(const char *var, const char *const *ours, const char *forced)
{
    const char *cur = getenv(var);
    size_t n = (cur != NULL ? strlen(cur) : 0) + strlen(forced) + 2;
    for (int i = 0; ours[i] != NULL; i++)
        n += strlen(ours[i]) + 1;
    char *s = malloc(n);
    if (s == NULL)
        return;
    size_t len = 0;
    if (cur != NULL && *cur != '\0')
        len += (size_t)snprintf(s, n, "%s", cur);
    s[len] = '\0';
    for (int i = 0; ours[i] != NULL; i++) {
        size_t klen = strcspn(ours[i], "=");
        if (cur == NULL || !opts_have(cur, ours[i], klen))
            len += (size_t)snprintf(s + len, n - len, "%s%s", len > 0 ? ":" : "", ours[i]);
    }
    snprintf(s + len, n - len, "%s%s", len > 0 ? ":" : "", forced);
    setenv(var, s, 1);
    free(s);
}

/* Our frames carry their module, so that the report can tell the program's frames from
 * Ferry's libmpi and libc whatever their file names. */
#define FY_DEBUG_FRAME_FORMAT "stack_trace_format='    #%n %p %F %S (%m+%o)'"

void fy_debug_rank_env(const char *dir, int rank)
{
    /* Made here too, so that a rank never fails for want of it (the runtime gives up on the
     * program when it cannot open its log). */
    mkdir(dir, 0700);
    size_t n = strlen(dir) + 64;
    char *logp = malloc(n);
    if (logp == NULL)
        return;
    /* Quoted, for a directory with ':' or spaces (the option separators). */
    char q = strchr(dir, '"') != NULL ? '\'' : '"';
    snprintf(logp, n, "log_path=%c%s/rank.%d%c", q, dir, rank, q);
    /* Leaks are the checker's business (MPI libraries keep memory to the end); the first
     * error stops the rank, which exits (abort_on_error=0: no core); abort() (a failed
     * assert) is reported with its stack; a local used after its function returned too. */
    static const char *const asan[] = {
        "detect_leaks=0", "halt_on_error=1", "abort_on_error=0", "symbolize=1",
        "print_summary=1", "handle_abort=1", "detect_stack_use_after_return=1",
        FY_DEBUG_FRAME_FORMAT, NULL,
    };
    static const char *const ubsan[] = {
        "print_stacktrace=1", "halt_on_error=1", "symbolize=1", "print_summary=1",
        "report_error_type=1", FY_DEBUG_FRAME_FORMAT, NULL,
    };
    opts_merge("ASAN_OPTIONS", asan, logp);
    opts_merge("UBSAN_OPTIONS", ubsan, logp);
    free(logp);
    /* When one rank fails, mpiexec sends the others SIGTERM, and SIGKILL 0.5 s later: a rank
     * that is writing its own report then would leave half of it. Blocked (the mask survives
     * exec), SIGTERM waits; the report is written in milliseconds, then SIGKILL ends the rank
     * if its error has not. */
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);
}

/* The source line with a caret under the column (or under the variable when the report names
 * one but gives no column), as compilers show it; nothing when the file cannot be read. */
static void print_snippet(FILE *out, const fy_debug_err_t *e)
{
    char src[4096];
    if (!fy_debug_source_line(e->file, e->line, src, sizeof src))
        return;
    int col = e->col;
    if (col <= 0 && e->name[0] != '\0') {
        int at = fy_debug_find_word(src, e->name);
        col = at >= 0 ? at + 1 : 0;
    }
    if (col > (int)strlen(src) + 1)
        col = 0;
    fprintf(out, "  %5d | %s\n", e->line, src);
    if (col > 0) {
        fprintf(out, "        | ");
        /* Tabs kept, so that the caret lines up however the terminal shows them. */
        for (int i = 0; i < col - 1; i++)
            fputc(src[i] == '\t' ? '\t' : ' ', out);
        fputs("^\n", out);
    }
}

typedef struct rep_file {
    int rank;
    long pid;
    char path[PATH_MAX];
} rep_file_t;

static int cmp_files(const void *a, const void *b)
{
    const rep_file_t *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* "rank.<R>.<pid>": 1 with both, else 0. */
static int report_name(const char *name, int *rank, long *pid)
{
    if (strncmp(name, "rank.", 5) != 0)
        return 0;
    char *end;
    errno = 0;
    long r = strtol(name + 5, &end, 10);
    if (end == name + 5 || *end != '.' || r < 0 || r > INT_MAX)
        return 0;
    const char *p = end + 1;
    long id = strtol(p, &end, 10);
    if (end == p || *end != '\0' || errno != 0)
        return 0;
    *rank = (int)r;
    *pid = id;
    return 1;
}

int fy_debug_report(const char *dir, FILE *out, bool keep)
{
    if (getcwd(fy_debug_cwd, sizeof fy_debug_cwd) == NULL)
        fy_debug_cwd[0] = '\0';
    DIR *d = opendir(dir);
    if (d == NULL) {
        fprintf(out, "ferry: cannot read the sanitizer reports in '%s': %s\n", dir,
                strerror(errno));
        return 0;
    }
    rep_file_t *files = NULL;
    int nf = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int rank;
        long pid;
        if (!report_name(de->d_name, &rank, &pid))
            continue;
        if (nf == cap) {
            cap = cap ? 2 * cap : 16;
            rep_file_t *nfp = realloc(files, (size_t)cap * sizeof *files);
            if (nfp == NULL)
                break;
            files = nfp;
        }
        files[nf].rank = rank;
        files[nf].pid = pid;
        snprintf(files[nf].path, sizeof files[nf].path, "%s/%s", dir, de->d_name);
        nf++;
    }
    closedir(d);
    if (nf == 0) {
        free(files);
        return 0;
    }
    qsort(files, (size_t)nf, sizeof *files, cmp_files);

    fy_debug_err_t *errs = calloc((size_t)nf, sizeof *errs);
    int ne = 0;
    for (int i = 0; errs != NULL && i < nf; i++) {
        /* One message per rank: its first file with an error (a rank's children write
         * files of their own). */
        if (ne > 0 && errs[ne - 1].rank == files[i].rank)
            continue;
        fy_debug_err_t *e = &errs[ne];
        memset(e, 0, sizeof *e);
        if (!fy_debug_read(files[i].path, e))
            continue;
        e->rank = files[i].rank;
        snprintf(e->path, sizeof e->path, "%s", files[i].path);
        ne++;
    }

    for (int i = 0; i < ne; i++) {
        fy_debug_err_t *e = &errs[i];
        char f[PATH_MAX];
        fy_debug_short_path(e->file, f, sizeof f);
        /* The same error at the same place as an earlier rank: one line. */
        const fy_debug_err_t *same = NULL;
        for (int j = 0; j < i && same == NULL; j++)
            if (strcmp(errs[j].kind, e->kind) == 0 && errs[j].line == e->line &&
                strcmp(errs[j].file, e->file) == 0 && e->line > 0)
                same = &errs[j];
        if (same != NULL) {
            fprintf(out, "rank %d: same error at %s:%d\n", e->rank, f, e->line);
        } else if (e->line <= 0) {
            fprintf(out, "rank %d: %s%s\n", e->rank, e->msg,
                    e->cut ? " (the report stops short: the rank was stopped while writing it)"
                           : " (no frame of the program on the stack)");
        } else {
            if (e->col > 0)
                fprintf(out, "rank %d: %s:%d:%d: %s\n", e->rank, f, e->line, e->col, e->msg);
            else
                fprintf(out, "rank %d: %s:%d: %s\n", e->rank, f, e->line, e->msg);
            print_snippet(out, e);
            if (e->where[0] != '\0')
                fprintf(out, "        = %s\n", e->where);
        }
    }
    if (ne > 0 && !keep) {
        fprintf(out, "(FERRY_DEBUG_KEEP=1 keeps the full sanitizer report%s)\n", ne > 1 ? "s" : "");
    } else if (ne > 0) {
        fprintf(out, "(full sanitizer report%s:", ne > 1 ? "s" : "");
        if (ne <= 4) {
            for (int i = 0; i < ne; i++)
                fprintf(out, " %s", errs[i].path);
        } else {
            fprintf(out, " %s/rank.*", dir);
        }
        fprintf(out, ")\n");
    }
    free(errs);
    free(files);
    return ne;
}
