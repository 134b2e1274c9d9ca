/* The profile: at MPI_Finalize every rank sends what it counted to rank 0 (one gather over the
 * recorder's communicator), which writes it as text and as JSON (docs/plan-trace.md,
 * "profile.json"): with --trace into the trace directory (profile.txt, profile.json), else
 * <program>.<ranks>.<job>.profile.{txt,json} in FERRY_PROFILE_DIR or the working directory.
 *
 * Call sites are return addresses, sent as (module, offset) and resolved on rank 0 with one
 * addr2line run per module. Collective waiting times come from the blocking collectives'
 * entry times on the aligned clocks (prof_coll.c, prof_sync.c). */
#include "fy_addr2line.h"
#include "prof.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int prof_sites_get(const void ***ra, int **id, uint64_t **count, uint64_t **ticks,
                   uint64_t **max, uint64_t *dropped);

#define MODLEN 256

typedef struct rhead {
    double app_s, mpi_s, wall_s;
    char host[64];
    uint32_t nstat, nbucket, nsite, ninst;
    uint64_t sites_dropped, coll_dropped, req_untracked;
} rhead_t;

typedef struct rstat {
    uint32_t id, pad;
    uint64_t count, bytes;
    double total_s, min_us, max_us;
} rstat_t;

typedef struct rbucket {
    uint32_t id, b;
    uint64_t count, bytes;
} rbucket_t;

typedef struct rsite {
    uint32_t id, pad;
    uint64_t count, off;
    double total_s, max_us;
    char module[MODLEN];
} rsite_t;

typedef struct rinst {
    uint64_t uid;
    int64_t t_ns;
    uint32_t seq;
    uint16_t id, members;
} rinst_t;

/* ---- A growing byte buffer ---- */
typedef struct buf {
    char *p;
    size_t n, cap;
} buf_t;

static void put(buf_t *b, const void *d, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        char *np = realloc(b->p, cap);
        if (np == NULL)
            return;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, d, n);
    b->n += n;
}

static void pack(buf_t *b)
{
    double tpn = prof_ticks_per_ns();
    rhead_t h;
    memset(&h, 0, sizeof h);
    uint64_t mpi_ticks = 0;
    for (int i = 0; i < PROF_NFUNCS; i++)
        if (prof_stats[i].count) {
            h.nstat++;
            mpi_ticks += prof_stats[i].ticks;
            for (int k = 0; prof_buckets && k < PROF_NBUCKETS; k++)
                h.nbucket += prof_buckets[i][k].count != 0;
        }
    h.wall_s = (double)(prof_g.t_final - prof_g.t_init) / tpn / 1e9;
    h.mpi_s = (double)mpi_ticks / tpn / 1e9;
    h.app_s = h.wall_s - h.mpi_s;
    if (h.app_s < 0)
        h.app_s = 0;
    snprintf(h.host, sizeof h.host, "%s", prof_g.host);
    const void **ra;
    int *sid;
    uint64_t *scount, *sticks, *smax;
    h.nsite = (uint32_t)prof_sites_get(&ra, &sid, &scount, &sticks, &smax, &h.sites_dropped);
    h.ninst = (uint32_t)prof_ninst;
    h.coll_dropped = prof_g.ncoll_dropped;
    h.req_untracked = (uint64_t)prof_g.nwarn_req;
    put(b, &h, sizeof h);
    for (int i = 0; i < PROF_NFUNCS; i++) {
        prof_stat_t *s = &prof_stats[i];
        if (!s->count)
            continue;
        rstat_t r = {.id = (uint32_t)i, .count = s->count, .bytes = s->bytes,
                     .total_s = (double)s->ticks / tpn / 1e9, .min_us = (double)s->min / tpn / 1e3,
                     .max_us = (double)s->max / tpn / 1e3};
        put(b, &r, sizeof r);
    }
    for (int i = 0; i < PROF_NFUNCS; i++)
        for (int k = 0; prof_stats[i].count && prof_buckets && k < PROF_NBUCKETS; k++)
            if (prof_buckets[i][k].count) {
                rbucket_t r = {.id = (uint32_t)i, .b = (uint32_t)k,
                               .count = prof_buckets[i][k].count,
                               .bytes = prof_buckets[i][k].bytes};
                put(b, &r, sizeof r);
            }
    for (uint32_t i = 0; i < h.nsite; i++) {
        rsite_t r;
        memset(&r, 0, sizeof r);
        r.id = (uint32_t)sid[i];
        r.count = scount[i];
        r.total_s = (double)sticks[i] / tpn / 1e9;
        r.max_us = (double)smax[i] / tpn / 1e3;
        /* The return address minus one: inside the call instruction, on the caller's line. */
        if (fy_addr_module((const char *)ra[i] - 1, r.module, sizeof r.module, &r.off) != 0)
            snprintf(r.module, sizeof r.module, "?");
        put(b, &r, sizeof r);
    }
    free(ra), free(sid), free(scount), free(sticks), free(smax);
    for (size_t i = 0; i < prof_ninst; i++) {
        rinst_t r = {.uid = prof_inst[i].uid, .t_ns = prof_to_global(prof_inst[i].t),
                     .seq = prof_inst[i].seq, .id = prof_inst[i].id,
                     .members = prof_inst[i].members};
        put(b, &r, sizeof r);
    }
    for (int r = 0; r < prof_g.size; r++) {
        uint64_t m[2] = {prof_mat_bytes ? prof_mat_bytes[r] : 0,
                         prof_mat_msgs ? prof_mat_msgs[r] : 0};
        put(b, m, sizeof m);
    }
}

