/* What launch.c (mpiexec's side of a job across hosts) and pxdown.c (the proxies below mpiexec
 * or below a relaying proxy: agents, handshakes, connections, keepalive) share. Private to
 * those two files. */
#ifndef FY_LAUNCH_H
#define FY_LAUNCH_H

#include "mpiexec.h"
#include "pxwire.h"

#include <limits.h>
#include <netinet/in.h>

#define PEND_MAX 64         /* connections at once in the handshake */
#define STDIN_WINDOW (256 * 1024) /* stdin bytes sent and not yet written to rank 0 */
#define ERRBUF 2048         /* an agent's stderr kept until its proxy connects */
#define FAIL_STATUS 1       /* a host we could not start or lost */

enum host_state { H_STARTING, H_UP, H_DONE, H_FAILED };

/* In mpiexec: every host with ranks, h[i] being proxy i. In a relay: its children only. */
typedef struct host {
    int id;           /* index in the host table: FY_HOST_ID (mpiexec only) */
    int index;        /* proxy index (its --index) */
    const char *name; /* as the user wrote it */
    int nranks;
    int parent; /* mpiexec: index of the proxy it hangs off, -1: ours (direct) */
    int via;    /* mpiexec: our direct child on its way (itself when direct) */
    int ndesc;  /* proxies below it */
    enum host_state state;
    pid_t agent; /* 0 once reaped (or never started) */
    int err_fd;  /* the agent's stderr, -1 when closed */
    char err[ERRBUF];
    size_t errlen;
    fy_px_conn_t conn; /* fd -1 until authenticated (and for hosts below a relay) */
    long long last_rx, ping_at;
} host_t;

typedef struct pending {
    fy_px_conn_t conn;
    long long deadline;
    int magic_ok;
    uint8_t nonce[FY_PX_NONCE_LEN];
    char peer[INET6_ADDRSTRLEN + 8];
} pending_t;

enum ent_kind { E_LISTEN, E_PEND, E_ERR, E_HOST, E_STDIN };

typedef struct launch {
    fy_mpx_job_t *job; /* mpiexec: &own; a relay: the proxy's job */
    fy_mpx_job_t own;  /* mpiexec's: no ranks; options, output state, failures, signals */
    int relay;         /* in a proxy, for its children */
    int self;          /* relay: our proxy index */
    void (*up)(void *ctx, const void *frame, size_t len); /* relay: a frame for mpiexec */
    void *up_ctx;
    int ndesc; /* relay: every proxy below us, for routing */
    int *desc_index, *desc_parent;
    host_t *h;
    int nh;
    fy_mpx_listen_t ls;
    uint8_t secret[FY_PX_SECRET_LEN];
    char proxy_path[PATH_MAX];
    char agent[PATH_MAX]; /* "" for fork */
    int srun;             /* the agent is Slurm's srun (called as srun, not as ssh) */
    int started;
    pending_t pend[PEND_MAX];
    int npend;
    fy_px_buf_t scratch; /* the frame being built */
    /* The barrier: proxies in it, and the puts they brought. */
    int nfence;
    int ndone; /* hosts whose ranks have all ended */
    fy_px_buf_t fence;
    uint32_t fence_n;
    int rank0; /* index in h of rank 0's host */
    long long stdin_unacked;
    long long all_done_at; /* when the last proxy finished, 0 before */
    /* What each poll entry of ours stands for. */
    enum ent_kind *kind;
    int *who;
    int slots;
} launch_t;

/* pxdown.c */
void fy_mpx_dn_host_close(host_t *h);
/* Host i hangs (directly or not) off host top (mpiexec's table). */
int fy_mpx_dn_is_below(const launch_t *L, int i, int top);
/* Host h (and, in mpiexec, every host below it) is gone; msg is the one line about it. */
void fy_mpx_dn_lose(launch_t *L, host_t *h, const char *msg);
/* A frame is built in L->scratch, then sent to one host (through the proxies above it) or to
 * every host (mpiexec: each direct child, for its subtree). */
fy_px_buf_t *fy_mpx_dn_frame_begin(launch_t *L, int type, size_t *start);
void fy_mpx_dn_send_frame(launch_t *L, host_t *h);
void fy_mpx_dn_send_all(launch_t *L);
void fy_mpx_dn_send_signal(launch_t *L, int sig);
/* BROKEN for dest to h, or to every host (h NULL). */
void fy_mpx_dn_send_broken(launch_t *L, host_t *h, int dest);
/* A host below a relay is connected there (mpiexec). */
void fy_mpx_dn_host_up_below(launch_t *L, host_t *h);
void fy_mpx_dn_pend_drop(launch_t *L, int i, const char *why);
/* Closes every host's connection and agent, the pending handshakes and the listeners; frees
 * the scratch buffer and wipes the secret (mpiexec's end of a job, a relay's end). */
void fy_mpx_dn_close_all(launch_t *L);
/* The link hooks' work. */
int fy_mpx_dn_add(launch_t *L, struct pollfd *pfd);
void fy_mpx_dn_ready(launch_t *L, struct pollfd *pfd, int n);
long long fy_mpx_dn_tick(launch_t *L, long long now);
int fy_mpx_dn_busy(launch_t *L);
void fy_mpx_dn_reap(launch_t *L);

/* launch.c, for pxdown.c (mpiexec only) */
/* A frame of proxy h (sent by it, or relayed for it): 0, or -1 if malformed. */
int fy_mpx_launch_on_frame(launch_t *L, host_t *h, int type, fy_px_reader_t *r);
void fy_mpx_launch_send_job(launch_t *L, host_t *h);

#endif
