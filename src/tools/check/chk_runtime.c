/* What runs the program, where that changes what a report means.
 *
 * A program run by mpi4py (Python) does not free its MPI objects itself: a Datatype or Info
 * is freed when the Python object is collected, and mpi4py calls MPI_Finalize at interpreter
 * exit while module globals and cached objects are still alive (and are then never freed, as
 * freeing after MPI_Finalize is not allowed). Every such object would be a "leak" that the
 * program cannot avoid, so leaks at MPI_Finalize are not reported there unless FERRY_CHECK
 * names `leak` explicitly. */
#include "chk.h"

#include <link.h>
#include <string.h>

static int find_mpi4py(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    /* the extension module: .../site-packages/mpi4py/MPI.cpython-311-x86_64-linux-gnu.so */
    return info->dlpi_name && strstr(info->dlpi_name, "/mpi4py/MPI.") ? 1 : 0;
}

bool chk_runtime_collects(void)
{
    return dl_iterate_phdr(find_mpi4py, NULL) == 1;
}
