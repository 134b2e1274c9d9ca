/*
 * bench_opt.h - the benchmarks' helpers that need no MPI: option parsing (one table per
 * program, parsed here once), percentiles and batch statistics.
 *
 * Included by bench_common.h for the MPI programs, and on its own by the programs that run
 * without MPI (sockpp.c, the link's limits between test hosts). Standard C11 plus POSIX.
 */
#ifndef FY_BENCH_OPT_H
#define FY_BENCH_OPT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Parses a byte count with an optional K/M/G suffix (binary: 4M = 4 MiB).
 * Returns 0 on success and stores the value in *out_p; -1 on bad input. */
static inline int bench_parse_size(const char *s, size_t *out_p)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default: break;
    }
    if (*end != '\0')
        return -1;
    *out_p = (size_t)v;
    return 0;
}

/* Parses a positive int; returns 0 on success, -1 on bad input. */
static inline int bench_parse_int(const char *s, int *out_p)
{
    char *end = NULL;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 0 || v > 1000000000L)
        return -1;
    *out_p = (int)v;
    return 0;
}

/* Parses a non-negative number of seconds (may be fractional). */
static inline int bench_parse_seconds(const char *s, double *out_p)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || v < 0.0)
        return -1;
    *out_p = v;
    return 0;
}

/* One command-line option of a benchmark: its letter, what it holds and where to store it.
 * The benchmarks' options differ only in these tables; the parsing lives here once. */
typedef enum bench_optkind {
    BENCH_OPT_FLAG,    /* no argument: *(int *)dst = 1 */
    BENCH_OPT_INT,     /* a non-negative int >= min: *(int *)dst */
    BENCH_OPT_SIZE,    /* bytes with K/M/G suffix, >= min: *(size_t *)dst */
    BENCH_OPT_SECONDS, /* non-negative, fractional: *(double *)dst */
    BENCH_OPT_STRING,  /* any word: *(const char **)dst = the argument itself */
} bench_optkind_t;

typedef struct bench_opt {
    char letter;
    bench_optkind_t kind;
    void *dst;
    long min; /* the smallest accepted value (INT and SIZE) */
} bench_opt_t;

/* Parses argv with getopt() against opts[0..n-1]; -h, an unknown letter or a bad value
 * returns -1 (the caller prints its usage), else 0. Values not given keep their defaults. */
static inline int bench_getopt(int argc, char **argv, const bench_opt_t *opts, int n)
{
    char spec[2 * 64 + 2];
    int len = 0;
    for (int i = 0; i < n && i < 64; i++) {
        spec[len++] = opts[i].letter;
        if (opts[i].kind != BENCH_OPT_FLAG)
            spec[len++] = ':';
    }
    spec[len++] = 'h';
    spec[len] = '\0';
    int c;
    while ((c = getopt(argc, argv, spec)) != -1) {
        const bench_opt_t *o = NULL;
        for (int i = 0; i < n; i++)
            if (opts[i].letter == c)
                o = &opts[i];
        if (o == NULL)
            return -1;
        switch (o->kind) {
        case BENCH_OPT_FLAG: *(int *)o->dst = 1; break;
        case BENCH_OPT_INT: {
            int v;
            if (bench_parse_int(optarg, &v) || v < o->min)
                return -1;
            *(int *)o->dst = v;
            break;
        }
        case BENCH_OPT_SIZE: {
            size_t v;
            if (bench_parse_size(optarg, &v) || v < (size_t)o->min)
                return -1;
            *(size_t *)o->dst = v;
            break;
        }
        case BENCH_OPT_SECONDS:
            if (bench_parse_seconds(optarg, (double *)o->dst))
                return -1;
            break;
        case BENCH_OPT_STRING: *(const char **)o->dst = optarg; break;
        }
    }
    return 0; /* operands after the options are ignored, as they always were */
}

/* The p-th percentile (0..100) of v[0..n-1], already sorted ascending (n >= 1), by linear
 * interpolation between the closest ranks. */
static inline double bench_percentile(const double *v, int n, double p)
{
    double pos = p / 100.0 * (n - 1);
    int lo = (int)pos;
    if (lo >= n - 1)
        return v[n - 1];
    return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

/* p10, p50 and p90 of v[0..n-1] (sorts v in place): the spread of single operations, which
 * shows a bimodal distribution (a run that switches between a fast and a slow mode) that a
 * median of batches hides. */
static inline void bench_p10_50_90(double *v, int n, double out[3])
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    out[0] = bench_percentile(v, n, 10);
    out[1] = bench_percentile(v, n, 50);
    out[2] = bench_percentile(v, n, 90);
}

/* Median, minimum and mean of v[0..n-1] (n >= 1); sorts v in place. */
static inline void bench_stats(double *v, int n, double *median_p, double *min_p, double *mean_p)
{
    double sum = 0.0;
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    for (int i = 0; i < n; i++)
        sum += v[i];
    *median_p = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
    *min_p = v[0];
    *mean_p = sum / n;
}

/* Iterations for a message of `size` bytes: `base` up to `from` bytes, then proportionally
 * fewer (the same bytes moved per size), never below `floor_value`. */
static inline int bench_scaled(int base, size_t size, size_t from, int floor_value)
{
    if (size <= from)
        return base;
    long long n = (long long)base * (long long)from / (long long)size;
    return n < floor_value ? floor_value : (int)n;
}

#endif /* FY_BENCH_OPT_H */
