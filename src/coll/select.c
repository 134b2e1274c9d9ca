/* The selection tables of the collectives on intracommunicators, the FERRY_COLL_<NAME>
 * overrides, and the dispatchers behind fy_coll.h (see fy_select.h for the rules of a row).
 * Thresholds come from measurements on the development machine (2 cores, shared memory):
 * docs/DESIGN.md, Collectives, gives the crossover tables behind them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fy_err.h"
#include "fy_hier.h"
#include "fy_knobs.h"
#include "fy_op.h"
#include "fy_runtime.h"
#include "fy_select.h"
#include "fy_shmcoll.h"

/* ---- Predicates ---------------------------------------------------------------------- */

static bool commutative(const fy_sel_t *s)
{
    return s->commute;
}

static bool equal_blocks(const fy_sel_t *s)
{
    return !s->vector;
}

/* The thresholds below come from bench/coll_algos.sh runs (imb with each algorithm forced, 2, 4
 * and 8 ranks on the 2-core development machine, 8 B to 4 MiB, while other work ran on it);
 * docs/DESIGN.md, "Collective algorithms", has the tables. At 2 ranks most pairs of algorithms
 * send the same messages, and the older one stays. Beyond 8 ranks nothing could be measured:
 * the rows there follow the cost models. */

/* Allreduce: recursive doubling up to 16 KiB (32 KiB beyond 4 ranks); above, ring (neighbours
 * only, fewest bytes) for commutative operators at 3-4 ranks, and from 256 KiB up to 16 ranks
 * (its p-1 rounds grow linearly); Rabenseifner (log2 p rounds of halves) in between, for other
 * operators and beyond 16 ranks; at 2 ranks Rabenseifner halves each rank's reduction, which
 * shows from 1 MiB. */
static bool allreduce_long(const fy_sel_t *s)
{
    if (s->p == 2)
        return s->bytes >= 1024 * 1024;
    return s->bytes > (s->p <= 4 ? 16 * 1024 : 32 * 1024);
}

static bool allreduce_ring(const fy_sel_t *s)
{
    return s->p > 2 && s->p <= 16 && allreduce_long(s) && (s->p <= 4 || s->bytes >= 256 * 1024);
}

/* Allgather: Bruck (ceil(log2 p) rounds) up to 2 KiB a block, recursive doubling on powers of
 * two up to 16 KiB (no fold there), ring above and at 2 ranks (one exchange either way). */
static bool allgather_bruck(const fy_sel_t *s)
{
    return s->p > 2 && s->bytes <= 2048;
}

static bool allgather_doubling(const fy_sel_t *s)
{
    return s->p > 2 && s->pof2 && s->bytes <= 16 * 1024;
}

/* Alltoall: every message posted at once won at 3-8 ranks at every size once the machine's
 * noise was averaged out (Bruck lost by 1.3x for short blocks at 8 ranks, pairwise by up to
 * 3x); Bruck's log2 p rounds against p-1 messages only from 32 ranks and 256 B blocks, by its
 * cost model. */
static bool alltoall_bruck(const fy_sel_t *s)
{
    return s->p >= 32 && s->bytes <= 256;
}

static bool alltoall_linear(const fy_sel_t *s)
{
    return s->p > 2;
}

/* Bcast: binomial won or tied at every size up to 8 ranks (with single-copy rendezvous the tree's
 * whole-message copies run side by side, and scatter-allgather's extra rounds cost more than the
 * bytes it saves on 2 cores); scatter-allgather by its cost model from 16 ranks and 512 KiB. */
static bool bcast_long(const fy_sel_t *s)
{
    return s->p >= 16 && s->bytes >= 512 * 1024;
}

/* Reduce_scatter: a recursive-doubling allreduce of the whole vector (log2 p rounds, up to 2 times
 * faster than pairwise's p-1 rounds for short vectors) up to 16 KiB, pairwise above. */
static bool reduce_scatter_short(const fy_sel_t *s)
{
    return s->p > 2 && s->bytes <= 16 * 1024;
}

/* Shared memory (fy_shmcoll.h), from imb runs at 4 and 8 ranks on the 2 cores: every
 * member reducing all vectors (one phase) wins up to 2 KiB; from 16 KiB the slices (two
 * phases, a p-th of the reduction each) beat both it and the message algorithms. A rooted
 * reduction runs ahead at the leaves, so the flat form wins longer (to 256 KiB at 4 ranks,
 * everywhere at 8 ranks on 2 cores, where the second phase is a second round of switches). */
