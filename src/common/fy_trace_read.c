/* The raw trace reader: maps each rank's file, checks it, and indexes what the events refer to
 * (fy_trace_read.h says what it offers). */
#include "fy_trace_read.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_RANKS (1 << 20)

/* The record layouts the format fixes (fy_trace_format.h): whole 8-byte words, no padding. */
_Static_assert(sizeof(fyt_head_t) == 8, "fyt_head_t");
_Static_assert(sizeof(fyt_header_t) == 240, "fyt_header_t");
_Static_assert(sizeof(fyt_comm_t) == 24, "fyt_comm_t");
_Static_assert(sizeof(fyt_sync_t) == 32, "fyt_sync_t");
_Static_assert(sizeof(fyt_ev_t) == 16, "fyt_ev_t");
_Static_assert(sizeof(fyt_msg_t) == 40, "fyt_msg_t");
_Static_assert(sizeof(fyt_coll_t) == 40, "fyt_coll_t");
_Static_assert(sizeof(fyt_rma_t) == 32, "fyt_rma_t");
_Static_assert(sizeof(fyt_note_t) == 16, "fyt_note_t");

/* --- small maps ------------------------------------------------------------------------------- */

static uint32_t hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

uint32_t fy_trace_idmap_get(const fy_trace_idmap_t *m, uint32_t key)
{
    if (m->cap == 0 || key == FY_TRACE_NONE)
        return FY_TRACE_NONE;
    for (uint32_t i = hash32(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (m->keys[i] == FY_TRACE_NONE)
            return FY_TRACE_NONE;
    }
}

static int idmap_put(fy_trace_idmap_t *m, uint32_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t ncap = m->cap ? m->cap * 2 : 64;
        uint32_t *nk = malloc(ncap * sizeof *nk), *nv = malloc(ncap * sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        memset(nk, 0xff, ncap * sizeof *nk);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (m->keys[i] == FY_TRACE_NONE)
                continue;
            uint32_t j = hash32(m->keys[i]) & (ncap - 1);
            while (nk[j] != FY_TRACE_NONE)
                j = (j + 1) & (ncap - 1);
            nk[j] = m->keys[i];
            nv[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = nk;
        m->vals = nv;
        m->cap = ncap;
    }
    uint32_t i = hash32(key) & (m->cap - 1);
    while (m->keys[i] != FY_TRACE_NONE && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (m->keys[i] == FY_TRACE_NONE)
        m->n++;
    m->keys[i] = key; /* a later definition of the same id replaces the earlier one */
    m->vals[i] = val;
    return 0;
}

static void idmap_free(fy_trace_idmap_t *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* --- notes and errors ------------------------------------------------------------------------- */

static void vadd_to(char ***list, int *n, int *cap, const char *fmt, va_list ap)
{
    if (*n == *cap) {
        int ncap = *cap ? *cap * 2 : 8;
        char **nn = realloc(*list, ncap * sizeof *nn);
        if (!nn)
            return;
        *list = nn;
        *cap = ncap;
    }
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) >= 0)
        (*list)[(*n)++] = s;
}

static void add_note(fy_trace_t *tr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd_to(&tr->notes, &tr->nnotes, &tr->notes_cap, fmt, ap);
    va_end(ap);
}

static void add_info(fy_trace_t *tr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd_to(&tr->info, &tr->ninfo, &tr->info_cap, fmt, ap);
    va_end(ap);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* The recorder's notes: every rank often writes the same one (a filter in force), so notes of
 * equal text become one, naming its ranks ("ranks 0-3, 6: text"). */
typedef struct fy_trace_rnote {
    const char *text;
    size_t len;
    int rank;
    int flags; /* the FYT_NOTE's */
} fy_trace_rnote_t;

static int add_rnote(fy_trace_t *tr, int rank, const char *text, size_t len, int flags)
{
    if (tr->nrnotes == tr->rnotes_cap) {
        int ncap = tr->rnotes_cap ? tr->rnotes_cap * 2 : 16;
        fy_trace_rnote_t *n = realloc(tr->rnotes, ncap * sizeof *n);
        if (!n)
            return -1;
        tr->rnotes = n;
        tr->rnotes_cap = ncap;
    }
    tr->rnotes[tr->nrnotes++] = (fy_trace_rnote_t){text, len, rank, flags};
    return 0;
}

static void group_rnotes(fy_trace_t *tr)
{
    int nold = tr->nnotes;
    char **old = tr->notes;
    tr->notes = NULL;
    tr->nnotes = tr->notes_cap = 0;
    int *ranks = malloc((size_t)(tr->nrnotes ? tr->nrnotes : 1) * sizeof *ranks);
    for (int i = 0; ranks && i < tr->nrnotes; i++) {
        const char *text = tr->rnotes[i].text;
        size_t len = tr->rnotes[i].len;
        int info = tr->rnotes[i].flags & FYT_NOTE_INFO;
        if (!text)
            continue; /* in an earlier group */
        int n = 0; /* the ranks with this text, in order (files are read by rank), once each */
        for (int j = i; j < tr->nrnotes; j++) {
            fy_trace_rnote_t *b = &tr->rnotes[j];
            if (!b->text || b->len != len || memcmp(b->text, text, len) != 0 ||
                (b->flags & FYT_NOTE_INFO) != info)
                continue;
            if (n == 0 || ranks[n - 1] != b->rank)
                ranks[n++] = b->rank;
            b->text = NULL;
        }
        char list[256];
        size_t k = 0;
        for (int j = 0; j < n && k < sizeof list - 32; j++) {
            int e = j;
            while (e + 1 < n && ranks[e + 1] == ranks[e] + 1)
                e++;
            if (e > j)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%d-%d", j ? ", " : "",
                                      ranks[j], ranks[e]);
            else
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%d", j ? ", " : "", ranks[j]);
            j = e;
            if (j + 1 < n && k >= sizeof list - 32)
                snprintf(list + k, sizeof list - k, ", ...");
        }
        if (info)
            add_info(tr, "%s %s: %.*s", n > 1 ? "ranks" : "rank", list, (int)len, text);
        else
            add_note(tr, "%s %s: %.*s", n > 1 ? "ranks" : "rank", list, (int)len, text);
    }
    free(ranks);
    for (int i = 0; i < nold; i++) {
        if (tr->nnotes == tr->notes_cap) {
            int ncap = tr->notes_cap ? tr->notes_cap * 2 : 8;
            char **nn = realloc(tr->notes, ncap * sizeof *nn);
            if (!nn) {
                free(old[i]);
                continue;
            }
            tr->notes = nn;
            tr->notes_cap = ncap;
        }
        tr->notes[tr->nnotes++] = old[i];
    }
    free(old);
    free(tr->rnotes);
    tr->rnotes = NULL;
    tr->nrnotes = tr->rnotes_cap = 0;
}

/* --- global names and communicators ----------------------------------------------------------- */

static uint32_t intern_name(fy_trace_t *tr, const char *name, int region)
{
    /* Few names (hundreds): a linear search would do, but a rank may define many regions. */
    for (uint32_t i = 0; i < tr->nnames; i++)
        if (tr->names[i].region == region && strcmp(tr->names[i].name, name) == 0)
            return i;
    if (tr->nnames == tr->names_cap) {
        uint32_t ncap = tr->names_cap ? tr->names_cap * 2 : 64;
        fy_trace_name_t *nn = realloc(tr->names, ncap * sizeof *nn);
        if (!nn)
            return FY_TRACE_NONE;
        tr->names = nn;
        tr->names_cap = ncap;
    }
    fy_trace_name_t *n = &tr->names[tr->nnames];
    n->name = name;
    n->region = region;
    n->cls = region ? FY_TRACE_REGION : fy_trace_classify(name);
    return tr->nnames++;
}

static uint32_t intern_comm(fy_trace_t *tr, const fyt_comm_t *c)
{
    for (uint32_t i = 0; i < tr->ncomms; i++)
        if (tr->comms[i].uid == c->uid)
            return i;
    if (tr->ncomms == tr->comms_cap) {
        uint32_t ncap = tr->comms_cap ? tr->comms_cap * 2 : 16;
        fy_trace_comm_t *nc = realloc(tr->comms, ncap * sizeof *nc);
        if (!nc)
            return FY_TRACE_NONE;
        tr->comms = nc;
        tr->comms_cap = ncap;
    }
    fy_trace_comm_t *g = &tr->comms[tr->ncomms];
    g->uid = c->uid;
    g->def = c;
    g->size = c->size;
    g->remote_size = c->remote_size;
    return tr->ncomms++;
}

int fy_trace_comm_rank(const fy_trace_comm_t *c, int world)
{
    if (world >= 0 && (uint32_t)world < c->size && c->def->world[world] == world)
        return world; /* MPI_COMM_WORLD and its duplicates: no search */
    for (uint32_t i = 0; i < c->size; i++)
        if (c->def->world[i] == world)
            return (int)i;
    for (uint32_t i = 0; i < c->remote_size; i++)
        if (c->def->world[c->size + i] == world)
            return (int)i;
    return -1;
}

/* --- clocks ----------------------------------------------------------------------------------- */

static int sync_cmp(const void *a, const void *b)
{
    const fy_trace_sync_t *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t;
}

/* Segment i runs from sync i to sync i+1; before the first and after the last, the nearest
 * segment's rate continues. A segment whose rate is not positive (a bad measurement) takes the
 * header's rate from its start. */
void fy_trace_ns_segment(fy_trace_rank_t *r, uint64_t t)
{
    double header_slope = 1.0 / r->hdr->ticks_per_ns;
    if (r->nsyncs == 0) {
        r->seg_lo = 0;
        r->seg_hi = UINT64_MAX;
        r->base_t = r->t_first;
        r->base_ns = 0;
        r->slope = header_slope;
        return;
    }
    if (r->nsyncs == 1) {
        r->seg_lo = 0;
        r->seg_hi = UINT64_MAX;
        r->base_t = r->syncs[0].t;
        r->base_ns = r->syncs[0].ns;
        r->slope = header_slope;
        return;
    }
    int i = 0; /* the segment [syncs[i], syncs[i+1]) holding t, clamped to the ends */
    int lo = 0, hi = r->nsyncs - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (r->syncs[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    i = lo;
    const fy_trace_sync_t *a = &r->syncs[i], *b = &r->syncs[i + 1];
    double slope = (double)(b->ns - a->ns) / (double)(b->t - a->t);
    if (!(slope > 0) || !isfinite(slope))
        slope = header_slope;
    r->seg_lo = i == 0 ? 0 : a->t;
    r->seg_hi = i + 2 == r->nsyncs ? UINT64_MAX : b->t;
    r->base_t = a->t;
    r->base_ns = a->ns;
    r->slope = slope;
}

/* --- one file --------------------------------------------------------------------------------- */

/* The least length in words of each record type, head included. */
static unsigned min_len8(unsigned type)
{
    switch (type) {
    case FYT_HEADER: return sizeof(fyt_header_t) / 8;
    case FYT_NAME: return 2;
    case FYT_COMM: return sizeof(fyt_comm_t) / 8;
    case FYT_SYNC: return sizeof(fyt_sync_t) / 8;
    case FYT_ENTER: case FYT_LEAVE: case FYT_REGION_BEGIN: case FYT_REGION_END: case FYT_END:
        return sizeof(fyt_ev_t) / 8;
    case FYT_SEND: case FYT_RECV: return sizeof(fyt_msg_t) / 8;
    case FYT_COLL_BEGIN: case FYT_COLL_END: return sizeof(fyt_coll_t) / 8;
    case FYT_RMA: return sizeof(fyt_rma_t) / 8;
    case FYT_NOTE: return sizeof(fyt_note_t) / 8 + 1;
    default: return 1;
    }
}

static int is_event(unsigned type)
{
    return type >= FYT_ENTER && type <= FYT_REGION_END;
}

/* Scans rank r's records once; sets end, counts and the maps. Returns -1 on an error that makes
 * the file unusable (out of memory); a corrupt record ends the file there with a note. */
static int scan_rank(fy_trace_t *tr, int rank, const char *path, char *err, size_t errlen)
{
    fy_trace_rank_t *r = &tr->ranks[rank];
    const uint8_t *p = r->map + r->hdr->h.len8 * 8u, *end = r->map + r->map_len;
    int syncs_cap = 0, have_t = 0;
    while (p < end) {
        if ((size_t)(end - p) < 8) {
            r->truncated = 1;
            break;
        }
        const fyt_head_t *h = (const fyt_head_t *)p;
        size_t len = (size_t)h->len8 * 8u;
        if (h->len8 == 0 || h->len8 < min_len8(h->type) || h->type == FYT_HEADER) {
            add_note(tr, "rank %d: %s: a bad record (type %u, %u words) at byte %zu; read up to "
                         "there", rank, path, h->type, h->len8, (size_t)(p - r->map));
            break;
        }
        if (len > (size_t)(end - p)) {
            r->truncated = 1;
            break;
        }
        switch (h->type) {
        case FYT_NAME: {
            const fyt_name_t *n = (const fyt_name_t *)h;
            if (!memchr(n->name, 0, len - sizeof *h))
                break; /* unterminated: leave the id undefined */
            int region = (h->flags & FYT_NAME_REGION) != 0;
            uint32_t g = intern_name(tr, n->name, region);
            if (g == FY_TRACE_NONE || idmap_put(region ? &r->regions : &r->names, h->id, g))
                return fail(err, errlen, "%s: out of memory", path);
            break;
        }
        case FYT_COMM: {
            const fyt_comm_t *c = (const fyt_comm_t *)h;
            if (sizeof *c + ((size_t)c->size + c->remote_size) * 4 > len || c->size == 0)
                break;
            uint32_t g = intern_comm(tr, c);
            if (g == FY_TRACE_NONE || idmap_put(&r->comms, h->id, g))
                return fail(err, errlen, "%s: out of memory", path);
            break;
        }
        case FYT_SYNC: {
            const fyt_sync_t *s = (const fyt_sync_t *)h;
            if (r->nsyncs == syncs_cap) {
                syncs_cap = syncs_cap ? syncs_cap * 2 : 4;
                fy_trace_sync_t *ns = realloc(r->syncs, syncs_cap * sizeof *ns);
                if (!ns)
                    return fail(err, errlen, "%s: out of memory", path);
                r->syncs = ns;
            }
            r->syncs[r->nsyncs++] = (fy_trace_sync_t){s->t, s->global_ns, s->error_ns};
            break;
        }
        case FYT_NOTE: {
            const fyt_note_t *n = (const fyt_note_t *)h;
            if (add_rnote(tr, rank, n->text, strnlen(n->text, len - sizeof *n), h->flags))
                return fail(err, errlen, "%s: out of memory", path);
            break;
        }
        case FYT_END:
            r->ended = 1;
            break;
        default:
            if (is_event(h->type)) {
                const fyt_ev_t *e = (const fyt_ev_t *)h; /* every event has t after the head */
                if (!have_t)
                    r->t_first = e->t;
                if (e->t > r->t_last || !have_t)
                    r->t_last = e->t;
                have_t = 1;
                r->nevents++;
            }
            break; /* an unknown type: skipped by its length */
        }
        p += len;
    }
    r->end = (size_t)(p - r->map);
    if (r->truncated)
        add_note(tr, "rank %d: %s ends inside a record (the job was killed?); read its %zu whole "
                     "bytes", rank, path, r->end);
    else if (!r->ended)
        add_note(tr, "rank %d: %s has no end record (the job was killed?); calls still open are "
                     "closed at its last event", rank, path);

    /* Clocks: sorted syncs, duplicates of a tick dropped. */
    qsort(r->syncs, r->nsyncs, sizeof *r->syncs, sync_cmp);
    int k = 0;
    for (int i = 0; i < r->nsyncs; i++)
        if (k == 0 || r->syncs[i].t != r->syncs[k - 1].t)
            r->syncs[k++] = r->syncs[i];
    r->nsyncs = k;
    if (k == 0)
        add_note(tr, "rank %d: no clock sync; its times start at 0 at its first event", rank);
    r->seg_lo = 1;
    r->seg_hi = 0; /* no segment cached yet */
    return 0;
}

static int open_rank(fy_trace_t *tr, int rank_in_name, const char *path, char *err,
                     size_t errlen, const char *who, fy_trace_rank_t *out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(err, errlen, "%s: %s: %s", who, path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return fail(err, errlen, "%s: %s: %s", who, path, strerror(errno));
    }
    memset(out, 0, sizeof *out);
    if ((size_t)st.st_size < sizeof(fyt_header_t)) {
        close(fd);
        add_note(tr, "rank %d: %s is %s (the rank died before writing?); it has no events",
                 rank_in_name, path, st.st_size ? "shorter than a header" : "empty");
        return 1;
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return fail(err, errlen, "%s: %s: cannot map it: %s", who, path, strerror(errno));
    madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL | MADV_WILLNEED);
    out->map = m;
    out->map_len = (size_t)st.st_size;
    out->hdr = m;
    const fyt_header_t *h = out->hdr;
    const char *why = NULL;
    if (h->h.type != FYT_HEADER || memcmp(h->magic, FYT_MAGIC, 8) != 0)
        why = "not a Ferry raw trace file (bad magic)";
    else if (h->version != FYT_VERSION)
        why = "a raw trace version this reader does not know";
    else if (h->h.len8 < sizeof(fyt_header_t) / 8 || h->h.len8 * 8u > out->map_len)
        why = "a bad header length";
    else if (h->size == 0 || h->size > MAX_RANKS || h->rank >= h->size)
        why = "a bad rank or size in its header";
    else if ((int)h->rank != rank_in_name)
        why = "a header whose rank is not the one in its name";
    else if (!(h->ticks_per_ns > 0) || !isfinite(h->ticks_per_ns))
        why = "a bad clock rate in its header";
    if (why) {
        munmap(m, out->map_len);
        memset(out, 0, sizeof *out);
        return fail(err, errlen, "%s: %s: %s", who, path, why);
    }
    out->present = 1;
    return 0;
}

typedef struct found {
    int rank;
    char *path;
} found_t;

static int found_cmp(const void *a, const void *b)
{
    const found_t *x = a, *y = b;
    return x->rank - y->rank;
}

int fy_trace_open(fy_trace_t *tr, const char *dir, const char *who, char *err, size_t errlen)
{
    memset(tr, 0, sizeof *tr);
    struct stat st;
    if (stat(dir, &st) != 0)
        return fail(err, errlen, "%s: %s: %s", who, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail(err, errlen, "%s: %s: not a directory (give the directory of mpiexec --trace)",
                    who, dir);
    char *sub = NULL;
    if (asprintf(&sub, "%s/ferry", dir) < 0)
        return fail(err, errlen, "%s: out of memory", who);
    DIR *d = opendir(sub);
    if (!d) {
        int e = errno;
        free(sub);
        if (e == ENOENT)
            return fail(err, errlen, "%s: %s: no raw trace in it (no %s/ferry/rank.*.fyt): not a "
                                     "directory written by mpiexec --trace", who, dir, dir);
        return fail(err, errlen, "%s: %s/ferry: %s", who, dir, strerror(e));
    }
    found_t *f = NULL;
    int nf = 0, fcap = 0, rc = -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        unsigned rank;
        int n = 0;
        if (sscanf(de->d_name, "rank.%u.fyt%n", &rank, &n) != 1 || de->d_name[n] != 0 ||
            rank >= MAX_RANKS)
            continue;
        if (nf == fcap) {
            fcap = fcap ? fcap * 2 : 16;
            found_t *nfp = realloc(f, fcap * sizeof *nfp);
            if (!nfp)
                goto out_nomem;
            f = nfp;
        }
        if (asprintf(&f[nf].path, "%s/%s", sub, de->d_name) < 0)
            goto out_nomem;
        f[nf++].rank = (int)rank;
    }
    closedir(d);
    d = NULL;
    if (nf == 0) {
        fail(err, errlen, "%s: %s: no raw trace files (%s/ferry/rank.*.fyt)", who, dir, dir);
        goto out;
    }
    qsort(f, nf, sizeof *f, found_cmp);

    tr->dir = strdup(dir);
    fy_trace_rank_t *tmp = calloc(nf, sizeof *tmp);
    if (!tr->dir || !tmp) {
        free(tmp);
        goto out_nomem;
    }
    int size = -1, first_with = -1;
    for (int i = 0; i < nf; i++) {
        int orc = open_rank(tr, f[i].rank, f[i].path, err, errlen, who, &tmp[i]);
        if (orc < 0) {
            for (int j = 0; j < i; j++)
                if (tmp[j].map)
                    munmap((void *)tmp[j].map, tmp[j].map_len);
            free(tmp);
            goto out;
        }
        if (orc == 0 && size < 0) {
            size = (int)tmp[i].hdr->size;
            first_with = i;
        } else if (orc == 0 && (int)tmp[i].hdr->size != size) {
            fail(err, errlen, "%s: %s: its job has %u ranks, %s's has %d: files of two jobs?", who,
                 f[i].path, tmp[i].hdr->size, f[first_with].path, size);
            for (int j = 0; j <= i; j++)
                if (tmp[j].map)
                    munmap((void *)tmp[j].map, tmp[j].map_len);
            free(tmp);
            goto out;
        }
    }
    if (size < 0) {
        free(tmp);
        fail(err, errlen, "%s: %s: every raw trace file is empty: nothing was recorded", who, dir);
        goto out;
    }
    int bad = -1;
    for (int i = 0; i < nf; i++)
        if (tmp[i].map && f[i].rank >= size)
            bad = i;
    if (bad >= 0) {
        fail(err, errlen, "%s: %s: rank %d in a job of %d ranks", who, f[bad].path, f[bad].rank,
             size);
        for (int j = 0; j < nf; j++)
            if (tmp[j].map)
                munmap((void *)tmp[j].map, tmp[j].map_len);
        free(tmp);
        goto out;
    }
    tr->nranks = size;
    tr->ranks = calloc(size, sizeof *tr->ranks);
    if (!tr->ranks) {
        for (int j = 0; j < nf; j++)
            if (tmp[j].map)
                munmap((void *)tmp[j].map, tmp[j].map_len);
        free(tmp);
        goto out_nomem;
    }
    for (int i = 0; i < nf; i++)
        if (tmp[i].map)
            tr->ranks[f[i].rank] = tmp[i];
    free(tmp);
    for (int r = 0; r < size; r++) {
        if (!tr->ranks[r].present) {
            int named = 0;
            for (int i = 0; i < nf; i++)
                named |= f[i].rank == r;
            if (!named)
                add_note(tr, "rank %d: no file %s/ferry/rank.%d.fyt; it has no events", r, dir, r);
            continue;
        }
        char *path = NULL;
        for (int i = 0; i < nf; i++)
            if (f[i].rank == r)
                path = f[i].path;
        if (scan_rank(tr, r, path, err, errlen))
            goto out;
        tr->bytes += tr->ranks[r].end;
    }
    group_rnotes(tr);
    /* The span of the whole trace on the global clock. */
    int any = 0;
    for (int r = 0; r < size; r++) {
        fy_trace_rank_t *rk = &tr->ranks[r];
        if (!rk->present || rk->nevents == 0)
            continue;
        int64_t a = fy_trace_ns(rk, rk->t_first), b = fy_trace_ns(rk, rk->t_last);
        if (!any || a < tr->ns_min)
            tr->ns_min = a;
        if (!any || b > tr->ns_max)
            tr->ns_max = b;
        any = 1;
        tr->nevents += rk->nevents;
    }
    rc = 0;
    goto out;
out_nomem:
    fail(err, errlen, "%s: out of memory", who);
out:
    if (d)
        closedir(d);
    for (int i = 0; i < nf; i++)
        free(f[i].path);
    free(f);
    free(sub);
    if (rc != 0)
        fy_trace_close(tr);
    return rc;
}

void fy_trace_close(fy_trace_t *tr)
{
    for (int r = 0; tr->ranks && r < tr->nranks; r++) {
        fy_trace_rank_t *rk = &tr->ranks[r];
        if (rk->map)
            munmap((void *)rk->map, rk->map_len);
        idmap_free(&rk->names);
        idmap_free(&rk->regions);
        idmap_free(&rk->comms);
        free(rk->syncs);
    }
    free(tr->ranks);
    for (int i = 0; i < tr->nnotes; i++)
        free(tr->notes[i]);
    free(tr->notes);
    for (int i = 0; i < tr->ninfo; i++)
        free(tr->info[i]);
    free(tr->info);
    free(tr->rnotes);
    free(tr->names);
    free(tr->comms);
    free(tr->dir);
    memset(tr, 0, sizeof *tr);
}

/* --- classes of MPI functions ----------------------------------------------------------------- */

static int in_list(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

fy_trace_class_t fy_trace_classify(const char *mpi_name)
{
    static const char *const coll[] = {"barrier", "bcast", "gather", "gatherv", "scatter",
        "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce",
        "allreduce", "reduce_scatter", "reduce_scatter_block", "scan", "exscan", NULL};
    static const char *const p2p[] = {"send", "recv", "bsend", "ssend", "rsend", "sendrecv",
        "sendrecv_replace", "probe", "mprobe", "mrecv", "isend", "irecv", "ibsend", "issend",
        "irsend", "iprobe", "improbe", "imrecv", "isendrecv", "isendrecv_replace", "send_init",
        "recv_init", "bsend_init", "ssend_init", "rsend_init", "psend_init", "precv_init",
        "start", "startall", NULL};
    static const char *const wait[] = {"wait", "waitall", "waitany", "waitsome", "test",
        "testall", "testany", "testsome", NULL};
    static const char *const rma[] = {"put", "get", "accumulate", "get_accumulate",
        "fetch_and_op", "compare_and_swap", "rput", "rget", "raccumulate", "rget_accumulate",
        NULL};
    static const char *const sync[] = {"win_fence", "win_lock", "win_unlock", "win_lock_all",
        "win_unlock_all", "win_post", "win_start", "win_complete", "win_wait", "win_test",
        "win_flush", "win_flush_all", "win_flush_local", "win_flush_local_all", "win_sync", NULL};
    const char *s = mpi_name;
    if (strncmp(s, "PMPI_", 5) == 0)
        s += 5;
    else if (strncmp(s, "MPI_", 4) == 0)
        s += 4;
    else
        return FY_TRACE_OTHER;
    char low[64];
    size_t n = strlen(s);
    if (n >= sizeof low)
        return FY_TRACE_OTHER;
    for (size_t i = 0; i <= n; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    if (in_list(low, p2p))
        return FY_TRACE_P2P;
    if (in_list(low, wait))
        return FY_TRACE_WAIT;
    if (in_list(low, rma))
        return FY_TRACE_RMA;
    if (in_list(low, sync))
        return FY_TRACE_SYNC;
    if (strncmp(low, "neighbor_", 9) == 0 || strncmp(low, "ineighbor_", 10) == 0)
        return FY_TRACE_COLL;
    /* Collectives: NAME, INAME (nonblocking) and NAME_init (persistent). */
    char *base = low;
    if (!in_list(base, coll) && base[0] == 'i' && in_list(base + 1, coll))
        return FY_TRACE_COLL;
    if (n > 5 && strcmp(low + n - 5, "_init") == 0) {
        low[n - 5] = 0;
        if (in_list(low, coll))
            return FY_TRACE_COLL;
        low[n - 5] = '_';
    }
    return in_list(base, coll) ? FY_TRACE_COLL : FY_TRACE_OTHER;
}

const char *fy_trace_class_name(fy_trace_class_t c)
{
    static const char *const names[FY_TRACE_NCLASS] = {"p2p", "coll", "wait", "rma", "sync",
                                                       "other", "region"};
    return (unsigned)c < FY_TRACE_NCLASS ? names[c] : "other";
}
