/* Reading one sanitizer report for `ferry run --debug` (see ferry_debug.c): the first error of
 * the file, an UndefinedBehaviorSanitizer "runtime error" line or an AddressSanitizer "ERROR:"
 * report, with its stacks and the description of the address (the stack variable, global or
 * heap block it is near, where that block was allocated and freed). Names the reports do not
 * give (the array indexed, the pointer freed, the divisor) are read from the source line the
 * report points at. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry_debug_read.h"

char fy_debug_cwd[PATH_MAX];

/* A path relative to the current directory when it is below it, else as given. */
void fy_debug_short_path(const char *file, char *out, size_t n)
{
    size_t cl = strlen(fy_debug_cwd);
    if (cl > 1 && strncmp(file, fy_debug_cwd, cl) == 0 && file[cl] == '/')
        snprintf(out, n, "%s", file + cl + 1);
    else
        snprintf(out, n, "%s", file);
}

/* Frames kept per stack (an error inside MPI is some 15 deep), and their strings' room: a few
 * traces live on the stack at once. */
#define MAX_FRAMES 64

typedef struct frame {
    char func[160];
    char file[1024];
    int line, col;
    char module[512];
} frame_t;

typedef struct trace {
    frame_t f[MAX_FRAMES];
    int n;
} trace_t;

/* The lines of a report, NUL-terminated in place. */
typedef struct lines {
    char *buf;
    char **l;
    int n;
} lines_t;

static int read_lines(const char *path, lines_t *L)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    size_t cap = 8192, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf != NULL && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *nb = cap < ((size_t)64 << 20) ? realloc(buf, cap * 2) : NULL;
            if (nb == NULL)
                break; /* a report that large: its first 64 MB hold the error */
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf == NULL)
        return -1;
    buf[len] = '\0';
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += buf[i] == '\n';
    L->l = malloc((size_t)n * sizeof *L->l);
    if (L->l == NULL) {
        free(buf);
        return -1;
    }
    L->buf = buf;
    L->n = 0;
    char *p = buf;
    while (*p != '\0') {
        L->l[L->n++] = p;
        char *e = strchr(p, '\n');
        if (e == NULL)
            break;
        *e = '\0';
        p = e + 1;
    }
    return 0;
}

