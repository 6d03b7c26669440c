// C++ built for the MPI 5.0 standard ABI with mpcr's mpicxx_abi (tests/stdabi.cmake):
// mpcr's mpi.h in C++ (extern "C", the handles' structures), a collective.
#include <mpi.h>
#include <iostream>
#include <vector>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> all(size);
    MPI_Allgather(&rank, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int sum = 0;
    for (int v : all) sum += v;
    if (rank == 0) std::cout << "C++ under the standard ABI: " << size << " ranks, sum " << sum << std::endl;
    MPI_Finalize();
}
