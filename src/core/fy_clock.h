/* The one clock of the library's waits, timers and calibration: monotonic nanoseconds. */
#ifndef FY_CLOCK_H
#define FY_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t fy_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
