/* A function mpcr's libmpi.so.40 does not translate yet (a generated stub):
 * the job must end at once with the function named, not print "after". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    char port[MPI_MAX_PORT_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("before %d\n", rank);
    fflush(stdout);
    MPI_Open_port(MPI_INFO_NULL, port);
    printf("after %d\n", rank);
    MPI_Finalize();
    return 0;
}
