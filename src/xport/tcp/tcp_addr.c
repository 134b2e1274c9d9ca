/* Where a rank's TCP listener lives: the address chosen from FERRY_TCP_IF (an interface name or
 * a CIDR), else the address the launcher reached this host on (FY_TCP_ADDR, set by Ferry's
 * proxy), else the address this host's name resolves to, else loopback. The listener binds to
 * that address only, never to the wildcard, so a job listens on the network it was told to. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fy_err.h"
#include "fy_knobs.h"
#include "fy_runtime.h"
#include "tcp.h"

static socklen_t addr_len(const struct sockaddr_storage *a)
{
    return a->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

int fy_tcp_addr_text(const struct sockaddr_storage *a, char *buf, size_t len)
{
    const void *p = a->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
                                             : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
    return inet_ntop(a->ss_family, p, buf, (socklen_t)len) ? 0 : -1;
}

static int parse_ip(const char *s, struct sockaddr_storage *a)
{
    memset(a, 0, sizeof *a);
    struct sockaddr_in *v4 = (struct sockaddr_in *)a;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)a;
    if (inet_pton(AF_INET, s, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        return 0;
    }
    if (inet_pton(AF_INET6, s, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        return 0;
    }
    return -1;
}

/* Whether a lies in the network net/bits. */
static int in_cidr(const struct sockaddr *a, const struct sockaddr_storage *net, int bits)
{
    if (a->sa_family != net->ss_family)
        return 0;
    const unsigned char *x, *y;
    int total;
    if (a->sa_family == AF_INET) {
        x = (const unsigned char *)&((const struct sockaddr_in *)a)->sin_addr;
        y = (const unsigned char *)&((const struct sockaddr_in *)net)->sin_addr;
        total = 32;
    } else {
        x = (const unsigned char *)&((const struct sockaddr_in6 *)a)->sin6_addr;
        y = (const unsigned char *)&((const struct sockaddr_in6 *)net)->sin6_addr;
        total = 128;
    }
    if (bits < 0 || bits > total)
        return 0;
    for (int i = 0; i < bits; i++)
        if (((x[i / 8] ^ y[i / 8]) >> (7 - i % 8)) & 1)
            return 0;
    return 1;
}

/* FERRY_TCP_IF: the first usable address of the named interface (IPv4 first), or of any
 * interface inside the CIDR. */
static int from_knob(const char *want, struct sockaddr_storage *out)
{
    const char *fn = "MPI_Init";
    struct sockaddr_storage net;
    int bits = -1;
    char ip[INET6_ADDRSTRLEN + 8];
    const char *slash = strchr(want, '/');
    if (slash && (size_t)(slash - want) < sizeof ip) {
        memcpy(ip, want, (size_t)(slash - want));
        ip[slash - want] = '\0';
        char *end;
        long b = strtol(slash + 1, &end, 10);
        if (*end || parse_ip(ip, &net) != 0 || b < 0 || b > 128)
            return fy_err_set(MPI_ERR_OTHER, "%s: FERRY_TCP_IF='%s' is not an interface name or a CIDR "
                              "(like 10.0.0.0/8)", fn, want);
        bits = (int)b;
    }
    struct ifaddrs *all;
    if (getifaddrs(&all) != 0)
        return fy_err_set(MPI_ERR_OTHER, "%s: cannot list network interfaces: %s", fn, strerror(errno));
    int found = 0;
    for (int pass = 0; pass < 2 && !found; pass++) { /* IPv4 first, then IPv6 */
        int fam = pass == 0 ? AF_INET : AF_INET6;
        for (struct ifaddrs *i = all; i && !found; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != fam || !(i->ifa_flags & IFF_UP))
                continue;
            if (fam == AF_INET6 &&
                IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
                continue; /* needs a scope id the peers cannot know */
            if (bits >= 0 ? in_cidr(i->ifa_addr, &net, bits) : strcmp(i->ifa_name, want) == 0) {
                memset(out, 0, sizeof *out);
                memcpy(out, i->ifa_addr, fam == AF_INET ? sizeof(struct sockaddr_in)
                                                        : sizeof(struct sockaddr_in6));
                found = 1;
            }
        }
    }
    freeifaddrs(all);
    if (!found)
        return fy_err_set(MPI_ERR_OTHER,
                          bits >= 0 ? "%s: FERRY_TCP_IF='%s': no interface of this host has an "
                                      "address in that network"
                                    : "%s: FERRY_TCP_IF='%s': this host has no such interface "
                                      "with an address (see `ip addr`)",
                          fn, want);
    return MPI_SUCCESS;
}

