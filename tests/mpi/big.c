/* One message of 256 MiB + 3 bytes from rank 0 to rank 1 and back, every
 * byte checked; the receive buffer is larger than the message. */
#include "out.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N ((256L << 20) + 3)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    unsigned char *buf = malloc(N + 4096);
    MPI_Status st;
    int count, ok = 1;
    if (rank == 0) {
        for (long i = 0; i < N; i++)
            buf[i] = (unsigned char)(i ^ (i >> 13));
        MPI_Send(buf, (int)N, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)N + 4096, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &st);
        for (long i = 0; i < N; i++)
            ok &= buf[i] == (unsigned char)((i ^ (i >> 13)) + 1);
    } else if (rank == 1) {
        MPI_Recv(buf, (int)N + 4096, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        for (long i = 0; i < N; i++) {
            ok &= buf[i] == (unsigned char)(i ^ (i >> 13));
            buf[i]++;
        }
        MPI_Send(buf, (int)N, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
    if (rank <= 1) {
        MPI_Get_count(&st, MPI_BYTE, &count);
        out("rank %d: %d bytes %s\n", rank, count, ok && count == N ? "intact" : "CORRUPT");
    }
    free(buf);
    out_flush();
    MPI_Finalize();
    return 0;
}
