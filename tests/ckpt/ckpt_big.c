/* Checkpoint scenario: 64 MiB messages in transit. Every rank sends a
 * 64 MiB buffer to its right neighbour and receives one from its left,
 * ITERATIONS times: even iterations with MPI_Irecv (posted before
 * the buffer is filled), MPI_Isend and MPI_Waitall, odd ones with
 * MPI_Sendrecv. The content depends on sender
 * and iteration; every word received is checked and folded into a
 * checksum.
 *   ckpt_big [ITERATIONS]   (default 100) */
#include "ckpt.h"

#define WORDS ((64L << 20) / 8)

static uint64_t base(long it, int rank)
{
    return mix2((uint64_t)it, (uint64_t)rank);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 100);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    uint64_t *sbuf = malloc(WORDS * sizeof *sbuf), *rbuf = malloc(WORDS * sizeof *rbuf);
    check(sbuf && rbuf, "out of memory");
    uint64_t sum = 0;
    long every = iters / 8 > 0 ? iters / 8 : 1;
    for (long it = 0; it < iters; it++) {
        MPI_Request rq[2];
        if (it % 2 == 0) /* posted early: the neighbour's message can come while we fill */
            MPI_Irecv(rbuf, (int)WORDS, MPI_UINT64_T, prev, 1, MPI_COMM_WORLD, &rq[0]);
        uint64_t b = base(it, rank);
        for (long j = 0; j < WORDS; j++)
            sbuf[j] = b + (uint64_t)j * 0x9e3779b97f4a7c15ULL;
        MPI_Status st;
        if (it % 2 == 0) {
            MPI_Status sts[2];
            MPI_Isend(sbuf, (int)WORDS, MPI_UINT64_T, next, 1, MPI_COMM_WORLD, &rq[1]);
            MPI_Waitall(2, rq, sts);
            st = sts[0];
        } else {
            MPI_Sendrecv(sbuf, (int)WORDS, MPI_UINT64_T, next, 2, rbuf, (int)WORDS, MPI_UINT64_T,
                         prev, 2, MPI_COMM_WORLD, &st);
        }
        int count;
        MPI_Get_count(&st, MPI_UINT64_T, &count);
        check(count == WORDS, "iteration %ld: %d words received", it, count);
        uint64_t pb = base(it, prev), x = 0;
        long bad = 0;
        for (long j = 0; j < WORDS; j++) {
            bad += rbuf[j] != pb + (uint64_t)j * 0x9e3779b97f4a7c15ULL;
            x ^= rbuf[j] * (uint64_t)(j | 1);
        }
        check(bad == 0, "iteration %ld: %ld of the words received are wrong", it, bad);
        sum = mix2(sum, x);
        if (it % every == every - 1)
            progress("big: iteration %ld done, checksum %016" PRIx64 "\n", it + 1, sum);
    }
    const char *names[] = {"messages", "checksum"};
    uint64_t v[] = {(uint64_t)iters, sum};
    report("big", names, v, 2);
    free(sbuf), free(rbuf);
    MPI_Finalize();
    return 0;
}
