/*
 * sockpp.c - the limits of a TCP link for the benchmarks between hosts (no MPI).
 *
 * One binary is the server (-s, on one host) or the client (-c HOST, on the other); the
 * client drives every measurement and prints the results. One TCP connection, TCP_NODELAY.
 *
 *   poll    ping-pong with non-blocking sockets: each side spins on recv() until the whole
 *           message is in (EAGAIN is retried at once), then sends it back; what an MPI that
 *           polls its sockets can reach at best.
 *   block   the same ping-pong with blocking read()/write(): the thread sleeps in the kernel
 *           until data arrives (the wake-up is part of the time).
 *           Both: sizes 8 B .. max (powers of two); one-way latency = round trip / 2, every
 *           round trip timed on its own: value = their median (p50), with p10 and p90; the
 *           round trips are also split into batches, batch= is the median batch (what
 *           bench/latency.c calls its value: a few stalls of a scheduler tick, which spinning
 *           on a 2-CPU machine gets, move it far more than the median round trip).
 *   stream  the client writes N bytes in chunks of the size (blocking write), the server reads
 *           them and answers 16 bytes when it has all; MB/s of the median of R repetitions
 *           (1 MB = 10^6 bytes), chunk sizes from -n to -X.
 *
 * Verification: every ping-pong message is echoed verbatim; the client fills its message with
 * a pattern once per size and compares every echo of the warm-up and of the last timed round
 * trip with it, and the server checks the first message of each size against the pattern. Of
 * every stream size the first (warm-up) transfer is checked byte by byte by the server. A
 * mismatch makes that size status=FAILED. SOCKPP_CORRUPT=1 in the server's environment
 * spoils one byte of every echo it checks (a self-test of the checking).
 *
 * Usage: sockpp -s [-6] [-p port] [-t secs]
 *        sockpp -c host [-6] [-p port] [-m] [-M modes] [-i iters] [-w warmup] [-b batches]
 *                       [-T secs] [-x max] [-n min_chunk] [-X max_chunk] [-N bytes] [-r reps]
 *   -s   serve one client, then exit; prints "# sockpp: listening on port P" when ready
 *   -c   connect to host (a name or an address)
 *   -6   IPv6 (default IPv4)
 *   -p   port (default 0 on the server: any free port, printed)
 *   -t   server: seconds to wait for the client (default 60)
 *   -m   machine-readable lines: RESULT bench=link.pingpong.<poll|block> ranks=2 size=S
 *        value=<p50 us> unit=us status=ok|FAILED batch= min= avg= p10= p50= p90= trips=, and
 *        RESULT bench=link.stream ranks=2 size=<chunk> value=<MB/s> unit=MBps status=.. max=
 *   -M   comma-separated modes (default poll,block,stream)
 *   -i   round trips timed for sizes <= 8 KiB (default 10000), fewer above
 *   -w   untimed round trips before each size (default 200)
 *   -b   batches of the timed round trips (default 20)
 *   -T   ping-pong: seconds per size, after which no further batch starts (default 0 = none)
 *   -x   largest ping-pong size (default 4M); the smallest is 8 B
 *   -n, -X   stream chunk sizes (default 64K .. 16M)
 *   -N   bytes per stream repetition (default 256M), -r repetitions (default 5)
 * The benchmark never judges its numbers.
 */
#define _GNU_SOURCE
#include "bench_opt.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#define MAGIC 0x66797370u /* "fysp" */
#define OP_PINGPONG 1
#define OP_STREAM 2
#define OP_DONE 3
#define SCALE_FROM 8192
#define MIN_ITERS 10

/* One request of the client; both ends are this same binary on one machine, so the fields
 * travel in host order. */
typedef struct request {
    uint32_t magic;
    uint32_t op;
    uint64_t size;   /* message or chunk bytes */
    uint64_t count;  /* round trips, or stream bytes */
    uint32_t poll;   /* ping-pong: 1 = non-blocking spinning, 0 = blocking */
    uint32_t verify; /* check the first message (ping-pong) or every byte (stream) */
} request_t;

typedef struct reply {
    uint64_t bytes;
    uint64_t bad; /* 0, or 1 + the offset of the first wrong byte */
} reply_t;

