/* Checkpoint scenario: every kind of point-to-point request pending at a
 * cut. Ranks form a ring; in each round every rank, with computation of
 * about UNITS units between the steps (where a checkpoint lands), has
 *   - a persistent receive (MPI_Recv_init, started at the round's start)
 *     active, and a persistent send (MPI_Send_init) started late: both are
 *     inactive between rounds, and their handles never change;
 *   - an MPI_Irecv posted early and an MPI_Isend of 2-300 KiB (rendezvous
 *     when large) pending;
 *   - an MPI_Bsend whose message waits in the attached buffer;
 *   - an MPI_Irecv freed at once (MPI_Request_free): its message must land
 *     in its buffer, seen once a later message of the same sender arrives;
 *   - a message matched by MPI_Mprobe and held across a computation before
 *     MPI_Mrecv receives it.
 * The receive buffers come from MPI_Alloc_mem (the program's memory, in
 * its image like any other). Every word received is checked and folded
 * into a checksum.
 *   ckpt_p2p_mixed [ROUNDS [UNITS]]   (default 30 20) */
#include "ckpt.h"

#define LEN1   64          /* words of the persistent messages */
#define MAXLEN (40 * 1024) /* words */

static uint64_t key(long round, int from, int tag)
{
    return mix2((uint64_t)round << 24 | (uint64_t)from << 8 | (uint64_t)tag, 77);
}

static int length(uint64_t k, int big)
{
    return big ? 32 * 1024 + (int)(k % (8 * 1024)) : 1 + (int)(k % 512);
}

static void fill(uint64_t *buf, uint64_t k, int len)
{
    for (int j = 0; j < len; j++)
        buf[j] = mix2(k, j);
}

/* Checks len words of buf against key k; returns the running checksum. */
static uint64_t verify(uint64_t sum, const uint64_t *buf, uint64_t k, int len, const char *what,
                       long round)
{
    for (int j = 0; j < len; j++) {
        check(buf[j] == mix2(k, j), "round %ld: %s: word %d of %d is wrong", round, what, j, len);
        sum = mix2(sum, buf[j]);
    }
    return sum;
}

