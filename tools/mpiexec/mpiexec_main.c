/* Command line of mpiexec: Hydra's options, the Open MPI spellings people carry over, and the
 * flags of both that mean nothing on a single host (accepted and ignored). */
#include "check.h"
#include "monitor.h"
#include "mpiexec.h"
#include "prof_opts.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef FY_VERSION
#define FY_VERSION "unknown"
#endif

enum opt_id {
    OPT_NP,
    OPT_HOSTS,
    OPT_HOSTFILE,
    OPT_ENV,
    OPT_ENV_LOCAL,
    OPT_ENVALL,
    OPT_ENVNONE,
    OPT_ENVLIST,
    OPT_X,
    OPT_LABEL,
    OPT_WDIR,
    OPT_TIMEOUT,
    OPT_PPN,
    OPT_RR,
    OPT_MAP_BY,
    OPT_OVERSUBSCRIBE,
    OPT_DISPLAY_MAP,
    OPT_LAUNCHER,
    OPT_LAUNCHER_EXEC,
    OPT_IFACE,
    OPT_CHECK,
    OPT_PROF,
    OPT_MONITOR,
    OPT_HELP,
    OPT_VERSION,
    OPT_IGNORE,
};

typedef struct opt {
    const char *name; /* without leading dashes; "-name" and "--name" both match */
    int nargs;
    enum opt_id id;
} opt_t;

