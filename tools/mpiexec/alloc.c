/* The hosts of a batch system's allocation, for an mpiexec given no host list (docs/DESIGN.md,
 * "Launching across hosts"): Slurm's compressed node list and task counts, PBS/Torque's and
 * LSF's one-line-per-slot host files, Grid Engine's `host slots ...` file, LSF's `host n` pairs.
 *
 * Every allocation is read into the same host table a host file fills (hosts.c), each host with
 * the slots the batch system gave it, counted: a limit like `name:N`, so more ranks than the
 * allocation holds needs --oversubscribe. When several batch systems' variables are set (a
 * Slurm job started from a PBS one, say) the first of Slurm, PBS, Grid Engine, LSF wins.
 *
 * A value that does not parse ends mpiexec with a message naming the variable and quoting it:
 * running on a guess of the hosts would put ranks where the batch system gave us nothing. */
#include "mpiexec.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bound on the hosts one node list may expand to, so that a typo such as node[1-99999999]
 * is an error and not minutes of allocation. Far above any allocation a job of
 * FY_MPX_MAX_RANKS ranks could use. */
#define MAX_NODES 65536
/* Digits of a number in a range: 9 keep every value and its successor within an int. */
#define MAX_DIGITS 9

static int fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- Slurm's node list ---- */

typedef struct names {
    char **v;
    int n, cap;
} names_t;

static int names_push(names_t *nm, const char *s, size_t len)
{
    if (nm->n == nm->cap) {
        int cap = nm->cap ? 2 * nm->cap : 16;
        char **v = realloc(nm->v, sizeof(*v) * (size_t)cap);
        if (v == NULL)
            return -1;
        nm->v = v;
        nm->cap = cap;
    }
    if ((nm->v[nm->n] = strndup(s, len)) == NULL)
        return -1;
    nm->n++;
    return 0;
}

static void names_free(names_t *nm)
{
    for (int i = 0; i < nm->n; i++)
        free(nm->v[i]);
    free(nm->v);
    *nm = (names_t){0};
}

static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return n > 0;
}

/* One host expression (no comma outside brackets), e[0..elen): the text before its first
 * bracket group, each number of the group written as wide as its range's first number was
 * (node[08-11] gives node08..node11), then the rest, which may hold more groups: expanded the
 * same way for each number, so the first group varies slowest (r[1-2]n[3-4] gives r1n3, r1n4,
 * r2n3, r2n4), as Slurm orders them. */
