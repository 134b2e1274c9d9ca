/* The knob table and the reading of knobs (fy_knobs.h). Kept free of the rest of the library:
 * MPI_T reads and writes it before MPI_Init and after MPI_Finalize. */
#include "fy_knobs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

static const char *const wait_words[] = {"auto", "spin", "block", "fixed", NULL};
static const char *const rndv_words[] = {"auto", "stream", "cma", "split", NULL};
static const char *const queue_words[] = {"auto", "pair", "inbox", NULL};
static const char *const calibrate_words[] = {"cache", "recalibrate", "skip", NULL};
static const char *const netmod_words[] = {"auto", "tcp", NULL};

#define TUNER MPI_T_VERBOSITY_TUNER_BASIC
#define ALGO_KNOB(up, what)                                                                        \
    {"FERRY_COLL_" up, FY_KNOB_ALGO, NULL, 0,                                                      \
     "algorithm of every " what " (a name from its selection table; auto: the table chooses). "   \
     "An algorithm that cannot serve a call leaves it to the table",                               \
     TUNER, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_COLL_ONE}

const fy_knob_t fy_knobs[FY_KNOB_N] = {
    [FY_KNOB_WAIT] = {"FERRY_WAIT", FY_KNOB_WORD, wait_words, 0,
                      "how a waiting rank waits: spin (poll only), block (sleep until woken), "
                      "fixed (poll for FERRY_SPIN_US, then sleep), auto (like fixed, but sleep at "
                      "once when the awaited peer shares this CPU or is descheduled, and poll up "
                      "to 20 times longer while it polls on another CPU)",
                      MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_SPIN_US] = {"FERRY_SPIN_US", FY_KNOB_NUMBER, NULL, 50,
                         "microseconds a waiting rank polls before sleeping (FERRY_WAIT=fixed; with auto, when "
                         "the awaited peer's state says nothing)",
                         TUNER, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_YIELD] = {"FERRY_YIELD", FY_KNOB_NUMBER, NULL, FY_KNOB_AUTO,
                       "1: a polling rank yields its core between polls (default: when ranks "
                       "outnumber cores and the machine's runnable threads are about as many as "
                       "this job's awake ranks, rechecked every 10 ms)",
                       TUNER, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_EAGER_MAX] = {"FERRY_EAGER_MAX", FY_KNOB_NUMBER, NULL, FY_KNOB_AUTO,
                           "largest message sent inline, in bytes (default: a sixteenth of the L2 "
                           "cache, 16-128 KiB, at most a quarter of a ring)",
                           MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_P2P},
    [FY_KNOB_RNDV] = {"FERRY_RNDV", FY_KNOB_WORD, rndv_words, 0,
                      "large messages: split (the receiver pulls chunks with process_vm_readv "
                      "from the back while a running sender pushes from the front with "
                      "process_vm_writev), cma (the receiver alone, one process_vm_readv), "
                      "stream (DATA fragments through the rings), auto (split; stream where "
                      "single copy is refused)",
                      TUNER, MPI_T_SCOPE_LOCAL, FY_KGROUP_P2P},
    [FY_KNOB_FRAG] = {"FERRY_FRAG", FY_KNOB_NUMBER, NULL, FY_KNOB_AUTO,
                      "fragment size in bytes when a large message streams through a ring, and "
                      "chunk size of a split rendezvous (default: from the L2 cache size)", TUNER,
                      MPI_T_SCOPE_LOCAL, FY_KGROUP_P2P},
    [FY_KNOB_CMA] = {"FERRY_CMA", FY_KNOB_NUMBER, NULL, 1,
                     "0 disables single-copy transfers (process_vm_readv/writev)", TUNER,
                     MPI_T_SCOPE_LOCAL, FY_KGROUP_P2P},
    [FY_KNOB_SHM_RING] = {"FERRY_SHM_RING", FY_KNOB_NUMBER, NULL, FY_KNOB_AUTO,
                          "bytes per shared-memory ring, one per ordered pair of ranks (default: "
                          "1 MiB up to 8 ranks, smaller beyond)",
                          TUNER, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_SHM},
    [FY_KNOB_MEMBARRIER] = {"FERRY_MEMBARRIER", FY_KNOB_NUMBER, NULL, 1,
                            "0: fence on both sides of a shared-memory handshake instead of "
                            "using the membarrier system call",
                            MPI_T_VERBOSITY_MPIDEV_BASIC, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_SHM},
    [FY_KNOB_SHM_COLL_SLOTS] = {"FERRY_SHM_COLL_SLOTS", FY_KNOB_NUMBER, NULL, 16,
                                "communicators that can hold a shared-memory collective slot at "
                                "once (0: collectives use messages only)",
                                TUNER, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_COLL},
    [FY_KNOB_COLL_TRACE] = {"FERRY_COLL_TRACE", FY_KNOB_NUMBER, NULL, 0,
                            "1: say on stderr which algorithm each kind of collective took the "
                            "first time; 2: on every call",
                            MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_LOCAL, FY_KGROUP_COLL},
    [FY_KNOB_SHM_QUEUE] = {"FERRY_SHM_QUEUE", FY_KNOB_WORD, queue_words, 0,
                           "shared-memory queues: pair (a ring per ordered pair of ranks), inbox "
                           "(one multi-producer queue per receiver), auto (pair up to 64 ranks)",
                           TUNER, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_SHM},
    [FY_KNOB_DEADLOCK_S] = {"FERRY_DEADLOCK_S", FY_KNOB_NUMBER, NULL, 60,
                            "seconds every rank may sleep in MPI with nothing moving before the "
                            "job is ended as deadlocked (0: never)",
                            MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_CALIBRATE] = {"FERRY_CALIBRATE", FY_KNOB_WORD, calibrate_words, 0,
                           "the machine's measured costs the thresholds are derived from: cache "
                           "(read the per-machine cache file, measuring once when it is missing), "
                           "recalibrate (measure now and rewrite the file), skip (no measurement: "
                           "thresholds from cache sizes and core count only). Rank 0 decides for "
                           "the job",
                           TUNER, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_P2P},
    [FY_KNOB_SHM_REPORT] = {"FERRY_SHM_REPORT", FY_KNOB_NUMBER, NULL, 0,
                            "1: rank 0 prints the shared-memory segment's size and layout on "
                            "stderr at MPI_Init (one line of key=value pairs)",
                            MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_LOCAL, FY_KGROUP_SHM},
    [FY_KNOB_NETMOD] = {"FERRY_NETMOD", FY_KNOB_WORD, netmod_words, 0,
                        "transports between ranks: auto (shared memory between ranks of one host, "
                        "TCP between hosts), tcp (TCP between all ranks, also on one host)",
                        MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_TCP},
    [FY_KNOB_TCP_IF] = {"FERRY_TCP_IF", FY_KNOB_TEXT, NULL, 0,
                        "the network TCP uses: an interface name (eth0) or a CIDR (10.1.0.0/16, "
                        "fd00::/8); default: the address the launcher reached this host on, else "
                        "the address of this host's name, else loopback",
                        MPI_T_VERBOSITY_USER_BASIC, MPI_T_SCOPE_LOCAL, FY_KGROUP_TCP},
    [FY_KNOB_TCP_BUF] = {"FERRY_TCP_BUF", FY_KNOB_NUMBER, NULL, 0,
                         "socket send and receive buffer bytes of TCP connections (0: the "
                         "kernel's autotuning)",
                         TUNER, MPI_T_SCOPE_LOCAL, FY_KGROUP_TCP},
    [FY_KNOB_TCP_EAGER] = {"FERRY_TCP_EAGER", FY_KNOB_NUMBER, NULL, FY_KNOB_AUTO,
                           "largest message sent inline over TCP, in bytes (default 64 KiB); "
                           "larger ones wait for the receiver's match (rendezvous)",
                           TUNER, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_TCP},
    [FY_KNOB_COLL_HOSTS] = {"FERRY_COLL_HOSTS", FY_KNOB_TEXT, NULL, 0,
                            "for tests on one machine: host ids of the world ranks as the "
                            "node-aware collectives see them, a comma-separated list repeated "
                            "over the ranks (0,0,1,1: blocks of 2 on 2 hosts; 0,1: round robin); "
                            "transports are unaffected. Default: the hosts the launcher gave",
                            MPI_T_VERBOSITY_MPIDEV_DETAIL, MPI_T_SCOPE_ALL_EQ, FY_KGROUP_COLL},
    [FY_KNOB_PMI_TIMEOUT] = {"FERRY_PMI_TIMEOUT", FY_KNOB_NUMBER, NULL, 60,
                             "seconds MPI_Init waits for the launcher's first answer on PMI_FD "
                             "before it ends the rank naming PMI_FD (a variable left over from "
                             "another job must not hang the program)",
                             MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_PMIX_LIB] = {"FERRY_PMIX_LIB", FY_KNOB_TEXT, NULL, 0,
                          "the PMIx client library MPI_Init opens when a PMIx launcher started "
                          "the program (PMIX_NAMESPACE set); default libpmix.so.2",
                          MPI_T_VERBOSITY_USER_DETAIL, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_PROGRESS_THREAD] = {"FERRY_PROGRESS_THREAD", FY_KNOB_NUMBER, NULL, 0,
                                 "a thread that makes progress every N microseconds while the "
                                 "program computes outside MPI (one-sided operations to ranks "
                                 "of other hosts complete without the target calling MPI); 0, "
                                 "the default, starts none",
                                 TUNER, MPI_T_SCOPE_LOCAL, FY_KGROUP_WAIT},
    [FY_KNOB_COLL_BARRIER] = ALGO_KNOB("BARRIER", "MPI_Barrier"),
    [FY_KNOB_COLL_BCAST] = ALGO_KNOB("BCAST", "MPI_Bcast"),
    [FY_KNOB_COLL_REDUCE] = ALGO_KNOB("REDUCE", "MPI_Reduce"),
    [FY_KNOB_COLL_ALLREDUCE] = ALGO_KNOB("ALLREDUCE", "MPI_Allreduce"),
    [FY_KNOB_COLL_ALLGATHER] = ALGO_KNOB("ALLGATHER", "MPI_Allgather(v)"),
    [FY_KNOB_COLL_ALLTOALL] = ALGO_KNOB("ALLTOALL", "MPI_Alltoall(v)"),
    [FY_KNOB_COLL_REDUCE_SCATTER] = ALGO_KNOB("REDUCE_SCATTER", "MPI_Reduce_scatter(_block)"),
    [FY_KNOB_COLL_GATHER] = ALGO_KNOB("GATHER", "MPI_Gather(v)"),
    [FY_KNOB_COLL_SCATTER] = ALGO_KNOB("SCATTER", "MPI_Scatter(v)"),
};

