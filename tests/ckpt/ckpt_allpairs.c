/* Checkpoint scenario: all-pairs exchange received with MPI_ANY_SOURCE. In
 * each round every rank sends 1 to 3 messages to every other rank, in a
 * shuffled order and with random tags and lengths (all drawn from SEED, so
 * the same in every run), and receives what it is owed with
 * MPI_ANY_SOURCE and MPI_ANY_TAG (MPI_Probe then MPI_Recv, or MPI_Recv
 * directly). Each message carries its sender's sequence number to this
 * receiver: MPI's non-overtaking rule says they arrive in order, and the
 * job aborts with a message if not. Rounds alternate between two
 * duplicates of MPI_COMM_WORLD, so that a message of the next round cannot
 * be taken for one of this round. Results are per sender, hence
 * independent of arrival order.
 *   ckpt_allpairs [ROUNDS [SEED [UNITS_PER_ROUND]]]   (default 400 1 4) */
#include "ckpt.h"

#define MAXLEN (24 * 1024) /* payload words */
#define HDR    4           /* sender, sequence number, round, payload length */

static uint64_t seed;

static int count(long round, int src, int dst)
{
    return 1 + (int)(mix2(seed ^ (uint64_t)round << 20, (uint64_t)(src << 10 | dst)) % 3);
}

static uint64_t key(int src, int dst, uint64_t seq)
{
    return mix2(seed, seq << 20 | (uint64_t)(src << 10 | dst));
}

static int length(uint64_t k)
{
    return (int)(k % 16 == 0 ? (k >> 8) % MAXLEN : (k >> 8) % 200);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long rounds = arg_long(argc, argv, 1, 400), units = arg_long(argc, argv, 3, 4);
    seed = (uint64_t)arg_long(argc, argv, 2, 1);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm[2];
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm[1]);
    uint64_t *seq_to = calloc((size_t)size, sizeof *seq_to);
    uint64_t *seq_from = calloc((size_t)size, sizeof *seq_from);
    uint64_t *hash = calloc((size_t)size, sizeof *hash);
    int maxmsgs = 3 * size;
    int *dests = malloc((size_t)maxmsgs * sizeof *dests);
    uint64_t **sbuf = malloc((size_t)maxmsgs * sizeof *sbuf);
    MPI_Request *rq = malloc((size_t)maxmsgs * sizeof *rq);
    MPI_Status *sts = malloc((size_t)maxmsgs * sizeof *sts); /* (MPI_STATUSES_IGNORE: gcc warns) */
    uint64_t *rbuf = malloc((HDR + MAXLEN) * sizeof *rbuf), messages = 0, words = 0, work = 0;
    long every = rounds / 8 > 0 ? rounds / 8 : 1;
    for (long r = 0; r < rounds; r++) {
        MPI_Comm c = comm[r % 2];
        /* Sends, interleaved across destinations in a shuffled order. */
        int n = 0;
        for (int d = 0; d < size; d++)
            for (int k = d == rank ? 0 : count(r, rank, d); k > 0; k--)
                dests[n++] = d;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)(mix2(seed + (uint64_t)r, (uint64_t)(rank << 16 | i)) % (uint64_t)(i + 1));
            int t = dests[i];
            dests[i] = dests[j], dests[j] = t;
        }
        for (int i = 0; i < n; i++) {
            int d = dests[i];
            uint64_t sq = seq_to[d]++, k = key(rank, d, sq);
            int len = length(k);
            sbuf[i] = malloc((HDR + (size_t)len) * sizeof(uint64_t));
            uint64_t *m = sbuf[i];
            m[0] = (uint64_t)rank, m[1] = sq, m[2] = (uint64_t)r, m[3] = (uint64_t)len;
            for (int j = 0; j < len; j++)
                m[HDR + j] = mix2(k, j);
            MPI_Isend(m, HDR + len, MPI_UINT64_T, d, (int)(k % 4), c, &rq[i]);
        }
        work = mix2(work, compute(mix2(work, (uint64_t)rank), units)); /* while they travel */
        /* What this rank is owed, from anyone, in any order but each sender's. */
        int owed = 0;
        for (int s = 0; s < size; s++)
            owed += s == rank ? 0 : count(r, s, rank);
        for (int e = 0; e < owed; e++) {
            MPI_Status st;
            int got;
            if ((r + e) % 2) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st);
                MPI_Get_count(&st, MPI_UINT64_T, &got);
                MPI_Recv(rbuf, got, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG, c, &st);
            } else {
                MPI_Recv(rbuf, HDR + MAXLEN, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &st);
            }
            MPI_Get_count(&st, MPI_UINT64_T, &got);
            int s = st.MPI_SOURCE;
            check(got >= HDR && rbuf[0] == (uint64_t)s && rbuf[2] == (uint64_t)r,
                  "round %ld: a message from %d claims to be from %" PRIu64 " in round %" PRIu64, r,
                  s, rbuf[0], rbuf[2]);
            check(rbuf[1] == seq_from[s],
                  "round %ld: out of order: message %" PRIu64 " from rank %d arrived when message "
                  "%" PRIu64 " was due (MPI's non-overtaking rule broken)",
                  r, rbuf[1], s, seq_from[s]);
            uint64_t k = key(s, rank, rbuf[1]);
            check(st.MPI_TAG == (int)(k % 4) && got == HDR + length(k),
                  "round %ld: message %" PRIu64 " from %d: tag %d, %d words; expected tag %d, %d",
                  r, rbuf[1], s, st.MPI_TAG, got, (int)(k % 4), HDR + length(k));
            for (int j = 0; j < got - HDR; j++) {
                check(rbuf[HDR + j] == mix2(k, j),
                      "round %ld: message %" PRIu64 " from %d: word %d", r, rbuf[1], s, j);
                hash[s] = mix2(hash[s], rbuf[HDR + j]);
            }
            hash[s] = mix2(hash[s], rbuf[1]);
            seq_from[s]++, messages++, words += (uint64_t)got;
        }
        MPI_Waitall(n, rq, sts);
        for (int i = 0; i < n; i++)
            free(sbuf[i]);
        if (r % every == every - 1) {
            uint64_t all = 0;
            for (int s = 0; s < size; s++)
                all = mix2(all, hash[s]);
            progress("allpairs: round %ld done, rank 0 received %" PRIu64
                     " messages, checksum %016" PRIx64 "\n",
                     r + 1, messages, all);
        }
    }
    uint64_t all = 0;
    for (int s = 0; s < size; s++)
        all = mix2(all, hash[s]);
    const char *names[] = {"messages", "words", "checksum", "work"};
    uint64_t v[] = {messages, words, all, work};
    report("allpairs", names, v, 4);
    MPI_Comm_free(&comm[0]);
    MPI_Comm_free(&comm[1]);
    free(seq_to), free(seq_from), free(hash), free(dests);
    free(sbuf), free(rq), free(sts), free(rbuf);
    MPI_Finalize();
    return 0;
}
