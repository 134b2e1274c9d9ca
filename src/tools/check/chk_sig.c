/* Type signatures: the sequence of predefined types that count x datatype sends, run-length
 * encoded with equal neighbours merged, so 2 x MPI_INT and 1 x contiguous(2, MPI_INT) agree.
 * A derived type's runs (one copy) are worked out once from its envelope and contents and
 * cached by handle; a message's summary streams count copies of them into a hash. */
#include "chk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RUNS 65536 /* a type with more runs is not compared (its summary says "unknown") */

typedef struct tsig {
    struct tsig *next;
    MPI_Datatype type;
    int nruns;        /* -1: unknown */
    bool anything;    /* MPI_BYTE or MPI_PACKED in it */
    int64_t nelem;    /* per copy */
    chk_run_t *runs;
} tsig_t;

#define NB 1024
static tsig_t *cache[NB];

typedef struct {
    chk_run_t *r;
    int n, cap;
    bool anything, overflow;
    int64_t nelem;
} build_t;

static void push(build_t *b, int32_t t, int64_t n)
{
    if (n <= 0)
        return;
    b->nelem += n;
    if (t == (int32_t)MPI_BYTE || t == (int32_t)MPI_PACKED)
        b->anything = true;
    if (b->n && b->r[b->n - 1].type == t) {
        b->r[b->n - 1].n += n;
        return;
    }
    if (b->n == MAX_RUNS) {
        b->overflow = true;
        return;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 8;
        b->r = realloc(b->r, sizeof *b->r * (size_t)b->cap);
    }
    b->r[b->n++] = (chk_run_t){.type = t, .n = n};
}

static tsig_t *lookup(MPI_Datatype t);

/* Appends `copies` copies of type t's runs. */
static void push_type(build_t *b, MPI_Datatype t, int64_t copies)
{
    tsig_t *s = lookup(t);
    if (!s || s->nruns < 0) {
        b->overflow = true;
        return;
    }
    if (s->anything)
        b->anything = true;
    if (s->nruns == 1) {
        push(b, s->runs[0].type, s->runs[0].n * copies);
        return;
    }
    for (int64_t c = 0; c < copies && !b->overflow; c++)
        for (int i = 0; i < s->nruns; i++)
            push(b, s->runs[i].type, s->runs[i].n);
}

static bool is_named(MPI_Datatype t, int *comb)
{
    int ni, na, nd;
    *comb = MPI_COMBINER_NAMED;
    if ((((unsigned)t >> 30) & 3u) == 1)
        return true;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, comb) != MPI_SUCCESS)
        return true;
    return *comb == MPI_COMBINER_NAMED || *comb == MPI_COMBINER_F90_REAL ||
           *comb == MPI_COMBINER_F90_COMPLEX || *comb == MPI_COMBINER_F90_INTEGER;
}

static void build(tsig_t *s)
{
    build_t b = {0};
    int comb, ni = 0, na = 0, nd = 0;
    if (is_named(s->type, &comb)) {
        push(&b, (int32_t)s->type, 1);
        goto done;
    }
    PMPI_Type_get_envelope(s->type, &ni, &na, &nd, &comb);
    int *in = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *ad = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *ty = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    PMPI_Type_get_contents(s->type, ni, na, nd, in, ad, ty);
    int64_t k = 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        push_type(&b, ty[0], 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        push_type(&b, ty[0], in[0]);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        push_type(&b, ty[0], (int64_t)in[0] * in[1]);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < in[0]; i++)
            k += in[1 + i];
        push_type(&b, ty[0], k);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0] && !b.overflow; i++)
            push_type(&b, ty[i], in[1 + i]);
        break;
    case MPI_COMBINER_SUBARRAY:
        k = 1;
        for (int i = 0; i < in[0]; i++)
            k *= in[1 + in[0] + i];
        push_type(&b, ty[0], k);
        break;
    default: { /* darray and what else: as many copies of the old type as fit in the size */
        MPI_Count sz = 0, osz = 0;
        PMPI_Type_size_c(s->type, &sz);
        PMPI_Type_size_c(ty[0], &osz);
        push_type(&b, ty[0], osz ? sz / osz : 0);
        break;
    }
    }
    for (int i = 0; i < nd; i++) {
        int c;
        if (!is_named(ty[i], &c)) {
            /* Its value may be handed out again for a type the checker never sees created. */
            MPI_Datatype t = ty[i];
            PMPI_Type_free(&ty[i]);
            unsigned hb = ((unsigned)t * 2654435761u) % NB;
            for (tsig_t **p = &cache[hb]; *p; p = &(*p)->next)
                if ((*p)->type == t) {
                    tsig_t *o = *p;
                    *p = o->next;
                    free(o->runs);
                    free(o);
                    break;
                }
        }
    }
    free(in);
    free(ad);
    free(ty);
done:
    s->runs = b.r;
    s->nruns = b.overflow ? -1 : b.n;
    s->anything = b.anything;
    s->nelem = b.nelem;
}

/* Called with the lock held or not: the cache has its own discipline (lock). */
static tsig_t *lookup(MPI_Datatype t)
{
    unsigned h = ((unsigned)t * 2654435761u) % NB;
    for (tsig_t *s = cache[h]; s; s = s->next)
        if (s->type == t)
            return s;
    tsig_t *s = calloc(1, sizeof *s);
    s->type = t;
    build(s);
    s->next = cache[h];
    cache[h] = s;
    return s;
}

