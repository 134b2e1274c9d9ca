/* Attaching, detaching and flushing the buffers for buffered sends: the process's, a
 * communicator's and a session's (management in p2p/bsend.c: the same buffer with another
 * owner). */
#include "fy_api.h"
#include "fy_bsend.h"
#include "fy_session.h"

/* Stands for the process in place of a communicator: 0 is no communicator handle of the ABI
 * (MPI_COMM_NULL is one the user may pass, and must be refused). */
#define PROCESS ((MPI_Comm)0)

/* The buffer slot of comm, or of the process. */
static int owner_of(const char *fn, MPI_Comm comm, fy_bsend_buf_t ***owner_p)
{
    if (comm == PROCESS) {
        *owner_p = &fy_bsend_process;
        return fy_api_check_init(fn);
    }
    fy_comm_t *c;
    int rc = fy_api_comm(fn, comm, &c);
    if (rc == MPI_SUCCESS)
        *owner_p = &c->bsend;
    return rc;
}

/* A session's slot; a bad handle is MPI_ERR_SESSION, raised on MPI_SESSION_NULL's handler. */
static int session_owner(const char *fn, MPI_Session session, fy_bsend_buf_t ***owner_p)
{
    fy_session_t *s = fy_rt.up ? fy_session_get(session) : NULL;
    if (!s)
        return fy_err_set(MPI_ERR_SESSION, "%s: invalid session 0x%x", fn, (unsigned)session);
    *owner_p = &s->bsend;
    return MPI_SUCCESS;
}

static int raise_on(MPI_Comm comm, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return fy_err_raise_comm(comm == PROCESS ? MPI_COMM_SELF : comm, rc);
}

/* The work of every attach: owner found (or rc an error already). */
static int attach_to(const char *fn, int rc, fy_bsend_buf_t **owner, void *buffer,
                     MPI_Count size)
{
    if (rc == MPI_SUCCESS && buffer != MPI_BUFFER_AUTOMATIC && size < 0)
        rc = fy_err_set(MPI_ERR_ARG, "%s: invalid size %lld", fn, (long long)size);
    if (rc == MPI_SUCCESS && buffer != MPI_BUFFER_AUTOMATIC && !buffer && size > 0)
        rc = fy_err_set(MPI_ERR_BUFFER, "%s: invalid buffer NULL for size %lld", fn,
                        (long long)size);
    if (rc == MPI_SUCCESS)
        rc = fy_bsend_attach(fn, owner, buffer, size);
    return rc;
}

/* The work of every flush: blocking when request is NULL. */
static int flush_owner(const char *fn, int rc, fy_bsend_buf_t **owner, MPI_Request *request)
{
    if (rc == MPI_SUCCESS && request) {
        fy_req_t *r;
        if ((rc = fy_bsend_iflush(fn, *owner, &r)) == MPI_SUCCESS)
            *request = r->handle;
    } else if (rc == MPI_SUCCESS) {
        rc = fy_bsend_flush(fn, *owner);
    }
    return rc;
}

static int attach(const char *fn, MPI_Comm comm, void *buffer, MPI_Count size)
{
    fy_bsend_buf_t **owner = NULL;
    fy_lock();
    int rc = owner_of(fn, comm, &owner);
    rc = attach_to(fn, rc, owner, buffer, size);
    fy_unlock();
    return raise_on(comm, rc);
}

static int detach(const char *fn, MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    fy_bsend_buf_t **owner;
    fy_lock();
    int rc = owner_of(fn, comm, &owner);
    if (rc == MPI_SUCCESS)
        rc = fy_bsend_detach(fn, owner, buffer_addr, size);
    fy_unlock();
    return raise_on(comm, rc);
}

static int detach_int(const char *fn, MPI_Comm comm, void *buffer_addr, int *size)
{
    MPI_Count n;
    int rc = detach(fn, comm, buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

static int flush(const char *fn, MPI_Comm comm, MPI_Request *request)
{
    fy_bsend_buf_t **owner = NULL;
    fy_lock();
    int rc = owner_of(fn, comm, &owner);
    rc = flush_owner(fn, rc, owner, request);
    fy_unlock();
    return raise_on(comm, rc);
}

/* ---- A session's buffer (MPI 4.1): errors go to the session's handler. ---------------------- */

static int raise_session(MPI_Session session, int rc)
{
    if (rc == MPI_SUCCESS)
        return rc;
    return fy_err_raise_session(rc == MPI_ERR_SESSION ? MPI_SESSION_NULL : session, rc);
}

static int session_attach(const char *fn, MPI_Session session, void *buffer, MPI_Count size)
{
    fy_bsend_buf_t **owner = NULL;
    fy_lock();
    int rc = session_owner(fn, session, &owner);
    rc = attach_to(fn, rc, owner, buffer, size);
    fy_unlock();
    return raise_session(session, rc);
}

static int session_detach(const char *fn, MPI_Session session, void *buffer_addr,
                          MPI_Count *size)
{
    fy_bsend_buf_t **owner = NULL;
    fy_lock();
    int rc = session_owner(fn, session, &owner);
    if (rc == MPI_SUCCESS)
        rc = fy_bsend_detach(fn, owner, buffer_addr, size);
    fy_unlock();
    return raise_session(session, rc);
}

static int session_flush(const char *fn, MPI_Session session, MPI_Request *request)
{
    fy_bsend_buf_t **owner = NULL;
    fy_lock();
    int rc = session_owner(fn, session, &owner);
    rc = flush_owner(fn, rc, owner, request);
    fy_unlock();
    return raise_session(session, rc);
}

int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return session_attach("MPI_Session_attach_buffer", session, buffer, size);
}

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return session_attach("MPI_Session_attach_buffer_c", session, buffer, size);
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPI_Count n;
    int rc = session_detach("MPI_Session_detach_buffer", session, buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return session_detach("MPI_Session_detach_buffer_c", session, buffer_addr, size);
}

int PMPI_Session_flush_buffer(MPI_Session session)
{
    return session_flush("MPI_Session_flush_buffer", session, NULL);
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    return session_flush("MPI_Session_iflush_buffer", session, request);
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return attach("MPI_Buffer_attach", PROCESS, buffer, size);
}

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return attach("MPI_Buffer_attach_c", PROCESS, buffer, size);
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    return detach_int("MPI_Buffer_detach", PROCESS, buffer_addr, size);
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return detach("MPI_Buffer_detach_c", PROCESS, buffer_addr, size);
}

int PMPI_Buffer_flush(void)
{
    return flush("MPI_Buffer_flush", PROCESS, NULL);
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    return flush("MPI_Buffer_iflush", PROCESS, request);
}

int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return attach("MPI_Comm_attach_buffer", comm, buffer, size);
}

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return attach("MPI_Comm_attach_buffer_c", comm, buffer, size);
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    return detach_int("MPI_Comm_detach_buffer", comm, buffer_addr, size);
}

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    return detach("MPI_Comm_detach_buffer_c", comm, buffer_addr, size);
}

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    return flush("MPI_Comm_flush_buffer", comm, NULL);
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    return flush("MPI_Comm_iflush_buffer", comm, request);
}
