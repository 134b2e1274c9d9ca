/* Ferry's launcher: starts the ranks of one job on this host, serves them PMI-1, forwards their
 * output a whole line at a time, and tears the job down when any rank fails.
 *
 * Single-threaded: one poll() loop (job.c) over the signalfd, stdin, and each rank's PMI socket
 * and output pipes. Every rank and every process it starts live in one process group led by a
 * sleeper process we own, so the group id cannot be reused while we may still signal it.
 *
 * A job on several hosts (launch.c) runs the same loop with no ranks of its own and a link
 * (fy_mpx_link_t) to one proxy per host (tools/proxy), each of which runs this loop over its
 * host's ranks with a link up to mpiexec; see docs/DESIGN.md, "Launching across hosts".
 */
#ifndef FY_MPIEXEC_H
#define FY_MPIEXEC_H

#include "pmi_kvs.h"
#include "pmi_wire.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#ifndef FY_MPX_PROG
#define FY_MPX_PROG "mpiexec"
#endif
/* Most ranks in one job: the library's shared-memory transport keeps per-peer state for at most
 * this many local ranks (src/xport/shm), and every rank here is local. */
#define FY_MPX_MAX_RANKS 4096

/* The hosts of a job (hosts.c): in the order named, with their slots. */
typedef struct fy_mpx_host {
    char *name;
    int slots;
    int counted; /* the slots were given (name:N, slots=N): a limit, not just an order */
} fy_mpx_host_t;
typedef struct fy_mpx_hosts {
    fy_mpx_host_t *h;
    int n;
} fy_mpx_hosts_t;
/* Each returns 0, or -1 with a message in err. */
/* One host with slots (counted: a limit the user or the batch system stated); a host already
 * there gets the slots added. */
int fy_mpx_hosts_add(fy_mpx_hosts_t *hs, const char *name, int slots, int counted, char *err,
                     size_t len);
int fy_mpx_hosts_add_list(fy_mpx_hosts_t *hs, const char *list, char *err, size_t len);
int fy_mpx_hosts_add_file(fy_mpx_hosts_t *hs, const char *path, char *err, size_t len);
/* Slots of all hosts (each ppn when ppn > 0), capped just above FY_MPX_MAX_RANKS. */
int fy_mpx_hosts_slots(const fy_mpx_hosts_t *hs, int ppn);
/* host_of[r] for r < np: by blocks of each host's slots (rr: one per host in turn), then further
 * passes while ranks remain; more ranks than counted slots needs oversubscribe. */
int fy_mpx_place(const fy_mpx_hosts_t *hs, int np, int ppn, int rr, int oversubscribe,
                 int *host_of, char *err, size_t len);
int fy_mpx_host_is_local(const char *name);
void fy_mpx_hosts_free(fy_mpx_hosts_t *hs);
/* PMI_process_mapping for host_of[0..np): "(vector,(first,count,per_host),...)"; 0, or -1 when
 * it does not fit in len bytes. */
int fy_mpx_process_mapping(const int *host_of, int np, char *out, size_t len);

/* alloc.c: the hosts of a batch system's allocation, from the environment. */
typedef enum fy_mpx_rm {
    FY_MPX_RM_NONE,
    FY_MPX_RM_SLURM, /* SLURM_JOB_ID and SLURM_JOB_NODELIST (or the older names) */
    FY_MPX_RM_PBS,   /* PBS_NODEFILE */
    FY_MPX_RM_SGE,   /* PE_HOSTFILE */
    FY_MPX_RM_LSF,   /* LSB_DJOB_HOSTFILE, else LSB_MCPU_HOSTS */
} fy_mpx_rm_t;
/* Adds the allocation's hosts with their slots (counted) to hs, the first batch system found
 * in the order above; FY_MPX_RM_NONE (hs untouched) outside any. 0, or -1 with err naming the
 * variable and its value. */
