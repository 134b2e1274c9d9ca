/* `ferry run`: a C or C++ MPI program compiled (once, cached) and run in one step. The design is
 * written at the top of ferry_run.c; this header is what its files share:
 *   ferry_run.c          the two entry points (`ferry run`, the per-rank `ferry _exec`)
 *   ferry_run_args.c     the command line: mpiexec options, compiler flags, sources, arguments
 *   ferry_run_bundle.c   a program as bytes (sources, flags, compilers): the cache key and what
 *                        travels to other hosts
 *   ferry_run_cache.c    the cache: where, entries, header manifests, locks, atomic writes
 *   ferry_run_compile.c  the compiler command and its run
 *   ferry_run_launch.c   mpiexec: exec'd in the plain case, else waited for and cleaned after */
#ifndef FERRY_RUN_H
#define FERRY_RUN_H

#include <stddef.h>
#include <stdio.h>

/* Exit statuses of `ferry run` itself (the program's own status passes through otherwise). */
enum {
    FY_RUN_EXIT_FAIL = 1,      /* ferry could not do its part (cache, fork, memory) */
    FY_RUN_EXIT_USAGE = 2,     /* bad command line, or a compile error */
    FY_RUN_EXIT_NOSRC = 127,   /* a source file that cannot be read */
};

/* One source file of a program. */
typedef struct fy_run_src {
    char *name; /* as the user gave it ("<stdin>" for -): diagnostics and __FILE__ say this */
    char *dir;  /* its directory, absolute: where its #include "..." look (-iquote) */
    char *text; /* the contents; a first line starting with #! is blanked at compile time */
    size_t len;
    int cxx;    /* C++ (.cc .cpp .cxx .C .c++), else C */
} fy_run_src_t;

/* A program: everything its binary depends on apart from the headers, which each cache entry
 * records in its manifest. Serialised by ferry_run_bundle.c; the SHA-256 of that is the key. */
typedef struct fy_run_prog {
    char *cc;   /* the C compiler command (words: "ccache gcc" is allowed) */
    char *cxx;  /* the C++ compiler command */
    char **flags; /* the user's compiler flags, relative -I/-L made absolute */
    int nflags;
    int debug;  /* --debug: fy_debug_cflags added */
    int g;      /* -g added (--check: reports name lines) */
    fy_run_src_t *src;
    int nsrc;
    char *stem; /* the binary's name: the first source's without directory and extension */
} fy_run_prog_t;

/* The parsed command line of `ferry run`. */
typedef struct fy_run_cmd {
    fy_run_prog_t prog;
    char **mpx; /* mpiexec's options, as given */
    int nmpx;
    char **args; /* the program's arguments */
    int nargs;
    int check, no_cache, verbose, help, clear_cache;
    int multihost; /* the options name hosts, or a batch allocation is around: ranks via _exec */
} fy_run_cmd_t;

/* ferry_run_args.c. Returns 0, or the exit status after printing one message. */
int fy_run_parse(fy_run_cmd_t *c, int argc, char **argv);
void fy_run_usage(FILE *f);
/* Reads a whole file (or fd 0 for "-"): 0, or -1 with errno. */
int fy_run_read_file(const char *path, char **text, size_t *len);
/* xmalloc-style helpers: print "ferry: out of memory" and exit 1 on failure. */
void *fy_run_xalloc(size_t n);
char *fy_run_xstrdup(const char *s);
char *fy_run_xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Splits a compiler command into words (on blanks): NULL-terminated, count in *n. */
char **fy_run_words(const char *cmd, int *n);

/* ferry_run_bundle.c */
void fy_run_bundle_make(const fy_run_prog_t *p, char **buf, size_t *len);
/* 0 on success; -1 if the bytes are not a bundle. */
int fy_run_bundle_read(const char *buf, size_t len, fy_run_prog_t *p);
/* The key: 64 hex digits of SHA-256 over the bundle (which holds Ferry's version and prefix). */
void fy_run_key(const char *bundle, size_t len, char key[65]);

/* ferry_run_cache.c */
/* The cache's directory for `ferry run` ($FERRY_CACHE, else $XDG_CACHE_HOME/ferry, else
 * ~/.cache/ferry; then run/), created 0700: 0, or -1 with the reason written into why. */
int fy_run_cache_dir(char *out, size_t n, int create, char *why, size_t nwhy);
/* Finds the binary of `key` for this host's architecture, compiling it (under the key's lock)
 * when missing or out of date. `who` names the caller in messages ("ferry run", "ferry
 * _exec"). 0 with the binary's path in exe; else an exit status (message written). */
int fy_run_cache_get(const fy_run_prog_t *p, const char *bundle, size_t blen, const char *key,
                     int verbose, const char *who, char *exe, size_t nexe);
/* Reads the bundle stored with a key's entry: 0, or -1. */
int fy_run_cache_bundle(const char *key, char **buf, size_t *len);
int fy_run_cache_clear(void);
/* Removes a directory tree (nothing followed through symlinks). */
void fy_run_rmtree(const char *path);
/* The host architecture the cache files binaries under ($FERRY_RUN_ARCH overrides). */
void fy_run_arch(char *out, size_t n);
/* Replaces %h in s with this host's name (for FERRY_CACHE and FERRY_RUN_ARCH). */
char *fy_run_expand_host(const char *s);

/* ferry_run_compile.c */
/* Ferry's prefix (the directory holding bin/ferry, include/mpi.h and lib/libmpi.so). */
const char *fy_run_prefix(void);
/* Compiles p into dir/<stem>, writing dir/manifest (the headers it read). 0, FY_RUN_EXIT_USAGE
 * after the compiler's own diagnostics, or FY_RUN_EXIT_FAIL (message written). */
int fy_run_compile(const fy_run_prog_t *p, const char *dir, int verbose, const char *who);
/* From here on SIGINT, SIGTERM and SIGHUP are passed to a running compiler and remembered:
 * fy_run_compile then returns 128 + the signal, after undoing its work. */
void fy_run_catch_signals(void);
int fy_run_interrupted(void); /* the signal caught, or 0 */
/* The identity of the compilers p uses (resolved path, size, mtime): hashed into the name of
 * the directory its binaries go to. */
void fy_run_compiler_id(const fy_run_prog_t *p, char *out, size_t n);

/* ferry_run_launch.c */
/* Runs the job: execs mpiexec when nothing is to be done after it, else waits for it, removes
 * `cleanup` (a directory, may be NULL) and, with debug_dir, prints the sanitizer reports. */
int fy_run_launch(const fy_run_cmd_t *c, const char *exe, const char *key, const char *bundle,
                  size_t blen, const char *cleanup, const char *debug_dir);

/* ferry_run.c: the subcommands (argv[0] is the subcommand's name). */
int fy_tool_run(int argc, char **argv);
int fy_tool_run_exec(int argc, char **argv);

#endif
