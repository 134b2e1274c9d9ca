/* Communicator ids equal on every member and distinct between communicators, as the checker
 * (src/tools/check/chk_comm.c) and the recorder (src/tools/prof/prof_comm.c) make them, so that
 * both name a communicator the same way: MPI_COMM_WORLD is 0, a rank's MPI_COMM_SELF is
 * 1<<63 | its world rank, any other (max over members of their next counter) << 24 |
 * (lowest member world rank + 1). Two communicators with a common member differ in the counter
 * (that member's counter passed the first one's), two without one in the lowest member. The
 * members agree on the counter with one MPI_Allreduce(MAX) where they create it. */
#ifndef FY_COMM_UID_H
#define FY_COMM_UID_H

#include <stdint.h>

#define FY_COMM_UID_WORLD 0ull

static inline uint64_t fy_comm_uid_self(int world_rank)
{
    return (1ull << 63) | (uint64_t)world_rank;
}

static inline uint64_t fy_comm_uid(uint64_t agreed_counter, int lowest_world_rank)
{
    return (agreed_counter << 24) | (uint64_t)(lowest_world_rank + 1);
}

#endif
