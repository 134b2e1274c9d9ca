/* What a rank's memory costs, read from /proc (tests/shm: wide_hello.c, wide_coll.c):
 * segment() gives the size of the Ferry segment mapped here and this rank's proportional
 * resident share (Pss) of it (summed over ranks: the segment's pages in memory); field()
 * reads one number from a /proc file (Pss of smaps_rollup, VmHWM of status). */
#ifndef FY_TEST_FOOTPRINT_H
#define FY_TEST_FOOTPRINT_H

#include <stdio.h>
#include <string.h>

static void segment(long long *size_kb, long long *pss_kb)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4096];
    int in = 0;
    unsigned long lo, hi;
    *size_kb = *pss_kb = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '/') != NULL) {
            in = strstr(line, "/dev/shm/fy-") != NULL;
            if (in)
                *size_kb += (long long)(hi - lo) >> 10;
        } else if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            in = 0;
        } else if (in && strncmp(line, "Pss:", 4) == 0) {
            long long v;
            if (sscanf(line + 4, "%lld", &v) == 1)
                *pss_kb += v;
        }
    }
    if (f)
        fclose(f);
}

static long long field(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    char line[512];
    long long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0)
            sscanf(line + n, "%lld", &v);
    if (f)
        fclose(f);
    return v;
}

#endif