enum { SHM_LAST_MIN_P = 16 };
static bool shm_short(const fy_sel_t *s)
{
    return s->bytes <= 2048;
}

static bool shm_long(const fy_sel_t *s)
{
    return s->bytes >= 16 * 1024;
}

/* Many members: the flat form's n^2 reads of the contributions (every member reads every
 * area) outweigh waiting for the last arriver to reduce once (shm_last). */
static bool shm_last(const fy_sel_t *s)
{
    return s->p > SHM_LAST_MIN_P && s->bytes <= 2048;
}

static bool shm_reduce_slices(const fy_sel_t *s)
{
    return s->p <= 4 && s->bytes >= 256 * 1024;
}

/* ---- Tables -------------------------------------------------------------------------- */

/* Node-aware rows (fy_hier.h) come first: where they apply the communicator spans hosts, so the
 * shared-memory rows cannot, and every flat algorithm would cross the network in most of its
 * rounds. No size threshold: by the cost model the two levels send no more over the network
 * than any flat algorithm and fewer rounds (ceil(log2 H) instead of ceil(log2 p) for H hosts),
 * at any size; to be measured on the test hosts (docs/DESIGN.md, Node-aware collectives). */
static const fy_algo_t barrier_rows[] = {
    FY_ALGO(barrier, "hier", fy_hier_sel_ok, NULL, fy_barrier_hier),
    {"shm", fy_shm_sel_ok, NULL, {.barrier = fy_barrier_shm}, {NULL}},
    FY_ALGO(barrier, "dissemination", NULL, NULL, fy_barrier_dissemination),
};

static const fy_algo_t bcast_rows[] = {
    FY_ALGO(bcast, "hier", fy_hier_sel_ok, NULL, fy_bcast_hier),
    {"shm", fy_shm_sel_ok, NULL, {.bcast = fy_bcast_shm}, {NULL}},
    FY_ALGO(bcast, "scatter_allgather", NULL, bcast_long, fy_bcast_scatter_allgather),
    FY_ALGO(bcast, "binomial", NULL, NULL, fy_bcast_binomial),
};

static const fy_algo_t reduce_rows[] = {
    FY_ALGO(reduce, "hier", fy_hier_sel_reduce_ok, NULL, fy_reduce_hier),
    {"shm_slice", fy_shm_sel_reduce_ok, shm_reduce_slices, {.reduce = fy_reduce_shm_slice}, {NULL}},
    {"shm", fy_shm_sel_reduce_ok, NULL, {.reduce = fy_reduce_shm}, {NULL}},
    FY_ALGO(reduce, "binomial", NULL, NULL, fy_reduce_binomial),
};

static const fy_algo_t allreduce_rows[] = {
    FY_ALGO(allreduce, "hier", fy_hier_sel_reduce_ok, NULL, fy_allreduce_hier),
    {"shm_last", fy_shm_sel_reduce_ok, shm_last, {.allreduce = fy_allreduce_shm_last}, {NULL}},
    {"shm", fy_shm_sel_reduce_ok, shm_short, {.allreduce = fy_allreduce_shm}, {NULL}},
    {"shm_slice", fy_shm_sel_reduce_ok, shm_long, {.allreduce = fy_allreduce_shm_slice}, {NULL}},
    FY_ALGO(allreduce, "ring", commutative, allreduce_ring, fy_allreduce_ring),
    FY_ALGO(allreduce, "rabenseifner", NULL, allreduce_long, fy_allreduce_rabenseifner),
    FY_ALGO(allreduce, "recursive_doubling", NULL, NULL, fy_allreduce_recursive_doubling),
};

static const fy_algo_t allgather_rows[] = {
    FY_ALGO(allgather, "hier", fy_hier_sel_ok, NULL, fy_allgatherv_hier),
    {"shm", fy_shm_sel_allgather_ok, NULL, {.allgather = fy_allgatherv_shm}, {NULL}},
    FY_ALGO(allgather, "bruck", NULL, allgather_bruck, fy_allgatherv_bruck),
    FY_ALGO(allgather, "recursive_doubling", NULL, allgather_doubling,
            fy_allgatherv_recursive_doubling),
    FY_ALGO(allgather, "ring", NULL, NULL, fy_allgatherv_ring),
};

