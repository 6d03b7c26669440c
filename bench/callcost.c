/* The cost of one MPI call that does nothing: MPI_Iprobe(MPI_ANY_SOURCE,
 * MPI_ANY_TAG, MPI_COMM_WORLD) with no message pending.
 *
 *   callcost [SECONDS]      (default 0.5)
 *
 * Natively this is MPICH's own Iprobe (one poll of its queues). Under mpcr
 * a loop of negative Iprobes asks the proxy at a pace, answering "nothing
 * yet" itself in between (src/lib/runtime/poll_pace.c): the figure of a program
 * that polls. With MPCR_POLL_PACE_NS=0 every call is a full round trip over
 * the channel to the proxy, which runs the real Iprobe, so the difference
 * to native is the price of proxying one call (bench/run.sh runs both). Each
 * rank loops over Iprobe; rank 0 calibrates the count so that a batch
 * lasts SECONDS/5 and reports the median of BENCH_BATCHES batches:
 *   iprobe_ns = batch time / calls
 * Meant for 1 rank (the figure); with more, every rank probes
 * (their proxies then compete for the same cores) and rank 0 reports. */
#include "bench_mpi.h"

#include <mpi.h>

static double probes(long n)
{
    int flag;
    double t0 = bench_now();
    for (long i = 0; i < n; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    int rank;
    bench_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);

    long warm = 1000;
    long n = (long)(seconds / BENCH_BATCHES / (probes(warm) / warm));
    if (n < 10) n = 10;
    double ns[BENCH_BATCHES];
    for (int b = 0; b < BENCH_BATCHES; b++)
        ns[b] = probes(n) / n * 1e9;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        double m = bench_median(ns, BENCH_BATCHES);
        printf("# %ld calls per batch; batches from %.1f to %.1f ns per call\n", n, ns[0],
               ns[BENCH_BATCHES - 1]);
        bench_result("iprobe_ns", m);
        bench_result_best("iprobe_ns", ns[0]);
    }
    MPI_Finalize();
    return 0;
}
