/* Communicators and windows as the recorder sees them: each one's members as world ranks,
 * worked out once where it is created (a message then costs a table lookup, never a group
 * call), its index in this rank's trace file and an id equal on every member.
 *
 * Ids are the checker's (src/common/fy_comm_uid.h). The members agree on the counter with one
 * MPI_Allreduce on the new communicator, right where all of them have just created it. A communicator that
 * not all of its members create through a call of ours (a spawned job's parent, a connection,
 * MPI_Comm_idup's) gets an id known to this rank only: 1<<62 | world rank << 32 | number. */
#include "fy_comm_uid.h"
#include "prof.h"

#include <stdio.h>
#include <stdlib.h>

#define MIN_SLOTS 1024

static prof_comm_t world_c, self_c;
static prof_comm_t **slot;
static size_t nslots, nused;
static uint32_t next_idx;
static uint64_t next_counter = 1, local_counter;
static MPI_Group world_group = MPI_GROUP_NULL;

static size_t hash(MPI_Comm c)
{
    return ((uint32_t)c * 2654435761u) & (nslots - 1);
}

static void table_put(prof_comm_t *pc)
{
    if ((nused + 1) * 2 > nslots) {
        size_t old = nslots;
        prof_comm_t **os = slot;
        nslots = old ? old * 2 : MIN_SLOTS;
        slot = calloc(nslots, sizeof *slot);
        nused = 0;
        for (size_t i = 0; i < old; i++)
            if (os[i])
                table_put(os[i]);
        free(os);
    }
    size_t i = hash(pc->h);
    while (slot[i] != NULL && slot[i]->h != pc->h)
        i = (i + 1) & (nslots - 1);
    if (slot[i] == NULL)
        nused++;
    else
        free(slot[i]->world), free(slot[i]); /* a handle freed behind our back */
    slot[i] = pc;
}

/* Removes by backward shift (linear probing without tombstones). */
static prof_comm_t *table_take(MPI_Comm c)
{
    if (nslots == 0)
        return NULL;
    size_t i = hash(c);
    while (slot[i] != NULL && slot[i]->h != c)
        i = (i + 1) & (nslots - 1);
    prof_comm_t *pc = slot[i];
    if (pc == NULL)
        return NULL;
    slot[i] = NULL;
    nused--;
    for (size_t j = (i + 1) & (nslots - 1); slot[j] != NULL; j = (j + 1) & (nslots - 1)) {
        prof_comm_t *m = slot[j];
        slot[j] = NULL;
        nused--;
        table_put(m);
    }
    return pc;
}

static prof_comm_t unknown_c = {.h = MPI_COMM_NULL, .idx = 0, .uid = 0, .rank = -1};
static int *world_ranks(MPI_Group g, int n);
static void comm_new(MPI_Comm c, int collective, uint64_t uid);

/* MPI_Comm_idup: the new handle is good only once the request completes, so the communicator
 * is registered at its first use; its id is made now, equal on all members without a message:
 * from the parent's id and the number of this idup on the parent (all members call idup on it
 * in the same order). */
#define IDUP_SLOTS 64
static struct {
    MPI_Comm h;
    uint64_t uid;
} idup_pending[IDUP_SLOTS];

static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void prof_comm_idup(MPI_Comm parent, MPI_Comm *newcomm, MPI_Request r)
{
    if (!atomic_load(&prof_g.on))
        return;
    prof_comm_t *pc = prof_comm_get(parent);
    uint64_t uid = (mix(pc->uid ^ mix(++pc->idups)) & ~(3ull << 62)) | (1ull << 62);
    prof_req_idup(r, newcomm, uid); /* the handle is known when the request completes */
}

/* The request of an MPI_Comm_idup completed: its communicator's id, for its first use. */
void prof_comm_idup_done(MPI_Comm newcomm, uint64_t uid)
{
    if (newcomm == MPI_COMM_NULL)
        return;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    int at = -1;
    for (int i = 0; i < IDUP_SLOTS && at < 0; i++)
        if (idup_pending[i].h == MPI_COMM_NULL || idup_pending[i].h == 0)
            at = i;
    if (at < 0)
        at = (int)(uid % IDUP_SLOTS);
    idup_pending[at].h = newcomm;
    idup_pending[at].uid = uid;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
}

static uint64_t idup_uid(MPI_Comm c)
{
    uint64_t uid = 0;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    for (int i = 0; i < IDUP_SLOTS; i++)
        if (idup_pending[i].h == c && c != MPI_COMM_NULL && c != 0) {
            uid = idup_pending[i].uid;
            idup_pending[i].h = MPI_COMM_NULL;
            break;
        }
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    return uid;
}

