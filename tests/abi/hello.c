/* A hello with a sum over the ranks, built by the abi.sh cases with one
 * MPI's compiler or another: "rank R of N sum S" per rank, and once
 * connected (after MPI_Init), whether mpcr's guard is still in the
 * environment that programs this one starts would inherit (it must not). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, sum, one = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const char *audit = getenv("LD_AUDIT");
    printf("rank %d of %d sum %d audit %s\n", rank, size, sum, audit && *audit ? audit : "none");
    MPI_Finalize();
    return 0;
}
