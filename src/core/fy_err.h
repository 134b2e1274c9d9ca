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

/* Error codes with a message: a code above the classes maps to a stored message. */
int fy_err_code_for_message(int cls);
int fy_err_class_of(int code);
const char *fy_err_code_message(int code);
const char *fy_err_class_text(int cls);

/* Writes "MPI_x: MPI_ERR_UNSUPPORTED_OPERATION" message and raises on comm. */
int fy_err_unsupported(const char *fn, MPI_Comm comm);

/* Ends the job: message on stderr, then the launcher is told to stop all ranks. */
_Noreturn void fy_fatal(int code, const char *msg);

#endif