static const opt_t options[] = {
    {"n", 1, OPT_NP},
    {"np", 1, OPT_NP},
    {"host", 1, OPT_HOSTS},
    {"hosts", 1, OPT_HOSTS},
    {"H", 1, OPT_HOSTS},
    {"f", 1, OPT_HOSTFILE},
    {"hostfile", 1, OPT_HOSTFILE},
    {"machinefile", 1, OPT_HOSTFILE},
    {"env", 2, OPT_ENV_LOCAL},
    {"genv", 2, OPT_ENV},
    {"genvall", 0, OPT_ENVALL},
    {"envall", 0, OPT_ENVALL},
    {"genvnone", 0, OPT_ENVNONE},
    {"envnone", 0, OPT_ENVNONE},
    {"genvlist", 1, OPT_ENVLIST},
    {"envlist", 1, OPT_ENVLIST},
    {"x", 1, OPT_X},
    {"l", 0, OPT_LABEL},
    {"prepend-rank", 0, OPT_LABEL},
    {"tag-output", 0, OPT_LABEL},
    {"wdir", 1, OPT_WDIR},
    {"wd", 1, OPT_WDIR},
    {"timeout", 1, OPT_TIMEOUT},
    {"help", 0, OPT_HELP},
    {"h", 0, OPT_HELP},
    {"version", 0, OPT_VERSION},
    {"V", 0, OPT_VERSION},
    /* Placement (hosts.c). */
    {"ppn", 1, OPT_PPN},
    {"perhost", 1, OPT_PPN},
    {"npernode", 1, OPT_PPN},
    {"rr", 0, OPT_RR},
    {"map-by", 1, OPT_MAP_BY},
    {"oversubscribe", 0, OPT_OVERSUBSCRIBE},
    {"display-map", 0, OPT_DISPLAY_MAP},
    /* Starting proxies on other hosts (launch.c); Hydra's spellings. */
    {"launcher", 1, OPT_LAUNCHER},
    {"bootstrap", 1, OPT_LAUNCHER},
    {"launcher-exec", 1, OPT_LAUNCHER_EXEC},
    {"bootstrap-exec", 1, OPT_LAUNCHER_EXEC},
    {"iface", 1, OPT_IFACE},
    /* The correctness checker (check_server.c). */
    {"check", 0, OPT_CHECK},
    /* The recorder (prof_opts.c). */
    {"profile", 0, OPT_PROF},
    {"trace", 1, OPT_PROF},
    {"trace-calls", 1, OPT_PROF},
    {"trace-ranks", 1, OPT_PROF},
    {"trace-window", 1, OPT_PROF},
    {"trace-max", 1, OPT_PROF},
    /* The live view (monitor.c); --monitor=quiet is read before this table. */
    {"monitor", 0, OPT_MONITOR},
    /* Binding and the rest: nothing to do. */
    {"allow-run-as-root", 0, OPT_IGNORE},
    {"bind-to", 1, OPT_IGNORE},
    {"rank-by", 1, OPT_IGNORE},
    {"report-bindings", 0, OPT_IGNORE},
    {"use-hwthread-cpus", 0, OPT_IGNORE},
    {"mca", 2, OPT_IGNORE},
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: " FY_MPX_PROG " [options] program [args...] [: [options] program ...]\n"
               "Runs N copies of program as one MPI job, on this host or on the hosts given;\n"
               "programs separated by ':' run side by side (MPMD), each with its own -n, -env\n"
               "and -wdir.\n\n"
               "  -n, -np N               number of ranks (default: the slots of the hosts or\n"
               "                          the allocation, else 1)\n"
               "  -host, -hosts LIST      hosts, comma-separated; 'name:N' gives N slots\n"
               "  -f, -hostfile, -machinefile FILE\n"
               "                          hosts, one per line ('name', 'name:N', 'name slots=N')\n"
               "  -ppn N                  N ranks per host (also -perhost, -npernode)\n"
               "  -rr, --map-by node      one rank per host in turn (default: fill each host)\n"
               "  --oversubscribe         allow more ranks than the slots given\n"
               "  --display-map           print each rank's host before starting\n"
               "  -launcher ssh|rsh|slurm|fork\n"
               "                          how to start a proxy on another host (default ssh,\n"
               "                          slurm inside a Slurm allocation: srun; fork: on\n"
               "                          this machine; also -bootstrap)\n"
               "  -launcher-exec PATH     the agent, run as 'PATH HOST COMMAND...' like ssh\n"
               "                          (with -launcher slurm: the srun to use; also\n"
               "                          -bootstrap-exec)\n"
               "  -iface NAME|CIDR        the network the proxies reach us on (also\n"
               "                          FERRY_TCP_IF; default: the route to the first host)\n"
               "  -genv NAME VALUE        set NAME in every rank\n"
               "  -env NAME VALUE         set NAME in the ranks of this program\n"
               "  -x NAME[=VALUE]         export NAME (our value, or VALUE) to every rank\n"
               "  -genvlist A,B,...       export these variables\n"
               "  -genvall                pass our whole environment (the default)\n"
               "  -genvnone               pass none of our environment\n"
               "  -l                      prefix each output line with \"[rank] \"\n"
               "  -wdir DIR               run the ranks of this program in DIR\n"
               "  --timeout SEC           kill the job after SEC seconds (also MPIEXEC_TIMEOUT)\n"
               "  --check                 run under the correctness checker (libferry_check.so):\n"
               "                          reports MPI errors, and ends a deadlocked job with\n"
               "                          the ranks' wait-for cycle (status 3)\n"
               "  --profile               write a profile of the MPI calls at MPI_Finalize\n"
               "                          (<prog>.<n>.<job>.profile.txt and .json; also\n"
               "                          FERRY_PROFILE=1)\n"
               "  --trace DIR             record a trace into DIR (a new directory): raw\n"
               "                          files, the profile, then OTF2 (ferry-otf2)\n"
               "  --trace-calls LIST      functions to trace: names, p2p, coll, rma, -NAME\n"
               "  --trace-ranks LIST      ranks that record, like 0-3,7\n"
               "  --trace-window S:E      record from S to E seconds after MPI_Init\n"
               "  --trace-max SIZE        the trace's size cap for the job (default 1G)\n"
               "  --monitor[=quiet]       print a line per rank once a second on stderr: in MPI\n"
               "                          or computing, the current call and for how long, %%\n"
               "                          of the last second in MPI, messages and bytes per\n"
               "                          second; `ferry top` attaches (quiet: only for it)\n"
               "  --                      ends the options: the program follows\n"
               "  -h, --help, --version\n"
               "Ignored: --allow-run-as-root -bind-to X -rank-by X --mca K V\n\n"
               "Without -hosts or -f, inside a batch job the hosts and slots are the\n"
               "allocation's, from the first of: Slurm (SLURM_JOB_NODELIST,\n"
               "SLURM_TASKS_PER_NODE), PBS/Torque (PBS_NODEFILE), Grid Engine (PE_HOSTFILE),\n"
               "LSF (LSB_DJOB_HOSTFILE, LSB_MCPU_HOSTS); -n defaults to all its slots.\n\n"
               "Exit status: 0 if every rank exits 0, else that of the first rank to fail\n"
               "(128+N for signal N), the code given to MPI_Abort (modulo 256, as exit() does),\n"
               "124 on timeout, 3 when --check found a deadlock, 1 on usage errors, 127 if\n"
               "the program is not found, 126 if it cannot be executed.\n");
}

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, FY_MPX_PROG ": ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static int parse_count(const char *opt, const char *s, int min, int max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
        die("%s needs a whole number from %d to %d, not '%s'", opt, min, max, s);
    return (int)v;
}