static const fy_algo_t alltoall_rows[] = {
    {"shm", fy_shm_sel_alltoall_ok, NULL, {.alltoall = fy_alltoallv_shm}, {NULL}},
    FY_ALGO(alltoall, "bruck", equal_blocks, alltoall_bruck, fy_alltoall_bruck),
    FY_ALGO(alltoall, "linear", NULL, alltoall_linear, fy_alltoallv_linear),
    FY_ALGO(alltoall, "pairwise", NULL, NULL, fy_alltoallv_pairwise),
};

static const fy_algo_t reduce_scatter_rows[] = {
    FY_ALGO(reduce_scatter, "allreduce", NULL, reduce_scatter_short, fy_reduce_scatter_allreduce),
    FY_ALGO(reduce_scatter, "pairwise", NULL, NULL, fy_reduce_scatter_pairwise),
};

static const fy_algo_t gather_rows[] = {
    FY_ALGO(gather, "linear", NULL, NULL, fy_gatherv_linear),
};

static const fy_algo_t scatter_rows[] = {
    FY_ALGO(scatter, "linear", NULL, NULL, fy_scatterv_linear),
};

typedef struct {
    const char *env; /* FERRY_COLL_<this> */
    const fy_algo_t *rows;
    int n;
} table_t;

/* A table longer than FY_SELECT_MAX_ROWS (the picks counters) does not compile. */
#define ROWS_FIT(rows) (sizeof rows / sizeof rows[0] <= FY_SELECT_MAX_ROWS ? 1 : -1)
#define TABLE(env, rows)                                                                           \
    {                                                                                              \
        env, rows, (int)(sizeof rows / sizeof rows[0] + 0 * sizeof(char[ROWS_FIT(rows)]))          \
    }
static const table_t tables[FY_COLL_NTABLES] = {
    [FY_COLL_BARRIER] = TABLE("BARRIER", barrier_rows),
    [FY_COLL_BCAST] = TABLE("BCAST", bcast_rows),
    [FY_COLL_REDUCE] = TABLE("REDUCE", reduce_rows),
    [FY_COLL_ALLREDUCE] = TABLE("ALLREDUCE", allreduce_rows),
    [FY_COLL_ALLGATHER] = TABLE("ALLGATHER", allgather_rows),
    [FY_COLL_ALLTOALL] = TABLE("ALLTOALL", alltoall_rows),
    [FY_COLL_REDUCE_SCATTER] = TABLE("REDUCE_SCATTER", reduce_scatter_rows),
    [FY_COLL_GATHER] = TABLE("GATHER", gather_rows),
    [FY_COLL_SCATTER] = TABLE("SCATTER", scatter_rows),
};

/* The row forced by FERRY_COLL_<NAME>, -1 when none. */
static int forced[FY_COLL_NTABLES] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};

_Static_assert(FY_KNOB_COLL_SCATTER - FY_KNOB_COLL_FIRST + 1 == FY_COLL_NTABLES,
               "one FERRY_COLL_<NAME> knob per selection table, in the order of FY_COLL_*");

static int trace = -1;

static int read_forced(void)
{
    for (int t = 0; t < FY_COLL_NTABLES; t++) {
        const char *v = fy_knob_text(FY_KNOB_COLL_FIRST + t);
        forced[t] = -1;
        if (!v)
            continue;
        for (int i = 0; i < tables[t].n && forced[t] < 0; i++)
            if (strcasecmp(v, tables[t].rows[i].name) == 0)
                forced[t] = i;
        if (forced[t] >= 0)
            continue;
        char names[256] = "";
        size_t len = 0;
        for (int i = 0; i < tables[t].n; i++)
            if (fy_select_algo_index(t, tables[t].rows[i].name) == i && len < sizeof names)
                len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "",
                                        tables[t].rows[i].name);
        return fy_err_set(MPI_ERR_OTHER, "MPI_Init: %s=%s names no algorithm; valid: %s",
                          fy_knobs[FY_KNOB_COLL_FIRST + t].name, v, names);
    }
    return MPI_SUCCESS;
}

/* MPI_T writes these while the library runs: the next collective sees them. MPI_T writes
 * only names of the table, so read_forced cannot fail here. */
static void apply_forced(void)
{
    (void)read_forced();
}
static void apply_trace(void)
{
    trace = -1;
}

int fy_select_init(void)
{
    int rc = read_forced();
    if (rc != MPI_SUCCESS)
        return rc;
    for (int t = 0; t < FY_COLL_NTABLES; t++)
        fy_knob_on_write(FY_KNOB_COLL_FIRST + t, apply_forced);
    fy_knob_on_write(FY_KNOB_COLL_TRACE, apply_trace);
    return MPI_SUCCESS;
}

