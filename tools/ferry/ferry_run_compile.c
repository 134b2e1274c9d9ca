/* Compiling a program of `ferry run`: the system compiler called directly (no mpicc shell
 * script in between) with Ferry's include directory, libmpi and an rpath to it, found relative
 * to the `ferry` binary (the build tree and an installed tree share the layout bin/ include/
 * lib/).
 *
 * Each source is compiled from a copy that starts with `#line 1 "name"`: the compiler then names
 * the user's file in its diagnostics, __FILE__ and the debug info, and a script's #! line,
 * blanked in the copy, costs no line. `-iquote DIR` (the original's directory) keeps the
 * original's #include "..." search. -MD -MF lists the headers read: they become the entry's
 * manifest (ferry_run_cache.c). One source is one compiler run; several are compiled one by one
 * (-c, each with its own dependency file: gcc writes one file per link otherwise) and linked. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ferry_debug.h"
#include "ferry_run.h"
#include "fy_sha256.h"

const char *fy_run_prefix(void)
{
    static char prefix[PATH_MAX];
    if (prefix[0] != '\0')
        return prefix;
    ssize_t n = readlink("/proc/self/exe", prefix, sizeof(prefix) - 1);
    if (n <= 0) {
        snprintf(prefix, sizeof prefix, "/usr");
        return prefix;
    }
    prefix[n] = '\0';
    for (int k = 0; k < 2; k++) { /* .../bin/ferry -> ... */
        char *s = strrchr(prefix, '/');
        if (s == NULL || s == prefix) {
            snprintf(prefix, sizeof prefix, "/");
            break;
        }
        *s = '\0';
    }
    return prefix;
}

/* The file a command word runs: as given when it holds a '/', else the first in $PATH. */
static int find_in_path(const char *word, char *out, size_t n)
{
    if (strchr(word, '/') != NULL) {
        snprintf(out, n, "%s", word);
        return access(out, X_OK);
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path;;) {
        size_t len = strcspn(p, ":");
        snprintf(out, n, "%.*s/%s", (int)len, len ? p : ".", word);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        if (p[len] == '\0')
            return -1;
        p += len + 1;
    }
}

static int any_cxx(const fy_run_prog_t *p)
{
    for (int i = 0; i < p->nsrc; i++)
        if (p->src[i].cxx)
            return 1;
    return 0;
}

/* The compiler's identity without running it: each word of its command that is a program,
 * resolved (symlinks too: cc -> gcc-12), with its size and modification time. An upgrade
 * changes them; the architecture it targets comes with the binary it is. */
void fy_run_compiler_id(const fy_run_prog_t *p, char *out, size_t n)
{
    char *id = fy_run_xprintf("cc:%s\ncxx:%s\n", p->cc, any_cxx(p) ? p->cxx : "");
    const char *cmds[2] = {p->cc, any_cxx(p) ? p->cxx : NULL};
    for (int c = 0; c < 2 && cmds[c] != NULL; c++) {
        int nw;
        char **w = fy_run_words(cmds[c], &nw);
        for (int i = 0; i < nw; i++) {
            char path[PATH_MAX], real[PATH_MAX];
            struct stat st;
            if (w[i][0] != '-' && find_in_path(w[i], path, sizeof path) == 0 &&
                realpath(path, real) != NULL && stat(real, &st) == 0) {
                char *nid = fy_run_xprintf("%s%s %lld %lld.%09ld\n", id, real,
                                           (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                                           st.st_mtim.tv_nsec);
                free(id);
                id = nid;
            }
            free(w[i]);
        }
        free(w);
    }
    uint8_t h[32];
    fy_sha256(id, strlen(id), h);
    free(id);
    char hex[17];
    for (int i = 0; i < 8; i++)
        snprintf(hex + 2 * i, 3, "%02x", h[i]);
    snprintf(out, n, "%s", hex);
}

typedef struct {
    char **v;
    int n, cap;
} argv_t;

static void arg(argv_t *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = realloc(a->v, sizeof(char *) * (size_t)a->cap);
        if (a->v == NULL) {
            fprintf(stderr, "ferry: out of memory\n");
            exit(FY_RUN_EXIT_FAIL);
        }
    }
    a->v[a->n++] = fy_run_xstrdup(s);
    a->v[a->n] = NULL;
}

static void arg_words(argv_t *a, const char *cmd)
{
    int n;
    char **w = fy_run_words(cmd, &n);
    for (int i = 0; i < n; i++) {
        arg(a, w[i]);
        free(w[i]);
    }
    free(w);
}

static void argv_free(argv_t *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    memset(a, 0, sizeof(*a));
}

