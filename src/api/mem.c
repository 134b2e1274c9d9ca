/* MPI_Alloc_mem and MPI_Free_mem: memory from this process's shared-memory file (core/fy_mem.h),
 * so that windows made over it can later be mapped by the other processes of the node. */
#include <errno.h>
#include <stdlib.h>

#include "fy_api.h"
#include "fy_info.h"
#include "fy_mem.h"

/* The MPI-4.1 alignment hint; other keys are ignored, as the standard allows. */
static int alignment_hint(const char *fn, MPI_Info info, size_t *align_p)
{
    *align_p = 0;
    if (info == MPI_INFO_NULL)
        return MPI_SUCCESS;
    fy_info_t *in = fy_info_get(info);
    if (!in)
        return fy_err_set(MPI_ERR_INFO, "%s: invalid info 0x%x", fn, (unsigned)info);
    int k = fy_info_find(in, "mpi_minimum_memory_alignment");
    if (k < 0)
        return MPI_SUCCESS;
    const char *v = in->kv[k].value;
    char *end;
    errno = 0;
    unsigned long long a = strtoull(v, &end, 10);
    if (errno || end == v || *end || a == 0 || (a & (a - 1)) || a > FY_MEM_MAX_ALIGN)
        return fy_err_set(MPI_ERR_INFO_VALUE,
                          "%s: mpi_minimum_memory_alignment \"%s\" is not a power of two up to %zu",
                          fn, v, FY_MEM_MAX_ALIGN);
    *align_p = (size_t)a;
    return MPI_SUCCESS;
}

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    const char *fn = "MPI_Alloc_mem";
    size_t align;
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && size < 0)
        rc = fy_err_set(MPI_ERR_SIZE, "%s: invalid size %ld", fn, (long)size);
    if (rc == MPI_SUCCESS && !baseptr)
        rc = fy_err_set(MPI_ERR_ARG, "%s: baseptr is NULL", fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = alignment_hint(fn, info, &align);
        void *p;
        if (rc == MPI_SUCCESS && (rc = fy_mem_alloc(fn, (size_t)size, align, &p)) == MPI_SUCCESS)
            *(void **)baseptr = p;
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

/* NULL is accepted and ignored, like free(NULL) (MPICH and Open MPI do the same). Allowed after
 * MPI_Finalize too: the memory stays valid until the process ends. */
int PMPI_Free_mem(void *base)
{
    if (!base)
        return MPI_SUCCESS;
    fy_lock();
    int rc = fy_mem_free("MPI_Free_mem", base);
    fy_unlock();
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}
