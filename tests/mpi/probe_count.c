/* Rank 0 sends 300 messages of changing sizes (some empty); rank 1 learns
 * each size with MPI_Probe (or an MPI_Iprobe polling loop) and
 * MPI_Get_count before receiving it into a buffer of exactly that size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned seed = 12345;
    long total = 0;
    for (int i = 0; i < 300; i++) {
        int n = (int)(rand_r(&seed) % 5000);
        if (i % 10 == 0) n = 0;
        if (rank == 0) {
            double *d = malloc((n + 1) * sizeof *d);
            for (int k = 0; k < n; k++)
                d[k] = i + k * 0.5;
            MPI_Send(d, n, MPI_DOUBLE, 1, i % 17, MPI_COMM_WORLD);
            free(d);
        } else if (rank == 1) {
            MPI_Status st;
            if (i % 2) {
                MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            } else {
                int flag = 0;
                while (!flag)
                    MPI_Iprobe(MPI_ANY_SOURCE, i % 17, MPI_COMM_WORLD, &flag, &st);
            }
            int count, bytes;
            MPI_Get_count(&st, MPI_DOUBLE, &count);
            MPI_Get_count(&st, MPI_BYTE, &bytes);
            double *d = malloc((count + 1) * sizeof *d);
            MPI_Recv(d, count, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            int ok = count == n && bytes == n * 8 && st.MPI_TAG == i % 17;
            for (int k = 0; k < count; k++)
                ok &= d[k] == i + k * 0.5;
            if (!ok)
                printf("message %d: expected %d doubles, got %d (%d bytes)\n", i, n, count, bytes);
            total += count;
            free(d);
        }
    }
    if (rank == 1) printf("received %ld doubles in 300 messages\n", total);
    MPI_Finalize();
    return 0;
}