/* Flags for the link step, after the objects (libraries must follow what uses them). */
static int link_flag(const char *f)
{
    return strncmp(f, "-l", 2) == 0 || strncmp(f, "-L", 2) == 0 || strncmp(f, "-Wl,", 4) == 0;
}

/* A Ferry built with the sanitizers (FY_SANITIZE) has a libmpi that needs their runtimes
 * loaded first: its programs are built with them too, as its mpicc does. */
#ifndef FY_BUILD_SANITIZE
#define FY_BUILD_SANITIZE 0
#endif
static void sanitize_flags(argv_t *a)
{
    if (FY_BUILD_SANITIZE) {
        arg(a, "-fsanitize=address,undefined");
        arg(a, "-fno-omit-frame-pointer");
    }
}

static void compile_flags(argv_t *a, const fy_run_prog_t *p)
{
    char *inc = fy_run_xprintf("-I%s/include", fy_run_prefix());
    arg(a, inc);
    free(inc);
    sanitize_flags(a);
    for (int i = 0; i < p->nflags; i++)
        if (!link_flag(p->flags[i]))
            arg(a, p->flags[i]);
    if (p->debug)
        for (int i = 0; fy_debug_cflags[i] != NULL; i++)
            arg(a, fy_debug_cflags[i]);
    if (p->g)
        arg(a, "-g");
}

static void link_flags(argv_t *a, const fy_run_prog_t *p)
{
    for (int i = 0; i < p->nflags; i++) {
        if (!link_flag(p->flags[i]))
            continue;
        arg(a, p->flags[i]);
        /* A script calling a precompiled shared library should just run: -L is an rpath too. */
        if (strncmp(p->flags[i], "-L", 2) == 0 && p->flags[i][2] != '\0') {
            char *r = fy_run_xprintf("-Wl,-rpath,%s", p->flags[i] + 2);
            arg(a, r);
            free(r);
        }
    }
    char *l = fy_run_xprintf("-L%s/lib", fy_run_prefix());
    char *r = fy_run_xprintf("-Wl,-rpath,%s/lib", fy_run_prefix());
    arg(a, l);
    arg(a, r);
    arg(a, "-lmpi");
    sanitize_flags(a);
    free(l);
    free(r);
}

static void show(const char *who, argv_t *a)
{
    fprintf(stderr, "%s: compiling:", who);
    for (int i = 0; i < a->n; i++) {
        const char *w = a->v[i];
        if (w[strcspn(w, " \t'\"\\$*?;&|<>()")] == '\0' && *w != '\0')
            fprintf(stderr, " %s", w);
        else
            fprintf(stderr, " '%s'", w); /* enough to read, not meant to be pasted blindly */
    }
    fputc('\n', stderr);
}

/* A signal while compiling (Ctrl-C, a kill): passed to the compiler, and once it has exited the
 * callers undo their work (temporary directories) and exit 128 + the signal. */
static volatile sig_atomic_t compiler_pid, got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
    if (compiler_pid > 0)
        kill((pid_t)compiler_pid, sig);
}

void fy_run_catch_signals(void)
{
    struct sigaction sa = {.sa_handler = on_signal}; /* no SA_RESTART: waits return EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

int fy_run_interrupted(void)
{
    return got_signal;
}

/* Runs the compiler; its diagnostics go straight to our stderr (colour when that is a
 * terminal, as the compiler decides). 0 when it succeeded. */
static int run(const char *who, argv_t *a, int verbose)
{
    if (verbose)
        show(who, a);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: cannot start the compiler: %s\n", who, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        execvp(a->v[0], a->v);
        fprintf(stderr, "%s: cannot run the compiler '%s': %s\n", who, a->v[0],
                strerror(errno));
        _exit(127);
    }
    compiler_pid = pid;
    if (got_signal) /* it came before we knew whom to pass it to */
        kill(pid, got_signal);
    int st;
    pid_t w;
    while ((w = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        ;
    compiler_pid = 0;
    return w == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 && !got_signal ? 0 : -1;
}

static int write_all(const char *path, const char *a, size_t na, const char *b, size_t nb)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    const char *parts[2] = {a, b};
    size_t lens[2] = {na, nb};
    for (int k = 0; k < 2; k++) {
        size_t off = 0;
        while (off < lens[k]) {
            ssize_t w = write(fd, parts[k] + off, lens[k] - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                close(fd);
                return -1;
            }
            off += (size_t)w;
        }
    }
    return close(fd);
}

static int has_source_ext(const char *name)
{
    static const char *const ext[] = {".c", ".cc", ".cpp", ".cxx", ".C", ".c++"};
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot != NULL && dot != name && i < sizeof(ext) / sizeof(ext[0]); i++)
        if (strcmp(dot, ext[i]) == 0)
            return 1;
    return 0;
}

