// ferry run --debug gallery (C++): every rank reads one element past the end of a
// std::vector through operator[], which does not check its index.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::vector<double> cells(4 + rank);
    double sum = 0;
    for (size_t i = 0; i <= cells.size(); i++)
        sum += cells[i]; // error: i == cells.size()
    std::printf("rank %d: %g\n", rank, sum);
    MPI_Finalize();
    return 0;
}