static void free_lines(lines_t *L)
{
    free(L->buf);
    free(L->l);
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

static void copy(char *dst, size_t n, const char *src, size_t len)
{
    if (len >= n)
        len = n - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* "file:line[:col]" at the end of s[0, len): splits it, 0 when it is not one. */
static int parse_loc(const char *s, size_t len, char *file, size_t fn, int *line, int *col)
{
    /* From the right: up to two numbers after colons. */
    long nums[2];
    int k = 0;
    size_t end = len;
    while (k < 2) {
        size_t i = end;
        while (i > 0 && isdigit((unsigned char)s[i - 1]))
            i--;
        if (i == end || i == 0 || s[i - 1] != ':')
            break;
        nums[k++] = strtol(s + i, NULL, 10);
        end = i - 1;
    }
    if (k == 0 || end == 0)
        return 0;
    copy(file, fn, s, end);
    *line = (int)(k == 2 ? nums[1] : nums[0]);
    *col = k == 2 ? (int)nums[0] : 0;
    return 1;
}

/* A stack frame line, "    #N 0xPC in FUNC FILE:LINE[:COL] (MODULE+0xOFF)" in our format, or
 * the runtime's own "    #N 0xPC in FUNC FILE:LINE" / "... in FUNC (MODULE+0xOFF)". */
static int parse_frame(const char *s, frame_t *fr)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (s[0] != '#' || !isdigit((unsigned char)s[1]))
        return 0;
    memset(fr, 0, sizeof *fr);
    const char *p = strchr(s, ' ');
    if (p == NULL)
        return 1;
    while (*p == ' ')
        p++;
    p = strchr(p, ' '); /* past the pc */
    if (p == NULL)
        return 1;
    while (*p == ' ')
        p++;
    const char *end = p + strlen(p);
    /* The module, "(path+0xoff)", last. */
    if (end > p && end[-1] == ')') {
        const char *o = end - 1;
        while (o > p && *o != '(')
            o--;
        if (*o == '(') {
            const char *plus = memchr(o, '+', (size_t)(end - o));
            const char *mend = plus != NULL ? plus : end - 1;
            copy(fr->module, sizeof fr->module, o + 1, (size_t)(mend - o - 1));
            end = o;
            while (end > p && end[-1] == ' ')
                end--;
        }
    }
    if (starts(p, "in ")) {
        p += 3;
        /* The function, then its location (the last word). */
        const char *sp = end;
        while (sp > p && sp[-1] != ' ')
            sp--;
        if (sp > p) {
            if (!parse_loc(sp, (size_t)(end - sp), fr->file, sizeof fr->file, &fr->line,
                           &fr->col))
                fr->file[0] = '\0';
            const char *fe = sp;
            while (fe > p && fe[-1] == ' ')
                fe--;
            copy(fr->func, sizeof fr->func, p, (size_t)(fe - p));
        } else {
            copy(fr->func, sizeof fr->func, p, (size_t)(end - p));
        }
    }
    return 1;
}

/* The frames from line i on (stops at the first line that is not one); returns the next line. */
static int parse_stack(const lines_t *L, int i, trace_t *st)
{
    st->n = 0;
    frame_t fr;
    while (i < L->n && parse_frame(L->l[i], &fr)) {
        if (st->n < MAX_FRAMES)
            st->f[st->n++] = fr;
        i++;
    }
    return i;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s != NULL ? s + 1 : p;
}

/* The MPI library's frames: by module when the frame has it, else by name (PMPI_ entry points
 * and Ferry's internal fy_ functions). */
static int frame_is_mpi(const frame_t *f)
{
    const char *m = base_name(f->module);
    if (f->module[0] != '\0')
        return starts(m, "libmpi.") || starts(m, "libmpi_") || starts(m, "libferry");
    return starts(f->func, "PMPI_") || starts(f->func, "fy_");
}

/* The program's own code: a frame with a source file that is none of the sanitizer runtime,
 * the C library, the compiler's or the system's headers, or the MPI library. */
static int frame_is_user(const frame_t *f)
{
    if (f->file[0] == '\0' || frame_is_mpi(f))
        return 0;
    if (starts(f->file, "../") || strstr(f->file, "/libsanitizer/") != NULL ||
        strstr(f->file, "sanitizer_common") != NULL || starts(f->file, "/usr/include/") ||
        starts(f->file, "/usr/lib/gcc/") || starts(f->func, "__interceptor_") ||
        starts(f->func, "__asan") || starts(f->func, "__ubsan") || starts(f->func, "__sanitizer"))
        return 0;
    const char *m = base_name(f->module);
    if (starts(m, "libc.so") || starts(m, "libc-") || starts(m, "libstdc++") ||
        starts(m, "libgcc_s") || starts(m, "ld-linux") || starts(m, "libm.so") ||
        starts(m, "libasan") || starts(m, "libubsan"))
        return 0;
    return 1;
}

/* The first user frame of a stack, or -1. */
static int user_frame(const trace_t *st)
{
    for (int i = 0; i < st->n; i++)
        if (frame_is_user(&st->f[i]))
            return i;
    return -1;
}

/* For an error in a function other than main: "in FUNC(), called from CALLER at line N" (the
 * file named when it is another), from the first two program frames. */
static void set_context(const trace_t *st, int u, fy_debug_err_t *e)
{
    e->where[0] = '\0';
    if (u < 0 || st->f[u].func[0] == '\0' || strcmp(st->f[u].func, "main") == 0)
        return;
    const char *fn = st->f[u].func, *paren = strchr(fn, '(') != NULL ? "" : "()";
    int v = u + 1;
    while (v < st->n && !frame_is_user(&st->f[v]))
        v++;
    if (v >= st->n) {
        snprintf(e->where, sizeof e->where, "in %s%s", fn, paren);
        return;
    }
    const frame_t *c = &st->f[v];
    const char *cp = strchr(c->func, '(') != NULL || c->func[0] == '\0' ? "" : "()";
    if (strcmp(c->file, st->f[u].file) == 0) {
        snprintf(e->where, sizeof e->where, "in %s%s, called from %s%s at line %d", fn, paren,
                 c->func, cp, c->line);
    } else {
        char f[PATH_MAX];
        fy_debug_short_path(c->file, f, sizeof f);
        snprintf(e->where, sizeof e->where, "in %s%s, called from %s%s at %s:%d", fn, paren,
                 c->func, cp, f, c->line);
    }
}

/* The MPI function the error happened in, when the program's frame called one: the outermost
 * MPI entry point below the program's frame; when the library's frames are there but not its
 * entry point (a tail call left it off the stack), the MPI call on the program's line. */
static const char *mpi_call(const trace_t *st, int user, char *buf, size_t n)
{
    const char *name = NULL;
    int in_mpi = 0;
    for (int i = 0; i < user && i < st->n; i++) {
        const char *fn = st->f[i].func;
        if (starts(fn, "PMPI_") || starts(fn, "MPI_"))
            name = fn[0] == 'P' ? fn + 1 : fn;
        in_mpi |= frame_is_mpi(&st->f[i]);
    }
    if (name != NULL || !in_mpi || user < 0 || user >= st->n)
        return name;
    char line[4096];
    if (!fy_debug_source_line(st->f[user].file, st->f[user].line, line, sizeof line))
        return NULL;
    for (const char *p = strstr(line, "MPI_"); p != NULL; p = strstr(p + 1, "MPI_")) {
        if (p > line && ident_char(p[-1]))
            continue;
        size_t len = 4;
        while (ident_char(p[len]))
            len++;
        const char *q = p + len;
        while (*q == ' ')
            q++;
        if (*q == '(' && len > 4) {
            copy(buf, n, p, len);
            return buf;
        }
    }
    return NULL;
}

/* The source line `line` of `file` (the path as the report gives it: absolute from the debug
 * information, or relative to the directory the job ran in, which is ours). */
int fy_debug_source_line(const char *file, int line, char *out, size_t n)
{
    if (file[0] == '\0' || line <= 0)
        return 0;
    FILE *f = fopen(file, "r");
    if (f == NULL)
        return 0;
    int at = 1, ok = 0;
    char buf[4096];
    while (fgets(buf, sizeof buf, f) != NULL) {
        size_t len = strlen(buf);
        int whole = len > 0 && buf[len - 1] == '\n';
        if (at == line) {
            if (whole)
                buf[--len] = '\0';
            copy(out, n, buf, len);
            ok = 1;
            break;
        }
        if (whole)
            at++;
    }
    fclose(f);
    return ok;
}

/* The operand just before s[at]: "a", "a.b", "p->q", "m[i]", back to the first character that
 * cannot be part of it. */
static void operand_before(const char *s, size_t at, char *out, size_t n)
{
    size_t e = at;
    while (e > 0 && s[e - 1] == ' ')
        e--;
    size_t b = e;
    int depth = 0;
    while (b > 0) {
        char c = s[b - 1];
        if (c == ']' || c == ')') {
            depth++;
        } else if (c == '[' || c == '(') {
            if (depth == 0)
                break;
            depth--;
        } else if (depth == 0 && !ident_char(c) && c != '.' &&
                   !(c == '>' && b >= 2 && s[b - 2] == '-') && !(c == '-' && s[b] == '>')) {
            break;
        }
        b--;
    }
    /* A leading cast or call is not a name. */
    if (b < e && (isdigit((unsigned char)s[b]) || s[b] == '('))
        b = e;
    copy(out, n, s + b, e - b);
}

/* The operand just after s[at]: "x", "a.b", "*p", "f(x)", "(a - b)". */
static void operand_after(const char *s, size_t at, char *out, size_t n)
{
    size_t b = at, len = strlen(s);
    while (b < len && s[b] == ' ')
        b++;
    size_t e = b;
    int depth = 0;
    while (e < len) {
        char c = s[e];
        if (c == '(' || c == '[') {
            depth++;
        } else if (c == ')' || c == ']') {
            if (depth == 0)
                break;
            depth--;
        } else if (depth == 0 && !ident_char(c) && c != '.' && !(c == '-' && s[e + 1] == '>') &&
                   !(c == '>' && e > 0 && s[e - 1] == '-') && !(c == '*' && e == b)) {
            break;
        }
        e++;
    }
    copy(out, n, s + b, e - b);
}

/* The argument of the first "free(" on a source line. */
static void freed_name(const char *src, char *out, size_t n)
{
    out[0] = '\0';
    const char *p = strstr(src, "free(");
    while (p != NULL && p > src && ident_char(p[-1]))
        p = strstr(p + 1, "free(");
    if (p == NULL)
        return;
    p += 5;
    const char *e = p;
    int depth = 0;
    while (*e != '\0' && !(depth == 0 && *e == ')')) {
        depth += *e == '(';
        depth -= *e == ')';
        e++;
    }
    while (p < e && *p == ' ')
        p++;
    copy(out, n, p, (size_t)(e - p));
}

/* What an allocation's result is assigned to: "NAME = ... malloc(" on a source line. */
static void allocated_name(const char *src, char *out, size_t n)
{
    static const char *const calls[] = {"malloc(", "calloc(", "realloc(", "strdup(",
                                        "aligned_alloc(", "new ", NULL};
    out[0] = '\0';
    const char *call = NULL;
    for (int i = 0; calls[i] != NULL && call == NULL; i++)
        call = strstr(src, calls[i]);
    if (call == NULL)
        return;
    const char *eq = call;
    while (eq > src && !(eq[-1] == '=' && (eq - 1 == src || strchr("=!<>", eq[-2]) == NULL)))
        eq--;
    if (eq == src)
        return;
    operand_before(src, (size_t)(eq - 1 - src), out, n);
}

/* A C++ declaration ("std::vector<double> cells(n);") assigns nothing: the first identifier of
 * the allocating line, other than a keyword or a type's, that the failing line uses too. */
static void shared_name(const char *alloc_line, const char *err_line, char *out, size_t n)
{
    static const char *const skip[] = {
        "auto", "char", "const", "double", "float", "int", "long", "new", "short", "signed",
        "size_t", "static", "std", "struct", "unsigned", "vector", "void", NULL,
    };
    out[0] = '\0';
    for (const char *p = alloc_line; *p != '\0';) {
        if (!ident_char(*p) || isdigit((unsigned char)*p)) {
            p++;
            continue;
        }
        const char *b = p;
        while (ident_char(*p))
            p++;
        char w[128];
        copy(w, sizeof w, b, (size_t)(p - b));
        int kw = 0;
        for (int i = 0; skip[i] != NULL && !kw; i++)
            kw = strcmp(w, skip[i]) == 0;
        if (!kw && fy_debug_find_word(err_line, w) >= 0) {
            copy(out, n, w, strlen(w));
            return;
        }
    }
}

/* Where an identifier `name` occurs as a whole word on a line, or -1. */
/* Whether s[at] is code: not inside a comment, a string or a character literal. */
static int is_code(const char *s, size_t at)
{
    char quote = 0;
    int block = 0;
    for (size_t i = 0; i < at && s[i] != '\0'; i++) {
        if (block) {
            if (s[i] == '*' && s[i + 1] == '/') {
                block = 0;
                i++;
            }
        } else if (quote) {
            if (s[i] == '\\' && s[i + 1] != '\0')
                i++;
            else if (s[i] == quote)
                quote = 0;
        } else if (s[i] == '/' && s[i + 1] == '*') {
            block = 1;
            i++;
        } else if (s[i] == '/' && s[i + 1] == '/') {
            return 0;
        } else if (s[i] == '"' || s[i] == '\'') {
            quote = s[i];
        }
    }
    return !block && !quote;
}

int fy_debug_find_word(const char *s, const char *name)
{
    size_t nl = strlen(name);
    if (nl == 0)
        return -1;
    int first = -1;
    for (const char *p = strstr(s, name); p != NULL; p = strstr(p + 1, name)) {
        if ((p > s && ident_char(p[-1])) || ident_char(p[nl]) || !is_code(s, (size_t)(p - s)))
            continue;
        /* A use that reaches into the object (a[i], p->x, s.x) rather than its declaration
         * ("char *a = ..."), when the line has one. */
        const char *q = p + nl;
        while (*q == ' ')
            q++;
        if (*q == '[' || *q == '.' || (q[0] == '-' && q[1] == '>'))
            return (int)(p - s);
        if (first < 0)
            first = (int)(p - s);
    }
    return first;
}

/* ---------------------------------------------------------------------------------------- */
/* UndefinedBehaviorSanitizer */

static void replace(char *s, size_t n, const char *from, const char *to)
{
    char *p = strstr(s, from);
    if (p == NULL)
        return;
    size_t fl = strlen(from), tl = strlen(to), rest = strlen(p + fl);
    if ((size_t)(p - s) + tl + rest + 1 > n)
        return;
    memmove(p + tl, p + fl, rest + 1);
    memcpy(p, to, tl);
}

static void from_ubsan(const lines_t *L, int at, fy_debug_err_t *e)
{
    const char *s = L->l[at];
    const char *re = strstr(s, ": runtime error: ");
    parse_loc(s, (size_t)(re - s), e->file, sizeof e->file, &e->line, &e->col);
    const char *what = re + 17;
    trace_t st;
    parse_stack(L, at + 1, &st);
    /* The debug information's path (absolute) for the same place, when the stack has it. */
    int u = user_frame(&st);
    if (u >= 0 && st.f[u].line == e->line &&
        strcmp(base_name(st.f[u].file), base_name(e->file)) == 0) {
        snprintf(e->file, sizeof e->file, "%s", st.f[u].file);
        set_context(&st, u, e);
    }
    char callbuf[64];
    const char *call = mpi_call(&st, u < 0 ? 0 : u, callbuf, sizeof callbuf);

    char src[4096] = "";
    int have_src = fy_debug_source_line(e->file, e->line, src, sizeof src);
    size_t col = e->col > 0 ? (size_t)e->col - 1 : 0;
    if (have_src && col >= strlen(src))
        have_src = 0;
    char name[128] = "";
    const char *oob = strstr(what, " out of bounds for type '");
    if (starts(what, "index ") && oob != NULL) {
        snprintf(e->kind, sizeof e->kind, "bounds");
        int nlen = (int)(oob - (what + 6));
        char type[128];
        copy(type, sizeof type, oob + 25, strcspn(oob + 25, "'"));
        /* The column is the '['; what is indexed comes before it. */
        if (have_src && src[col] == '[')
            operand_before(src, col, name, sizeof name);
        if (name[0] != '\0')
            snprintf(e->msg, sizeof e->msg, "array index %.*s is out of bounds of '%s' (%s)", nlen,
                     what + 6, name, type);
        else
            snprintf(e->msg, sizeof e->msg, "array index %.*s is out of bounds of an array %s",
                     nlen, what + 6, type);
    } else if (starts(what, "division by zero") || starts(what, "integer divide by zero")) {
        snprintf(e->kind, sizeof e->kind, "division by zero");
        /* The column is the operator; the divisor follows it. */
        if (have_src && (src[col] == '/' || src[col] == '%'))
            operand_after(src, col + 1 + (src[col + 1] == '='), name, sizeof name);
        if (name[0] != '\0' && !isdigit((unsigned char)name[0]))
            snprintf(e->msg, sizeof e->msg, "integer division by zero ('%s' is 0)", name);
        else
            snprintf(e->msg, sizeof e->msg, "integer division by zero");
    } else if (strstr(what, "null pointer") != NULL) {
        snprintf(e->kind, sizeof e->kind, "null pointer");
        const char *op = starts(what, "load") ? "read through"
                         : starts(what, "store")         ? "write through"
                         : starts(what, "member access") ? "member access through"
                         : starts(what, "member call")   ? "member call through"
                                                         : NULL;
        const char *ty = strstr(what, "of type '");
        if (have_src) {
            if (src[col] == '*')
                operand_after(src, col + 1, name, sizeof name);
            else if (src[col] == '[' || src[col] == '.' || (src[col] == '-' && src[col + 1] == '>'))
                operand_before(src, col, name, sizeof name);
        }
        if (op == NULL) {
            snprintf(e->msg, sizeof e->msg, "%s", what);
        } else {
            int tl = ty != NULL ? (int)strcspn(ty + 9, "'") : 0;
            if (name[0] != '\0')
                snprintf(e->msg, sizeof e->msg, "%s a null pointer: '%s' is NULL%s%.*s%s", op,
                         name, ty != NULL ? " (" : "", tl, ty != NULL ? ty + 9 : "",
                         ty != NULL ? " *)" : "");
            else
                snprintf(e->msg, sizeof e->msg, "%s a null pointer%s%.*s%s", op,
                         ty != NULL ? " of type '" : "", tl, ty != NULL ? ty + 9 : "",
                         ty != NULL ? " *'" : "");
        }
    } else {
        /* Overflow, shifts, misaligned access, ...: UBSan's own words say it well; the
         * kind is its first words (numbers and types differ from rank to rank). */
        snprintf(e->msg, sizeof e->msg, "%s", what);
        replace(e->msg, sizeof e->msg, " cannot be represented in type ", " does not fit in ");
        replace(e->msg, sizeof e->msg, ", which requires ", ", which needs ");
        copy(e->kind, sizeof e->kind, what, strcspn(what, "0123456789'-:"));
    }
    if (call != NULL) {
        size_t ml = strlen(e->msg);
        snprintf(e->msg + ml, sizeof e->msg - ml, " (inside %s)", call);
    }
    snprintf(e->name, sizeof e->name, "%s", name);
}

/* ---------------------------------------------------------------------------------------- */
/* AddressSanitizer */

/* "just past the end of", "12 bytes past the end of", "4 bytes before the start of", or
 * "inside". */
static void where_phrase(char *out, size_t n, long long off, long long begin, long long end)
{
    if (off >= end && off - end == 0)
        snprintf(out, n, "just past the end of");
    else if (off >= end)
        snprintf(out, n, "%lld bytes past the end of", off - end);
    else if (off < begin)
        snprintf(out, n, "%lld bytes before the start of", begin - off);
    else
        snprintf(out, n, "inside");
}

/* Where a block was allocated or freed: "line 12" in the file of the error, else "file:line". */
static void frame_place(const trace_t *st, const char *err_file, char *out, size_t n)
{
    int u = user_frame(st);
    if (u < 0) {
        snprintf(out, n, "%s", st->n > 0 ? st->f[0].func : "?");
        return;
    }
    if (strcmp(st->f[u].file, err_file) == 0) {
        snprintf(out, n, "line %d", st->f[u].line);
        return;
    }
    char f[PATH_MAX];
    fy_debug_short_path(st->f[u].file, f, sizeof f);
    snprintf(out, n, "%s:%d", f, st->f[u].line);
}

/* Which side of a block an address is on, in gcc 12's words ("to the right of") or newer
 * runtimes' ("after"). */
static const char *side_of(const char *l)
{
    if (strstr(l, "to the right of") != NULL || strstr(l, " after ") != NULL)
        return "right";
    if (strstr(l, "to the left of") != NULL || strstr(l, " before ") != NULL)
        return "left";
    return "in";
}

static void from_asan(const lines_t *L, int at, fy_debug_err_t *e)
{
    const char *s = strstr(L->l[at], "AddressSanitizer: ") + 18;
    size_t kl = strcspn(s, " :");
    copy(e->kind, sizeof e->kind, s, kl);
    const char *first = s; /* the report's first line, for what we do not know */

    /* The access and the stack where it happened. */
    int i = at + 1;
    char access[64] = "";
    long long size = 0;
    const char *sig_access = NULL;
    for (; i < L->n && !parse_frame(L->l[i], &(frame_t){0}); i++) {
        char rw[8];
        if (sscanf(L->l[i], "%7s of size %lld", rw, &size) == 2 &&
            (strcmp(rw, "READ") == 0 || strcmp(rw, "WRITE") == 0))
            snprintf(access, sizeof access, "%s of %lld byte%s", rw[0] == 'R' ? "read" : "write",
                     size, size == 1 ? "" : "s");
        else if (strstr(L->l[i], "caused by a READ") != NULL)
            sig_access = "read";
        else if (strstr(L->l[i], "caused by a WRITE") != NULL)
            sig_access = "write";
        if (L->l[i][0] == '\0' && i > at + 3)
            break;
    }
    trace_t st;
    i = parse_stack(L, i, &st);
    int u = user_frame(&st);
    if (st.n == 0) {
        /* Cut short: what happened, in the runtime's words, is all there is. */
        e->cut = 1;
        snprintf(e->msg, sizeof e->msg, "%s", e->kind);
        return;
    }
    if (u >= 0) {
        snprintf(e->file, sizeof e->file, "%s", st.f[u].file);
        e->line = st.f[u].line;
        e->col = st.f[u].col;
        set_context(&st, u, e);
    }
    char callbuf[64];
    const char *call = mpi_call(&st, u < 0 ? st.n : u, callbuf, sizeof callbuf);
    char how[96];
    if (call != NULL)
        snprintf(how, sizeof how, "%s in %s", access[0] != '\0' ? access : "access", call);
    else
        snprintf(how, sizeof how, "%s", access[0] != '\0' ? access : "access");

    /* The description of the address, and the stacks of its block. */
    trace_t alloc = {.n = 0}, freed = {.n = 0};
    char obj[128] = "", objfile[PATH_MAX] = "", frame_fn[160] = "";
    long long b = 0, en = 0, off = -1, gap = -1, region = -1;
    int objline = 0, have_obj = 0;
    enum { NONE, STACK, GLOBAL, HEAP } place = NONE;
    char rel[32] = "";
    for (; i < L->n && !starts(L->l[i], "SUMMARY:") && !starts(L->l[i], "Shadow bytes"); i++) {
        const char *l = L->l[i];
        char nm[128];
        long long ob, oe;
        int ol;
        if (strstr(l, "is located in stack of thread") != NULL) {
            place = STACK;
            const char *o = strstr(l, "at offset ");
            if (o != NULL)
                off = strtoll(o + 10, NULL, 10);
            trace_t fs;
            parse_stack(L, i + 1, &fs);
            if (fs.n > 0)
                snprintf(frame_fn, sizeof frame_fn, "%s", fs.f[0].func);
        } else if (sscanf(l, " [%lld, %lld) '%127[^']' (line %d)", &ob, &oe, nm, &ol) == 4) {
            /* The object the access touches: one that ends right where it starts (a write
             * running off its end) before the one ASan marks (which may be the next one, the
             * access partly "underflowing" it). */
            int marked = strstr(l, "<== ") != NULL;
            int ends_here = off >= 0 && oe == off;
            if (have_obj != 2 && (ends_here || (marked && have_obj == 0))) {
                snprintf(obj, sizeof obj, "%s", nm);
                b = ob;
                en = oe;
                objline = ol;
                have_obj = ends_here ? 2 : 1;
            }
        } else if (strstr(l, " global variable '") != NULL) {
            place = GLOBAL;
            const char *g = strstr(l, " global variable '") + 18;
            copy(obj, sizeof obj, g, strcspn(g, "'"));
            const char *d = strstr(l, "defined in '");
            if (d != NULL) {
                d += 12;
                int c;
                parse_loc(d, strcspn(d, "'"), objfile, sizeof objfile, &objline, &c);
            }
            const char *z = strstr(l, "of size ");
            region = z != NULL ? strtoll(z + 8, NULL, 10) : -1;
            have_obj = 1;
            const char *at_ = strstr(l, "is located ");
            gap = at_ != NULL ? strtoll(at_ + 11, NULL, 10) : 0;
            snprintf(rel, sizeof rel, "%s", side_of(l));
        } else if (strstr(l, "-byte region [") != NULL && strstr(l, "is located ") != NULL) {
            place = HEAP;
            const char *p = strstr(l, "is located ") + 11;
            gap = strtoll(p, NULL, 10);
            snprintf(rel, sizeof rel, "%s", side_of(l));
            const char *r = strstr(l, "-byte region");
            while (r > l && isdigit((unsigned char)r[-1]))
                r--;
            region = strtoll(r, NULL, 10);
        } else if (strstr(l, "freed by thread") != NULL) {
            i = parse_stack(L, i + 1, &freed) - 1;
        } else if (strstr(l, "allocated by thread") != NULL) {
            i = parse_stack(L, i + 1, &alloc) - 1;
        }
    }

    char src[4096] = "", name[128] = "";
    if (u >= 0)
        fy_debug_source_line(e->file, e->line, src, sizeof src);
    char aplace[PATH_MAX + 16], fplace[PATH_MAX + 16];
    frame_place(&alloc, e->file, aplace, sizeof aplace);
    frame_place(&freed, e->file, fplace, sizeof fplace);
    /* The heap block's name: what the allocation was assigned to, or what was freed. */
    if (place == HEAP || strcmp(e->kind, "attempting") == 0) {
        char an[128] = "", fnm[128] = "", line[4096];
        int ua = user_frame(&alloc), uf = user_frame(&freed);
        if (ua >= 0 &&
            fy_debug_source_line(alloc.f[ua].file, alloc.f[ua].line, line, sizeof line)) {
            allocated_name(line, an, sizeof an);
            if (an[0] == '\0')
                shared_name(line, src, an, sizeof an);
        }
        if (uf >= 0 &&
            fy_debug_source_line(freed.f[uf].file, freed.f[uf].line, line, sizeof line))
            freed_name(line, fnm, sizeof fnm);
        char here[128] = "";
        if (src[0] != '\0')
            freed_name(src, here, sizeof here);
        /* The name as the failing line spells it, when it does (a free's own argument for
         * a bad or double free). */
        if (strcmp(e->kind, "attempting") == 0 && here[0] != '\0')
            snprintf(name, sizeof name, "%s", here);
        else if (an[0] != '\0' && fy_debug_find_word(src, an) >= 0)
            snprintf(name, sizeof name, "%s", an);
        else if (fnm[0] != '\0' && fy_debug_find_word(src, fnm) >= 0)
            snprintf(name, sizeof name, "%s", fnm);
        else if (here[0] != '\0')
            snprintf(name, sizeof name, "%s", here);
        else
            snprintf(name, sizeof name, "%s", an[0] != '\0' ? an : fnm);
    }

    /* The allocator: the MPI call that allocated (MPI_Alloc_mem), else the runtime's
     * function (malloc, calloc, operator new...). */
    char alloc_fn[96] = "the heap";
    char amcbuf[64];
    const char *amc = mpi_call(&alloc, user_frame(&alloc) < 0 ? 0 : user_frame(&alloc), amcbuf,
                               sizeof amcbuf);
    if (amc != NULL)
        snprintf(alloc_fn, sizeof alloc_fn, "%s", amc);
    else if (alloc.n > 0 && alloc.f[0].func[0] != '\0') {
        const char *fn = alloc.f[0].func;
        if (starts(fn, "__interceptor_"))
            fn += 14;
        copy(alloc_fn, sizeof alloc_fn, fn, strcspn(fn, ".("));
    }
    char w[48];
    if (strcmp(e->kind, "heap-use-after-free") == 0) {
        snprintf(e->kind, sizeof e->kind, "use after free");
        if (name[0] != '\0')
            snprintf(e->msg, sizeof e->msg,
                     "%s of '%s' after it was freed (freed at %s, allocated at %s)", how, name,
                     fplace, aplace);
        else
            snprintf(e->msg, sizeof e->msg,
                     "%s of a %lld-byte block after it was freed (freed at %s, allocated at %s)",
                     how, region, fplace, aplace);
    } else if (strcmp(e->kind, "attempting") == 0 && strstr(first, "double-free") != NULL) {
        snprintf(e->kind, sizeof e->kind, "double free");
        if (name[0] != '\0')
            snprintf(e->msg, sizeof e->msg, "'%s' freed twice (freed first at %s, allocated at %s)",
                     name, fplace, aplace);
        else
            snprintf(e->msg, sizeof e->msg,
                     "a %lld-byte block freed twice (freed first at %s, allocated at %s)", region,
                     fplace, aplace);
    } else if (place == HEAP && (strstr(e->kind, "overflow") != NULL ||
                                 strstr(e->kind, "underflow") != NULL)) {
        where_phrase(w, sizeof w, strcmp(rel, "left") == 0 ? -gap : region + gap, 0, region);
        if (u > 0 && gap == 0 && strcmp(rel, "right") == 0)
            snprintf(w, sizeof w, "runs past the end of");
        if (strcmp(rel, "in") == 0)
            snprintf(w, sizeof w, "inside");
        if (name[0] != '\0')
            snprintf(e->msg, sizeof e->msg, "%s %s '%s' (%lld bytes from %s at %s)", how, w,
                     name, region, alloc_fn, aplace);
        else
            snprintf(e->msg, sizeof e->msg, "%s %s a %lld-byte block (allocated at %s)", how, w,
                     region, aplace);
    } else if (place == GLOBAL) {
        where_phrase(w, sizeof w, strcmp(rel, "left") == 0 ? -gap : region + gap, 0, region);
        char of[PATH_MAX];
        fy_debug_short_path(objfile, of, sizeof of);
        /* The definition's path is as compiled (often relative): its line alone when it is
         * the error's file. */
        if (strcmp(base_name(objfile), base_name(e->file)) == 0)
            snprintf(e->msg, sizeof e->msg, "%s %s global '%s' (%lld bytes, defined at line %d)",
                     how, w, obj, region, objline);
        else
            snprintf(e->msg, sizeof e->msg, "%s %s global '%s' (%lld bytes, defined at %s:%d)",
                     how, w, obj, region, of, objline);
        snprintf(name, sizeof name, "%s", obj);
    } else if (place == STACK && have_obj) {
        snprintf(name, sizeof name, "%s", obj);
        if (strstr(e->kind, "after-scope") != NULL) {
            snprintf(e->msg, sizeof e->msg,
                     "%s of '%s' after the block that declared it ended (declared at line %d in "
                     "%s)",
                     how, obj, objline, frame_fn);
        } else if (strstr(e->kind, "after-return") != NULL) {
            snprintf(e->msg, sizeof e->msg,
                     "%s of '%s', a local of %s, after %s returned (declared at line %d)", how, obj,
                     frame_fn, frame_fn, objline);
        } else {
            where_phrase(w, sizeof w, off, b, en);
            if (u > 0 && off == en)
                snprintf(w, sizeof w, "runs past the end of");
            snprintf(e->msg, sizeof e->msg,
                     "%s %s '%s' (%lld bytes on the stack of %s, declared at line %d)", how, w, obj,
                     en - b, frame_fn, objline);
        }
    } else if (strcmp(e->kind, "SEGV") == 0 || strcmp(e->kind, "BUS") == 0) {
        unsigned long long addr = 0;
        const char *a = strstr(first, "address 0x");
        if (a != NULL)
            addr = strtoull(a + 8, NULL, 16);
        int pc_zero = 0;
        for (int k = at; k < L->n && k < at + 6; k++)
            pc_zero |= strstr(L->l[k], "pc points to the zero page") != NULL;
        if (pc_zero)
            snprintf(e->msg, sizeof e->msg, "call through a null function pointer");
        else if (addr < 4096)
            snprintf(e->msg, sizeof e->msg, "%s through a null pointer%s%s",
                     sig_access != NULL ? sig_access : "access", call != NULL ? " in " : "",
                     call != NULL ? call : "");
        else
            snprintf(e->msg, sizeof e->msg, "%s of invalid address 0x%llx%s%s (%s)",
                     sig_access != NULL ? sig_access : "access", addr, call != NULL ? " in " : "",
                     call != NULL ? call : "",
                     strcmp(e->kind, "SEGV") == 0 ? "segmentation fault" : "bus error");
        snprintf(e->kind, sizeof e->kind, "%s", pc_zero ? "null call" : "bad address");
    } else if (strcmp(e->kind, "stack-overflow") == 0) {
        snprintf(e->msg, sizeof e->msg, "stack overflow in %s (a recursion that never ends?)",
                 u >= 0 ? st.f[u].func : "?");
    } else if (strcmp(e->kind, "ABRT") == 0) {
        int assert_fail = 0;
        for (int k = 0; k < st.n; k++)
            assert_fail |= starts(st.f[k].func, "__assert_fail");
        if (assert_fail)
            snprintf(e->msg, sizeof e->msg, "assertion failed");
        else
            snprintf(e->msg, sizeof e->msg, "the program called abort()%s%s",
                     call != NULL ? " in " : "", call != NULL ? call : "");
    } else if (strstr(first, "not malloc()-ed") != NULL) {
        snprintf(e->kind, sizeof e->kind, "bad free");
        if (name[0] != '\0')
            snprintf(e->msg, sizeof e->msg, "free of '%s', an address malloc did not return",
                     name);
        else
            snprintf(e->msg, sizeof e->msg, "free of an address malloc did not return");
    } else {
        /* The first line of the report, without its addresses. */
        size_t fl = strcspn(first, "\n");
        const char *cut = strstr(first, ": 0x");
        if (cut == NULL)
            cut = strstr(first, " on address 0x");
        if (cut == NULL)
            cut = strstr(first, " on unknown address");
        if (cut == NULL)
            cut = strstr(first, " at pc 0x");
        if (cut != NULL && (size_t)(cut - first) < fl)
            fl = (size_t)(cut - first);
        snprintf(e->msg, sizeof e->msg, "%.*s%s%s", (int)fl, first, call != NULL ? " in " : "",
                 call != NULL ? call : "");
        if (strcmp(e->kind, "attempting") == 0)
            copy(e->kind, sizeof e->kind, first, fl);
    }
    snprintf(e->name, sizeof e->name, "%s", name);
}

/* ---------------------------------------------------------------------------------------- */

int fy_debug_read(const char *path, fy_debug_err_t *e)
{
    lines_t L;
    if (read_lines(path, &L) != 0)
        return 0;
    int found = 0;
    for (int i = 0; i < L.n && !found; i++) {
        const char *l = L.l[i];
        if (strstr(l, ": runtime error: ") != NULL) {
            from_ubsan(&L, i, e);
            found = 1;
        } else if (l[0] == '=' && strstr(l, "ERROR: AddressSanitizer: ") != NULL) {
            from_asan(&L, i, e);
            found = 1;
        } else if (l[0] == '=' && strstr(l, "ERROR: ") != NULL) {
            /* Another runtime's error (LeakSanitizer, if the user turned leaks on): its
             * words, and the first program frame after it. */
            const char *w = strstr(l, "ERROR: ") + 7;
            snprintf(e->msg, sizeof e->msg, "%s", w);
            copy(e->kind, sizeof e->kind, w, strcspn(w, ":"));
            trace_t st;
            int k = i + 1;
            while (k < L.n && !parse_frame(L.l[k], &(frame_t){0}))
                k++;
            parse_stack(&L, k, &st);
            int u = user_frame(&st);
            if (u >= 0) {
                snprintf(e->file, sizeof e->file, "%s", st.f[u].file);
                e->line = st.f[u].line;
            }
            found = 1;
        }
    }
    free_lines(&L);
    return found;
}