int fy_mpx_alloc_read(fy_mpx_hosts_t *hs, fy_mpx_rm_t *rm_p, char *err, size_t len);
/* We run inside a Slurm allocation (the default launcher is then srun). */
int fy_mpx_alloc_in_slurm(void);
const char *fy_mpx_alloc_name(fy_mpx_rm_t rm);
/* Slurm's compressed node list (node[01-04,07],gpu[1-2]-ib) expanded in Slurm's order, each
 * name malloc'd, in a malloc'd array; var names the variable for messages. 0 or -1. */
int fy_mpx_slurm_nodelist(const char *list, const char *var, char ***names_p, int *n_p,
                          char *err, size_t len);
/* Slurm's per-node counts (2(x3),1) into count[0..n); exactly n counts, each 1 to
 * FY_MPX_MAX_RANKS, or -1. */
int fy_mpx_slurm_counts(const char *spec, const char *var, int *count, int n, char *err,
                        size_t len);

/* NAME=VALUE strings to set in ranks, in order. */
typedef struct fy_mpx_env {
    char **var;
    int n;
} fy_mpx_env_t;

/* One program of the command line: its ranks have consecutive numbers and one appnum. */
typedef struct fy_mpx_app {
    int np;
    const char *prog; /* resolved path */
    char **argv;      /* argv[0] as the user wrote it, then its arguments; NULL-terminated */
    const char *wdir; /* NULL: our own working directory */
    fy_mpx_env_t env; /* -env, set after the job-wide variables */
} fy_mpx_app_t;

/* Options, as parsed by mpiexec_main.c. */
typedef struct fy_mpx_opts {
    int np; /* all apps together */
    fy_mpx_app_t *app;
    int napps;
    int label;        /* -l: prefix lines with "[rank] " */
    int env_none;     /* -genvnone: start ranks with an empty environment */
    fy_mpx_env_t env; /* -genv, -x, -genvlist */
    int timeout;      /* seconds, 0 = none */
    /* Multi-host (launch.c): the hosts and where each rank goes. */
    fy_mpx_hosts_t *hosts;
    int *host_of;
    const char *launcher;      /* ssh, rsh, slurm or fork */
    const char *launcher_exec; /* the agent program, NULL: the launcher's name */
    const char *iface;         /* -iface or FERRY_TCP_IF, NULL: the route to the first host */
    /* In a proxy: mpiexec's environment (NULL-terminated) that ranks start from instead of
     * ours, unless env_none. NULL in mpiexec itself. */
    char **base_env;
} fy_mpx_opts_t;

/* One output stream of a rank (stdout or stderr), forwarded line by line. */
typedef struct fy_mpx_stream {
    int fd;   /* our read end, -1 once at end of stream */
    int dest; /* 1 or 2 */
    char *buf;
    size_t len;
} fy_mpx_stream_t;

enum fy_mpx_pmi_state {
    FY_MPX_PMI_NONE, /* never sent cmd=init: a plain program */
    FY_MPX_PMI_INIT, /* between init and finalize */
    FY_MPX_PMI_FINALIZED,
};

typedef struct fy_mpx_rank {
    int rank;
    int appnum; /* index into opts->app */
    pid_t pid;  /* 0 once reaped */
    int pmi_fd; /* our end of the socketpair, -1 when closed */
    fy_pmi_linebuf_t pmi_in;
    int in_mcmd;     /* inside a multi-line (mcmd=) request */
    int spawn_total; /* of the spawn request being read */
    int spawn_last;  /* the block being read is its last */
    enum fy_mpx_pmi_state pmi_state;
    int in_barrier;
    fy_mpx_stream_t out, err;
} fy_mpx_rank_t;

typedef struct fy_mpx_job fy_mpx_job_t;

/* What a job reaches beyond its own ranks: the proxies (mpiexec on several hosts, launch.c) or
 * mpiexec (in a proxy, tools/proxy). NULL on one host. Every hook may be NULL. Called from the
 * poll loop only. */
