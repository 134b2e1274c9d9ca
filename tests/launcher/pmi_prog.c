/* A rank for the launcher tests: uses only the PMI client, never libmpi.
 *
 *   pmi_prog info            print "rank R size N appnum A singleton S kvsname K"
 *   pmi_prog kvs             put/fence/get across all ranks; rank 0 prints "No Errors"
 *   pmi_prog exit N          init, then exit N without finalize
 *   pmi_prog abort N [MSG]   rank 1 (or 0 if alone) aborts with code N; the others wait
 *   pmi_prog signal SIG      rank 1 (or 0 if alone) raises SIG; the others wait
 *   pmi_prog shm [clean|wait] each rank creates /dev/shm/fy-<kvsname>-t<rank>, prints its path,
 *                            then rank 0 crashes while the others wait (with "clean", all
 *                            finalize and exit 0; with "wait", all wait)
 *   pmi_prog wait            init, fence, print "ready", then sleep until killed
 *   pmi_prog chatty N        N lines to stdout and N to stderr, each written in three pieces
 *                            with pauses between, then a last line without '\n'
 */
#include "fy_pmi.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static fy_pmi_t *pmi;

static void check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "pmi_prog: %s: %s\n", what, fy_pmi_last_error());
        exit(2);
    }
}

static void wait_forever(void)
{
    for (;;)
        pause();
}

static void put_piece(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) < 0)
        exit(3);
    usleep(200);
}

/* Without whole-line forwarding, the pieces of different ranks' lines interleave. */
static int chatty(int n)
{
    int rank = fy_pmi_rank(pmi);
    char a[64], b[64];
    for (int i = 0; i < n; i++) {
        for (int fd = 1; fd <= 2; fd++) {
            snprintf(a, sizeof(a), "<rank=%d ", rank);
            snprintf(b, sizeof(b), "fd=%d line=%d ", fd, i);
            put_piece(fd, a);
            put_piece(fd, b);
            put_piece(fd, "end>\n");
        }
    }
    snprintf(a, sizeof(a), "<tail rank=%d>", rank);
    check(fy_pmi_finalize(pmi), "finalize");
    put_piece(1, a);
    return 0;
}

static int kvs_test(void)
{
    int rank = fy_pmi_rank(pmi), size = fy_pmi_size(pmi), errors = 0;
    char key[FY_PMI_MAX_KEY + 1], val[FY_PMI_MAX_VAL + 1], got[FY_PMI_MAX_VAL + 1];

    snprintf(key, sizeof(key), "key-%d", rank);
    snprintf(val, sizeof(val), "value-of-%d-in-%s", rank, fy_pmi_kvsname(pmi));
    check(fy_pmi_put(pmi, key, val), "put");
    /* The longest value (the limit counts the NUL): it must arrive whole under any launcher,
     * and one byte more must be refused, not truncated. */
    memset(val, 'a' + rank % 26, FY_PMI_MAX_VAL);
    val[FY_PMI_MAX_VAL] = '\0';
    snprintf(key, sizeof(key), "long-%d", rank);
    if (fy_pmi_put(pmi, key, val) == 0) {
        fprintf(stderr, "rank %d: put of a %d-byte value succeeded\n", rank, FY_PMI_MAX_VAL);
        errors++;
    }
    val[FY_PMI_MAX_VAL - 1] = '\0';
    check(fy_pmi_put(pmi, key, val), "put long");
    check(fy_pmi_fence(pmi), "fence");
    for (int r = 0; r < size; r++) {
        char want[FY_PMI_MAX_VAL + 1];
        snprintf(key, sizeof(key), "key-%d", r);
        snprintf(want, sizeof(want), "value-of-%d-in-%s", r, fy_pmi_kvsname(pmi));
        check(fy_pmi_get(pmi, r, key, got, sizeof(got)), "get");
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "rank %d: %s is '%s', expected '%s'\n", rank, key, got, want);
            errors++;
        }
        snprintf(key, sizeof(key), "long-%d", r);
        check(fy_pmi_get(pmi, r, key, got, sizeof(got)), "get long");
        if (strlen(got) != FY_PMI_MAX_VAL - 1 || got[0] != 'a' + r % 26) {
            fprintf(stderr, "rank %d: %s has the wrong value\n", rank, key);
            errors++;
        }
    }
    if (fy_pmi_get(pmi, 0, "no-such-key", got, sizeof(got)) == 0) {
        fprintf(stderr, "rank %d: get of a missing key succeeded\n", rank);
        errors++;
    }
    check(fy_pmi_fence(pmi), "second fence");
    check(fy_pmi_finalize(pmi), "finalize");
    if (errors == 0 && rank == 0)
        printf("No Errors\n");
    return errors != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "info";
    check(fy_pmi_init(&pmi, NULL), "init");
    int rank = fy_pmi_rank(pmi), size = fy_pmi_size(pmi);
    int victim = size > 1 ? 1 : 0;

    if (strcmp(mode, "info") == 0) {
        printf("rank %d size %d appnum %d singleton %d kvsname %s pmi %s\n", rank, size,
               fy_pmi_appnum(pmi), fy_pmi_is_singleton(pmi), fy_pmi_kvsname(pmi),
               fy_pmi_kind(pmi));
        check(fy_pmi_finalize(pmi), "finalize");
        return 0;
    }
    if (strcmp(mode, "kvs") == 0)
        return kvs_test();
    if (strcmp(mode, "chatty") == 0)
        return chatty(argc > 2 ? atoi(argv[2]) : 100);
    if (strcmp(mode, "exit") == 0)
        exit(argc > 2 ? atoi(argv[2]) : 0);
    if (strcmp(mode, "abort") == 0) {
        check(fy_pmi_fence(pmi), "fence");
        if (rank == victim)
            fy_pmi_abort(pmi, argc > 2 ? atoi(argv[2]) : 1, argc > 3 ? argv[3] : NULL);
        wait_forever();
    }
    if (strcmp(mode, "signal") == 0) {
        check(fy_pmi_fence(pmi), "fence");
        if (rank == victim)
            raise(argc > 2 ? atoi(argv[2]) : SIGSEGV);
        wait_forever();
    }
    if (strcmp(mode, "shm") == 0) {
        char path[256];
        snprintf(path, sizeof(path), "/dev/shm/fy-%s-t%d", fy_pmi_kvsname(pmi), rank);
        int fd = open(path, O_CREAT | O_RDWR, 0600);
        check(fd < 0, "create shm file");
        printf("%s\n", path);
        fflush(stdout);
        check(fy_pmi_fence(pmi), "fence");
        if (argc > 2 && strcmp(argv[2], "clean") == 0) {
            check(fy_pmi_finalize(pmi), "finalize");
            return 0;
        }
        if (rank == 0 && (argc < 3 || strcmp(argv[2], "wait") != 0))
            abort();
        wait_forever();
    }
    if (strcmp(mode, "wait") == 0) {
        check(fy_pmi_fence(pmi), "fence");
        printf("ready %d\n", rank);
        fflush(stdout);
        wait_forever();
    }
    fprintf(stderr, "pmi_prog: unknown mode '%s'\n", mode);
    return 2;
}
