/* The subcommands of `ferry` (ferry_main.c dispatches). Each takes its own argv (argv[0] is the
 * subcommand's name) and returns the exit status. */
#ifndef FERRY_TOOL_H
#define FERRY_TOOL_H

int fy_tool_info(int argc, char **argv);
int fy_tool_farm(int argc, char **argv);      /* ferry_farm.c */
int fy_tool_farm_rank(int argc, char **argv); /* ferry_farm_rank.c: under mpiexec */
int fy_tool_view(int argc, char **argv);      /* ferry_view.c */
int fy_tool_top(int argc, char **argv);       /* ferry_top.c: attaches to mpiexec --monitor */
int fy_tool_portal(int argc, char **argv);    /* ferry_portal.c: execs the web portal */

/* The hidden `_debug-*` subcommands the tests use in place of `ferry run --debug`
 * (ferry_debug_cmd.c). */
int fy_tool_debug(int argc, char **argv);

/* JSON string output (ferry_info.c). */
void fy_tool_jstr(const char *s);

/* The machine section of `ferry info` (ferry_machine.c). `calibrate` is FERRY_CALIBRATE's
 * value, `cma_on` whether FERRY_CMA leaves single copy on. */
void fy_tool_machine_load(const char *calibrate, int cma_on);
void fy_tool_machine_text(int cma_on);
void fy_tool_machine_json(void);

#endif
