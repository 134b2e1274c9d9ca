/*
 * hog.c - the background load of `make bench LOAD=...` (no MPI).
 *
 *   hog cpu PARENT_PID     spins on one core (an integer loop, no memory traffic)
 *   hog mem PARENT_PID     copies between two 64 MiB buffers (twice a 32 MiB L3) in a loop,
 *                          so it takes memory bandwidth and evicts the caches all the time
 *
 * bench/run.sh starts the hogs right before a measured run and stops them (SIGTERM) right
 * after it. So that a hog can never outlive the harness, even when the harness itself is
 * killed with SIGKILL, every hog also exits on its own as soon as PARENT_PID is gone
 * (checked every few milliseconds of work) and after HOG_MAX_S seconds (default 600).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MEM_BYTES ((size_t)64 << 20)

/* The parent exists and is not a zombie waiting to be reaped. */
static int parent_alive(pid_t parent)
{
    if (kill(parent, 0) != 0 && errno != EPERM)
        return 0;
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)parent);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1; /* no /proc: kill() said it exists */
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return !(close_paren && close_paren[1] == ' ' && (close_paren[2] == 'Z' || close_paren[2] == 'X'));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "cpu") != 0 && strcmp(argv[1], "mem") != 0)) {
        fprintf(stderr, "usage: hog cpu|mem PARENT_PID\n");
        return 2;
    }
    pid_t parent = (pid_t)atol(argv[2]);
    const char *max_env = getenv("HOG_MAX_S");
    double max_s = max_env ? atof(max_env) : 600.0;
    double end = now_s() + (max_s > 0 ? max_s : 600.0);

    if (strcmp(argv[1], "cpu") == 0) {
        volatile unsigned long spin = 0;
        while (parent_alive(parent) && now_s() < end)
            for (unsigned long i = 0; i < (1ul << 22); i++)
                spin = spin * 6364136223846793005ul + 1442695040888963407ul;
        return 0;
    }
    char *a = malloc(MEM_BYTES), *b = malloc(MEM_BYTES);
    if (a == NULL || b == NULL) {
        fprintf(stderr, "hog: cannot allocate 2 x %zu bytes\n", MEM_BYTES);
        return 1;
    }
    memset(a, 1, MEM_BYTES);
    memset(b, 2, MEM_BYTES);
    volatile char sink = 0; /* reads the copies back, so no compiler can drop them */
    while (parent_alive(parent) && now_s() < end) {
        memcpy(b, a, MEM_BYTES);
        memcpy(a, b, MEM_BYTES);
        sink = (char)(sink + a[MEM_BYTES / 2] + b[MEM_BYTES - 1]);
    }
    free(a);
    free(b);
    return 0;
}