typedef struct fy_mpx_link {
    /* Its descriptors for the next poll (at most job->link_slots); returns how many. */
    int (*add)(fy_mpx_job_t *job, struct pollfd *pfd);
    /* After poll: the entries it added, with their revents. */
    void (*ready)(fy_mpx_job_t *job, struct pollfd *pfd, int n);
    /* Runs its timers; returns when it wants to be woken next (ms, fy_mpx_now_ms), or -1. */
    long long (*tick)(fy_mpx_job_t *job, long long now);
    /* The loop must go on although the job's own ranks are gone. */
    int (*busy)(fy_mpx_job_t *job);
    /* SIGCHLD arrived: reap the link's own children. */
    void (*child)(fy_mpx_job_t *job);
    /* sig for every rank beyond ours (after fy_mpx_job_terminate or a second signal). */
    void (*signal)(fy_mpx_job_t *job, int sig);
    /* A failure to report instead of printing it: the job's exit code so far, and the one line
     * about it (NULL for a quiet failure). */
    void (*fail)(fy_mpx_job_t *job, int code, const char *msg);
    /* Output of a rank to pass on instead of writing it (whole lines, or a last piece). */
    void (*emit)(fy_mpx_job_t *job, int rank, int dest, const char *buf, size_t len);
    /* A KVS put by one of our ranks, and the moment all of them entered a PMI barrier (the
     * link calls fy_mpx_pmi_barrier_out when the whole job has). */
    void (*put)(fy_mpx_job_t *job, const char *key, const char *val);
    void (*fence)(fy_mpx_job_t *job);
    /* Too much output is queued: stop reading the ranks' pipes for now. */
    int (*out_full)(fy_mpx_job_t *job);
} fy_mpx_link_t;

struct fy_mpx_job {
    const fy_mpx_opts_t *opts;
    fy_mpx_rank_t *ranks; /* this host's ranks: all of them on one host */
    int nranks;
    int size;     /* ranks in the whole job */
    int host_id;  /* FY_HOST_ID of our ranks */
    const char *where; /* "" or " on host NAME", for messages about ranks */
    int secret_fd;     /* read-only memfd with the job's secret in hex (FY_SECRET_FD), or -1 */
    const char *tcp_addr; /* FY_TCP_ADDR for our ranks, or NULL */
    const fy_mpx_link_t *link;
    void *link_ctx;
    int link_slots;
    int stdin_remote; /* stdin for rank 0 comes through the link, not our fd 0 */
    int nlive;    /* ranks not yet reaped */
    pid_t leader; /* the process-group leader (see top of file) */
    char kvsname[64];
    fy_pmi_kvs_t kvs;
    int nbarrier; /* ranks inside the current barrier */
    /* The first rank that exited without ever speaking PMI (a plain program), -1 if none: a
     * PMI barrier can no longer complete, so one waited for ends the job (pmi_server.c). */
    int plain_gone;
    int plain_gone_code;
    int sigfd;
    struct rlimit nofile; /* our descriptor limit as we found it, for the ranks */
    int nofile_saved;

    /* Stdin forwarding to rank 0. */
    int stdin_open; /* still reading our fd 0 */
    int stdin_to;   /* write end of rank 0's stdin pipe, -1 when closed */
    char *stdin_buf;
    size_t stdin_len;

    int dest_broken[3];  /* our fd 1 or 2 no longer has a reader */
    int midline_rank[3]; /* rank whose unterminated line ends our fd 1 or 2, or -1 */

    /* Outcome and teardown. */
    int exit_code;           /* of the first failure, -1 while none */
    int reported;            /* the one line about a failure has been printed */
    int terminating;         /* SIGTERM (or a forwarded signal) sent; SIGKILL pending */
    int killed;              /* SIGKILL sent */
    int caught_signal;       /* a signal we received and forwarded, 0 if none */
    long long kill_at_ms;    /* when to escalate to SIGKILL */
    long long timeout_at_ms; /* 0: no timeout */
};

