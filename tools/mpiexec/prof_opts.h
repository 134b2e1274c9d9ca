/* mpiexec --profile, --trace DIR and --trace-calls/-ranks/-window/-max (prof_opts.c): they
 * preload libferry_prof.so (src/tools/prof) and tell it what to do by FERRY_PROFILE and
 * FERRY_TRACE_* in the ranks' environment. */
#ifndef FY_MPX_PROF_OPTS_H
#define FY_MPX_PROF_OPTS_H

#include "mpiexec.h"

/* One of the options (its name without dashes: "profile", "trace", "trace-calls" ...) and its
 * value (NULL for --profile). 0, or -1 with the message in err. */
int fy_mpx_prof_option(const char *name, const char *val, char *err, size_t len);
/* After the command line: checks the values, refuses --check with these, makes the trace
 * directory (refusing one that exists or cannot be made) and sets the ranks' environment.
 * Also --profile when FERRY_PROFILE=1 is in our environment. 0 (nothing asked, or done), or
 * -1 with the message printed. */
int fy_mpx_prof_setup(fy_mpx_opts_t *o, int check);
/* After the job, however it ended: the raw trace converted to OTF2 by ferry-otf2 (next to
 * mpiexec), or a note when that is not there. */
void fy_mpx_prof_finish(void);

#endif
