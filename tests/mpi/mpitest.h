/* Helpers shared by the MPI program tests: every check that fails prints one line naming the
 * rank, the file:line and what was expected, and counts as an error; mt_finish() sums the errors
 * of all ranks and rank 0 prints "No Errors" only when the sum is 0.
 *
 * Only MPI calls of Ferry's first release are used here: Init, Allreduce (MPI_INT, MPI_SUM),
 * Error_string, Comm_set_errhandler, Finalize. */
#ifndef MPITEST_H
#define MPITEST_H

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* MPI_STATUSES_IGNORE is a sentinel pointer such as (MPI_Status *)1; GCC 12 at -O1 and above
 * reads it as a zero-sized array passed to an array parameter and warns. A false positive. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

static int mt_errs;
static int mt_rank = -1;
static int mt_size;

static inline void mt_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("[rank %d] FAIL %s:%d: %s\n", mt_rank, file, line, msg);
    fflush(stdout);
    mt_errs++;
}

/* CHECK(condition, "printf format", args...): the message says what was expected. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            mt_fail(__FILE__, __LINE__, __VA_ARGS__);                                              \
    } while (0)

static inline int mt_check_rc(int rc, const char *call, const char *file, int line)
{
    if (rc != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        int len = 0;
        s[0] = 0;
        MPI_Error_string(rc, s, &len);
        mt_fail(file, line, "%s returned %d (%s)", call, rc, s);
    }
    return rc;
}

/* MPI_OK(MPI_Send(...)): the call must return MPI_SUCCESS (errors return on COMM_WORLD). */
#define MPI_OK(call) mt_check_rc((call), #call, __FILE__, __LINE__)

/* MPI_MUST(MPI_Win_allocate(...)): as MPI_OK, but a failure ends the job (MPI_Abort), for calls
 * without which the rest of the test would only crash (an object or memory not made). */
#define MPI_MUST(call)                                                                             \
    do {                                                                                           \
        if (mt_check_rc((call), #call, __FILE__, __LINE__) != MPI_SUCCESS) {                      \
            printf("[rank %d] the test cannot go on\n", mt_rank);                                 \
            fflush(stdout);                                                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* CHECK_CLASS(rc, MPI_ERR_RANK, "what"): rc must be an error code of that class. */
#define CHECK_CLASS(rc, cls, what)                                                                 \
    do {                                                                                           \
        int rc_ = (rc), cls_ = -1;                                                                 \
        if (rc_ == MPI_SUCCESS)                                                                    \
            mt_fail(__FILE__, __LINE__, "%s: returned MPI_SUCCESS, expected %s", what, #cls);      \
        else if (MPI_Error_class(rc_, &cls_) != MPI_SUCCESS || cls_ != (cls))                      \
            mt_fail(__FILE__, __LINE__, "%s: error class %d, expected %s (%d)", what, cls_, #cls,  \
                    (int)(cls));                                                                   \
    } while (0)

static inline void mt_setup(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

static inline void mt_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    mt_setup();
}

/* Sums the errors of all ranks, prints the verdict on rank 0, finalizes; returns main's status. */
static inline int mt_finish(void)
{
    int total = 0;
    if (MPI_Allreduce(&mt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
        printf("[rank %d] FAIL final MPI_Allreduce of the error count failed\n", mt_rank);
        total = mt_errs + 1;
    }
    if (mt_rank == 0) {
        if (total == 0)
            printf("No Errors\n");
        else
            printf("Found %d errors\n", total);
    }
    fflush(stdout);
    MPI_Finalize();
    return total != 0;
}

/* A byte pattern that depends on the message (seed) and the position, so a misplaced or stale
 * byte is caught. */
static inline unsigned char mt_pat(unsigned seed, size_t i)
{
    return (unsigned char)((i * 7u + seed * 131u + (i >> 8) * 13u) ^ (seed >> 3));
}

static inline void mt_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        p[i] = mt_pat(seed, i);
}

/* Returns the index of the first wrong byte, or -1. */
static inline long mt_verify(const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != mt_pat(seed, i))
            return (long)i;
    return -1;
}

#define CHECK_DATA(buf, n, seed, ...)                                                              \
    do {                                                                                           \
        long bad_ = mt_verify((buf), (n), (seed));                                                 \
        if (bad_ >= 0) {                                                                           \
            char what_[256];                                                                       \
            snprintf(what_, sizeof what_, __VA_ARGS__);                                            \
            mt_fail(__FILE__, __LINE__, "%s: wrong byte at offset %ld of %zu", what_, bad_,        \
                    (size_t)(n));                                                                  \
        }                                                                                          \
    } while (0)

/* An empty status, as the standard defines it for null or inactive requests and PROC_NULL
 * receives: source MPI_ANY_SOURCE (PROC_NULL for a receive from MPI_PROC_NULL), tag MPI_ANY_TAG,
 * count 0. */
static inline void mt_check_empty(const MPI_Status *st, int source, const char *file, int line,
                                  const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    if (st->MPI_SOURCE != source || st->MPI_TAG != MPI_ANY_TAG || count != 0)
        mt_fail(file, line, "%s: status source %d tag %d count %d, expected %d, %d, 0", what,
                st->MPI_SOURCE, st->MPI_TAG, count, source, MPI_ANY_TAG);
}
#define CHECK_EMPTY(st, source, what) mt_check_empty((st), (source), __FILE__, __LINE__, (what))

/* True when running on the named library (a prefix of MPI_Get_library_version's string, such as
 * "MPICH Version:\t4.0"), for marking a known deviation of a reference implementation. */
static inline int mt_library_is(const char *prefix)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
        return 0;
    char *p = v, *q = v; /* compare with runs of blanks squeezed to one space */
    for (; *p; p++)
        if (!(*p == ' ' || *p == '\t') || (q > v && q[-1] != ' '))
            *q++ = (*p == '\t') ? ' ' : *p;
    *q = 0;
    return strncmp(v, prefix, strlen(prefix)) == 0;
}

/* MPICH 4.0 (ch4:ucx) deviates from the standard in places the tests mark with this. */
static inline int mt_is_mpich40(void)
{
    static int known = -1;
    if (known < 0)
        known = mt_library_is("MPICH Version: 4.0");
    return known;
}

/* Whether this rank reaches world rank `peer` over the network (Ferry: its TCP transport), not
 * shared memory: under FERRY_NETMOD=tcp, or when MPI_COMM_TYPE_SHARED puts peer on another host.
 * Tests that check which transport or protocol carried a message ask this. Collective. */
static inline int mt_peer_is_remote(int peer)
{
    const char *nm = getenv("FERRY_NETMOD");
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Group wg, ng;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(node, &ng);
    int in_node = MPI_UNDEFINED;
    MPI_Group_translate_ranks(wg, 1, &peer, ng, &in_node);
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    MPI_Comm_free(&node);
    return (nm && strcmp(nm, "tcp") == 0) || in_node == MPI_UNDEFINED;
}

static inline void *mt_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("[rank %d] out of memory (%zu bytes)\n", mt_rank, n);
        exit(2);
    }
    return p;
}

#endif
