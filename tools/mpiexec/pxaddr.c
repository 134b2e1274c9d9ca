/* Where proxies reach their parent (mpiexec, or a proxy relaying for others), and the programs
 * a job across hosts runs (docs/DESIGN.md, "Launching across hosts"). */
#include "mpiexec.h"

#include "fy_addr.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* The address of the interface that routes to host (a UDP socket connected to it). */
static int route_to(const char *host, struct sockaddr_storage *out)
{
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai;
    if (getaddrinfo(host, "9", &hints, &ai) != 0)
        return -1;
    int rc = -1;
    for (struct addrinfo *a = ai; a != NULL && rc != 0; a = a->ai_next) {
        int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            continue;
        socklen_t sl = sizeof(*out);
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
            getsockname(fd, (struct sockaddr *)out, &sl) == 0)
            rc = 0;
        close(fd);
    }
    freeaddrinfo(ai);
    return rc;
}

static int addr_usable(const struct sockaddr *sa)
{
    if (sa == NULL)
        return 0;
    if (sa->sa_family == AF_INET)
        return 1;
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        return !IN6_IS_ADDR_LINKLOCAL(a) && !IN6_IS_ADDR_LOOPBACK(a);
    }
    return 0;
}

/* Does sa lie in cidr ("10.77.1.0/24", "fd77:1::/64")? -1 if cidr is not one. */
static int in_cidr(const struct sockaddr *sa, const char *cidr)
{
    char net[INET6_ADDRSTRLEN];
    const char *slash = strchr(cidr, '/');
    if (slash == NULL || (size_t)(slash - cidr) >= sizeof(net))
        return -1;
    memcpy(net, cidr, (size_t)(slash - cidr));
    net[slash - cidr] = '\0';
    char *end;
    long bits = strtol(slash + 1, &end, 10);
    uint8_t want[16], have[16];
    int fam = strchr(net, ':') ? AF_INET6 : AF_INET, len = fam == AF_INET ? 4 : 16;
    if (*end != '\0' || bits < 0 || bits > len * 8 || inet_pton(fam, net, want) != 1)
        return -1;
    if (sa->sa_family != fam)
        return 0;
    if (fam == AF_INET)
        memcpy(have, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
    else
        memcpy(have, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
    for (int b = 0; b < bits; b++) {
        int m = 0x80 >> (b % 8);
        if ((want[b / 8] & m) != (have[b / 8] & m))
            return 0;
    }
    return 1;
}

static void ntop(const struct sockaddr *sa, char *out, size_t len)
{
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, out,
                  (socklen_t)len);
    else
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, out,
                  (socklen_t)len);
}

static int listen_on(fy_mpx_listen_t *L, const struct sockaddr *sa, socklen_t sl)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (sa->sa_family == AF_INET6) {
        int zero = 0;
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (bind(fd, sa, sl) != 0 || listen(fd, 128) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    L->port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
                                            : ((struct sockaddr_in6 *)&ss)->sin6_port);
    L->lfd[L->nlfd++] = fd;
    return 0;
}

static void add_addr(fy_mpx_listen_t *L, const struct sockaddr *sa)
{
    char a[INET6_ADDRSTRLEN];
    ntop(sa, a, sizeof(a));
    size_t used = strlen(L->addrs);
    if (used + strlen(a) + 2 < sizeof(L->addrs))
        snprintf(L->addrs + used, sizeof(L->addrs) - used, "%s%s", used ? "," : "", a);
}

/* Where proxies connect: -iface (a name or a CIDR), else the address that routes to the first
 * other host; when mpiexec cannot resolve that host (the agent may: ssh's configuration, a
 * cluster's own name service), every address of ours, which proxies try all at once. */
