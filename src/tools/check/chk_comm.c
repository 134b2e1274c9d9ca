/* Communicators as the checker sees them: each user communicator gets a shadow (a PMPI_Comm_dup
 * made where it is created) that carries the checker's own messages, an id equal on every member
 * and distinct between communicators (for the deadlock watch; src/common/fy_comm_uid.h, shared
 * with the recorder), and its members' world ranks. */
#include "chk.h"
#include "fy_comm_uid.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 1024
typedef struct cnode {
    struct cnode *next;
    chk_comm_t c;
} cnode_t;
static cnode_t *tab[NB];
static cnode_t *unlink_comm(MPI_Comm comm);
static uint64_t next_counter = 1;

static unsigned bucket(MPI_Comm c)
{
    return ((unsigned)c * 2654435761u) % NB;
}

/* Bumped at every change of the table: a thread's last lookup stays good while it is equal. */
static _Atomic uint64_t tab_version;
static __thread CHK_TLS struct {
    MPI_Comm comm;
    uint64_t version;
    chk_comm_t *c;
} last = {MPI_COMM_NULL, ~0ull, NULL};

chk_comm_t *chk_comm_get(MPI_Comm comm)
{
    uint64_t v = tab_version;
    if (last.comm == comm && last.version == v)
        return last.c;
    chk_lock();
    v = tab_version;
    cnode_t *n = tab[bucket(comm)];
    for (; n; n = n->next)
        if (n->c.comm == comm)
            break;
    chk_unlock();
    last.comm = comm;
    last.version = v;
    last.c = n ? &n->c : NULL;
    return last.c;
}

static int *world_ranks(MPI_Group g, int n)
{
    if (chk_state != 1) { /* sessions without the world model: no world ranks */
        int *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
        for (int i = 0; i < n; i++)
            out[i] = -1;
        return out;
    }
    MPI_Group wg;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Group_translate_ranks(g, n, in, wg, out);
    PMPI_Group_free(&wg);
    free(in);
    return out;
}

static chk_comm_t *add(MPI_Comm comm)
{
    cnode_t *n = calloc(1, sizeof *n);
    n->c.comm = comm;
    n->c.shadow = MPI_COMM_NULL;
    chk_lock();
    unsigned b = bucket(comm);
    n->next = tab[b];
    tab[b] = n;
    tab_version++;
    chk_unlock();
    return &n->c;
}

static void members(chk_comm_t *c)
{
    MPI_Group g;
    PMPI_Comm_test_inter(c->comm, &c->inter);
    PMPI_Comm_size(c->comm, &c->size);
    PMPI_Comm_group(c->comm, &g);
    c->world = world_ranks(g, c->size);
    PMPI_Group_free(&g);
    if (c->inter) {
        PMPI_Comm_remote_size(c->comm, &c->rsize);
        PMPI_Comm_remote_group(c->comm, &g);
        c->rworld = world_ranks(g, c->rsize);
        PMPI_Group_free(&g);
    }
}

static void announce(chk_comm_t *c)
{
    if (!(chk_on & CHK_C_WATCH))
        return;
    int n = c->size + c->rsize;
    int *all = malloc(sizeof(int) * (size_t)n);
    memcpy(all, c->world, sizeof(int) * (size_t)c->size);
    if (c->rsize)
        memcpy(all + c->size, c->rworld, sizeof(int) * (size_t)c->rsize);
    chk_watch_comm(c->id, n, all);
    free(all);
}

/* A split rather than a dup: a dup would copy the program's attributes (and run its copy
 * callbacks). The checker's own calls on it return errors rather than abort. */
static void make_shadow(chk_comm_t *c)
{
    int rank;
    PMPI_Comm_rank(c->comm, &rank);
    PMPI_Comm_split(c->comm, 0, rank, &c->shadow);
    if (c->shadow != MPI_COMM_NULL)
        PMPI_Comm_set_errhandler(c->shadow, MPI_ERRORS_RETURN);
}

void chk_comm_init(void)
{
    chk_comm_t *w = add(MPI_COMM_WORLD);
    members(w);
    w->id = FY_COMM_UID_WORLD;
    make_shadow(w);
    chk_comm_t *s = add(MPI_COMM_SELF);
    members(s);
    s->id = fy_comm_uid_self(chk_rank);
    make_shadow(s);
    announce(w);
    announce(s);
}

