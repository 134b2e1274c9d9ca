/* MPI_T under MPI_THREAD_MULTIPLE: two threads per rank exchange messages with the peer while a
 * third reads the counters through its own pvar session; the counters (plain, updated under
 * the library's lock) must end exactly at what was sent and received, and the reads must never
 * go backwards. Needs 2 ranks. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

enum { M = 2000, THREADS = 2 };
static int peer, errs;
static volatile int done_threads;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *exchange(void *arg)
{
    int tag = (int)(long)arg, x = 0;
    for (int i = 0; i < M; i++)
        MPI_Sendrecv(&i, 1, MPI_INT, peer, tag, &x, 1, MPI_INT, peer, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    pthread_mutex_lock(&mu);
    done_threads++;
    pthread_mutex_unlock(&mu);
    return NULL;
}

static int pindex(const char *name)
{
    int i = -1;
    if (MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &i) != MPI_SUCCESS)
        errs++;
    return i;
}

int main(int argc, char **argv)
{
    int provided, me, np, c;
    MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (provided != MPI_THREAD_MULTIPLE || np != 2) {
        printf("needs MPI_THREAD_MULTIPLE and 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    peer = 1 - me;
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hs, hr, hb;
    MPI_T_pvar_session_create(&s);
    char name[3][32];
    const char *net = peer_transport();
    snprintf(name[0], sizeof name[0], "msgs_sent_%s", net);
    snprintf(name[1], sizeof name[1], "msgs_recv_%s", net);
    snprintf(name[2], sizeof name[2], "bytes_sent_%s", net);
    MPI_T_pvar_handle_alloc(s, pindex(name[0]), NULL, &hs, &c);
    MPI_T_pvar_handle_alloc(s, pindex(name[1]), NULL, &hr, &c);
    MPI_T_pvar_handle_alloc(s, pindex(name[2]), NULL, &hb, &c);
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, exchange, (void *)(i + 10));
    unsigned long long last = 0, v = 0;
    for (;;) { /* bounded: ends when the exchanges end */
        pthread_mutex_lock(&mu);
        int d = done_threads;
        pthread_mutex_unlock(&mu);
        if (MPI_T_pvar_read(s, hs, &v) != MPI_SUCCESS || v < last)
            errs++;
        last = v;
        if (d == THREADS)
            break;
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    unsigned long long sent = 0, recvd = 0, bytes = 0;
    MPI_T_pvar_read(s, hs, &sent);
    MPI_T_pvar_read(s, hr, &recvd);
    MPI_T_pvar_read(s, hb, &bytes);
    if (sent != THREADS * M || recvd != THREADS * M || bytes != THREADS * M * sizeof(int)) {
        printf("rank %d: sent %llu, received %llu, %llu bytes; expected %d, %d, %zu\n", me, sent,
               recvd, bytes, THREADS * M, THREADS * M, THREADS * M * sizeof(int));
        errs++;
    }
    MPI_T_pvar_session_free(&s);
    MPI_Finalize();
    MPI_T_finalize();
    if (me == 0 && errs == 0)
        printf("No Errors\n");
    else if (errs)
        printf("rank %d: %d errors\n", me, errs);
    return errs != 0;
}