/* ---- What MPI_T shows: the algorithms of each table and how often each was taken ---------- */

/* How often each row was chosen, in this process; only the owner writes it. */
static uint64_t picks[FY_COLL_NTABLES][FY_SELECT_MAX_ROWS];

const char *fy_select_coll_name(int coll)
{
    return tables[coll].env;
}

int fy_select_algo_index(int coll, const char *name)
{
    for (int i = 0; i < tables[coll].n; i++)
        if (strcasecmp(tables[coll].rows[i].name, name) == 0)
            return i;
    return -1;
}

int fy_select_algos(int coll, const char **names, int max)
{
    int n = 0;
    for (int i = 0; i < tables[coll].n; i++)
        if (fy_select_algo_index(coll, tables[coll].rows[i].name) == i) {
            if (n < max)
                names[n] = tables[coll].rows[i].name;
            n++;
        }
    return n;
}

uint64_t fy_select_picks(int coll, const char *name)
{
    uint64_t sum = 0;
    for (int i = 0; i < tables[coll].n; i++)
        if (strcasecmp(tables[coll].rows[i].name, name) == 0)
            sum += picks[coll][i];
    return sum;
}

const char *fy_select_forced(int coll)
{
    return forced[coll] >= 0 ? tables[coll].rows[forced[coll]].name : NULL;
}

static bool usable(const fy_algo_t *a, const fy_sel_t *s)
{
    if (s->sched ? !a->sched.any : !a->fn.any)
        return false;
    return !a->can || a->can(s);
}

/* FERRY_COLL_TRACE=1: each process says on stderr which algorithm a collective took, the first
 * time each (collective, algorithm, blocking or not) occurs; =2: on every call. For users
 * tuning a program, and for tests that must know an algorithm really ran. A shared-memory row
 * that finds no slot on its first call is followed by the row that ran instead. */
static unsigned char traced[FY_COLL_NTABLES][16][2];

static const fy_algo_t *chosen(int coll, const fy_sel_t *s, int row)
{
    const table_t *t = &tables[coll];
    /* A plain count: the caller holds the library (MPI_THREAD_MULTIPLE: its lock). */
    picks[coll][row]++;
    if (trace < 0)
        trace = (int)fy_knob_number(FY_KNOB_COLL_TRACE, 0);
    if (trace > 0 && row < 16 && (trace > 1 || !traced[coll][row][s->sched])) {
        traced[coll][row][s->sched] = 1;
        char what[32];
        size_t i = 0;
        for (; t->env[i] && i + 1 < sizeof what; i++)
            what[i] = (char)tolower((unsigned char)t->env[i]); /* ALLREDUCE -> allreduce */
        what[i] = '\0';
        fprintf(stderr, "ferry: rank %d: %s%s on %s (%d ranks, %zu bytes): %s\n", fy_rt.rank,
                s->sched ? "nonblocking " : "", what,
                s->comm->name[0] ? s->comm->name : "an unnamed communicator", s->p, s->bytes,
                t->rows[row].name);
    }
    return &t->rows[row];
}

const fy_algo_t *fy_select(int coll, const fy_sel_t *s)
{
    const table_t *t = &tables[coll];
    if (forced[coll] >= 0 && usable(&t->rows[forced[coll]], s))
        return chosen(coll, s, forced[coll]);
    for (int i = 0; i < t->n; i++)
        if (usable(&t->rows[i], s) && (!t->rows[i].when || t->rows[i].when(s)))
            return chosen(coll, s, i);
    return chosen(coll, s, t->n - 1);
}

/* ---- Dispatchers (fy_coll.h) --------------------------------------------------------- */

static fy_sel_t sel(fy_comm_t *c, bool sched, size_t bytes)
{
    return (fy_sel_t){.comm = c,
                      .p = c->size,
                      .pof2 = (c->size & (c->size - 1)) == 0,
                      .commute = true,
                      .sched = sched,
                      .bytes = bytes,
                      .total = bytes};
}

static size_t nbytes(const fy_dtype_t *dt, MPI_Aint count)
{
    return dt ? (size_t)dt->size * (size_t)count : 0;
}

int fy_barrier(fy_comm_t *c)
{
    fy_sel_t s = sel(c, false, 0);
    return fy_select(FY_COLL_BARRIER, &s)->fn.barrier(c);
}

void fy_barrier_sched(fy_sched_t *sc)
{
    fy_sel_t s = sel(fy_sched_comm(sc), true, 0);
    fy_select(FY_COLL_BARRIER, &s)->sched.barrier(sc);
}

