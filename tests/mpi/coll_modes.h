/* The three forms of a collective the collective tests run (coll_algos.c, coll_hier.c): BLOCK
 * calls it, NB starts it and waits, PERSIST inits it on the first repetition and starts it on
 * every one (REPS(mode) repetitions). Needs mpitest.h's MPI_OK. */
#ifndef COLL_MODES_H
#define COLL_MODES_H

enum { BLOCK, NB, PERSIST, NMODES };

#define RUN(mode, rep, req, blocking, nonblocking, init)                                           \
    do {                                                                                           \
        if ((mode) == BLOCK) {                                                                     \
            MPI_OK(blocking);                                                                      \
        } else {                                                                                   \
            if ((mode) == NB)                                                                      \
                MPI_OK(nonblocking);                                                               \
            else if ((rep) == 0)                                                                   \
                MPI_OK(init);                                                                      \
            if ((mode) == PERSIST)                                                                 \
                MPI_OK(MPI_Start(&(req)));                                                         \
            MPI_OK(MPI_Wait(&(req), MPI_STATUS_IGNORE));                                           \
        }                                                                                          \
    } while (0)
#define REPS(mode) ((mode) == PERSIST ? 2 : 1)

#endif
