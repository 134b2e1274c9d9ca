/* What mpiexec and its proxies (tools/proxy) share: the job's secret, the handshake that proves
 * a connection knows it, and the framed messages that follow (docs/DESIGN.md, "Launching across
 * hosts"). Compiled into both programs.
 *
 * After the handshake every message is a frame: a 4-byte big-endian length (of what follows),
 * a 1-byte type, then the payload: unsigned 32-bit big-endian numbers and strings (a number of
 * bytes, then the bytes). */
#ifndef FY_PXWIRE_H
#define FY_PXWIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define FY_PX_SECRET_LEN 32
#define FY_PX_NONCE_LEN 32
#define FY_PX_MAGIC "FERRYPX1" /* 8 bytes, first on the wire both ways */
#define FY_PX_MAGIC_LEN 8
/* mpiexec -> proxy: magic, nonce. proxy -> mpiexec: magic, index (u32), HMAC, its nonce.
 * mpiexec -> proxy: HMAC of the proxy's nonce. */
#define FY_PX_HELLO_LEN (FY_PX_MAGIC_LEN + FY_PX_NONCE_LEN)
#define FY_PX_PROOF_LEN (FY_PX_MAGIC_LEN + 4 + 32 + FY_PX_NONCE_LEN)
#define FY_PX_ANSWER_LEN 32
/* Largest frame either side accepts (a job description, a fence's puts). */
#define FY_PX_MAX_FRAME (256u << 20)

enum fy_px_type {
    /* mpiexec -> proxy */
    FY_PX_JOB = 1, /* the host's part of the job */
    FY_PX_KVS,     /* a fence is over: every host's puts of it */
    FY_PX_STDIN,   /* bytes for rank 0; none: end of input */
    FY_PX_SIGNAL,  /* u32 signal for every rank (the first one ends the job) */
    FY_PX_PING,    /* keepalive, answered by PONG */
    FY_PX_BROKEN,  /* u32 fd (1, 2): our output there has no reader; close the ranks' pipes */
    FY_PX_RELAY_DOWN, /* u32 proxy index (or FY_PX_ALL), a whole frame for it (the tree) */
    /* proxy -> mpiexec */
    FY_PX_OUT = 16, /* u32 rank, u32 fd (1, 2), bytes */
    FY_PX_FENCE,    /* all ranks of the host entered a PMI barrier: the puts since the last */
    FY_PX_FAIL,     /* u32 exit code, u32 has message, string message */
    FY_PX_DONE,     /* every rank of the host is gone and its output sent */
    FY_PX_PONG,
    FY_PX_STDIN_ACK, /* u32 bytes of stdin written to rank 0 (flow control) */
    FY_PX_RELAY_UP,  /* u32 proxy index, a whole frame from it (the tree) */
    FY_PX_UP,        /* (in RELAY_UP) a child proxy is connected: send it its JOB */
    FY_PX_LOST,      /* (in RELAY_UP) a child proxy is lost: string, the one line about it */
};

/* RELAY_DOWN to every proxy of a subtree. */
#define FY_PX_ALL 0xffffffffu

/* A growable byte buffer; bytes [off, len) are pending. */
typedef struct fy_px_buf {
    uint8_t *d;
    size_t off, len, cap;
} fy_px_buf_t;

void fy_px_buf_free(fy_px_buf_t *b);
/* Each returns 0, or -1 when out of memory (the buffer is then unchanged). */
int fy_px_put(fy_px_buf_t *b, const void *p, size_t n);
int fy_px_put_u32(fy_px_buf_t *b, uint32_t v);
int fy_px_put_str(fy_px_buf_t *b, const char *s);
int fy_px_put_bytes(fy_px_buf_t *b, const void *p, size_t n);
/* A frame of `type`: begin returns where it starts, end fills in its length. */
size_t fy_px_frame_begin(fy_px_buf_t *b, int type);
void fy_px_frame_end(fy_px_buf_t *b, size_t start);

/* Reading a frame's payload; a read past its end sets bad and returns 0 or NULL. */
typedef struct fy_px_reader {
    const uint8_t *p;
    size_t left;
    int bad;
} fy_px_reader_t;
uint32_t fy_px_get_u32(fy_px_reader_t *r);
/* Points into the frame; *n its length. */
const void *fy_px_get_bytes(fy_px_reader_t *r, size_t *n);
/* A NUL-terminated copy (malloc), or NULL. */
char *fy_px_get_str(fy_px_reader_t *r);

/* A non-blocking stream connection with input and output buffers. */
typedef struct fy_px_conn {
    int fd;
    fy_px_buf_t in, out;
} fy_px_conn_t;
/* Reads what is there: >0 bytes read, 0 at end of stream, -1 on error, -2 nothing yet. */
ssize_t fy_px_conn_fill(fy_px_conn_t *c);
/* Writes what it can: 0, or -1 when the connection is broken. */
int fy_px_conn_flush(fy_px_conn_t *c);
/* The next complete frame: 1 (type and payload set; valid until the next fill), 0 when none is
 * complete, -1 for a frame too long. */
int fy_px_conn_next(fy_px_conn_t *c, int *type, fy_px_reader_t *r);
/* Takes n raw bytes (the handshake) when that many are in: 1, else 0. */
int fy_px_conn_take(fy_px_conn_t *c, void *out, size_t n);

/* 0 with secret filled from getrandom, or -1 (errno). */
int fy_px_secret_new(uint8_t secret[FY_PX_SECRET_LEN]);
/* out: 64 lowercase hex digits and a NUL. */
void fy_px_secret_hex(const uint8_t secret[FY_PX_SECRET_LEN], char out[2 * FY_PX_SECRET_LEN + 1]);
/* 0, or -1 if hex is not 64 hex digits. */
int fy_px_secret_parse(const char *hex, uint8_t secret[FY_PX_SECRET_LEN]);
/* A sealed memfd holding the secret in hex, opened read-only and close-on-exec (spawn.c lets
 * the ranks inherit it); the descriptor or -1 (errno). */
int fy_px_secret_memfd(const uint8_t secret[FY_PX_SECRET_LEN]);
/* The proofs of the handshake: HMAC-SHA-256 keyed with the secret over the nonce and who is
 * proving (the proxy's index, or mpiexec). */
void fy_px_proof_proxy(const uint8_t secret[FY_PX_SECRET_LEN], const uint8_t *nonce,
                       uint32_t index, uint8_t out[32]);
void fy_px_proof_mpiexec(const uint8_t secret[FY_PX_SECRET_LEN], const uint8_t *nonce,
                         uint8_t out[32]);

#endif
