/* The checker's watch: what each rank is blocked in, and the job-wide verdict on it.
 *
 * The wrappers (chk_*.c) call chk_watch_block() when a call may block and chk_watch_unblock()
 * when it returns. Both only store into this rank's slot (a sequence lock, no system call):
 * they run on every blocking call and must stay cheap. A thread of the checker (chk_watch.c)
 * looks at the slot a few times a second; a block that has lasted about 100 ms is sent to the
 * check server in mpiexec (FERRY_CHECK_ADDR, authenticated with FERRY_CHECK_KEY), and so is its
 * end. The server holds every rank's state: when every live rank has been blocked, unchanged,
 * for about a second and no blocked send matches a blocked receive, it prints the wait-for
 * cycle and ends the job (a deadlock). When the cycle only holds because standard sends were
 * buffered (items of kind CHK_W_SYNC), it prints a "potential deadlock" warning instead and
 * tells those ranks to stop waiting (chk_watch_released()), and the job goes on.
 *
 * Without FERRY_CHECK_ADDR (the library preloaded by hand, a singleton) the watch does nothing
 * and only the local checks report. */
#ifndef CHK_WATCH_H
#define CHK_WATCH_H

#include <stdbool.h>
#include <stdint.h>

/* What a blocked call waits for. Peers are ranks of MPI_COMM_WORLD. */
enum chk_wait_kind {
    CHK_W_RECV,  /* a receive (or probe) from `peer` (-1: any member of `comm`) with `tag` (-1: any) */
    CHK_W_SEND,  /* a send to `peer` that the library has not completed (a synchronous or large one) */
    CHK_W_SYNC,  /* a standard send the library completed by buffering; the checker waits until the
                    receiver matched it, to find programs that only work because of buffering */
    CHK_W_COLL,  /* a collective `coll` on `comm`, this rank's `seq`-th on that communicator */
    CHK_W_OTHER, /* anything else that waits on other ranks (window sync, generalized requests);
                    not judged (taken as able to complete): say CHK_W_COLL where you can */
    CHK_W_POSTED, /* not waited for: a receive this rank posted earlier and has not completed
                     (MPI_Irecv), after the waited items and counted in n. The server then knows
                     that a send to this rank is matched (an MPI_Ssend would complete there)
                     and lets a CHK_W_SYNC of that send go without calling it a potential
                     deadlock: MPI_Irecv; MPI_Barrier; MPI_Send to the ring's next; MPI_Wait. */
};

typedef struct chk_item {
    int kind;       /* enum chk_wait_kind */
    int peer;       /* world rank, -1 for any */
    int tag;        /* -1 for any */
    uint64_t comm;  /* the communicator's id: equal on every member (chk_watch_comm); 0 is
                       MPI_COMM_WORLD's, named so in reports without chk_watch_comm_name */
    const char *coll; /* CHK_W_COLL: the MPI function's name ("MPI_Bcast"); static storage */
    uint64_t seq;   /* CHK_W_COLL: the collective's number on `comm` on this rank */
} chk_item_t;

#define CHK_WATCH_MAX_ITEMS 16 /* a wait on more stores the first 16 and the count */

/* After PMPI_Init: this rank's world rank and size. Connects to the server if there is one. */
void chk_watch_start(int world_rank, int world_size);

/* Whether several application threads may call MPI at once (MPI_THREAD_MULTIPLE, sessions):
 * until told otherwise they may. Below that the slot is written without turn-taking. */
void chk_watch_threads(bool multiple);

/* A communicator's members as world ranks, sent once per id before any item names it
 * (an intercommunicator: both groups). */
void chk_watch_comm(uint64_t id, int n, const int *world_ranks);

/* The communicator's MPI name (MPI_Comm_get_name at its creation, and MPI_Comm_set_name), for
 * the reports: "MPI_COMM_WORLD" rather than "comm #1". After chk_watch_comm for the same id. */
void chk_watch_comm_name(uint64_t id, const char *name);

/* Entering a call that may block: `call` is the MPI function's name (static storage), `ra` the
 * caller's return address (resolved to file:line only when the block is reported), `all` true
 * when every item must complete (MPI_Waitall), false when one is enough (MPI_Waitany, _some).
 * n may exceed CHK_WATCH_MAX_ITEMS. Nested blocks are not allowed: a wrapper blocks once. Threads
 * may block at the same time (MPI_THREAD_MULTIPLE), each pairing its block with its unblock;
 * while more than one is blocked the rank counts as running (it is not judged). */
void chk_watch_block(const char *call, const void *ra, bool all, int n, const chk_item_t *items);

/* The call returned (or moved on: a partial completion of a Waitsome counts). */
void chk_watch_unblock(void);

/* True once the server reported a potential deadlock that involves this rank's current block:
 * the wrapper then stops waiting for its CHK_W_SYNC items (their requests complete later,
 * chk_watch_stop waits for them) and returns. Reset by the next chk_watch_block (the release
 * names the block's sequence number, so a late one never touches the next block). */
bool chk_watch_released(void);

/* The rank is in MPI_Finalize and will make no other MPI call: what it still waits for there is
 * reported with call "MPI_Finalize". After the last PMPI call, chk_watch_stop() says goodbye. */
void chk_watch_stop(void);

#endif