/* Longest --timeout: about four months, far from overflowing the milliseconds in job.c. */
#define MAX_TIMEOUT_S 10000000

static void add_env(fy_mpx_env_t *e, const char *name, const char *value)
{
    if (*name == '\0' || strchr(name, '=') != NULL)
        die("invalid environment variable name '%s'", name);
    char *s;
    if (asprintf(&s, "%s=%s", name, value) < 0)
        die("out of memory");
    e->var = realloc(e->var, sizeof(*e->var) * (size_t)(e->n + 1));
    if (e->var == NULL)
        die("out of memory");
    e->var[e->n++] = s;
}

/* -x NAME=VALUE sets, -x NAME exports our value (and is a no-op when we have none). */
static void export_var(fy_mpx_env_t *e, const char *spec)
{
    const char *eq = strchr(spec, '=');
    if (eq != NULL) {
        char *name = strndup(spec, (size_t)(eq - spec));
        add_env(e, name, eq + 1);
        free(name);
    } else if (getenv(spec) != NULL) {
        add_env(e, spec, getenv(spec));
    }
}

/* Why execv could not run path: 0 if it looks runnable, else an errno value. What execv itself
 * finds wrong inside the file (a bad interpreter, a foreign format) shows only at spawn time. */
static int exec_problem(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return EACCES;
    return 0;
}

/* The path we will exec: as given when it holds a '/', else found in PATH like execvp would.
 * NULL with *why set (an errno value) when there is none. */
static const char *resolve_prog(const char *name, const char *wdir, int *why)
{
    static char path[PATH_MAX];
    if (*name == '\0') {
        *why = ENOENT;
        return NULL;
    }
    if (strchr(name, '/') != NULL) {
        if (name[0] != '/' && wdir != NULL)
            snprintf(path, sizeof(path), "%s/%s", wdir, name);
        else
            snprintf(path, sizeof(path), "%s", name);
        *why = exec_problem(path);
        return *why ? NULL : name; /* exec'd after chdir(wdir), so keep it relative */
    }
    const char *p = getenv("PATH");
    if (p == NULL)
        p = "/usr/local/bin:/usr/bin:/bin";
    *why = ENOENT; /* as execvp: a file found but not runnable says more than "not found" */
    while (*p != '\0') {
        size_t len = strcspn(p, ":");
        snprintf(path, sizeof(path), "%.*s/%s", len ? (int)len : 1, len ? p : ".", name);
        int e = exec_problem(path);
        if (e == 0) {
            if (path[0] != '/' && wdir != NULL) {
                char abs[PATH_MAX];
                if (realpath(path, abs) != NULL)
                    snprintf(path, sizeof(path), "%s", abs);
            }
            *why = 0;
            return path;
        }
        if (e != ENOENT && e != ENOTDIR)
            *why = e;
        p += len + (p[len] == ':');
    }
    return NULL;
}

/* One line on why the program cannot run, then exit as a shell would: 127 when it is not
 * there, 126 when it is but cannot be executed. */
static __attribute__((noreturn)) void no_program(const char *name, const char *wdir, int why)
{
    const char *in = wdir != NULL ? wdir : "this directory";
    if (*name == '\0')
        die("the program name is empty");
    if (why == ENOENT && strchr(name, '/') == NULL) {
        char here[PATH_MAX];
        snprintf(here, sizeof(here), "%s/%s", wdir != NULL ? wdir : ".", name);
        if (exec_problem(here) == 0)
            fprintf(stderr, FY_MPX_PROG ": program '%s' not found in PATH; to run the one in %s, "
                    "write './%s'\n", name, in, name);
        else
            fprintf(stderr, FY_MPX_PROG ": program '%s' not found in PATH\n", name);
        exit(127);
    }
    if (why == ENOENT || why == ENOTDIR) {
        fprintf(stderr, FY_MPX_PROG ": program '%s' not found%s%s\n", name,
                wdir != NULL && name[0] != '/' ? " in " : "",
                wdir != NULL && name[0] != '/' ? wdir : "");
        exit(127);
    }
    if (why == EISDIR)
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': it is a directory\n", name);
    else if (why == EACCES)
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': not an executable file (no execute "
                "permission?)\n", name);
    else
        fprintf(stderr, FY_MPX_PROG ": cannot run '%s': %s\n", name, strerror(why));
    exit(126);
}

