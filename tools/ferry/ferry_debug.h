/* `ferry run --debug`: a build with -g and AddressSanitizer+UndefinedBehaviorSanitizer, and its
 * reports turned into one short message per rank naming the file, line and variable, the way an
 * interpreter reports a run-time error (ferry_debug.c). */
#ifndef FERRY_DEBUG_H
#define FERRY_DEBUG_H

#include <stdbool.h>
#include <stdio.h>

/* The compiler flags of a debug build, NULL-terminated (added after the user's flags). */
extern const char *const fy_debug_cflags[];

/* In a rank's own process, before it execs the program: sets ASAN_OPTIONS and UBSAN_OPTIONS
 * (keeping what the user set, except log_path) so that the rank's reports go to files
 * DIR/rank.<rank>.* and the first error stops the rank. Also makes DIR if it is missing, and
 * blocks SIGTERM (the mask survives exec): when another rank fails first, mpiexec's SIGTERM
 * would cut this rank's report in half; its SIGKILL 0.5 s later still ends the rank. */
void fy_debug_rank_env(const char *dir, int rank);

/* After the job: reads DIR's reports and prints to `out` one short message per rank that had
 * one (file:line, what happened, which variable, the source line with a caret), then the full
 * reports' paths when `keep` (the caller leaves DIR in place), else how to keep them. Returns
 * the number of ranks reported. Paths below the current directory are shown relative to it:
 * call it from the directory the job ran in. */
int fy_debug_report(const char *dir, FILE *out, bool keep);

#endif
