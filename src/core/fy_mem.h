/* Memory for MPI_Alloc_mem: carved from one anonymous shared-memory file (memfd) of this
 * process, so that a window made over it later can be mapped by the other processes of the node
 * (they open the same file through this process's descriptor and map the same offsets).
 *
 * The file is mapped once, at an address aligned to FY_MEM_MAX_ALIGN, over a large reservation;
 * it grows with ftruncate as allocations need, and each allocation's pages are reserved with
 * fallocate, so running out of memory is an error of MPI_Alloc_mem and not a SIGBUS later.
 * Allocations live in a table sorted by offset; large freed blocks give their pages back
 * (FALLOC_FL_PUNCH_HOLE). Callers hold fy_lock(). */
#ifndef FY_MEM_H
#define FY_MEM_H

#include <stdbool.h>
#include <stddef.h>

#define FY_MEM_MAX_ALIGN ((size_t)1 << 30)

/* size bytes aligned to at least `align` (a power of two, at most FY_MEM_MAX_ALIGN; 0 means
 * the default). Size 0 gives a distinct valid address. MPI_SUCCESS, or MPI_ERR_NO_MEM with the
 * message set (naming fn). */
int fy_mem_alloc(const char *fn, size_t size, size_t align, void **p);
/* MPI_SUCCESS, or MPI_ERR_ARG (message set, naming fn) when p did not come from fy_mem_alloc. */
int fy_mem_free(const char *fn, void *p);
/* Where [p, p + len) lies, if inside one live allocation: the descriptor of the file, the
 * offset of p in it, and the allocation's bounds. For the one-sided layer. */
bool fy_mem_find(const void *p, size_t len, int *fd_p, size_t *off_p, void **base_p,
                 size_t *size_p);

#endif
