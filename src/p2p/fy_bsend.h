/* Buffers for buffered sends (MPI 4.1, 3.6). A buffer has an owner: the process
 * (MPI_Buffer_attach), a communicator (MPI_Comm_attach_buffer: fy_comm_t.bsend) or a session
 * (MPI_Session_attach_buffer: the session keeps a fy_bsend_buf_t * and points the
 * communicators derived from it at that slot through fy_comm_t.bsend_session). The owner holds
 * a fy_bsend_buf_t *, NULL while none is attached, and hands its address to these functions, so
 * each MPI call is one line over them. A buffered send on c uses c's buffer, else its
 * session's, else the process's.
 *
 * A buffer is either the user's memory (first-fit, MPI_BSEND_OVERHEAD reserved per message) or
 * MPI_BUFFER_AUTOMATIC: the library allocates each message's copy and frees it once sent, so it
 * grows as needed. Every message starts with a small header naming its buffer, so completion
 * finds it without a field in the request. All of this runs under the library lock; `fn`
 * names the MPI call in messages. */
#ifndef FY_BSEND_H
#define FY_BSEND_H

#include "fy_request.h"
#include "mpi.h"

typedef struct fy_bsend_buf fy_bsend_buf_t;

/* The process's buffer (MPI_Buffer_attach and friends). */
extern fy_bsend_buf_t *fy_bsend_process;

/* Attaches buf (or MPI_BUFFER_AUTOMATIC, when size is ignored) to *owner: MPI_ERR_BUFFER when
 * one is attached already. */
int fy_bsend_attach(const char *fn, fy_bsend_buf_t **owner, void *buf, MPI_Count size);
/* Waits until every message in *owner's buffer has been sent, then detaches it: *buf_p and
 * *size_p get what was attached (MPI_BUFFER_AUTOMATIC and 0 for an automatic buffer; NULL and 0
 * when none was). */
int fy_bsend_detach(const char *fn, fy_bsend_buf_t **owner, void *buf_p, MPI_Count *size_p);
/* Waits until the messages in the buffer now have been sent (nothing to do when b is NULL). */
int fy_bsend_flush(const char *fn, fy_bsend_buf_t *b);
/* The same as a request (kind FY_REQ_COLL without a schedule) that completes then. */
int fy_bsend_iflush(const char *fn, fy_bsend_buf_t *b, fy_req_t **req_p);

/* Starts a buffered send described by user (copies the data, completes user). */
int fy_bsend_start(fy_req_t *user);
/* An internal buffered send has completed: its copy is released. */
void fy_bsend_release(fy_req_t *r);
/* c is being freed with a buffer attached: the buffer goes once its messages are sent. */
void fy_bsend_comm_freed(fy_comm_t *c);
/* MPI_Finalize: lets go of the process's buffer. */
void fy_bsend_fini(void);

#endif
