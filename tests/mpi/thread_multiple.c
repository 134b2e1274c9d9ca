/* MPI_THREAD_MULTIPLE: several threads per rank communicate at once. Each thread has its own
 * duplicate of COMM_WORLD (made by the main thread, in the same order on every rank) and does a
 * ping-pong ring exchange with blocking and nonblocking calls; then all threads share
 * COMM_WORLD with one tag per thread, receiving with MPI_ANY_SOURCE; one thread polls with
 * Iprobe while others send. The main thread joins and checks. */
#include "mpitest.h"

#include <pthread.h>

#define NTHREADS 4
#define ITERS 200

struct arg {
    int id;
    MPI_Comm comm;
    int errs;
};

static void *own_comm(void *p)
{
    struct arg *a = p;
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int iters = mt_size > 2 ? ITERS / 8 : ITERS; /* oversubscribed beyond 2 ranks */
    for (int i = 0; i < iters; i++) {
        int out[2] = {a->id, i}, in[2] = {-1, -1};
        if (i % 2) {
            if (MPI_Sendrecv(out, 2, MPI_INT, next, 0, in, 2, MPI_INT, prev, 0, a->comm,
                             MPI_STATUS_IGNORE) != MPI_SUCCESS)
                a->errs++;
        } else {
            MPI_Request r[2];
            MPI_Irecv(in, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, a->comm, &r[0]);
            MPI_Isend(out, 2, MPI_INT, next, 0, a->comm, &r[1]);
            if (MPI_Waitall(2, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
                a->errs++;
        }
        if (in[0] != a->id || in[1] != i) {
            printf("[rank %d] FAIL thread %d iteration %d: got %d/%d on its own comm\n", mt_rank,
                   a->id, i, in[0], in[1]);
            a->errs++;
            break;
        }
    }
    /* A larger message, to exercise the large-message path concurrently. */
    size_t n = 300000 + (size_t)a->id;
    unsigned char *s = malloc(n), *r = malloc(n);
    mt_fill(s, n, (unsigned)(mt_rank * 10 + a->id));
    MPI_Sendrecv(s, (int)n, MPI_BYTE, next, 1, r, (int)n, MPI_BYTE, prev, 1, a->comm,
                 MPI_STATUS_IGNORE);
    if (mt_verify(r, n, (unsigned)(prev * 10 + a->id)) >= 0) {
        printf("[rank %d] FAIL thread %d: large message wrong\n", mt_rank, a->id);
        a->errs++;
    }
    free(s);
    free(r);
    return NULL;
}

static void *shared_comm(void *p)
{
    struct arg *a = p;
    int next = (mt_rank + 1) % mt_size;
    int iters = mt_size > 2 ? ITERS / 8 : ITERS; /* oversubscribed beyond 2 ranks */
    int tag = 100 + a->id;
    for (int i = 0; i < iters; i++) {
        int out[2] = {mt_rank, i}, in[2] = {-1, -1};
        MPI_Request sr;
        MPI_Status st;
        MPI_Isend(out, 2, MPI_INT, next, tag, MPI_COMM_WORLD, &sr);
        MPI_Recv(in, 2, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        int prev = (mt_rank + mt_size - 1) % mt_size;
        if (st.MPI_SOURCE != prev || st.MPI_TAG != tag || in[0] != prev || in[1] != i) {
            printf("[rank %d] FAIL thread %d iteration %d on WORLD: got %d/%d from %d tag %d\n",
                   mt_rank, a->id, i, in[0], in[1], st.MPI_SOURCE, st.MPI_TAG);
            a->errs++;
            break;
        }
    }
    return NULL;
}

static void *prober(void *p)
{
    struct arg *a = p;
    /* Waits for NTHREADS messages on its own tag from prev, found by polling Iprobe. */
    int prev = (mt_rank + mt_size - 1) % mt_size, got = 0;
    while (got < NTHREADS) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(prev, 999, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, prev, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (v != got) {
                printf("[rank %d] FAIL prober: message %d holds %d\n", mt_rank, got, v);
                a->errs++;
            }
            got++;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_setup();
    if (provided != MPI_THREAD_MULTIPLE) {
        CHECK(0, "MPI_Init_thread(MPI_THREAD_MULTIPLE) provided %d", provided);
        return mt_finish();
    }
    pthread_t th[NTHREADS + 1];
    struct arg args[NTHREADS + 1];
    for (int t = 0; t < NTHREADS; t++) {
        args[t].id = t;
        args[t].errs = 0;
        MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &args[t].comm));
    }
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, own_comm, &args[t]) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);

    for (int t = 0; t <= NTHREADS; t++) {
        args[t].id = t;
        args[t].errs = 0;
    }
    CHECK(pthread_create(&th[NTHREADS], NULL, prober, &args[NTHREADS]) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&th[t], NULL, shared_comm, &args[t]) == 0, "pthread_create");
    int next = (mt_rank + 1) % mt_size;
    for (int i = 0; i < NTHREADS; i++)
        MPI_OK(MPI_Send(&i, 1, MPI_INT, next, 999, MPI_COMM_WORLD));
    for (int t = 0; t <= NTHREADS; t++) {
        pthread_join(th[t], NULL);
        mt_errs += args[t].errs;
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_OK(MPI_Comm_free(&args[t].comm));
    return mt_finish();
}
