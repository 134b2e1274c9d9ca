/* ferry/trace.h: named regions and notes in a Ferry trace (mpiexec --trace DIR).
 *
 *     #include <ferry/trace.h>
 *     ferry_trace_begin("solve");
 *     ...                        // MPI calls and computation
 *     ferry_trace_end("solve");
 *
 * Regions nest; ending a region also ends the regions opened inside it and still open. Names
 * are compared as strings (a few hundred distinct ones are kept). Without --trace these do
 * nothing: libmpi has empty ones, which the recorder (libferry_prof.so, preloaded by mpiexec
 * --trace and --profile) replaces. Nothing to link beyond what mpicc links. MPI_Pcontrol works
 * too: 0 pauses recording, 1 resumes it, N >= 2 opens the region "Pcontrol N" and -N closes
 * it. */
#ifndef FERRY_TRACE_H
#define FERRY_TRACE_H

#if defined(__GNUC__)
#define FERRY_TRACE_API __attribute__((visibility("default")))
#else
#define FERRY_TRACE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the region `name` on this rank's timeline. */
FERRY_TRACE_API void ferry_trace_begin(const char *name);
/* Closes the innermost open region called `name` (and any opened inside it). */
FERRY_TRACE_API void ferry_trace_end(const char *name);
/* A text note at this moment on this rank's timeline. */
FERRY_TRACE_API void ferry_trace_note(const char *text);

#ifdef __cplusplus
}
#endif

#endif
