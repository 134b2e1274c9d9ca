/* `ferry portal [options]`: starts the web portal (tools/portal, docs/DESIGN.md "The portal").
 *
 * The portal is a Python package run by the venv scripts/install-portal.sh makes; this command
 * only finds the pieces and execs `python -m ferry_portal ARGS`:
 * - the venv: $FERRY_PORTAL_VENV, else ${XDG_CACHE_HOME:-$HOME/.cache}/ferry-portal/venv;
 * - the package: <prefix>/share/ferry/portal when installed (cmake --install puts it there),
 *   else the source tree's tools/portal this binary was built from (FY_PORTAL_SRC);
 * - FERRY_PREFIX set to this ferry's prefix, so the runner uses our bin/mpicc and bin/mpiexec. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry.h"
#include "ferry_run.h"

#define PORTAL_WHO "ferry portal"

static void usage_short(FILE *f)
{
    fprintf(f, "usage: ferry portal [--config FILE] [--listen HOST:PORT] [--state DIR] [--demo]\n"
               "       ferry portal adduser NAME [--admin] [--password-stdin]\n");
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The venv's directory into out; its python is out/bin/python. */
static void venv_dir(char *out, size_t n)
{
    const char *v = getenv("FERRY_PORTAL_VENV");
    const char *cache = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (v != NULL && v[0] != '\0')
        snprintf(out, n, "%s", v);
    else if (cache != NULL && cache[0] != '\0')
        snprintf(out, n, "%s/ferry-portal/venv", cache);
    else
        snprintf(out, n, "%s/.cache/ferry-portal/venv", home != NULL ? home : "");
}

/* The directory holding the ferry_portal package into out; -1 when neither exists. */
static int package_dir(const char *prefix, char *out, size_t n)
{
    char pkg[PATH_MAX + 32];
    snprintf(out, n, "%s/share/ferry/portal", prefix);
    snprintf(pkg, sizeof pkg, "%s/ferry_portal", out);
    if (is_dir(pkg))
        return 0;
#ifdef FY_PORTAL_SRC
    snprintf(out, n, "%s", FY_PORTAL_SRC);
    snprintf(pkg, sizeof pkg, "%s/ferry_portal", out);
    if (is_dir(pkg))
        return 0;
#endif
    return -1;
}

int fy_tool_portal(int argc, char **argv)
{
    char venv[PATH_MAX], python[PATH_MAX + 16], pkg[PATH_MAX];
    const char *prefix = fy_run_prefix();
    venv_dir(venv, sizeof venv);
    snprintf(python, sizeof python, "%s/bin/python", venv);
    if (access(python, X_OK) != 0) {
        int asked_help =
            argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0);
        if (asked_help)
            usage_short(stdout);
        fprintf(asked_help ? stdout : stderr,
                PORTAL_WHO ": the portal is not installed: no python in %s (%s).\n"
                "Run scripts/install-portal.sh from Ferry's sources to make it "
                "(or set FERRY_PORTAL_VENV to the venv it made).\n",
                venv, strerror(errno));
        return asked_help ? 0 : 1;
    }
    if (package_dir(prefix, pkg, sizeof pkg) != 0) {
        fprintf(stderr, PORTAL_WHO ": the ferry_portal package is in neither %s/share/ferry/portal "
                        "nor the source tree this ferry was built from\n", prefix);
        return 1;
    }
    /* Our own package first on the path; the venv's site-packages come with its python. */
    const char *old = getenv("PYTHONPATH");
    char *path = malloc(strlen(pkg) + (old ? strlen(old) : 0) + 2);
    if (path == NULL)
        return 1;
    if (old != NULL && old[0] != '\0')
        sprintf(path, "%s:%s", pkg, old);
    else
        sprintf(path, "%s", pkg);
    if (setenv("PYTHONPATH", path, 1) != 0 || setenv("FERRY_PREFIX", prefix, 1) != 0) {
        fprintf(stderr, PORTAL_WHO ": setenv: %s\n", strerror(errno));
        return 1;
    }
    free(path);
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (args == NULL)
        return 1;
    int k = 0;
    args[k++] = python;
    args[k++] = "-m";
    args[k++] = "ferry_portal";
    for (int i = 1; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;
    execv(python, args);
    fprintf(stderr, PORTAL_WHO ": cannot run %s: %s\n", python, strerror(errno));
    return 1;
}
