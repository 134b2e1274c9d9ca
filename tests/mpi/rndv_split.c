/* Large messages by every rendezvous path, and which path moved the bytes.
 *
 * Ranks pair up (r, r ^ 1); in each pair the even rank sends. Cases: odd sizes, both
 * directions at once, more messages in flight to one receiver than it has split slots
 * (matched out of order), probe/mprobe and cancel of a large message, a non-contiguous
 * receiver and sender, a sender that stays out of MPI until its receiver is done (the receiver
 * must finish alone), and a sender that polls with MPI_Test (it should copy part itself).
 *
 * The MPI_T counters rndv_bytes_pulled (receiver's single copy), rndv_bytes_pushed (sender's
 * half of a split rendezvous) and rndv_bytes_streamed (DATA through the rings) say which path
 * moved the bytes; FY_TEST_RNDV_EXPECT=split|cma|stream names the one the run must take. With
 * split and FY_TEST_EXPECT_PUSH=1, the polling sender must have copied something within a
 * bounded number of messages (each gives it many chunks to take while the receiver copies). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpitest.h"

static MPI_T_pvar_session sess;
static MPI_T_pvar_handle h_pulled, h_pushed, h_streamed;
static int have_pvars;

static MPI_T_pvar_handle pvar(const char *name)
{
    int i, n;
    MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i) != MPI_SUCCESS ||
        MPI_T_pvar_handle_alloc(sess, i, NULL, &h, &n) != MPI_SUCCESS)
        have_pvars = 0;
    return h;
}

static unsigned long long rd(MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    if (have_pvars)
        MPI_T_pvar_read(sess, h, &v);
    return v;
}

typedef struct counts {
    unsigned long long pulled, pushed, streamed;
} counts_t;

static counts_t now(void)
{
    counts_t c = {rd(h_pulled), rd(h_pushed), rd(h_streamed)};
    return c;
}

static int peer, sender, paired;
static int is_ferry; /* the library withdraws unmatched sends (others may never cancel one) */
static unsigned long long moved; /* rendezvous bytes this rank received from its peer */

static char *xmalloc(size_t n)
{
    char *p = malloc(n ? n : 1);
    if (!p) {
        printf("out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void one_way(size_t n, unsigned seed)
{
    char *b = xmalloc(n);
    if (sender) {
        mt_fill(b, n, seed);
        MPI_OK(MPI_Send(b, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD));
    } else {
        memset(b, 0, n);
        MPI_Status st;
        MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st));
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == (int)n, "count %d of %zu", cnt, n);
        CHECK_DATA(b, n, seed, "one way %zu", n);
        moved += n;
    }
    free(b);
}

static void both_ways(size_t n, unsigned seed)
{
    char *s = xmalloc(n), *r = xmalloc(n);
    mt_fill(s, n, seed + (unsigned)sender);
    memset(r, 0, n);
    MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, peer, 2, r, (int)n, MPI_BYTE, peer, 2, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
    CHECK_DATA(r, n, seed + (unsigned)!sender, "sendrecv %zu", n);
    moved += n;
    free(s);
    free(r);
}

/* More large messages to one receiver than it has slots (63), matched in reverse order. */
static void many_in_flight(void)
{
    enum { M = 70 };
    size_t n = 256 * 1024 + 17; /* above the largest eager limit */
    char *b = xmalloc(n * M);
    MPI_Request rq[M];
    if (sender) {
        for (int k = 0; k < M; k++) {
            mt_fill(b + k * n, n, 100u + (unsigned)k);
            MPI_OK(MPI_Isend(b + k * n, (int)n, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD, &rq[k]));
        }
    } else {
        memset(b, 0, n * M);
        for (int k = M - 1; k >= 0; k--)
            MPI_OK(MPI_Irecv(b + k * n, (int)n, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD, &rq[k]));
    }
    MPI_OK(MPI_Waitall(M, rq, MPI_STATUSES_IGNORE));
    if (!sender) {
        for (int k = 0; k < M; k++)
            CHECK_DATA(b + k * n, n, 100u + (unsigned)k, "in flight %d", k);
        moved += (unsigned long long)n * M;
    }
    free(b);
}