/* What mpiexec --check (check_server.c) or --monitor (monitor.c) adds to the poll loop; NULL
 * without either (they cannot be combined). Called from the loop only, in mpiexec itself (a
 * proxy has none). */
typedef struct fy_mpx_check_hooks {
    int (*slots)(void);                  /* most entries add() may fill */
    int (*add)(struct pollfd *pfd);      /* its descriptors for the next poll; how many */
    void (*ready)(fy_mpx_job_t *job, struct pollfd *pfd, int n); /* those entries after poll */
    long long (*tick)(fy_mpx_job_t *job, long long now); /* next wake-up (ms), or -1 */
    void (*rank_exit)(int rank);         /* a rank of ours was reaped */
} fy_mpx_check_hooks_t;
extern const fy_mpx_check_hooks_t *fy_mpx_check_hooks;

/* job.c */
/* The job on this host alone; returns mpiexec's exit status. */
int fy_mpx_job_run(const fy_mpx_opts_t *opts);
/* Runs a job whose ranks, KVS, kvsname, secret and link are set up: starts the ranks, serves
 * them until all are gone (and the link is not busy), cleans up; returns the exit status. */
int fy_mpx_job_exec(fy_mpx_job_t *job);
/* A job structure with its ranks' table for nranks local ranks (world numbers and apps set by
 * the caller); 0 or -1 (out of memory). */
int fy_mpx_job_init(fy_mpx_job_t *job, const fy_mpx_opts_t *opts, int nranks, int size);
long long fy_mpx_now_ms(void);
/* Ends the job: `sig` to every rank (and the group) now, SIGKILL after grace_ms. */
void fy_mpx_job_terminate(fy_mpx_job_t *job, int sig, int grace_ms);
/* Records a failure with exit status `code` (the first failure decides mpiexec's status). With a
 * message, the failure ends the job: the message is printed as mpiexec's one line about the
 * failure, unless the job is already being torn down. */
__attribute__((format(printf, 3, 4))) void fy_mpx_job_fail(fy_mpx_job_t *job, int code,
                                                           const char *fmt, ...);

/* Removes /dev/shm/fy-<kvsname>-*: the library's segments, which a killed rank leaves. */
void fy_mpx_shm_cleanup(const char *kvsname);

/* spawn.c */
/* Starts the group leader; 0 or -1 (message printed). */
int fy_mpx_spawn_leader(fy_mpx_job_t *job);
/* Starts all ranks; 0 or -1 (message printed, failure recorded with fy_mpx_job_fail; ranks
 * already started are left to the caller). */
int fy_mpx_spawn_ranks(fy_mpx_job_t *job);
/* Sends sig to the group and to each live rank (in case one left the group). */
void fy_mpx_signal_all(fy_mpx_job_t *job, int sig);

/* pmi_server.c */
/* Set from FY_MPIEXEC_DEBUG: trace every PMI request and reply on stderr. */
extern int fy_mpx_pmi_debug;
/* Reads and answers what is pending on the rank's PMI socket (drain: until end of stream). */
void fy_mpx_pmi_input(fy_mpx_job_t *job, fy_mpx_rank_t *r, int drain);
void fy_mpx_pmi_close(fy_mpx_job_t *job, fy_mpx_rank_t *r);
/* Ends the current PMI barrier: every rank of ours gets its barrier_out. */
void fy_mpx_pmi_barrier_out(fy_mpx_job_t *job);
/* Ends the job: a rank left without MPI while the others wait in a PMI barrier. */
void fy_mpx_pmi_stalled(fy_mpx_job_t *job);

