/* `ferry run`: C and C++ MPI programs run like scripts.
 *
 *   ferry run [mpiexec options] [compiler flags] [options] prog.c [more.c ...] [-- args]
 *
 * Design.
 * - The command line (ferry_run_args.c) splits into mpiexec's options (every one of them, passed
 *   unchanged), compiler flags, ferry's own options, the sources and the program's arguments.
 *   A file whose first line is "#!/usr/bin/env -S ferry run -n 4" runs when executed: the kernel
 *   and env make that `ferry run -n 4 ./prog.c args`, and all after the script is its own.
 * - The program becomes a bundle (ferry_run_bundle.c): Ferry's version and prefix, the compiler
 *   commands, the flags, each source's name, directory and text. Its SHA-256 is the cache key.
 *   Under the key, each architecture (machine + compiler identity) has its binary and a manifest
 *   of the headers it read (ferry_run_cache.c). A run whose key, architecture and headers match
 *   execs mpiexec on the cached binary at once: no compiler, no preprocessor, no shell, no fork.
 * - A miss compiles once, under a lock, before any rank starts (ferry_run_compile.c): the
 *   compiler's own diagnostics appear once, then "compile error in prog.c (no ranks started)"
 *   and exit status 2.
 * - Several hosts (host options, or a batch allocation): each rank is `ferry _exec KEY -- args`.
 *   On its host it looks the key up in that host's cache and, when that host's architecture has
 *   no binary yet, compiles it there (under the same lock: the ranks of a host compile once)
 *   from the bundle, read from the cache when the directory is shared, else from
 *   FERRY_RUN_BUNDLE, which mpiexec passes on with the environment (programs up to 96 KiB).
 * - --debug: a -g + sanitizers build (ferry_debug.h); every rank goes through `_exec`, which sets
 *   the rank's sanitizer options; after the job, one short report per failing rank.
 *   --check: mpiexec --check, and -g. --no-cache: a temporary directory, removed after the job.
 *
 * Exit status: the job's (mpiexec's), else 2 for usage and compile errors, 127 for a source that
 * cannot be read, 1 when ferry itself fails (cache, memory, mpiexec missing). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry_debug.h"
#include "ferry_run.h"

/* A directory of our own under $TMPDIR (or /tmp): 0, or -1 after a message. */
static int temp_dir(const char *what, char *out, size_t n)
{
    const char *t = getenv("TMPDIR");
    snprintf(out, n, "%s/ferry-%s.XXXXXX", t && *t == '/' ? t : "/tmp", what);
    if (mkdtemp(out) == NULL) {
        fprintf(stderr, "ferry run: cannot create a temporary directory '%s': %s\n", out,
                strerror(errno));
        return -1;
    }
    return 0;
}

int fy_tool_run(int argc, char **argv)
{
    fy_run_cmd_t c;
    int rc = fy_run_parse(&c, argc, argv);
    if (rc != 0)
        return rc;
    if (c.help) {
        fy_run_usage(stdout);
        return 0;
    }
    if (c.clear_cache)
        return fy_run_cache_clear();
    fy_run_prog_t *p = &c.prog;
    char *bundle;
    size_t blen;
    char key[65];
    fy_run_bundle_make(p, &bundle, &blen);
    fy_run_key(bundle, blen, key);
    if (c.verbose)
        fprintf(stderr, "ferry run: key %s\n", key);

    char cdir[PATH_MAX], why[PATH_MAX + 128];
    if (!c.no_cache && fy_run_cache_dir(cdir, sizeof cdir, 1, why, sizeof why) != 0) {
        /* A read-only home should not stop a program from running: compile it for this once. */
        fprintf(stderr, "ferry run: %s; compiling without the cache\n", why);
        c.no_cache = 1;
    }
    fy_run_catch_signals(); /* a compile interrupted leaves nothing behind */
    char exe[PATH_MAX], tmp[PATH_MAX], dbg[PATH_MAX];
    const char *cleanup = NULL, *debug_dir = NULL;
    if (c.no_cache) {
        if (temp_dir("run", tmp, sizeof tmp) != 0)
            return FY_RUN_EXIT_FAIL;
        cleanup = tmp;
        rc = fy_run_compile(p, tmp, c.verbose, "ferry run");
        if (snprintf(exe, sizeof exe, "%s/%s", tmp, p->stem) >= (int)sizeof exe)
            rc = FY_RUN_EXIT_FAIL; /* cannot be: both parts are short */
    } else {
        rc = fy_run_cache_get(p, bundle, blen, key, c.verbose, "ferry run", exe, sizeof exe);
    }
    if (rc != 0) {
        if (rc == FY_RUN_EXIT_USAGE)
            fprintf(stderr, "ferry run: compile error in %s (no ranks started)\n",
                    p->src[0].name);
        if (cleanup != NULL)
            fy_run_rmtree(cleanup);
        return rc;
    }
    if (fy_run_interrupted()) { /* after the compile, before the job: no job */
        if (cleanup != NULL)
            fy_run_rmtree(cleanup);
        return 128 + fy_run_interrupted();
    }
    if (p->debug) {
        if (temp_dir("debug", dbg, sizeof dbg) != 0) {
            if (cleanup != NULL)
                fy_run_rmtree(cleanup);
            return FY_RUN_EXIT_FAIL;
        }
        debug_dir = dbg;
    }
    return fy_run_launch(&c, exe, key, bundle, blen, cleanup, debug_dir);
}

