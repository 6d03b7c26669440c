/* Checkpoint scenario: large messages through shared buffers (src/lib/runtime/
 * shared_buffers.c) at any cut. Ranks pair up (0-1, 2-3, ...) and exchange
 * messages of 300 KiB to 2 MiB with blocking MPI_Send/MPI_Recv (and now
 * and then MPI_Sendrecv into another buffer, MPI_Sendrecv_replace, or the
 * whole job MPI_Bcast and MPI_Allreduce in place), at offsets
 * that vary inside a few buffers (so shares are made, used, grown and
 * replaced all the time), rewriting the buffers each time; every
 * ITERATIONS/10 iterations a buffer is freed and allocated again, and one
 * is unmapped and mapped again at its address (shares the program replaced
 * behind MPI's back). Checkpoints land while shares are made, while a
 * message is in a shared buffer at either end, between the proxy's answer
 * and the copy of a receive's ends. Every byte received is checked and
 * folded into a checksum.
 *   ckpt_shared [ITERATIONS [UNITS]]   (default 400 1; UNITS units of computing
 *                                       between exchanges) */
#include "ckpt.h"

#include <sys/mman.h>

#define NBUF         3
#define SPACE        (3 << 20) /* bytes in each buffer */
#define MAPPED_BYTES (4 << 20)

/* The message of iteration it from rank: n bytes, 8 at a time from a hash. */
static void fill(unsigned char *p, size_t n, long it, int rank)
{
    uint64_t seed = mix64((uint64_t)it << 8 | (uint64_t)rank);
    for (size_t j = 0; j < n; j += 8) {
        uint64_t w = seed ^ (j * 0x9e3779b97f4a7c15ULL);
        memcpy(p + j, &w, n - j < 8 ? n - j : 8);
    }
}

/* How many of the n bytes at p differ from fill's; their hash in *x. */
static long differing(const unsigned char *p, size_t n, long it, int rank, uint64_t *x)
{
    uint64_t seed = mix64((uint64_t)it << 8 | (uint64_t)rank);
    long bad = 0;
    for (size_t j = 0; j < n; j += 8) {
        uint64_t w = seed ^ (j * 0x9e3779b97f4a7c15ULL), got = 0;
        size_t k = n - j < 8 ? n - j : 8;
        memcpy(&got, p + j, k);
        if (k < 8) w &= (1ULL << (k * 8)) - 1;
        bad += got != w;
        *x = *x * 31 + got;
    }
    return bad;
}

/* Checks a message of n bytes received into p (count of them) and folds
 * it into *sum. */
static void received(const unsigned char *p, size_t n, const MPI_Status *st, long it, int peer,
                     uint64_t *sum)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    check(count == (int)n, "iteration %ld: %d bytes, expected %zu", it, count, n);
    uint64_t x = 0;
    long bad = differing(p, n, it, peer, &x);
    check(bad == 0, "iteration %ld: %ld of %zu words received are wrong", it, bad, n / 8);
    *sum = mix2(*sum, x);
}

/* The whole job at once: a broadcast of p from rank it % size, then p
 * summed over the ranks in place (bytes, modulo 256); both checked. */
static uint64_t collectives(unsigned char *p, size_t n, long it, int rank)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int root = (int)(it % size);
    if (rank == root) fill(p, n, it, root);
    MPI_Bcast(p, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
    uint64_t x = 0;
    long bad = differing(p, n, it, root, &x);
    check(bad == 0, "iteration %ld: %ld of %zu words broadcast are wrong", it, bad, n / 8);
    fill(p, n, it, rank);
    MPI_Allreduce(MPI_IN_PLACE, p, (int)n, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    unsigned char *want = calloc(n, 1), *one = malloc(n);
    check(want && one, "out of memory");
    for (int r = 0; r < size; r++) {
        fill(one, n, it, r);
        for (size_t j = 0; j < n; j++)
            want[j] = (unsigned char)(want[j] + one[j]);
    }
    bad = 0;
    for (size_t j = 0; j < n; j++)
        bad += p[j] != want[j];
    free(want);
    free(one);
    check(bad == 0, "iteration %ld: %ld of %zu bytes summed are wrong", it, bad, n);
    return mix2(x, (uint64_t)p[n / 2]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 400), units = arg_long(argc, argv, 2, 1);
    int rank, peer = paired_peer(&rank);
    unsigned char *buf[NBUF + 1];
    for (int b = 0; b < NBUF; b++)
        check((buf[b] = malloc(SPACE)) != NULL, "out of memory");
    buf[NBUF] =
        mmap(NULL, MAPPED_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    check(buf[NBUF] != MAP_FAILED, "mmap failed");
    uint64_t sum = 0, work = 0;
    long every = iters / 10 > 0 ? iters / 10 : 1;
    for (long it = 0; it < iters; it++) {
        uint64_t h = mix2((uint64_t)it, 77);
        int b = (int)(h % (NBUF + 1));
        size_t n = 300 * 1024 + (size_t)(h >> 8) % (1700 * 1024);
        size_t room = b == NBUF ? MAPPED_BYTES : SPACE;
        size_t off = (size_t)(h >> 32) % (room - n);
        if (it % 4 == 3) off = (size_t)(h >> 40) % 3 * 4096; /* now and then page-aligned */
        int sends_first = (rank & 1) == (int)(it & 1), tag = (int)(it % 1000);
        MPI_Status st;
        if (it % 5 == 4) { /* the whole job */
            sum = mix2(sum, collectives(buf[b] + off, n, it, rank));
        } else if (it % 6 == 5) { /* both at once, in place */
            fill(buf[b] + off, n, it, rank);
            MPI_Sendrecv_replace(buf[b] + off, (int)n, MPI_BYTE, peer, tag, peer, tag,
                                 MPI_COMM_WORLD, &st);
            received(buf[b] + off, n, &st, it, peer, &sum);
        } else if (it % 3 == 2) { /* both at once, into another buffer */
            int into = (b + 1) % (NBUF + 1);
            size_t into_off = (size_t)(h >> 20) % ((into == NBUF ? MAPPED_BYTES : SPACE) - n);
            fill(buf[b] + off, n, it, rank);
            MPI_Sendrecv(buf[b] + off, (int)n, MPI_BYTE, peer, tag, buf[into] + into_off, (int)n,
                         MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
            received(buf[into] + into_off, n, &st, it, peer, &sum);
        } else {
            for (int turn = 0; turn < 2; turn++) {
                if ((turn == 0) == sends_first) {
                    fill(buf[b] + off, n, it, rank);
                    MPI_Send(buf[b] + off, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
                } else {
                    MPI_Recv(buf[b] + off, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
                    received(buf[b] + off, n, &st, it, peer, &sum);
                }
            }
        }
        work = mix2(work, compute((uint64_t)it, units));
        if (it % every == every / 2) { /* memory replaced behind MPI's back */
            free(buf[it % NBUF]);
            check((buf[it % NBUF] = malloc(SPACE)) != NULL, "out of memory");
            munmap(buf[NBUF], MAPPED_BYTES);
            check(mmap(buf[NBUF], MAPPED_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == buf[NBUF],
                  "mmap failed");
        }
        if (it % every == every - 1)
            progress("shared: iteration %ld done, checksum %016" PRIx64 "\n", it + 1, sum);
    }
    const char *names[] = {"messages", "checksum", "work"};
    uint64_t v[] = {(uint64_t)iters, sum, work};
    report("shared", names, v, 3);
    for (int b = 0; b < NBUF; b++)
        free(buf[b]);
    munmap(buf[NBUF], MAPPED_BYTES);
    MPI_Finalize();
    return 0;
}
