/* User regions and MPI_Pcontrol (tests/prof/regions.sh): on every rank
 *   ferry_trace_begin("outer"), MPI_Barrier, ferry_trace_begin("inner"), MPI_Barrier,
 *   ferry_trace_end("inner"), ferry_trace_note("halfway"), ferry_trace_end("outer");
 *   MPI_Pcontrol(0); 5 x MPI_Allreduce (not recorded); MPI_Pcontrol(1);
 *   MPI_Pcontrol(3); MPI_Bcast; MPI_Pcontrol(-3); ferry_trace_begin("left open").
 * Links and runs without the recorder too (libmpi's ferry_trace_* do nothing). */
#include <ferry/trace.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, x = 1, y;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ferry_trace_begin("outer");
    MPI_Barrier(MPI_COMM_WORLD);
    ferry_trace_begin("inner");
    MPI_Barrier(MPI_COMM_WORLD);
    ferry_trace_end("inner");
    ferry_trace_note("halfway");
    ferry_trace_end("outer");
    MPI_Pcontrol(0);
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    MPI_Pcontrol(3);
    MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Pcontrol(-3);
    ferry_trace_begin("left open");
    if (rank == 0)
        printf("regions done\n");
    MPI_Finalize();
    return 0;
}
