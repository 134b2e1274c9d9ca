/* The communicator table and context-id allocation. */
#include <stdlib.h>
#include <string.h>

#include "fy_attr.h"
#include "fy_comm.h"
#include "fy_err.h"
#include "fy_errhandler.h"
#include "fy_handle.h"
#include "fy_info.h"
#include "fy_request.h"
#include "fy_runtime.h"
#include "fy_topo.h"

static fy_comm_t world, self;
static int self_world_of[1];
fy_comm_t *fy_comm_builtin[2];
fy_comm_t **fy_comm_table; /* Ferry-made communicators by handle index */
unsigned fy_comm_table_cap;
#define table fy_comm_table
#define table_cap fy_comm_table_cap

/* Context ids in use on this process: bit set = free. Agreed by an allreduce(BAND) of the
 * masks, so ranks that have freed ids in different orders still pick the same id. */
static uint64_t cid_free[FY_CID_MASK_WORDS];
#define MASK_WORDS FY_CID_MASK_WORDS

const uint64_t *fy_comm_free_cids(void)
{
    return cid_free;
}

const char *fy_comm_name(MPI_Comm h)
{
    fy_comm_t *c = fy_comm_get(h);
    return c ? c->name : "MPI_COMM_NULL";
}

int fy_comm_init(void)
{
    memset(cid_free, 0xff, sizeof cid_free);
    cid_free[0] &= ~3ull; /* 0: world, 1: self */
    world = (fy_comm_t){.handle = MPI_COMM_WORLD,
                        .cid = 0,
                        .rank = fy_rt.rank,
                        .size = fy_rt.size,
                        .peer_size = fy_rt.size,
                        .errhandler = MPI_ERRORS_ARE_FATAL,
                        .refs = 1};
    strcpy(world.name, "MPI_COMM_WORLD");
    self_world_of[0] = fy_rt.rank;
    self = (fy_comm_t){.handle = MPI_COMM_SELF,
                       .cid = 1,
                       .rank = 0,
                       .size = 1,
                       .world_of = self_world_of,
                       .peer_size = 1,
                       .peer_world_of = self_world_of,
                       .errhandler = MPI_ERRORS_ARE_FATAL,
                       .refs = 1};
    strcpy(self.name, "MPI_COMM_SELF");
    fy_comm_builtin[0] = &world;
    fy_comm_builtin[1] = &self;
    return MPI_SUCCESS;
}

static int table_slot(void)
{
    for (unsigned i = 0; i < table_cap; i++)
        if (!table[i])
            return (int)i;
    unsigned ncap = table_cap ? table_cap * 2 : 64;
    fy_comm_t **t = realloc(table, ncap * sizeof *t);
    if (!t)
        return -1;
    memset(t + table_cap, 0, (ncap - table_cap) * sizeof *t);
    table = t;
    int slot = (int)table_cap;
    table_cap = ncap;
    return slot;
}

