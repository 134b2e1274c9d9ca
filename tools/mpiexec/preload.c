/* Loading a PMPI tool library in front of libmpi in every rank (LD_PRELOAD): --check's
 * libferry_check.so, the recorder libferry_prof.so of --monitor (and --profile, --trace). The
 * libraries are installed in the lib directory next to mpiexec's bin directory (the build tree
 * has the same layout). The variables go through -genv's list, which proxies pass on too. */
#include "mpiexec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int fy_mpx_env_add(fy_mpx_env_t *e, const char *name, const char *value)
{
    char *s;
    if (asprintf(&s, "%s=%s", name, value) < 0)
        return -1;
    char **v = realloc(e->var, sizeof(*e->var) * (size_t)(e->n + 1));
    if (v == NULL) {
        free(s);
        return -1;
    }
    e->var = v;
    e->var[e->n++] = s;
    return 0;
}

/* The user's value of a variable for the ranks: from -genv/-x if given there (*at its index),
 * else ours. */
static const char *user_value(const fy_mpx_opts_t *o, const char *name, int *at)
{
    size_t len = strlen(name);
    *at = -1;
    for (int i = o->env.n - 1; i >= 0; i--)
        if (strncmp(o->env.var[i], name, len) == 0 && o->env.var[i][len] == '=') {
            *at = i;
            return o->env.var[i] + len + 1;
        }
    return o->env_none ? NULL : getenv(name);
}

static void drop_var(fy_mpx_env_t *e, int at)
{
    free(e->var[at]);
    memmove(&e->var[at], &e->var[at + 1], sizeof(char *) * (size_t)(e->n - at - 1));
    e->n--;
}

/* Sets name=value for the ranks in place of the user's -genv of it, if any. */
static int set_var(fy_mpx_env_t *e, int at, const char *name, const char *value)
{
    if (fy_mpx_env_add(e, name, value) != 0)
        return -1;
    if (at >= 0)
        drop_var(e, at);
    return 0;
}

static int find_library(const char *name, const char *opt, const char *what, char *out,
                        size_t len)
{
    char self[PATH_MAX - 32];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        fprintf(stderr, FY_MPX_PROG ": %s: cannot find our own program (/proc/self/exe)\n", opt);
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(out, len, "%s/lib/%s", slash != NULL ? self : "..", name);
    if (access(out, R_OK) != 0) {
        fprintf(stderr, FY_MPX_PROG ": %s needs the %s library '%s': %s (it is installed in the "
                "lib directory next to mpiexec's bin directory)\n", opt, what, out,
                strerror(errno));
        return -1;
    }
    return 0;
}

int fy_mpx_preload(fy_mpx_opts_t *o, const char *name, const char *opt, const char *what)
{
    char lib[PATH_MAX];
    if (find_library(name, opt, what, lib, sizeof(lib)) != 0)
        return -1;
    /* Ours first, the user's after it. A program built with AddressSanitizer (ferry run
     * --debug) refuses to start when its runtime is not the first library loaded; it works
     * with ours in front, so it is told not to check. */
    int at, asan_at;
    const char *user = user_value(o, "LD_PRELOAD", &at);
    if (user != NULL && strstr(user, lib) != NULL)
        return 0; /* asked for by two options (--trace --monitor): once is enough */
    char *preload = NULL, *asan = NULL;
    const char *uasan = user_value(o, "ASAN_OPTIONS", &asan_at);
    if (asprintf(&preload, "%s%s%s", lib, user && *user ? ":" : "", user ? user : "") < 0 ||
        asprintf(&asan, "%s%sverify_asan_link_order=0", uasan ? uasan : "",
                 uasan && *uasan ? ":" : "") < 0) {
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
        return -1;
    }
    int rc = set_var(&o->env, at, "LD_PRELOAD", preload);
    if (uasan == NULL || strstr(uasan, "verify_asan_link_order") == NULL) {
        user_value(o, "ASAN_OPTIONS", &asan_at); /* the index may have moved */
        rc |= set_var(&o->env, asan_at, "ASAN_OPTIONS", asan);
    }
    free(preload);
    free(asan);
    if (rc != 0)
        fprintf(stderr, FY_MPX_PROG ": out of memory\n");
    return rc;
}
