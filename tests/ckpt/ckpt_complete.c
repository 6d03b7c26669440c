/* Checkpoint scenario: ranks inside MPI_Waitany, MPI_Waitsome, MPI_Testany,
 * MPI_Testsome and MPI_Testall (the proxy's COMPLETE) with messages in
 * flight. In round R, rank S = R % size sends: it computes about UNITS units
 * before each of MSGS messages to every other rank (MPI_Isend; every 4th
 * 256 KiB or more, by rendezvous), looking at its sends with MPI_Testsome
 * after each; then it receives the others' replies and completes the rest
 * with MPI_Waitsome. Every other rank, at the round's start, sends its
 * reply to S (MPI_Isend, 256 KiB or more in odd rounds: S posts its
 * receive only at the round's end, so the reply is in flight all round),
 * posts MSGS receives from S (MPI_Irecv), and completes them and the reply
 * in a loop whose calls take turns: MPI_Waitany, MPI_Waitsome,
 * MPI_Testany, MPI_Testsome, MPI_Testall (a test that completes nothing is
 * a turn too). So at almost any instant a rank sits in a waiting call of
 * the family, has receives posted for messages not yet sent, and a message
 * is in flight that no receive matches. Every word received is checked;
 * the results are folded per message, in message order, so they do not
 * depend on the order of completion.
 *   ckpt_complete [ROUNDS [MSGS [UNITS]]]   (default 24 12 15) */
#include "ckpt.h"

#define MAXMSGS   64
#define MAXLEN    (40 * 1024) /* words */
#define REPLY_TAG MAXMSGS

static uint64_t key(long round, int from, int to, int m)
{
    return mix2((uint64_t)round << 20 | (uint64_t)from << 10 | (uint64_t)to, (uint64_t)m);
}

static int length(uint64_t k, int big)
{
    return big ? 32 * 1024 + (int)(k % (8 * 1024)) : 1 + (int)(k % 2048);
}

static void fill(uint64_t *buf, uint64_t k, int len)
{
    for (int j = 0; j < len; j++)
        buf[j] = mix2(k, j);
}

/* Checks a received message against its key; returns its hash. */
static uint64_t verify(const uint64_t *buf, const MPI_Status *st, uint64_t k, int len, int from,
                       const char *what)
{
    int count;
    MPI_Get_count(st, MPI_UINT64_T, &count);
    check(count == len && st->MPI_SOURCE == from, "%s: %d words from %d, expected %d from %d",
          what, count, st->MPI_SOURCE, len, from);
    uint64_t h = k;
    for (int j = 0; j < len; j++) {
        check(buf[j] == mix2(k, j), "%s: word %d is wrong", what, j);
        h = mix2(h, buf[j]);
    }
    return h;
}

/* One call of the family, the kind chosen by turn; marks done[i] for each
 * request it completed and keeps its status. Returns how many it completed. */
