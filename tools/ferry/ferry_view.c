/* `ferry view DIR [-o FILE.html] [--perfetto FILE.json] [--png OUTDIR]`: the page (ferry_view.h).
 *
 * The page is the view's template (compiled in) with its four markers filled: the style, the
 * script, the meta JSON and the data. The data is the model's columns one after another (each
 * 8-aligned, little-endian as the machine is), deflated with zlib and base64-encoded; the meta
 * says where each column is. Everything is written through one buffered FILE. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "ferry.h"
#include "ferry_view.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: ferry view DIR [-o FILE.html] [--perfetto FILE.json] [--png OUTDIR]\n"
               "  DIR is the directory of `mpiexec --trace DIR`. Writes one self-contained HTML\n"
               "  page (default DIR/view.html): a zoomable timeline, the profile tables, the\n"
               "  communication matrix and the message sizes; it opens from disk, offline.\n"
               "  --perfetto FILE  also the trace as Chrome trace-event JSON (Perfetto UI,\n"
               "                   chrome://tracing)\n"
               "  --png OUTDIR     also each view as OUTDIR/<view>.png (headless Chromium;\n"
               "                   FERRY_CHROMIUM names the browser)\n");
}

/* --- JSON ------------------------------------------------------------------------------------- */

/* A JSON string. '<' is written as \u003c so that nothing in it can end the <script> element. */
static void jstr(FILE *f, const char *s, size_t max)
{
    fputc('"', f);
    for (size_t i = 0; i < max && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* profile.json, whole, or NULL with a note. It is embedded as it is: only checked to be one
 * JSON object (its first and last characters), with '<' escaped for the same reason as above
 * ("\u003c" is only valid inside a string, and '<' never appears outside one in JSON). */
static char *read_profile(const char *dir, char **note)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/profile.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (asprintf(note, "no profile (%s: %s): the view has no profile tables", path,
                     strerror(errno)) < 0)
            *note = NULL;
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    fclose(f);
    size_t a = 0, b = len;
    while (a < b && strchr(" \t\r\n", buf[a]))
        a++;
    while (b > a && strchr(" \t\r\n", buf[b - 1]))
        b--;
    if (b - a < 2 || buf[a] != '{' || buf[b - 1] != '}') {
        if (asprintf(note, "%s is not a JSON object: the view has no profile tables", path) < 0)
            *note = NULL;
        free(buf);
        return NULL;
    }
    buf[b] = 0;
    memmove(buf, buf + a, b - a + 1);
    return buf;
}

static void write_profile(FILE *f, const char *p)
{
    for (; *p; p++) {
        if (*p == '<')
            fputs("\\u003c", f);
        else
            fputc(*p, f);
    }
}

/* --- the data --------------------------------------------------------------------------------- */

typedef struct col {
    const char *name, *type;
    const void *data;
    size_t count, elem, offset;
} col_t;

static size_t layout(col_t *c, int n)
{
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        c[i].offset = off;
        off += (c[i].count * c[i].elem + 7) & ~(size_t)7;
    }
    return off;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int write_base64(FILE *f, const unsigned char *p, size_t n)
{
    char line[4096];
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        line[k++] = b64[v >> 18 & 63];
        line[k++] = b64[v >> 12 & 63];
        line[k++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        line[k++] = i + 2 < n ? b64[v & 63] : '=';
        if (k == sizeof line) {
            if (fwrite(line, 1, k, f) != k)
                return -1;
            k = 0;
        }
    }
    return fwrite(line, 1, k, f) == k ? 0 : -1;
}

/* The columns, deflated and base64-encoded into f. */
static int write_data(FILE *f, col_t *c, int n, size_t raw)
{
    unsigned char *buf = calloc(raw ? raw : 1, 1);
    if (!buf)
        return -1;
    for (int i = 0; i < n; i++)
        if (c[i].count)
            memcpy(buf + c[i].offset, c[i].data, c[i].count * c[i].elem);
    /* Level 1: most of the gain (times and names repeat), several times faster than the
     * default on 100 MB of columns. */
    uLongf zlen = compressBound(raw);
    unsigned char *z = malloc(zlen);
    int rc = -1;
    if (z && compress2(z, &zlen, buf, raw, 1) == Z_OK)
        rc = write_base64(f, z, zlen);
    free(z);
    free(buf);
    return rc;
}

static void write_meta(FILE *f, const fy_trace_t *tr, const view_model_t *m, const char *profile,
                       char **notes, int nnotes, col_t *c, int ncols, size_t raw)
{
    const fyt_header_t *h0 = NULL;
    for (int r = 0; r < tr->nranks && !h0; r++)
        if (tr->ranks[r].present)
            h0 = tr->ranks[r].hdr;
    fputs("{\"version\": 1, \"program\": ", f);
    jstr(f, h0 ? h0->program : "", sizeof h0->program);
    fprintf(f, ", \"ranks\": %d, \"hosts\": [", tr->nranks);
    for (int r = 0; r < tr->nranks; r++) {
        fputs(r ? ", " : "", f);
        jstr(f, tr->ranks[r].present ? tr->ranks[r].hdr->host : "", sizeof h0->host);
    }
    fprintf(f, "],\n\"duration_ns\": %lld, \"start_unix_ns\": %lld,\n\"names\": [",
            (long long)(tr->ns_max - tr->ns_min),
            (long long)(h0 ? (int64_t)h0->epoch_unix_ns + tr->ns_min : 0));
    for (uint32_t i = 0; i < tr->nnames; i++) {
        fputs(i ? ", " : "", f);
        jstr(f, tr->names[i].name, SIZE_MAX);
    }
    fputs("],\n\"name_class\": [", f);
    for (uint32_t i = 0; i < tr->nnames; i++)
        fprintf(f, "%s\"%s\"", i ? ", " : "", fy_trace_class_name(tr->names[i].cls));
    /* Each rank's clock alignment error (the worst of its syncs: half a round trip to rank 0):
     * times of two ranks compare only to within the sum of theirs. */
    fputs("],\n\"clock_error_ns\": [", f);
    for (int r = 0; r < tr->nranks; r++) {
        uint64_t e = 0;
        for (int i = 0; i < tr->ranks[r].nsyncs; i++)
            if (tr->ranks[r].syncs[i].error_ns > e)
                e = tr->ranks[r].syncs[i].error_ns;
        fprintf(f, "%s%llu", r ? ", " : "", (unsigned long long)e);
    }
    fputs("],\n\"comms\": [", f);
    for (uint32_t i = 0; i < tr->ncomms; i++) {
        /* The members (world ranks of the local group): the page groups a collective's calls
         * by them instead of guessing from who called what when. */
        const fy_trace_comm_t *c = &tr->comms[i];
        fprintf(f, "%s{\"uid\": \"%llu\", \"size\": %u, \"members\": [", i ? ", " : "",
                (unsigned long long)c->uid, c->size);
        for (uint32_t m = 0; c->def != NULL && m < c->size; m++)
            fprintf(f, "%s%d", m ? ", " : "", (int)c->def->world[m]);
        fputs("]}", f);
    }
    fputs("],\n\"profile\": ", f);
    if (profile)
        write_profile(f, profile);
    else
        fputs("null", f);
    fputs(",\n\"notes\": [", f);
    for (int i = 0; i < nnotes; i++) {
        fputs(i ? ",\n  " : "", f);
        jstr(f, notes[i], SIZE_MAX);
    }
    fprintf(f, "],\n\"counts\": {\"intervals\": %zu, \"messages\": %zu, \"collectives\": %zu, "
               "\"events\": %llu},\n\"raw_bytes\": %zu,\n\"columns\": {",
            m->niv, m->nmsg, m->ncoll, (unsigned long long)tr->nevents, raw);
    for (int i = 0; i < ncols; i++)
        fprintf(f, "%s\"%s\": {\"type\": \"%s\", \"offset\": %zu, \"count\": %zu}",
                i ? ",\n  " : "", c[i].name, c[i].type, c[i].offset, c[i].count);
    fputs("}}", f);
}

/* Writes the template up to each marker, then what replaces it. */
static int write_page(FILE *f, const fy_trace_t *tr, const view_model_t *m, const char *profile,
                      char **notes, int nnotes)
{
    col_t c[] = {
        {"iv_start", "f64", m->iv_start, m->niv, 8, 0},
        {"iv_dur", "f32", m->iv_dur, m->niv, 4, 0},
        {"iv_rank", "u16", m->iv_rank, m->niv, 2, 0},
        {"iv_name", "u16", m->iv_name, m->niv, 2, 0},
        {"iv_depth", "u8", m->iv_depth, m->niv, 1, 0},
        {"rank_off", "u32", m->rank_off, (size_t)tr->nranks + 1, 4, 0},
        {"msg_send", "f64", m->msg_send, m->nmsg, 8, 0},
        {"msg_recv", "f64", m->msg_recv, m->nmsg, 8, 0},
        {"msg_src", "u16", m->msg_src, m->nmsg, 2, 0},
        {"msg_dst", "u16", m->msg_dst, m->nmsg, 2, 0},
        {"msg_tag", "i32", m->msg_tag, m->nmsg, 4, 0},
        {"msg_bytes", "f64", m->msg_bytes, m->nmsg, 8, 0},
        {"coll_start", "f64", m->coll_start, m->ncoll, 8, 0},
        {"coll_last_in", "f64", m->coll_last_in, m->ncoll, 8, 0},
        {"coll_end", "f64", m->coll_end, m->ncoll, 8, 0},
        {"coll_name", "u16", m->coll_name, m->ncoll, 2, 0},
        {"coll_root", "i32", m->coll_root, m->ncoll, 4, 0},
        {"coll_bytes", "f64", m->coll_bytes, m->ncoll, 8, 0},
        {"coll_comm", "u32", m->coll_comm, m->ncoll, 4, 0},
    };
    int ncols = (int)(sizeof c / sizeof c[0]);
    size_t raw = layout(c, ncols);
    const char *t = (const char *)fy_view_html, *end = t + fy_view_html_len;
    int done[4] = {0};
    while (t < end) {
        const char *mk = memmem(t, (size_t)(end - t), "<!--FY_", 7);
        if (!mk) {
            fwrite(t, 1, (size_t)(end - t), f);
            break;
        }
        fwrite(t, 1, (size_t)(mk - t), f);
        static const char *const marks[] = {"<!--FY_STYLE-->", "<!--FY_SCRIPT-->",
                                            "<!--FY_META-->", "<!--FY_DATA-->"};
        int which = -1;
        for (int i = 0; i < 4; i++)
            if ((size_t)(end - mk) >= strlen(marks[i]) &&
                memcmp(mk, marks[i], strlen(marks[i])) == 0)
                which = i;
        if (which < 0) {
            fwrite(mk, 1, 7, f);
            t = mk + 7;
            continue;
        }
        t = mk + strlen(marks[which]);
        done[which] = 1;
        switch (which) {
        case 0:
            fputs("<style>\n", f);
            fwrite(fy_view_css, 1, fy_view_css_len, f);
            fputs("</style>", f);
            break;
        case 1:
            fputs("<script>\n", f);
            fwrite(fy_view_js, 1, fy_view_js_len, f);
            fputs("</script>", f);
            break;
        case 2:
            fputs("<script id=\"fy-meta\" type=\"application/json\">\n", f);
            write_meta(f, tr, m, profile, notes, nnotes, c, ncols, raw);
            fputs("\n</script>", f);
            break;
        case 3:
            fputs("<script id=\"fy-data\" type=\"application/octet-stream\">\n", f);
            if (write_data(f, c, ncols, raw) != 0)
                return -1;
            fputs("\n</script>", f);
            break;
        }
    }
    if (!done[2] || !done[3]) {
        fprintf(stderr, VIEW_WHO ": the compiled-in page has no %s marker (a bad build)\n",
                done[2] ? "<!--FY_DATA-->" : "<!--FY_META-->");
        return -1;
    }
    return 0;
}

/* --- the command ------------------------------------------------------------------------------ */

static int add_note(char ***notes, int *n, char *s)
{
    if (!s)
        return 0;
    char **nn = realloc(*notes, (size_t)(*n + 1) * sizeof *nn);
    if (!nn) {
        free(s);
        return -1;
    }
    *notes = nn;
    nn[(*n)++] = s;
    return 0;
}

int fy_tool_view(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL, *perfetto = NULL, *png = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "-o") == 0)
            slot = &out;
        else if (strcmp(a, "--perfetto") == 0)
            slot = &perfetto;
        else if (strcmp(a, "--png") == 0)
            slot = &png;
        if (slot) {
            if (i + 1 >= argc || argv[i + 1][0] == 0) {
                fprintf(stderr, VIEW_WHO ": %s needs a value\n", a);
                return 2;
            }
            *slot = argv[++i];
            continue;
        }
        if (a[0] == '-' && a[1]) {
            fprintf(stderr, VIEW_WHO ": unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (dir) {
            fprintf(stderr, VIEW_WHO ": one trace directory at a time ('%s' and '%s')\n", dir, a);
            return 2;
        }
        dir = a;
    }
    if (!dir) {
        usage(stderr);
        return 2;
    }
    char err[1024];
    if (png && view_png_browser(err, sizeof err) != 0)
        return 1; /* before any work: --png cannot be done */
    fy_trace_t tr;
    if (fy_trace_open(&tr, dir, VIEW_WHO, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    int rc = 1;
    char **notes = NULL, *s = NULL;
    int nnotes = 0;
    char *profile = NULL;
    char html[PATH_MAX];
    view_model_t m;
    if (view_model_build(&tr, &m) != 0) {
        fy_trace_close(&tr);
        return 1;
    }
    for (int i = 0; i < tr.nnotes; i++)
        if (add_note(&notes, &nnotes, strdup(tr.notes[i])))
            goto out;
    if (m.closed && asprintf(&s, "%d call%s left open at the end of their rank's file %s closed "
                                 "at its last event", m.closed, m.closed == 1 ? "" : "s",
                             m.closed == 1 ? "was" : "were") >= 0 &&
        add_note(&notes, &nnotes, s))
        goto out;
    if (m.unmatched_recvs && asprintf(&s, "%zu receives have no matching send in the trace",
                                      m.unmatched_recvs) >= 0 &&
        add_note(&notes, &nnotes, s))
        goto out;
    if (m.incomplete_colls && asprintf(&s, "%zu collectives were not recorded on every member",
                                       m.incomplete_colls) >= 0 &&
        add_note(&notes, &nnotes, s))
        goto out;
    s = NULL;
    profile = read_profile(dir, &s);
    if (add_note(&notes, &nnotes, s))
        goto out;
    for (int i = 0; i < nnotes; i++)
        fprintf(stderr, VIEW_WHO ": note: %s\n", notes[i]);
    /* The recorder's informational notes go on the page, not on the terminal. */
    for (int i = 0; i < tr.ninfo; i++)
        if (add_note(&notes, &nnotes, strdup(tr.info[i])))
            goto out;

    if (out)
        snprintf(html, sizeof html, "%s", out);
    else
        snprintf(html, sizeof html, "%s/view.html", dir);
    FILE *f = fopen(html, "w");
    if (!f) {
        int e = errno;
        fprintf(stderr, VIEW_WHO ": %s: %s%s\n", html, strerror(e),
                !out && (e == EACCES || e == EROFS) ? " (-o FILE writes the page elsewhere)" : "");
        goto out;
    }
    static char fbuf[1 << 20];
    setvbuf(f, fbuf, _IOFBF, sizeof fbuf);
    int wrc = write_page(f, &tr, &m, profile, notes, nnotes);
    if (fclose(f) != 0 || wrc != 0) {
        fprintf(stderr, VIEW_WHO ": %s: writing it: %s\n", html,
                errno ? strerror(errno) : "failed");
        /* A half page is removed; never a device or anything but a plain file (-o /dev/full). */
        struct stat hs;
        if (lstat(html, &hs) == 0 && S_ISREG(hs.st_mode))
            unlink(html);
        goto out;
    }
    struct stat st;
    stat(html, &st);
    printf(VIEW_WHO ": %s: %d ranks, %zu calls and regions, %zu messages, %zu collectives "
                    "(%.1f MB)\n", html, tr.nranks, m.niv, m.nmsg, m.ncoll,
           (double)st.st_size / 1e6);
    if (perfetto) {
        if (view_perfetto(&tr, &m, perfetto) != 0)
            goto out;
        printf(VIEW_WHO ": %s: Chrome/Perfetto trace-event JSON\n", perfetto);
    }
    if (png) {
        char abs[PATH_MAX];
        if (!realpath(html, abs)) {
            fprintf(stderr, VIEW_WHO ": %s: %s\n", html, strerror(errno));
            goto out;
        }
        fflush(stdout);
        if (view_png(abs, png) != 0)
            goto out;
    }
    rc = 0;
out:
    for (int i = 0; i < nnotes; i++)
        free(notes[i]);
    free(notes);
    free(profile);
    view_model_free(&m);
    fy_trace_close(&tr);
    return rc;
}
