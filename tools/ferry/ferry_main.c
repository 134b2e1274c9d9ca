/* `ferry`: the front door to Ferry's tools. Subcommands: info, run (and _exec, run's per-rank
 * entry), farm (and _farm-rank, its ranks), view, top, portal; _debug-* for the tests of run
 * --debug. */
#include <stdio.h>
#include <string.h>

#include "ferry.h"
#include "ferry_run.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: ferry info [--json]   the version, the build, every control variable (the\n"
               "                             FERRY_* knobs) with its value, every performance\n"
               "                             variable and category\n"
               "       ferry run [mpiexec options] [compiler flags] prog.c [more.c] [-- args]\n"
               "                             compile (once, cached) and run a C/C++ MPI program\n"
               "                             (ferry run --help for more)\n"
               "       ferry farm TASKFILE [mpiexec options] [--retries N] [--resume] ...\n"
               "                             run each line of TASKFILE as a command over the\n"
               "                             ranks of a job (ferry farm --help)\n"
               "       ferry run --debug ...    the same with AddressSanitizer and UBSan: errors\n"
               "                             as one message per rank (file, line, variable)\n"
               "       ferry run --check ...    the same under the MPI correctness checker\n"
               "                             (mpiexec --check: deadlocks, type and collective\n"
               "                             mismatches, leaks, freed handles, buffers)\n"
               "       ferry view DIR [-o FILE.html] [--perfetto FILE.json] [--png OUTDIR]\n"
               "                             the trace of mpiexec --trace DIR as one HTML page\n"
               "                             (timeline, profile, matrix, message sizes)\n"
               "       ferry top [-n N] [-l] [PID]\n"
               "                             the live view of a job started with mpiexec\n"
               "                             --monitor: a line per rank, once a second\n"
               "       ferry portal [--config FILE] [--listen HOST:PORT] [--state DIR] [--demo]\n"
               "                             the web portal: write, run and watch MPI programs\n"
               "                             from a browser (scripts/install-portal.sh first;\n"
               "                             ferry portal --help)\n"
               "       ferry --version\n"
               "The manual: docs/ferry.md in Ferry's sources.\n");
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "run") == 0)
        return fy_tool_run(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "_exec") == 0)
        return fy_tool_run_exec(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "info") == 0)
        return fy_tool_info(argc - 1, argv + 1);
    if (argc >= 2 && strncmp(argv[1], "_debug-", 7) == 0)
        return fy_tool_debug(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "farm") == 0)
        return fy_tool_farm(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "view") == 0)
        return fy_tool_view(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "_farm-rank") == 0)
        return fy_tool_farm_rank(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "top") == 0)
        return fy_tool_top(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "portal") == 0)
        return fy_tool_portal(argc - 1, argv + 1);
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("ferry %s\n", FY_VERSION);
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc >= 2)
        fprintf(stderr, "ferry: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
