/* A task farm: rank 0 hands out tasks (count the primes in a range of numbers) to the other
 * ranks as they ask for work, so fast workers take more tasks; it collects the results and
 * writes which worker did which task to farm.csv.
 * Arguments: [tasks] [task size] (default 40 tasks of 50000 numbers). Needs 2 ranks or more. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_WORK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

static long count_primes(long lo, long hi)
{
    long n = 0;
    for (long x = lo < 2 ? 2 : lo; x < hi; x++) {
        int prime = 1;
        for (long d = 2; d * d <= x; d++)
            if (x % d == 0) {
                prime = 0;
                break;
            }
        n += prime;
    }
    return n;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int tasks = argc > 1 ? atoi(argv[1]) : 40;
    long chunk = argc > 2 ? atol(argv[2]) : 50000;
    if (size < 2) {
        if (rank == 0)
            printf("the task farm needs 2 ranks or more (one master, workers)\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        FILE *f = fopen("farm.csv", "w");
        if (f)
            fprintf(f, "task,worker,primes\n");
        long total = 0, res[2];
        int next = 0, active = size - 1;
        MPI_Status st;
        /* Each message from a worker is a result (task >= 0) or, the first time, "ready"
         * (task -1); either way the worker gets the next task, or a stop. */
        while (active > 0) {
            MPI_Recv(res, 2, MPI_LONG, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
            if (res[0] >= 0) {
                total += res[1];
                if (f)
                    fprintf(f, "%ld,%d,%ld\n", res[0], st.MPI_SOURCE, res[1]);
            }
            if (next < tasks) {
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
                next++;
            } else {
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
                active--;
            }
        }
        if (f)
            fclose(f);
        printf("%d tasks done: %ld primes below %ld\n", tasks, total, tasks * chunk);
    } else {
        long res[2] = {-1, 0};
        int task, done = 0;
        MPI_Status st;
        for (;;) {
            MPI_Send(res, 2, MPI_LONG, 0, TAG_RESULT, MPI_COMM_WORLD);
            MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP)
                break;
            res[0] = task;
            res[1] = count_primes(task * chunk, (task + 1) * chunk);
            done++;
        }
        printf("worker %d did %d tasks\n", rank, done);
    }
    MPI_Finalize();
    return 0;
}
