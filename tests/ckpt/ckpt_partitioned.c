/* Checkpoint scenario: partitioned point-to-point (docs/partitioned.md).
 * Ranks in pairs; each rank holds one MPI_Psend_init and one MPI_Precv_init
 * to its partner (P partitions of N uint64_t), made once and started with
 * MPI_Startall every iteration. It fills and marks its partitions ready one
 * at a time, with about UNITS units of computation before each, in an order
 * and by a function (MPI_Pready, _range of one, _list of one) that change
 * with the iteration, and polls MPI_Parrived on the receive between them;
 * so a checkpoint lands most often with some partitions ready and others
 * not, the receive pending at the proxy (reposted at a restart) or its
 * message drained. Each received buffer is folded into the state that the
 * next iteration's partitions are made from, so one lost, doubled or stale
 * partition changes every result.
 *   ckpt_partitioned [ITERS [P [N [UNITS]]]]   (default 60 8 64 3) */
#include "ckpt.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 60), parts = arg_long(argc, argv, 2, 8),
         n = arg_long(argc, argv, 3, 64), units = arg_long(argc, argv, 4, 3);
    int rank;
    int peer = paired_peer(&rank);
    uint64_t *out = calloc((size_t)(parts * n), sizeof *out);
    uint64_t *in = calloc((size_t)(parts * n), sizeof *in);
    MPI_Request rq[2];
    MPI_Precv_init(in, (int)parts, n, MPI_UINT64_T, peer, 11, MPI_COMM_WORLD, MPI_INFO_NULL,
                   &rq[0]);
    MPI_Psend_init(out, (int)parts, n, MPI_UINT64_T, peer, 11, MPI_COMM_WORLD, MPI_INFO_NULL,
                   &rq[1]);
    uint64_t state = mix64((uint64_t)rank), work = 0, arrived_seen = 0;
    long every = iters / 6 > 0 ? iters / 6 : 1;
    for (long it = 0; it < iters; it++) {
        MPI_Startall(2, rq);
        for (long k = 0; k < parts; k++) {
            /* the partitions in an order that changes with the iteration */
            long p = (it % 2 == 0 ? k : parts - 1 - k);
            work = mix2(work, compute(mix2(state, (uint64_t)(it * parts + p)), units));
            for (long i = 0; i < n; i++)
                out[p * n + i] = mix2(state, (uint64_t)(p * n + i));
            int pi = (int)p;
            switch ((it + k) % 3) {
            case 0:
                MPI_Pready(pi, rq[1]);
                break;
            case 1:
                MPI_Pready_range(pi, pi, rq[1]);
                break;
            default:
                MPI_Pready_list(1, &pi, rq[1]);
            }
            int flag;
            MPI_Parrived(rq[0], (int)(k % parts), &flag);
            arrived_seen += (uint64_t)flag; /* timing-dependent: not reported */
        }
        int flag = 0;
        while (!flag)
            MPI_Parrived(rq[0], (int)(parts - 1), &flag);
        MPI_Status sts[2];
        MPI_Waitall(2, rq, sts);
        for (long i = 0; i < parts * n; i++)
            state = mix2(state, in[i]);
        if (it % every == every - 1) {
            uint64_t all;
            MPI_Reduce(&state, &all, 1, MPI_UINT64_T, MPI_BXOR, 0, MPI_COMM_WORLD);
            progress("partitioned: iteration %ld, state %" PRIu64 "\n", it + 1, all);
        }
    }
    (void)arrived_seen;
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    const char *names[] = {"state", "work"};
    uint64_t v[] = {state, work};
    report("partitioned", names, v, 2);
    free(out), free(in);
    MPI_Finalize();
    return 0;
}