typedef struct options {
    int server, v6, port, machine, iters, warmup, batches, reps;
    double wait_s, budget;
    const char *host, *modes;
    size_t max_size, min_chunk, max_chunk, stream_bytes;
} options_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned char pattern(size_t k)
{
    return (unsigned char)((k * 2654435761u) >> 13 ^ k);
}

static void fill(unsigned char *buf, size_t n)
{
    for (size_t k = 0; k < n; k++)
        buf[k] = pattern(k);
}

/* Sends or receives exactly n bytes; a non-blocking socket is retried at once (spinning).
 * Returns 0, or -1 when the peer is gone or the socket failed. */
static int send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int recv_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k == 0)
            return -1;
        if (k < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            return -1;
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int set_blocking(int fd, int blocking)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    fl = blocking ? fl & ~O_NONBLOCK : fl | O_NONBLOCK;
    return fcntl(fd, F_SETFL, fl);
}

static void *alloc_or_die(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n ? n : 1) != 0) {
        fprintf(stderr, "sockpp: cannot allocate %zu bytes\n", n);
        exit(2);
    }
    memset(p, 0, n ? n : 1);
    return p;
}

/* --- server ------------------------------------------------------------------------- */

static int serve_pingpong(int fd, const request_t *rq, unsigned char *buf)
{
    if (set_blocking(fd, !rq->poll) != 0)
        return -1;
    int corrupt = getenv("SOCKPP_CORRUPT") != NULL;
    for (uint64_t i = 0; i < rq->count; i++) {
        if (recv_all(fd, buf, rq->size) != 0)
            return -1;
        if (i == 0 && rq->verify) {
            for (size_t k = 0; k < rq->size; k++)
                if (buf[k] != pattern(k)) {
                    fprintf(stderr, "sockpp: server: byte %zu of a %llu-byte message is wrong\n",
                            k, (unsigned long long)rq->size);
                    break;
                }
        }
        if (corrupt && rq->verify && rq->size > 0)
            buf[rq->size / 2] ^= 0x5a;
        if (send_all(fd, buf, rq->size) != 0)
            return -1;
    }
    return set_blocking(fd, 1);
}

static int serve_stream(int fd, const request_t *rq, unsigned char *buf)
{
    reply_t rp = {0, 0};
    while (rp.bytes < rq->count) {
        size_t want = rq->count - rp.bytes < rq->size ? (size_t)(rq->count - rp.bytes) : rq->size;
        ssize_t k = read(fd, buf, want);
        if (k == 0)
            return -1;
        if (k < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (rq->verify && rp.bad == 0)
            for (ssize_t j = 0; j < k; j++)
                if (buf[j] != pattern((rp.bytes + (uint64_t)j) % rq->size)) {
                    rp.bad = 1 + rp.bytes + (uint64_t)j;
                    break;
                }
        rp.bytes += (uint64_t)k;
    }
    return send_all(fd, &rp, sizeof(rp));
}

static int nodelay(int fd)
{
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int run_server(const options_t *opt)
{
    int fam = opt->v6 ? AF_INET6 : AF_INET;
    int lfd = socket(fam, SOCK_STREAM, 0), one = 1;
    if (lfd < 0) {
        perror("sockpp: socket");
        return 1;
    }
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof(ss));
    if (opt->v6) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        a->sin6_addr = in6addr_any;
        a->sin6_port = htons((uint16_t)opt->port);
        len = sizeof(*a);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        a->sin_addr.s_addr = htonl(INADDR_ANY);
        a->sin_port = htons((uint16_t)opt->port);
        len = sizeof(*a);
    }
    if (bind(lfd, (struct sockaddr *)&ss, len) != 0 || listen(lfd, 1) != 0 ||
        getsockname(lfd, (struct sockaddr *)&ss, &len) != 0) {
        perror("sockpp: bind/listen");
        return 1;
    }
    int port = ntohs(opt->v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                             : ((struct sockaddr_in *)&ss)->sin_port);
    printf("# sockpp: listening on port %d\n", port);
    fflush(stdout);
    struct pollfd pfd = {lfd, POLLIN, 0};
    if (poll(&pfd, 1, (int)(opt->wait_s * 1000)) != 1) {
        fprintf(stderr, "sockpp: no client within %g s\n", opt->wait_s);
        return 1;
    }
    int fd = accept(lfd, NULL, NULL);
    close(lfd);
    if (fd < 0 || nodelay(fd) != 0) {
        perror("sockpp: accept");
        return 1;
    }
    unsigned char *buf = NULL;
    size_t cap = 0;
    for (;;) {
        request_t rq;
        if (recv_all(fd, &rq, sizeof(rq)) != 0 || rq.magic != MAGIC) {
            fprintf(stderr, "sockpp: server: the client went away or spoke nonsense\n");
            return 1;
        }
        if (rq.op == OP_DONE)
            break;
        if (rq.size > cap) {
            free(buf);
            cap = rq.size;
            buf = alloc_or_die(cap);
        }
        int rc = rq.op == OP_PINGPONG ? serve_pingpong(fd, &rq, buf) : serve_stream(fd, &rq, buf);
        if (rc != 0) {
            fprintf(stderr, "sockpp: server: connection lost\n");
            return 1;
        }
    }
    free(buf);
    close(fd);
    return 0;
}

