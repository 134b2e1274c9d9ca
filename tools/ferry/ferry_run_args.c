/* The command line of `ferry run`:
 *   ferry run [mpiexec options] [compiler flags] [ferry options] prog.c [more.c ...] [-- args]
 * Before the first source, each argument is, in this order of precedence: one of ours (--debug,
 * --check, --cc ...), one of mpiexec's (by its table, with as many values as it takes: -n 4,
 * -genv A B), or a compiler flag (-I -L -l<lib> -D -U -O* -std=* -g -W* -f* -m* -pthread). Bare
 * -l is mpiexec's "label the output" and bare -f its host file: a library is -lm, attached.
 * After the first source come more sources and the flags the issue names (-I -L -l<lib> -D -U
 * -O -std=); the first other argument, or --, begins the program's arguments. A script (its
 * first line #!... ferry run) ends the parse: everything after it is the script's own. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ferry_run.h"

void *fy_run_xalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "ferry: out of memory\n");
        exit(FY_RUN_EXIT_FAIL);
    }
    return p;
}

char *fy_run_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(fy_run_xalloc(n), s, n);
}

char *fy_run_xprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0) {
        fprintf(stderr, "ferry: out of memory\n");
        exit(FY_RUN_EXIT_FAIL);
    }
    return s;
}

char **fy_run_words(const char *cmd, int *n)
{
    char **w = fy_run_xalloc(sizeof(*w) * (strlen(cmd) / 2 + 2));
    int k = 0;
    for (const char *s = cmd; *s;) {
        s += strspn(s, " \t");
        size_t len = strcspn(s, " \t");
        if (len == 0)
            break;
        w[k++] = strndup(s, len);
        s += len;
    }
    w[k] = NULL;
    *n = k;
    return w;
}

int fy_run_read_file(const char *path, char **text, size_t *len)
{
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return -1;
    }
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, n = 0;
    char *buf = fy_run_xalloc(cap + 1);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            char *nb = realloc(buf, cap + 1);
            if (nb == NULL) {
                fprintf(stderr, "ferry: out of memory\n");
                exit(FY_RUN_EXIT_FAIL);
            }
            buf = nb;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            if (fd != 0)
                close(fd);
            free(buf);
            errno = e;
            return -1;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (fd != 0)
        close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* mpiexec's options and how many values each takes (tools/mpiexec/mpiexec_main.c; --check comes
 * with the checker). Both -name and --name, and --name=value, are mpiexec's spellings. */
static const struct {
    const char *name;
    int nargs;
} mpx_options[] = {
    {"n", 1},           {"np", 1},         {"host", 1},          {"hosts", 1},
    {"H", 1},           {"f", 1},          {"hostfile", 1},      {"machinefile", 1},
    {"env", 2},         {"genv", 2},       {"genvall", 0},       {"envall", 0},
    {"genvnone", 0},    {"envnone", 0},    {"genvlist", 1},      {"envlist", 1},
    {"x", 1},           {"l", 0},          {"prepend-rank", 0},  {"tag-output", 0},
    {"wdir", 1},        {"wd", 1},         {"timeout", 1},       {"version", 0},
    {"V", 0},           {"ppn", 1},        {"perhost", 1},       {"npernode", 1},
    {"rr", 0},          {"map-by", 1},     {"oversubscribe", 0}, {"display-map", 0},
    {"launcher", 1},    {"bootstrap", 1},  {"launcher-exec", 1}, {"bootstrap-exec", 1},
    {"iface", 1},       {"allow-run-as-root", 0}, {"bind-to", 1}, {"rank-by", 1},
    {"report-bindings", 0}, {"use-hwthread-cpus", 0}, {"mca", 2},
    {"profile", 0},     {"trace", 1},      {"trace-calls", 1},   {"trace-ranks", 1},
    {"trace-window", 1}, {"trace-max", 1},
};

/* Options that name hosts: the ranks may then run on machines of another architecture. */
static int names_hosts(const char *name)
{
    static const char *const h[] = {"host", "hosts", "H", "f", "hostfile", "machinefile",
                                    "ppn", "perhost", "npernode"};
    for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
        if (strcmp(name, h[i]) == 0)
            return 1;
    return 0;
}

