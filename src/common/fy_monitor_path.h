/* Where mpiexec --monitor's Unix sockets live, for mpiexec (tools/mpiexec/monitor.c, which
 * listens) and `ferry top` (tools/ferry/ferry_top.c, which attaches): one socket per monitored
 * job, <dir>/monitor.<mpiexec's pid>.sock, dir = ${XDG_RUNTIME_DIR:-/tmp}/ferry-<uid> (0700).
 * The first line a client reads starts with FY_MONITOR_TOP_PROTO (monitor.c has the rest). */
#ifndef FY_MONITOR_PATH_H
#define FY_MONITOR_PATH_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FY_MONITOR_TOP_PROTO "FERRY-TOP"
#define FY_MONITOR_SOCK_PREFIX "monitor."
#define FY_MONITOR_SOCK_SUFFIX ".sock"

/* The directory's path into out; 0, or -1 when it does not fit. */
static inline int fy_monitor_dir(char *out, size_t len)
{
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (base == NULL || *base != '/')
        base = "/tmp";
    int n = snprintf(out, len, "%s/ferry-%u", base, (unsigned)getuid());
    return n > 0 && (size_t)n < len ? 0 : -1;
}

#endif
