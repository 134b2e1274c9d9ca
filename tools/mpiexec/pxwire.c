/* The secret, the handshake proofs and the frames between mpiexec and its proxies (pxwire.h). */
#include "pxwire.h"

#include "fy_auth.h"
#include "fy_sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

void fy_px_buf_free(fy_px_buf_t *b)
{
    free(b->d);
    *b = (fy_px_buf_t){0};
}

int fy_px_put(fy_px_buf_t *b, const void *p, size_t n)
{
    if (b->off > 0 && b->off == b->len)
        b->off = b->len = 0;
    if (b->len + n > b->cap) {
        /* Never moves bytes down: a frame being built keeps its start (fy_px_frame_begin);
         * fy_px_conn_flush does that. */
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        if (cap > b->cap) {
            uint8_t *d = realloc(b->d, cap);
            if (d == NULL)
                return -1;
            b->d = d;
            b->cap = cap;
        }
    }
    if (n > 0)
        memcpy(b->d + b->len, p, n);
    b->len += n;
    return 0;
}

int fy_px_put_u32(fy_px_buf_t *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    return fy_px_put(b, x, 4);
}

int fy_px_put_bytes(fy_px_buf_t *b, const void *p, size_t n)
{
    if (fy_px_put_u32(b, (uint32_t)n) != 0)
        return -1;
    return fy_px_put(b, p, n);
}

int fy_px_put_str(fy_px_buf_t *b, const char *s)
{
    return fy_px_put_bytes(b, s, s ? strlen(s) : 0);
}

size_t fy_px_frame_begin(fy_px_buf_t *b, int type)
{
    size_t start = b->len;
    uint8_t t = (uint8_t)type;
    fy_px_put_u32(b, 0);
    fy_px_put(b, &t, 1);
    return start;
}

void fy_px_frame_end(fy_px_buf_t *b, size_t start)
{
    if (start + 5 > b->len) /* out of memory on the way: the buffer is not to be trusted */
        return;
    uint32_t n = (uint32_t)(b->len - start - 4);
    b->d[start] = (uint8_t)(n >> 24);
    b->d[start + 1] = (uint8_t)(n >> 16);
    b->d[start + 2] = (uint8_t)(n >> 8);
    b->d[start + 3] = (uint8_t)n;
}

uint32_t fy_px_get_u32(fy_px_reader_t *r)
{
    if (r->bad || r->left < 4) {
        r->bad = 1;
        return 0;
    }
    uint32_t v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 |
                 r->p[3];
    r->p += 4;
    r->left -= 4;
    return v;
}

const void *fy_px_get_bytes(fy_px_reader_t *r, size_t *n)
{
    uint32_t len = fy_px_get_u32(r);
    if (r->bad || r->left < len) {
        r->bad = 1;
        *n = 0;
        return NULL;
    }
    const void *p = r->p;
    r->p += len;
    r->left -= len;
    *n = len;
    return p;
}

