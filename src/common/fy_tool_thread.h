/* A tool's thread inside a rank (--check's watch, src/tools/check/chk_watch.c; --monitor's
 * snapshots, src/tools/prof/prof_monitor.c): every signal blocked, so that the program's
 * handlers never run on it; a small stack; and a pipe that wakes it from its poll() for its last
 * words when the rank finalizes. Header only: the PMPI libraries and the tests that compile a
 * tool's file by hand need nothing more. */
#ifndef FY_TOOL_THREAD_H
#define FY_TOOL_THREAD_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

typedef struct fy_tool_thread {
    pthread_t th;
    int wake[2]; /* the thread polls wake[0]; fy_tool_thread_stop writes to wake[1] */
} fy_tool_thread_t;

/* Makes the pipe and starts fn; 0, or -1 with nothing left open. */
static inline int fy_tool_thread_start(fy_tool_thread_t *t, size_t stack, void *(*fn)(void *))
{
    if (pipe2(t->wake, O_CLOEXEC) != 0)
        return -1;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, stack);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* inherited by the thread */
    int rc = pthread_create(&t->th, &at, fn, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        close(t->wake[0]);
        close(t->wake[1]);
        t->wake[0] = t->wake[1] = -1;
        return -1;
    }
    return 0;
}

/* Wakes the thread (it sees wake[0] readable and ends), waits for it, closes the pipe. */
static inline void fy_tool_thread_stop(fy_tool_thread_t *t)
{
    while (write(t->wake[1], "x", 1) < 0 && errno == EINTR)
        ;
    pthread_join(t->th, NULL);
    close(t->wake[0]);
    close(t->wake[1]);
    t->wake[0] = t->wake[1] = -1;
}

#endif
