/* The timing loop shared by the MPI benchmarks that measure a time per
 * iteration (collectives, roundtrips, halo). Kept apart from bench.h,
 * which benchmarks without MPI include too. */
#ifndef MPCR_BENCH_MPI_H
#define MPCR_BENCH_MPI_H

#include "bench.h"

#include <mpi.h>
#include <stdlib.h>

/* MPI_Init, or MPI_Init_thread(MPI_THREAD_MULTIPLE) with
 * BENCH_THREAD_MULTIPLE=1 in the environment: what asking for MULTIPLE
 * costs a program that calls from one thread (issue 16, point 6). */
static inline void bench_mpi_init(int *argc, char ***argv)
{
    const char *m = getenv("BENCH_THREAD_MULTIPLE");
    int provided;
    if (m && *m == '1')
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(argc, argv);
}

/* run(kind, n) does n iterations of measurement `kind` on every rank and
 * returns the seconds they took. After warm_n iterations to warm up and to
 * size the batches, BENCH_BATCHES batches fill about `seconds`; rank 0
 * decides the batch size (every rank must loop as often) and prints the
 * median time per iteration in microseconds as RESULT `metric`. */
static inline void bench_per_iteration(double (*run)(int kind, long n), int kind, long warm_n,
                                       double seconds, const char *metric)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double warm = run(kind, warm_n);
    long n = (long)(seconds / BENCH_BATCHES / (warm / warm_n));
    if (n < warm_n) n = warm_n;
    MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double us[BENCH_BATCHES];
    for (int b = 0; b < BENCH_BATCHES; b++)
        us[b] = run(kind, n) / n * 1e6;
    if (rank == 0) bench_result(metric, bench_median(us, BENCH_BATCHES));
}

#endif
