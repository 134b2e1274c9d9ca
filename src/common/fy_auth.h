/* Proving that a process belongs to a job, for the small TCP servers mpiexec runs for its ranks
 * (--check's server, --monitor's): the job's key is 32 random bytes that mpiexec gives the ranks
 * in their environment (as 64 hex digits); it never crosses the wire.
 *
 * The handshake, one line each way:
 *   server -> client, on accept:  <PROTO> 1 <nonce: 64 hex digits>
 *   client -> server:             AUTH <rank> <size> <pid> <HMAC-SHA256(key, nonce || rank as
 *                                 4 bytes big-endian), 64 hex digits>
 *   server -> client:             OK, or a word of the protocol's own (NO ...), or it closes
 * The nonce is fresh for each connection, so a recorded AUTH line is worth nothing later, and
 * the rank is inside the MAC, so one rank's answer cannot be replayed as another's.
 *
 * Both sides compile this file (the launcher, and the PMPI libraries: libc only). The clients'
 * blocking I/O with a deadline is here too, so that each tool does not write its own. */
#ifndef FY_AUTH_H
#define FY_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define FY_AUTH_KEY_LEN 32

/* out[0..2n] = in as lower-case hex, NUL-terminated. */
void fy_auth_tohex(const uint8_t *in, size_t n, char *out);
/* out[0..n) from exactly 2n hex digits followed by NUL or a newline; 0, or -1. */
int fy_auth_unhex(const char *s, uint8_t *out, size_t n);

/* CLOCK_MONOTONIC in milliseconds: the deadlines below. */
long long fy_auth_now_ms(void);

/* ---- Server ---- */

/* A fresh nonce and the greeting line for it ("<proto> 1 <nonce>\n", at most 100 bytes with a
 * short proto); 0, or -1 when the system has no randomness to give. */
int fy_auth_hello(const char *proto, uint8_t nonce[32], char *line, size_t len);

enum { FY_AUTH_OK = 0, FY_AUTH_NOT_PROTO = -1, FY_AUTH_WRONG_KEY = -2 };
/* Checks a client's AUTH line against the key and the nonce sent to it: FY_AUTH_OK with
 * *rank_p, *size_p and *pid_p set, or why not. The comparison takes the same time however
 * much of the MAC is right. */
int fy_auth_verify(const uint8_t key[32], const uint8_t nonce[32], const char *line,
                   int *rank_p, int *size_p, long *pid_p);

/* ---- Client ---- */

/* Why a client is not in (fy_auth_join, fy_auth_dial). */
enum {
    FY_AUTH_FAIL_KEY = -1,      /* the key is not 64 hex digits */
    FY_AUTH_FAIL_GREETING = -2, /* no greeting of the protocol (not its server) */
    FY_AUTH_FAIL_ANSWER = -3,   /* no answer to our AUTH line (a wrong key: the server closes) */
    FY_AUTH_FAIL_ADDR = -4,     /* the address is not ADDRESS[,ADDRESS...]:PORT */
    FY_AUTH_FAIL_CONNECT = -5,  /* nothing to connect to there, or not in time */
    FY_AUTH_FAIL_NO = -6,       /* the server answered other than OK: it does not want us */
};

/* Connects to "ADDRESS[,ADDRESS...]:PORT" (numeric addresses, tried in order) before the
 * deadline; the socket (non-blocking, close-on-exec, TCP_NODELAY), or -1: -2 when addr is not
 * of that form. */
int fy_auth_connect(const char *addr, long long until_ms);

/* Reads the greeting of `proto`, answers it with keyhex (64 hex digits), rank, size and our pid,
 * and reads the server's answer line into reply (without its newline). 0, or FY_AUTH_FAIL_KEY,
 * _GREETING or _ANSWER with why[] saying so. */
int fy_auth_join(int fd, const char *proto, const char *keyhex, int rank, int size,
                 long long until_ms, char *reply, size_t rlen, char *why, size_t wlen);

/* The whole way in, within ms: fy_auth_connect to addr (the value of the environment variable
 * addr_var, named in messages), then fy_auth_join with keyhex. 0 with *fd_p set when the server
 * said OK; else a FY_AUTH_FAIL_* with why[] saying what failed (empty for FY_AUTH_FAIL_NO) and
 * no socket left open. */
int fy_auth_dial(const char *addr, const char *addr_var, const char *proto, const char *keyhex,
                 int rank, int size, int ms, char *why, size_t wlen, int *fd_p);

/* Blocking I/O on a socket before a deadline (until_ms < 0: none), for the tools' clients. */
/* All of buf[0..len) sent (no SIGPIPE); 0, or -1 (closed, an error, or the deadline). */
int fy_auth_send_all(int fd, const void *buf, size_t len, long long until_ms);
/* Exactly len bytes into buf; 0, or -1 (closed, an error, or the deadline). */
int fy_auth_recv_all(int fd, void *buf, size_t len, long long until_ms);
/* One line (a byte at a time, so that nothing after it is taken from the socket) into buf,
 * its newline replaced by NUL; 0, or -1 (closed, longer than cap - 1, or the deadline). */
int fy_auth_read_line(int fd, char *buf, size_t cap, long long until_ms);

#endif
