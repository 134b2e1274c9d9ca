/* mpiexec --monitor: the live view of a running job (monitor.c). The ranks' side is
 * src/tools/prof/prof_monitor.c (in libferry_prof.so); `ferry top` (tools/ferry/ferry_top.c)
 * attaches to the Unix socket. The wires are described at the top of monitor.c. */
#ifndef FY_MPX_MONITOR_H
#define FY_MPX_MONITOR_H

#include "mpiexec.h"

#include "fy_monitor_path.h"

/* --monitor (quiet: --monitor=quiet, only for ferry top): preloads libferry_prof.so, listens for
 * the ranks (as --check: 127.0.0.1 on one host, else the proxies' network) and for ferry top,
 * and adds FERRY_MONITOR_ADDR and FERRY_MONITOR_KEY to the ranks' environment. 0, or -1 with the
 * message printed. Uses the poll loop's server hooks (fy_mpx_check_hooks): not with --check. */
int fy_mpx_monitor_setup(fy_mpx_opts_t *o, int quiet, int remote, const char *iface, int all_here,
                         const char *first_remote);

/* After the job: the last block (printed unless quiet, and sent to ferry top's clients with the
 * job's exit status), then every socket closed and the Unix socket removed. */
void fy_mpx_monitor_close(int status);

#endif
