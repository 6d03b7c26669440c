/* Helpers shared by mpcr's benchmarks: a clock, the median of a few
 * batches, and the one output format that bench/run.sh reads:
 *
 *   RESULT <metric> <value>          (the median of the batches)
 *   RESULT <metric>_best <value>     (the best batch, where batches are timed)
 *
 * printed by rank 0 only. Everything else a benchmark prints is for
 * people and starts with "#". The benchmarks use only MPI calls that
 * mpcr's passive library implements (Init, Finalize, Comm_rank/size,
 * Send, Recv, Iprobe, Barrier, Wtime), so that the same binary runs
 * natively and under `mpcr run`. */
#ifndef MPCR_BENCH_H
#define MPCR_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Each measurement is taken BENCH_BATCHES times; the median is reported,
 * so that one batch disturbed by another process does not decide. */
#define BENCH_BATCHES 5

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n), n >= 1; sorts v, so v[0] is then the least. */
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The time budget of one measurement in seconds, from argv[1] (default def). */
static inline double bench_seconds(int argc, char **argv, double def)
{
    if (argc < 2) return def;
    char *end;
    double s = strtod(argv[1], &end);
    if (*end || s < 0) {
        fprintf(stderr, "usage: %s [SECONDS]\n", argv[0]);
        exit(2);
    }
    return s;
}

static inline void bench_result(const char *metric, double value)
{
    printf("RESULT %s %.6g\n", metric, value);
    fflush(stdout);
}

/* The best batch too (fastest time, highest rate), as "<metric>_best": on a
 * machine shared with other work it shows what an undisturbed batch gets. */
static inline void bench_result_best(const char *metric, double value)
{
    printf("RESULT %s_best %.6g\n", metric, value);
    fflush(stdout);
}

#endif
