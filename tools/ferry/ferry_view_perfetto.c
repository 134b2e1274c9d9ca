/* `ferry view --perfetto FILE`: the model as Chrome's trace-event JSON (the "JSON Array Format"
 * with a traceEvents member), which Perfetto UI and chrome://tracing load. One process per rank
 * (pid = tid = world rank, named "rank R (host)"), an "X" complete event per MPI call and user
 * region, and a flow ("s" at the send, "f" binding to the enclosing slice at the receive) per
 * matched message. Times are microseconds with nanosecond decimals.
 *
 * Millions of events: numbers are formatted by hand into a large buffer, not by printf. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ferry_view.h"

typedef struct out {
    FILE *f;
    char buf[1 << 16];
    size_t n;
} out_t;

static void flush(out_t *o)
{
    fwrite(o->buf, 1, o->n, o->f);
    o->n = 0;
}

static void put(out_t *o, const char *s, size_t len)
{
    if (o->n + len > sizeof o->buf)
        flush(o);
    if (len > sizeof o->buf) {
        fwrite(s, 1, len, o->f);
        return;
    }
    memcpy(o->buf + o->n, s, len);
    o->n += len;
}

#define PUTS(o, lit) put((o), (lit), sizeof(lit) - 1)

static void put_u64(out_t *o, uint64_t v)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (o->n + (size_t)k > sizeof o->buf)
        flush(o);
    while (k)
        o->buf[o->n++] = t[--k];
}

/* ns as microseconds: "12.345". Negative times do not occur (the model starts at 0). */
static void put_us(out_t *o, double ns)
{
    uint64_t v = ns > 0 ? (uint64_t)(ns + 0.5) : 0;
    put_u64(o, v / 1000);
    char d[4] = {'.', (char)('0' + v / 100 % 10), (char)('0' + v / 10 % 10), (char)('0' + v % 10)};
    put(o, d, 4);
}

static void put_str(out_t *o, const char *s)
{
    PUTS(o, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            put(o, e, 2);
        } else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            put(o, e, 6);
        } else {
            put(o, (const char *)&c, 1);
        }
    }
    PUTS(o, "\"");
}

