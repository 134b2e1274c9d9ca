/* Between ferry_debug.c (the flags, the ranks' settings, the report of a directory) and
 * ferry_debug_read.c (one sanitizer report file read into one rank's error). */
#ifndef FERRY_DEBUG_READ_H
#define FERRY_DEBUG_READ_H

#include <limits.h>
#include <stddef.h>

/* One rank's error, as we tell it. */
typedef struct fy_debug_err {
    int rank;
    char path[PATH_MAX]; /* the report file */
    char kind[64];       /* what happened, to tell a second rank's error from the first */
    char msg[3 * PATH_MAX]; /* the message after the location */
    char file[PATH_MAX];    /* where in the program: file, line, column (0: unknown) */
    int line, col;
    char name[128]; /* the variable the caret points at, or "" */
    char where[PATH_MAX + 512]; /* "in f(), called from main at line 9", or "" in main */
    int cut;        /* the report ends before its stack (the rank was stopped writing it) */
} fy_debug_err_t;

/* The first error of a report file into *e (kind, msg, file, line, col, name, cut); 0 when the
 * file holds none (a warning alone is none). */
int fy_debug_read(const char *path, fy_debug_err_t *e);

/* The directory the job ran in (relative paths in reports are relative to it); set by the
 * report before reading. */
extern char fy_debug_cwd[PATH_MAX];

/* A path relative to fy_debug_cwd when it is below it, else as given. */
void fy_debug_short_path(const char *file, char *out, size_t n);

/* Line `line` of `file` into out (without its newline); 0 when it cannot be read. */
int fy_debug_source_line(const char *file, int line, char *out, size_t n);

/* Where the identifier `name` occurs as a whole word in s (the first subscript or member
 * access of it if any, else the first occurrence), or -1. */
int fy_debug_find_word(const char *s, const char *name);

#endif
