/* A token of 1000 ints travels around the ring 50 times; every rank adds to
 * it on the way. Rank 0 prints a checksum per lap. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, token[1000] = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int lap = 0; lap < 50; lap++) {
        if (rank == 0) {
            for (int i = 0; i < 1000; i++)
                token[i] += i * lap;
            MPI_Send(token, 1000, MPI_INT, next, lap, MPI_COMM_WORLD);
            MPI_Recv(token, 1000, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            long sum = 0;
            for (int i = 0; i < 1000; i++)
                sum += token[i] * (long)(i + 1);
            printf("lap %d checksum %ld\n", lap, sum);
        } else {
            MPI_Recv(token, 1000, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 1000; i++)
                token[i] += rank * (i % 7);
            MPI_Send(token, 1000, MPI_INT, next, lap, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