/* The copy of source i that the compiler reads: `#line 1 "name"`, then the text with a first
 * #! line blanked (its newline kept, so every later line keeps its number). */
static char *write_copy(const char *work, int i, const fy_run_src_t *s)
{
    char *d = fy_run_xprintf("%s/%d", work, i);
    if (mkdir(d, 0700) != 0) {
        free(d);
        return NULL;
    }
    const char *base = strrchr(s->name, '/');
    base = base ? base + 1 : s->name;
    char *path;
    if (strcmp(s->name, "<stdin>") == 0)
        path = fy_run_xprintf("%s/stdin.%s", d, s->cxx ? "cc" : "c");
    else if (has_source_ext(base))
        path = fy_run_xprintf("%s/%s", d, base);
    else /* a script without an extension: the compiler goes by the name */
        path = fy_run_xprintf("%s/%s.%s", d, base, s->cxx ? "cc" : "c");
    free(d);
    /* The name inside a string literal: \ and " escaped. */
    size_t nl = strlen(s->name);
    char *head = fy_run_xalloc(2 * nl + 32), *h = head;
    h += sprintf(h, "#line 1 \"");
    for (size_t k = 0; k < nl; k++) {
        if (s->name[k] == '\\' || s->name[k] == '"')
            *h++ = '\\';
        *h++ = s->name[k];
    }
    h += sprintf(h, "\"\n");
    const char *text = s->text;
    size_t len = s->len;
    if (len >= 2 && text[0] == '#' && text[1] == '!') {
        const char *eol = memchr(text, '\n', len);
        len = eol ? len - (size_t)(eol - text) : 0;
        text = eol ? eol : "";
    }
    int rc = write_all(path, head, (size_t)(h - head), text, len);
    free(head);
    if (rc != 0) {
        free(path);
        return NULL;
    }
    return path;
}

/* The headers a dependency file names (make syntax: "target: dep dep \<newline> dep"), minus
 * the copies in work/, appended to the manifest as "size mtime-ns sha256 path". */
static int add_deps(FILE *man, const char *depfile, const char *work, char ***seen, int *nseen)
{
    char *text;
    size_t len;
    if (fy_run_read_file(depfile, &text, &len) != 0)
        return -1;
    char *s = strstr(text, ": ");
    if (s == NULL)
        s = strstr(text, ":\n");
    if (s == NULL) {
        free(text);
        return -1;
    }
    s += 1;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL)
        cwd[0] = '\0';
    char *tok = fy_run_xalloc(len + 1);
    size_t wl = strlen(work);
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\n' || (*s == '\\' && s[1] == '\n'))
            s += *s == '\\' ? 2 : 1;
        if (*s == '\0')
            break;
        size_t t = 0;
        while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
            if (*s == '\\' && s[1] == '\n')
                break;
            if (*s == '\\' && (s[1] == ' ' || s[1] == '#' || s[1] == '\\'))
                s++;
            else if (*s == '$' && s[1] == '$')
                s++;
            tok[t++] = *s++;
        }
        tok[t] = '\0';
        if (strncmp(tok, work, wl) == 0 && tok[wl] == '/')
            continue;
        char *path = tok[0] == '/' ? fy_run_xstrdup(tok) : fy_run_xprintf("%s/%s", cwd, tok);
        int dup = 0;
        for (int k = 0; k < *nseen && !dup; k++)
            dup = strcmp((*seen)[k], path) == 0;
        struct stat st;
        char *htext;
        size_t hlen;
        if (dup || strchr(path, '\n') != NULL || stat(path, &st) != 0 ||
            fy_run_read_file(path, &htext, &hlen) != 0) {
            free(path);
            continue;
        }
        uint8_t h[32];
        fy_sha256(htext, hlen, h);
        free(htext);
        fprintf(man, "%lld %lld.%09ld ", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                st.st_mtim.tv_nsec);
        for (int k = 0; k < 32; k++)
            fprintf(man, "%02x", h[k]);
        fprintf(man, " %s\n", path);
        *seen = realloc(*seen, sizeof(char *) * (size_t)(*nseen + 1));
        if (*seen == NULL) {
            fprintf(stderr, "ferry: out of memory\n");
            exit(FY_RUN_EXIT_FAIL);
        }
        (*seen)[(*nseen)++] = path;
    }
    free(tok);
    free(text);
    return 0;
}

