/* Ping-pong between ranks 0 and 1: half round-trip latency for small
 * messages, bandwidth for large ones.
 *
 *   pingpong [SECONDS]      (SECONDS per message size, default 0.25)
 *
 * Rank 0 sends N bytes with MPI_Send, rank 1 receives them with MPI_Recv
 * and sends them back, for SECONDS/5 (a batch; rank 0 ends it through the
 * tag of its last message). After one warm-up round trip, BENCH_BATCHES
 * batches are timed for every size and the median reported:
 *   latency_<N>_us  = batch time / round trips / 2        (0 B, 8 B, 1 KiB)
 *   bw_<N>_MBps     = N / (batch time / round trips / 2) / 1e6
 *                                                         (64 KiB, 1 MiB, 16 MiB)
 * i.e. bandwidth as NetPIPE reports it: one message in flight at a time.
 * Ranks beyond 1 only take part in MPI_Init and MPI_Finalize. */
#include "bench_mpi.h"

#include <mpi.h>
#include <string.h>

static const struct size {
    long bytes;
    const char *metric;
    int latency; /* 1: report latency in us; 0: bandwidth in MB/s */
} sizes[] = {
    {0, "latency_0B_us", 1},        {8, "latency_8B_us", 1},      {1024, "latency_1KiB_us", 1},
    {64 << 10, "bw_64KiB_MBps", 0}, {1 << 20, "bw_1MiB_MBps", 0}, {16 << 20, "bw_16MiB_MBps", 0},
};
#define NSIZES    (int)(sizeof sizes / sizeof *sizes)
#define MAX_BYTES (16 << 20)

#define TAG_GO   1
#define TAG_LAST 2

/* One batch: round trips of n bytes for about `seconds`. Rank 0 decides
 * when to stop and says so in the tag of its last message, so no count has
 * to be agreed beforehand; rank 0 looks at the clock only every 16 round
 * trips for small messages. Returns the time of one half round trip as
 * rank 0 saw it (0 on rank 1). */
static double batch(int rank, char *buf, long n, double seconds)
{
    int peer = 1 - rank, tag = TAG_GO;
    long trips = 0, every = n < (64 << 10) ? 16 : 1;
    MPI_Status st;
    double t0 = bench_now(), end = t0 + seconds;
    while (tag == TAG_GO) {
        if (rank == 0) {
            if (++trips % every == 0 && bench_now() >= end) tag = TAG_LAST;
            MPI_Send(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
            MPI_Recv(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf, (int)n, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            tag = st.MPI_TAG;
            MPI_Send(buf, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
        }
    }
    return rank == 0 ? (bench_now() - t0) / trips / 2 : 0;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.25);
    int rank, size;
    bench_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "pingpong: needs 2 ranks (-n 2)\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc(MAX_BYTES);
    if (!buf) {
        fprintf(stderr, "pingpong: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, rank, MAX_BYTES); /* fault the pages in before timing */

    for (int s = 0; rank < 2 && s < NSIZES; s++) {
        long n = sizes[s].bytes;
        batch(rank, buf, n, 0); /* warm-up: at least one round trip */
        double half[BENCH_BATCHES];
        for (int b = 0; b < BENCH_BATCHES; b++)
            half[b] = batch(rank, buf, n, seconds / BENCH_BATCHES);
        if (rank == 0) {
            double h = bench_median(half, BENCH_BATCHES);
            printf("# %8ld B: half round trip %.3f us (batches from %.3f to %.3f)\n", n, h * 1e6,
                   half[0] * 1e6, half[BENCH_BATCHES - 1] * 1e6);
            bench_result(sizes[s].metric, sizes[s].latency ? h * 1e6 : n / h / 1e6);
            bench_result_best(sizes[s].metric,
                              sizes[s].latency ? half[0] * 1e6 : n / half[0] / 1e6);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
