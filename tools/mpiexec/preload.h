/* Tool libraries preloaded into the ranks (--check: libferry_check.so; --profile, --trace,
 * --monitor: libferry_prof.so) and the variables they are told things by: one way of doing
 * it for all of them (preload.c). */
#ifndef FY_MPX_PRELOAD_H
#define FY_MPX_PRELOAD_H

#include "mpiexec.h"

#include <stddef.h>

/* Adds name=value to e. 0, or -1 (memory). */
int fy_mpx_env_add(fy_mpx_env_t *e, const char *name, const char *value);
/* The ranks' value of a variable: the user's -genv/-x of it if given (*at its index in o->env),
 * else ours (NULL with -genvnone). */
const char *fy_mpx_env_user(const fy_mpx_opts_t *o, const char *name, int *at);
/* Sets name=value for the ranks in place of the user's -genv of it (at >= 0), if any. */
int fy_mpx_env_set(fy_mpx_env_t *e, int at, const char *name, const char *value);

/* <dir of mpiexec>/../lib/<name> into out; -1 with a message naming `opt` and `what` ("the
 * checker library") when it is not there. */
int fy_mpx_tool_lib(const char *opt, const char *what, const char *name, char *out, size_t len);
/* Puts lib in front of the ranks' LD_PRELOAD (the user's kept after it; nothing done when an
 * earlier call put it there already). A program built with
 * AddressSanitizer refuses to start when its runtime is not the first library loaded; it works
 * with ours in front, so it is told not to check. 0, or -1 (memory). */
int fy_mpx_preload(fy_mpx_opts_t *o, const char *lib);

#endif