/* The entry of mpx_options that arg is, or -1; *inline_val says a value came after '='. */
static int mpx_option(const char *arg, int *inline_val)
{
    *inline_val = 0;
    if (arg[0] != '-' || arg[1] == '\0')
        return -1;
    const char *name = arg + 1 + (arg[1] == '-');
    size_t len = strcspn(name, "=");
    for (size_t i = 0; i < sizeof(mpx_options) / sizeof(mpx_options[0]); i++) {
        if (strncmp(mpx_options[i].name, name, len) != 0 || mpx_options[i].name[len] != '\0')
            continue;
        if (name[len] == '=') {
            if (mpx_options[i].nargs != 1)
                return -1;
            *inline_val = 1;
        }
        return (int)i;
    }
    return -1;
}

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* The flags the issue lets through after the first source as well. */
static int late_flag(const char *a)
{
    return (has_prefix(a, "-I") || has_prefix(a, "-L") || has_prefix(a, "-D") ||
            has_prefix(a, "-U") || has_prefix(a, "-O") || has_prefix(a, "-std=") ||
            (has_prefix(a, "-l") && a[2] != '\0'));
}

/* A compiler flag before the first source (after mpiexec's options had their turn). */
static int early_flag(const char *a)
{
    return late_flag(a) || strcmp(a, "-g") == 0 || has_prefix(a, "-g") || has_prefix(a, "-W") ||
           (has_prefix(a, "-f") && a[2] != '\0') || (has_prefix(a, "-m") && a[2] != '\0') ||
           strcmp(a, "-pthread") == 0 || has_prefix(a, "-pedantic");
}

/* Flags whose value may be the next argument (-I dir): mpiexec has none of these letters. */
static int takes_next(const char *a)
{
    return strcmp(a, "-I") == 0 || strcmp(a, "-L") == 0 || strcmp(a, "-D") == 0 ||
           strcmp(a, "-U") == 0;
}

static int source_ext(const char *path, int *cxx)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot == NULL || (slash != NULL && dot < slash))
        return 0;
    if (strcmp(dot, ".c") == 0) {
        *cxx = 0;
        return 1;
    }
    if (strcmp(dot, ".cc") == 0 || strcmp(dot, ".cpp") == 0 || strcmp(dot, ".cxx") == 0 ||
        strcmp(dot, ".C") == 0 || strcmp(dot, ".c++") == 0) {
        *cxx = 1;
        return 1;
    }
    return 0;
}

/* A file without a source's extension whose first line is "#!... ferry run ...": a script. */
static int is_script(const char *path)
{
    char line[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, line, sizeof(line) - 1);
    close(fd);
    if (n < 2 || line[0] != '#' || line[1] != '!')
        return 0;
    line[n] = '\0';
    line[strcspn(line, "\n")] = '\0';
    char *f = strstr(line, "ferry");
    return f != NULL && strstr(f, " run") != NULL;
}

static void push(char ***v, int *n, const char *s)
{
    char **nv = realloc(*v, sizeof(**v) * (size_t)(*n + 2));
    if (nv == NULL) {
        fprintf(stderr, "ferry: out of memory\n");
        exit(FY_RUN_EXIT_FAIL);
    }
    nv[(*n)++] = (char *)s;
    nv[*n] = NULL;
    *v = nv;
}

/* A relative -I/-L directory made absolute: the key must not mean another directory when the
 * same command runs elsewhere, and a rank compiling on another host runs from there. */
static char *abs_dir_flag(const char *flag, const char *dir)
{
    if (dir[0] == '/' || dir[0] == '\0')
        return fy_run_xprintf("%.2s%s", flag, dir);
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        return fy_run_xprintf("%.2s%s", flag, dir);
    return fy_run_xprintf("%.2s%s/%s", flag, cwd, dir);
}

static void add_flag(fy_run_prog_t *p, const char *a, const char *val)
{
    char *f;
    if (val != NULL && (a[1] == 'I' || a[1] == 'L'))
        f = abs_dir_flag(a, val);
    else if (val != NULL)
        f = fy_run_xprintf("%s%s", a, val);
    else if ((has_prefix(a, "-I") || has_prefix(a, "-L")) && a[2] != '\0')
        f = abs_dir_flag(a, a + 2);
    else
        f = fy_run_xstrdup(a);
    push(&p->flags, &p->nflags, f);
}