/* ---- Rank 0: the job's view ---- */
typedef struct rankview {
    rhead_t *h;
    rstat_t *stat;
    rbucket_t *bucket;
    rsite_t *site;
    rinst_t *inst;
    uint64_t *mat; /* size pairs (bytes, msgs) */
} rankview_t;

typedef struct site_agg {
    const char *module;
    uint64_t off;
    uint32_t id;
    uint64_t count;
    double total_s, max_us;
    unsigned char *ranks;
    char file[512], func[256];
    int line;
} site_agg_t;

typedef struct inst_ref {
    rinst_t *in;
    int rank;
} inst_ref_t;

static int cmp_inst(const void *a, const void *b)
{
    const rinst_t *x = ((const inst_ref_t *)a)->in, *y = ((const inst_ref_t *)b)->in;
    if (x->uid != y->uid)
        return x->uid < y->uid ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return 0;
}

static int cmp_site_mod(const void *a, const void *b)
{
    const site_agg_t *x = a, *y = b;
    int c = strcmp(x->module, y->module);
    return c ? c : (x->off < y->off ? -1 : x->off > y->off);
}

static int cmp_site_time(const void *a, const void *b)
{
    const site_agg_t *x = a, *y = b;
    return x->total_s < y->total_s ? 1 : x->total_s > y->total_s ? -1 : 0;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void bucket_range(int k, uint64_t *lo, uint64_t *hi)
{
    if (k == 0) {
        *lo = *hi = 0;
    } else if (k == 1) {
        *lo = 1;
        *hi = 64;
    } else {
        *lo = (1ull << (k + 4)) + 1;
        *hi = 1ull << (k + 5);
    }
}

static void size_text(uint64_t b, char *out, size_t len)
{
    if (b >= (1ull << 30) && b % (1ull << 30) == 0)
        snprintf(out, len, "%lluG", (unsigned long long)(b >> 30));
    else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
        snprintf(out, len, "%lluM", (unsigned long long)(b >> 20));
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(out, len, "%lluK", (unsigned long long)(b >> 10));
    else
        snprintf(out, len, "%llu", (unsigned long long)b);
}

/* Function `id`'s size buckets summed over the ranks into count[] and bytes[]; whether it has
 * any (the text report and profile.json both list them). */
static int sum_buckets(const rankview_t *rv, int size, uint32_t id, uint64_t count[PROF_NBUCKETS],
                       uint64_t bytes[PROF_NBUCKETS])
{
    int any = 0;
    memset(count, 0, PROF_NBUCKETS * sizeof count[0]);
    memset(bytes, 0, PROF_NBUCKETS * sizeof bytes[0]);
    for (int r = 0; r < size; r++)
        for (uint32_t k = 0; k < rv[r].h->nbucket; k++)
            if (rv[r].bucket[k].id == id) {
                count[rv[r].bucket[k].b] += rv[r].bucket[k].count;
                bytes[rv[r].bucket[k].b] += rv[r].bucket[k].bytes;
                any = 1;
            }
    return any;
}

typedef struct coll_agg {
    uint64_t count;
    double wait_s;
    double *per_rank;
} coll_agg_t;

static void write_reports(rankview_t *rv, int size)
{
    double wall = rv[0].h->wall_s;
    /* Per function: totals over ranks. */
    typedef struct {
        uint64_t count, bytes;
        double total_s, min_us, max_us;
    } agg_t;
    agg_t *agg = calloc(PROF_NFUNCS, sizeof *agg);
    double mpi_all = 0;
    for (int i = 0; i < PROF_NFUNCS; i++)
        agg[i].min_us = INFINITY;
    for (int r = 0; r < size; r++)
        for (uint32_t k = 0; k < rv[r].h->nstat; k++) {
            rstat_t *s = &rv[r].stat[k];
            agg_t *a = &agg[s->id];
            a->count += s->count;
            a->bytes += s->bytes;
            a->total_s += s->total_s;
            mpi_all += s->total_s;
            if (s->min_us < a->min_us)
                a->min_us = s->min_us;
            if (s->max_us > a->max_us)
                a->max_us = s->max_us;
        }
    int *order = malloc(sizeof(int) * PROF_NFUNCS), nord = 0;
    for (int i = 0; i < PROF_NFUNCS; i++)
        if (agg[i].count)
            order[nord++] = i;
    for (int i = 1; i < nord; i++) /* by total time, descending (a few dozen entries) */
        for (int j = i; j > 0 && agg[order[j]].total_s > agg[order[j - 1]].total_s; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }

    /* Call sites: merged over ranks by (module, offset, function), resolved per module. */
    int nsite = 0;
    for (int r = 0; r < size; r++)
        nsite += (int)rv[r].h->nsite;
    site_agg_t *sa = calloc((size_t)nsite + 1, sizeof *sa);
    int ns = 0;
    for (int r = 0; r < size; r++)
        for (uint32_t k = 0; k < rv[r].h->nsite; k++) {
            rsite_t *s = &rv[r].site[k];
            int j;
            for (j = 0; j < ns; j++)
                if (sa[j].off == s->off && sa[j].id == s->id && strcmp(sa[j].module, s->module) == 0)
                    break;
            if (j == ns) {
                sa[ns] = (site_agg_t){.module = s->module, .off = s->off, .id = s->id,
                                      .ranks = calloc((size_t)size, 1)};
                ns++;
            }
            sa[j].count += s->count;
            sa[j].total_s += s->total_s;
            if (s->max_us > sa[j].max_us)
                sa[j].max_us = s->max_us;
            if (sa[j].ranks)
                sa[j].ranks[r] = 1;
        }
    qsort(sa, (size_t)ns, sizeof *sa, cmp_site_mod);
    for (int i = 0; i < ns;) {
        int j = i;
        while (j < ns && strcmp(sa[j].module, sa[i].module) == 0)
            j++;
        int n = j - i;
        uint64_t *offs = malloc(sizeof(uint64_t) * (size_t)n);
        char **file = malloc(sizeof(char *) * (size_t)n), **func = malloc(sizeof(char *) * (size_t)n);
        for (int k = 0; k < n; k++) {
            offs[k] = sa[i + k].off;
            file[k] = sa[i + k].file;
            func[k] = sa[i + k].func;
        }
        if (strcmp(sa[i].module, "?") != 0)
            fy_addr2line(sa[i].module, offs, n, file, func, sizeof sa[0].func, "FERRY_", 10000);
        else
            for (int k = 0; k < n; k++)
                snprintf(file[k], 256, "??:0"), snprintf(func[k], 256, "??");
        for (int k = 0; k < n; k++) {
            site_agg_t *s = &sa[i + k];
            char *colon = strrchr(s->file, ':');
            s->line = 0;
            if (colon != NULL) {
                s->line = atoi(colon + 1);
                *colon = '\0';
            }
            if (strcmp(s->file, "??") == 0 || s->file[0] == '\0')
                snprintf(s->file, sizeof s->file, "%s+0x%llx", base_name(s->module),
                         (unsigned long long)s->off);
            else
                memmove(s->file, base_name(s->file), strlen(base_name(s->file)) + 1);
        }
        free(offs), free(file), free(func);
        i = j;
    }
    qsort(sa, (size_t)ns, sizeof *sa, cmp_site_time);

    /* Collective waiting: instances grouped by (communicator, number). */
    size_t ninst = 0;
    for (int r = 0; r < size; r++)
        ninst += rv[r].h->ninst;
    inst_ref_t *ir = malloc(sizeof *ir * (ninst + 1));
    size_t ni = 0;
    for (int r = 0; r < size; r++)
        for (uint32_t k = 0; k < rv[r].h->ninst; k++)
            ir[ni++] = (inst_ref_t){.in = &rv[r].inst[k], .rank = r};
    qsort(ir, ni, sizeof *ir, cmp_inst);
    coll_agg_t *ca = calloc(PROF_NFUNCS, sizeof *ca);
    uint64_t incomplete = 0;
    for (size_t i = 0; i < ni;) {
        size_t j = i;
        int64_t last = INT64_MIN;
        while (j < ni && ir[j].in->uid == ir[i].in->uid && ir[j].in->seq == ir[i].in->seq) {
            if (ir[j].in->t_ns > last)
                last = ir[j].in->t_ns;
            j++;
        }
        if (j - i != ir[i].in->members) {
            incomplete++;
        } else {
            coll_agg_t *c = &ca[ir[i].in->id];
            if (c->per_rank == NULL)
                c->per_rank = calloc((size_t)size, sizeof(double));
            c->count++;
            for (size_t k = i; k < j; k++) {
                double w = (double)(last - ir[k].in->t_ns) / 1e9;
                c->wait_s += w;
                if (c->per_rank)
                    c->per_rank[ir[k].rank] += w;
            }
        }
        i = j;
    }

    /* Notes. */
    char notes[8][256];
    int nnotes = 0;
    uint64_t sd = 0, cd = 0, ru = 0;
    for (int r = 0; r < size; r++) {
        sd += rv[r].h->sites_dropped;
        cd += rv[r].h->coll_dropped;
        ru += rv[r].h->req_untracked;
    }
    if (sd)
        snprintf(notes[nnotes++], 256, "%llu calls from call sites past the site table's "
                 "capacity are in the totals but not by site", (unsigned long long)sd);
    if (cd)
        snprintf(notes[nnotes++], 256, "%llu collective calls past the imbalance table's capacity "
                 "(%zu per rank) are not in the waiting times", (unsigned long long)cd,
                 prof_cap_inst);
    if (incomplete)
        snprintf(notes[nnotes++], 256, "%llu collective instances not seen on all their members "
                 "are not in the waiting times", (unsigned long long)incomplete);
    if (ru)
        snprintf(notes[nnotes++], 256, "%llu nonblocking receives were not followed to their "
                 "completion (too many outstanding at once)", (unsigned long long)ru);
    snprintf(notes[nnotes++], 256, "not counted: MPI_Wtime, MPI_Wtick, MPI_T_*, handle "
             "conversions; nonblocking collectives are not in the waiting times");

    /* Where. */
    char txt[4300], js[4300];
    if (prof_g.trace) {
        snprintf(txt, sizeof txt, "%s/profile.txt", prof_g.dir);
        snprintf(js, sizeof js, "%s/profile.json", prof_g.dir);
    } else {
        const char *dir = getenv("FERRY_PROFILE_DIR");
        const char *job = getenv("FERRY_PROFILE_JOBID");
        char jobid[32];
        snprintf(jobid, sizeof jobid, "%s", job && *job ? job : "");
        if (!jobid[0])
            snprintf(jobid, sizeof jobid, "%d", (int)getpid());
        snprintf(txt, sizeof txt, "%s%s%s.%d.%s.profile.txt", dir && *dir ? dir : "",
                 dir && *dir ? "/" : "", prof_g.program, size, jobid);
        snprintf(js, sizeof js, "%s%s%s.%d.%s.profile.json", dir && *dir ? dir : "",
                 dir && *dir ? "/" : "", prof_g.program, size, jobid);
    }

    /* ---- Text ---- */
    FILE *f = fopen(txt, "w");
    if (f == NULL) {
        fprintf(stderr, "ferry: cannot write the profile %s: %s\n", txt, strerror(errno));
    } else {
        fprintf(f, "Ferry profile of %s: %d rank%s, %.6f s from MPI_Init to MPI_Finalize "
                "(rank 0)\n", prof_g.program, size, size > 1 ? "s" : "", wall);
        fprintf(f, "\n== Time in MPI, per rank ==\n%6s %-20s %12s %12s %7s\n", "rank", "host",
                "app s", "MPI s", "MPI %");
        double ta = 0, tm = 0;
        for (int r = 0; r < size; r++) {
            rhead_t *h = rv[r].h;
            double w = h->app_s + h->mpi_s;
            fprintf(f, "%6d %-20.20s %12.6f %12.6f %7.2f\n", r, h->host, h->app_s, h->mpi_s,
                    w > 0 ? 100 * h->mpi_s / w : 0.0);
            ta += h->app_s;
            tm += h->mpi_s;
        }
        fprintf(f, "%6s %-20s %12.6f %12.6f %7.2f\n", "all", "", ta, tm,
                ta + tm > 0 ? 100 * tm / (ta + tm) : 0.0);
        fprintf(f, "\n== MPI calls, all ranks (by total time) ==\n%-28s %10s %12s %10s %10s "
                "%10s %7s %14s\n", "call", "count", "total s", "mean us", "min us", "max us",
                "% MPI", "bytes");
        for (int o = 0; o < nord; o++) {
            agg_t *a = &agg[order[o]];
            fprintf(f, "%-28s %10llu %12.6f %10.3f %10.3f %10.3f %7.2f %14llu\n",
                    prof_names[order[o]], (unsigned long long)a->count, a->total_s,
                    1e6 * a->total_s / (double)a->count, a->min_us, a->max_us,
                    mpi_all > 0 ? 100 * a->total_s / mpi_all : 0.0, (unsigned long long)a->bytes);
        }
        fprintf(f, "\n== MPI calls, per rank ==\n%-28s %6s %10s %12s %10s\n", "call", "rank",
                "count", "total s", "max us");
        for (int o = 0; o < nord; o++)
            for (int r = 0; r < size; r++)
                for (uint32_t k = 0; k < rv[r].h->nstat; k++)
                    if (rv[r].stat[k].id == (uint32_t)order[o])
                        fprintf(f, "%-28s %6d %10llu %12.6f %10.3f\n", prof_names[order[o]], r,
                                (unsigned long long)rv[r].stat[k].count, rv[r].stat[k].total_s,
                                rv[r].stat[k].max_us);
        fprintf(f, "\n== Call sites (by total time; file:line from addr2line, -g gives lines) "
                "==\n%-24s %-32s %-20s %10s %12s %10s %10s  %s\n", "call", "site", "function",
                "count", "total s", "mean us", "max us", "ranks");
        for (int i = 0; i < ns; i++) {
            char where[600], rk[256] = "";
            if (sa[i].line > 0)
                snprintf(where, sizeof where, "%s:%d", sa[i].file, sa[i].line);
            else
                snprintf(where, sizeof where, "%s", sa[i].file);
            size_t used = 0;
            for (int r = 0; r < size && used < sizeof rk - 16; r++)
                if (sa[i].ranks && sa[i].ranks[r]) {
                    int lo = r;
                    while (r + 1 < size && sa[i].ranks[r + 1])
                        r++;
                    used += (size_t)snprintf(rk + used, sizeof rk - used, "%s%d", used ? "," : "", lo);
                    if (r > lo)
                        used += (size_t)snprintf(rk + used, sizeof rk - used, "-%d", r);
                }
            fprintf(f, "%-24s %-32s %-20s %10llu %12.6f %10.3f %10.3f  %s\n", prof_names[sa[i].id],
                    where, sa[i].func, (unsigned long long)sa[i].count, sa[i].total_s,
                    1e6 * sa[i].total_s / (double)sa[i].count, sa[i].max_us, rk);
        }
        fprintf(f, "\n== Bytes by call and message size ==\n%-28s %16s %10s %14s\n", "call",
                "size (bytes)", "count", "bytes");
        for (int o = 0; o < nord; o++) {
            uint64_t bc[PROF_NBUCKETS], bb[PROF_NBUCKETS];
            int any = sum_buckets(rv, size, (uint32_t)order[o], bc, bb);
            for (int k = 0; any && k < PROF_NBUCKETS; k++)
                if (bc[k]) {
                    uint64_t lo, hi;
                    char a[24], b[24], range[64];
                    bucket_range(k, &lo, &hi);
                    size_text(lo, a, sizeof a);
                    size_text(hi, b, sizeof b);
                    if (k == 0)
                        snprintf(range, sizeof range, "0");
                    else
                        snprintf(range, sizeof range, "%s-%s", a, b);
                    fprintf(f, "%-28s %16s %10llu %14llu\n", prof_names[order[o]], range,
                            (unsigned long long)bc[k], (unsigned long long)bb[k]);
                }
        }
        fprintf(f, "\n== Point-to-point messages: bytes, sender (row) to receiver (column) ==\n%6s",
                "");
        for (int c = 0; c < size; c++)
            fprintf(f, " %12d", c);
        fputc('\n', f);
        for (int r = 0; r < size; r++) {
            fprintf(f, "%6d", r);
            for (int c = 0; c < size; c++)
                fprintf(f, " %12llu", (unsigned long long)rv[r].mat[2 * c]);
            fputc('\n', f);
        }
        fprintf(f, "\n== Point-to-point messages: count, sender (row) to receiver (column) ==\n%6s",
                "");
        for (int c = 0; c < size; c++)
            fprintf(f, " %12d", c);
        fputc('\n', f);
        for (int r = 0; r < size; r++) {
            fprintf(f, "%6d", r);
            for (int c = 0; c < size; c++)
                fprintf(f, " %12llu", (unsigned long long)rv[r].mat[2 * c + 1]);
            fputc('\n', f);
        }
        fprintf(f, "\n== Collectives: time waiting for the last rank to arrive ==\n%-28s %10s "
                "%12s %12s %7s   %s\n", "call", "instances", "total s", "waiting s", "wait %",
                "waiting s per rank");
        for (int o = 0; o < nord; o++) {
            coll_agg_t *c = &ca[order[o]];
            if (!c->count)
                continue;
            double tot = agg[order[o]].total_s;
            fprintf(f, "%-28s %10llu %12.6f %12.6f %7.2f  ", prof_names[order[o]],
                    (unsigned long long)c->count, tot, c->wait_s,
                    tot > 0 ? 100 * c->wait_s / tot : 0.0);
            for (int r = 0; r < size; r++)
                fprintf(f, " %.6f", c->per_rank ? c->per_rank[r] : 0.0);
            fputc('\n', f);
        }
        fprintf(f, "\n== Notes ==\n");
        for (int i = 0; i < nnotes; i++)
            fprintf(f, "- %s\n", notes[i]);
        if ((ferror(f) | fclose(f)) != 0)
            fprintf(stderr, "ferry: writing the profile %s failed: %s\n", txt, strerror(errno));
    }

    /* ---- JSON ---- */
    f = fopen(js, "w");
    if (f == NULL) {
        fprintf(stderr, "ferry: cannot write the profile %s: %s\n", js, strerror(errno));
    } else {
        fprintf(f, "{\"version\": 1, \"program\": ");
        json_str(f, prof_g.program);
        fprintf(f, ", \"ranks\": %d, \"hosts\": [", size);
        for (int r = 0; r < size; r++) {
            fprintf(f, "%s", r ? ", " : "");
            json_str(f, rv[r].h->host);
        }
        fprintf(f, "],\n \"wall_s\": %.9g,\n \"per_rank\": [", wall);
        for (int r = 0; r < size; r++) {
            rhead_t *h = rv[r].h;
            double w = h->app_s + h->mpi_s;
            fprintf(f, "%s\n  {\"rank\": %d, \"app_s\": %.9g, \"mpi_s\": %.9g, \"mpi_pct\": %.6g}",
                    r ? "," : "", r, h->app_s, h->mpi_s, w > 0 ? 100 * h->mpi_s / w : 0.0);
        }
        fprintf(f, "],\n \"calls\": [");
        for (int o = 0; o < nord; o++) {
            agg_t *a = &agg[order[o]];
            fprintf(f, "%s\n  {\"name\": \"%s\", \"count\": %llu, \"total_s\": %.9g, "
                    "\"mean_us\": %.9g, \"min_us\": %.9g, \"max_us\": %.9g, \"bytes\": %llu, "
                    "\"pct_mpi\": %.6g, \"per_rank\": [", o ? "," : "", prof_names[order[o]],
                    (unsigned long long)a->count, a->total_s, 1e6 * a->total_s / (double)a->count,
                    a->min_us, a->max_us, (unsigned long long)a->bytes,
                    mpi_all > 0 ? 100 * a->total_s / mpi_all : 0.0);
            int first = 1;
            for (int r = 0; r < size; r++)
                for (uint32_t k = 0; k < rv[r].h->nstat; k++)
                    if (rv[r].stat[k].id == (uint32_t)order[o]) {
                        fprintf(f, "%s{\"rank\": %d, \"count\": %llu, \"total_s\": %.9g, "
                                "\"max_us\": %.9g}", first ? "" : ", ", r,
                                (unsigned long long)rv[r].stat[k].count, rv[r].stat[k].total_s,
                                rv[r].stat[k].max_us);
                        first = 0;
                    }
            fprintf(f, "]}");
        }
        fprintf(f, "],\n \"sites\": [");
        for (int i = 0; i < ns; i++) {
            fprintf(f, "%s\n  {\"name\": \"%s\", \"file\": ", i ? "," : "", prof_names[sa[i].id]);
            json_str(f, sa[i].file);
            fprintf(f, ", \"line\": %d, \"function\": ", sa[i].line);
            json_str(f, sa[i].func);
            fprintf(f, ", \"count\": %llu, \"total_s\": %.9g, \"mean_us\": %.9g, \"max_us\": %.9g, "
                    "\"ranks\": [", (unsigned long long)sa[i].count, sa[i].total_s,
                    1e6 * sa[i].total_s / (double)sa[i].count, sa[i].max_us);
            int first = 1;
            for (int r = 0; r < size; r++)
                if (sa[i].ranks && sa[i].ranks[r]) {
                    fprintf(f, "%s%d", first ? "" : ", ", r);
                    first = 0;
                }
            fprintf(f, "]}");
        }
        fprintf(f, "],\n \"bytes\": [");
        int firstb = 1;
        for (int o = 0; o < nord; o++) {
            uint64_t bc[PROF_NBUCKETS], bb[PROF_NBUCKETS];
            int any = sum_buckets(rv, size, (uint32_t)order[o], bc, bb);
            if (!any)
                continue;
            fprintf(f, "%s\n  {\"name\": \"%s\", \"buckets\": [", firstb ? "" : ",",
                    prof_names[order[o]]);
            firstb = 0;
            int first = 1;
            for (int k = 0; k < PROF_NBUCKETS; k++)
                if (bc[k]) {
                    uint64_t lo, hi;
                    bucket_range(k, &lo, &hi);
                    fprintf(f, "%s{\"lo\": %llu, \"hi\": %llu, \"count\": %llu, \"bytes\": %llu}",
                            first ? "" : ", ", (unsigned long long)lo, (unsigned long long)hi,
                            (unsigned long long)bc[k], (unsigned long long)bb[k]);
                    first = 0;
                }
            fprintf(f, "]}");
        }
        for (int m = 0; m < 2; m++) {
            fprintf(f, m == 0 ? "],\n \"matrix\": {\"bytes\": [" : "],\n  \"msgs\": [");
            for (int r = 0; r < size; r++) {
                fprintf(f, "%s[", r ? ", " : "");
                for (int c = 0; c < size; c++)
                    fprintf(f, "%s%llu", c ? ", " : "", (unsigned long long)rv[r].mat[2 * c + m]);
                fprintf(f, "]");
            }
        }
        fprintf(f, "]},\n \"collectives\": [");
        int firstc = 1;
        for (int o = 0; o < nord; o++) {
            coll_agg_t *c = &ca[order[o]];
            if (!c->count)
                continue;
            double tot = agg[order[o]].total_s;
            fprintf(f, "%s\n  {\"name\": \"%s\", \"count\": %llu, \"total_s\": %.9g, \"wait_s\": "
                    "%.9g, \"wait_pct\": %.6g, \"per_rank_wait_s\": [", firstc ? "" : ",",
                    prof_names[order[o]], (unsigned long long)c->count, tot, c->wait_s,
                    tot > 0 ? 100 * c->wait_s / tot : 0.0);
            firstc = 0;
            for (int r = 0; r < size; r++)
                fprintf(f, "%s%.9g", r ? ", " : "", c->per_rank ? c->per_rank[r] : 0.0);
            fprintf(f, "]}");
        }
        fprintf(f, "],\n \"notes\": [");
        for (int i = 0; i < nnotes; i++) {
            fprintf(f, "%s", i ? ", " : "");
            json_str(f, notes[i]);
        }
        fprintf(f, "]}\n");
        if ((ferror(f) | fclose(f)) != 0)
            fprintf(stderr, "ferry: writing the profile %s failed: %s\n", js, strerror(errno));
        else
            fprintf(stderr, "ferry: profile written to %s (and %s)\n", txt, js);
    }
    for (int i = 0; i < ns; i++)
        free(sa[i].ranks);
    for (int i = 0; i < PROF_NFUNCS; i++)
        free(ca[i].per_rank);
    free(sa), free(ir), free(ca), free(agg), free(order);
}

void prof_report(void)
{
    buf_t b = {0};
    pack(&b);
    int me = (int)b.n, size = prof_g.size;
    int *lens = NULL, *displs = NULL;
    char *all = NULL;
    if (prof_g.rank == 0) {
        lens = malloc(sizeof(int) * (size_t)size);
        displs = malloc(sizeof(int) * (size_t)size);
    }
    PMPI_Gather(&me, 1, MPI_INT, lens, 1, MPI_INT, 0, prof_g.pcomm);
    if (prof_g.rank == 0) {
        long long tot = 0;
        for (int r = 0; r < size; r++) {
            displs[r] = (int)tot;
            tot += lens[r];
        }
        all = malloc((size_t)tot + 8);
    }
    PMPI_Gatherv(b.p, me, MPI_BYTE, all, lens, displs, MPI_BYTE, 0, prof_g.pcomm);
    free(b.p);
    if (prof_g.rank != 0)
        return;
    rankview_t *rv = calloc((size_t)size, sizeof *rv);
    for (int r = 0; r < size; r++) {
        char *p = all + displs[r];
        rv[r].h = (rhead_t *)p;
        p += sizeof(rhead_t);
        rv[r].stat = (rstat_t *)p;
        p += sizeof(rstat_t) * rv[r].h->nstat;
        rv[r].bucket = (rbucket_t *)p;
        p += sizeof(rbucket_t) * rv[r].h->nbucket;
        rv[r].site = (rsite_t *)p;
        p += sizeof(rsite_t) * rv[r].h->nsite;
        rv[r].inst = (rinst_t *)p;
        p += sizeof(rinst_t) * rv[r].h->ninst;
        rv[r].mat = (uint64_t *)p;
    }
    write_reports(rv, size);
    free(rv);
    free(all);
    free(lens);
    free(displs);
}