static int expand_one(names_t *out, const char *e, size_t elen, const char *var, const char *val,
                      char *err, size_t len)
{
    const char *open = memchr(e, '[', elen);
    const char *close = memchr(e, ']', elen);
    if (open == NULL) {
        if (close != NULL)
            return fail(err, len, "malformed %s '%s': ']' without '['", var, val);
        if (elen == 0)
            return fail(err, len, "malformed %s '%s': an empty host name", var, val);
        if (out->n >= MAX_NODES)
            return fail(err, len, "%s '%s' names more than %d hosts", var, val, MAX_NODES);
        return names_push(out, e, elen) == 0 ? 0 : fail(err, len, "out of memory");
    }
    if (close == NULL || close < open)
        return fail(err, len, "malformed %s '%s': %s", var, val,
                    close == NULL ? "'[' without ']'" : "']' without '['");
    const char *in = open + 1;
    if (memchr(in, '[', (size_t)(close - in)) != NULL)
        return fail(err, len, "malformed %s '%s': '[' inside brackets", var, val);
    if (close == in)
        return fail(err, len, "malformed %s '%s': empty brackets", var, val);
    size_t pre = (size_t)(open - e), rest = elen - (size_t)(close + 1 - e);
    /* Each comma-separated range of the group: N or LO-HI. */
    for (const char *r = in; r < close;) {
        const char *rend = memchr(r, ',', (size_t)(close - r));
        if (rend == NULL)
            rend = close;
        const char *dash = memchr(r, '-', (size_t)(rend - r));
        const char *lo = r, *hi = dash ? dash + 1 : r;
        size_t lolen = (size_t)((dash ? dash : rend) - lo), hilen = (size_t)(rend - hi);
        if (!all_digits(lo, lolen) || !all_digits(hi, hilen))
            return fail(err, len, "malformed %s '%s': '%.*s' in brackets is not a number or a "
                        "range N-M", var, val, (int)(rend - r), r);
        if (lolen > MAX_DIGITS || hilen > MAX_DIGITS)
            return fail(err, len, "malformed %s '%s': '%.*s' has more than %d digits", var, val,
                        (int)(rend - r), r, MAX_DIGITS);
        int a = atoi(lo), b = atoi(hi), width = (int)lolen;
        if (b < a)
            return fail(err, len, "malformed %s '%s': the range '%.*s' runs backwards", var, val,
                        (int)(rend - r), r);
        if (b - a >= MAX_NODES || out->n + (b - a) >= MAX_NODES)
            return fail(err, len, "%s '%s' names more than %d hosts", var, val, MAX_NODES);
        for (int v = a; v <= b; v++) {
            char num[MAX_DIGITS + 2];
            int nl = snprintf(num, sizeof num, "%0*d", width, v);
            size_t wl = pre + (size_t)nl + rest;
            char *w = malloc(wl + 1);
            if (w == NULL)
                return fail(err, len, "out of memory");
            memcpy(w, e, pre);
            memcpy(w + pre, num, (size_t)nl);
            memcpy(w + pre + (size_t)nl, close + 1, rest);
            w[wl] = '\0';
            int rc = expand_one(out, w, wl, var, val, err, len);
            free(w);
            if (rc != 0)
                return rc;
        }
        r = rend + (rend < close);
        if (rend < close && r == close)
            return fail(err, len, "malformed %s '%s': an empty range before ']'", var, val);
    }
    return 0;
}

int fy_mpx_slurm_nodelist(const char *list, const char *var, char ***names_p, int *n_p,
                          char *err, size_t len)
{
    names_t nm = {0};
    /* Host expressions are separated by the commas outside brackets. */
    const char *e = list;
    int depth = 0;
    for (const char *p = list;; p++) {
        if (*p == '[')
            depth++;
        else if (*p == ']')
            depth--;
        if (depth < 0) {
            fail(err, len, "malformed %s '%s': ']' without '['", var, list);
            goto err;
        }
        if ((*p == ',' && depth == 0) || *p == '\0') {
            if (expand_one(&nm, e, (size_t)(p - e), var, list, err, len) != 0)
                goto err;
            e = p + 1;
        }
        if (*p == '\0')
            break;
    }
    *names_p = nm.v;
    *n_p = nm.n;
    return 0;
err:
    names_free(&nm);
    return -1;
}

int fy_mpx_slurm_counts(const char *spec, const char *var, int *count, int n, char *err,
                        size_t len)
{
    int k = 0;
    const char *p = spec;
    for (;;) {
        /* N, or N(xM): N for each of the next M hosts. */
        char *end;
        errno = 0;
        long c = strtol(p, &end, 10), times = 1;
        if (*p < '0' || *p > '9' || errno != 0 || c < 1 || c > FY_MPX_MAX_RANKS)
            return fail(err, len, "malformed %s '%s': counts from 1 to %d expected, as in "
                        "'2(x3),1'", var, spec, FY_MPX_MAX_RANKS);
        p = end;
        if (*p == '(') {
            if (p[1] != 'x' || p[2] < '0' || p[2] > '9')
                return fail(err, len, "malformed %s '%s': '(xM)' expected after a count", var,
                            spec);
            errno = 0;
            times = strtol(p + 2, &end, 10);
            if (*end != ')' || errno != 0 || times < 1 || times > MAX_NODES)
                return fail(err, len, "malformed %s '%s': '(xM)' expected after a count", var,
                            spec);
            p = end + 1;
        }
        for (long i = 0; i < times; i++, k++)
            if (k < n)
                count[k] = (int)c;
        if (k > MAX_NODES)
            return fail(err, len, "%s '%s' counts more than %d hosts", var, spec, MAX_NODES);
        if (*p == '\0')
            break;
        if (*p != ',')
            return fail(err, len, "malformed %s '%s': unexpected '%c'", var, spec, *p);
        p++;
    }
    if (k != n)
        return fail(err, len, "%s '%s' gives counts for %d host%s, but the node list names %d",
                    var, spec, k, k == 1 ? "" : "s", n);
    return 0;
}

