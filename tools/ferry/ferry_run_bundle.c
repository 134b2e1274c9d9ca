/* A program as bytes: the bundle. Its SHA-256 is the cache key, so it holds everything the
 * binary depends on except the headers (each entry's manifest covers those) and the compiler's
 * identity and the architecture (each entry keeps one binary per pair). It is also what travels
 * to a host that must compile the program itself (`ferry _exec`), so it holds the sources'
 * text, not their paths alone.
 *
 * Format: records "<tag><length>:<bytes>\n", in a fixed order; lengths in decimal. Text, so it
 * can travel in an environment variable (when no source holds a NUL byte). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fy_sha256.h"
#include "ferry_run.h"

#ifndef FY_VERSION
#define FY_VERSION "unknown"
#endif

/* Bumped when the way programs are compiled changes: old entries then miss. */
#define BUNDLE_FORMAT "ferry-run-bundle 1"

typedef struct {
    char *b;
    size_t n, cap;
} buf_t;

static void put(buf_t *b, char tag, const char *s, size_t len)
{
    char head[32];
    int h = snprintf(head, sizeof head, "%c%zu:", tag, len);
    size_t need = b->n + (size_t)h + len + 2;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < need)
            cap *= 2;
        char *nb = realloc(b->b, cap);
        if (nb == NULL) {
            fprintf(stderr, "ferry: out of memory\n");
            exit(FY_RUN_EXIT_FAIL);
        }
        b->b = nb;
        b->cap = cap;
    }
    memcpy(b->b + b->n, head, (size_t)h);
    b->n += (size_t)h;
    memcpy(b->b + b->n, s, len);
    b->n += len;
    b->b[b->n++] = '\n';
    b->b[b->n] = '\0';
}

static void puts_(buf_t *b, char tag, const char *s)
{
    put(b, tag, s, strlen(s));
}

void fy_run_bundle_make(const fy_run_prog_t *p, char **out, size_t *len)
{
    buf_t b = {0};
    int any_cxx = 0;
    for (int i = 0; i < p->nsrc; i++)
        any_cxx |= p->src[i].cxx;
    puts_(&b, 'H', BUNDLE_FORMAT);
    puts_(&b, 'V', FY_VERSION);
    /* The binaries carry an rpath to this Ferry's lib/: another tree, another binary. */
    puts_(&b, 'P', fy_run_prefix());
    puts_(&b, 'c', p->cc);
    /* The C++ compiler only matters to programs with C++ in them. */
    puts_(&b, 'x', any_cxx ? p->cxx : "");
    for (int i = 0; i < p->nflags; i++)
        puts_(&b, 'f', p->flags[i]);
    puts_(&b, 'd', p->debug ? "1" : "0");
    puts_(&b, 'g', p->g ? "1" : "0");
    puts_(&b, 't', p->stem);
    for (int i = 0; i < p->nsrc; i++) {
        puts_(&b, 'n', p->src[i].name);
        puts_(&b, 'i', p->src[i].dir);
        puts_(&b, 'k', p->src[i].cxx ? "1" : "0");
        put(&b, 's', p->src[i].text, p->src[i].len);
    }
    *out = b.b;
    *len = b.n;
}

/* The next record: its tag, value (copied, NUL-terminated) and length; -1 at the end or on
 * bad bytes. */
static int next(const char **s, const char *end, char *tag, char **val, size_t *len)
{
    if (*s >= end)
        return -1;
    *tag = **s;
    char *colon;
    unsigned long long n = strtoull(*s + 1, &colon, 10);
    if (colon >= end || *colon != ':' || n > (unsigned long long)(end - colon - 1) ||
        colon + 1 + n >= end || colon[1 + n] != '\n')
        return -1;
    *val = fy_run_xalloc((size_t)n + 1);
    memcpy(*val, colon + 1, (size_t)n);
    *len = (size_t)n;
    *s = colon + 1 + n + 1;
    return 0;
}

int fy_run_bundle_read(const char *buf, size_t len, fy_run_prog_t *p)
{
    const char *s = buf, *end = buf + len;
    char tag, *v;
    size_t n;
    memset(p, 0, sizeof(*p));
    if (next(&s, end, &tag, &v, &n) != 0 || tag != 'H' || strcmp(v, BUNDLE_FORMAT) != 0)
        return -1;
    free(v);
    p->flags = fy_run_xalloc(sizeof(char *));
    while (next(&s, end, &tag, &v, &n) == 0) {
        fy_run_src_t *cur = p->nsrc > 0 ? &p->src[p->nsrc - 1] : NULL;
        switch (tag) {
        case 'V': case 'P': free(v); break;
        case 'c': p->cc = v; break;
        case 'x': p->cxx = v; break;
        case 'd': p->debug = v[0] == '1'; free(v); break;
        case 'g': p->g = v[0] == '1'; free(v); break;
        case 't': p->stem = v; break;
        case 'f': {
            char **nf = realloc(p->flags, sizeof(char *) * (size_t)(p->nflags + 2));
            if (nf == NULL)
                return -1;
            p->flags = nf;
            p->flags[p->nflags++] = v;
            p->flags[p->nflags] = NULL;
            break;
        }
        case 'n': {
            fy_run_src_t *ns = realloc(p->src, sizeof(*ns) * (size_t)(p->nsrc + 1));
            if (ns == NULL)
                return -1;
            p->src = ns;
            memset(&ns[p->nsrc], 0, sizeof(*ns));
            ns[p->nsrc++].name = v;
            break;
        }
        case 'i': if (cur == NULL) return -1; cur->dir = v; break;
        case 'k': if (cur == NULL) return -1; cur->cxx = v[0] == '1'; free(v); break;
        case 's': if (cur == NULL) return -1; cur->text = v; cur->len = n; break;
        default: free(v); return -1;
        }
    }
    if (s != end || p->cc == NULL || p->cxx == NULL || p->stem == NULL || p->nsrc == 0)
        return -1;
    for (int i = 0; i < p->nsrc; i++)
        if (p->src[i].dir == NULL || p->src[i].text == NULL)
            return -1;
    return 0;
}

void fy_run_key(const char *bundle, size_t len, char key[65])
{
    uint8_t h[32];
    fy_sha256(bundle, len, h);
    for (int i = 0; i < 32; i++)
        snprintf(key + 2 * i, 3, "%02x", h[i]);
}