void chk_comm_new(MPI_Comm comm, const char *call, const void *ra)
{
    if (comm == MPI_COMM_NULL)
        return;
    chk_created(CHK_K_COMM, comm, call, ra);
    /* A stale entry for the same handle value (its free, in another thread, not yet recorded)
     * is unlinked here and released by that free (drop_entry). */
    unlink_comm(comm);
    chk_comm_t *c = add(comm);
    members(c);
    /* The shadow and the id: collective over the new communicator, as its creation was. */
    make_shadow(c);
    if (c->shadow == MPI_COMM_NULL)
        return;
    int lowest = chk_state == 1 ? 1 << 30 : 0;
    for (int i = 0; i < c->size && chk_state == 1; i++)
        lowest = c->world[i] < lowest ? c->world[i] : lowest;
    for (int i = 0; i < c->rsize && chk_state == 1; i++)
        lowest = c->rworld[i] < lowest ? c->rworld[i] : lowest;
    unsigned long long mine = next_counter, agreed;
    PMPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, c->shadow);
    if (c->inter) {
        /* On an intercommunicator the result is the remote group's maximum: a second round
         * brings back this group's. */
        unsigned long long local;
        PMPI_Allreduce(&agreed, &local, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, c->shadow);
        /* the second round gives the max of the remote group's results: our own group's max */
        agreed = agreed > local ? agreed : local;
    }
    next_counter = agreed + 1;
    c->id = fy_comm_uid(agreed, lowest);
    announce(c);
}

void chk_comm_new_local(MPI_Comm comm, uint64_t id, const char *call, const void *ra)
{
    if (comm == MPI_COMM_NULL)
        return;
    chk_created(CHK_K_COMM, comm, call, ra);
    unlink_comm(comm);
    chk_comm_t *c = add(comm);
    members(c);
    c->id = id;
    announce(c);
}

static cnode_t *unlink_comm(MPI_Comm comm)
{
    cnode_t *n = NULL;
    chk_lock();
    for (cnode_t **p = &tab[bucket(comm)]; *p; p = &(*p)->next)
        if ((*p)->c.comm == comm) {
            n = *p;
            *p = n->next;
            n->next = NULL;
            tab_version++;
            break;
        }
    chk_unlock();
    return n;
}

/* Releases an entry, linked or not (by identity: the handle value may name a newer one). */
static void drop_entry(chk_comm_t *c)
{
    cnode_t *n = (cnode_t *)((char *)c - offsetof(cnode_t, c));
    chk_lock();
    for (cnode_t **p = &tab[bucket(c->comm)]; *p; p = &(*p)->next)
        if (*p == n) {
            *p = n->next;
            break;
        }
    tab_version++;
    chk_unlock();
    if (n->c.shadow != MPI_COMM_NULL)
        PMPI_Comm_free(&n->c.shadow);
    free(n->c.world);
    free(n->c.rworld);
    free(n);
}

void chk_comm_fini(void)
{
    for (int b = 0; b < NB; b++)
        while (tab[b])
            drop_entry(&tab[b]->c);
}

int chk_world_of(chk_comm_t *c, int rank)
{
    if (!c || rank < 0)
        return -1;
    if (c->inter)
        return rank < c->rsize ? c->rworld[rank] : -1;
    return rank < c->size ? c->world[rank] : -1;
}

const char *chk_comm_name(chk_comm_t *c, char *buf, int len)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int n = 0;
    if (c)
        PMPI_Comm_get_name(c->comm, name, &n);
    if (name[0])
        snprintf(buf, (size_t)len, "%s", name);
    else
        snprintf(buf, (size_t)len, "communicator 0x%x", c ? (unsigned)c->comm : 0u);
    return buf;
}

static int comm_release(const char *call, const void *ra, MPI_Comm *comm, bool disconnect)
{
    if (chk_outside(call, ra))
        return disconnect ? PMPI_Comm_disconnect(comm) : PMPI_Comm_free(comm);
    MPI_Comm old = *comm;
    chk_use(CHK_K_COMM, old, call, "comm", ra);
    if (old == MPI_COMM_WORLD || old == MPI_COMM_SELF)
        return disconnect ? PMPI_Comm_disconnect(comm) : PMPI_Comm_free(comm);
    uint64_t gen = chk_gen(CHK_K_COMM, old);
    chk_comm_t *c = chk_comm_get(old);
    chk_block_other(call, ra);
    int rc = disconnect ? PMPI_Comm_disconnect(comm) : PMPI_Comm_free(comm);
    chk_unblock_other();
    if (rc == MPI_SUCCESS) {
        chk_freed_gen(CHK_K_COMM, old, gen, call, ra);
        if (c)
            drop_entry(c);
    }
    return rc;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    return comm_release("MPI_Comm_free", CHK_RA(), comm, false);
}

int MPI_Comm_disconnect(MPI_Comm *comm)
{
    return comm_release("MPI_Comm_disconnect", CHK_RA(), comm, true);
}
