#include "fy_auth.h"

#include "fy_addr.h"
#include "fy_sha256.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

void fy_auth_tohex(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                          : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                                 : -1;
}

int fy_auth_unhex(const char *s, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int a = hexval(s[2 * i]), b = a < 0 ? -1 : hexval(s[2 * i + 1]);
        if (a < 0 || b < 0)
            return -1;
        out[i] = (uint8_t)(a << 4 | b);
    }
    return s[2 * n] == '\0' || s[2 * n] == '\n' ? 0 : -1;
}

long long fy_auth_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The MAC of a rank's answer: over the nonce and the rank, 4 bytes big-endian. */
static void answer_mac(const uint8_t key[32], const uint8_t nonce[32], int rank, uint8_t mac[32])
{
    uint8_t msg[36];
    memcpy(msg, nonce, 32);
    uint32_t r = htonl((uint32_t)rank);
    memcpy(msg + 32, &r, 4);
    fy_hmac_sha256(key, 32, msg, sizeof(msg), mac);
}

/* ---- Server ---- */

int fy_auth_hello(const char *proto, uint8_t nonce[32], char *line, size_t len)
{
    if (getrandom(nonce, 32, 0) != 32)
        return -1;
    char hex[65];
    fy_auth_tohex(nonce, 32, hex);
    int n = snprintf(line, len, "%s 1 %s\n", proto, hex);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int fy_auth_verify(const uint8_t key[32], const uint8_t nonce[32], const char *line,
                   int *rank_p, int *size_p, long *pid_p)
{
    int rank, size;
    long pid;
    char machex[72];
    if (sscanf(line, "AUTH %d %d %ld %70s", &rank, &size, &pid, machex) != 4 ||
        strlen(machex) != 64)
        return FY_AUTH_NOT_PROTO;
    uint8_t want[32], got[32];
    answer_mac(key, nonce, rank, want);
    if (fy_auth_unhex(machex, got, 32) != 0)
        return FY_AUTH_WRONG_KEY;
    if (!fy_ct_equal(want, got, 32))
        return FY_AUTH_WRONG_KEY;
    *rank_p = rank;
    *size_p = size;
    *pid_p = pid;
    return FY_AUTH_OK;
}

/* ---- Client ---- */

static int connect_one(const char *a, int port, long long until)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (fy_addr_parse(a, port, &ss, &sl) != 0)
        return -1;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&ss, sl) != 0) {
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int err = 0;
        socklen_t el = sizeof(err);
        long long left = until - fy_auth_now_ms();
        if (errno != EINPROGRESS || left <= 0 || poll(&p, 1, (int)left) != 1 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 || err != 0) {
            close(fd);
            return -1;
        }
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

int fy_auth_connect(const char *addr, long long until_ms)
{
    const char *colon = strrchr(addr, ':');
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (colon == NULL || *end != '\0' || port <= 0 || port > 65535)
        return -2;
    char *list = strndup(addr, (size_t)(colon - addr)), *save = NULL;
    int fd = -1;
    for (char *a = list ? strtok_r(list, ",", &save) : NULL; a != NULL && fd < 0;
         a = strtok_r(NULL, ",", &save))
        fd = connect_one(a, (int)port, until_ms);
    free(list);
    return fd;
}

/* Waits for fd to be ready for `events` before the deadline (< 0: none); 0 or -1. */
static int wait_for(int fd, short events, long long until)
{
    struct pollfd p = {.fd = fd, .events = events};
    long long left = until < 0 ? -1 : until - fy_auth_now_ms();
    if (until >= 0 && left <= 0)
        return -1;
    int n;
    while ((n = poll(&p, 1, (int)left)) < 0 && errno == EINTR && until < 0)
        ;
    return n == 1 ? 0 : -1;
}

/* Sends (out) or receives len bytes, a non-blocking socket waiting in poll() until the
 * deadline. */
static int move_all(int fd, char *buf, size_t len, long long until, int out)
{
    while (len > 0) {
        ssize_t n = out ? send(fd, buf, len, MSG_NOSIGNAL) : recv(fd, buf, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (wait_for(fd, out ? POLLOUT : POLLIN, until) != 0)
                return -1;
            continue;
        }
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

int fy_auth_send_all(int fd, const void *buf, size_t len, long long until_ms)
{
    return move_all(fd, (char *)buf, len, until_ms, 1);
}

int fy_auth_recv_all(int fd, void *buf, size_t len, long long until_ms)
{
    return move_all(fd, buf, len, until_ms, 0);
}

int fy_auth_read_line(int fd, char *buf, size_t cap, long long until_ms)
{
    size_t got = 0;
    while (got < cap - 1) {
        if (wait_for(fd, POLLIN, until_ms) != 0)
            return -1;
        ssize_t n = recv(fd, buf + got, 1, 0);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -1;
        if (buf[got++] == '\n') {
            buf[got - 1] = '\0';
            return 0;
        }
    }
    return -1;
}

int fy_auth_join(int fd, const char *proto, const char *keyhex, int rank, int size,
                 long long until_ms, char *reply, size_t rlen, char *why, size_t wlen)
{
    uint8_t key[32], nonce[32], mac[32];
    if (keyhex == NULL || strlen(keyhex) != 64 || fy_auth_unhex(keyhex, key, 32) != 0) {
        snprintf(why, wlen, "the key is not 64 hex digits");
        return FY_AUTH_FAIL_KEY;
    }
    char line[160];
    size_t plen = strlen(proto);
    if (fy_auth_read_line(fd, line, sizeof(line), until_ms) != 0 ||
        strncmp(line, proto, plen) != 0 ||
        strncmp(line + plen, " 1 ", 3) != 0 || fy_auth_unhex(line + plen + 3, nonce, 32) != 0) {
        snprintf(why, wlen, "no %s greeting", proto);
        return FY_AUTH_FAIL_GREETING;
    }
    answer_mac(key, nonce, rank, mac);
    explicit_bzero(key, sizeof(key));
    char machex[65];
    fy_auth_tohex(mac, 32, machex);
    int len = snprintf(line, sizeof(line), "AUTH %d %d %ld %s\n", rank, size, (long)getpid(),
                       machex);
    if (fy_auth_send_all(fd, line, (size_t)len, until_ms) != 0 ||
        fy_auth_read_line(fd, reply, rlen, until_ms) != 0) {
        snprintf(why, wlen, "no answer to our key");
        return FY_AUTH_FAIL_ANSWER;
    }
    return 0;
}

int fy_auth_dial(const char *addr, const char *addr_var, const char *proto, const char *keyhex,
                 int rank, int size, int ms, char *why, size_t wlen, int *fd_p)
{
    long long until = fy_auth_now_ms() + ms;
    int fd = fy_auth_connect(addr, until);
    if (fd == -2) {
        snprintf(why, wlen, "%s='%s' is not ADDRESS[,ADDRESS...]:PORT", addr_var, addr);
        return FY_AUTH_FAIL_ADDR;
    }
    if (fd < 0) {
        snprintf(why, wlen, "cannot connect to %s", addr);
        return FY_AUTH_FAIL_CONNECT;
    }
    char reply[64];
    int rc = fy_auth_join(fd, proto, keyhex, rank, size, until, reply, sizeof(reply), why, wlen);
    if (rc == 0 && strcmp(reply, "OK") != 0) {
        why[0] = '\0';
        rc = FY_AUTH_FAIL_NO;
    }
    if (rc != 0) {
        close(fd);
        return rc;
    }
    *fd_p = fd;
    return 0;
}