/* A communicator we did not see made (MPI_Comm_idup's, whose handle is good only once its
 * request completes; or one made by a call we do not follow): registered at its first use,
 * with an id known to this rank only. A handle that is not a communicator (the program's
 * error, which its own call reports next) is not: the probe's error returns. */
static prof_comm_t *first_use(MPI_Comm c)
{
    if (c == MPI_COMM_NULL || !atomic_load(&prof_g.on))
        return &unknown_c;
    /* An invalid handle's error goes to MPI_COMM_SELF's or MPI_COMM_WORLD's handler. */
    MPI_Errhandler eh[2] = {MPI_ERRHANDLER_NULL, MPI_ERRHANDLER_NULL};
    MPI_Comm on[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int k = 0; k < 2; k++) {
        PMPI_Comm_get_errhandler(on[k], &eh[k]);
        PMPI_Comm_set_errhandler(on[k], MPI_ERRORS_RETURN);
    }
    int n = 0, rc = PMPI_Comm_size(c, &n);
    for (int k = 0; k < 2; k++) {
        PMPI_Comm_set_errhandler(on[k], eh[k]);
        if (eh[k] != MPI_ERRHANDLER_NULL)
            PMPI_Errhandler_free(&eh[k]);
    }
    if (rc != MPI_SUCCESS)
        return &unknown_c;
    comm_new(c, 0, idup_uid(c));
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    prof_comm_t *pc = NULL;
    size_t i = hash(c);
    while (nslots && slot[i] != NULL && slot[i]->h != c)
        i = (i + 1) & (nslots - 1);
    if (nslots)
        pc = slot[i];
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    return pc ? pc : &unknown_c;
}

prof_comm_t *prof_comm_get(MPI_Comm c)
{
    if (PROF_LIKELY(c == MPI_COMM_WORLD))
        return &world_c;
    if (c == MPI_COMM_SELF)
        return &self_c;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    prof_comm_t *pc = NULL;
    if (nslots) {
        size_t i = hash(c);
        while (slot[i] != NULL && slot[i]->h != c)
            i = (i + 1) & (nslots - 1);
        pc = slot[i];
    }
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    return pc ? pc : first_use(c);
}

static int *world_ranks(MPI_Group g, int n)
{
    int *in = calloc((size_t)(n ? n : 1), sizeof(int));
    int *out = calloc((size_t)(n ? n : 1), sizeof(int));
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (PMPI_Group_translate_ranks(g, n, in, world_group, out) != MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            out[i] = -1;
    for (int i = 0; i < n; i++)
        if (out[i] == MPI_UNDEFINED)
            out[i] = -1;
    free(in);
    return out;
}

static void members(prof_comm_t *pc)
{
    MPI_Group g;
    PMPI_Comm_test_inter(pc->h, &pc->inter);
    PMPI_Comm_size(pc->h, &pc->size);
    PMPI_Comm_rank(pc->h, &pc->rank);
    pc->rsize = 0;
    if (pc->inter)
        PMPI_Comm_remote_size(pc->h, &pc->rsize);
    pc->world = malloc(sizeof(int) * (size_t)(pc->size + pc->rsize + 1));
    PMPI_Comm_group(pc->h, &g);
    int *w = world_ranks(g, pc->size);
    memcpy(pc->world, w, sizeof(int) * (size_t)pc->size);
    free(w);
    PMPI_Group_free(&g);
    if (pc->inter) {
        PMPI_Comm_remote_group(pc->h, &g);
        w = world_ranks(g, pc->rsize);
        memcpy(pc->world + pc->size, w, sizeof(int) * (size_t)pc->rsize);
        free(w);
        PMPI_Group_free(&g);
    }
}

static void announce(prof_comm_t *pc)
{
    prof_trace_comm(pc->idx, pc->uid, pc->size, pc->rsize, pc->world,
                    pc->inter ? pc->world + pc->size : NULL);
}

void prof_comm_init(void)
{
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    world_c.h = MPI_COMM_WORLD;
    members(&world_c);
    world_c.uid = FY_COMM_UID_WORLD;
    world_c.idx = next_idx++;
    self_c.h = MPI_COMM_SELF;
    members(&self_c);
    self_c.uid = fy_comm_uid_self(prof_g.rank);
    self_c.idx = next_idx++;
    unknown_c.world = world_c.world;
    unknown_c.size = world_c.size;
    unknown_c.rank = world_c.rank;
    announce(&world_c);
    announce(&self_c);
}

void prof_comm_new(MPI_Comm c, int collective)
{
    comm_new(c, collective, 0);
}

/* uid: 0 to make one (collective: agreed with the members; else this rank's own). */
static void comm_new(MPI_Comm c, int collective, uint64_t uid)
{
    if (c == MPI_COMM_NULL || !atomic_load(&prof_g.on))
        return;
    prof_comm_t *pc = calloc(1, sizeof *pc);
    if (pc == NULL)
        return;
    pc->h = c;
    members(pc);
    if (uid != 0) {
        pc->uid = uid;
    } else if (collective) {
        int lowest = 1 << 30;
        for (int i = 0; i < pc->size + pc->rsize; i++)
            if (pc->world[i] >= 0 && pc->world[i] < lowest)
                lowest = pc->world[i];
        unsigned long long mine = next_counter, agreed = mine;
        PMPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, c);
        if (pc->inter) {
            /* On an intercommunicator the result is the remote group's maximum; a second
             * round brings back this group's. */
            unsigned long long local = agreed;
            PMPI_Allreduce(&agreed, &local, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, c);
            agreed = agreed > local ? agreed : local;
        }
        next_counter = agreed + 1;
        pc->uid = fy_comm_uid(agreed, lowest);
    } else {
        pc->uid = (1ull << 62) | ((uint64_t)prof_g.rank << 32) | ++local_counter;
    }
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    pc->idx = next_idx++;
    table_put(pc);
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    announce(pc);
}

