/* A program whose MPI calls are known exactly, for the profile's test
 * (tests/profile/profile.sh): rank 0 sends SENDS messages of 8 doubles and
 * 3 of 7 three-int elements to rank 1, which receives them; every rank
 * makes 10 MPI_Allreduce of 4 ints and 5 MPI_Bcast of 16 bytes. The
 * comments SITE-... mark the lines the profile must name. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int sends = argc > 1 ? atoi(argv[1]) : 100;
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) MPI_Abort(MPI_COMM_WORLD, 2);
    double d[8] = {0};
    long sum = 0;
    for (int i = 0; i < sends; i++) {
        if (rank == 0) {
            d[0] = i;
            MPI_Send(d, 8, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD); /* SITE-SEND */
        } else {
            MPI_Recv(d, 8, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* SITE-RECV */
            sum += (long)d[0];
        }
    }
    MPI_Datatype three;
    MPI_Type_contiguous(3, MPI_INT, &three);
    MPI_Type_commit(&three);
    int ints[21] = {0};
    for (int i = 0; i < 3; i++) {
        if (rank == 0)
            MPI_Send(ints, 7, three, 1, 8, MPI_COMM_WORLD);
        else
            MPI_Recv(ints, 7, three, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Type_free(&three);
    int in[4] = {rank, 1, 2, 3}, out[4];
    for (int i = 0; i < 10; i++)
        MPI_Allreduce(in, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* SITE-ALLREDUCE */
    char b[16] = "hello";
    for (int i = 0; i < 5; i++)
        MPI_Bcast(b, 16, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 1) printf("profile_counts rank 1: sum %ld, allreduce %d, bcast %s\n", sum, out[0], b);
    MPI_Finalize();
    return 0;
}
