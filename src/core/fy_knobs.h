/* The knobs: every FERRY_* environment variable the library reads, in one table (fy_knobs.c).
 * The library reads a knob only through the functions below, by its id, so a knob cannot be
 * read without being in the table; MPI_T shows the same table as control variables (one cvar
 * per knob, named like the variable), and tests/tools/knobs.sh fails when a quoted FERRY_ name
 * appears in src outside this table.
 *
 * A knob's value comes from an MPI_T write, else the environment, else the default (which the
 * reading module may compute at MPI_Init, e.g. the eager limit from the ring size). The value
 * the library settled on is recorded when it reads the knob, so MPI_T shows what is in force.
 * Between MPI_Init and MPI_Finalize a knob may be written only when the module reading it has
 * registered an apply function (it rereads the knob at once); the others are read once. */
#ifndef FY_KNOBS_H
#define FY_KNOBS_H

#include <stdbool.h>

enum fy_knob_id {
    FY_KNOB_WAIT,
    FY_KNOB_SPIN_US,
    FY_KNOB_YIELD,
    FY_KNOB_EAGER_MAX,
    FY_KNOB_RNDV,
    FY_KNOB_FRAG,
    FY_KNOB_CMA,
    FY_KNOB_SHM_RING,
    FY_KNOB_MEMBARRIER,
    FY_KNOB_SHM_COLL_SLOTS,
    FY_KNOB_COLL_TRACE,
    FY_KNOB_SHM_QUEUE,
    FY_KNOB_DEADLOCK_S,
    FY_KNOB_CALIBRATE, /* words in the order of enum fy_machine_mode (fy_machine.h) */
    FY_KNOB_SHM_REPORT, /* the segment's size and layout, printed by rank 0 at MPI_Init */
    FY_KNOB_NETMOD,     /* auto (shm within a host, tcp between) or tcp (tcp between all) */
    FY_KNOB_TCP_IF,     /* the network TCP listens on: an interface name or a CIDR */
    FY_KNOB_TCP_BUF,    /* socket buffer bytes (0: the kernel's autotuning) */
    FY_KNOB_TCP_EAGER,  /* largest message sent eagerly over TCP */
    FY_KNOB_COLL_HOSTS, /* tests: the hosts the node-aware collectives believe in */
    FY_KNOB_PMI_TIMEOUT, /* seconds a launcher may take to answer a rank's first PMI request */
    FY_KNOB_PMIX_LIB,    /* the PMIx client library opened under a PMIx launcher */
    FY_KNOB_PROGRESS_THREAD, /* microseconds between a progress thread's passes; 0: none */
    /* FERRY_COLL_<NAME>: one per selection table, in the order of FY_COLL_* (fy_select.h). */
    FY_KNOB_COLL_BARRIER,
    FY_KNOB_COLL_BCAST,
    FY_KNOB_COLL_REDUCE,
    FY_KNOB_COLL_ALLREDUCE,
    FY_KNOB_COLL_ALLGATHER,
    FY_KNOB_COLL_ALLTOALL,
    FY_KNOB_COLL_REDUCE_SCATTER,
    FY_KNOB_COLL_GATHER,
    FY_KNOB_COLL_SCATTER,
    FY_KNOB_N
};
#define FY_KNOB_COLL_FIRST FY_KNOB_COLL_BARRIER

/* How a knob's text is read. */
enum fy_knob_kind {
    FY_KNOB_NUMBER, /* an integer, with an optional K, M or G suffix */
    FY_KNOB_WORD,   /* one of `words` (case-sensitive); anything else means the default */
    FY_KNOB_ALGO,   /* a collective algorithm's name, checked by the selection (select.c) */
    FY_KNOB_TEXT    /* free text (MPI_T: a string of MPI_CHAR, read only while running) */
};

/* The groups MPI_T shows the knobs in (its categories). */
enum fy_knob_group {
    FY_KGROUP_WAIT,
    FY_KGROUP_P2P,
    FY_KGROUP_SHM,
    FY_KGROUP_TCP,
    FY_KGROUP_COLL,
    FY_KGROUP_COLL_ONE
};

#define FY_KNOB_AUTO (-1L) /* a NUMBER default chosen at MPI_Init */
#define FY_KNOB_TEXT_MAX 64 /* bytes of a TEXT or ALGO knob's value, with its NUL */

typedef struct fy_knob {
    const char *name;
    int kind;
    const char *const *words; /* FY_KNOB_WORD: the accepted words, NULL-terminated */
    long dflt;                /* NUMBER: the default or FY_KNOB_AUTO; WORD: index of the default */
    const char *desc;
    int verbosity; /* MPI_T_VERBOSITY_* */
    int scope;     /* MPI_T_SCOPE_*: LOCAL may differ between processes, ALL_EQ may not */
    int group;
} fy_knob_t;

extern const fy_knob_t fy_knobs[FY_KNOB_N];

/* The value in force for a NUMBER knob (dflt when neither written nor set in the environment),
 * recorded as the value in force. */
long fy_knob_number(int id, long dflt);
/* A WORD knob: the index of its word, or dflt; recorded. */
int fy_knob_word(int id, int dflt);
/* An ALGO or TEXT knob: the text asked for, or NULL. */
const char *fy_knob_text(int id);
/* Records what the library made of a knob (a WORD's or NUMBER's resolved default). */
void fy_knob_settle(int id, long value);

/* What MPI_T shows: the value in force (settled, else asked for, else the default). */
long fy_knob_value(int id);
/* Whether the value came from the environment or an MPI_T write (not the default). */
bool fy_knob_is_set(int id);

/* Writes from MPI_T. MPI_SUCCESS, or MPI_T_ERR_CVAR_SET_NOT_NOW while the library runs and
 * nobody rereads the knob. A NUMBER or WORD takes a number (a WORD: the word's index); an ALGO
 * takes its text ("" for the table's choice). */
int fy_knob_write(int id, long value);
int fy_knob_write_text(int id, const char *text);

/* A module that rereads knob `id` when written calls this after reading it (NULL: no more). */
void fy_knob_on_write(int id, void (*apply)(void));
/* fy_init and fy_finalize bracket the running library with these. */
void fy_knob_freeze(bool running);

#endif
