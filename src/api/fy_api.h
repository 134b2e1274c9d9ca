/* Shared by the MPI entry points: argument checks that write one clear message naming the
 * function, the argument and the value, and the lock/entry discipline. Each check returns
 * MPI_SUCCESS or the error class (message already set); the entry point then raises it on
 * the communicator with fy_err_raise_comm. */
#ifndef FY_API_H
#define FY_API_H

#include <stddef.h>

#include "fy_comm.h"
#include "fy_dtype.h"
#include "fy_err.h"
#include "fy_request.h"
#include "fy_runtime.h"
#include "mpi.h"

/* Every entry point that needs the library running starts with this. */
int fy_api_check_init(const char *fn);
/* The world model is live: between MPI_Init and MPI_Finalize. */
int fy_api_check_world(const char *fn);

/* The library runs while the world model or a session uses it (api/runtime.c). join: the first
 * user starts every layer (a failure there ends the job); MPI_ERR_OTHER with the message set
 * when the library has already shut down. leave: the last user stops every layer. */
int fy_api_runtime_join(const char *fn, int required);
void fy_api_runtime_leave(void);
/* The world model's last words when no session keeps the library running (MPI_Finalize,
 * before its barrier): queued records delivered, freed collectives finished, and this rank
 * marked gone for its peers (p2p/fy_p2p.h: fy_p2p_leave). */
void fy_api_runtime_quiesce(void);

int fy_api_comm(const char *fn, MPI_Comm h, fy_comm_t **c_p);
/* A valid datatype handle that may be used for communication (committed). */
int fy_api_dtype(const char *fn, MPI_Datatype h, const fy_dtype_t **d_p);
/* A valid datatype handle, committed or not (queries, constructors). */
int fy_api_dtype_any(const char *fn, MPI_Datatype h, fy_dtype_t **d_p);
int fy_api_count(const char *fn, MPI_Aint count);
/* `what` is "dest", "source" or "root"; wildcards allowed as the flags say. */
int fy_api_rank(const char *fn, const fy_comm_t *c, int rank, const char *what, int allow_any,
                int allow_null);
int fy_api_tag(const char *fn, int tag, int allow_any);
int fy_api_buf(const char *fn, const void *buf, MPI_Aint count, const fy_dtype_t *d);
int fy_api_request(const char *fn, MPI_Request h, fy_req_t **r_p);

/* Checks of a whole send/receive argument list: the slow path writes the message. */
int fy_api_p2p_args_slow(const char *fn, const void *buf, MPI_Aint count, MPI_Datatype dt, int peer,
                         int tag, MPI_Comm comm, int is_recv, fy_comm_t **c_p,
                         const fy_dtype_t **d_p);

/* The common case (valid arguments) decided inline in a few compares; anything unusual,
 * wildcards included, goes through the slow path, which accepts or explains. */
static inline int fy_api_p2p_args(const char *fn, const void *buf, MPI_Aint count, MPI_Datatype dt,
                                  int peer, int tag, MPI_Comm comm, int is_recv, fy_comm_t **c_p,
                                  const fy_dtype_t **d_p)
{
    fy_comm_t *c = fy_comm_get(comm);
    const fy_dtype_t *d = fy_dtype_get(dt);
    if (__builtin_expect(c && d && d->committed && count >= 0 &&
                             (unsigned)peer < (unsigned)c->peer_size && tag >= 0 &&
                             (buf || count == 0),
                         1)) {
        *c_p = c;
        *d_p = d;
        return MPI_SUCCESS;
    }
    return fy_api_p2p_args_slow(fn, buf, count, dt, peer, tag, comm, is_recv, c_p, d_p);
}

/* Completion: fills *status (unless ignored) from r and returns r's error class or code (for a
 * generalized request, what its query function returned). MPI_ERROR is left as it was. */
int fy_api_status_out(fy_req_t *r, MPI_Status *status);
/* Releases a completed request: frees it, or deactivates a persistent one. Returns the error of
 * a generalized request's free function (MPI_SUCCESS otherwise). */
