/* The checker's shared state and helpers (libferry_check.so, docs/ferry.md, "--check").
 *
 * Every MPI_x the checker defines (generated: chk_gen.c from gen_check.py; by hand: chk_*.c)
 * checks what it can and calls PMPI_x. The state below is shared by the wrappers; one mutex
 * (chk_lock) guards the tables, and no wrapper holds it while it waits on other ranks. */
#ifndef CHK_H
#define CHK_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "chk_watch.h"

#define CHK_RA() __builtin_return_address(0)
/* The per-thread caches read on every call: the library is preloaded (loaded at start), so
 * its thread-locals can live in the static TLS block, reached without __tls_get_addr. */
#define CHK_TLS __attribute__((tls_model("initial-exec")))

/* Which checks run (FERRY_CHECK=list, default all). */
enum {
    CHK_C_LIFE = 1u << 0,    /* calls before MPI_Init / after MPI_Finalize */
    CHK_C_HANDLE = 1u << 1,  /* use of a freed handle */
    CHK_C_LEAK = 1u << 2,    /* objects not freed at MPI_Finalize */
    CHK_C_TYPE = 1u << 3,    /* point-to-point signatures and truncation */
    CHK_C_COLL = 1u << 4,    /* collective mismatches */
    CHK_C_BUFFER = 1u << 5,  /* send buffer modified, overlapping buffers */
    CHK_C_WATCH = 1u << 6,   /* blocking calls told to the deadlock watch */
};
extern unsigned chk_on;       /* the selected checks */
extern int chk_state;         /* 0 before MPI_Init, 1 between, 2 after MPI_Finalize */
extern int chk_sessions;      /* live sessions: MPI may be used outside the world model */
extern int chk_rank, chk_size; /* in MPI_COMM_WORLD; -1 before MPI_Init */

/* Several threads may call MPI at once (MPI_THREAD_MULTIPLE, sessions). Below
 * MPI_THREAD_MULTIPLE one thread at a time calls MPI, so the tables need no lock (the watch's
 * thread does not touch them); chk_multi is set at MPI_Init. */
extern bool chk_multi;
static inline bool chk_threaded(void)
{
    return chk_multi || chk_sessions > 0;
}
void chk_lock_mutex(void);
void chk_unlock_mutex(void);
/* The one lock of the tables, inline: a test and no call below MPI_THREAD_MULTIPLE. */
static inline void chk_lock(void)
{
    if (chk_threaded())
        chk_lock_mutex();
}
static inline void chk_unlock(void)
{
    if (chk_threaded())
        chk_unlock_mutex();
}
/* (*ctr)++, returning the old value: a locked instruction only where threads may race. */
static inline uint64_t chk_count_up(uint64_t *ctr)
{
    if (chk_threaded())
        return __atomic_fetch_add(ctr, 1, __ATOMIC_RELAXED);
    return (*ctr)++;
}

/* One report on stderr: "ferry check: rank R: CALL at FILE:LINE: message". `ra` is the
 * caller's return address (NULL: no location). Counts toward the exit status. */