/* iofwd.c */
void fy_mpx_stream_init(fy_mpx_stream_t *s, int fd, int dest);
/* Reads what is pending and writes out whole lines; at end of stream flushes the rest. */
void fy_mpx_stream_input(fy_mpx_job_t *job, int rank, fy_mpx_stream_t *s);
void fy_mpx_stream_close(fy_mpx_job_t *job, int rank, fy_mpx_stream_t *s);
/* Stdin: read from fd 0 into the buffer, and write the buffer to rank 0. */
void fy_mpx_stdin_read(fy_mpx_job_t *job);
void fy_mpx_stdin_write(fy_mpx_job_t *job);
void fy_mpx_stdin_close(fy_mpx_job_t *job);
/* Writes a rank's output (whole lines, or a last piece) to our dest, with -l labels. */
void fy_mpx_emit(fy_mpx_job_t *job, int rank, int dest, const char *buf, size_t len);
/* How many times fy_mpx_emit wrote: --monitor redraws its block in place on a terminal only
 * when no rank wrote since the last one (monitor.c). */
extern unsigned long fy_mpx_emitted;

/* launch.c: the job across hosts (mpiexec's side). */
int fy_mpx_launch(const fy_mpx_opts_t *opts);

/* launch.c, in a proxy that relays for child proxies (the tree): starts their agents (srun:
 * the agent is Slurm's srun, else one called as ssh is), accepts and authenticates them,
 * passes frames between them and mpiexec (up: each as it comes, in RELAY_UP, through `up`),
 * keeps them alive. The proxy's link calls the hooks below beside its
 * own. index/name/parent: every proxy below this one (parent: a proxy index). NULL when out of
 * memory or when it cannot listen (message printed). */
typedef struct fy_mpx_relay fy_mpx_relay_t;
fy_mpx_relay_t *fy_mpx_relay_new(fy_mpx_job_t *job, const uint8_t *secret, const char *agent,
                                 int srun, const char *proxy, const char *listen_addr, int self,
                                 int ndesc, const int *index, char *const *name, const int *parent,
                                 void (*up)(void *ctx, const void *frame, size_t len), void *ctx);
int fy_mpx_relay_slots(const fy_mpx_relay_t *R);
int fy_mpx_relay_add(fy_mpx_relay_t *R, struct pollfd *pfd);
void fy_mpx_relay_ready(fy_mpx_relay_t *R, struct pollfd *pfd, int n);
long long fy_mpx_relay_tick(fy_mpx_relay_t *R, long long now);
int fy_mpx_relay_busy(fy_mpx_relay_t *R);
void fy_mpx_relay_child(fy_mpx_relay_t *R);
void fy_mpx_relay_signal(fy_mpx_relay_t *R, int sig);
/* A whole RELAY_DOWN frame from mpiexec for proxy dest (or FY_PX_ALL) below us. */
void fy_mpx_relay_down(fy_mpx_relay_t *R, uint32_t dest, const void *frame, size_t len);
/* mpiexec is gone: drop the children (they end their ranks when they see it). */
void fy_mpx_relay_abandon(fy_mpx_relay_t *R);
void fy_mpx_relay_free(fy_mpx_relay_t *R);

/* pxaddr.c: where proxies connect, and the programs. */
typedef struct fy_mpx_listen {
    int lfd[2];
    int nlfd;
    char addrs[1024]; /* what proxies connect to, comma-separated */
    int port;
} fy_mpx_listen_t;
/* -iface (name or network), else: the loopback when every proxy runs here (all_here), the
 * address routing to first_remote, or every address of ours. 0, or -1 (message printed). */
int fy_mpx_listen_choose(fy_mpx_listen_t *ls, const char *iface, int all_here,
                         const char *first_remote);
/* On one address (a proxy relaying: the address mpiexec reached it by). 0 or -1 (errno). */
int fy_mpx_listen_at(fy_mpx_listen_t *ls, const char *addr);
/* As execvp would find name: 0 with out set, or -1. */
int fy_mpx_find_program(const char *name, char *out, size_t len);
/* ferry-proxy beside our own executable, or $FERRY_PROXY; out holds PATH_MAX. 0, or -1
 * (message printed). */
int fy_mpx_find_proxy(char *out, size_t len);

#endif