/* `ferry _exec [--debug DIR] [--exe PATH] [-v] KEY -- args`: one rank, on its host. */
int fy_tool_run_exec(int argc, char **argv)
{
    const char *who = "ferry _exec", *debug_dir = NULL, *key = NULL, *exe_given = NULL;
    int verbose = 0, i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--debug") == 0 && i + 1 < argc)
            debug_dir = argv[++i];
        else if (strcmp(argv[i], "--exe") == 0 && i + 1 < argc)
            exe_given = argv[++i];
        else if (strcmp(argv[i], "-v") == 0)
            verbose = 1;
        else if (strcmp(argv[i], "--") == 0)
            break;
        else if (key == NULL && strlen(argv[i]) == 64 && strspn(argv[i], "0123456789abcdef") == 64)
            key = argv[i];
        else {
            fprintf(stderr, "%s: unexpected argument '%s' (this command is started by ferry "
                            "run, one per rank)\n", who, argv[i]);
            return FY_RUN_EXIT_USAGE;
        }
    }
    if (key == NULL || i >= argc) {
        fprintf(stderr, "usage: ferry _exec [--debug DIR] [--exe PATH] [-v] KEY -- args "
                        "(started by ferry run, one per rank)\n");
        return FY_RUN_EXIT_USAGE;
    }
    char **args = argv + i + 1;
    int nargs = argc - i - 1;
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "?");
    host[sizeof(host) - 1] = '\0';

    char exe[PATH_MAX];
    if (exe_given != NULL && access(exe_given, X_OK) == 0) {
        snprintf(exe, sizeof exe, "%s", exe_given);
    } else {
        /* The program: from the environment when it is the one meant, else from the cache. */
        char *bundle = NULL;
        size_t blen = 0;
        char k2[65];
        const char *env = getenv("FERRY_RUN_BUNDLE");
        if (env != NULL) {
            fy_run_key(env, strlen(env), k2);
            if (strcmp(k2, key) == 0) {
                bundle = fy_run_xstrdup(env);
                blen = strlen(env);
            }
        }
        if (bundle == NULL && fy_run_cache_bundle(key, &bundle, &blen) != 0) {
            fprintf(stderr, "%s: rank %s on %s: program %.12s... is not in this host's cache and "
                            "did not come with the environment (too large, or -genvnone): "
                            "share the cache directory (FERRY_CACHE) between the hosts\n",
                    who, getenv("PMI_RANK") ? getenv("PMI_RANK") : "?", host, key);
            return FY_RUN_EXIT_NOSRC;
        }
        fy_run_key(bundle, blen, k2);
        fy_run_prog_t p;
        if (strcmp(k2, key) != 0 || fy_run_bundle_read(bundle, blen, &p) != 0) {
            fprintf(stderr, "%s: on %s: the stored program %.12s... is damaged; run ferry run "
                            "--clear-cache\n", who, host, key);
            return FY_RUN_EXIT_FAIL;
        }
        fy_run_catch_signals();
        int rc = fy_run_cache_get(&p, bundle, blen, key, verbose, who, exe, sizeof exe);
        if (rc == FY_RUN_EXIT_USAGE)
            fprintf(stderr, "%s: compile error in %s on host %s\n", who, p.src[0].name, host);
        if (rc != 0)
            return rc;
        if (verbose)
            fprintf(stderr, "%s: rank %s on %s runs %s\n", who,
                    getenv("PMI_RANK") ? getenv("PMI_RANK") : "?", host, exe);
    }
    unsetenv("FERRY_RUN_BUNDLE"); /* the program has no use for it */
    if (debug_dir != NULL) {
        const char *r = getenv("PMI_RANK");
        mkdir(debug_dir, 0700); /* on a host that does not share the launcher's /tmp */
        fy_debug_rank_env(debug_dir, r != NULL ? atoi(r) : 0);
    }
    char **av = malloc(sizeof(char *) * (size_t)(nargs + 2));
    if (av == NULL)
        return FY_RUN_EXIT_FAIL;
    av[0] = exe;
    for (int k = 0; k < nargs; k++)
        av[k + 1] = args[k];
    av[nargs + 1] = NULL;
    execv(exe, av);
    fprintf(stderr, "%s: cannot run '%s': %s\n", who, exe, strerror(errno));
    return 126;
}