void chk_sig_forget(MPI_Datatype t)
{
    chk_lock();
    unsigned h = ((unsigned)t * 2654435761u) % NB;
    for (tsig_t **p = &cache[h]; *p; p = &(*p)->next)
        if ((*p)->type == t) {
            tsig_t *s = *p;
            *p = s->next;
            free(s->runs);
            free(s);
            break;
        }
    chk_unlock();
}

typedef struct {
    uint64_t h;
    int32_t ct;
    int64_t cn, total, limit;
    int nruns;
    chk_run_t first[CHK_SIG_RUNS];
} acc_t;

static void emit(acc_t *a)
{
    if (!a->cn)
        return;
    a->h = chk_hash_run(a->h, a->ct, a->cn);
    if (a->nruns < CHK_SIG_RUNS)
        a->first[a->nruns] = (chk_run_t){.type = a->ct, .n = a->cn};
    a->nruns++;
    a->cn = 0;
}

static void add(acc_t *a, int32_t t, int64_t n)
{
    if (a->limit >= 0 && a->total + n > a->limit)
        n = a->limit - a->total;
    if (n <= 0)
        return;
    if (a->cn && chk_type_canon(a->ct) != chk_type_canon(t)) /* one hash run (chk.h) */
        emit(a);
    a->ct = t;
    a->cn += n;
    a->total += n;
}

/* Streams count copies of t into a; false when t's signature is unknown. */
static bool stream(acc_t *a, MPI_Datatype t, MPI_Count count)
{
    chk_lock();
    tsig_t *s = lookup(t);
    chk_unlock();
    if (s->nruns < 0)
        return false;
    if (s->nruns == 1) {
        add(a, s->runs[0].type, s->runs[0].n * count);
    } else {
        for (MPI_Count c = 0; c < count && (a->limit < 0 || a->total < a->limit); c++)
            for (int i = 0; i < s->nruns; i++)
                add(a, s->runs[i].type, s->runs[i].n);
    }
    emit(a);
    return true;
}

/* The sizes of predefined types, asked of the library once per type (every message needs
 * one): handle << 32 | size in one word, so a thread never reads half of another's entry. */
static uint64_t presize[64];

static MPI_Count predefined_size(MPI_Datatype type)
{
    unsigned i = ((unsigned)type ^ ((unsigned)type >> 8)) & 63u;
    uint64_t e = __atomic_load_n(&presize[i], __ATOMIC_RELAXED);
    if ((uint32_t)(e >> 32) == (uint32_t)type)
        return (MPI_Count)(uint32_t)e;
    MPI_Count sz = 0;
    PMPI_Type_size_c(type, &sz);
    if (sz >= 0 && sz <= 0xffff)
        __atomic_store_n(&presize[i], (uint64_t)(uint32_t)type << 32 | (uint64_t)sz,
                         __ATOMIC_RELAXED);
    return sz;
}

void chk_sig_of(MPI_Datatype type, MPI_Count count, chk_sigsum_t *s)
{
    memset(s, 0, sizeof *s);
    if ((((unsigned)type >> 30) & 3u) == 1) {
        /* A predefined type (the common case): one run, no table, no lock; the same hash the
         * stream below gives. */
        MPI_Count sz = predefined_size(type);
        s->bytes = sz * count;
        s->anything = type == MPI_BYTE || type == MPI_PACKED;
        if (count > 0) {
            s->hash = chk_hash_run(0, (int32_t)type, count);
            s->nelem = count;
            s->nruns = 1;
            s->runs[0] = (chk_run_t){.type = (int32_t)type, .n = count};
        }
        return;
    }
    if (!chk_valid(CHK_K_TYPE, type)) {
        s->anything = 1;
        return;
    }
    MPI_Count sz = 0;
    PMPI_Type_size_c(type, &sz);
    s->bytes = sz * count;
    acc_t a = {.limit = -1};
    chk_lock();
    tsig_t *t = lookup(type);
    chk_unlock();
    s->anything = t->anything || t->nruns < 0;
    if (!stream(&a, type, count))
        return;
    s->hash = a.h;
    s->nelem = a.total;
    s->nruns = a.nruns;
    memcpy(s->runs, a.first, sizeof a.first);
}

uint64_t chk_sig_prefix(MPI_Datatype type, MPI_Count count, int64_t nelem, int64_t *avail)
{
    acc_t a = {.limit = nelem};
    if (!chk_valid(CHK_K_TYPE, type)) {
        *avail = -1;
        return 0;
    }
    stream(&a, type, count);
    *avail = a.total;
    return a.h;
}

const char *chk_type_name(MPI_Datatype t, char *buf, int len)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int n = 0;
    if (PMPI_Type_get_name(t, name, &n) != MPI_SUCCESS || !name[0])
        snprintf(name, sizeof name, "datatype 0x%x", (unsigned)t);
    snprintf(buf, (size_t)len, "%s", name);
    return buf;
}

void chk_sig_str(const chk_sigsum_t *s, char *buf, int len)
{
    int used = 0;
    buf[0] = 0;
    if (s->nruns == 0) {
        snprintf(buf, (size_t)len, "0 elements");
        return;
    }
    for (int i = 0; i < s->nruns && i < CHK_SIG_RUNS && used < len; i++) {
        char n[MPI_MAX_OBJECT_NAME];
        used += snprintf(buf + used, (size_t)(len - used), "%s%lld x %s", i ? ", " : "",
                         (long long)s->runs[i].n, chk_type_name(s->runs[i].type, n, sizeof n));
    }
    if (s->nruns > CHK_SIG_RUNS && used < len)
        snprintf(buf + used, (size_t)(len - used), ", ... (%d runs)", s->nruns);
}
