/* Error classes, codes that carry a message, and raising errors on communicators.
 *
 * An error code is its class in the low 8 bits plus, above them, the slot of a stored message
 * (1..255). MPI_Error_string of such a code gives the message the detecting function wrote,
 * which names the call, the argument and the value; the class alone gives the generic text. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fy_comm.h"
#include "fy_err.h"
#include "fy_errhandler.h"
#include "fy_pmi.h"
#include "fy_runtime.h"

#define SLOTS 256
static char messages[SLOTS][MPI_MAX_ERROR_STRING];
static atomic_uint next_slot;
static _Thread_local char pending[MPI_MAX_ERROR_STRING];

int fy_err_set(int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pending, sizeof pending, fmt, ap);
    va_end(ap);
    return cls;
}

const char *fy_err_last_message(void)
{
    return pending;
}

static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimensions",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated: the receive buffer is smaller than the message",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error in the MPI library",
    [MPI_ERR_IN_STATUS] = "error code is in the status",
    [MPI_ERR_PENDING] = "request pending",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_INFO_KEY] = "invalid info key",
    [MPI_ERR_INFO_VALUE] = "invalid info value",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_IO] = "input/output error",
    [MPI_ERR_NAME] = "invalid service name",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "no space left on device",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "file is read-only",
    [MPI_ERR_SERVICE] = "invalid service",
    [MPI_ERR_SPAWN] = "process spawn failed",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by this MPI library",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_RMA_CONFLICT] = "conflicting one-sided accesses",
    [MPI_ERR_RMA_SYNC] = "wrong one-sided synchronization",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [54] = "unknown error class 54",
    [MPI_ERR_RMA_RANGE] = "one-sided access outside the window",
    [MPI_ERR_RMA_ATTACH] = "cannot attach memory to the window",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_T_ERR_MEMORY] = "tools interface: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "tools interface not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "tools interface cannot be initialized now",
    [MPI_T_ERR_INVALID_INDEX] = "tools interface: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "tools interface: invalid item",
    [MPI_T_ERR_INVALID_HANDLE] = "tools interface: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "tools interface: out of handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "tools interface: out of sessions",
    [MPI_T_ERR_INVALID_SESSION] = "tools interface: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "tools interface: variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "tools interface: variable cannot be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "tools interface: variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "tools interface: variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "tools interface: variable cannot be accessed atomically",
    [MPI_T_ERR_INVALID_NAME] = "tools interface: invalid name",
    [MPI_T_ERR_INVALID] = "tools interface: invalid use",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "a peer process has aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to store",
    [MPI_T_ERR_NOT_SUPPORTED] = "tools interface: not supported",
};
#define NCLASSES ((int)(sizeof class_text / sizeof class_text[0]))

int fy_err_class_of(int code)
{
    if (code < 0)
        return -1;
    int cls = code & 0xff;
    if (cls >= NCLASSES)
        return -1;
    if ((code >> 8) >= SLOTS)
        return -1;
    return cls;
}

const char *fy_err_class_text(int cls)
{
    return (cls >= 0 && cls < NCLASSES && class_text[cls]) ? class_text[cls] : NULL;
}

/* Stores the pending message (if any) and returns a code carrying it. */
int fy_err_code_for_message(int cls)
{
    if (cls <= 0 || cls > 0xff || pending[0] == '\0')
        return cls;
    unsigned slot = atomic_fetch_add(&next_slot, 1) % (SLOTS - 1) + 1;
    memcpy(messages[slot], pending, sizeof pending);
    pending[0] = '\0';
    return (int)(slot << 8) | cls;
}

const char *fy_err_code_message(int code)
{
    int slot = code >> 8;
    if (slot > 0 && slot < SLOTS && messages[slot][0])
        return messages[slot];
    return fy_err_class_text(code & 0xff);
}

_Noreturn void fy_fatal(int code, const char *msg)
{
    char line[MPI_MAX_ERROR_STRING + 64];
    snprintf(line, sizeof line, "Ferry: rank %d: %s\n", fy_rt.rank, msg);
    ssize_t w = write(2, line, strlen(line));
    (void)w;
    if (fy_rt.pmi)
        fy_pmi_abort(fy_rt.pmi, code, msg);
    _exit(code);
}

int fy_err_raise_comm(MPI_Comm comm, int cls)
{
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    int code = fy_err_code_for_message(cls);
    fy_comm_t *c = fy_comm_get(comm);
    if (!c)
        c = fy_comm_get(MPI_COMM_SELF);
    MPI_Errhandler eh = c ? c->errhandler : MPI_ERRORS_ARE_FATAL;
    if (eh == MPI_ERRORS_RETURN)
        return code;
    fy_errhandler_t *e = fy_errhandler_get(eh);
    if (e && e->fn) {
        MPI_Comm h = c ? c->handle : comm;
        e->fn(&h, &code);
        return code;
    }
    fy_fatal(cls, fy_err_code_message(code));
}

int fy_err_unsupported(const char *fn, MPI_Comm comm)
{
    fy_err_set(MPI_ERR_UNSUPPORTED_OPERATION,
               "%s: not implemented in this release of Ferry (MPI_ERR_UNSUPPORTED_OPERATION)", fn);
    return fy_err_raise_comm(comm, MPI_ERR_UNSUPPORTED_OPERATION);
}