int view_perfetto(const fy_trace_t *tr, const view_model_t *m, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, VIEW_WHO ": --perfetto %s: %s\n", path, strerror(errno));
        return -1;
    }
    out_t *o = malloc(sizeof *o);
    if (!o) {
        fclose(f);
        return -1;
    }
    o->f = f;
    o->n = 0;
    /* Names as JSON strings once, with their class. */
    char **jn = calloc(tr->nnames ? tr->nnames : 1, sizeof *jn);
    int ok = jn != NULL;
    for (uint32_t i = 0; ok && i < tr->nnames; i++) {
        size_t cap = strlen(tr->names[i].name) * 6 + 64;
        jn[i] = malloc(cap);
        if (!jn[i]) {
            ok = 0;
            break;
        }
        size_t k = (size_t)snprintf(jn[i], cap, "\"name\":\"");
        for (const char *s = tr->names[i].name; *s && k + 8 < cap; s++) {
            unsigned char c = (unsigned char)*s;
            if (c == '"' || c == '\\')
                k += (size_t)snprintf(jn[i] + k, cap - k, "\\%c", c);
            else if (c < 0x20)
                k += (size_t)snprintf(jn[i] + k, cap - k, "\\u%04x", c);
            else
                jn[i][k++] = (char)c;
        }
        snprintf(jn[i] + k, cap - k, "\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":",
                 fy_trace_class_name(tr->names[i].cls));
    }
    if (!ok) {
        for (uint32_t i = 0; jn && i < tr->nnames; i++)
            free(jn[i]);
        free(jn);
        free(o);
        fclose(f);
        fprintf(stderr, VIEW_WHO ": out of memory\n");
        return -1;
    }
    PUTS(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"program\":");
    const fyt_header_t *h0 = NULL;
    for (int r = 0; r < tr->nranks && !h0; r++)
        if (tr->ranks[r].present)
            h0 = tr->ranks[r].hdr;
    put_str(o, h0 ? h0->program : "");
    PUTS(o, ",\"tool\":\"ferry view\"},\n\"traceEvents\":[\n");
    for (int r = 0; r < tr->nranks; r++) {
        char name[128];
        snprintf(name, sizeof name, "rank %d (%.63s)", r,
                 tr->ranks[r].present ? tr->ranks[r].hdr->host : "no file");
        PUTS(o, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":");
        put_u64(o, (uint64_t)r);
        PUTS(o, ",\"tid\":");
        put_u64(o, (uint64_t)r);
        PUTS(o, ",\"args\":{\"name\":");
        put_str(o, name);
        PUTS(o, "}},\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":");
        put_u64(o, (uint64_t)r);
        PUTS(o, ",\"tid\":");
        put_u64(o, (uint64_t)r);
        PUTS(o, ",\"args\":{\"sort_index\":");
        put_u64(o, (uint64_t)r);
        PUTS(o, "}},\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
        put_u64(o, (uint64_t)r);
        PUTS(o, ",\"tid\":");
        put_u64(o, (uint64_t)r);
        snprintf(name, sizeof name, "rank %d", r);
        PUTS(o, ",\"args\":{\"name\":");
        put_str(o, name);
        PUTS(o, "}}");
        if (r + 1 < tr->nranks || m->niv || m->nmsg)
            PUTS(o, ",\n");
    }
    for (size_t i = 0; i < m->niv; i++) {
        PUTS(o, "{");
        const char *j = jn[m->iv_name[i]];
        put(o, j, strlen(j));
        put_us(o, m->iv_start[i]);
        PUTS(o, ",\"dur\":");
        put_us(o, m->iv_dur[i]);
        PUTS(o, ",\"pid\":");
        put_u64(o, m->iv_rank[i]);
        PUTS(o, ",\"tid\":");
        put_u64(o, m->iv_rank[i]);
        PUTS(o, "}");
        if (i + 1 < m->niv || m->nmsg)
            PUTS(o, ",\n");
    }
    int first = 1;
    for (size_t i = 0; i < m->nmsg; i++) {
        if (isnan(m->msg_recv[i]))
            continue;
        if (!first)
            PUTS(o, ",\n");
        first = 0;
        PUTS(o, "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":");
        put_u64(o, i);
        PUTS(o, ",\"ts\":");
        put_us(o, m->msg_send[i]);
        PUTS(o, ",\"pid\":");
        put_u64(o, m->msg_src[i]);
        PUTS(o, ",\"tid\":");
        put_u64(o, m->msg_src[i]);
        PUTS(o, ",\"args\":{\"tag\":");
        char t[16];
        int tl = snprintf(t, sizeof t, "%d", m->msg_tag[i]);
        put(o, t, (size_t)tl);
        PUTS(o, ",\"bytes\":");
        put_u64(o, (uint64_t)m->msg_bytes[i]);
        PUTS(o, "}},\n{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":");
        put_u64(o, i);
        PUTS(o, ",\"ts\":");
        put_us(o, m->msg_recv[i]);
        PUTS(o, ",\"pid\":");
        put_u64(o, m->msg_dst[i]);
        PUTS(o, ",\"tid\":");
        put_u64(o, m->msg_dst[i]);
        PUTS(o, "}");
    }
    if (first && m->nmsg) {
        /* Every message unmatched after a ",\n": close the list with a harmless event. */
        PUTS(o, "{\"name\":\"end\",\"ph\":\"M\",\"pid\":0,\"tid\":0,\"args\":{}}");
    }
    PUTS(o, "\n]}\n");
    flush(o);
    for (uint32_t i = 0; i < tr->nnames; i++)
        free(jn[i]);
    free(jn);
    free(o);
    if (ferror(f) | (fclose(f) != 0)) {
        fprintf(stderr, VIEW_WHO ": --perfetto %s: writing it: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}
