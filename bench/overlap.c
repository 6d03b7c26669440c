/* Communication overlapped with computation (issue 11, point 3): how much
 * of a non-blocking transfer is left for the wait after the program
 * computed without MPI calls, and what a rank's parent costs meanwhile.
 *
 *   overlap [SECONDS]   (2 ranks; SECONDS sizes the repetitions, default 0.5)
 *
 * Each repetition: both ranks start the operation, compute COMPUTE_MS
 * without any MPI call, then wait; the time spent in the wait is measured
 * (rank 0's, the median of the repetitions):
 *   overlap_p2p_4MiB_wait_us        MPI_Irecv + MPI_Isend of 4 MiB each way, MPI_Waitall
 *   overlap_iallreduce_1MiB_wait_us MPI_Iallreduce of 1 MiB (doubles, sum), MPI_Wait
 * and, with a receive posted long before its message comes (the peer sends
 * only after computing), the CPU its parent used during the computation
 * (the mpcr proxy; natively MPICH's hydra_pmi_proxy), in % of a core:
 *   overlap_pending_recv_parent_cpu_pct
 * Natively MPICH moves data only inside MPI calls (no progress thread), so
 * most of the transfer is left for the wait. */
#include "bench.h"

#include <mpi.h>
#include <string.h>
#include <unistd.h>

#define COMPUTE_MS 10.0
#define P2P_BYTES (4 << 20)
#define COLL_DOUBLES ((1 << 20) / 8)

static void compute(double ms)
{
    volatile double x = 1.0;
    double end = bench_now() + ms / 1000;
    while (bench_now() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
}

static double parent_cpu_seconds(void)
{
    clockid_t c;
    struct timespec ts;
    if (clock_getcpuclockid(getppid(), &c) || clock_gettime(c, &ts)) return -1;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One repetition of operation `kind`; returns the seconds its wait took. */
static double once(int kind, char *sbuf, char *rbuf, int peer)
{
    MPI_Request r[2];
    MPI_Status st[2]; /* not MPI_STATUSES_IGNORE: gcc's bounds check of MPICH's prototype refuses it */
    if (kind == 0) {
        MPI_Irecv(rbuf, P2P_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(sbuf, P2P_BYTES, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r[1]);
    } else {
        MPI_Iallreduce(sbuf, rbuf, COLL_DOUBLES, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    }
    compute(COMPUTE_MS);
    double t = bench_now();
    MPI_Waitall(kind == 0 ? 2 : 1, r, st);
    return bench_now() - t;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double seconds = bench_seconds(argc, argv, 0.5);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (!rank) fprintf(stderr, "overlap: run it with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - rank;
    char *sbuf = malloc(P2P_BYTES), *rbuf = malloc(P2P_BYTES);
    for (int i = 0; i < P2P_BYTES / 8; i++)
        ((double *)sbuf)[i] = i % 1000;
    memset(rbuf, 0, P2P_BYTES);
    int reps = (int)(seconds / (COMPUTE_MS / 1000) / 2);
    if (reps < 5) reps = 5;
    if (reps > 200) reps = 200;
    const char *metric[2] = {"overlap_p2p_4MiB_wait_us", "overlap_iallreduce_1MiB_wait_us"};
    double *wait = malloc((size_t)reps * sizeof *wait);
    for (int kind = 0; kind < 2; kind++) {
        once(kind, sbuf, rbuf, peer); /* warm-up: staging grown, rendezvous set up */
        for (int i = 0; i < reps; i++) {
            MPI_Barrier(MPI_COMM_WORLD);
            wait[i] = once(kind, sbuf, rbuf, peer) * 1e6;
        }
        if (!rank) bench_result(metric[kind], bench_median(wait, reps));
    }

    /* A receive posted a second before its message: the parent's CPU meanwhile. */
    MPI_Request r;
    int token = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank) MPI_Irecv(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &r);
    double c0 = parent_cpu_seconds(), t0 = bench_now();
    compute(1000 * (seconds < 0.2 ? 0.2 : seconds));
    double pct = (parent_cpu_seconds() - c0) / (bench_now() - t0) * 100;
    if (rank)
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    else
        MPI_Send(&token, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    if (rank) MPI_Send(&pct, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD);
    else {
        MPI_Recv(&pct, 1, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bench_result("overlap_pending_recv_parent_cpu_pct", pct);
    }
    free(wait), free(sbuf), free(rbuf);
    MPI_Finalize();
    return 0;
}
