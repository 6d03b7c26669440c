/* Checkpoint scenario: long computations between collectives, so that a
 * checkpoint finds some ranks computing and others waiting inside
 * MPI_Barrier or MPI_Waitall. In each of PHASES phases every rank computes
 * for 1 to 3 x UNITS units (unequal across ranks), then MPI_Barrier and
 * MPI_Allreduce; then it posts a ring exchange (MPI_Irecv, MPI_Isend),
 * computes again for an unequal time while the messages travel, and waits
 * for them (MPI_Waitall); then MPI_Bcast from a rotating root, and in
 * alternate phases MPI_Reduce, MPI_Allgather, MPI_Alltoall, MPI_Scatter and
 * an MPI_Allreduce within half of the ranks (MPI_Comm_split).
 *   ckpt_compute [PHASES [UNITS]]   (default 12 60) */
#include "ckpt.h"

#define LEN 4096 /* words of the ring messages and of the broadcast */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long phases = arg_long(argc, argv, 1, 12), units = arg_long(argc, argv, 2, 60);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
    uint64_t *sbuf = malloc(LEN * sizeof *sbuf), *rbuf = malloc(LEN * sizeof *rbuf);
    uint64_t *all = malloc((size_t)size * sizeof *all), *mine = malloc((size_t)size * sizeof *mine);
    uint64_t sum = 0;
    for (long p = 0; p < phases; p++) {
        /* Unequal computation, then everyone meets. */
        uint64_t x = compute(mix2((uint64_t)p, (uint64_t)rank), units * (1 + (p + rank) % 3));
        MPI_Barrier(MPI_COMM_WORLD);
        uint64_t in[2] = {x, x ^ (uint64_t)rank}, out[2];
        MPI_Allreduce(in, out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(in + 1, out + 1, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
        sum = mix2(sum, out[0] ^ mix64(out[1]));
        /* A ring exchange in flight during more unequal computation. */
        MPI_Request rq[2];
        MPI_Status st[2];
        sbuf[0] = x;
        for (int j = 1; j < LEN; j++)
            sbuf[j] = mix2(x, j);
        MPI_Irecv(rbuf, LEN, MPI_UINT64_T, prev, (int)p, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sbuf, LEN, MPI_UINT64_T, next, (int)p, MPI_COMM_WORLD, &rq[1]);
        uint64_t y = compute(x, units * (1 + (p + 2 * rank + 1) % 3));
        MPI_Waitall(2, rq, st);
        for (int j = 1; j < LEN; j++)
            check(rbuf[j] == mix2(rbuf[0], j), "phase %ld: word %d from %d is wrong", p, j, prev);
        sum = mix2(sum, rbuf[0]);
        /* Broadcast from a rotating root. */
        int root = (int)(p % size);
        if (rank == root)
            for (int j = 0; j < LEN; j++)
                sbuf[j] = mix2(y, j);
        MPI_Bcast(sbuf, LEN, MPI_UINT64_T, root, MPI_COMM_WORLD);
        sum = mix2(sum, sbuf[LEN / 2]);
        if (p % 2) {
            uint64_t r = 0;
            MPI_Reduce(&y, &r, 1, MPI_UINT64_T, MPI_BXOR, root, MPI_COMM_WORLD);
            MPI_Allgather(&y, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
            for (int i = 0; i < size; i++)
                sum = mix2(sum, all[i]);
            for (int i = 0; i < size; i++)
                mine[i] = mix2(y, (uint64_t)i);
            MPI_Alltoall(mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, MPI_COMM_WORLD);
            uint64_t s;
            MPI_Scatter(all, 1, MPI_UINT64_T, &s, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
            uint64_t h;
            MPI_Allreduce(&s, &h, 1, MPI_UINT64_T, MPI_SUM, half);
            for (int i = 0; i < size; i++)
                sum = mix2(sum, all[i]);
            sum = mix2(sum, r ^ h);
        }
        progress("compute: phase %ld done, sum %016" PRIx64 ", checksum %016" PRIx64 "\n", p + 1,
                 out[0], sum);
    }
    const char *names[] = {"checksum"};
    report("compute", names, &sum, 1);
    MPI_Comm_free(&half);
    free(sbuf), free(rbuf), free(all), free(mine);
    MPI_Finalize();
    return 0;
}