void prof_comm_free(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD || c == MPI_COMM_SELF)
        return;
    if (PROF_UNLIKELY(prof_g.mt))
        prof_lock();
    prof_comm_t *pc = table_take(c);
    if (PROF_UNLIKELY(prof_g.mt))
        prof_unlock();
    if (pc) {
        free(pc->world);
        free(pc);
    }
}

int prof_root_world(const prof_comm_t *pc, int root)
{
    if (pc->inter) {
        if (root == MPI_ROOT)
            return prof_g.rank;
        return root >= 0 && root < pc->rsize ? pc->world[pc->size + root] : -1;
    }
    return root >= 0 && root < pc->size && pc->world ? pc->world[root] : -1;
}

void prof_neighbors(MPI_Comm c, int *in, int *out)
{
    int topo = MPI_UNDEFINED, nd = 0, weighted = 0, rank = 0;
    *in = *out = 0;
    PMPI_Topo_test(c, &topo);
    if (topo == MPI_CART) {
        PMPI_Cartdim_get(c, &nd);
        *in = *out = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        PMPI_Comm_rank(c, &rank);
        PMPI_Graph_neighbors_count(c, rank, &nd);
        *in = *out = nd;
    } else if (topo == MPI_DIST_GRAPH) {
        PMPI_Dist_graph_neighbors_count(c, in, out, &weighted);
    }
}

/* ---- Windows: numbered in creation order, with their members' world ranks ---- */
typedef struct pwin {
    MPI_Win h;
    uint32_t num;
    int n;
    int *world;
} pwin_t;
static pwin_t *wins;
static int nwins, capwins;
static uint32_t next_win;

void prof_win_new(MPI_Win w)
{
    if (w == MPI_WIN_NULL || !atomic_load(&prof_g.on))
        return;
    MPI_Group g;
    if (PMPI_Win_get_group(w, &g) != MPI_SUCCESS)
        return;
    int n = 0;
    PMPI_Group_size(g, &n);
    int *world = world_ranks(g, n);
    PMPI_Group_free(&g);
    if (nwins == capwins) {
        capwins = capwins ? 2 * capwins : 8;
        wins = realloc(wins, sizeof *wins * (size_t)capwins);
    }
    wins[nwins++] = (pwin_t){.h = w, .num = next_win++, .n = n, .world = world};
}

void prof_win_free(MPI_Win w)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i].h == w) {
            free(wins[i].world);
            wins[i] = wins[--nwins];
            return;
        }
}

/* The window's number and the target's world rank; false when we do not know the window. */
bool prof_win_target(MPI_Win w, int target, uint32_t *num, int *world)
{
    for (int i = 0; i < nwins; i++)
        if (wins[i].h == w) {
            *num = wins[i].num;
            *world = target >= 0 && target < wins[i].n ? wins[i].world[target] : -1;
            return true;
        }
    return false;
}
