/* Errors inside the library: an internal function that detects an error writes the message
 * once, naming the MPI call, the argument and the value, and returns the MPI error class. The
 * API edge (fy_err_raise) then runs the error handler of the object involved. */
#ifndef FY_ERR_H
#define FY_ERR_H

#include "mpi.h"

/* Returned by transports when a queue is full; never leaves the library. */
#define FY_AGAIN (-11)

/* Records the message of the error being raised (printf-style). Returns `cls`, so that
 * `return fy_err_set(MPI_ERR_RANK, "...", ...)` reads naturally. */
int fy_err_set(int cls, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *fy_err_last_message(void);

/* Runs the error handler attached to `comm` (MPI_COMM_SELF semantics when comm is not a valid
 * communicator) for error `code`, and returns `code` for the API to return. */
int fy_err_raise_comm(MPI_Comm comm, int code);

/* Runs the error handler attached to `comm` (as fy_err_raise_comm) for `code` exactly as given,
 * with no message stored: MPI_Comm_call_errhandler. Returns the code (a user handler may change
 * it). */
int fy_err_invoke_comm(MPI_Comm comm, int code);

/* User-defined error classes and codes, numbered above MPI_ERR_LASTCODE. The add functions
 * write the message and return the class of failure (MPI_ERR_OTHER when the table is full,
 * MPI_ERR_NO_MEM); fy_err_add_code needs a class fy_err_is_class accepts. fy_err_add_string
 * returns MPI_ERR_ARG (no message) when code is not a user-defined class or code. */
int fy_err_add_class(int *cls_p);
int fy_err_add_code(int cls, int *code_p);
int fy_err_add_string(int code, const char *s);
int fy_err_is_class(int cls);
/* MPI-4.1 removal of a user-defined class (want_class) or code, or of the string of either.
 * They write the message (naming fn) and return MPI_ERR_ARG when the value is predefined, not
 * user-defined, or still in use (a class with codes or a string, a code with a string; a string
 * that was never added). Callers hold fy_lock(). */
int fy_err_remove(const char *fn, int code, int want_class);
int fy_err_remove_string(const char *fn, int code);
/* The MPI_LASTUSEDCODE attribute: the largest error class in use, at least MPI_ERR_LASTCODE. */
int fy_err_last_used(void);

/* Error codes with a message: a code above the classes maps to a stored message. */
int fy_err_code_for_message(int cls);
int fy_err_class_of(int code);
const char *fy_err_code_message(int code);
const char *fy_err_class_text(int cls);

/* Writes "MPI_x: MPI_ERR_UNSUPPORTED_OPERATION" message and raises on comm. */
int fy_err_unsupported(const char *fn, MPI_Comm comm);

/* What a fatal handler does with `code`: prints its message and ends the job. */
_Noreturn void fy_err_fatal_code(int code);

/* Ends the job: message on stderr, then the launcher is told to stop all ranks. */
_Noreturn void fy_fatal(int code, const char *msg);

#endif
