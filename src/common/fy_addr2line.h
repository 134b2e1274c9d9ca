/* Source lines of code addresses, by the binutils addr2line program: a module (executable or
 * shared library) and offsets in it into "file:line" and the function. Shared by the checker
 * and the recorder (both resolve return addresses of MPI calls). src/common: no libmpi. */
#ifndef FY_ADDR2LINE_H
#define FY_ADDR2LINE_H

#include <stddef.h>
#include <stdint.h>

/* The module holding address `ra` of this process, and ra's offset in it (what addr2line
 * wants). 0, or -1 when no module holds it. */
int fy_addr_module(const void *ra, char *module, size_t len, uint64_t *off);

/* Runs addr2line once on `module` for n offsets. For each, file[i] gets "path:line" (as
 * addr2line prints it: "??:0" or "??:?" when unknown) and func[i] the function ("??" when
 * unknown), strings of at most len bytes. The environment's LD_PRELOAD and variables starting
 * with any of `drop_prefix` (NULL: none) are not passed to it. Waits at most timeout_ms. 0, or
 * -1 when addr2line could not be run (the outputs are then "??"). */
int fy_addr2line(const char *module, const uint64_t *off, int n, char **file, char **func,
                 size_t len, const char *drop_prefix, int timeout_ms);

#endif