void chk_report(const char *call, const void *ra, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The location of a return address ("ring.c:21", or "prog+0x1234" without debug info) into buf;
 * addr2line runs once per address, cached. */
const char *chk_where(const void *ra, char *buf, int len);
/* Same, for an address in another process: its module path and offset there. */
const char *chk_where_remote(const char *module, uint64_t off, char *buf, int len);
/* Module path (static storage, cached) and offset of a return address, for the shadow messages. */
const char *chk_module_of(const void *ra, uint64_t *off);

/* Called at the top of every wrapper: reports a call outside MPI_Init..MPI_Finalize. */
static inline bool chk_outside(const char *call, const void *ra)
{
    if (__builtin_expect(chk_state == 1 || chk_sessions > 0, 1))
        return false;
    if (chk_on & CHK_C_LIFE)
        chk_report(call, ra, "%s", chk_state == 0 ? "called before MPI_Init" : "called after MPI_Finalize");
    return true;
}

/* ---- handles (chk_handle.c) ---------------------------------------------------------------- */
enum chk_kind {
    CHK_K_COMM, CHK_K_TYPE, CHK_K_GROUP, CHK_K_REQUEST, CHK_K_OP, CHK_K_INFO, CHK_K_ERRH,
    CHK_K_WIN, CHK_K_MESSAGE, CHK_K_SESSION, CHK_K_N
};
typedef struct chk_handle {
    struct chk_handle *next;
    int kind, h;
    bool live;
    int refs;                  /* handles the library gives again while live (errhandlers, groups) */
    int frees;                 /* frees seen while live */
    uint64_t gen;              /* bumped at each creation: a free only ends the object it saw */
    const char *ccall, *fcall; /* the calls that created and freed it */
    const void *cra, *fra;
    void *ext;                 /* kind-specific: chk_comm_t, chk_req_t, chk_sig_t */
} chk_handle_t;

/* A handle came out of `call` (ignored when null or predefined). Lock held by the caller
 * for the _locked forms. */
chk_handle_t *chk_created(int kind, int h, const char *call, const void *ra);
/* The handle was freed by `call`. */
void chk_freed(int kind, int h, const char *call, const void *ra);
/* The same, when the object is still the one whose generation chk_gen gave before the freeing
 * call: another thread may have been given the same handle value for a new object meanwhile. */
uint64_t chk_gen(int kind, int h);
/* A handle the library gave out that is not a new object to free (MPI_Type_create_f90_real,
 * MPI_Comm_get_parent...): whatever the table knew of its value is forgotten. */
void chk_revive(int kind, int h);
void chk_freed_gen(int kind, int h, uint64_t gen, const char *call, const void *ra);
chk_handle_t *chk_find_locked(int kind, int h);
/* Reports the use of a freed handle as argument `arg` of `call`; false when it was reported. */
bool chk_use(int kind, int h, const char *call, const char *arg, const void *ra);
void chk_leak_report(void);
/* True when a garbage-collected runtime (mpi4py) runs the program (chk_runtime.c). */
bool chk_runtime_collects(void);
/* False for a null handle or one the program freed: the checker then leaves the call to the
 * library (which reports it) and computes nothing from it. */
bool chk_valid(int kind, int h);
const char *chk_kind_name(int kind);
/* A predefined handle (kind bits 01 in MPICH's encoding, Ferry's ABI): never created or freed
 * by the program, so always valid. */
static inline bool chk_predefined(int h)
{
    return (((unsigned)h >> 30) & 3u) == 1;
}

/* ---- datatype signatures (chk_sig.c) ---------------------------------------------------- */
#define CHK_SIG_RUNS 4
typedef struct chk_run {
    int32_t type;   /* a predefined datatype */
    int32_t pad;
    int64_t n;
} chk_run_t;
typedef struct chk_sigsum {
    uint64_t hash;    /* of the merged runs of count x datatype */
    int64_t nelem;    /* basic elements */
    int64_t bytes;
    int32_t anything; /* MPI_BYTE or MPI_PACKED in it: matches any signature */
    int32_t nruns;    /* number of merged runs (the first CHK_SIG_RUNS kept) */
    chk_run_t runs[CHK_SIG_RUNS];
} chk_sigsum_t;
/* The summary of count x type. */
void chk_sig_of(MPI_Datatype type, MPI_Count count, chk_sigsum_t *s);
/* The hash of the first nelem elements of count x type (-1 in *avail when fewer exist). */
uint64_t chk_sig_prefix(MPI_Datatype type, MPI_Count count, int64_t nelem, int64_t *avail);
/* "4 x MPI_INT" or "2 x MPI_INT, 1 x MPI_DOUBLE, ..." */
void chk_sig_str(const chk_sigsum_t *s, char *buf, int len);
void chk_sig_forget(MPI_Datatype type);
const char *chk_type_name(MPI_Datatype t, char *buf, int len);

/* ---- communicators (chk_comm.c) ---------------------------------------------------------- */
typedef struct chk_comm {
    MPI_Comm comm, shadow;   /* shadow: MPI_COMM_NULL when the checker gave it none */
    uint64_t id;
    int size, rsize, inter;
    int *world, *rworld;     /* local / remote rank -> world rank */
    uint64_t nsent_coll;     /* this rank's collective count on it */
} chk_comm_t;
chk_comm_t *chk_comm_get(MPI_Comm comm); /* NULL when unknown (lock not needed: see chk_comm.c) */
void chk_comm_new(MPI_Comm comm, const char *call, const void *ra);
void chk_comm_init(void);
/* MPI_Comm_idup: the library writes the new handle when the request completes; the checker
 * records it then (chk_p2p.c), with no shadow (no collective may run in a completion) and an id
 * made of the parent's id and the idup's number among the parent's collectives. */
void chk_comm_idup(MPI_Request req, MPI_Comm *newcomm, MPI_Comm parent, const char *call, const void *ra);
void chk_comm_new_local(MPI_Comm comm, uint64_t id, const char *call, const void *ra);
void chk_comm_fini(void);
int chk_world_of(chk_comm_t *c, int rank); /* -1 for wildcards and PROC_NULL */
const char *chk_comm_name(chk_comm_t *c, char *buf, int len);

/* ---- point-to-point (chk_p2p.c) ---------------------------------------------------------- */
void chk_p2p_init(void);
/* The log scheme (chk_log.c, FERRY_CHECK_P2P=log, the default). */
extern bool chk_log_on;
void chk_log_init(MPI_Comm world_shadow);
void chk_log_send(chk_comm_t *c, int dest, int tag, const char *call, const void *ra, MPI_Datatype type,
                  MPI_Count count);
void chk_log_recv(chk_comm_t *c, int src_rank, int tag, MPI_Datatype type, MPI_Count count, const char *call,
                  const void *ra, uint64_t seq);
void chk_log_fini(void);
/* Fetches and pairs the batches that came due at earlier receives (before a blocking receive
 * waits: the wait hides it). */
void chk_log_poll(void);
/* Counts the calls made from one return address (the first N standard sends of a call site are
 * made synchronous in the log scheme). */
int chk_ra_count(const void *ra);
/* True for the first n calls from a return address (counted as chk_ra_count does); afterwards
 * a load and a compare. */
bool chk_ra_first(const void *ra, int n);
void chk_p2p_fini(void);

/* A request made by a generated wrapper (nonblocking or persistent collective, RMA, idup...):
 * tracked for leaks and completed by the wait family. */
void chk_req_other(MPI_Request req, const char *call, const void *ra, MPI_Comm comm, bool persistent);

/* ---- collectives (chk_coll.c) ------------------------------------------------------------ */
extern const char *const chk_coll_names[];
extern const int chk_ncoll_names;
/* Before a blocking collective: the checks that every member makes the same call (an abort
 * when not) and the watch's block (ended by chk_coll_leave). Modes: see gen_check.py. */
void chk_coll_check(const char *call, int cid, const void *ra, MPI_Comm comm, int root, MPI_Op op,
                    int mode, MPI_Datatype t1, MPI_Count c1, MPI_Datatype t2, MPI_Count c2,
                    const void *sbuf, const void *rbuf);
void chk_coll_leave(void);
/* The nonblocking forms: the descriptor goes by PMPI_Iallreduce (a blocking one could add a
 * deadlock the program does not have); chk_req_coll ties it to the request, and the wait family
 * calls chk_coll_nb_done before waiting for the request (a mismatched collective would never
 * complete). NULL when nothing is checked. */
void *chk_coll_check_nb(const char *call, int cid, const void *ra, MPI_Comm comm, int root, MPI_Op op,
                        int mode, MPI_Datatype t1, MPI_Count c1, MPI_Datatype t2, MPI_Count c2,
                        const void *sbuf, const void *rbuf);
void chk_req_coll(MPI_Request req, void *nc);
void chk_coll_nb_done(void *nc);
void chk_coll_nb_poll(bool final);
/* Calls that wait on other ranks in ways the watch only names (window sync, comm creation). */
void chk_block_other(const char *call, const void *ra);
void chk_unblock_other(void);

/* ---- small things ------------------------------------------------------------------------- */
uint64_t chk_hash_bytes(uint64_t h, const void *p, size_t n);
/* The C integer types of one size and signedness have one representation, so a signature
 * counts them as one type: MPI_LONG, MPI_LONG_LONG and MPI_INT64_T on LP64 (MPI_INT and
 * MPI_INT32_T...). The standard's type matching names the types, but a program cannot always
 * name the C type (int64_t is long here; mpi4py maps a buffer of typestr "<i8", as NumPy,
 * DLPack and CUDA arrays give, to MPI_LONG, while a 'q' array goes as MPI_LONG_LONG), and the
 * data arrives intact. MPI_CHAR stays apart (characters, not integers). */
#define CHK_INT_BY_SIZE(sz, s8, s16, s32, s64) \
    ((sz) == 1 ? (s8) : (sz) == 2 ? (s16) : (sz) == 4 ? (s32) : (sz) == 8 ? (s64) : -1)
static inline int64_t chk_type_canon(int64_t t)
{
#define CHK_S(c) CHK_INT_BY_SIZE(sizeof(c), MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T)
#define CHK_U(c) CHK_INT_BY_SIZE(sizeof(c), MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T)
    int64_t c = -1;
    switch ((int)t) {
    case MPI_SIGNED_CHAR: c = CHK_S(signed char); break;
    case MPI_SHORT: c = CHK_S(short); break;
    case MPI_INT: c = CHK_S(int); break;
    case MPI_LONG: c = CHK_S(long); break;
    case MPI_LONG_LONG_INT: c = CHK_S(long long); break;
    case MPI_UNSIGNED_CHAR: c = CHK_U(unsigned char); break;
    case MPI_UNSIGNED_SHORT: c = CHK_U(unsigned short); break;
    case MPI_UNSIGNED: c = CHK_U(unsigned); break;
    case MPI_UNSIGNED_LONG: c = CHK_U(unsigned long); break;
    case MPI_UNSIGNED_LONG_LONG: c = CHK_U(unsigned long long); break;
    default: break;
    }
#undef CHK_S
#undef CHK_U
    return c == -1 ? t : c;
}
/* One signature run (type, count) into a hash: a word mix, not a byte loop (every message). */
static inline uint64_t chk_hash_run(uint64_t h, int64_t type, int64_t n)
{
    type = chk_type_canon(type);
    uint64_t x = h ^ ((uint64_t)type * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)n * 0xc2b2ae3d27d4eb4full);
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return x;
}
int chk_count_int(MPI_Count c);

#endif