int fy_comm_create(fy_comm_t *parent, int size, int rank, int *world_of, const uint64_t *mask,
                   fy_comm_t **new_p)
{
    int cid = -1;
    for (int w = 0; w < MASK_WORDS && cid < 0; w++)
        if (mask[w])
            cid = w * 64 + __builtin_ctzll(mask[w]);
    if (cid < 0) {
        free(world_of);
        return fy_err_set(MPI_ERR_OTHER,
                          "cannot create a communicator: all %d context ids are in use (free "
                          "communicators you no longer need)",
                          FY_MAX_COMMS);
    }
    int slot = table_slot();
    fy_comm_t *c = calloc(1, sizeof *c);
    if (slot < 0 || !c) {
        free(c);
        free(world_of);
        return fy_err_set(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    }
    /* A rank map that is the identity on all of world is kept as none at all. */
    if (world_of && size == fy_rt.size) {
        int ident = 1;
        for (int i = 0; i < size && ident; i++)
            ident = world_of[i] == i;
        if (ident) {
            free(world_of);
            world_of = NULL;
        }
    }
    c->handle = fy_handle_make(FY_HKIND_DIRECT, FY_HCLASS_COMM, (unsigned)slot);
    c->cid = cid;
    c->rank = rank;
    c->size = size;
    c->world_of = world_of;
    c->peer_size = size;
    c->peer_world_of = world_of;
    c->errhandler = parent->errhandler;
    c->bsend_session = parent->bsend_session;
    c->refs = 1;
    fy_errhandler_ref(c->errhandler);
    cid_free[cid / 64] &= ~(1ull << (cid % 64));
    table[slot] = c;
    *new_p = c;
    return MPI_SUCCESS;
}

int fy_comm_create_inter(fy_comm_t *parent, int size, int rank, int *world_of, int remote_size,
                         int *remote_world_of, const uint64_t *mask, fy_comm_t **new_p)
{
    fy_comm_t *c;
    int rc = fy_comm_create(parent, size, rank, world_of, mask, &c);
    if (rc != MPI_SUCCESS) {
        free(remote_world_of);
        return rc;
    }
    c->inter = true;
    c->peer_size = remote_size;
    c->peer_world_of = remote_world_of;
    *new_p = c;
    return MPI_SUCCESS;
}

int fy_comm_dup(fy_comm_t *old, const uint64_t *mask, fy_comm_t **new_p)
{
    int *world_of = NULL;
    if (old->world_of) {
        world_of = malloc(sizeof(int) * (size_t)old->size);
        if (!world_of)
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Comm_dup: out of memory");
        memcpy(world_of, old->world_of, sizeof(int) * (size_t)old->size);
    }
    if (old->inter) {
        int *remote = malloc(sizeof(int) * (size_t)old->peer_size);
        if (!remote) {
            free(world_of);
            return fy_err_set(MPI_ERR_NO_MEM, "MPI_Comm_dup: out of memory");
        }
        for (int i = 0; i < old->peer_size; i++)
            remote[i] = fy_comm_peer_world(old, i);
        return fy_comm_create_inter(old, old->size, old->rank, world_of, old->peer_size, remote,
                                    mask, new_p);
    }
    int rc = fy_comm_create(old, old->size, old->rank, world_of, mask, new_p);
    /* A duplicate keeps the process topology. */
    if (rc == MPI_SUCCESS && old->topo && !((*new_p)->topo = fy_topo_copy(old->topo))) {
        fy_comm_release(*new_p);
        rc = fy_err_set(MPI_ERR_NO_MEM, "MPI_Comm_dup: out of memory copying the topology");
    }
    return rc;
}

void (*fy_comm_coll_free)(fy_comm_t *c);
void (*fy_comm_bsend_free)(fy_comm_t *c);

static void destroy(fy_comm_t *c);

/* MPI_Comm_free only marks a communicator for deallocation: operations pending on it complete
 * normally (MPI 4.1 sec. 7.4.3), and a request keeps naming it until it is retired. So while any
 * request (pending, done but not yet waited for, inactive persistent, or an unexpected message)
 * names the communicator, it stays, marked a zombie with its context id still taken (a late
 * message must not match a new communicator), and the free of the last such request destroys it
 * (fy_comm_zombie_check). The scan runs only when the last reference goes. */
void fy_comm_release(fy_comm_t *c)
{
    if (c == &world || c == &self || --c->refs > 0)
        return;
    if (fy_req_names(c)) {
        c->zombie = true;
        c->refs = 1;
        return;
    }
    destroy(c);
}

void fy_comm_zombie_check(fy_comm_t *c)
{
    if (!fy_req_names(c)) {
        c->zombie = false;
        destroy(c);
    }
}

static void destroy(fy_comm_t *c)
{
    fy_attr_delete_all_anyway(c);
    if (c->bsend && fy_comm_bsend_free)
        fy_comm_bsend_free(c);
    if ((c->coll_shm || c->coll_hier) && fy_comm_coll_free)
        fy_comm_coll_free(c);
    cid_free[c->cid / 64] |= 1ull << (c->cid % 64);
    table[fy_handle_index(c->handle)] = NULL;
    fy_errhandler_unref(c->errhandler);
    if (c->inter) {
        free(c->peer_world_of);
        if (c->local)
            fy_comm_release(c->local);
    }
    fy_info_free(c->info);
    fy_topo_free(c->topo);
    free(c->world_of);
    free(c);
}

void fy_comm_fini(void)
{
    fy_comm_builtin[0] = fy_comm_builtin[1] = NULL;
    fy_attr_delete_all_anyway(&world);
    if (fy_comm_bsend_free) { /* buffers left attached: their messages have been sent */
        if (world.bsend)
            fy_comm_bsend_free(&world);
        if (self.bsend)
            fy_comm_bsend_free(&self);
        for (unsigned i = 0; i < table_cap; i++)
            if (table[i] && table[i]->bsend)
                fy_comm_bsend_free(table[i]);
    }
    if (fy_comm_coll_free) {
        /* Communicators the collective layer made for its own use are in the table too; at
         * this point it only lets go of them (fy_comm_builtin is cleared), the loops below
         * free them. */
        if (world.coll_shm || world.coll_hier)
            fy_comm_coll_free(&world);
        if (self.coll_shm || self.coll_hier)
            fy_comm_coll_free(&self);
        for (unsigned i = 0; i < table_cap; i++)
            if (table[i] && (table[i]->coll_shm || table[i]->coll_hier))
                fy_comm_coll_free(table[i]);
    }
    fy_info_free(world.info);
    fy_info_free(self.info);
    world.info = self.info = NULL;
    for (unsigned i = 0; i < table_cap; i++)
        if (table[i]) {
            fy_info_free(table[i]->info);
            if (table[i]->inter)
                free(table[i]->peer_world_of);
            fy_topo_free(table[i]->topo);
            free(table[i]->world_of);
            free(table[i]);
        }
    free(table);
    table = NULL;
    table_cap = 0;
}
