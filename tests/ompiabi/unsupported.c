/* A function mpcr's libmpi.so.40 does not translate yet (a generated stub):
 * the job must end at once with the function named, not print "after". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int buf[4], rank;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("before %d\n", rank);
    fflush(stdout);
    MPI_Win_create(buf, sizeof buf, sizeof buf[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    printf("after %d\n", rank);
    MPI_Finalize();
    return 0;
}
