/* A program carrying serial stubs of MPI instead of an MPI library (as
 * codes built without MPI do, LAMMPS' STUBS for one): run on N ranks it
 * would be N jobs of one. mpcr must refuse it before it starts. */
#include <stdio.h>

typedef int MPI_Comm;
int MPI_Init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}
int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    (void)comm;
    *rank = 0;
    return 0;
}
int MPI_Comm_size(MPI_Comm comm, int *size)
{
    (void)comm;
    *size = 1;
    return 0;
}
int MPI_Finalize(void)
{
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(0, &rank);
    MPI_Comm_size(0, &size);
    printf("rank %d of %d\n", rank, size);
    return MPI_Finalize();
}
