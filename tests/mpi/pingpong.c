/* Ping-pong between ranks 0 and 1 over sizes from 0 bytes to 4 MiB; every
 * byte is checked on both sides. */
#include "out.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void fill(unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 31 + seed);
}
static int check(const unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 31 + seed)) return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const long sizes[] = {0, 1, 8, 1024, 65536, 1 << 20, 4 << 20};
    for (unsigned s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        long n = sizes[s];
        unsigned char *buf = malloc(n + 1);
        int ok = 1, count;
        MPI_Status st;
        for (int it = 0; it < 20; it++) {
            if (rank == 0) {
                fill(buf, n, it);
                MPI_Send(buf, (int)n, MPI_BYTE, 1, it, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, it, MPI_COMM_WORLD, &st);
                ok &= check(buf, n, it + 1);
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, it, MPI_COMM_WORLD, &st);
                ok &= check(buf, n, it);
                fill(buf, n, it + 1);
                MPI_Send(buf, (int)n, MPI_BYTE, 0, it, MPI_COMM_WORLD);
            }
            if (rank <= 1) {
                MPI_Get_count(&st, MPI_BYTE, &count);
                ok &= count == n && st.MPI_TAG == it && st.MPI_SOURCE == 1 - rank;
            }
        }
        out("rank %d size %ld %s\n", rank, n, ok ? "ok" : "CORRUPT");
        free(buf);
    }
    out_flush();
    MPI_Finalize();
    return 0;
}
