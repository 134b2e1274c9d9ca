/* The values of mpiexec's --trace-* options, parsed the same way by mpiexec (which refuses bad
 * ones before starting the job) and by libferry_prof.so (which reads them from FERRY_TRACE_*
 * in each rank's environment). src/common: no libmpi. */
#ifndef FY_PROF_OPTS_H
#define FY_PROF_OPTS_H

#include <stdint.h>

/* "512", "64K", "10M", "1G" (powers of 1024; also KiB, MB ... spellings) into *bytes. 0, or -1
 * when s is not a size. */
int fy_prof_parse_size(const char *s, uint64_t *bytes);

/* "0-3,7": 0 when the list is well formed (*in says whether rank is in it), else -1. */
int fy_prof_parse_ranks(const char *s, int rank, int *in);

/* "START:END" in seconds (END may be empty: to the end), START <= END: 0, or -1. */
int fy_prof_parse_window(const char *s, double *start, double *end);

#endif
