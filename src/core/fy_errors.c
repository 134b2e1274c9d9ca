/* Error classes, codes that carry a message, and raising errors on communicators.
 *
 * An error code is its class in the low 8 bits plus, above them, the slot of a stored message
 * (1..255). MPI_Error_string of such a code gives the message the detecting function wrote,
 * which names the call, the argument and the value; the class alone gives the generic text.
 * Classes and codes the user adds (MPI_Add_error_class/code) are numbered above
 * MPI_ERR_LASTCODE and carry the user's string. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
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

/* What each predefined class means, written for the person reading the message: where the
 * detecting function wrote a message naming the call and the value, that message is shown
 * instead (see fy_err_code_message). */
static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer (NULL where data is expected, or a buffer "
                       "already attached or too small)",
    [MPI_ERR_COUNT] = "invalid count argument (negative, or too large for the call)",
    [MPI_ERR_TYPE] = "invalid datatype (MPI_DATATYPE_NULL, freed, not committed, or not "
                     "allowed in this call)",
    [MPI_ERR_TAG] = "invalid tag (negative other than MPI_ANY_TAG, or above the MPI_TAG_UB "
                    "attribute)",
    [MPI_ERR_COMM] = "invalid communicator (MPI_COMM_NULL, freed, or of the wrong kind)",
    [MPI_ERR_RANK] = "invalid rank (outside 0..size-1 of the communicator's group)",
    [MPI_ERR_ROOT] = "invalid root rank (outside the group, or not the same on every process)",
    [MPI_ERR_GROUP] = "invalid group (MPI_GROUP_NULL, freed, or not allowed here)",
    [MPI_ERR_OP] = "invalid reduction operation (MPI_OP_NULL, freed, or not defined for this "
                   "datatype)",
    [MPI_ERR_TOPOLOGY] = "invalid topology (the communicator has no topology of the kind this "
                         "call needs)",
    [MPI_ERR_DIMS] = "invalid dimensions (a negative number of dimensions or a dimension size "
                     "that does not fit)",
    [MPI_ERR_ARG] = "invalid argument (one not covered by a more specific error class)",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated: the receive buffer is smaller than the message",
    [MPI_ERR_OTHER] = "other error (the error code's own string, if any, says more)",
    [MPI_ERR_INTERN] = "internal error in the MPI library",
    [MPI_ERR_IN_STATUS] = "error code is in the status: look at the MPI_ERROR field of each "
                          "status",
    [MPI_ERR_PENDING] = "request pending: the operation has neither completed nor failed",
    [MPI_ERR_REQUEST] = "invalid request (MPI_REQUEST_NULL where an active request is needed, "
                        "freed, or of the wrong kind)",
    [MPI_ERR_ACCESS] = "permission denied when accessing a file",
    [MPI_ERR_AMODE] = "invalid file access mode (conflicting or missing MPI_MODE_* flags)",
    [MPI_ERR_BAD_FILE] = "invalid file name (malformed or too long)",
    [MPI_ERR_CONVERSION] = "data conversion error: a value cannot be represented in the target "
                           "data representation",
    [MPI_ERR_DUP_DATAREP] = "a data representation of this name is already registered",
    [MPI_ERR_FILE_EXISTS] = "file exists (and MPI_MODE_EXCL was given)",
    [MPI_ERR_FILE_IN_USE] = "file operation not possible: the file is in use by some process",
    [MPI_ERR_FILE] = "invalid file handle (MPI_FILE_NULL or closed)",
    [MPI_ERR_INFO] = "invalid info object (MPI_INFO_NULL, freed, or not allowed here)",
    [MPI_ERR_INFO_KEY] = "invalid info key (empty, or too long: at most MPI_MAX_INFO_KEY - 1 "
                         "characters)",
    [MPI_ERR_INFO_VALUE] = "invalid info value (longer than MPI_MAX_INFO_VAL)",
    [MPI_ERR_INFO_NOKEY] = "info key not defined in the info object",
    [MPI_ERR_IO] = "input/output error",
    [MPI_ERR_NAME] = "service name not published (MPI_Lookup_name found nothing)",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments differ between processes, or calls were made in "
                         "a different order",
    [MPI_ERR_NO_SPACE] = "no space left on the storage device",
    [MPI_ERR_NO_SUCH_FILE] = "file does not exist",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "storage quota exceeded",
    [MPI_ERR_READ_ONLY] = "file or file system is read-only",
    [MPI_ERR_SERVICE] = "invalid service name (not published, or published with another port)",
    [MPI_ERR_SPAWN] = "process spawn failed",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by this MPI library",
    [MPI_ERR_WIN] = "invalid window (MPI_WIN_NULL or freed)",
    [MPI_ERR_BASE] = "invalid base address (not memory from MPI_Alloc_mem, or not attached to "
                     "the window)",
    [MPI_ERR_LOCKTYPE] = "invalid lock type (neither MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED)",
    [MPI_ERR_KEYVAL] = "invalid attribute key (freed, predefined where not allowed, or made for "
                       "another kind of object)",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window in the same epoch",
    [MPI_ERR_RMA_SYNC] = "wrong one-sided synchronization (an RMA call outside an access epoch, "
                         "or epochs mixed wrongly)",
    [MPI_ERR_SIZE] = "invalid size argument (negative or too large)",
    [MPI_ERR_DISP] = "invalid displacement argument",
    [MPI_ERR_ASSERT] = "invalid assert argument (not a combination of the MPI_MODE_* values "
                       "allowed here)",
    [54] = "a process has failed (class 54: no name in the standard; MPICH's ABI has it)",
    [MPI_ERR_RMA_RANGE] = "one-sided access outside the target's window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached to the window (overlaps, or the window is "
                           "not dynamic)",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared between the processes of the window",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor for this call",
    [MPI_T_ERR_MEMORY] = "tools interface: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "tools interface not initialized (call MPI_T_init_thread "
                                  "first)",
    [MPI_T_ERR_CANNOT_INIT] = "tools interface cannot be initialized now",
    [MPI_T_ERR_INVALID_INDEX] = "tools interface: invalid index (out of range, or the variable "
                                "has gone)",
    [MPI_T_ERR_INVALID_ITEM] = "tools interface: item index out of range",
    [MPI_T_ERR_INVALID_HANDLE] = "tools interface: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "tools interface: no more handles available",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "tools interface: no more sessions available",
    [MPI_T_ERR_INVALID_SESSION] = "tools interface: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "tools interface: the control variable cannot be set at "
                                   "this moment",
    [MPI_T_ERR_CVAR_SET_NEVER] = "tools interface: the control variable cannot be set until "
                                 "the end of execution",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "tools interface: the performance variable cannot be "
                                    "started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "tools interface: the performance variable cannot be written "
                                "or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "tools interface: the performance variable cannot be read and "
                                 "written atomically",
    [MPI_T_ERR_INVALID_NAME] = "tools interface: no variable or category of this name",
    [MPI_T_ERR_INVALID] = "tools interface: invalid use of the interface",
    [MPI_ERR_SESSION] = "invalid session (MPI_SESSION_NULL or finalized)",
    [MPI_ERR_PROC_ABORTED] = "a process taking part in the operation has aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to store in the output argument",
    [MPI_T_ERR_NOT_SUPPORTED] = "tools interface: the requested functionality is not supported",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "tools interface: the requested functionality is not "
                                 "accessible (not at this time, or not to this caller)",
    [MPI_ERR_ERRHANDLER] = "invalid error handler (MPI_ERRHANDLER_NULL, freed, or made for "
                           "another kind of object)",
    /* MPICH's extension classes (MPICH_ERR_FIRST_MPIX + 1..5 in its ABI): Ferry raises none
     * of them, but codes a program got from another library or passes on are still valid. */
    [101] = "process failure (class 101, MPIX_ERR_PROC_FAILED in MPICH's ABI)",
    [102] = "a process failure has left this request pending (class 102, "
            "MPIX_ERR_PROC_FAILED_PENDING in MPICH's ABI)",
    [103] = "the communication object has been revoked (class 103, MPIX_ERR_REVOKED in MPICH's "
            "ABI)",
    [104] = "the operation could not be issued now (class 104, MPIX_ERR_EAGAIN in MPICH's ABI)",
    [105] = "no request could be allocated (class 105, MPIX_ERR_NOREQ in MPICH's ABI)",
};
#define NCLASSES ((int)(sizeof class_text / sizeof class_text[0]))

/* ---- User-defined classes and codes (MPI_Add_error_class/code/string) -------------------
 *
 * They share one numbering above MPI_ERR_LASTCODE, in order of creation: entry i is the value
 * MPI_ERR_LASTCODE + 1 + i, and records its class (itself, for a class) and its string. Entries
 * live in chunks that never move, so readers (MPI_Error_class in a handler, say) need no lock:
 * an entry is filled before the count that makes it visible is published. */
#define USER_BASE (MPI_ERR_LASTCODE + 1)
#define USER_CHUNK 64
#define USER_CHUNKS 1024 /* at most 65536 user classes and codes together */

typedef struct {
    int cls;    /* -1 once removed (MPI_Remove_error_class/code): the value is then unknown */
    int ncodes; /* a class: how many of its codes are not removed */
    bool has_msg;
    char msg[MPI_MAX_ERROR_STRING];
} user_err_t;

static user_err_t *user_chunks[USER_CHUNKS];
static atomic_int nuser;
static atomic_int last_class = MPI_ERR_LASTCODE;

/* The live entry of a user class or code, or NULL (not made by Add, or removed since). */
static user_err_t *user_entry(int code)
{
    if (code < USER_BASE)
        return NULL;
    int i = code - USER_BASE;
    if (i >= atomic_load_explicit(&nuser, memory_order_acquire))
        return NULL;
    user_err_t *e = &user_chunks[i / USER_CHUNK][i % USER_CHUNK];
    return e->cls < 0 ? NULL : e;
}

static int user_add(int cls, int *code_p)
{
    int i = atomic_load_explicit(&nuser, memory_order_relaxed);
    if (i >= USER_CHUNK * USER_CHUNKS)
        return fy_err_set(MPI_ERR_OTHER,
                          "no room for more user-defined error classes and codes (Ferry keeps "
                          "at most %d)",
                          USER_CHUNK * USER_CHUNKS);
    user_err_t **chunk = &user_chunks[i / USER_CHUNK];
    if (!*chunk && !(*chunk = calloc(USER_CHUNK, sizeof **chunk)))
        return fy_err_set(MPI_ERR_NO_MEM, "out of memory adding an error class or code");
    int code = USER_BASE + i;
    user_err_t *e = &(*chunk)[i % USER_CHUNK];
    e->cls = cls < 0 ? code : cls; /* a class is its own class */
    e->ncodes = 0;
    e->has_msg = false;
    e->msg[0] = '\0';
    atomic_store_explicit(&nuser, i + 1, memory_order_release);
    *code_p = code;
    return MPI_SUCCESS;
}

int fy_err_add_class(int *cls_p)
{
    int cls;
    int rc = user_add(-1, &cls);
    if (rc == MPI_SUCCESS) {
        atomic_store(&last_class, cls);
        *cls_p = cls;
    }
    return rc;
}

int fy_err_is_class(int cls)
{
    if (cls > MPI_SUCCESS && cls < NCLASSES)
        return class_text[cls] != NULL;
    user_err_t *e = user_entry(cls);
    return e && e->cls == cls;
}

int fy_err_add_code(int cls, int *code_p)
{
    int rc = user_add(cls, code_p);
    user_err_t *owner = user_entry(cls); /* NULL for a predefined class */
    if (rc == MPI_SUCCESS && owner)
        owner->ncodes++;
    return rc;
}

int fy_err_add_string(int code, const char *s)
{
    user_err_t *e = user_entry(code);
    if (!e)
        return MPI_ERR_ARG;
    snprintf(e->msg, sizeof e->msg, "%s", s);
    e->has_msg = true;
    return MPI_SUCCESS;
}

/* ---- Removal (MPI-4.1): the value is not given out again --------------------------------
 *
 * Numbers are never reused: a code kept somewhere by the program after its removal stays
 * unknown rather than quietly meaning a newer class. The standard makes removing a class that
 * still has codes or a string, or a code that still has its string, erroneous; Ferry refuses
 * those with a message, so that the order of removal can be fixed. */
int fy_err_remove(const char *fn, int code, int want_class)
{
    user_err_t *e = user_entry(code);
    const char *what = want_class ? "class" : "code";
    if (code >= 0 && code <= MPI_ERR_LASTCODE)
        return fy_err_set(MPI_ERR_ARG, "%s: %d is a predefined error class or code, which cannot be "
                          "removed", fn, code);
    if (!e || (e->cls == code) != (want_class != 0))
        return fy_err_set(MPI_ERR_ARG, "%s: %d is not an error %s made by MPI_Add_error_%s (or it "
                          "was removed already)", fn, code, what, what);
    if (want_class && e->ncodes > 0)
        return fy_err_set(MPI_ERR_ARG, "%s: error class %d still has %d error code%s: remove them "
                          "first (MPI_Remove_error_code)", fn, code, e->ncodes,
                          e->ncodes == 1 ? "" : "s");
    if (e->has_msg)
        return fy_err_set(MPI_ERR_ARG, "%s: error %s %d still has a string: remove it first "
                          "(MPI_Remove_error_string)", fn, what, code);
    if (!want_class) {
        user_err_t *owner = user_entry(e->cls);
        if (owner)
            owner->ncodes--;
    }
    e->cls = -1;
    return MPI_SUCCESS;
}

int fy_err_remove_string(const char *fn, int code)
{
    user_err_t *e = user_entry(code);
    if (code >= 0 && code <= MPI_ERR_LASTCODE)
        return fy_err_set(MPI_ERR_ARG, "%s: %d is a predefined error class or code, whose string "
                          "cannot be removed", fn, code);
    if (!e)
        return fy_err_set(MPI_ERR_ARG, "%s: %d is not an error class or code made by "
                          "MPI_Add_error_class or MPI_Add_error_code", fn, code);
    if (!e->has_msg)
        return fy_err_set(MPI_ERR_ARG, "%s: error %s %d has no string (MPI_Add_error_string) to "
                          "remove", fn, e->cls == code ? "class" : "code", code);
    e->has_msg = false;
    e->msg[0] = '\0';
    return MPI_SUCCESS;
}

int fy_err_last_used(void)
{
    return atomic_load(&last_class);
}

/* ---- Classes of codes, and their text -------------------------------------------------- */

int fy_err_class_of(int code)
{
    if (code < 0)
        return -1;
    if (code > MPI_ERR_LASTCODE) {
        user_err_t *e = user_entry(code);
        return e ? e->cls : -1;
    }
    int cls = code & 0xff;
    if (cls >= NCLASSES || !class_text[cls])
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
    if (code > MPI_ERR_LASTCODE) { /* the user's string; empty until MPI_Add_error_string */
        user_err_t *e = user_entry(code);
        return e ? e->msg : NULL;
    }
    int slot = code >> 8;
    if (slot > 0 && slot < SLOTS && messages[slot][0])
        return messages[slot];
    return fy_err_class_text(code & 0xff);
}

/* The text printed when an error ends the job: never empty, even for a user code without a
 * string. */
static void describe(int code, char *buf, size_t cap)
{
    int cls = fy_err_class_of(code);
    const char *m = cls >= 0 ? fy_err_code_message(code) : NULL;
    if (m && m[0])
        snprintf(buf, cap, "%s", m);
    else if (code > MPI_ERR_LASTCODE && cls == code)
        snprintf(buf, cap, "user-defined error class %d", code);
    else if (code > MPI_ERR_LASTCODE && cls > MPI_ERR_LASTCODE)
        snprintf(buf, cap, "user-defined error code %d (of user-defined class %d)", code, cls);
    else if (code > MPI_ERR_LASTCODE && cls >= 0)
        snprintf(buf, cap, "user-defined error code %d (class %d: %s)", code, cls,
                 fy_err_class_text(cls));
    else
        snprintf(buf, cap, "unknown error code %d", code);
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

int fy_err_invoke_comm(MPI_Comm comm, int code)
{
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
    fy_err_fatal_code(code);
}

_Noreturn void fy_err_fatal_code(int code)
{
    /* MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT: the exit status is the class, or
     * MPI_ERR_OTHER for a user class (its value does not fit an exit status). */
    char msg[MPI_MAX_ERROR_STRING + 64];
    describe(code, msg, sizeof msg);
    int cls = fy_err_class_of(code);
    fy_fatal(cls > 0 && cls <= 0xff ? cls : MPI_ERR_OTHER, msg);
}

int fy_err_raise_comm(MPI_Comm comm, int cls)
{
    if (cls == MPI_SUCCESS)
        return MPI_SUCCESS;
    return fy_err_invoke_comm(comm, fy_err_code_for_message(cls));
}

int fy_err_unsupported(const char *fn, MPI_Comm comm)
{
    fy_err_set(MPI_ERR_UNSUPPORTED_OPERATION,
               "%s: not implemented in this release of Ferry (MPI_ERR_UNSUPPORTED_OPERATION)", fn);
    return fy_err_raise_comm(comm, MPI_ERR_UNSUPPORTED_OPERATION);
}