static void count_is(const MPI_Status *st, int len, const char *what, long round)
{
    int n;
    MPI_Get_count(st, MPI_UINT64_T, &n);
    check(n == len, "round %ld: %s: %d words, expected %d", round, what, n, len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long rounds = arg_long(argc, argv, 1, 30), units = arg_long(argc, argv, 2, 20);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    uint64_t *s[7], *b[7], sum = 0, work = 0;
    for (int t = 0; t < 7; t++) {
        s[t] = malloc(MAXLEN * sizeof(uint64_t));
        MPI_Alloc_mem(MAXLEN * sizeof(uint64_t), MPI_INFO_NULL, &b[t]);
    }
    size_t bsize = 4 * (MAXLEN * sizeof(uint64_t) + MPI_BSEND_OVERHEAD);
    void *attached = malloc(bsize);
    MPI_Buffer_attach(attached, (int)bsize);
    MPI_Request precv, psend;
    MPI_Recv_init(b[1], LEN1, MPI_UINT64_T, left, 1, MPI_COMM_WORLD, &precv);
    MPI_Send_init(s[1], LEN1, MPI_UINT64_T, right, 1, MPI_COMM_WORLD, &psend);
    const MPI_Request precv0 = precv, psend0 = psend;
    long every = rounds / 6 > 0 ? rounds / 6 : 1;
    for (long r = 0; r < rounds; r++) {
        MPI_Request rq[5], freed;
        MPI_Status st[5];
        MPI_Message msg;
        uint64_t k2 = key(r, rank, 2), k3 = key(r, rank, 3), k4 = key(r, rank, 4),
                 k6 = key(r, rank, 6);
        int l2 = length(k2, r % 2), l3 = length(k3, 0), l4 = length(k4, 0),
            l6 = length(k6, r % 3 == 0);
        MPI_Start(&precv);
        MPI_Irecv(b[2], MAXLEN, MPI_UINT64_T, left, 2, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(b[4], MAXLEN, MPI_UINT64_T, left, 4, MPI_COMM_WORLD, &freed);
        MPI_Request_free(&freed);
        check(freed == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
        fill(s[6], k6, l6);
        MPI_Isend(s[6], l6, MPI_UINT64_T, right, 6, MPI_COMM_WORLD, &rq[4]);
        work = mix2(work, compute(mix2(work, 1), units)); /* receives pending */
        fill(s[2], k2, l2);
        MPI_Isend(s[2], l2, MPI_UINT64_T, right, 2, MPI_COMM_WORLD, &rq[1]);
        fill(s[3], k3, l3);
        check(MPI_Bsend(s[3], l3, MPI_UINT64_T, right, 3, MPI_COMM_WORLD) == MPI_SUCCESS, "Bsend");
        if (r == rounds / 2) midway_for_harness(rank); /* (ckpt.h) with every kind pending */
        work = mix2(work, compute(mix2(work, 2), units)); /* a send and a buffered send pending */
        MPI_Mprobe(left, 6, MPI_COMM_WORLD, &msg, &st[0]);
        work = mix2(work, compute(mix2(work, 3), units)); /* a matched message held */
        MPI_Mrecv(b[6], MAXLEN, MPI_UINT64_T, &msg, &st[0]);
        count_is(&st[0], length(key(r, left, 6), r % 3 == 0), "the matched message", r);
        fill(s[4], k4, l4);
        MPI_Send(s[4], l4, MPI_UINT64_T, right, 4, MPI_COMM_WORLD);
        fill(s[1], key(r, rank, 1), LEN1);
        rq[2] = psend, rq[3] = precv;
        MPI_Start(&rq[2]);
        MPI_Recv(b[3], MAXLEN, MPI_UINT64_T, left, 3, MPI_COMM_WORLD, &st[1]);
        count_is(&st[1], length(key(r, left, 3), 0), "the buffered message", r);
        /* after the freed receive's message: that one has landed */
        uint64_t k5 = key(r, rank, 5);
        MPI_Sendrecv(&k5, 1, MPI_UINT64_T, right, 5, b[5], 1, MPI_UINT64_T, left, 5, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        check(b[5][0] == key(r, left, 5), "round %ld: the tag 5 message is wrong", r);
        MPI_Waitall(5, rq, st);
        check(rq[2] == psend0 && rq[3] == precv0, "a persistent request's handle changed");
        count_is(&st[0], length(key(r, left, 2), r % 2), "the Irecv", r);
        count_is(&st[3], LEN1, "the persistent receive", r);
        uint64_t h = 0;
        h = verify(h, b[1], key(r, left, 1), LEN1, "the persistent receive", r);
        h = verify(h, b[2], key(r, left, 2), length(key(r, left, 2), r % 2), "the Irecv", r);
        h = verify(h, b[3], key(r, left, 3), length(key(r, left, 3), 0), "the buffered message", r);
        h = verify(h, b[4], key(r, left, 4), length(key(r, left, 4), 0), "the freed receive", r);
        h = verify(h, b[6], key(r, left, 6), length(key(r, left, 6), r % 3 == 0),
                   "the matched message", r);
        sum = mix2(sum, h);
        work = mix2(work, compute(mix2(work, 4), units / 2)); /* persistent requests inactive */
        if (r % every == every - 1)
            progress("p2p_mixed: round %ld done, checksum %016" PRIx64 "\n", r + 1, sum);
    }
    MPI_Request_free(&precv);
    MPI_Request_free(&psend);
    void *p;
    int n;
    MPI_Buffer_detach(&p, &n);
    check(p == attached && (size_t)n == bsize, "MPI_Buffer_detach: another buffer");
    const char *names[] = {"checksum", "work"};
    uint64_t v[] = {sum, work};
    report("mixed", names, v, 2);
    for (int t = 0; t < 7; t++)
        free(s[t]), MPI_Free_mem(b[t]);
    free(attached);
    MPI_Finalize();
    return 0;
}
