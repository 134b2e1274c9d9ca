/* Communicators created concurrently by two threads of every process (MPI_THREAD_MULTIPLE)
 * on two overlapping parents: each new communicator must get a context id of its own, which
 * the traffic on it shows (a message on one must never land on the other). */
#include <pthread.h>

#include "mpitest.h"

enum { ROUNDS = 60 };

typedef struct {
    MPI_Comm parent;
    int id;
} job_t;

static void *creator(void *arg)
{
    job_t *j = arg;
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Comm c;
        int rc = j->id == 0 ? MPI_Comm_dup(j->parent, &c)
                            : MPI_Comm_split(j->parent, mt_rank % 2, -mt_rank, &c);
        if (MPI_OK(rc) != MPI_SUCCESS)
            return NULL;
        int r, n;
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &n);
        /* Everyone sends (thread id, round) to the next rank; tags collide on purpose. */
        int out[2] = {j->id, i}, in[2] = {-1, -1};
        MPI_OK(MPI_Sendrecv(out, 2, MPI_INT, (r + 1) % n, 0, in, 2, MPI_INT, (r + n - 1) % n, 0, c,
                            MPI_STATUS_IGNORE));
        CHECK(in[0] == j->id && in[1] == i, "thread %d round %d got (%d, %d): crossed contexts",
              j->id, i, in[0], in[1]);
        MPI_OK(MPI_Comm_free(&c));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mt_setup();
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm a, b;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
    job_t ja = {a, 0}, jb = {b, 1};
    pthread_t t;
    pthread_create(&t, NULL, creator, &ja);
    creator(&jb);
    pthread_join(t, NULL);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    return mt_finish();
}
