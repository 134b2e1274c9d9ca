/* The subcommands of `ferry` (ferry_main.c dispatches). Each takes its own argv (argv[0] is the
 * subcommand's name) and returns the exit status. */
#ifndef FERRY_TOOL_H
#define FERRY_TOOL_H

int fy_tool_info(int argc, char **argv);

#endif
