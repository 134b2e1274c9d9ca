/* Communicators. This release has MPI_COMM_WORLD, MPI_COMM_SELF and their duplicates; the
 * rank map (`world_of`) is what later kinds of communicator fill in differently. */
#ifndef FY_COMM_H
#define FY_COMM_H

#include <stdbool.h>
#include <stdint.h>

#include "mpi.h"

/* Context ids: communicator k owns wire contexts 2k (point-to-point) and 2k+1 (collectives).
 * World is 0, self is 1. */
#define FY_MAX_COMMS 2048
#define FY_CTX_P2P(c) ((uint32_t)(c)->cid * 2u)
#define FY_CTX_COLL(c) ((uint32_t)(c)->cid * 2u + 1u)

typedef struct fy_comm {
    MPI_Comm handle;
    int cid;
    int rank, size;
    int *world_of; /* rank in this comm -> rank in world; NULL means identity */
    /* Whom point-to-point ranks name: the group itself, or an intercommunicator's remote
     * group (peer_world_of NULL: identity). */
    int peer_size;
    int *peer_world_of;
    bool inter;
    bool zombie; /* freed by the program while requests still named it (fy_comm_release) */
    struct fy_comm *local; /* intercommunicator: its local group as a hidden intracommunicator */
    void *topo;            /* process topology (fy_topo.h), NULL when none */
    MPI_Errhandler errhandler;
    int refs;
    uint32_t coll_seq;
    void *coll_shm; /* shared-memory collective state (src/coll/fy_shmcoll.h), NULL until used */
    void *coll_hier; /* node-aware collectives' state (src/coll/fy_hier.h), NULL until used */
    void *attrs;    /* fy_attr_t list (fy_attr.h) */
    void *info;     /* fy_info_t (fy_info.h): hints from MPI_Comm_set_info etc., NULL when none */
    char name[MPI_MAX_OBJECT_NAME];
    /* Buffered sends (p2p/fy_bsend.h): the buffer attached to this communicator, NULL when none;
     * and, for a communicator derived from a session, the session's slot (its buffer is used
     * when the communicator has none; inherited by communicators made from this one). */
    struct fy_bsend_buf *bsend;
    struct fy_bsend_buf **bsend_session;
} fy_comm_t;

/* Lookup tables behind fy_comm_get: the two predefined communicators (NULL outside
 * Init..Finalize) and the table of communicators Ferry made, by handle index. */
extern fy_comm_t *fy_comm_builtin[2];
extern fy_comm_t **fy_comm_table;
extern unsigned fy_comm_table_cap;

/* NULL when the handle is not a live communicator. Inline: every call starts here. */
static inline fy_comm_t *fy_comm_get(MPI_Comm h)
{
    uint32_t u = (uint32_t)h;
    if ((u & 0xfffffffeu) == 0x44000000u) /* MPI_COMM_WORLD, MPI_COMM_SELF */
        return fy_comm_builtin[u & 1];
    if ((u >> 26) == ((2u << 4) | 0x1u) && (u & 0x3ffffffu) < fy_comm_table_cap)
        return fy_comm_table[u & 0x3ffffffu];
    return NULL;
}
int fy_comm_init(void);
void fy_comm_fini(void);
/* The ids free on this process (bit set = free), FY_CID_MASK_WORDS words. Creating a
 * communicator takes the lowest id free on every member: the caller agrees on the mask with
 * an allreduce(BAND) over the parent communicator, then passes the result here. */
#define FY_CID_MASK_WORDS (FY_MAX_COMMS / 64)
const uint64_t *fy_comm_free_cids(void);
int fy_comm_dup(fy_comm_t *old, const uint64_t *agreed_free, fy_comm_t **new_p);
/* A new communicator of `size` ranks, this process being `rank`, with the rank map world_of
 * (taken over, freed on failure; NULL: identity) and parent's error handler. */
int fy_comm_create(fy_comm_t *parent, int size, int rank, int *world_of,
                   const uint64_t *agreed_free, fy_comm_t **new_p);
/* An intercommunicator: as fy_comm_create, plus the remote group's rank map (taken over). */
int fy_comm_create_inter(fy_comm_t *parent, int size, int rank, int *world_of, int remote_size,
                         int *remote_world_of, const uint64_t *agreed_free, fy_comm_t **new_p);
void fy_comm_release(fy_comm_t *c);
/* A request that named zombie communicator c was freed: destroys c when no request names it. */
void fy_comm_zombie_check(fy_comm_t *c);
/* Set by the collective layer: gives back what c->coll_shm and c->coll_hier hold when c is
 * freed, and at MPI_Finalize (the core does not know what that is). */
extern void (*fy_comm_coll_free)(fy_comm_t *c);
/* Set by the point-to-point layer: lets go of c->bsend when c is freed. */
extern void (*fy_comm_bsend_free)(fy_comm_t *c);
const char *fy_comm_name(MPI_Comm h);

static inline int fy_comm_world_rank(const fy_comm_t *c, int r)
{
    return c->world_of ? c->world_of[r] : r;
}

/* World rank of the process that point-to-point rank r names (the remote group's r on an
 * intercommunicator). */
static inline int fy_comm_peer_world(const fy_comm_t *c, int r)
{
    return c->peer_world_of ? c->peer_world_of[r] : r;
}

#endif