/* The first of the variables that is set and not empty, and its name. */
static const char *env2(const char *a, const char *b, const char **name)
{
    const char *v = getenv(a);
    *name = a;
    if (v != NULL && *v != '\0')
        return v;
    v = b ? getenv(b) : NULL;
    if (b != NULL)
        *name = b;
    return v != NULL && *v != '\0' ? v : NULL;
}

int fy_mpx_alloc_in_slurm(void)
{
    const char *n;
    return env2("SLURM_JOB_ID", "SLURM_JOBID", &n) != NULL &&
           env2("SLURM_JOB_NODELIST", "SLURM_NODELIST", &n) != NULL;
}

static int read_slurm(fy_mpx_hosts_t *hs, char *err, size_t len)
{
    const char *lvar, *cvar;
    const char *list = env2("SLURM_JOB_NODELIST", "SLURM_NODELIST", &lvar);
    /* The tasks Slurm planned per node, else (an allocation made without a task count) its
     * CPUs per node, in the same notation. Inside a job step (srun ... mpiexec) the tasks are
     * the step's, for the step's nodes, while the node list is still the job's: there the
     * job's CPUs per node are the slots. */
    const char *step = env2("SLURM_STEP_ID", "SLURM_STEPID", &cvar);
    const char *counts = step != NULL ? env2("SLURM_JOB_CPUS_PER_NODE", NULL, &cvar)
                                      : env2("SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE",
                                             &cvar);
    char **names;
    int n;
    if (fy_mpx_slurm_nodelist(list, lvar, &names, &n, err, len) != 0)
        return -1;
    int rc = 0, *count = calloc((size_t)n, sizeof(*count));
    if (count == NULL)
        rc = fail(err, len, "out of memory");
    else if (counts == NULL)
        for (int i = 0; i < n; i++)
            count[i] = 1;
    else
        rc = fy_mpx_slurm_counts(counts, cvar, count, n, err, len);
    for (int i = 0; i < n && rc == 0; i++) {
        char why[256];
        if (fy_mpx_hosts_add(hs, names[i], count[i], 1, why, sizeof why) != 0)
            rc = fail(err, len, "%s '%s': %s", lvar, list, why);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(count);
    return rc;
}

/* ---- Host files ---- */

/* The words of each line of the file that var names, to line_fn; '#' starts a comment. */
static int read_file(fy_mpx_hosts_t *hs, const char *var, const char *path,
                     int (*line_fn)(fy_mpx_hosts_t *hs, char **w, int nw, char *why, size_t wl),
                     char *err, size_t len)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return fail(err, len, "cannot open the host file %s='%s': %s", var, path,
                    strerror(errno));
    char line[1024];
    int lineno = 0, rc = 0, before = hs->n;
    while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
        lineno++;
        line[strcspn(line, "#\r\n")] = '\0';
        char *w[8], *save = NULL;
        int nw = 0;
        for (char *t = strtok_r(line, " \t", &save); t != NULL && nw < 8;
             t = strtok_r(NULL, " \t", &save))
            w[nw++] = t;
        char why[256];
        if (nw > 0 && line_fn(hs, w, nw, why, sizeof why) != 0)
            rc = fail(err, len, "host file %s='%s', line %d: %s", var, path, lineno, why);
    }
    fclose(f);
    if (rc == 0 && hs->n == before)
        rc = fail(err, len, "the host file %s='%s' names no host", var, path);
    return rc;
}

