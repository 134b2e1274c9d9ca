/* The recorder's clock. The time stamp counter when the processor says it runs at a constant
 * rate through sleep states (constant_tsc and nonstop_tsc in /proc/cpuinfo): about 10 ns a
 * read on this machine, against about 23 ns for clock_gettime(CLOCK_MONOTONIC) through the
 * vDSO; else CLOCK_MONOTONIC in nanoseconds (one tick a nanosecond). The counter's rate is
 * measured against CLOCK_MONOTONIC over a few milliseconds at MPI_Init. */
#include "prof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool prof_use_tsc;
static double ticks_per_ns = 1.0;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t prof_ticks(void)
{
    return prof_use_tsc ? __rdtsc() : mono_ns();
}

double prof_ticks_per_ns(void)
{
    return ticks_per_ns;
}

static bool tsc_is_steady(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return false;
    char line[8192];
    bool constant = false, nonstop = false;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    return constant && nonstop;
}

void prof_clock_init(void)
{
    const char *force = getenv("FERRY_PROF_CLOCK"); /* "monotonic": the fallback, for tests */
    prof_use_tsc = tsc_is_steady() && !(force != NULL && strcmp(force, "monotonic") == 0);
    if (!prof_use_tsc) {
        ticks_per_ns = 1.0;
        return;
    }
    /* Two pairs 5 ms apart, each read between two monotonic reads close together. */
    uint64_t n0, n1, c0, c1;
    struct timespec pause = {0, 5000000};
    uint64_t a = mono_ns();
    c0 = __rdtsc();
    n0 = (a + mono_ns()) / 2;
    nanosleep(&pause, NULL);
    a = mono_ns();
    c1 = __rdtsc();
    n1 = (a + mono_ns()) / 2;
    ticks_per_ns = n1 > n0 && c1 > c0 ? (double)(c1 - c0) / (double)(n1 - n0) : 1.0;
}
