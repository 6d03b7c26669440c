/* Calls that need several operations at the proxy: each costs one round
 * trip over the channel under mpcr (MPI_Waitall over 8 requests, was 8;
 * MPI_Sendrecv, was 3; a barrier round, was 3; a round of a collective
 * one). The ranks exchange 8-byte messages; each figure is the median over
 * BENCH_BATCHES batches of the time per call:
 *   sendrecv_us   MPI_Sendrecv with the next rank (from the previous)
 *   waitall8_us   4 MPI_Irecv + 4 MPI_Isend, then MPI_Waitall over the 8
 *   barrier_us    MPI_Barrier
 *   bcast_us      MPI_Bcast of 8 bytes from rank 0
 *   reduce_us     MPI_Reduce of one double (sum) to rank 0
 *   gather_us     MPI_Gather of 8 bytes a rank to rank 0
 *   allreduce_us  MPI_Allreduce of one double (sum)
 *   roundtrips [SECONDS]   (default 0.5; any number of ranks) */
#include "bench_mpi.h"


enum { SENDRECV, WAITALL8, BARRIER, BCAST, REDUCE, GATHER, ALLREDUCE, NKINDS };
static const char *const names[NKINDS] = {"sendrecv_us", "waitall8_us", "barrier_us",  "bcast_us",
                                          "reduce_us",   "gather_us",   "allreduce_us"};
static long all[1024];
static int peer, from; /* the next rank and the previous */

static double run(int kind, long n)
{
    double t0 = bench_now();
    long x = 0, y[4];
    double d = 1, e;
    for (long i = 0; i < n; i++) {
        if (kind == SENDRECV) {
            MPI_Sendrecv(&x, 1, MPI_LONG, peer, 1, &y[0], 1, MPI_LONG, from, 1, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        } else if (kind == WAITALL8) {
            MPI_Request r[8];
            MPI_Status st[8];
            for (int k = 0; k < 4; k++)
                MPI_Irecv(&y[k], 1, MPI_LONG, from, k, MPI_COMM_WORLD, &r[k]);
            for (int k = 0; k < 4; k++)
                MPI_Isend(&x, 1, MPI_LONG, peer, k, MPI_COMM_WORLD, &r[4 + k]);
            MPI_Waitall(8, r, st);
        } else if (kind == BARRIER) {
            MPI_Barrier(MPI_COMM_WORLD);
        } else if (kind == BCAST) {
            MPI_Bcast(&x, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        } else if (kind == REDUCE) {
            MPI_Reduce(&d, &e, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        } else if (kind == GATHER) {
            MPI_Gather(&x, 1, MPI_LONG, all, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1024) MPI_Abort(MPI_COMM_WORLD, 2);
    peer = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int kind = 0; kind < NKINDS; kind++)
        bench_per_iteration(run, kind, 100, seconds, names[kind]);
    MPI_Finalize();
    return 0;
}