/* PBS/Torque and LSF's LSB_DJOB_HOSTFILE: a host per line, as many lines as it has slots. */
static int line_per_slot(fy_mpx_hosts_t *hs, char **w, int nw, char *why, size_t wl)
{
    if (nw > 1)
        return fail(why, wl, "one host name per line expected, not '%s %s'", w[0], w[1]);
    return fy_mpx_hosts_add(hs, w[0], 1, 1, why, wl);
}

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || v < 1 || v > FY_MPX_MAX_RANKS)
        return -1;
    *out = (int)v;
    return 0;
}

/* Grid Engine's PE_HOSTFILE: `host slots queue processors` (only the first two matter). */
static int line_sge(fy_mpx_hosts_t *hs, char **w, int nw, char *why, size_t wl)
{
    int slots;
    if (nw < 2 || parse_count(w[1], &slots) != 0)
        return fail(why, wl, "'HOST SLOTS ...' expected, with SLOTS from 1 to %d",
                    FY_MPX_MAX_RANKS);
    return fy_mpx_hosts_add(hs, w[0], slots, 1, why, wl);
}

/* LSF's LSB_MCPU_HOSTS: `host1 n1 host2 n2 ...` in one variable. */
static int read_lsf_pairs(fy_mpx_hosts_t *hs, const char *val, char *err, size_t len)
{
    char *copy = strdup(val), *save = NULL;
    if (copy == NULL)
        return fail(err, len, "out of memory");
    int rc = 0, any = 0;
    for (char *h = strtok_r(copy, " \t\n", &save); h != NULL && rc == 0;
         h = strtok_r(NULL, " \t\n", &save), any = 1) {
        char *n = strtok_r(NULL, " \t\n", &save), why[256];
        int slots;
        if (n == NULL || parse_count(n, &slots) != 0)
            rc = fail(err, len, "malformed LSB_MCPU_HOSTS '%s': pairs 'HOST SLOTS' expected, "
                      "SLOTS from 1 to %d", val, FY_MPX_MAX_RANKS);
        else if (fy_mpx_hosts_add(hs, h, slots, 1, why, sizeof why) != 0)
            rc = fail(err, len, "LSB_MCPU_HOSTS '%s': %s", val, why);
    }
    free(copy);
    if (rc == 0 && !any)
        rc = fail(err, len, "LSB_MCPU_HOSTS '%s' names no host", val);
    return rc;
}

const char *fy_mpx_alloc_name(fy_mpx_rm_t rm)
{
    switch (rm) {
    case FY_MPX_RM_SLURM: return "Slurm";
    case FY_MPX_RM_PBS: return "PBS";
    case FY_MPX_RM_SGE: return "Grid Engine";
    case FY_MPX_RM_LSF: return "LSF";
    default: return "none";
    }
}

int fy_mpx_alloc_read(fy_mpx_hosts_t *hs, fy_mpx_rm_t *rm_p, char *err, size_t len)
{
    const char *name, *v;
    fy_mpx_rm_t rm = FY_MPX_RM_NONE;
    int rc = 0;
    if (fy_mpx_alloc_in_slurm()) {
        rm = FY_MPX_RM_SLURM;
        rc = read_slurm(hs, err, len);
    } else if ((v = env2("PBS_NODEFILE", NULL, &name)) != NULL) {
        rm = FY_MPX_RM_PBS;
        rc = read_file(hs, name, v, line_per_slot, err, len);
    } else if ((v = env2("PE_HOSTFILE", NULL, &name)) != NULL) {
        rm = FY_MPX_RM_SGE;
        rc = read_file(hs, name, v, line_sge, err, len);
    } else if ((v = env2("LSB_DJOB_HOSTFILE", NULL, &name)) != NULL) {
        rm = FY_MPX_RM_LSF;
        rc = read_file(hs, name, v, line_per_slot, err, len);
    } else if ((v = env2("LSB_MCPU_HOSTS", NULL, &name)) != NULL) {
        rm = FY_MPX_RM_LSF;
        rc = read_lsf_pairs(hs, v, err, len);
    }
    if (rc != 0)
        return -1;
    *rm_p = rm;
    return 0;
}