/* The address this host's name resolves to, if it is not loopback. */
static int from_hostname(struct sockaddr_storage *out)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(fy_rt.hostname, NULL, &hints, &res) != 0)
        return -1;
    int ok = -1;
    for (struct addrinfo *r = res; r && ok != 0; r = r->ai_next) {
        if (r->ai_family == AF_INET &&
            (ntohl(((struct sockaddr_in *)r->ai_addr)->sin_addr.s_addr) >> 24) != 127) {
            memset(out, 0, sizeof *out);
            memcpy(out, r->ai_addr, sizeof(struct sockaddr_in));
            ok = 0;
        }
    }
    freeaddrinfo(res);
    return ok;
}

int fy_tcp_choose_addr(struct sockaddr_storage *out, bool one_host)
{
    const char *want = fy_knob_text(FY_KNOB_TCP_IF);
    if (want && *want)
        return from_knob(want, out);
    const char *given = getenv("FY_TCP_ADDR");
    if (given && *given && parse_ip(given, out) == 0)
        return MPI_SUCCESS;
    /* All ranks on one host (FERRY_NETMOD=tcp): loopback is the network. */
    if (!one_host && from_hostname(out) == 0)
        return MPI_SUCCESS;
    parse_ip("127.0.0.1", out);
    return MPI_SUCCESS;
}

int fy_tcp_listen(struct sockaddr_storage *addr, int *port_p)
{
    const char *fn = "MPI_Init";
    *port_p = -1;
    char text[INET6_ADDRSTRLEN];
    fy_tcp_addr_text(addr, text, sizeof text);
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fy_err_set(MPI_ERR_OTHER, "%s: cannot make a TCP socket: %s", fn, strerror(errno));
        return -1;
    }
    /* Port 0: the kernel picks a free one, so two jobs (or two ranks) never collide. */
    if (addr->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)addr)->sin6_port = 0;
    else
        ((struct sockaddr_in *)addr)->sin_port = 0;
    socklen_t len = addr_len(addr);
    if (bind(fd, (struct sockaddr *)addr, len) != 0 || listen(fd, 1024) != 0 ||
        getsockname(fd, (struct sockaddr *)addr, &len) != 0) {
        int e = errno;
        close(fd);
        fy_err_set(MPI_ERR_OTHER, "%s: cannot listen for TCP connections on %s: %s", fn, text,
                   strerror(e));
        return -1;
    }
    *port_p = ntohs(addr->ss_family == AF_INET6 ? ((struct sockaddr_in6 *)addr)->sin6_port
                                                : ((struct sockaddr_in *)addr)->sin_port);
    return fd;
}

int fy_tcp_card_parse(const char *card, struct sockaddr_storage *a)
{
    /* "address,port": IPv6 addresses hold ':' but never ','. */
    const char *comma = strrchr(card, ',');
    char ip[INET6_ADDRSTRLEN];
    if (!comma || (size_t)(comma - card) >= sizeof ip)
        return -1;
    memcpy(ip, card, (size_t)(comma - card));
    ip[comma - card] = '\0';
    long port = strtol(comma + 1, NULL, 10);
    if (parse_ip(ip, a) != 0 || port <= 0 || port > 65535)
        return -1;
    if (a->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)a)->sin6_port = htons((uint16_t)port);
    else
        ((struct sockaddr_in *)a)->sin_port = htons((uint16_t)port);
    return 0;
}
