/* Collectives of the sizes real codes use (issue 11, point 5), time per
 * call in microseconds, the median over BENCH_BATCHES batches:
 *   allreduce_8B_us, allreduce_64KiB_us, allreduce_1MiB_us  (doubles, sum)
 *   bcast_1MiB_us       from rank 0
 *   alltoall_4KiB_us    4 KiB to every rank
 *   allgather_64KiB_us  64 KiB from every rank
 *   reduce_scatter_1MiB_us  MPI_Reduce_scatter_block of 1 MiB of doubles
 *                       (sum), a block of 1 MiB / ranks each
 *   collectives [SECONDS]   (default 0.5 per measurement; any number of ranks) */
#include "bench_mpi.h"

#include <string.h>

enum { AR_8B, AR_64K, AR_1M, BCAST_1M, A2A_4K, AG_64K, RS_1M, NKINDS };
static const char *const names[NKINDS] = {
    "allreduce_8B_us", "allreduce_64KiB_us", "allreduce_1MiB_us",     "bcast_1MiB_us",
    "alltoall_4KiB_us", "allgather_64KiB_us", "reduce_scatter_1MiB_us"};
static int nranks;

static char *sbuf, *rbuf;

static double run(int kind, long n)
{
    double t0 = bench_now();
    for (long i = 0; i < n; i++) {
        switch (kind) {
        case AR_8B:
        case AR_64K:
        case AR_1M: {
            int count = kind == AR_8B ? 1 : kind == AR_64K ? 8192 : 131072;
            MPI_Allreduce(sbuf, rbuf, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        }
        case BCAST_1M:
            MPI_Bcast(sbuf, 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD);
            break;
        case A2A_4K:
            MPI_Alltoall(sbuf, 4096, MPI_BYTE, rbuf, 4096, MPI_BYTE, MPI_COMM_WORLD);
            break;
        case AG_64K:
            MPI_Allgather(sbuf, 65536, MPI_BYTE, rbuf, 65536, MPI_BYTE, MPI_COMM_WORLD);
            break;
        default:
            MPI_Reduce_scatter_block(sbuf, rbuf, 131072 / nranks, MPI_DOUBLE, MPI_SUM,
                                     MPI_COMM_WORLD);
        }
    }
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nranks = size;
    size_t bytes = (size_t)(size < 16 ? 16 : size) * 65536;
    sbuf = malloc(bytes), rbuf = malloc(bytes);
    memset(sbuf, 1, bytes);
    for (int kind = 0; kind < NKINDS; kind++)
        bench_per_iteration(run, kind, 4, seconds, names[kind]);
    free(sbuf), free(rbuf);
    MPI_Finalize();
    return 0;
}
