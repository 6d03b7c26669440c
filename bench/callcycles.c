/* The cost of a call in processor cycles, robust to a loaded machine: the
 * best of BATCHES batches of CALLS calls each, timed with the time-stamp
 * counter (a batch that another process interrupted is only slower, never
 * faster, so the best is the call's own cost). For the profile's cost
 * (bench/profile.sh, docs/profile.md), where the differences are a few
 * cycles and bench/callcost's medians drown them on a shared machine.
 *   callcycles [BATCHES]      (default 200; 20 000 calls a batch)
 *   comm_rank_cycles    MPI_Comm_rank: answered in the library
 *   iprobe_cycles       MPI_Iprobe finding nothing, paced (src/lib/runtime/poll_pace.c):
 *                       mostly answered in the library, now and then by the proxy */
#include "bench_mpi.h"

#include <mpi.h>
#include <stdlib.h>
#include <x86intrin.h>

enum { CALLS = 20000 };

static double best_of(int batches, int probe)
{
    double best = 1e300;
    int r, flag;
    for (int b = 0; b < batches; b++) {
        unsigned long long t0 = __rdtsc();
        for (int i = 0; i < CALLS; i++)
            if (probe)
                MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            else
                MPI_Comm_rank(MPI_COMM_WORLD, &r);
        double c = (double)(__rdtsc() - t0) / CALLS;
        if (c < best) best = c;
    }
    return best;
}

int main(int argc, char **argv)
{
    int batches = argc > 1 ? atoi(argv[1]) : 200;
    if (batches < 1) batches = 1;
    int rank;
    bench_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double rank_c = best_of(batches, 0), probe_c = best_of(batches, 1);
    if (rank == 0) {
        bench_result("comm_rank_cycles", rank_c);
        bench_result("iprobe_cycles", probe_c);
    }
    MPI_Finalize();
    return 0;
}