/* --- client ------------------------------------------------------------------------- */

static int connect_to(const options_t *opt)
{
    struct addrinfo hints, *res = NULL;
    char port[16];
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = opt->v6 ? AF_INET6 : AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof(port), "%d", opt->port);
    int rc = getaddrinfo(opt->host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "sockpp: %s: %s\n", opt->host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0 || nodelay(fd) != 0) {
        fprintf(stderr, "sockpp: cannot connect to %s port %d: %s\n", opt->host, opt->port,
                strerror(errno));
        return -1;
    }
    return fd;
}

static int request(int fd, uint32_t op, size_t size, uint64_t count, int poll_mode, int verify)
{
    request_t rq = {MAGIC, op, size, count, (uint32_t)poll_mode, (uint32_t)verify};
    return send_all(fd, &rq, sizeof(rq));
}

/* count round trips of size bytes; the echo goes to rbuf. */
static int trips(int fd, const unsigned char *sbuf, unsigned char *rbuf, size_t size,
                 uint64_t count, int poll_mode, int verify, double *trip_us)
{
    if (request(fd, OP_PINGPONG, size, count, poll_mode, verify) != 0 ||
        set_blocking(fd, !poll_mode) != 0)
        return -1;
    double prev = now_s();
    for (uint64_t i = 0; i < count; i++) {
        if (send_all(fd, sbuf, size) != 0 || recv_all(fd, rbuf, size) != 0)
            return -1;
        if (trip_us != NULL) {
            double t = now_s();
            trip_us[i] = (t - prev) * 1e6 / 2.0;
            prev = t;
        }
    }
    return set_blocking(fd, 1);
}

