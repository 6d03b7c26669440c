/* One-sided communication (issue 40 point 7; docs/one-sided.md), 2 ranks:
 * rank 0 is the origin, rank 1 the target, computing nothing (it waits in
 * a barrier: its MPI, or its proxy, progresses the window). Each figure is
 * the median of bench_per_iteration's batches, in us an operation:
 *   put_8B_us       MPI_Put of 8 B + MPI_Win_flush, in a lock_all epoch
 *   put_1MiB_us     the same with 1 MiB (1,048,576 / it: MB/s)
 *   get_8B_us       MPI_Get of 8 B + flush
 *   acc_8B_us       MPI_Accumulate (MPI_SUM) of one int64 + flush
 *   fop_us          MPI_Fetch_and_op (MPI_SUM) + flush
 *   cas_us          MPI_Compare_and_swap + flush
 *   fence_us        a fence epoch with one 8 B Put (both ranks)
 *   lock_us         lock exclusive, 8 B Put, unlock
 * on a window of MPI_Win_allocate; created_put_8B_us and
 * created_put_1MiB_us again on a window of MPI_Win_create over the heap
 * (under mpcr its pages shared with the proxy: the unified model).
 *   rma [SECONDS]  (a figure's share of the run; default 0.25) */
#include "bench_mpi.h"

#include <string.h>

#define BIG (1 << 20)

enum kind { PUT8, PUT1M, GET8, ACC, FOP, CAS, FENCE, LOCK, KINDS };

static MPI_Win win;
static int rank;
static char *origin;

static double run(int kind, long n)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now();
    if (kind == FENCE) {
        for (long i = 0; i < n; i++) {
            MPI_Win_fence(0, win);
            if (rank == 0) MPI_Put(origin, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
            MPI_Win_fence(0, win);
        }
    } else if (rank == 0 && kind == LOCK) {
        for (long i = 0; i < n; i++) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(origin, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win);
            MPI_Win_unlock(1, win);
        }
    } else if (rank == 0) {
        int64_t one = 1, old, cmp = 0;
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < n; i++) {
            switch (kind) {
            case PUT8: MPI_Put(origin, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win); break;
            case PUT1M: MPI_Put(origin, BIG, MPI_BYTE, 1, 0, BIG, MPI_BYTE, win); break;
            case GET8: MPI_Get(origin, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, win); break;
            case ACC: MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, MPI_SUM, win); break;
            case FOP: MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win); break;
            case CAS: MPI_Compare_and_swap(&one, &cmp, &old, MPI_INT64_T, 1, 8, win); break;
            }
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
    }
    double t = bench_now() - t0;
    MPI_Barrier(MPI_COMM_WORLD); /* the target waits here meanwhile */
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static void figures(double seconds, const char *prefix, int all)
{
    static const char *const names[KINDS] = {"put_8B_us", "put_1MiB_us", "get_8B_us", "acc_8B_us",
                                             "fop_us",    "cas_us",      "fence_us",  "lock_us"};
    for (int k = 0; k < KINDS; k++) {
        if (!all && k != PUT8 && k != PUT1M) continue;
        char metric[64];
        snprintf(metric, sizeof metric, "%s%s", prefix, names[k]);
        bench_per_iteration(run, k, k == PUT1M ? 4 : 50, seconds, metric);
    }
}

int main(int argc, char **argv)
{
    bench_mpi_init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "rma: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double seconds = argc > 1 ? atof(argv[1]) : 0.25;
    origin = malloc(BIG);
    memset(origin, 1, BIG);
    char *mem;
    MPI_Win_allocate(BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    memset(mem, 0, BIG);
    MPI_Barrier(MPI_COMM_WORLD);
    figures(seconds, "", 1);
    MPI_Win_free(&win);
    char *heap = calloc(1, BIG);
    MPI_Win_create(heap, BIG, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    figures(seconds, "created_", 0);
    MPI_Win_free(&win);
    free(heap);
    free(origin);
    MPI_Finalize();
    return 0;
}