enum { SRC_DEFAULT, SRC_ENV, SRC_MPIT };

typedef struct {
    unsigned char loaded, source, settled;
    long asked;    /* NUMBER, WORD: the value asked for (source != SRC_DEFAULT) */
    long in_force; /* settled: what the library uses */
    char text[FY_KNOB_TEXT_MAX]; /* ALGO, TEXT: the text asked for */
} state_t;

static state_t st[FY_KNOB_N];
static void (*apply_fn[FY_KNOB_N])(void);
static bool running;

/* false when s does not start with a number (the knob then keeps its default). */
static bool parse_number(const char *s, long *v_p)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s)
        return false;
    switch (toupper((unsigned char)*end)) {
    case 'K': v *= 1L << 10; break;
    case 'M': v *= 1L << 20; break;
    case 'G': v *= 1L << 30; break;
    default: break;
    }
    *v_p = v;
    return true;
}

/* Reads the environment once per knob; an MPI_T write made before stays. */
static state_t *load(int id)
{
    state_t *s = &st[id];
    if (s->loaded)
        return s;
    s->loaded = 1;
    const fy_knob_t *k = &fy_knobs[id];
    const char *e = getenv(k->name);
    if (!e || !*e)
        return s;
    if (k->kind == FY_KNOB_NUMBER) {
        if (!parse_number(e, &s->asked))
            return s; /* "on", "yes": not a number, the default (as before MPI_T existed) */
    } else if (k->kind == FY_KNOB_WORD) {
        int i = 0;
        while (k->words[i] && strcmp(k->words[i], e) != 0)
            i++;
        if (!k->words[i])
            return s; /* not a word of this knob: the default, as before MPI_T existed */
        s->asked = i;
    } else {
        snprintf(s->text, sizeof s->text, "%s", e);
    }
    s->source = SRC_ENV;
    return s;
}

