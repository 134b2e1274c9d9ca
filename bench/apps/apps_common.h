/*
 * apps_common.h - helpers shared by the application benchmarks in bench/apps.
 *
 * Standard C11 + MPI only, so every program builds unchanged against Ferry,
 * MPICH and Open MPI. Everything is static so each benchmark stays one
 * translation unit.
 *
 * Conventions of every program here:
 *   - MPI_ERRORS_RETURN is set on MPI_COMM_WORLD and every MPI call is checked
 *     with APP_CHECK. A call failing with error class
 *     MPI_ERR_UNSUPPORTED_OPERATION makes the benchmark report
 *     "status=unsupported" (and no time); any other error aborts the job.
 *   - With -m one line per measurement:
 *       RESULT bench=<name> ranks=<n> size=<size> value=<seconds> unit=s
 * status=<ok|FAILED|unsupported> [k=v ...] Other lines in -m mode start with '#'.
 *   - Verification failures print "VERIFICATION FAILED" on stderr and
 *     status=FAILED; the exit status is then 1.
 */
#ifndef FY_BENCH_APPS_COMMON_H
#define FY_BENCH_APPS_COMMON_H

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returned by app_check when the MPI reported MPI_ERR_UNSUPPORTED_OPERATION. */
#define APP_UNSUPPORTED 1

typedef struct app_opts {
    int machine;   /* -m */
    int quick;     /* -q */
    long n;        /* -n, 0 = program default */
    const char *p; /* -p, program specific (gauss: rows|cols|cyclic) */
    long k;        /* -k, program specific secondary size, 0 = default */
    long w;        /* -w, program specific, 0 = default */
} app_opts_t;

static int app_rank, app_size;
static const char *app_name = "app";
static const char *app_unsupported_call; /* first MPI call that was unsupported */

/* Checks an MPI return code. Returns 0 on success and APP_UNSUPPORTED when
 * the operation is not supported; aborts the job on any other error. */
static inline int app_check(int rc, const char *call, int line)
{
    if (rc == MPI_SUCCESS)
        return 0;
    int cls = rc, len = 0;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "(no message)");
    if (cls == MPI_ERR_UNSUPPORTED_OPERATION) {
        if (!app_unsupported_call)
            app_unsupported_call = call;
        return APP_UNSUPPORTED;
    }
    fprintf(stderr, "%s: rank %d: %s failed at line %d: class %d: %s\n", app_name, app_rank, call,
            line, cls, msg);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return -1;
}

/* Evaluates an MPI call; on "unsupported" jumps to the label `unsupported`
 * that every program defines in the function using it. */
#define APP_CHECK(call)                                                                            \
    do {                                                                                           \
        if (app_check((call), #call, __LINE__) == APP_UNSUPPORTED)                                 \
            goto unsupported;                                                                      \
    } while (0)

static inline void *app_alloc(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (!p) {
        fprintf(stderr, "%s: rank %d: cannot allocate %zu bytes\n", app_name, app_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static inline int app_parse_long(const char *s, long *out_p)
{
    char *end = NULL;
    double v = strtod(s, &end); /* accepts 1e6 */
    if (end == s || *end != '\0' || v < 1 || v > 9e15)
        return -1;
    *out_p = (long)v;
    return 0;
}

/* Parses -m -q -n N -p S -k K -w W. Returns 0, or -1 after printing usage. */
static inline int app_parse(int argc, char **argv, const char *usage, app_opts_t *opt_p)
{
    app_opts_t o = {0, 0, 0, NULL, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int needs = (!strcmp(a, "-n") || !strcmp(a, "-p") || !strcmp(a, "-k") || !strcmp(a, "-w"));
        if (needs && i + 1 >= argc)
            goto bad;
        if (!strcmp(a, "-m"))
            o.machine = 1;
        else if (!strcmp(a, "-q"))
            o.quick = 1;
        else if (!strcmp(a, "-n")) {
            if (app_parse_long(argv[++i], &o.n))
                goto bad;
        } else if (!strcmp(a, "-k")) {
            if (app_parse_long(argv[++i], &o.k))
                goto bad;
        } else if (!strcmp(a, "-w")) {
            if (app_parse_long(argv[++i], &o.w))
                goto bad;
        } else if (!strcmp(a, "-p"))
            o.p = argv[++i];
        else
            goto bad;
    }
    *opt_p = o;
    return 0;
bad:
    if (app_rank == 0)
        fprintf(stderr, "usage: %s %s\n", app_name, usage);
    return -1;
}

/* MPI_Init, MPI_ERRORS_RETURN, rank and size. */
static inline void app_init(int *argc, char ***argv, const char *name)
{
    app_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &app_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &app_size);
}

/* Rank 0 prints a result: a human line, and with -m the RESULT line.
 * `extra` is " key=value ..." (may be empty). */
static inline void app_report(const app_opts_t *o, long size, double seconds, int ok,
                              const char *extra)
{
    if (app_rank != 0)
        return;
    const char *status = ok ? "ok" : "FAILED";
    if (!ok)
        fprintf(stderr, "%s: VERIFICATION FAILED (ranks=%d size=%ld)\n", app_name, app_size, size);
    if (o->machine)
        printf("RESULT bench=%s ranks=%d size=%ld value=%.6g unit=s status=%s%s\n", app_name,
               app_size, size, seconds, status, extra ? extra : "");
    else
        printf("%s: ranks=%d size=%ld time=%.6g s verification=%s%s\n", app_name, app_size, size,
               seconds, ok ? "passed" : "FAILED", extra ? extra : "");
    fflush(stdout);
}

/* Rank 0 reports that the MPI does not support an operation the benchmark
 * needs; never prints a time. */
static inline void app_report_unsupported(const app_opts_t *o, long size, const char *extra)
{
    if (app_rank != 0)
        return;
    const char *call = app_unsupported_call ? app_unsupported_call : "an MPI operation";
    if (o->machine) {
        printf("# %s: not run: %.*s returned MPI_ERR_UNSUPPORTED_OPERATION\n", app_name,
               (int)strcspn(call, "("), call);
        printf("RESULT bench=%s ranks=%d size=%ld value=nan unit=s status=unsupported%s\n",
               app_name, app_size, size, extra ? extra : "");
    } else {
        printf("%s: ranks=%d size=%ld unsupported: %.*s returned MPI_ERR_UNSUPPORTED_OPERATION\n",
               app_name, app_size, size, (int)strcspn(call, "("), call);
    }
    fflush(stdout);
}

/* Comment line (with -m prefixed by '#'), rank 0 only. */
static inline void app_note(const app_opts_t *o, const char *fmt, ...)
{
    if (app_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs(o->machine ? "# " : "", stdout);
    vprintf(fmt, ap);
    va_end(ap);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Deterministic pseudo-random numbers from a 64-bit key (splitmix64), so any
 * rank can regenerate any matrix entry or particle without communication. */
static inline uint64_t app_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1) from two keys. */
static inline double app_rand2(uint64_t a, uint64_t b)
{
    uint64_t z = app_mix64(app_mix64(a) ^ (b * 0xd1b54a32d192ed03ULL));
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

#endif
