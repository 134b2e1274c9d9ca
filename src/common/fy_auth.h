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
 * Both sides compile this file (the launcher, and the PMPI libraries: libc only). */
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

/* Connects to "ADDRESS[,ADDRESS...]:PORT" (numeric addresses, tried in order) before the
 * deadline; the socket (non-blocking, close-on-exec, TCP_NODELAY), or -1: -2 when addr is not
 * of that form. */
int fy_auth_connect(const char *addr, long long until_ms);

/* Reads the greeting of `proto`, answers it with keyhex (64 hex digits), rank, size and our pid,
 * and reads the server's answer line into reply (without its newline). 0, or -1 with why[]
 * saying what failed (not the protocol, no answer in time, a key that is not 64 hex digits). */
int fy_auth_join(int fd, const char *proto, const char *keyhex, int rank, int size,
                 long long until_ms, char *reply, size_t rlen, char *why, size_t wlen);

#endif
