/* Starting point-to-point operations, shared by the blocking, nonblocking and persistent
 * entry points. */
#ifndef FY_API_P2P_START_H
#define FY_API_P2P_START_H

#include "fy_api.h"

/* Checks the arguments, fills a fresh request and (unless `start` is 0) starts it. On error
 * the message is set and the class returned; *r_p is untouched. */
int fy_api_send_start(const char *fn, const void *buf, MPI_Aint count, MPI_Datatype dt, int dest,
                      int tag, MPI_Comm comm, fy_mode_t mode, int start, fy_req_t **r_p);
int fy_api_recv_start(const char *fn, void *buf, MPI_Aint count, MPI_Datatype dt, int source,
                      int tag, MPI_Comm comm, int start, fy_req_t **r_p);
/* The same for arguments already checked (fy_api_p2p_args gave c and d). */
int fy_api_send_begin(const char *fn, const void *buf, MPI_Aint count, const fy_dtype_t *d,
                      int dest, int tag, fy_comm_t *c, fy_mode_t mode, int start, fy_req_t **r_p);
int fy_api_recv_begin(const char *fn, void *buf, MPI_Aint count, const fy_dtype_t *d, int source,
                      int tag, fy_comm_t *c, int start, fy_req_t **r_p);
/* (Re)starts a filled request: persistent Start goes through here too. */
int fy_api_start(fy_req_t *r);
/* Blocking completion of a request the library made for a blocking call. */
int fy_api_finish_blocking(fy_req_t *r, MPI_Status *status);

#include "fy_bsend.h" /* buffered sends */

#endif
