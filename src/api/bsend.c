/* Attaching and detaching the buffer for buffered sends (management in p2p/bsend.c). */
#include "fy_api.h"

int fy_bsend_attach(void *buf, size_t size);
int fy_bsend_detach(void *buf_p, MPI_Count *size);

static int attach(const char *fn, void *buffer, MPI_Count size)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS && size < 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid size %ld", fn, (long)size);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_bsend_attach(buffer, (size_t)size);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

static int detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    int rc = fy_api_check_init(fn);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_bsend_detach(buffer_addr, size);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return attach("MPI_Buffer_attach", buffer, size);
}

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return attach("MPI_Buffer_attach_c", buffer, size);
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n;
    int rc = detach("MPI_Buffer_detach", buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return detach("MPI_Buffer_detach_c", buffer_addr, size);
}
