/* Hidden subcommands that expose ferry_debug.c to the tests without `ferry run`:
 *
 *   ferry _debug-cflags                     the debug build's flags, one line
 *   ferry _debug-env DIR [RANK] -- PROG...  sets a rank's sanitizer settings (RANK, else
 *                                           PMI_RANK from mpiexec) and execs PROG
 *   ferry _debug-report DIR                 prints DIR's reports; exits 1 when any rank had
 *                                           one, 0 when none */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ferry.h"
#include "ferry_debug.h"

static int parse_rank(const char *cmd, const char *what, const char *s, int *rank)
{
    char *end;
    errno = 0;
    long v = s != NULL ? strtol(s, &end, 10) : 0;
    if (s == NULL || *s == '\0' || *end != '\0' || errno != 0 || v < 0 || v > INT_MAX) {
        fprintf(stderr, "ferry %s: %s must be a rank (an integer >= 0), not '%s'\n", cmd, what,
                s != NULL ? s : "(unset)");
        return -1;
    }
    *rank = (int)v;
    return 0;
}

static int debug_env(int argc, char **argv)
{
    const char *usage = "usage: ferry _debug-env DIR [RANK] -- PROG [ARGS...]\n";
    if (argc < 4) {
        fputs(usage, stderr);
        return 2;
    }
    int rank, at;
    if (strcmp(argv[2], "--") == 0) {
        if (parse_rank(argv[0], "PMI_RANK", getenv("PMI_RANK"), &rank) != 0)
            return 2;
        at = 3;
    } else {
        if (parse_rank(argv[0], "RANK", argv[2], &rank) != 0)
            return 2;
        if (strcmp(argv[3], "--") != 0 || argc < 5) {
            fputs(usage, stderr);
            return 2;
        }
        at = 4;
    }
    fy_debug_rank_env(argv[1], rank);
    execvp(argv[at], argv + at);
    fprintf(stderr, "ferry %s: cannot run '%s': %s\n", argv[0], argv[at], strerror(errno));
    return 127;
}

int fy_tool_debug(int argc, char **argv)
{
    if (strcmp(argv[0], "_debug-cflags") == 0 && argc == 1) {
        for (int i = 0; fy_debug_cflags[i] != NULL; i++)
            printf("%s%s", i > 0 ? " " : "", fy_debug_cflags[i]);
        printf("\n");
        return 0;
    }
    if (strcmp(argv[0], "_debug-env") == 0)
        return debug_env(argc, argv);
    if (strcmp(argv[0], "_debug-report") == 0 && argc == 2)
        return fy_debug_report(argv[1], stdout, true) > 0 ? 1 : 0;
    fprintf(stderr, "usage: ferry _debug-cflags | _debug-env DIR [RANK] -- PROG [ARGS...] | "
                    "_debug-report DIR\n");
    return 2;
}
