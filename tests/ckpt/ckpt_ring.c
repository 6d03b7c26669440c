/* Checkpoint scenario: messages in flight at any cut. A ring in which every
 * rank keeps DEPTH messages in flight to its right neighbour and DEPTH
 * receives posted from its left one (MPI_Isend, MPI_Irecv), computing while
 * they travel, and completes the oldest slot (MPI_Waitall) before reusing
 * it. Lengths vary: mostly small (eager), every 8th message 256 KiB or more
 * (rendezvous). Every word received is checked; each rank folds what it
 * received into a checksum, in order. Half-way, the harness may hold rank 0
 * (ckpt.h, CKPT_MIDWAY).
 *   ckpt_ring [ITERATIONS [UNITS_PER_ITERATION]]   (default 2000 2) */
#include "ckpt.h"

#define DEPTH  4
#define MAXLEN (40 * 1024) /* words (uint64_t) */

static int length(long it, int rank)
{
    uint64_t h = mix2((uint64_t)it, (uint64_t)rank);
    return it % 8 == 7 ? 32 * 1024 + (int)(h % (8 * 1024)) : 1 + (int)(h % 2048);
}

static uint64_t word(long it, int rank, int j)
{
    return mix2((uint64_t)it << 8 | (uint64_t)rank, j);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 2000), units = arg_long(argc, argv, 2, 2);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    uint64_t *sbuf[DEPTH], *rbuf[DEPTH], sum = 0, received = 0, words = 0, work = 0;
    MPI_Request rq[DEPTH][2];
    for (int s = 0; s < DEPTH; s++) {
        sbuf[s] = malloc(MAXLEN * sizeof(uint64_t));
        rbuf[s] = malloc(MAXLEN * sizeof(uint64_t));
    }
    long every = iters / 8 > 0 ? iters / 8 : 1;
    for (long it = 0; it < iters + DEPTH; it++) {
        int s = (int)(it % DEPTH);
        if (it >= DEPTH) { /* complete iteration it - DEPTH: its slot is needed again */
            long done = it - DEPTH;
            MPI_Status st[2];
            MPI_Waitall(2, rq[s], st);
            int count;
            MPI_Get_count(&st[0], MPI_UINT64_T, &count);
            check(count == length(done, prev) && st[0].MPI_SOURCE == prev,
                  "iteration %ld: %d words from %d, expected %d from %d", done, count,
                  st[0].MPI_SOURCE, length(done, prev), prev);
            for (int j = 0; j < count; j++) {
                check(rbuf[s][j] == word(done, prev, j), "iteration %ld: word %d is wrong", done,
                      j);
                sum = mix2(sum, rbuf[s][j]);
            }
            received++, words += (uint64_t)count;
            if (done % every == every - 1)
                progress("ring: iteration %ld done, checksum %016" PRIx64 "\n", done + 1, sum);
        }
        if (it == iters / 2) midway_for_harness(rank);
        if (it < iters) {
            int len = length(it, rank);
            for (int j = 0; j < len; j++)
                sbuf[s][j] = word(it, rank, j);
            MPI_Irecv(rbuf[s], MAXLEN, MPI_UINT64_T, prev, (int)(it % 1000), MPI_COMM_WORLD,
                      &rq[s][0]);
            MPI_Isend(sbuf[s], len, MPI_UINT64_T, next, (int)(it % 1000), MPI_COMM_WORLD,
                      &rq[s][1]);
            work = mix2(work, compute(sum ^ (uint64_t)it, units));
        }
    }
    const char *names[] = {"messages", "words", "checksum", "work"};
    uint64_t v[] = {received, words, sum, work};
    report("ring", names, v, 4);
    for (int s = 0; s < DEPTH; s++)
        free(sbuf[s]), free(rbuf[s]);
    MPI_Finalize();
    return 0;
}
