/* Drives the checker's watch (src/tools/check/chk_watch.h) the way its MPI wrappers will, with
 * no MPI at all: each rank (PMI_RANK of PMI_SIZE, from mpiexec) calls chk_watch_start and then
 * chk_watch_block with made-up waits, to test mpiexec --check's server (tests/check/watch_*.sh).
 *
 *   watch_fake MODE
 *   cycle     rank r waits in MPI_Recv from r+1 (mod size): a deadlock
 *   coll      rank 0 in MPI_Barrier, the others in MPI_Recv from rank 0 (on a communicator
 *             named my_world): a deadlock
 *   sync      ranks pair up (0-1, 2-3...) and wait in MPI_Send for each other with the sends
 *             buffered (CHK_W_SYNC), twice from the same place: one potential deadlock
 *             reported, both released each time; prints "released N" per round
 *   inflight  rank 0 in MPI_Recv from 1, rank 1 in MPI_Ssend to 0 (matching) for 3 s: no report
 *   collok    every rank in the same MPI_Allreduce for 2 s: no report
 *   compute   rank 0 computes for 3 s while the others wait in MPI_Recv from it: no report
 *   finished  rank 1 says goodbye and exits; rank 0 waits in MPI_Recv from 1: a deadlock
 *   badkey    rank 0 first connects with a wrong key and with garbage (both refused), then as
 *             itself; then the ranks end normally
 * Lines marked "LOC:<mode>" are the places a report must name. */
#include "chk_watch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WORLD 0 /* MPI_COMM_WORLD's id (chk_watch.h) */

static int rank, size;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void nap(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* As a wrapper does: the return address is the caller's place. */
__attribute__((noinline)) static void block(const char *call, int n, const chk_item_t *items)
{
    chk_watch_block(call, __builtin_return_address(0), true, n, items);
}

static chk_item_t item(int kind, int peer, int tag)
{
    return (chk_item_t){.kind = kind, .peer = peer, .tag = tag, .comm = WORLD};
}

/* Waits up to 30 s for the server's release; seconds taken, or -1. */
static double wait_release(void)
{
    double t0 = now();
    while (!chk_watch_released()) {
        if (now() - t0 > 30)
            return -1;
        nap(0.005);
    }
    return now() - t0;
}

/* A client with the wrong key, and one that speaks nonsense: both must be turned away. */
static int intruders(void)
{
    const char *addr = getenv("FERRY_CHECK_ADDR");
    const char *colon = addr ? strrchr(addr, ':') : NULL;
    if (colon == NULL)
        return 1;
    int refused = 0;
    for (int k = 0; k < 2; k++) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in sa = {.sin_family = AF_INET,
                                 .sin_port = htons((uint16_t)atoi(colon + 1))};
        inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
        if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
            return 1;
        char buf[256];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
            return 1;
        const char *msg =
            k == 0 ? "AUTH 0 2 1 00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n"
                   : "HELLO\n";
        if (write(fd, msg, strlen(msg)) < 0)
            return 1;
        n = read(fd, buf, sizeof(buf) - 1); /* the server closes: 0 */
        refused += n == 0;
        close(fd);
    }
    printf("intruders refused: %d\n", refused);
    return refused == 2 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    rank = getenv("PMI_RANK") ? atoi(getenv("PMI_RANK")) : 0;
    size = getenv("PMI_SIZE") ? atoi(getenv("PMI_SIZE")) : 1;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (strcmp(mode, "badkey") == 0 && rank == 0 && intruders() != 0) {
        printf("an intruder was let in\n");
        return 1;
    }
    chk_watch_start(rank, size);
    int *world = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        world[i] = i;
    chk_watch_comm(WORLD, size, world);
    chk_watch_comm(7, size, world); /* a duplicate of the world, named */
    chk_watch_comm_name(7, "my_world");
    free(world);

    if (strcmp(mode, "cycle") == 0) {
        chk_item_t it = item(CHK_W_RECV, (rank + 1) % size, 0);
        block("MPI_Recv", 1, &it); /* LOC:cycle */
        nap(60);
        return 1; /* the checker should have ended us */
    }
    if (strcmp(mode, "coll") == 0) {
        chk_item_t it = item(CHK_W_RECV, 0, 7);
        it.comm = 7;
        if (rank == 0) {
            it = (chk_item_t){.kind = CHK_W_COLL, .peer = -1, .tag = -1, .comm = WORLD,
                              .coll = "MPI_Barrier", .seq = 1};
            block("MPI_Barrier", 1, &it); /* LOC:coll0 */
        } else {
            block("MPI_Recv", 1, &it); /* LOC:coll1 */
        }
        nap(60);
        return 1;
    }
    if (strcmp(mode, "sync") == 0) {
        int peer = rank ^ 1;
        if (peer >= size)
            return 0;
        for (int round = 1; round <= 2; round++) {
            chk_item_t it = item(CHK_W_SYNC, peer, 3);
            block("MPI_Send", 1, &it); /* LOC:sync */
            double t = wait_release();
            chk_watch_unblock();
            if (t < 0) {
                printf("rank %d: not released in round %d\n", rank, round);
                return 1;
            }
            printf("released %d\n", round);
            fprintf(stderr, "rank %d: round %d released after %.2f s\n", rank, round, t);
            nap(0.2); /* both ranks out of the first round before the second */
        }
        return 0;
    }
    if (strcmp(mode, "inflight") == 0) {
        if (rank < 2) {
            chk_item_t it = rank == 0 ? item(CHK_W_RECV, 1, 5) : item(CHK_W_SEND, 0, 5);
            block(rank == 0 ? "MPI_Recv" : "MPI_Ssend", 1, &it);
            nap(3);
            chk_watch_unblock();
        }
        printf("no deadlock\n");
        chk_watch_stop();
        return 0;
    }
    if (strcmp(mode, "collok") == 0) {
        chk_item_t it = {.kind = CHK_W_COLL, .peer = -1, .tag = -1, .comm = WORLD,
                         .coll = "MPI_Allreduce", .seq = 4};
        block("MPI_Allreduce", 1, &it);
        nap(2);
        chk_watch_unblock();
        printf("no deadlock\n");
        chk_watch_stop();
        return 0;
    }
    if (strcmp(mode, "compute") == 0) {
        if (rank == 0) {
            volatile double x = 0;
            double t0 = now();
            while (now() - t0 < 3)
                for (int i = 0; i < 100000; i++)
                    x += i * 1e-9;
        } else {
            chk_item_t it = item(CHK_W_RECV, 0, 1);
            block("MPI_Recv", 1, &it);
            nap(3.5);
            chk_watch_unblock();
        }
        printf("no deadlock\n");
        chk_watch_stop();
        return 0;
    }
    if (strcmp(mode, "finished") == 0) {
        if (rank == 1) {
            chk_watch_stop();
            return 0;
        }
        if (rank == 0) {
            nap(0.3);
            chk_item_t it = item(CHK_W_RECV, 1, 2);
            block("MPI_Recv", 1, &it); /* LOC:finished */
            nap(60);
            return 1;
        }
        chk_watch_stop();
        return 0;
    }
    if (strcmp(mode, "badkey") == 0) {
        nap(0.5);
        printf("done\n");
        chk_watch_stop();
        return 0;
    }
    fprintf(stderr, "watch_fake: unknown mode '%s'\n", mode);
    return 2;
}
