/* The --trace-* option values (fy_prof_opts.h). */
#include "fy_prof_opts.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int fy_prof_parse_size(const char *s, uint64_t *bytes)
{
    char *end;
    errno = 0;
    if (s == NULL || *s == '\0' || *s == '-')
        return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    uint64_t mult = 1;
    if (*end != '\0') {
        char u = (char)(*end | 0x20);
        mult = u == 'k' ? 1ull << 10 : u == 'm' ? 1ull << 20 : u == 'g' ? 1ull << 30 :
               u == 't' ? 1ull << 40 : 0;
        if (mult == 0)
            return -1;
        const char *rest = end + 1;
        if (*rest != '\0' && strcasecmp(rest, "b") != 0 && strcasecmp(rest, "ib") != 0 &&
            strcasecmp(rest, "ib") != 0)
            return -1;
    }
    if (v > UINT64_MAX / mult)
        return -1;
    *bytes = (uint64_t)v * mult;
    return 0;
}

int fy_prof_parse_ranks(const char *s, int rank, int *in)
{
    *in = 0;
    if (s == NULL || *s == '\0')
        return -1;
    const char *p = s;
    for (;;) {
        char *end;
        errno = 0;
        long lo = strtol(p, &end, 10), hi;
        if (end == p || errno != 0 || lo < 0 || *p == '-' || *p == '+')
            return -1;
        hi = lo;
        p = end;
        if (*p == '-') {
            p++;
            hi = strtol(p, &end, 10);
            if (end == p || errno != 0 || hi < lo || *p == '-' || *p == '+')
                return -1;
            p = end;
        }
        if (rank >= lo && rank <= hi)
            *in = 1;
        if (*p == '\0')
            return 0;
        if (*p != ',')
            return -1;
        p++;
    }
}

int fy_prof_parse_window(const char *s, double *start, double *end)
{
    if (s == NULL)
        return -1;
    const char *colon = strchr(s, ':');
    if (colon == NULL || colon == s)
        return -1;
    char *e;
    errno = 0;
    double a = strtod(s, &e);
    if (e != colon || errno != 0 || !(a >= 0) || isinf(a))
        return -1;
    double b = INFINITY;
    if (colon[1] != '\0') {
        b = strtod(colon + 1, &e);
        if (*e != '\0' || errno != 0 || !(b >= a))
            return -1;
    }
    *start = a;
    *end = b;
    return 0;
}
