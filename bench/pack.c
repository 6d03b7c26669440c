/* Packing and unpacking of derived datatypes, side by side in one run:
 * MPICH's own MPI_Pack/MPI_Unpack (run natively) against mpcr's engine
 * (src/lib/datatype/typemap*.c, compiled in and called directly) on the same type
 * built from the same arguments. Before timing, the packed bytes of both
 * are compared (a mismatch ends the run with status 1). Types, each packed
 * whole into 4-8 MiB:
 *   vector    MPI_Type_vector(512K, 1, 2, MPI_DOUBLE): every other double
 *   indexed   MPI_Type_indexed, 64K blocks of 1-7 doubles, gaps of 0-3
 *   subarray  the interior 100^3 of a 128^3 array of doubles (C order)
 * Each figure is the median over BENCH_BATCHES batches of the time of one
 * whole pack or unpack (best batch as _best):
 *   RESULT <type>_<pack|unpack>_mpich_ms, _mpcr_ms, and _ratio (MPICH's
 *   time over mpcr's: above 1, mpcr is faster)
 *   pack [SECONDS]  (budget per figure, default 0.5; run with one rank) */
#include "bench.h"
#include "typemap.h"

#include <mpi.h>
#include <string.h>

enum { NVEC = 512 * 1024, NIDX = 64 * 1024, EDGE = 128, SUB = 100 };

struct pair {
    const char *name;
    MPI_Datatype mpi;
    struct mpcr_type *tm;
    void *data;
    long bytes; /* packed */
};

static double time_once(const struct pair *p, void *packed, int unpack, int engine)
{
    double t0 = bench_now();
    if (engine) {
        if (unpack)
            mpcr_type_unpack(p->data, packed, 1, p->tm, 0, p->bytes);
        else
            mpcr_type_pack(packed, p->data, 1, p->tm, 0, p->bytes);
    } else {
        int pos = 0;
        if (unpack)
            MPI_Unpack(packed, (int)p->bytes, &pos, p->data, 1, p->mpi, MPI_COMM_WORLD);
        else
            MPI_Pack(p->data, 1, p->mpi, packed, (int)p->bytes, &pos, MPI_COMM_WORLD);
    }
    return bench_now() - t0;
}

/* Median (and best) over the batches, each as many runs as fit its share. */
static double measure(const struct pair *p, void *packed, int unpack, int engine, double seconds,
                      double *best)
{
    double v[BENCH_BATCHES];
    for (int b = 0; b < BENCH_BATCHES; b++) {
        double least = 1e9, start = bench_now();
        do {
            double t = time_once(p, packed, unpack, engine);
            if (t < least) least = t;
        } while (bench_now() - start < seconds / BENCH_BATCHES);
        v[b] = least;
    }
    double m = bench_median(v, BENCH_BATCHES);
    *best = v[0];
    return m;
}

static void run(const struct pair *p, double seconds)
{
    char *a = malloc((size_t)p->bytes), *b = malloc((size_t)p->bytes);
    int pos = 0;
    MPI_Pack(p->data, 1, p->mpi, a, (int)p->bytes, &pos, MPI_COMM_WORLD);
    long n = mpcr_type_pack(b, p->data, 1, p->tm, 0, p->bytes);
    if (pos != p->bytes || n != p->bytes || memcmp(a, b, (size_t)p->bytes)) {
        printf("# %s: mpcr's packed form differs from MPICH's\n", p->name);
        exit(1);
    }
    for (int unpack = 0; unpack < 2; unpack++) {
        double best[2], med[2];
        for (int engine = 0; engine < 2; engine++)
            med[engine] = measure(p, a, unpack, engine, seconds, &best[engine]);
        char metric[64];
        const char *what = unpack ? "unpack" : "pack";
        snprintf(metric, sizeof metric, "%s_%s_mpich_ms", p->name, what);
        bench_result(metric, med[0] * 1e3);
        snprintf(metric, sizeof metric, "%s_%s_mpcr_ms", p->name, what);
        bench_result(metric, med[1] * 1e3);
        snprintf(metric, sizeof metric, "%s_%s_ratio", p->name, what);
        bench_result(metric, med[0] / med[1]);
        printf("# %s %s best: MPICH %.3f ms, mpcr %.3f ms\n", p->name, what, best[0] * 1e3,
               best[1] * 1e3);
    }
    free(a);
    free(b);
}

static void *filled(size_t bytes)
{
    unsigned char *d = malloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        d[i] = (unsigned char)(i * 131 + 7);
    return d;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double seconds = bench_seconds(argc, argv, 0.5);
    struct mpcr_type *dbl;
    mpcr_type_basic(8, 8, &dbl);
    struct pair p[3];

    p[0] = (struct pair){"vector", 0, NULL, filled(2L * NVEC * 8), NVEC * 8L};
    MPI_Type_vector(NVEC, 1, 2, MPI_DOUBLE, &p[0].mpi);
    mpcr_type_vector(NVEC, 1, 2, dbl, &p[0].tm);

    static int bl[NIDX], dis[NIDX];
    static int64_t bl64[NIDX], dis64[NIDX];
    long at = 0, total = 0;
    for (int i = 0; i < NIDX; i++) {
        bl[i] = (int)(1 + (i * 7919L) % 7), dis[i] = (int)at;
        bl64[i] = bl[i], dis64[i] = dis[i];
        at += bl[i] + (i * 104729L) % 4, total += bl[i];
    }
    p[1] = (struct pair){"indexed", 0, NULL, filled((size_t)at * 8), total * 8};
    MPI_Type_indexed(NIDX, bl, dis, MPI_DOUBLE, &p[1].mpi);
    mpcr_type_indexed(NIDX, bl64, dis64, dbl, &p[1].tm);

    int sizes[3] = {EDGE, EDGE, EDGE}, subs[3] = {SUB, SUB, SUB}, starts[3] = {10, 10, 10};
    int64_t s64[3] = {EDGE, EDGE, EDGE}, sub64[3] = {SUB, SUB, SUB}, st64[3] = {10, 10, 10};
    p[2] = (struct pair){"subarray", 0, NULL, filled((size_t)EDGE * EDGE * EDGE * 8),
                         (long)SUB * SUB * SUB * 8};
    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &p[2].mpi);
    mpcr_type_subarray(3, s64, sub64, st64, true, dbl, &p[2].tm);

    for (int i = 0; i < 3; i++) {
        MPI_Type_commit(&p[i].mpi);
        run(&p[i], seconds);
    }
    MPI_Finalize();
    return 0;
}