static const opt_t *find_option(const char *arg, const char **inline_val)
{
    *inline_val = NULL;
    if (arg[0] != '-' || arg[1] == '\0')
        return NULL;
    const char *name = arg + 1 + (arg[1] == '-');
    size_t len = strcspn(name, "=");
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        if (strncmp(options[i].name, name, len) != 0 || options[i].name[len] != '\0')
            continue;
        if (name[len] == '=') {
            if (options[i].nargs != 1)
                return NULL;
            *inline_val = name + len + 1; /* --np=4 */
        }
        return &options[i];
    }
    return NULL;
}

static void free_env(fy_mpx_env_t *e)
{
    for (int i = 0; i < e->n; i++)
        free(e->var[i]);
    free(e->var);
}

static void free_opts(fy_mpx_opts_t *o)
{
    for (int k = 0; k < o->napps; k++) {
        free((char *)o->app[k].prog);
        free_env(&o->app[k].env);
    }
    free(o->app);
    free_env(&o->env);
}

/* Checks what the command line left for one program, and fills in defaults. */
static void finish_app(fy_mpx_app_t *app, int default_np)
{
    if (app->np == 0)
        app->np = default_np;
    if (app->wdir != NULL) {
        struct stat st;
        errno = 0;
        if (stat(app->wdir, &st) != 0 || !S_ISDIR(st.st_mode))
            die("cannot use '%s' as working directory: %s", app->wdir,
                errno ? strerror(errno) : "not a directory");
    }
    int why;
    const char *prog = resolve_prog(app->argv[0], app->wdir, &why);
    if (prog == NULL)
        no_program(app->argv[0], app->wdir, why);
    app->prog = strdup(prog);
}

