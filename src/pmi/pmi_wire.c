#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int fy_pmi_wire_parse(char *line, fy_pmi_msg_t *msg)
{
    char *p = line;

    msg->n = 0;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            return 0;
        if (msg->n == FY_PMI_WIRE_MAX_PAIRS)
            return -1;
        fy_pmi_pair_t *pr = &msg->pair[msg->n++];
        pr->key = p;
        char *end = p + strcspn(p, " \t=");
        if (*end != '=') {
            /* A bare word: some clients send flags this way; treat it as key with no value. */
            pr->val = "";
            if (*end == '\0')
                return 0;
            *end = '\0';
            p = end + 1;
            continue;
        }
        *end = '\0';
        pr->val = end + 1;
        if (strcmp(pr->key, "error_msg") == 0)
            return 0; /* free text to the end of the line (see pmi_wire.h) */
        p = end + 1 + strcspn(end + 1, " \t");
        if (*p == '\0')
            return 0;
        *p++ = '\0';
    }
}

const char *fy_pmi_wire_get(const fy_pmi_msg_t *msg, const char *key)
{
    for (int i = 0; i < msg->n; i++) {
        if (strcmp(msg->pair[i].key, key) == 0)
            return msg->pair[i].val;
    }
    return NULL;
}

int fy_pmi_wire_get_int(const fy_pmi_msg_t *msg, const char *key, int *val_p)
{
    const char *s = fy_pmi_wire_get(msg, key);
    if (s == NULL || *s == '\0')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || errno != 0 || v < INT_MIN || v > INT_MAX)
        return -1;
    *val_p = (int)v;
    return 0;
}

int fy_pmi_wire_token_ok(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s != '\0'; s++) {
        if (*s <= ' ' || *s > '~' || *s == '=')
            return 0;
    }
    return 1;
}

int fy_pmi_wire_write(int fd, const char *buf, size_t len)
{
    int use_send = 1;

    while (len > 0) {
        ssize_t n;
        if (use_send) {
            n = send(fd, buf, len, MSG_NOSIGNAL);
            if (n < 0 && errno == ENOTSOCK) {
                use_send = 0; /* a pipe given as PMI_FD by some launcher */
                continue;
            }
        } else {
            n = write(fd, buf, len);
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

void fy_pmi_linebuf_init(fy_pmi_linebuf_t *lb)
{
    lb->data = NULL;
    lb->start = lb->len = lb->cap = 0;
}

void fy_pmi_linebuf_fini(fy_pmi_linebuf_t *lb)
{
    free(lb->data);
    fy_pmi_linebuf_init(lb);
}

ssize_t fy_pmi_linebuf_fill(fy_pmi_linebuf_t *lb, int fd, int nonblock)
{
    if (lb->start > 0) {
        memmove(lb->data, lb->data + lb->start, lb->len - lb->start);
        lb->len -= lb->start;
        lb->start = 0;
    }
    if (lb->len >= FY_PMI_WIRE_MAX_LINE) {
        errno = EMSGSIZE;
        return -1;
    }
    if (lb->cap == 0) {
        /* +1 so a full line always has room for the terminating NUL. */
        lb->data = malloc(FY_PMI_WIRE_MAX_LINE + 1);
        if (lb->data == NULL)
            return -1;
        lb->cap = FY_PMI_WIRE_MAX_LINE;
    }
    for (;;) {
        ssize_t n;
        if (nonblock) {
            n = recv(fd, lb->data + lb->len, lb->cap - lb->len, MSG_DONTWAIT);
            if (n < 0 && errno == ENOTSOCK)
                n = read(fd, lb->data + lb->len, lb->cap - lb->len);
        } else {
            n = read(fd, lb->data + lb->len, lb->cap - lb->len);
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            lb->len += (size_t)n;
        return n;
    }
}

char *fy_pmi_linebuf_next(fy_pmi_linebuf_t *lb)
{
    if (lb->start >= lb->len)
        return NULL;
    char *line = lb->data + lb->start;
    char *nl = memchr(line, '\n', lb->len - lb->start);
    if (nl == NULL)
        return NULL;
    *nl = '\0';
    lb->start = (size_t)(nl - lb->data) + 1;
    if (nl > line && nl[-1] == '\r')
        nl[-1] = '\0';
    return line;
}
