/* Calls that need several operations at the proxy: each costs one round
 * trip over the channel under mpcr (MPI_Waitall over 8 requests, was 8;
 * MPI_Sendrecv, was 3; a barrier round, was 3). Two ranks exchange 8-byte
 * messages; each figure is the median over BENCH_BATCHES batches of the
 * time per call:
 *   sendrecv_us   MPI_Sendrecv with the other rank
 *   waitall8_us   4 MPI_Irecv + 4 MPI_Isend, then MPI_Waitall over the 8
 *   barrier_us    MPI_Barrier
 *   roundtrips [SECONDS]   (default 0.5; run with 2 ranks) */
#include "bench.h"

#include <mpi.h>

enum { SENDRECV, WAITALL8, BARRIER, NKINDS };
static const char *const names[NKINDS] = {"sendrecv_us", "waitall8_us", "barrier_us"};

static double run(int kind, long n, int peer)
{
    double t0 = bench_now();
    long x = 0, y[4];
    for (long i = 0; i < n; i++) {
        if (kind == SENDRECV) {
            MPI_Sendrecv(&x, 1, MPI_LONG, peer, 1, &y[0], 1, MPI_LONG, peer, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        } else if (kind == WAITALL8) {
            MPI_Request r[8];
            MPI_Status st[8];
            for (int k = 0; k < 4; k++)
                MPI_Irecv(&y[k], 1, MPI_LONG, peer, k, MPI_COMM_WORLD, &r[k]);
            for (int k = 0; k < 4; k++)
                MPI_Isend(&x, 1, MPI_LONG, peer, k, MPI_COMM_WORLD, &r[4 + k]);
            MPI_Waitall(8, r, st);
        } else {
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int peer = 1 - rank;
    for (int kind = 0; kind < NKINDS; kind++) {
        long n = 100;
        double warm = run(kind, n, peer);
        /* Rank 0 decides the batch size; both ranks must loop as often. */
        n = (long)(seconds / BENCH_BATCHES / (warm / n));
        if (n < 10) n = 10;
        MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        double us[BENCH_BATCHES];
        for (int b = 0; b < BENCH_BATCHES; b++)
            us[b] = run(kind, n, peer) / n * 1e6;
        if (rank == 0) bench_result(names[kind], bench_median(us, BENCH_BATCHES));
    }
    MPI_Finalize();
    return 0;
}