static int run_pingpong(int fd, const options_t *opt, int poll_mode)
{
    const char *name = poll_mode ? "poll" : "block";
    unsigned char *sbuf = alloc_or_die(opt->max_size), *rbuf = alloc_or_die(opt->max_size);
    double *trip_us = malloc(sizeof(double) * ((size_t)opt->iters + (size_t)opt->batches));
    double *batch_us = malloc(sizeof(double) * (size_t)opt->batches);
    if (trip_us == NULL || batch_us == NULL)
        return -1;
    fill(sbuf, opt->max_size);
    if (!opt->machine)
        printf("# ping-pong, %s: one-way us\n# %10s %10s %10s %10s %10s %10s %8s\n", name,
               "size (B)", "batch med", "batch min", "p10", "p50", "p90", "iters");
    for (size_t size = 8; size <= opt->max_size; size *= 2) {
        int iters = bench_scaled(opt->iters, size, SCALE_FROM, MIN_ITERS);
        int warmup = bench_scaled(opt->warmup, size, SCALE_FROM, 2);
        int nbatch = iters < opt->batches ? iters : opt->batches;
        int per_batch = (iters + nbatch - 1) / nbatch;
        int bad = 0;
        memset(rbuf, 0, size);
        if (trips(fd, sbuf, rbuf, size, (uint64_t)warmup, poll_mode, 1, NULL) != 0)
            return -1;
        bad |= memcmp(sbuf, rbuf, size) != 0;
        int ntrips = 0, nb = 0;
        double t_size = now_s();
        for (int b = 0; b < nbatch && (opt->budget <= 0 || b == 0 || now_s() - t_size < opt->budget);
             b++) {
            memset(rbuf, 0, size);
            if (trips(fd, sbuf, rbuf, size, (uint64_t)per_batch, poll_mode, 0,
                      trip_us + ntrips) != 0)
                return -1;
            double sum = 0.0;
            for (int i = 0; i < per_batch; i++)
                sum += trip_us[ntrips + i];
            batch_us[b] = sum / per_batch;
            ntrips += per_batch;
            nb++;
        }
        bad |= memcmp(sbuf, rbuf, size) != 0; /* the last timed echo */
        double median, min, mean, pct[3];
        bench_stats(batch_us, nb, &median, &min, &mean);
        bench_p10_50_90(trip_us, ntrips, pct);
        if (bad)
            fprintf(stderr, "sockpp: %s ping-pong of %zu bytes: the echo differs\n", name, size);
        if (opt->machine)
            printf("RESULT bench=link.pingpong.%s ranks=2 size=%zu value=%.3f unit=us status=%s "
                   "batch=%.3f min=%.3f avg=%.3f p10=%.3f p50=%.3f p90=%.3f trips=%d\n",
                   name, size, pct[1], bad ? "FAILED" : "ok", median, min, mean, pct[0], pct[1],
                   pct[2], ntrips);
        else
            printf("  %10zu %10.3f %10.3f %10.3f %10.3f %10.3f %8d%s\n", size, median, min,
                   pct[0], pct[1], pct[2], ntrips, bad ? "  FAILED" : "");
        fflush(stdout);
    }
    free(batch_us);
    free(trip_us);
    free(rbuf);
    free(sbuf);
    return 0;
}

/* One stream of `bytes` in chunks of `chunk`; returns the seconds, the server's reply in *rp. */
static double stream_once(int fd, const unsigned char *buf, size_t chunk, uint64_t bytes,
                          int verify, reply_t *rp)
{
    double t0 = now_s();
    if (request(fd, OP_STREAM, chunk, bytes, 0, verify) != 0)
        return -1.0;
    for (uint64_t sent = 0; sent < bytes;) {
        size_t n = bytes - sent < chunk ? (size_t)(bytes - sent) : chunk;
        if (send_all(fd, buf, n) != 0)
            return -1.0;
        sent += n;
    }
    if (recv_all(fd, rp, sizeof(*rp)) != 0)
        return -1.0;
    return now_s() - t0;
}

static int run_stream(int fd, const options_t *opt)
{
    unsigned char *buf = alloc_or_die(opt->max_chunk);
    double *secs = malloc(sizeof(double) * (size_t)opt->reps);
    if (secs == NULL)
        return -1;
    fill(buf, opt->max_chunk);
    if (!opt->machine)
        printf("# stream of %zu bytes per repetition: MB/s\n# %10s %10s %10s\n",
               opt->stream_bytes, "chunk (B)", "median", "max");
    for (size_t chunk = opt->min_chunk; chunk <= opt->max_chunk; chunk *= 2) {
        uint64_t bytes = opt->stream_bytes < chunk ? chunk : opt->stream_bytes;
        reply_t rp;
        /* The warm-up transfer, checked byte by byte by the server. */
        if (stream_once(fd, buf, chunk, bytes < 4 * (uint64_t)chunk ? bytes : 4 * (uint64_t)chunk,
                        1, &rp) < 0)
            return -1;
        int bad = rp.bad != 0;
        if (bad)
            fprintf(stderr, "sockpp: stream in chunks of %zu: byte %llu wrong at the server\n",
                    chunk, (unsigned long long)(rp.bad - 1));
        for (int r = 0; r < opt->reps; r++) {
            secs[r] = stream_once(fd, buf, chunk, bytes, 0, &rp);
            if (secs[r] < 0)
                return -1;
            bad |= rp.bytes != bytes;
        }
        double median, min, mean;
        bench_stats(secs, opt->reps, &median, &min, &mean);
        if (opt->machine)
            printf("RESULT bench=link.stream ranks=2 size=%zu value=%.2f unit=MBps status=%s "
                   "max=%.2f avg=%.2f bytes=%llu\n",
                   chunk, (double)bytes / median / 1e6, bad ? "FAILED" : "ok",
                   (double)bytes / min / 1e6, (double)bytes / mean / 1e6,
                   (unsigned long long)bytes);
        else
            printf("  %10zu %10.2f %10.2f%s\n", chunk, (double)bytes / median / 1e6,
                   (double)bytes / min / 1e6, bad ? "  FAILED" : "");
        fflush(stdout);
    }
    free(secs);
    free(buf);
    return 0;
}

