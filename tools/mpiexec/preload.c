/* Tool libraries preloaded into the ranks, and their variables (preload.h). */
#include "preload.h"

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

const char *fy_mpx_env_user(const fy_mpx_opts_t *o, const char *name, int *at)
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

int fy_mpx_env_set(fy_mpx_env_t *e, int at, const char *name, const char *value)
{
    if (fy_mpx_env_add(e, name, value) != 0)
        return -1;
    if (at >= 0)
        drop_var(e, at);
    return 0;
}

int fy_mpx_tool_lib(const char *opt, const char *what, const char *name, char *out, size_t len)
{
    char self[PATH_MAX - 64];
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
        fprintf(stderr, FY_MPX_PROG ": %s needs %s '%s': %s (it is installed in the lib "
                "directory next to mpiexec's bin directory)\n", opt, what, out, strerror(errno));
        return -1;
    }
    return 0;
}

int fy_mpx_preload(fy_mpx_opts_t *o, const char *lib)
{
    int at, asan_at;
    const char *user = fy_mpx_env_user(o, "LD_PRELOAD", &at);
    size_t len = strlen(lib);
    /* Already in front (--profile and --monitor both want libferry_prof.so): once is enough. */
    if (at >= 0 && user != NULL && strncmp(user, lib, len) == 0 &&
        (user[len] == '\0' || user[len] == ':'))
        return 0;
    char *preload = NULL, *asan = NULL;
    const char *uasan = fy_mpx_env_user(o, "ASAN_OPTIONS", &asan_at);
    if (asprintf(&preload, "%s%s%s", lib, user && *user ? ":" : "", user ? user : "") < 0 ||
        asprintf(&asan, "%s%sverify_asan_link_order=0", uasan ? uasan : "",
                 uasan && *uasan ? ":" : "") < 0)
        return -1;
    int rc = fy_mpx_env_set(&o->env, at, "LD_PRELOAD", preload);
    if (uasan == NULL || strstr(uasan, "verify_asan_link_order") == NULL) {
        fy_mpx_env_user(o, "ASAN_OPTIONS", &asan_at); /* the index may have moved */
        rc |= fy_mpx_env_set(&o->env, asan_at, "ASAN_OPTIONS", asan);
    }
    free(preload);
    free(asan);
    return rc;
}
