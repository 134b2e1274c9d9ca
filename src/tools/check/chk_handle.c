/* The table of handles the program created: live ones (leaks at MPI_Finalize) and freed ones
 * (a later use is reported with where it was freed). A handle value the library reuses for a
 * new object is live again; predefined handles are never in the table, so always live. */
#include "chk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 4096
static chk_handle_t *tab[NB];

static unsigned bucket(int kind, int h)
{
    return ((unsigned)h * 2654435761u ^ (unsigned)kind) % NB;
}

static const char *kind_names[CHK_K_N] = {
    "communicator", "datatype", "group", "request", "op", "info", "errhandler", "window", "message",
    "session",
};

const char *chk_kind_name(int kind)
{
    return kind_names[kind];
}

/* Null handles have kind bits 00, predefined ones 01 (MPICH's encoding, which is Ferry's ABI);
 * the pair types (MPI_FLOAT_INT...) are predefined too but are never created by a call. */
static bool trackable(int h)
{
    unsigned k = ((unsigned)h >> 30) & 3u;
    return k >= 2;
}

chk_handle_t *chk_find_locked(int kind, int h)
{
    for (chk_handle_t *e = tab[bucket(kind, h)]; e; e = e->next)
        if (e->h == h && e->kind == kind)
            return e;
    return NULL;
}

chk_handle_t *chk_created(int kind, int h, const char *call, const void *ra)
{
    if (!trackable(h))
        return NULL;
    chk_lock();
    chk_handle_t *e = chk_find_locked(kind, h);
    if (!e) {
        e = calloc(1, sizeof *e);
        e->kind = kind;
        e->h = h;
        unsigned b = bucket(kind, h);
        e->next = tab[b];
        tab[b] = e;
    }
    if (e->live) {
        /* The library gave the same handle again (a reference-counted object): one more free
         * is due, and the first creation stays the one reported. */
        e->refs++;
        chk_unlock();
        return e;
    }
    static uint64_t next_gen = 1;
    e->live = true;
    e->refs = 1;
    e->frees = 0;
    e->gen = next_gen++;
    e->ccall = call;
    e->cra = ra;
    e->fcall = NULL;
    e->fra = NULL;
    chk_unlock();
    if (kind == CHK_K_TYPE)
        chk_sig_forget(h);
    return e;
}

void chk_revive(int kind, int h)
{
    if (!trackable(h))
        return;
    chk_lock();
    for (chk_handle_t **p = &tab[bucket(kind, h)]; *p; p = &(*p)->next)
        if ((*p)->h == h && (*p)->kind == kind) {
            chk_handle_t *e = *p;
            if (!e->live) { /* unknown from now on: valid, and nobody's to free */
                *p = e->next;
                free(e);
            }
            break;
        }
    chk_unlock();
    if (kind == CHK_K_TYPE)
        chk_sig_forget(h);
}

uint64_t chk_gen(int kind, int h)
{
    if (!trackable(h))
        return 0;
    chk_lock();
    chk_handle_t *e = chk_find_locked(kind, h);
    uint64_t g = e && e->live ? e->gen : 0;
    chk_unlock();
    return g;
}

void chk_freed_gen(int kind, int h, uint64_t gen, const char *call, const void *ra)
{
    if (!trackable(h))
        return;
    bool gone = false;
    chk_lock();
    chk_handle_t *e = chk_find_locked(kind, h);
    if (e && e->live && (gen == 0 || e->gen == gen)) {
        e->frees++;
        if (--e->refs <= 0) {
            e->live = false;
            e->fcall = call;
            e->fra = ra;
            gone = true;
        }
    }
    chk_unlock();
    if (gone && kind == CHK_K_TYPE)
        chk_sig_forget(h);
}

void chk_freed(int kind, int h, const char *call, const void *ra)
{
    chk_freed_gen(kind, h, 0, call, ra);
}

bool chk_valid(int kind, int h)
{
    if ((((unsigned)h >> 30) & 3u) == 0)
        return false;
    if (!trackable(h))
        return true;
    chk_lock();
    chk_handle_t *e = chk_find_locked(kind, h);
    bool ok = !e || e->live;
    chk_unlock();
    return ok;
}

bool chk_use(int kind, int h, const char *call, const char *arg, const void *ra)
{
    if (!(chk_on & CHK_C_HANDLE) || !trackable(h))
        return true;
    chk_lock();
    chk_handle_t *e = chk_find_locked(kind, h);
    bool dead = e && !e->live;
    const char *fcall = dead ? e->fcall : NULL;
    const void *fra = dead ? e->fra : NULL;
    chk_unlock();
    if (!dead)
        return true;
    char w[600];
    chk_report(call, ra, "use of a freed %s (argument %s, handle 0x%x), freed by %s at %s",
               kind_names[kind], arg, (unsigned)h, fcall ? fcall : "?", chk_where(fra, w, sizeof w));
    return false;
}

/* At MPI_Finalize: every live object the program created, grouped by the line that created
 * them. A request counts when it was neither completed nor freed: an active one, or an inactive
 * persistent one never freed. */
typedef struct {
    int kind;
    const char *call;
    const void *ra;
    int n;
} leak_t;

void chk_leak_report(void)
{
    leak_t *l = NULL;
    int nl = 0, cap = 0;
    chk_lock();
    for (int b = 0; b < NB; b++)
        for (chk_handle_t *e = tab[b]; e; e = e->next) {
            /* A reference-counted handle counts when its creator's reference was never freed. */
            if (!e->live || e->frees > 0 || e->kind == CHK_K_MESSAGE || e->kind == CHK_K_SESSION)
                continue;
            /* What a session made belongs to the session, which may outlive MPI_Finalize. */
            if (e->ccall && (strstr(e->ccall, "_from_group") || strstr(e->ccall, "session")))
                continue;
            int i;
            for (i = 0; i < nl; i++)
                if (l[i].kind == e->kind && l[i].ra == e->cra && l[i].call == e->ccall)
                    break;
            if (i == nl) {
                if (nl == cap) {
                    cap = cap ? 2 * cap : 16;
                    l = realloc(l, sizeof *l * (size_t)cap);
                }
                l[nl++] = (leak_t){e->kind, e->ccall, e->cra, 0};
            }
            l[i].n++;
        }
    chk_unlock();
    for (int i = 0; i < nl; i++) {
        const char *what = l[i].kind == CHK_K_REQUEST ? "never completed or freed" : "never freed";
        char w[600];
        chk_where(l[i].ra, w, sizeof w);
        if (l[i].n == 1)
            chk_report("MPI_Finalize", NULL, "leak: %s %s created by %s at %s was %s",
                       strchr("aeiou", kind_names[l[i].kind][0]) ? "an" : "a", kind_names[l[i].kind], l[i].call,
                       w, what);
        else
            chk_report("MPI_Finalize", NULL, "leak: %d %ss created by %s at %s were %s", l[i].n,
                       kind_names[l[i].kind], l[i].call, w, what);
    }
    free(l);
}