void fy_knob_settle(int id, long value)
{
    st[id].settled = 1;
    st[id].in_force = value;
}

long fy_knob_number(int id, long dflt)
{
    state_t *s = load(id);
    long v = s->source ? s->asked : dflt;
    fy_knob_settle(id, v);
    return v;
}

int fy_knob_word(int id, int dflt)
{
    return (int)fy_knob_number(id, dflt);
}

const char *fy_knob_text(int id)
{
    state_t *s = load(id);
    return s->source && s->text[0] ? s->text : NULL;
}

long fy_knob_value(int id)
{
    state_t *s = load(id);
    if (s->settled)
        return s->in_force;
    return s->source ? s->asked : fy_knobs[id].dflt;
}

bool fy_knob_is_set(int id)
{
    return load(id)->source != SRC_DEFAULT;
}

static int writable(int id)
{
    return !running || apply_fn[id] ? MPI_SUCCESS : MPI_T_ERR_CVAR_SET_NOT_NOW;
}

static void written(int id)
{
    st[id].source = SRC_MPIT;
    st[id].settled = 0; /* the reader settles it again (now, or at the next MPI_Init) */
    if (running && apply_fn[id])
        apply_fn[id]();
}

int fy_knob_write(int id, long value)
{
    int rc = writable(id);
    if (rc != MPI_SUCCESS)
        return rc;
    load(id)->asked = value;
    written(id);
    return MPI_SUCCESS;
}

int fy_knob_write_text(int id, const char *text)
{
    int rc = writable(id);
    if (rc != MPI_SUCCESS)
        return rc;
    snprintf(load(id)->text, sizeof st[id].text, "%s", text);
    written(id);
    return MPI_SUCCESS;
}

void fy_knob_on_write(int id, void (*apply)(void))
{
    apply_fn[id] = apply;
}

void fy_knob_freeze(bool run)
{
    running = run;
    if (!run)
        for (int i = 0; i < FY_KNOB_N; i++)
            apply_fn[i] = NULL;
}
