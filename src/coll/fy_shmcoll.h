/* Collectives in shared memory. When every member of an intracommunicator is on this machine,
 * Barrier, Bcast, Reduce and Allreduce can work in a slot of the segment's collective pool
 * (shm_seg.h) instead of sending messages: each rank copies its contribution into its own area
 * of the slot, says so by raising its flag line, and the others read it from there.
 *
 * A slot, for a machine of n ranks and `area` bytes per area:
 *   head line                  members still attached (the last to leave frees the slot)
 *   counter line [64]          members that published phase s, at (s - 1) % 64 (shm_slot.h)
 *   flag line [j], j < n       the last phase member j has published (64-bit, only j writes)
 *   half[2] x area[n]          the data areas; collective number k uses half k % 2
 *
 * Phases: every collective run in the slot is one or two phases, the same on every member;
 * a member publishes phase s (flag = s) once its part of s is in the slot, and waits for the
 * flags it needs to reach s. Half k % 2 is written again by collective k + 2 only after every
 * member has published the first phase of collective k + 1, that is, has finished reading k.
 * So no member ever writes "done" separately, and a member that only writes (the root of a
 * broadcast) runs at most one collective ahead of the slowest reader.
 *
 * Waiting is the point-to-point wait (fy_wait_until: poll briefly, yield when ranks outnumber
 * cores, then sleep on the rank's doorbell); a member that publishes rings the doorbells of
 * the others, which costs a load of each bell line unless someone sleeps.
 *
 * A communicator gets its slot on its first collective in shared memory (not at creation:
 * programs make many communicators that never do one); rank 0 takes a free slot and sends its
 * number to the others. With no slot free, the communicator keeps using messages.
 */
#ifndef FY_SHMCOLL_H
#define FY_SHMCOLL_H

#include <stdbool.h>

#include "fy_comm.h"
#include "fy_dtype.h"
#include "mpi.h"

/* Returned by the functions below when the communicator has no slot (none was free, or the
 * job has no pool): the caller runs another algorithm. Every member gets it alike. */
#define FY_SHM_DECLINED (-1)

/* Cheap test, the same on every member: can c try the shared-memory collectives at all (a
 * pool exists, c is an intracommunicator of at least 2 ranks all on this machine, and it has
 * not already failed to get a slot)? */
bool fy_shmcoll_usable(const fy_comm_t *c);
/* Reductions work on contiguous types whose element fits an area (the areas hold the type's
 * own layout); the same on every member, since all pass the same type. */
bool fy_shmcoll_reducible(const fy_dtype_t *dt);

int fy_shm_barrier(fy_comm_t *c);
int fy_shm_bcast(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c);
/* How a reduction in a slot divides the work. FLAT: every reader reduces all contributions
 * itself (one phase). SLICE: each member reduces a slice of the vector and the others copy it
 * (two phases; for long vectors). LAST (allreduce): the member whose arrival completes the
 * phase reduces everything into its area and the others copy it (one phase, n reads of the
 * contributions instead of n^2: for many ranks). All combine in rank order, so non-commutative
 * operators work, and every member of an allreduce gets the same bits. */
enum { FY_SHMR_FLAT, FY_SHMR_SLICE, FY_SHMR_LAST };
int fy_shm_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                  int root, int mode, fy_comm_t *c);
int fy_shm_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                     int mode, fy_comm_t *c);

/* The rows of the selection tables (fy_select.h): the predicates, and the functions, which
 * call the collective's dispatcher again when the communicator turns out to have no slot (the
 * predicate then fails, so the table goes on to the message algorithms). */
#include "fy_select.h"
fy_sel_pred_t fy_shm_sel_ok, fy_shm_sel_reduce_ok, fy_shm_sel_allgather_ok, fy_shm_sel_alltoall_ok;
fy_barrier_fn_t fy_barrier_shm;
fy_bcast_fn_t fy_bcast_shm;
fy_reduce_fn_t fy_reduce_shm, fy_reduce_shm_slice;
fy_allreduce_fn_t fy_allreduce_shm, fy_allreduce_shm_slice, fy_allreduce_shm_last;
fy_allgather_fn_t fy_allgatherv_shm;
fy_alltoall_fn_t fy_alltoallv_shm;
/* Bytes of one member's area of a half (the most one member can put in a slot at once). */
size_t fy_shmcoll_area_bytes(void);

#endif
