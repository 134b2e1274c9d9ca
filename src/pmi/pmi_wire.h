/* The PMI-1 text wire protocol, shared by the library's client and the launcher's server.
 *
 * A message is one line: space-separated `key=value` tokens, the first being `cmd=<name>`, ended
 * by '\n'. PMI-1 has no quoting, so values cannot hold spaces; the one exception is the free-text
 * `error_msg` of `cmd=abort`, which by convention runs to the end of the line. Multi-line spawn
 * requests (`mcmd=spawn` ... `endcmd`) are assembled by the server, not here.
 */
#ifndef FY_PMI_WIRE_H
#define FY_PMI_WIRE_H

#include <stddef.h>
#include <sys/types.h>

/* Longest line either side accepts; generous against MPICH's 1024-byte values. */
#define FY_PMI_WIRE_MAX_LINE 16384
#define FY_PMI_WIRE_MAX_PAIRS 64

typedef struct fy_pmi_pair {
    const char *key;
    const char *val;
} fy_pmi_pair_t;

/* Points into the line it was parsed from; valid while that line is. */
typedef struct fy_pmi_msg {
    int n;
    fy_pmi_pair_t pair[FY_PMI_WIRE_MAX_PAIRS];
} fy_pmi_msg_t;

/* Splits `line` (no trailing newline; modified in place) into pairs. A token without '=' is a
 * key with an empty value. Returns 0, or -1 if there are more than FY_PMI_WIRE_MAX_PAIRS. */
int fy_pmi_wire_parse(char *line, fy_pmi_msg_t *msg);
/* The value of `key` (first occurrence), or NULL. */
const char *fy_pmi_wire_get(const fy_pmi_msg_t *msg, const char *key);
/* Parses the value of `key` as a decimal int; 0 on success, -1 if absent or malformed. */
int fy_pmi_wire_get_int(const fy_pmi_msg_t *msg, const char *key, int *val_p);
/* True if `s` may be sent as a key or value: non-empty, printable ASCII, no space, no '='. */
int fy_pmi_wire_token_ok(const char *s);

/* Writes all of buf, retrying on EINTR and short writes, without raising SIGPIPE.
 * Returns 0 or -1 (errno set). */
int fy_pmi_wire_write(int fd, const char *buf, size_t len);

/* Bytes read from a stream and not yet consumed as lines. */
typedef struct fy_pmi_linebuf {
    char *data;
    size_t start; /* first unconsumed byte */
    size_t len;   /* end of valid bytes */
    size_t cap;
} fy_pmi_linebuf_t;

void fy_pmi_linebuf_init(fy_pmi_linebuf_t *lb);
void fy_pmi_linebuf_fini(fy_pmi_linebuf_t *lb);
/* One read() (recv with MSG_DONTWAIT when `nonblock`). Returns bytes read, 0 at end of stream,
 * -1 on error (errno set; EAGAIN when nothing is ready) or if a line exceeds the maximum
 * (errno EMSGSIZE). */
ssize_t fy_pmi_linebuf_fill(fy_pmi_linebuf_t *lb, int fd, int nonblock);
/* The next complete line, NUL-terminated without its '\n' (and without a '\r'), or NULL.
 * Valid until the next fill. */
char *fy_pmi_linebuf_next(fy_pmi_linebuf_t *lb);

#endif
