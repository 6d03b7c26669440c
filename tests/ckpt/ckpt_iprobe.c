/* Checkpoint scenario: a receiver polling. Ranks 1.. each send MESSAGES
 * messages to rank 0, computing about UNITS units before each (MPI_Send, or
 * MPI_Isend and MPI_Wait every third one); tags alternate between 0 and 1,
 * lengths vary. Rank 0 polls with MPI_Iprobe (MPI_ANY_SOURCE, or one
 * sender in turn every third poll; MPI_ANY_TAG), doing a little work
 * between polls, and receives what it finds (MPI_Get_count, MPI_Recv from
 * the probed source and tag). Each sender's messages are numbered: they
 * must come in order. Results are per sender, hence independent of the
 * interleaving; the number of polls is not printed.
 *   ckpt_iprobe [MESSAGES [UNITS]]   (default 200 20) */
#include "ckpt.h"

#define MAXLEN 4096 /* words */
#define HDR    2    /* sender, sequence number */

static int length(int src, long seq)
{
    return (int)(mix2((uint64_t)src, (uint64_t)seq) % MAXLEN);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long msgs = arg_long(argc, argv, 1, 200), units = arg_long(argc, argv, 2, 20);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size >= 2, "needs 2 ranks or more");
    uint64_t *buf = malloc((HDR + MAXLEN) * sizeof *buf), sum = 0, work = 0;
    if (rank > 0) {
        for (long i = 0; i < msgs; i++) {
            work = mix2(work, compute(mix2(work, (uint64_t)rank), units));
            int len = length(rank, i);
            buf[0] = (uint64_t)rank, buf[1] = (uint64_t)i;
            for (int j = 0; j < len; j++)
                buf[HDR + j] = mix2(work, j);
            if (i % 3 == 2) {
                MPI_Request rq;
                MPI_Isend(buf, HDR + len, MPI_UINT64_T, 0, (int)(i % 2), MPI_COMM_WORLD, &rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            } else {
                MPI_Send(buf, HDR + len, MPI_UINT64_T, 0, (int)(i % 2), MPI_COMM_WORLD);
            }
            sum = mix2(sum, len ? buf[HDR + len - 1] : (uint64_t)i);
        }
    } else {
        uint64_t *next = calloc((size_t)size, sizeof *next);
        uint64_t *hash = calloc((size_t)size, sizeof *hash);
        long total = msgs * (size - 1), got = 0, every = total / 8 > 0 ? total / 8 : 1;
        for (uint64_t poll = 0; got < total; poll++) {
            int flag, src = MPI_ANY_SOURCE;
            if (poll % 3 == 2) src = 1 + (int)(poll / 3 % (uint64_t)(size - 1));
            MPI_Status st;
            MPI_Iprobe(src, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
            if (!flag) {
                work = mix2(work, poll); /* a little work between polls */
                continue;
            }
            int count;
            MPI_Get_count(&st, MPI_UINT64_T, &count);
            MPI_Recv(buf, count, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE;
            check(count >= HDR && buf[0] == (uint64_t)s && (src == MPI_ANY_SOURCE || s == src),
                  "a message from %d claims to be from %" PRIu64, s, buf[0]);
            check(buf[1] == next[s],
                  "out of order: message %" PRIu64 " from rank %d arrived when %" PRIu64
                  " was due (MPI's non-overtaking rule broken)",
                  buf[1], s, next[s]);
            check(count == HDR + length(s, (long)next[s]) && st.MPI_TAG == (int)(next[s] % 2),
                  "message %" PRIu64 " from %d: %d words, tag %d", next[s], s, count, st.MPI_TAG);
            for (int j = HDR; j < count; j++)
                hash[s] = mix2(hash[s], buf[j]);
            hash[s] = mix2(hash[s], next[s]++);
            if (++got % every == 0) progress("iprobe: %ld of %ld messages received\n", got, total);
        }
        for (int s = 1; s < size; s++)
            sum = mix2(sum, hash[s]);
        free(next), free(hash);
        work = 0; /* depends on the number of polls */
    }
    const char *names[] = {"checksum", "work"};
    uint64_t v[] = {sum, work};
    report("iprobe", names, v, 2);
    free(buf);
    MPI_Finalize();
    return 0;
}
