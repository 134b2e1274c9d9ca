/* The small TCP servers mpiexec runs for its ranks' tool threads: --check's deadlock judge
 * (check_server.c) and --monitor's live view (monitor.c). One copy of what they share (toolsrv.c):
 * listening (127.0.0.1 on one host, else the proxies' network) with a fresh key, both given to
 * the ranks in their environment; the connections that have not yet proved they belong to the job
 * (src/common/fy_auth.h's handshake: the key never crosses the wire), each with a deadline; then
 * one connection per rank, read and written as lines. What a rank's lines mean is the server's:
 * the callbacks of its conf. Called from the poll loop only. */
#ifndef FY_MPX_TOOLSRV_H
#define FY_MPX_TOOLSRV_H

#include "mpiexec.h"

#include "fy_auth.h"

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

/* A non-blocking connection with a buffer each way. */
typedef struct fy_mpx_conn {
    int fd; /* -1: closed */
    char *in;
    size_t inoff, inlen, incap; /* in[inoff..inlen): received, not yet taken as lines */
    char *out;
    size_t outlen, outcap;
} fy_mpx_conn_t;

#define FY_MPX_CONN_CLOSED (-1) /* the peer closed, or an error (fy_mpx_conn_read) */
#define FY_MPX_CONN_LONG (-2)   /* a line longer than allowed */

/* Queues len bytes (beyond max_queued waiting, or out of memory: nothing queued) and writes what
 * the socket takes now. 0, or -1: not queued, or the connection failed (the caller decides). */
int fy_mpx_conn_say(fy_mpx_conn_t *c, const void *buf, size_t len, size_t max_queued);
/* Writes what is queued as far as the socket takes it; 0, or -1 (the connection failed). */
int fy_mpx_conn_flush(fy_mpx_conn_t *c);
/* Reads what has arrived and hands each whole line to fn (its newline replaced by NUL); a
 * non-zero return of fn ends the reading there and is returned: fn may then have closed or
 * moved c (it is not touched again). Else 0 once all is read, or FY_MPX_CONN_CLOSED, or
 * FY_MPX_CONN_LONG when max bytes wait without a newline. */
int fy_mpx_conn_read(fy_mpx_conn_t *c, size_t max, int (*fn)(void *ctx, char *line), void *ctx);
void fy_mpx_conn_close(fy_mpx_conn_t *c);

typedef struct fy_mpx_toolsrv_conf {
    const char *option;    /* "--check": in mpiexec's messages while setting up */
    const char *name;      /* "ferry check": in the messages while the job runs */
    const char *proto;     /* the greeting's word (fy_auth_hello): "FERRY-CHECK" */
    const char *not_proto; /* why a connection is refused whose line is not our AUTH */
    const char *addr_var;  /* the ranks' variables: where we listen, and the key in hex */
    const char *key_var;
    int pend_max;          /* connections authenticating at once; more wait in the backlog */
    size_t line_max;       /* a rank's longest line: a longer one drops its connection */
    /* An authenticated rank of the job's size, not connected already: 0 lets it in (OK), -1
     * tells it NO (another world of the job: it goes unwatched, quietly). */
    int (*admit)(int rank);
    /* It is in (OK queued); the lines it sent after AUTH come next. */
    void (*joined)(int rank);
    /* One of its lines; non-zero closes its connection (then gone() is called). */
    int (*line)(int rank, char *line);
    /* Its connection closed: by it, an error, a line too long, or line()'s wish. */
    void (*gone)(int rank);
    /* accept() failed for another reason than an empty backlog (err: errno); NULL: the rest
     * wait in the backlog. */
    void (*accept_failed)(int err);
} fy_mpx_toolsrv_conf_t;

typedef struct fy_mpx_pend fy_mpx_pend_t;

typedef struct fy_mpx_toolsrv {
    const fy_mpx_toolsrv_conf_t *conf;
    fy_mpx_listen_t ls;
    uint8_t key[FY_AUTH_KEY_LEN];
    int np;
    fy_mpx_conn_t *rank; /* per rank; fd -1: not connected */
    fy_mpx_pend_t *pend; /* conf->pend_max */
    int refused;         /* connections refused so far (each logged up to a few) */
    int *slot;           /* what the entries of the last fy_mpx_toolsrv_add stand for */
    int nadded;
} fy_mpx_toolsrv_t;

/* Listens for the ranks (remote: they run on other hosts; iface, all_here and first_remote
 * choose the address, as for the proxies), makes the key, adds conf->addr_var and key_var to
 * o->env, and makes the tables for o->np ranks. 0, or -1 with the message printed. */
int fy_mpx_toolsrv_open(fy_mpx_toolsrv_t *srv, const fy_mpx_toolsrv_conf_t *conf,
                        fy_mpx_opts_t *o, int remote, const char *iface, int all_here,
                        const char *first_remote);
/* No more connections (those waiting in the backlog are refused by the system). */
void fy_mpx_toolsrv_stop_listening(fy_mpx_toolsrv_t *srv);
/* Closes everything and forgets the key. */
void fy_mpx_toolsrv_close(fy_mpx_toolsrv_t *srv);

/* The most poll entries fy_mpx_toolsrv_add fills. */
int fy_mpx_toolsrv_slots(const fy_mpx_toolsrv_t *srv);
/* Its descriptors for the next poll, from pfd[0]; how many. */
int fy_mpx_toolsrv_add(fy_mpx_toolsrv_t *srv, struct pollfd *pfd);
/* After poll: serves the entries the last add filled; returns how many they were. */
int fy_mpx_toolsrv_ready(fy_mpx_toolsrv_t *srv, const struct pollfd *pfd);
/* Refuses the connections past their handshake's deadline; the next deadline, or -1. */
long long fy_mpx_toolsrv_tick(fy_mpx_toolsrv_t *srv, long long now);

/* Queues a line for a rank (nothing when it is not connected) and writes what it can. */
void fy_mpx_toolsrv_say(fy_mpx_toolsrv_t *srv, int rank, const char *line);
/* Reads what a rank has sent (as after poll), if it is connected. */
void fy_mpx_toolsrv_read(fy_mpx_toolsrv_t *srv, int rank);
/* Closes a rank's connection without a word to its server (gone() is not called). */
void fy_mpx_toolsrv_hangup(fy_mpx_toolsrv_t *srv, int rank);

#endif