static int complete_some(int turn, int n, MPI_Request *rq, MPI_Status *sts, int *done)
{
    int idx[MAXMSGS + 1], got = 0, flag = 0;
    MPI_Status st[MAXMSGS + 1];
    switch (turn % 5) {
    case 0: /* Waitany */
        MPI_Waitany(n, rq, &idx[0], &st[0]);
        got = idx[0] == MPI_UNDEFINED ? 0 : 1;
        break;
    case 1: /* Waitsome */
        MPI_Waitsome(n, rq, &got, idx, st);
        break;
    case 2: /* Testany */
        MPI_Testany(n, rq, &idx[0], &flag, &st[0]);
        got = flag && idx[0] != MPI_UNDEFINED;
        break;
    case 3: /* Testsome */
        MPI_Testsome(n, rq, &got, idx, st);
        break;
    default: { /* Testall: all at once, or none */
        int pending[MAXMSGS + 1], k = 0;
        for (int i = 0; i < n; i++)
            if (!done[i]) pending[k++] = i;
        MPI_Testall(n, rq, &flag, st);
        if (!flag) return 0;
        for (int i = 0; i < k; i++) /* the statuses of requests already null are empty */
            sts[pending[i]] = st[pending[i]], done[pending[i]] = 1;
        return k;
    }
    }
    if (got == MPI_UNDEFINED) got = 0;
    for (int i = 0; i < got; i++) {
        check(!done[idx[i]], "request %d completed twice", idx[i]);
        done[idx[i]] = 1, sts[idx[i]] = st[i];
    }
    return got;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long rounds = arg_long(argc, argv, 1, 24), msgs = arg_long(argc, argv, 2, 12),
         units = arg_long(argc, argv, 3, 15);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size >= 2, "needs 2 ranks or more");
    check(msgs <= MAXMSGS && (size - 1) * msgs <= MAXMSGS, "at most %d messages a round",
          MAXMSGS);
    int n = (int)msgs;
    uint64_t *buf[MAXMSGS + 1], h[MAXMSGS + 1], sum = 0, work = 0;
    for (int i = 0; i <= MAXMSGS; i++)
        buf[i] = malloc(MAXLEN * sizeof(uint64_t));
    MPI_Request rq[MAXMSGS + 1];
    MPI_Status sts[MAXMSGS + 1];
    int done[MAXMSGS + 1];
    long every = rounds / 8 > 0 ? rounds / 8 : 1;
    for (long r = 0; r < rounds; r++) {
        if (r == rounds / 2) midway_for_harness(rank); /* the harness's first cut lands mid-job */
        int s = (int)(r % size), turn = (int)(r + rank);
        if (rank == s) {
            /* Sends, one message to every other rank after each computation;
             * requests 0 .. (size-1)*n-1, message m to the k-th other rank at k*n+m. */
            int nsend = 0;
            memset(done, 0, sizeof done);
            for (int m = 0; m < n; m++) {
                work = mix2(work, compute(mix2(work, (uint64_t)m), units));
                for (int d = 0; d < size; d++) {
                    if (d == s) continue;
                    uint64_t k = key(r, s, d, m);
                    int len = length(k, m % 4 == 3), i = nsend++;
                    fill(buf[i], k, len);
                    MPI_Isend(buf[i], len, MPI_UINT64_T, d, m, MPI_COMM_WORLD, &rq[i]);
                }
                complete_some(3, nsend, rq, sts, done); /* Testsome: whatever is done */
            }
            /* The replies, in flight since the round began, from each other rank in turn. */
            for (int d = 0; d < size; d++) {
                if (d == s) continue;
                uint64_t k = key(r, d, s, REPLY_TAG);
                int len = length(k, r % 2), i = MAXMSGS;
                MPI_Status st;
                MPI_Irecv(buf[i], MAXLEN, MPI_UINT64_T, d, REPLY_TAG, MPI_COMM_WORLD, &rq[i]);
                MPI_Wait(&rq[i], &st);
                sum = mix2(sum, verify(buf[i], &st, k, len, d, "a reply"));
            }
            int left = 0; /* the sends: Waitsome until all are done */
            for (int i = 0; i < nsend; i++)
                left += !done[i];
            while (left > 0)
                left -= complete_some(1, nsend, rq, sts, done);
        } else {
            /* The reply first: S receives it only once it has sent everything. */
            uint64_t rk = key(r, rank, s, REPLY_TAG);
            int rlen = length(rk, r % 2);
            fill(buf[n], rk, rlen);
            MPI_Isend(buf[n], rlen, MPI_UINT64_T, s, REPLY_TAG, MPI_COMM_WORLD, &rq[n]);
            for (int m = 0; m < n; m++)
                MPI_Irecv(buf[m], MAXLEN, MPI_UINT64_T, s, m, MPI_COMM_WORLD, &rq[m]);
            memset(done, 0, sizeof done);
            for (int left = n + 1; left > 0; turn++)
                left -= complete_some(turn, n + 1, rq, sts, done);
            for (int m = 0; m < n; m++) {
                uint64_t k = key(r, s, rank, m);
                h[m] = verify(buf[m], &sts[m], k, length(k, m % 4 == 3), s, "a message");
            }
            for (int m = 0; m < n; m++)
                sum = mix2(sum, h[m]);
        }
        if (r % every == every - 1)
            progress("complete: round %ld done, checksum %016" PRIx64 "\n", r + 1, sum);
    }
    const char *names[] = {"checksum", "work"};
    uint64_t v[] = {sum, work};
    report("complete", names, v, 2);
    for (int i = 0; i <= MAXMSGS; i++)
        free(buf[i]);
    MPI_Finalize();
    return 0;
}