int fy_bcast(void *buf, MPI_Aint count, const fy_dtype_t *dt, int root, fy_comm_t *c)
{
    fy_sel_t s = sel(c, false, nbytes(dt, count));
    return fy_select(FY_COLL_BCAST, &s)->fn.bcast(buf, count, dt, root, c);
}

void fy_bcast_sched(fy_sched_t *sc, void *buf, MPI_Aint count, const fy_dtype_t *dt, int root)
{
    fy_sel_t s = sel(fy_sched_comm(sc), true, nbytes(dt, count));
    fy_select(FY_COLL_BCAST, &s)->sched.bcast(sc, buf, count, dt, root);
}

int fy_reduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
              int root, fy_comm_t *c)
{
    fy_sel_t s = sel(c, false, nbytes(dt, count));
    s.commute = fy_op_commutes(op);
    s.dt = dt;
    return fy_select(FY_COLL_REDUCE, &s)->fn.reduce(sbuf, rbuf, count, dt, op, root, c);
}

void fy_reduce_sched(fy_sched_t *sc, const void *sbuf, void *rbuf, MPI_Aint count,
                     const fy_dtype_t *dt, MPI_Op op, int root)
{
    fy_sel_t s = sel(fy_sched_comm(sc), true, nbytes(dt, count));
    s.commute = fy_op_commutes(op);
    s.dt = dt;
    fy_select(FY_COLL_REDUCE, &s)->sched.reduce(sc, sbuf, rbuf, count, dt, op, root);
}

int fy_allreduce(const void *sbuf, void *rbuf, MPI_Aint count, const fy_dtype_t *dt, MPI_Op op,
                 fy_comm_t *c)
{
    fy_sel_t s = sel(c, false, nbytes(dt, count));
    s.commute = fy_op_commutes(op);
    s.dt = dt;
    return fy_select(FY_COLL_ALLREDUCE, &s)->fn.allreduce(sbuf, rbuf, count, dt, op, c);
}

void fy_allreduce_sched(fy_sched_t *sc, const void *sbuf, void *rbuf, MPI_Aint count,
                        const fy_dtype_t *dt, MPI_Op op)
{
    fy_sel_t s = sel(fy_sched_comm(sc), true, nbytes(dt, count));
    s.commute = fy_op_commutes(op);
    s.dt = dt;
    fy_select(FY_COLL_ALLREDUCE, &s)->sched.allreduce(sc, sbuf, rbuf, count, dt, op);
}

/* Allgather(v): every member knows every count, so the average block is the same everywhere. */
static fy_sel_t sel_allgather(fy_comm_t *c, bool sched, MPI_Aint rcount, const MPI_Aint *rcounts,
                              const fy_dtype_t *rdt)
{
    fy_sel_t s = sel(c, sched, 0);
    if (rcounts) {
        MPI_Aint sum = 0;
        for (int i = 0; i < c->size; i++)
            sum += rcounts[i];
        s.vector = true;
        s.total = nbytes(rdt, sum);
        s.bytes = s.total / (size_t)c->size;
    } else {
        s.bytes = nbytes(rdt, rcount);
        s.total = s.bytes * (size_t)c->size;
    }
    return s;
}

int fy_allgatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
                  MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                  const fy_dtype_t *rdt, fy_comm_t *c)
{
    fy_sel_t s = sel_allgather(c, false, rcount, rcounts, rdt);
    return fy_select(FY_COLL_ALLGATHER, &s)
        ->fn.allgather(sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, c);
}

void fy_allgatherv_sched(fy_sched_t *sc, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                         void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                         const MPI_Aint *displs, const fy_dtype_t *rdt)
{
    fy_sel_t s = sel_allgather(fy_sched_comm(sc), true, rcount, rcounts, rdt);
    fy_select(FY_COLL_ALLGATHER, &s)
        ->sched.allgather(sc, sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt);
}

/* Alltoallv: a rank knows only its own counts, so nothing about sizes can steer the choice. */
static fy_sel_t sel_alltoall(fy_comm_t *c, bool sched, MPI_Aint rcount, const MPI_Aint *rcounts,
                             const fy_dtype_t *rdt)
{
    fy_sel_t s = sel(c, sched, rcounts ? 0 : nbytes(rdt, rcount));
    s.vector = rcounts != NULL;
    s.total = s.bytes * (size_t)c->size;
    return s;
}

