/*
 * ferry/farm.h - a task farm over MPI: one rank (the master) hands out opaque work items to the
 * other ranks (the workers) on demand, first come first served, and gets each item's result
 * back with the item's index.
 *
 * Standard MPI only (libferry_farm, or src/farm/fy_farm.c compiled along with a program): the
 * same source works with Ferry, MPICH and Open MPI. The farm talks on a duplicate of the
 * communicator given, so its messages never meet the program's.
 *
 *   ferry_farm_t *farm;
 *   ferry_farm_create(MPI_COMM_WORLD, 0, NULL, &farm);        collective
 *   ferry_farm_ops_t ops = {next_item, work_item, take_result, NULL};
 *   ferry_farm_run(farm, &ops, &state);   every rank: the master dispatches, workers work;
 *                                         returns on every rank when the farm is done
 *   ferry_farm_free(&farm);                                    collective
 *
 * Items are numbered 0, 1, 2, ... in the order the master's `next` produced them. A worker asks
 * for more by sending results: the master keeps `depth` messages of up to `chunk` items each in
 * flight per worker (chunk > 1 amortises the round trip of tiny items; depth > 1 lets a worker
 * start its next item without waiting for the master). With a single rank the master computes
 * every item itself with `work`.
 *
 * Callbacks run in the thread that called ferry_farm_run, one at a time; results arrive in the
 * order they reach the master (per worker, in the order its items went out). A farm may run
 * several times (each run numbers its items on from the last).
 *
 * Errors: functions return FERRY_FARM_OK (0) or a negative FERRY_FARM_ERR_*; a message naming
 * the function, the argument and the value is printed on stderr first.
 */
#ifndef FERRY_FARM_H
#define FERRY_FARM_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FERRY_FARM_VERSION 1

/* Return codes. */
#define FERRY_FARM_OK 0
#define FERRY_FARM_STOPPED 1     /* run: a callback asked to stop (results drained) */
#define FERRY_FARM_INCOMPLETE 2  /* run: every worker reached max_per_worker before `next`
                                  * said END (items may remain) */
#define FERRY_FARM_ERR_ARG (-1)  /* a bad argument (the message names it) */
#define FERRY_FARM_ERR_MPI (-2)  /* an MPI call failed */
#define FERRY_FARM_ERR_NOMEM (-3)
#define FERRY_FARM_ERR_CALLBACK (-4) /* a callback returned an error */

/* What `next` returns. */
#define FERRY_FARM_ITEM 1  /* *data and *len describe item `index` */
#define FERRY_FARM_END 0   /* no more items, ever */
#define FERRY_FARM_LATER 2 /* none now; ask again after the next result (retries); said while
                            * nothing is in flight, it ends the run as END does */

/* Master: produce item `index` for `worker` (its rank in the farm's communicator; the master's
 * own rank when it computes alone). Sets *data and *len to bytes that stay valid until the next
 * call (the farm copies them at once). Returns FERRY_FARM_ITEM, FERRY_FARM_END,
 * FERRY_FARM_LATER, or a negative value to abort the run with FERRY_FARM_ERR_CALLBACK. */
typedef int (*ferry_farm_next_fn)(void *user, long index, int worker, const void **data,
                                  size_t *len);

/* Worker (and a master without workers): compute item `index`. May set *result and *result_len
 * (NULL/0 = no result bytes; the bytes stay valid until the next call). The return value is the
 * item's status, passed to `result` unchanged (the farm gives it no meaning). */
typedef int (*ferry_farm_work_fn)(void *user, long index, const void *item, size_t item_len,
                                  const void **result, size_t *result_len);

/* Master: the result of item `index`, computed by `worker`, with `work`'s status. Returns 0 to
 * go on, > 0 to stop handing out items (outstanding results still arrive here; run returns
 * FERRY_FARM_STOPPED), < 0 to stop likewise and have run return FERRY_FARM_ERR_CALLBACK. */
typedef int (*ferry_farm_result_fn)(void *user, long index, int worker, int status,
                                    const void *result, size_t result_len);

/* Master, optional: called about every opts.tick_ms while it waits (progress lines, timers,
 * a Ctrl-C flag). Returns as `result` does. */
typedef int (*ferry_farm_tick_fn)(void *user);

typedef struct ferry_farm_ops {
    ferry_farm_next_fn next;     /* master */
    ferry_farm_work_fn work;     /* workers; the master when it is alone */
    ferry_farm_result_fn result; /* master; may be NULL */
    ferry_farm_tick_fn tick;     /* master; may be NULL */
} ferry_farm_ops_t;

typedef struct ferry_farm_opts {
    int chunk;           /* items per message to a worker, >= 1 (default 1) */
    int depth;           /* messages in flight per worker, >= 1 (default 1) */
    long max_per_worker; /* items a worker gets at most, 0 = no limit (default 0) */
    int tick_ms;         /* how often ops.tick runs while the master waits, 0 = never; with 0
                          * the master blocks in MPI (the MPI's own way of waiting) */
} ferry_farm_opts_t;

typedef struct ferry_farm ferry_farm_t;

/* Sets the defaults above. */
void ferry_farm_opts_init(ferry_farm_opts_t *opts);

/* Collective over comm. `master` is a rank of comm; opts NULL = defaults (the master's options
 * are the ones used). On success *farm_p is the farm. */
int ferry_farm_create(MPI_Comm comm, int master, const ferry_farm_opts_t *opts,
                      ferry_farm_t **farm_p);

/* 1 on the master, 0 on a worker. */
int ferry_farm_is_master(const ferry_farm_t *farm);
/* Workers in the farm (the communicator's size - 1). */
int ferry_farm_workers(const ferry_farm_t *farm);

/* Collective: every rank of the farm calls it; see above. Returns FERRY_FARM_OK,
 * FERRY_FARM_STOPPED or FERRY_FARM_INCOMPLETE on the master (workers return FERRY_FARM_OK when
 * released), or an error. Callbacks missing on any rank (next on the master, work elsewhere)
 * make it return FERRY_FARM_ERR_ARG on every rank. */
int ferry_farm_run(ferry_farm_t *farm, const ferry_farm_ops_t *ops, void *user);

/* Items handed out so far and results received (the master's counts). */
long ferry_farm_items_out(const ferry_farm_t *farm);
long ferry_farm_results_in(const ferry_farm_t *farm);

/* Collective. Frees the farm and its communicator; sets *farm_p to NULL. */
int ferry_farm_free(ferry_farm_t **farm_p);

#ifdef __cplusplus
}
#endif

#endif
