/* Many-to-one: every other rank sends 2000 messages of 1 to 100 longs to
 * rank 0, which takes them in whatever order they come. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long buf[100];
    if (rank > 0) {
        for (int i = 0; i < 2000; i++) {
            int n = 1 + (i * 7 + rank) % 100;
            for (int k = 0; k < n; k++)
                buf[k] = (long)rank * 100000 + i + k;
            MPI_Send(buf, n, MPI_LONG, 0, 5, MPI_COMM_WORLD);
        }
    } else {
        long sum = 0, count = 0;
        for (int m = 0; m < 2000 * (size - 1); m++) {
            MPI_Status st;
            int n;
            MPI_Recv(buf, 100, MPI_LONG, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_LONG, &n);
            for (int k = 0; k < n; k++)
                sum += buf[k];
            count += n;
        }
        printf("fan-in: %ld longs, sum %ld\n", count, sum);
    }
    MPI_Finalize();
    return 0;
}