static int has_mode(const char *modes, const char *m)
{
    size_t n = strlen(m);
    for (const char *p = modes; (p = strstr(p, m)) != NULL; p += n)
        if ((p == modes || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

static int run_client(const options_t *opt)
{
    int fd = connect_to(opt);
    if (fd < 0)
        return 1;
    printf("# Ferry bench: sockpp (TCP, TCP_NODELAY, %s) to %s port %d\n",
           opt->v6 ? "IPv6" : "IPv4", opt->host, opt->port);
    int rc = 0;
    if (has_mode(opt->modes, "poll"))
        rc |= run_pingpong(fd, opt, 1);
    if (rc == 0 && has_mode(opt->modes, "block"))
        rc |= run_pingpong(fd, opt, 0);
    if (rc == 0 && has_mode(opt->modes, "stream"))
        rc |= run_stream(fd, opt);
    if (rc != 0) {
        fprintf(stderr, "sockpp: connection to the server lost\n");
        return 1;
    }
    request(fd, OP_DONE, 0, 0, 0, 0);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    options_t opt = {0, 0, 0, 0, 10000, 200, 20, 5, 60.0, 0.0, NULL, "poll,block,stream",
                     (size_t)4 << 20, (size_t)64 << 10, (size_t)16 << 20, (size_t)256 << 20};
    const bench_opt_t opts[] = {
        {'s', BENCH_OPT_FLAG, &opt.server, 0},     {'c', BENCH_OPT_STRING, &opt.host, 0},
        {'6', BENCH_OPT_FLAG, &opt.v6, 0},         {'p', BENCH_OPT_INT, &opt.port, 0},
        {'t', BENCH_OPT_SECONDS, &opt.wait_s, 0},  {'m', BENCH_OPT_FLAG, &opt.machine, 0},
        {'M', BENCH_OPT_STRING, &opt.modes, 0},    {'i', BENCH_OPT_INT, &opt.iters, 1},
        {'w', BENCH_OPT_INT, &opt.warmup, 0},      {'b', BENCH_OPT_INT, &opt.batches, 1},
        {'x', BENCH_OPT_SIZE, &opt.max_size, 8},   {'n', BENCH_OPT_SIZE, &opt.min_chunk, 1},
        {'X', BENCH_OPT_SIZE, &opt.max_chunk, 1},  {'N', BENCH_OPT_SIZE, &opt.stream_bytes, 1},
        {'r', BENCH_OPT_INT, &opt.reps, 1},        {'T', BENCH_OPT_SECONDS, &opt.budget, 0},
    };
    if (bench_getopt(argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0]))) != 0 ||
        opt.server == (opt.host != NULL) || opt.port > 65535 || opt.max_size > ((size_t)1 << 30) ||
        opt.max_chunk > ((size_t)1 << 30) || opt.min_chunk > opt.max_chunk ||
        (!opt.server && opt.port == 0)) {
        fprintf(stderr, "usage: sockpp -s [-6] [-p port] [-t secs]\n"
                        "       sockpp -c host -p port [-6] [-m] [-M poll,block,stream] [-i iters] "
                        "[-w warmup] [-b batches] [-T secs] [-x max] [-n min_chunk] "
                        "[-X max_chunk] [-N bytes] [-r reps]\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a peer that went away is an error return, not a signal */
    return opt.server ? run_server(&opt) : run_client(&opt);
}
