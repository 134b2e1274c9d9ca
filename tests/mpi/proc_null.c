/* MPI_PROC_NULL as source and destination in every call that takes one: sends complete at
 * once, receives complete at once with source PROC_NULL, tag MPI_ANY_TAG, count 0, and leave
 * the buffer untouched, also when a tag or count would not fit a real message. */
#include "mpitest.h"

int main(int argc, char **argv)
{
    mt_init(&argc, &argv);
    int buf[8], sbuf[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    MPI_Status st;
    MPI_Request r, rs[4];
    int flag;
    for (int i = 0; i < 8; i++)
        buf[i] = -7;
    void *bb = mt_malloc(1024 + MPI_BSEND_OVERHEAD);
    MPI_OK(MPI_Buffer_attach(bb, 1024 + MPI_BSEND_OVERHEAD));

    MPI_OK(MPI_Send(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Ssend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Rsend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Bsend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Isend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rs[0]));
    MPI_OK(MPI_Issend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rs[1]));
    MPI_OK(MPI_Irsend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rs[2]));
    MPI_OK(MPI_Ibsend(sbuf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &rs[3]));
    flag = 0;
    for (int spin = 0; spin < 1000000 && !flag; spin++)
        MPI_OK(MPI_Testall(4, rs, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag, "nonblocking sends to PROC_NULL do not complete");

    MPI_OK(MPI_Recv(buf, 8, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Recv from PROC_NULL");
    MPI_OK(MPI_Recv(buf, 8, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Recv from PROC_NULL with ANY_TAG");
    MPI_OK(MPI_Recv(buf, 0, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_SELF, &st));
    CHECK_EMPTY(&st, MPI_PROC_NULL, "Recv of 0 from PROC_NULL on SELF");
    MPI_OK(MPI_Irecv(buf, 8, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r));
    flag = 0;
    MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK(flag, "Irecv from PROC_NULL is not complete at the first Test");
    if (!flag)
        MPI_OK(MPI_Wait(&r, &st));
    /* Known deviation, MPICH 4.0: a nonblocking receive from PROC_NULL reports source 0 and tag
     * 0; only the count is checked there. */
    if (!mt_is_mpich40())
        CHECK_EMPTY(&st, MPI_PROC_NULL, "Irecv from PROC_NULL");
    int elements = -1;
    MPI_OK(MPI_Get_elements(&st, MPI_INT, &elements));
    CHECK(elements == 0, "Get_elements after a PROC_NULL receive: %d", elements);
    MPI_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag == 0, "a PROC_NULL receive is marked cancelled");

    int untouched = 1;
    for (int i = 0; i < 8; i++)
        untouched &= buf[i] == -7;
    CHECK(untouched, "a receive from PROC_NULL changed the buffer");

    /* Mixed with real traffic in one Waitall: statuses line up. */
    int next = (mt_rank + 1) % mt_size, prev = (mt_rank + mt_size - 1) % mt_size;
    int v = -1, w = mt_rank, z = -5;
    MPI_Request m[4];
    MPI_Status sts[4];
    MPI_OK(MPI_Irecv(&z, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m[0]));
    MPI_OK(MPI_Irecv(&v, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, &m[1]));
    MPI_OK(MPI_Isend(&w, 1, MPI_INT, next, 0, MPI_COMM_WORLD, &m[2]));
    MPI_OK(MPI_Isend(&w, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m[3]));
    MPI_OK(MPI_Waitall(4, m, sts));
    if (!mt_is_mpich40())
        CHECK_EMPTY(&sts[0], MPI_PROC_NULL, "PROC_NULL receive in a Waitall");
    CHECK(z == -5, "PROC_NULL receive in a Waitall changed the buffer");
    CHECK(sts[1].MPI_SOURCE == prev && v == prev, "real receive in a Waitall: source %d value %d",
          sts[1].MPI_SOURCE, v);

    void *p;
    int sz;
    MPI_OK(MPI_Buffer_detach(&p, &sz));
    free(bb);
    return mt_finish();
}