int fy_api_request_retire(fy_req_t *r, MPI_Request *h);
/* Frees a request that is complete or inactive (a collective's schedule with it; a generalized
 * request's free function runs first, and its error is returned). */
int fy_api_request_free(fy_req_t *r);

/* Generalized requests (grequest.c): the user's callbacks, run with the library lock held (it is
 * recursive, so they may call MPI). Each returns the callback's error code unchanged. */
int fy_api_greq_query(fy_req_t *r, MPI_Status *status);
int fy_api_greq_free(fy_req_t *r);
int fy_api_greq_cancel(fy_req_t *r);

/* Context-id agreement for a new communicator over parent's members (comm_cid.c): a mask
 * holding the one id chosen, free on every member and safe against other creations in progress
 * on this process. */
int fy_api_agree_cid(fy_comm_t *parent, uint64_t *agreed);
/* The pieces, for agreements run as schedules or spanning two groups (intercommunicators). An
 * agreement is rounds of an AND over all members of FY_CID_WORDS words: fy_api_cid_prepare
 * fills this process's words, fy_api_cid_decide reads the AND and says whether it is done (then
 * `agreed` holds the `need` ids chosen, which the caller must take before it next lets go of the
 * process lock) or needs another round. fy_api_cid_abandon undoes a reservation when the
 * agreement stops on an error. `key` must be the same on every member. */
#define FY_CID_WORDS (FY_CID_MASK_WORDS + 1)
typedef struct fy_cid_agree {
    int64_t key;
    int need;  /* ids to choose: 1, or 2 (an intercommunicator and its hidden local groups) */
    int round; /* rounds decided so far */
    int cand[2];
    bool held;     /* this process reserved the candidates */
    bool blocking; /* the caller's thread stays inside until it is decided */
    bool counted;  /* in the count of agreements in progress here */
    bool claimed;  /* its round 0 said "alone" and it has not decided yet */
} fy_cid_agree_t;
/* `blocking`: the calling thread does nothing else until the agreement is decided (false for
 * schedules). fy_api_cid_abandon ends every agreement, decided or not. */
void fy_api_cid_start(fy_cid_agree_t *a, int64_t key, int need, bool blocking);
void fy_api_cid_prepare(fy_cid_agree_t *a, uint64_t *words);
int fy_api_cid_decide(fy_cid_agree_t *a, const uint64_t *all, bool *done, uint64_t *agreed);
void fy_api_cid_abandon(fy_cid_agree_t *a);
/* The agreement over c's members with a given key; tag >= 0 runs it point to point on c's
 * collective context with that tag (c may be a view of a group: MPI_Comm_create_group). */
int fy_api_agree_cid_tagged(fy_comm_t *c, int64_t key, int tag, uint64_t *agreed);
/* The two ids of the node-aware collectives' hidden communicators of c (fy_hier.h: the
 * collective layer's fy_hier_agree). */
int fy_api_agree_hier(fy_comm_t *c, int tag, uint64_t *agreed, int *outcome_p);

/* MPI_Comm_split of an intercommunicator (intercomm.c): collective over both groups; the
 * caller holds the lock and has checked the arguments. */
int fy_api_intercomm_split(const char *fn, fy_comm_t *c, int color, int key, MPI_Comm *newcomm);

/* MPI-4 creation from a group of world ranks, without a parent (comm_create.c). */
int fy_api_comm_from_group(const char *fn, MPI_Group group, const char *stringtag,
                           MPI_Errhandler errhandler, fy_comm_t **out_p);

/* The hash that turns an MPI-4 string tag into message tags (comm_create.c). */
uint32_t fy_api_stringtag_hash(const char *s);

/* MPI_Comm_dup of an intercommunicator (intercomm.c). */
int fy_api_intercomm_dup(fy_comm_t *c, fy_comm_t **out_p);

#define FY_TAG_UB 0x7fffffff

#endif