/* Reads a source: 0, or FY_RUN_EXIT_NOSRC after one message. */
static int add_source(fy_run_prog_t *p, const char *path, int cxx)
{
    fy_run_src_t s = {0};
    s.cxx = cxx;
    if (fy_run_read_file(path, &s.text, &s.len) != 0) {
        fprintf(stderr, "ferry run: cannot read source '%s': %s\n", path, strerror(errno));
        return FY_RUN_EXIT_NOSRC;
    }
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        snprintf(cwd, sizeof cwd, ".");
    if (strcmp(path, "-") == 0) {
        s.name = fy_run_xstrdup("<stdin>");
        s.dir = fy_run_xstrdup(cwd);
    } else {
        s.name = fy_run_xstrdup(path);
        char *d = fy_run_xstrdup(path), *slash = strrchr(d, '/');
        if (slash == NULL) {
            s.dir = fy_run_xstrdup(cwd);
        } else {
            if (slash == d)
                slash[1] = '\0';
            else
                *slash = '\0';
            char real[PATH_MAX];
            s.dir = fy_run_xstrdup(realpath(d, real) ? real : d);
        }
        free(d);
    }
    fy_run_src_t *ns = realloc(p->src, sizeof(*ns) * (size_t)(p->nsrc + 1));
    if (ns == NULL) {
        fprintf(stderr, "ferry: out of memory\n");
        exit(FY_RUN_EXIT_FAIL);
    }
    ns[p->nsrc++] = s;
    p->src = ns;
    if (p->nsrc == 1) {
        const char *b = strcmp(path, "-") == 0 ? "stdin" : strrchr(path, '/');
        b = b == NULL ? path : (*b == '/' ? b + 1 : b);
        p->stem = fy_run_xstrdup(b);
        char *dot = strrchr(p->stem, '.');
        if (dot != NULL && dot != p->stem)
            *dot = '\0';
        if (p->stem[0] == '\0' || p->stem[0] == '.') {
            free(p->stem);
            p->stem = fy_run_xstrdup("prog");
        }
    }
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "ferry run: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see ferry run --help)\n");
    return FY_RUN_EXIT_USAGE;
}

static const char *env_or(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? v : dflt;
}

int fy_run_parse(fy_run_cmd_t *c, int argc, char **argv)
{
    fy_run_prog_t *p = &c->prog;
    memset(c, 0, sizeof(*c));
    p->cc = fy_run_xstrdup(env_or("FERRY_CC", "cc"));
    p->cxx = fy_run_xstrdup(env_or("FERRY_CXX", "c++"));
    /* Empty NULL-terminated lists, never NULL themselves. */
    c->mpx = fy_run_xalloc(sizeof(char *));
    p->flags = fy_run_xalloc(sizeof(char *));
    c->args = fy_run_xalloc(sizeof(char *));
    const char *cc_opt = NULL, *cxx_opt = NULL;
    int i = 1;
    /* Before the first source. */
    for (; i < argc; i++) {
        const char *a = argv[i];
        int cxx = 0, inl, k;
        if (strcmp(a, "-") == 0) {
            break;
        } else if (a[0] != '-') {
            if (source_ext(a, &cxx) || is_script(a))
                break;
            if (access(a, F_OK) != 0 && strchr(a, '.') == NULL && strchr(a, '/') == NULL)
                return usage_error("'%s' is neither an option nor a source file", a);
            if (access(a, F_OK) != 0)
                return usage_error("'%s' is not a C or C++ source file (.c, .cc, .cpp, .cxx)",
                                   a);
            return usage_error("'%s' is not a C or C++ source file (.c, .cc, .cpp, .cxx) nor a "
                               "script whose first line runs 'ferry run'", a);
        } else if (strcmp(a, "--") == 0) {
            return usage_error("%s before the program: expected a source file first", a);
        } else if (strcmp(a, "--debug") == 0) {
            p->debug = 1;
        } else if (strcmp(a, "--check") == 0) {
            c->check = 1;
        } else if (strcmp(a, "--monitor") == 0 || strcmp(a, "--monitor=quiet") == 0) {
            push(&c->mpx, &c->nmpx, a); /* mpiexec's; its optional value is not in the table */
        } else if (strcmp(a, "--no-cache") == 0) {
            c->no_cache = 1;
        } else if (strcmp(a, "--clear-cache") == 0) {
            c->clear_cache = 1;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            c->verbose = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            c->help = 1;
            return 0;
        } else if (strcmp(a, "--cc") == 0 || strcmp(a, "--cxx") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0')
                return usage_error("%s needs a compiler command", a);
            *(a[3] == 'x' ? &cxx_opt : &cc_opt) = argv[++i];
        } else if (has_prefix(a, "--cc=") || has_prefix(a, "--cxx=")) {
            const char *v = strchr(a, '=') + 1;
            if (*v == '\0')
                return usage_error("%s: the compiler command is empty", a);
            *(a[3] == 'x' ? &cxx_opt : &cc_opt) = v;
        } else if ((k = mpx_option(a, &inl)) >= 0) {
            const char *name = a + 1 + (a[1] == '-');
            if (names_hosts(name))
                c->multihost = 1;
            push(&c->mpx, &c->nmpx, a);
            for (int v = inl; v < mpx_options[k].nargs; v++) {
                if (i + 1 >= argc) {
                    fprintf(stderr, "ferry run: mpiexec option '%s' needs %d value%s\n", a,
                            mpx_options[k].nargs, mpx_options[k].nargs > 1 ? "s" : "");
                    return FY_RUN_EXIT_USAGE;
                }
                push(&c->mpx, &c->nmpx, argv[++i]);
            }
        } else if (takes_next(a)) {
            if (i + 1 >= argc)
                return usage_error("compiler flag '%s' needs a value", a);
            add_flag(p, a, argv[++i]);
        } else if (early_flag(a)) {
            add_flag(p, a, NULL);
        } else {
            return usage_error("unknown option '%s'", a);
        }
    }
    if (c->clear_cache)
        return 0;
    if (i >= argc)
        return usage_error("%s", "no source file given");

    /* The first source, then more sources and late flags, then the program's arguments. */
    int cxx = 0;
    const char *first = argv[i];
    int script = strcmp(first, "-") != 0 && !source_ext(first, &cxx) ? 1 : 0;
    int rc = add_source(p, first, cxx);
    if (rc != 0)
        return rc;
    if (p->src[0].len >= 2 && p->src[0].text[0] == '#' && p->src[0].text[1] == '!')
        script = 1; /* prog.c run through its #! line: all that follows is the script's */
    for (i++; i < argc && !script; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' && source_ext(a, &cxx)) {
            if ((rc = add_source(p, a, cxx)) != 0)
                return rc;
        } else if (takes_next(a) && i + 1 < argc) {
            add_flag(p, a, argv[++i]);
        } else if (late_flag(a)) {
            add_flag(p, a, NULL);
        } else {
            break;
        }
    }
    for (; i < argc; i++)
        push(&c->args, &c->nargs, argv[i]);

    if (cc_opt != NULL) {
        free(p->cc);
        p->cc = fy_run_xstrdup(cc_opt);
    }
    if (cxx_opt != NULL) {
        free(p->cxx);
        p->cxx = fy_run_xstrdup(cxx_opt);
    }
    if (c->check)
        p->g = 1;
    /* A batch allocation: mpiexec places the ranks on its hosts. */
    static const char *const alloc_vars[] = {"SLURM_JOB_NODELIST", "PBS_NODEFILE", "PE_HOSTFILE",
                                             "LSB_DJOB_HOSTFILE", "LSB_MCPU_HOSTS"};
    for (size_t k = 0; k < sizeof(alloc_vars) / sizeof(alloc_vars[0]); k++)
        if (getenv(alloc_vars[k]) != NULL && *getenv(alloc_vars[k]) != '\0')
            c->multihost = 1;
    return 0;
}

