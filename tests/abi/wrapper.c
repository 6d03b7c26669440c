/* A program with a profiling layer of its own: it defines MPI_Init and
 * calls PMPI_Init, which mpcr's library provides. It must run: defining
 * MPI_Init is not carrying an MPI. */
#include <mpi.h>
#include <stdio.h>

static int wrapped;
int MPI_Init(int *argc, char ***argv)
{
    wrapped = 1;
    return PMPI_Init(argc, argv);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("wrapped %d rank %d of %d\n", wrapped, rank, size);
    MPI_Finalize();
    return 0;
}