int fy_mpx_listen_choose(fy_mpx_listen_t *L, const char *iface, int all_here,
                         const char *first_remote)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (iface != NULL) {
        struct ifaddrs *ifa;
        struct sockaddr none = {.sa_family = AF_UNSPEC};
        if (strchr(iface, '/') != NULL && in_cidr(&none, iface) < 0) {
            fprintf(stderr, FY_MPX_PROG ": -iface '%s': not an interface name or a network "
                    "(address/bits)\n", iface);
            return -1;
        }
        if (strchr(iface, '/') == NULL && if_nametoindex(iface) == 0) {
            fprintf(stderr, FY_MPX_PROG ": -iface '%s': no such network interface\n", iface);
            return -1;
        }
        if (getifaddrs(&ifa) != 0) {
            fprintf(stderr, FY_MPX_PROG ": getifaddrs: %s\n", strerror(errno));
            return -1;
        }
        /* IPv4 first, then IPv6: the first address that matches. */
        const struct sockaddr *found = NULL;
        for (int pass = 0; pass < 2 && found == NULL; pass++) {
            for (struct ifaddrs *i = ifa; i != NULL && found == NULL; i = i->ifa_next) {
                if (!addr_usable(i->ifa_addr) ||
                    i->ifa_addr->sa_family != (pass == 0 ? AF_INET : AF_INET6))
                    continue;
                int match = strchr(iface, '/') ? in_cidr(i->ifa_addr, iface) == 1
                                               : strcmp(i->ifa_name, iface) == 0;
                if (match)
                    found = i->ifa_addr;
            }
        }
        if (found == NULL) {
            fprintf(stderr, FY_MPX_PROG ": -iface '%s': %s\n", iface,
                    strchr(iface, '/') ? "no address of this machine is in that network"
                                       : "the interface has no usable address");
            freeifaddrs(ifa);
            return -1;
        }
        sl = found->sa_family == AF_INET ? sizeof(struct sockaddr_in)
                                         : sizeof(struct sockaddr_in6);
        memcpy(&ss, found, sl);
        freeifaddrs(ifa);
    } else if (all_here) {
        /* Every proxy runs here (-launcher fork): the loopback. */
        struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        memcpy(&ss, &lo, sizeof(lo));
        sl = sizeof(lo);
    } else if (first_remote != NULL && route_to(first_remote, &ss) == 0) {
        sl = ss.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
    } else {
        /* Every address, on one socket that takes both families. */
        struct sockaddr_in6 any6 = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_ANY_INIT};
        struct sockaddr_in any4 = {.sin_family = AF_INET, .sin_addr.s_addr = INADDR_ANY};
        if (listen_on(L, (struct sockaddr *)&any6, sizeof(any6)) != 0 &&
            listen_on(L, (struct sockaddr *)&any4, sizeof(any4)) != 0) {
            fprintf(stderr, FY_MPX_PROG ": cannot listen for proxies: %s\n", strerror(errno));
            return -1;
        }
        struct ifaddrs *ifa;
        if (getifaddrs(&ifa) == 0) {
            for (int pass = 0; pass < 2; pass++)
                for (struct ifaddrs *i = ifa; i != NULL; i = i->ifa_next)
                    if (addr_usable(i->ifa_addr) && (i->ifa_flags & IFF_UP) &&
                        !(i->ifa_flags & IFF_LOOPBACK) &&
                        i->ifa_addr->sa_family == (pass == 0 ? AF_INET : AF_INET6))
                        add_addr(L, i->ifa_addr);
            freeifaddrs(ifa);
        }
        if (L->addrs[0] == '\0')
            snprintf(L->addrs, sizeof(L->addrs), "127.0.0.1");
        return 0;
    }
    if (ss.ss_family == AF_INET)
        ((struct sockaddr_in *)&ss)->sin_port = 0;
    else
        ((struct sockaddr_in6 *)&ss)->sin6_port = 0;
    if (listen_on(L, (struct sockaddr *)&ss, sl) != 0) {
        char a[INET6_ADDRSTRLEN];
        ntop((struct sockaddr *)&ss, a, sizeof(a));
        fprintf(stderr, FY_MPX_PROG ": cannot listen for proxies on %s: %s\n", a,
                strerror(errno));
        return -1;
    }
    add_addr(L, (struct sockaddr *)&ss);
    return 0;
}

/* path as execvp would find it: 0, or -1. */
int fy_mpx_find_program(const char *name, char *out, size_t len)
{
    if (strchr(name, '/') != NULL) {
        snprintf(out, len, "%s", name);
        return access(name, X_OK) == 0 ? 0 : -1;
    }
    const char *p = getenv("PATH");
    if (p == NULL)
        p = "/usr/local/bin:/usr/bin:/bin";
    while (*p != '\0') {
        size_t n = strcspn(p, ":");
        snprintf(out, len, "%.*s/%s", n ? (int)n : 1, n ? p : ".", name);
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

int fy_mpx_find_proxy(char *out, size_t len)
{
    const char *env = getenv("FERRY_PROXY");
    if (env != NULL && *env != '\0') {
        if (realpath(env, out) == NULL || access(out, X_OK) != 0) {
            fprintf(stderr, FY_MPX_PROG ": FERRY_PROXY='%s': not an executable file\n", env);
            return -1;
        }
        return 0;
    }
    char self[PATH_MAX - 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        fprintf(stderr, FY_MPX_PROG ": cannot find our own program (/proc/self/exe)\n");
        return -1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    *slash = '\0';
    snprintf(out, len, "%s/ferry-proxy", self);
    if (access(out, X_OK) != 0) {
        fprintf(stderr, FY_MPX_PROG ": the proxy '%s' is missing (it is installed beside "
                "mpiexec; FERRY_PROXY names another)\n", out);
        return -1;
    }
    return 0;
}


int fy_mpx_listen_at(fy_mpx_listen_t *L, const char *addr)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    if (fy_addr_parse(addr, 0, &ss, &sl) != 0) { /* port 0: the kernel chooses */
        errno = EINVAL;
        return -1;
    }
    if (listen_on(L, (struct sockaddr *)&ss, sl) != 0)
        return -1;
    snprintf(L->addrs, sizeof(L->addrs), "%s", addr);
    return 0;
}
