/* Start-up and shut-down: MPI_Init followed by MPI_Finalize, nothing else.
 * bench/run.sh times the whole launch (mpiexec, and under mpcr the proxies
 * and the channel set-up) from outside, as the wall time of the command. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
