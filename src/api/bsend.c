/* Attaching and detaching the buffer for buffered sends (management in p2p/bsend.c). */
#include "fy_api.h"

int fy_bsend_attach(void *buf, size_t size);
int fy_bsend_detach(void *buf_p, int *size);

int PMPI_Buffer_attach(void *buffer, int size)
{
    int rc = fy_api_check_init("MPI_Buffer_attach");
    if (rc == MPI_SUCCESS && size < 0)
        rc = fy_err_set(MPI_ERR_ARG, "MPI_Buffer_attach: invalid size %d", size);
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_bsend_attach(buffer, (size_t)size);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    int rc = fy_api_check_init("MPI_Buffer_detach");
    if (rc == MPI_SUCCESS) {
        fy_lock();
        rc = fy_bsend_detach(buffer_addr, size);
        fy_unlock();
    }
    return rc == MPI_SUCCESS ? rc : fy_err_raise_comm(MPI_COMM_SELF, rc);
}
