/* A minimal harness for the unit tests: each program lists its cases in a table, runs them all
 * in order, prints one line per case and exits 0 only when every case passed.
 *
 *   static int test_something(void) { CHECK(x == 1); CHECK_EQ(y, 2); return 0; }
 *   static const unit_case_t cases[] = { {"something", test_something}, ... };
 *   int main(void) { return unit_run(cases, UNIT_COUNT(cases)); }
 *
 * A case returns 0 on success; CHECK* print where and why, then return 1 from the case.
 * There is no way to skip a case: a test that cannot pass yet fails. */
#ifndef FY_UNIT_H
#define FY_UNIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct unit_case {
    const char *name;
    int (*fn)(void);
} unit_case_t;

/* Payload bytes derived from a seed and the position, so that a record shifted, truncated or
 * swapped with another is caught (the shared-memory queue tests). */
static inline uint8_t unit_pat(uint64_t seed, size_t i)
{
    uint64_t w = (seed + 1) * 0x9E3779B97F4A7C15ull + (uint64_t)(i / 8) * 0xD1B54A32D192ED03ull;
    w ^= w >> 29;
    return (uint8_t)(w >> ((i % 8) * 8));
}

#define UNIT_COUNT(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Integer comparison that prints both values. */
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long va_ = (long long)(a), vb_ = (long long)(b);                                      \
        if (va_ != vb_) {                                                                          \
            fprintf(stderr, "  %s:%d: check failed: %s == %s (%lld != %lld)\n", __FILE__,          \
                    __LINE__, #a, #b, va_, vb_);                                                   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Propagates the failure of a helper that follows the same convention. */
#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        if ((call) != 0) {                                                                         \
            fprintf(stderr, "  %s:%d: from here: %s\n", __FILE__, __LINE__, #call);                \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static inline double unit_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs every case; `before_each` (may be NULL) restores a clean state, so that one failing
 * case does not make the following ones fail too. */
static inline int unit_run_with(const unit_case_t *cases, size_t n, void (*before_each)(void))
{
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        if (before_each)
            before_each();
        fflush(stderr);
        double t0 = unit_now();
        int rc = cases[i].fn();
        fflush(stderr);
        printf("%s %s (%.3f s)\n", rc == 0 ? "PASS" : "FAIL", cases[i].name, unit_now() - t0);
        fflush(stdout);
        failed += rc != 0;
    }
    printf("%zu passed, %d failed\n", n - (size_t)failed, failed);
    return failed ? 1 : 0;
}

static inline int unit_run(const unit_case_t *cases, size_t n)
{
    return unit_run_with(cases, n, NULL);
}

#endif