char *fy_px_get_str(fy_px_reader_t *r)
{
    size_t n;
    const char *p = fy_px_get_bytes(r, &n);
    if (p == NULL)
        return NULL;
    if (memchr(p, '\0', n) != NULL) {
        r->bad = 1;
        return NULL;
    }
    char *s = malloc(n + 1);
    if (s == NULL) {
        r->bad = 1;
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

ssize_t fy_px_conn_fill(fy_px_conn_t *c)
{
    fy_px_buf_t *b = &c->in;
    if (b->off > 0 && b->off == b->len)
        b->off = b->len = 0;
    if (b->cap - b->len < 65536) {
        /* Room for a read, growing as a long frame comes in. */
        if (b->off > 0) {
            memmove(b->d, b->d + b->off, b->len - b->off);
            b->len -= b->off;
            b->off = 0;
        }
        if (b->cap - b->len < 65536) {
            size_t cap = b->cap ? b->cap * 2 : 131072;
            uint8_t *d = realloc(b->d, cap);
            if (d == NULL)
                return -1;
            b->d = d;
            b->cap = cap;
        }
    }
    ssize_t n;
    do
        n = recv(c->fd, b->d + b->len, b->cap - b->len, MSG_DONTWAIT);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK ? -2 : -1;
    b->len += (size_t)n;
    return n;
}

int fy_px_conn_flush(fy_px_conn_t *c)
{
    fy_px_buf_t *b = &c->out;
    while (b->off < b->len) {
        ssize_t n = send(c->fd, b->d + b->off, b->len - b->off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return -1;
            break;
        }
        b->off += (size_t)n;
    }
    if (b->off == b->len) {
        b->off = b->len = 0;
    } else if (b->off > 0) { /* never inside a frame being built: only whole frames wait */
        memmove(b->d, b->d + b->off, b->len - b->off);
        b->len -= b->off;
        b->off = 0;
    }
    return 0;
}

int fy_px_conn_next(fy_px_conn_t *c, int *type, fy_px_reader_t *r)
{
    fy_px_buf_t *b = &c->in;
    size_t have = b->len - b->off;
    if (have < 5)
        return 0;
    const uint8_t *p = b->d + b->off;
    uint32_t n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    if (n < 1 || n > FY_PX_MAX_FRAME)
        return -1;
    if (have < 4 + (size_t)n)
        return 0;
    *type = p[4];
    *r = (fy_px_reader_t){p + 5, n - 1, 0};
    b->off += 4 + (size_t)n;
    return 1;
}

int fy_px_conn_take(fy_px_conn_t *c, void *out, size_t n)
{
    fy_px_buf_t *b = &c->in;
    if (b->len - b->off < n)
        return 0;
    memcpy(out, b->d + b->off, n);
    b->off += n;
    return 1;
}

int fy_px_secret_new(uint8_t secret[FY_PX_SECRET_LEN])
{
    size_t got = 0;
    while (got < FY_PX_SECRET_LEN) {
        ssize_t n = getrandom(secret + got, FY_PX_SECRET_LEN - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

/* The hex spelling is fy_auth's (src/common), shared with the tools' job keys. */
void fy_px_secret_hex(const uint8_t secret[FY_PX_SECRET_LEN], char out[2 * FY_PX_SECRET_LEN + 1])
{
    fy_auth_tohex(secret, FY_PX_SECRET_LEN, out);
}

int fy_px_secret_parse(const char *hex, uint8_t secret[FY_PX_SECRET_LEN])
{
    /* Exactly the secret's digits: fy_auth_unhex also takes a line's newline, this does not. */
    if (strlen(hex) != 2 * FY_PX_SECRET_LEN)
        return -1;
    return fy_auth_unhex(hex, secret, FY_PX_SECRET_LEN);
}

int fy_px_secret_memfd(const uint8_t secret[FY_PX_SECRET_LEN])
{
    char hex[2 * FY_PX_SECRET_LEN + 1];
    fy_px_secret_hex(secret, hex);
    int fd = memfd_create("fy-secret", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    if (write(fd, hex, 2 * FY_PX_SECRET_LEN) != 2 * FY_PX_SECRET_LEN) {
        close(fd);
        errno = EIO;
        return -1;
    }
    explicit_bzero(hex, sizeof(hex));
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    /* The ranks get a read-only descriptor of the same file. */
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    int ro = open(path, O_RDONLY | O_CLOEXEC);
    int e = errno;
    close(fd);
    errno = e;
    return ro;
}

static void proof(const uint8_t secret[FY_PX_SECRET_LEN], const uint8_t *nonce,
                  const char *who, uint32_t index, uint8_t out[32])
{
    uint8_t msg[FY_PX_NONCE_LEN + 16] = {0};
    memcpy(msg, nonce, FY_PX_NONCE_LEN);
    memcpy(msg + FY_PX_NONCE_LEN, who, strlen(who)); /* "proxy" or "mpiexec" */
    msg[FY_PX_NONCE_LEN + 8] = (uint8_t)(index >> 24);
    msg[FY_PX_NONCE_LEN + 9] = (uint8_t)(index >> 16);
    msg[FY_PX_NONCE_LEN + 10] = (uint8_t)(index >> 8);
    msg[FY_PX_NONCE_LEN + 11] = (uint8_t)index;
    fy_hmac_sha256(secret, FY_PX_SECRET_LEN, msg, FY_PX_NONCE_LEN + 12, out);
}

void fy_px_proof_proxy(const uint8_t secret[FY_PX_SECRET_LEN], const uint8_t *nonce,
                       uint32_t index, uint8_t out[32])
{
    proof(secret, nonce, "proxy", index, out);
}

void fy_px_proof_mpiexec(const uint8_t secret[FY_PX_SECRET_LEN], const uint8_t *nonce,
                         uint8_t out[32])
{
    proof(secret, nonce, "mpiexec", 0, out);
}