int main(int argc, char **argv)
{
    fy_mpx_opts_t o = {0};
    fy_mpx_app_t cur = {0};
    fy_mpx_hosts_t hosts = {0};
    int ppn = 0, rr = 0, oversubscribe = 0, display_map = 0, check = 0, monitor = 0;
    const char *launcher = NULL, *launcher_exec = NULL, *iface = getenv("FERRY_TCP_IF");
    if (iface != NULL && *iface == '\0')
        iface = NULL;
    char err[512];

    const char *dbg = getenv("FY_MPIEXEC_DEBUG");
    fy_mpx_pmi_debug = dbg != NULL && *dbg != '\0' && strcmp(dbg, "0") != 0;
    const char *t = getenv("MPIEXEC_TIMEOUT");
    if (t != NULL && *t != '\0')
        o.timeout = parse_count("MPIEXEC_TIMEOUT", t, 0, MAX_TIMEOUT_S);

    /* Programs separated by ':' (MPMD); -n, -env and -wdir belong to the program they precede,
     * the other options to the whole job, wherever they stand. */
    if (argc < 2) {
        usage(stderr);
        return 1;
    }
    for (int i = 1; i < argc;) {
        int dashdash = 0;
        for (; i < argc && argv[i][0] == '-'; i++) {
            const char *arg = argv[i], *val;
            if (strcmp(arg, "--") == 0) {
                /* The end of the options, as in getopt: the program may then start with '-'. */
                dashdash = 1;
                i++;
                break;
            }
            if (strcmp(arg, "--monitor=quiet") == 0 || strcmp(arg, "-monitor=quiet") == 0) {
                monitor = 2; /* the only option with an optional value */
                continue;
            }
            const opt_t *op = find_option(arg, &val);
            if (op == NULL)
                die("unknown option '%s' (see " FY_MPX_PROG " --help)", arg);
            const char *a[2] = {val, NULL};
            for (int k = val ? 1 : 0; k < op->nargs; k++) {
                if (i + 1 >= argc)
                    die("option '%s' needs %d argument%s", arg, op->nargs,
                        op->nargs > 1 ? "s" : "");
                a[k] = argv[++i];
            }
            switch (op->id) {
            case OPT_NP: cur.np = parse_count(arg, a[0], 1, FY_MPX_MAX_RANKS); break;
            case OPT_HOSTS:
                if (fy_mpx_hosts_add_list(&hosts, a[0], err, sizeof err) != 0)
                    die("%s", err);
                break;
            case OPT_HOSTFILE:
                if (fy_mpx_hosts_add_file(&hosts, a[0], err, sizeof err) != 0)
                    die("%s", err);
                break;
            case OPT_PPN: ppn = parse_count(arg, a[0], 1, FY_MPX_MAX_RANKS); break;
            case OPT_RR: rr = 1; break;
            case OPT_MAP_BY:
                /* Open MPI's words: by node is round-robin; by slot, core or hardware thread
                 * fills each host first, which is what this host-level placement can do. */
                if (strncmp(a[0], "node", 4) == 0)
                    rr = 1;
                else if (strncmp(a[0], "slot", 4) == 0 || strncmp(a[0], "core", 4) == 0 ||
                         strncmp(a[0], "hwthread", 8) == 0 || strncmp(a[0], "socket", 6) == 0 ||
                         strncmp(a[0], "numa", 4) == 0 || strncmp(a[0], "package", 7) == 0)
                    rr = 0;
                else
                    die("--map-by '%s': only node (round-robin over hosts) and slot/core "
                        "(fill each host) are understood", a[0]);
                break;
            case OPT_OVERSUBSCRIBE: oversubscribe = 1; break;
            case OPT_DISPLAY_MAP: display_map = 1; break;
            case OPT_LAUNCHER:
                if (strcmp(a[0], "ssh") != 0 && strcmp(a[0], "rsh") != 0 &&
                    strcmp(a[0], "fork") != 0 && strcmp(a[0], "slurm") != 0)
                    die("%s '%s': ssh, rsh, slurm or fork", arg, a[0]);
                launcher = a[0];
                break;
            case OPT_LAUNCHER_EXEC: launcher_exec = a[0]; break;
            case OPT_IFACE: iface = a[0]; break;
            case OPT_CHECK: check = 1; break;
            case OPT_PROF:
                if (fy_mpx_prof_option(op->name, a[0], err, sizeof err) != 0)
                    die("%s", err);
                break;
            case OPT_MONITOR: monitor = monitor ? monitor : 1; break;
            case OPT_ENV: add_env(&o.env, a[0], a[1]); break;
            case OPT_ENV_LOCAL: add_env(&cur.env, a[0], a[1]); break;
            case OPT_ENVALL: o.env_none = 0; break;
            case OPT_ENVNONE: o.env_none = 1; break;
            case OPT_ENVLIST: {
                char *copy = strdup(a[0]), *save = NULL;
                for (char *n = strtok_r(copy, ",", &save); n; n = strtok_r(NULL, ",", &save))
                    export_var(&o.env, n);
                free(copy);
                break;
            }
            case OPT_X: export_var(&o.env, a[0]); break;
            case OPT_LABEL: o.label = 1; break;
            case OPT_WDIR: cur.wdir = a[0]; break;
            case OPT_TIMEOUT: o.timeout = parse_count(arg, a[0], 0, MAX_TIMEOUT_S); break;
            case OPT_HELP: usage(stdout); return 0;
            case OPT_VERSION: printf(FY_MPX_PROG " (Ferry) " FY_VERSION "\n"); return 0;
            case OPT_IGNORE: break;
            }
        }
        if (i < argc && strcmp(argv[i], ":") == 0)
            die("no program before ':'");
        if (i >= argc) {
            if (dashdash)
                die("no program after '--'");
            if (o.napps > 0)
                die("no program after ':'");
            die("no program to run after the options (see " FY_MPX_PROG " --help)");
        }
        cur.argv = argv + i;
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        if (i < argc) {
            argv[i++] = NULL; /* ends this program's argv */
            if (i == argc)
                die("no program after ':'");
        }
        o.app = realloc(o.app, sizeof(*o.app) * (size_t)(o.napps + 1));
        if (o.app == NULL)
            die("out of memory");
        o.app[o.napps++] = cur;
        memset(&cur, 0, sizeof(cur));
    }
    /* No host named: the batch system's allocation, if we run in one. */
    fy_mpx_rm_t rm = FY_MPX_RM_NONE;
    if (hosts.n == 0 && fy_mpx_alloc_read(&hosts, &rm, err, sizeof err) != 0)
        die("%s; -hosts or -f would name the hosts instead", err);
    /* Inside Slurm, proxies start as job steps (srun): ssh into the nodes may be refused
     * there, and a step is accounted, confined and cleaned up by Slurm. An agent given with
     * -launcher-exec alone keeps its documented ssh-like calling. */
    if (launcher == NULL)
        launcher = launcher_exec == NULL && fy_mpx_alloc_in_slurm() ? "slurm" : "ssh";
    int slots = hosts.n ? fy_mpx_hosts_slots(&hosts, ppn) : 0;
    if (o.napps == 1 && o.app[0].np == 0 && slots > FY_MPX_MAX_RANKS)
        die("the hosts give more than %d slots, the most one job runs; give -n",
            FY_MPX_MAX_RANKS);
    for (int k = 0; k < o.napps; k++) {
        finish_app(&o.app[k], o.napps == 1 && slots > 0 ? slots : 1);
        o.np += o.app[k].np;
    }
    if (o.np > FY_MPX_MAX_RANKS)
        die("%d ranks in all; at most %d run in one job", o.np, FY_MPX_MAX_RANKS);
    if (hosts.n == 0 && fy_mpx_hosts_add_list(&hosts, "localhost", err, sizeof err) != 0)
        die("%s", err);
    /* The allocation's slots are the batch system's limit, not a line of ours to edit. */
    if (rm != FY_MPX_RM_NONE && ppn == 0 && o.np > slots && !oversubscribe)
        die("%d ranks, but the %s allocation has %d slots: give fewer ranks (-n), or add "
            "--oversubscribe", o.np, fy_mpx_alloc_name(rm), slots);
    int *host_of = malloc(sizeof(*host_of) * (size_t)o.np);
    if (host_of == NULL)
        die("out of memory");
    /* No host named: this machine, as many ranks as asked (today's single-host behaviour). */
    if (fy_mpx_place(&hosts, o.np, ppn, rr, oversubscribe || slots == 0, host_of, err,
                     sizeof err) != 0)
        die("%s", err);
    if (display_map && rm != FY_MPX_RM_NONE)
        fprintf(stderr, FY_MPX_PROG ": the hosts of the %s allocation\n", fy_mpx_alloc_name(rm));
    if (display_map)
        for (int r = 0; r < o.np; r++)
            fprintf(stderr, FY_MPX_PROG ": rank %d on %s\n", r, hosts.h[host_of[r]].name);
    /* All ranks on this machine (under whatever names): today's path, no proxy. Else one
     * proxy per host (launch.c). */
    int remote = 0;
    for (int r = 0; r < o.np && !remote; r++)
        remote = !fy_mpx_host_is_local(hosts.h[host_of[r]].name);
    /* Outside an allocation srun would make one of its own for each proxy, and might wait for
     * it: the steps are meant to be of the job we run in. */
    const char *job_id = getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : getenv("SLURM_JOBID");
    if (remote && strcmp(launcher, "slurm") == 0 && (job_id == NULL || *job_id == '\0'))
        die("-launcher slurm starts the proxies as steps of the Slurm job we run in, and there "
            "is none (no SLURM_JOB_ID): run inside sbatch or salloc, or use -launcher ssh");
    if (check && monitor)
        die("--check and --monitor load different tool libraries into the ranks and cannot be "
            "combined; run one, then the other");
    if (fy_mpx_prof_setup(&o, check) != 0)
        return 1;
    if (check || monitor) {
        const char *first_remote = NULL;
        for (int r = 0; r < o.np && first_remote == NULL; r++)
            if (!fy_mpx_host_is_local(hosts.h[host_of[r]].name))
                first_remote = hosts.h[host_of[r]].name;
        int all_here = strcmp(launcher, "fork") == 0 && launcher_exec == NULL;
        if (check && fy_mpx_check_setup(&o, remote, iface, all_here, first_remote) != 0)
            return 1;
        if (monitor &&
            fy_mpx_monitor_setup(&o, monitor == 2, remote, iface, all_here, first_remote) != 0)
            return 1;
    }
    int status;
    if (!remote) {
        status = fy_mpx_job_run(&o);
    } else {
        o.hosts = &hosts;
        o.host_of = host_of;
        o.launcher = launcher;
        o.launcher_exec = launcher_exec;
        o.iface = iface;
        status = fy_mpx_launch(&o);
    }
    fy_mpx_check_close();
    fy_mpx_prof_finish();
    fy_mpx_monitor_close(status);
    free(host_of);
    fy_mpx_hosts_free(&hosts);
    free_opts(&o);
    return status;
}