void fy_run_usage(FILE *f)
{
    fprintf(f,
            "usage: ferry run [mpiexec options] [compiler flags] [options] prog.c [more.c ...]\n"
            "                 [-- program arguments]\n"
            "       ferry run [options] - < prog.c       the program from standard input\n"
            "       ferry run --clear-cache              remove every cached binary\n"
            "Compiles a C or C++ MPI program (once: the binary is cached) and runs it with\n"
            "mpiexec. A file whose first line is '#!/usr/bin/env -S ferry run -n 4' runs when\n"
            "executed; the arguments after it are its own.\n\n"
            "  mpiexec options        all of them: -n N, -hosts LIST, -f FILE, -ppn N, -l,\n"
            "                         -genv NAME VALUE, --timeout SEC, ... (bare -l labels\n"
            "                         the output; a library is attached: -lm)\n"
            "  compiler flags         -I DIR -L DIR -l<lib> -D NAME[=V] -U NAME -O<n> -std=...\n"
            "                         -g -W... -f... -m... -pthread; after the first source only\n"
            "                         -I -L -l<lib> -D -U -O -std=; each -L DIR is also an rpath\n"
            "  --debug                -g with AddressSanitizer and UndefinedBehaviorSanitizer;\n"
            "                         their reports as one short message per rank\n"
            "  --check                run under mpiexec --check (the MPI correctness checker),\n"
            "                         built with -g so that reports name lines\n"
            "  --cc CC, --cxx CXX     the C / C++ compiler (default $FERRY_CC or cc, $FERRY_CXX\n"
            "                         or c++); sources .c are C, .cc .cpp .cxx .C are C++\n"
            "  --no-cache             compile into a temporary directory, removed afterwards\n"
            "  -v, --verbose          say what happens: cache hit or miss, the commands\n"
            "  -h, --help             this text\n\n"
            "Cache: $FERRY_CACHE, else $XDG_CACHE_HOME/ferry, else ~/.cache/ferry (run/ below).\n"
            "Exit status: the program's; 2 for a usage or compile error (no rank started),\n"
            "127 for a source that cannot be read, 1 when ferry itself fails.\n");
}
