/* mpiexec --check: the check server (check_server.c) and its judgement of what the ranks are
 * blocked in (check_graph.c). The ranks' side is src/tools/check/chk_watch.c; the design and
 * the wire format are at the top of check_server.c and in docs/ferry.md, "--check", "Deadlocks". */
#ifndef FY_MPX_CHECK_H
#define FY_MPX_CHECK_H

#include "mpiexec.h"

#include <stdint.h>

/* What a blocked rank waits for (the wire's copy of chk_item_t, chk_watch.h). */
enum fy_chk_kind {
    FY_CHK_RECV,
    FY_CHK_SEND,
    FY_CHK_SYNC,
    FY_CHK_COLL,
    FY_CHK_OTHER,
    FY_CHK_POSTED, /* not waited for: a receive posted earlier, which a send can match */
};

typedef struct fy_chk_item {
    int kind;
    int peer; /* world rank, -1: any */
    int tag;  /* -1: any */
    uint64_t comm;
    uint64_t seq;  /* FY_CHK_COLL: the collective's number on comm */
    char coll[32]; /* FY_CHK_COLL: the MPI function */
    int paired;    /* fy_chk_pair: a blocked send meets this blocked receive, or the reverse */
} fy_chk_item_t;

enum fy_chk_state {
    FY_CHK_RUNNING,  /* not connected yet, or not blocked (as far as we know) */
    FY_CHK_BLOCKED,  /* in a call for at least ~100 ms */
    FY_CHK_FINISHED, /* said goodbye after its last MPI call: it will send nothing more */
    FY_CHK_EXITED,   /* the process is gone (or its connection closed without goodbye) */
};

typedef struct fy_chk_rank {
    int state;
    uint64_t bseq; /* the block's sequence number on the rank */
    int all;       /* every item must complete (else: one is enough) */
    int ntotal;    /* items of the wait; only the first nitems are known */
    int nitems;
    fy_chk_item_t *items;
    char call[48];
    char loc[256];
    long long since_ms; /* when the block began (our clock) */
} fy_chk_rank_t;

typedef struct fy_chk_comm {
    uint64_t id;
    int n;
    int *ranks; /* world ranks */
    char name[64];
} fy_chk_comm_t;

typedef struct fy_chk_state_s {
    int size;
    fy_chk_rank_t *r;
    fy_chk_comm_t *comm;
    int ncomm, capcomm;
} fy_chk_job_t;

enum fy_chk_verdict {
    FY_CHK_NONE,      /* some rank runs (or none is blocked): nothing to judge */
    FY_CHK_PROGRESS,  /* every live rank is blocked, but some wait can complete */
    FY_CHK_POTENTIAL, /* stuck only because the checker holds buffered standard sends */
    FY_CHK_DEADLOCK,  /* no wait can ever complete */
};

typedef struct fy_chk_result {
    int verdict;
    /* FY_CHK_POTENTIAL: release[r] for ranks whose wait completes once their CHK_W_SYNC items
     * count as done. Both verdicts: stuck[r] for ranks that can never go on (as judged). */
    char *release;
    char *stuck;
    /* A wait-for cycle among the stuck ranks: cycle[0..ncycle), the first repeated at the end
     * when printed; ncycle 0 when the waits end at finished ranks instead. */
    int *cycle;
    int ncycle;
} fy_chk_result_t;

/* check_graph.c */
/* The communicator with this id, or NULL (not announced: taken as MPI_COMM_WORLD's members). */
const fy_chk_comm_t *fy_chk_comm_find(const fy_chk_job_t *J, uint64_t id);
/* Records a communicator's members (the first announcement of an id wins); 0 or -1 (memory). */
int fy_chk_comm_add(fy_chk_job_t *J, uint64_t id, int n, const int *ranks);
/* Pairs each blocked receive with a blocked send that meets it (items' `paired`). */
void fy_chk_pair(fy_chk_job_t *J);
/* After fy_chk_pair: release[r] for ranks waiting in a buffered send whose receive is posted
 * (paired): the checker holds them, an MPI_Ssend would complete. Returns how many. */
int fy_chk_matched_sync(const fy_chk_job_t *J, char *release);
/* Judges the job as it stands (pairs first); res's arrays hold J->size entries (ncycle up to
 * size). */
void fy_chk_analyze(fy_chk_job_t *J, fy_chk_result_t *res);
/* One line about rank r's wait ("MPI_Recv from rank 1, tag 0, MPI_COMM_WORLD at ring.c:21"). */
void fy_chk_describe(const fy_chk_job_t *J, int r, char *out, size_t len);
/* The communicator's name for messages: its MPI name, else "comm #id". */
void fy_chk_comm_label(const fy_chk_job_t *J, uint64_t id, char *out, size_t len);
void fy_chk_job_free(fy_chk_job_t *J);

/* check_server.c */
/* --check: finds libferry_check.so, listens, and adds LD_PRELOAD, FERRY_CHECK_ADDR and
 * FERRY_CHECK_KEY to the ranks' environment (o->env, which proxies forward too). remote: ranks
 * run on other hosts (then iface / first_remote choose the address, as for proxies; all_here:
 * every proxy runs on this machine). 0, or -1 with the message printed. */
int fy_mpx_check_setup(fy_mpx_opts_t *o, int remote, const char *iface, int all_here,
                       const char *first_remote);
/* Closes the server (after the job). */
void fy_mpx_check_close(void);
/* mpiexec's status when --check ends a deadlocked job. */
#define FY_MPX_CHECK_DEADLOCK_STATUS 3

#endif