int fy_alltoallv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                 const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                 const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt,
                 fy_comm_t *c)
{
    fy_sel_t s = sel_alltoall(c, false, rcount, rcounts, rdt);
    return fy_select(FY_COLL_ALLTOALL, &s)
        ->fn.alltoall(sbuf, scount, scounts, sdispls, sdt, rbuf, rcount, rcounts, rdispls, rdt, c);
}

void fy_alltoallv_sched(fy_sched_t *sc, const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                        const MPI_Aint *sdispls, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                        const MPI_Aint *rcounts, const MPI_Aint *rdispls, const fy_dtype_t *rdt)
{
    fy_sel_t s = sel_alltoall(fy_sched_comm(sc), true, rcount, rcounts, rdt);
    fy_select(FY_COLL_ALLTOALL, &s)
        ->sched.alltoall(sc, sbuf, scount, scounts, sdispls, sdt, rbuf, rcount, rcounts, rdispls,
                         rdt);
}

static fy_sel_t sel_reduce_scatter(fy_comm_t *c, bool sched, MPI_Aint rcount,
                                   const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op)
{
    MPI_Aint sum = rcounts ? 0 : rcount * c->size;
    for (int i = 0; rcounts && i < c->size; i++)
        sum += rcounts[i];
    fy_sel_t s = sel(c, sched, nbytes(dt, sum));
    s.vector = rcounts != NULL;
    s.commute = fy_op_commutes(op);
    return s;
}

int fy_reduce_scatter(const void *sbuf, void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts,
                      const fy_dtype_t *dt, MPI_Op op, fy_comm_t *c)
{
    fy_sel_t s = sel_reduce_scatter(c, false, rcount, rcounts, dt, op);
    return fy_select(FY_COLL_REDUCE_SCATTER, &s)
        ->fn.reduce_scatter(sbuf, rbuf, rcount, rcounts, dt, op, c);
}

void fy_reduce_scatter_sched(fy_sched_t *sc, const void *sbuf, void *rbuf, MPI_Aint rcount,
                             const MPI_Aint *rcounts, const fy_dtype_t *dt, MPI_Op op)
{
    fy_sel_t s = sel_reduce_scatter(fy_sched_comm(sc), true, rcount, rcounts, dt, op);
    fy_select(FY_COLL_REDUCE_SCATTER, &s)
        ->sched.reduce_scatter(sc, sbuf, rbuf, rcount, rcounts, dt, op);
}

/* Gather(v), Scatter(v): the counts of the v-forms are known at the root only, and the
 * v-forms cannot be told from the plain ones elsewhere, so only the communicator decides. */
int fy_gatherv(const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt, void *rbuf,
               MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
               const fy_dtype_t *rdt, int root, fy_comm_t *c)
{
    fy_sel_t s = sel(c, false, 0);
    s.vector = true;
    return fy_select(FY_COLL_GATHER, &s)
        ->fn.gather(sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, root, c);
}

void fy_gatherv_sched(fy_sched_t *sc, const void *sbuf, MPI_Aint scount, const fy_dtype_t *sdt,
                      void *rbuf, MPI_Aint rcount, const MPI_Aint *rcounts, const MPI_Aint *displs,
                      const fy_dtype_t *rdt, int root)
{
    fy_sel_t s = sel(fy_sched_comm(sc), true, 0);
    s.vector = true;
    fy_select(FY_COLL_GATHER, &s)
        ->sched.gather(sc, sbuf, scount, sdt, rbuf, rcount, rcounts, displs, rdt, root);
}

int fy_scatterv(const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts, const MPI_Aint *displs,
                const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount, const fy_dtype_t *rdt, int root,
                fy_comm_t *c)
{
    fy_sel_t s = sel(c, false, 0);
    s.vector = true;
    return fy_select(FY_COLL_SCATTER, &s)
        ->fn.scatter(sbuf, scount, scounts, displs, sdt, rbuf, rcount, rdt, root, c);
}

void fy_scatterv_sched(fy_sched_t *sc, const void *sbuf, MPI_Aint scount, const MPI_Aint *scounts,
                       const MPI_Aint *displs, const fy_dtype_t *sdt, void *rbuf, MPI_Aint rcount,
                       const fy_dtype_t *rdt, int root)
{
    fy_sel_t s = sel(fy_sched_comm(sc), true, 0);
    s.vector = true;
    fy_select(FY_COLL_SCATTER, &s)
        ->sched.scatter(sc, sbuf, scount, scounts, displs, sdt, rbuf, rcount, rdt, root);
}