static void probe_and_cancel(void)
{
    size_t n = 3 * 1024 * 1024 + 5;
    char *b = xmalloc(n);
    if (sender && is_ferry) {
        /* A large send that is never received, withdrawn. */
        MPI_Request rq;
        mt_fill(b, n, 7);
        MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, peer, 99, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_Status st;
        MPI_OK(MPI_Wait(&rq, &st));
        int c = 0;
        MPI_Test_cancelled(&st, &c);
        CHECK(c, "a large unmatched send was not cancelled");
    }
    if (sender) { /* then two that are probed */
        mt_fill(b, n, 7);
        MPI_OK(MPI_Send(b, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD));
        MPI_OK(MPI_Send(b, (int)n, MPI_BYTE, peer, 4, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        MPI_OK(MPI_Probe(peer, 3, MPI_COMM_WORLD, &st));
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == (int)n, "probed count %d of %zu", cnt, n);
        memset(b, 0, n);
        MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_DATA(b, n, 7, "probed");
        MPI_Message m;
        MPI_OK(MPI_Mprobe(peer, 4, MPI_COMM_WORLD, &m, &st));
        memset(b, 0, n);
        MPI_OK(MPI_Mrecv(b, (int)n, MPI_BYTE, &m, MPI_STATUS_IGNORE));
        CHECK_DATA(b, n, 7, "mprobed");
        moved += 2 * (unsigned long long)n;
    }
    free(b);
}

/* Non-contiguous: a vector on one side, bytes on the other, then the reverse. A vector of
 * long runs is read by the receiver alone (its pieces remotely: `pulled`), one of short runs
 * streams. */
static void strided(int blen, const char *mode)
{
    int blocks = 2100000 / blen, stride = blen + 300;
    MPI_Datatype v;
    MPI_Type_vector(blocks, blen, stride, MPI_BYTE, &v);
    MPI_Type_commit(&v);
    size_t span = (size_t)stride * (size_t)blocks, n = (size_t)blen * (size_t)blocks;
    char *s = xmalloc(span), *c = xmalloc(n);
    for (int round = 0; round < 2; round++) {
        int vec_sends = round == 0;
        if (sender) {
            for (size_t i = 0; i < span; i++)
                s[i] = (char)mt_pat(31, (i / stride) * blen + i % stride);
            mt_fill(c, n, 31);
            if (vec_sends)
                MPI_OK(MPI_Send(s, 1, v, peer, 5, MPI_COMM_WORLD));
            else
                MPI_OK(MPI_Send(c, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD));
        } else if (vec_sends) {
            memset(c, 0, n);
            counts_t c0 = now();
            MPI_OK(MPI_Recv(c, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            counts_t c1 = now();
            CHECK_DATA(c, n, 31, "from a vector of %d-byte blocks", blen);
            moved += n;
            int remote = mode && (!strcmp(mode, "split") || !strcmp(mode, "cma"));
            if (have_pvars && remote && blen >= 1024)
                CHECK(c1.pulled - c0.pulled == n, "vector of %d-byte blocks: %llu of %zu bytes "
                      "read remotely", blen, c1.pulled - c0.pulled, n);
            if (have_pvars && mode && blen < 1024)
                CHECK(c1.streamed - c0.streamed == n, "vector of %d-byte blocks: %llu of %zu "
                      "bytes streamed", blen, c1.streamed - c0.streamed, n);
        } else {
            memset(s, 0, span);
            MPI_OK(MPI_Recv(s, 1, v, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            long bad = -1;
            for (size_t i = 0; i < span && bad < 0; i++)
                if (i % stride < (size_t)blen &&
                    (unsigned char)s[i] != mt_pat(31, (i / stride) * blen + i % stride))
                    bad = (long)i;
            CHECK(bad < 0, "into a vector: wrong byte at %ld", bad);
            moved += n;
        }
    }
    free(s);
    free(c);
    MPI_Type_free(&v);
}

/* The sender stays out of MPI (no progress at all) until its receiver has the message: the
 * receiver must move every byte alone. Files in /tmp named after the job (rank 0's pid, sent
 * to all) say when: the receiver starts once the sender's MPI_Isend has returned (it may poll
 * once), the sender comes back once the receiver has everything. */
static long job_token;
static void sender_away(const char *mode)
{
    size_t n = 8 * 1024 * 1024 + 3;
    char *b = xmalloc(n);
    char flag[64];
    char sent[64];
    int recv_rank = sender ? mt_rank + 1 : mt_rank;
    snprintf(flag, sizeof flag, "/tmp/fy-rndv-%ld-got.%d", job_token, recv_rank);
    snprintf(sent, sizeof sent, "/tmp/fy-rndv-%ld-sent.%d", job_token, recv_rank);
    if (sender) {
        mt_fill(b, n, 41);
        MPI_Request rq;
        MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &rq));
        /* The receiver starts only now: MPI_Isend itself may poll once. */
        FILE *f = fopen(sent, "w");
        if (f)
            fclose(f);
        while (access(flag, F_OK) != 0)
            usleep(1000);
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        unlink(flag);
        unlink(sent);
    } else {
        while (access(sent, F_OK) != 0)
            usleep(1000);
        counts_t c0 = now();
        memset(b, 0, n);
        MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        counts_t c1 = now();
        CHECK_DATA(b, n, 41, "sender away");
        moved += n;
        if (have_pvars && strcmp(mode, "stream") != 0)
            CHECK(c1.pulled - c0.pulled == n, "receiver alone read %llu of %zu bytes",
                  c1.pulled - c0.pulled, n);
        FILE *f = fopen(flag, "w");
        if (f)
            fclose(f);
    }
    free(b);
}

/* The sender polls with MPI_Test, so it runs while the receiver copies: in a split
 * rendezvous it takes chunks from the front. Returns whether it did, within a bound. */
static int sender_polls(void)
{
    size_t n = 16 * 1024 * 1024;
    char *b = xmalloc(n);
    int pushed = 0;
    for (int k = 0; k < 60; k++) {
        int stop = 0;
        if (sender) {
            counts_t c0 = now();
            mt_fill(b, 4096, 50u + (unsigned)k);
            MPI_Request rq;
            MPI_OK(MPI_Isend(b, (int)n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &rq));
            int done = 0;
            while (!done)
                MPI_OK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
            pushed += now().pushed > c0.pushed;
            stop = pushed > 0;
            MPI_OK(MPI_Send(&stop, 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
        } else {
            MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            CHECK_DATA(b, 4096, 50u + (unsigned)k, "polled %d", k);
            moved += n;
            MPI_OK(MPI_Recv(&stop, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (stop)
            break;
    }
    free(b);
    return pushed;
}

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int prov;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
    have_pvars = MPI_T_pvar_session_create(&sess) == MPI_SUCCESS;
    if (have_pvars) {
        h_pulled = pvar("rndv_bytes_pulled");
        h_pushed = pvar("rndv_bytes_pushed");
        h_streamed = pvar("rndv_bytes_streamed");
    }
    const char *mode = getenv("FY_TEST_RNDV_EXPECT");
    /* The path checks are Ferry's: another MPI runs the data checks only. */
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int ll = 0;
    MPI_Get_library_version(lib, &ll);
    is_ferry = strstr(lib, "Ferry") != NULL;
    if (!is_ferry)
        mode = NULL;
    else if (mode && mt_size > 1 && mt_peer_is_remote(mt_rank ^ 1 < mt_size ? mt_rank ^ 1 : 0))
        mode = "stream"; /* over TCP every rendezvous streams (no remote reads) */
    const char *want_push = getenv("FY_TEST_EXPECT_PUSH");
    job_token = (long)getpid();
    MPI_OK(MPI_Bcast(&job_token, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    peer = mt_rank ^ 1;
    paired = peer < mt_size;
    sender = (mt_rank & 1) == 0;
    counts_t c0 = now();

    if (paired) {
        /* Above the largest eager limit the thresholds choose (256 KiB, p2p_thresholds.c). */
        size_t sizes[] = {256 * 1024 + 1, 400 * 1024 - 3, 1024 * 1024 + 3, 5 * 1024 * 1024 + 7};
        for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++) {
            one_way(sizes[i], 1 + i);
            both_ways(sizes[i], 20 + 2 * i);
        }
        many_in_flight();
        strided(1500, mode);
        strided(16, mode);
        /* Only where the receiver can read the sender: a streamed message needs the sender. */
        if (have_pvars && mode && (!strcmp(mode, "split") || !strcmp(mode, "cma")))
            sender_away(mode);
        probe_and_cancel();
    }
    int pushed = paired ? sender_polls() : 0;

    /* Which path moved the bytes, summed over the job: each message is counted once, by the
     * side that copied each part of it. */
    counts_t c1 = now();
    unsigned long long mine[4] = {c1.pulled - c0.pulled, c1.pushed - c0.pushed,
                                  c1.streamed - c0.streamed, moved},
                       all[4];
    MPI_OK(MPI_Allreduce(mine, all, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (mode)
        CHECK(have_pvars, "no MPI_T counters rndv_bytes_pulled/pushed/streamed");
    if (have_pvars && mode && mt_rank == 0) {
        CHECK(all[0] + all[1] + all[2] == all[3],
              "pulled %llu + pushed %llu + streamed %llu != %llu bytes received", all[0], all[1],
              all[2], all[3]);
        if (!strcmp(mode, "stream"))
            CHECK(all[0] == 0 && all[1] == 0, "streaming, yet %llu pulled, %llu pushed", all[0],
                  all[1]);
        if (!strcmp(mode, "cma"))
            CHECK(all[1] == 0 && all[0] > all[2], "cma: %llu pushed, %llu pulled, %llu streamed",
                  all[1], all[0], all[2]);
        if (!strcmp(mode, "split"))
            CHECK(all[0] > all[2], "split: %llu pulled, %llu streamed", all[0], all[2]);
    }
    if (paired && sender && want_push && atoi(want_push) && mode && !strcmp(mode, "split"))
        CHECK(pushed > 0, "a sender polling through 60 messages of 16 MiB never copied a chunk");

    /* A large message to oneself (memcpy, no slot). */
    size_t n = 3 * 1024 * 1024 + 1;
    char *s = xmalloc(n), *r = xmalloc(n);
    mt_fill(s, n, 77);
    MPI_OK(MPI_Sendrecv(s, (int)n, MPI_BYTE, mt_rank, 9, r, (int)n, MPI_BYTE, mt_rank, 9,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_DATA(r, n, 77, "to self");
    free(s);
    free(r);
    if (have_pvars)
        MPI_T_pvar_session_free(&sess);
    MPI_T_finalize();
    return mt_finish();
}