int fy_run_compile(const fy_run_prog_t *p, const char *dir, int verbose, const char *who)
{
    char *work = fy_run_xprintf("%s/work", dir);
    char *exe = fy_run_xprintf("%s/%s", dir, p->stem);
    char **copies = fy_run_xalloc(sizeof(char *) * (size_t)p->nsrc);
    int rc = FY_RUN_EXIT_FAIL;
    argv_t a = {0};
    int any_c = 0;
    for (int i = 0; i < p->nsrc; i++)
        any_c |= !p->src[i].cxx;
    const char *need[2] = {any_c ? p->cc : NULL, any_cxx(p) ? p->cxx : NULL};
    for (int c = 0; c < 2; c++) {
        if (need[c] == NULL)
            continue;
        int nw;
        char **w = fy_run_words(need[c], &nw), path[PATH_MAX];
        int found = nw > 0 && find_in_path(w[0], path, sizeof path) == 0;
        for (int i = 0; i < nw; i++)
            free(w[i]);
        free(w);
        if (!found) {
            fprintf(stderr, "%s: the %s compiler '%s' is not found (choose one with %s or %s)\n",
                    who, c ? "C++" : "C", need[c], c ? "--cxx" : "--cc",
                    c ? "FERRY_CXX" : "FERRY_CC");
            goto out;
        }
    }
    if (mkdir(work, 0700) != 0) {
        fprintf(stderr, "%s: cannot create '%s': %s\n", who, work, strerror(errno));
        goto out;
    }
    for (int i = 0; i < p->nsrc; i++) {
        if ((copies[i] = write_copy(work, i, &p->src[i])) == NULL) {
            fprintf(stderr, "%s: cannot write a copy of '%s' under '%s': %s\n", who,
                    p->src[i].name, work, strerror(errno));
            goto out;
        }
    }
    const char *linker = any_cxx(p) ? p->cxx : p->cc;
    if (p->nsrc == 1) {
        arg_words(&a, linker);
        compile_flags(&a, p);
        arg(&a, "-iquote");
        arg(&a, p->src[0].dir);
        char *dep = fy_run_xprintf("%s/0.d", work);
        arg(&a, "-MD");
        arg(&a, "-MF");
        arg(&a, dep);
        free(dep);
        arg(&a, "-o");
        arg(&a, exe);
        arg(&a, copies[0]);
        link_flags(&a, p);
        if (run(who, &a, verbose) != 0) {
            rc = got_signal ? 128 + got_signal : FY_RUN_EXIT_USAGE;
            goto out;
        }
        argv_free(&a);
    } else {
        for (int i = 0; i < p->nsrc; i++) {
            arg_words(&a, p->src[i].cxx ? p->cxx : p->cc);
            compile_flags(&a, p);
            arg(&a, "-iquote");
            arg(&a, p->src[i].dir);
            char *dep = fy_run_xprintf("%s/%d.d", work, i);
            char *obj = fy_run_xprintf("%s/%d.o", work, i);
            const char *w[] = {"-MD", "-MF", dep, "-c", "-o", obj, copies[i]};
            for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
                arg(&a, w[k]);
            free(dep);
            free(obj);
            if (run(who, &a, verbose) != 0) {
                rc = got_signal ? 128 + got_signal : FY_RUN_EXIT_USAGE;
                goto out;
            }
            argv_free(&a);
        }
        arg_words(&a, linker);
        compile_flags(&a, p);
        arg(&a, "-o");
        arg(&a, exe);
        for (int i = 0; i < p->nsrc; i++) {
            char *obj = fy_run_xprintf("%s/%d.o", work, i);
            arg(&a, obj);
            free(obj);
        }
        link_flags(&a, p);
        if (run(who, &a, verbose) != 0) {
            rc = got_signal ? 128 + got_signal : FY_RUN_EXIT_USAGE;
            goto out;
        }
        argv_free(&a);
    }

    /* The manifest: every header any source read, once. */
    char *mpath = fy_run_xprintf("%s/manifest", dir);
    FILE *man = fopen(mpath, "we");
    free(mpath);
    if (man == NULL) {
        fprintf(stderr, "%s: cannot write the manifest in '%s': %s\n", who, dir, strerror(errno));
        goto out;
    }
    char **seen = NULL;
    int nseen = 0, bad = 0;
    for (int i = 0; i < p->nsrc; i++) {
        char *dep = fy_run_xprintf("%s/%d.d", work, i);
        bad |= add_deps(man, dep, work, &seen, &nseen);
        free(dep);
    }
    for (int k = 0; k < nseen; k++)
        free(seen[k]);
    free(seen);
    if (fclose(man) != 0 || bad) {
        fprintf(stderr, "%s: cannot read the compiler's dependency files in '%s'\n", who, work);
        goto out;
    }
    rc = 0;
out:
    argv_free(&a);
    fy_run_rmtree(work);
    for (int i = 0; i < p->nsrc; i++)
        free(copies[i]);
    free(copies);
    free(work);
    free(exe);
    return rc;
}
