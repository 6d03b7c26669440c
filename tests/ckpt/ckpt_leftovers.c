/* Checkpoint scenario: pages left over from shared buffers (src/lib/runtime/
 * shared_buffers.c) while no share is left in the library's table. Ranks
 * pair up (0-1, 2-3, ...). Each iteration a 4 MiB buffer becomes shared at
 * both ranks (a message there and back), both discard its second MiB
 * (MADV_DONTNEED: zeros) and one sends the whole buffer to the other: the
 * share, replaced in part, is dropped and not made again (the discarded
 * MiB is not in memory), while its other pages are still the memfd's. Then the ranks compute, where most checkpoints land. Whatever
 * a checkpoint and restart did meanwhile, the buffer must be private
 * memory (or a share's) and a discard must leave zeros. Every byte
 * received is checked and folded into a checksum.
 *   ckpt_leftovers [ITERATIONS [UNITS]]   (default 30 100; UNITS of computing
 *                                          after each exchange) */
#include "ckpt.h"

#include <sys/mman.h>

#define MIB   (1 << 20)
#define BYTES (4 * MIB)

static void fill(unsigned char *p, size_t n, long it, int rank)
{
    uint64_t seed = mix64((uint64_t)it << 8 | (uint64_t)rank);
    for (size_t j = 0; j < n; j += 8) {
        uint64_t w = seed ^ (j * 0x9e3779b97f4a7c15ULL);
        memcpy(p + j, &w, 8);
    }
}

/* Whether p holds fill(it, rank) with [zero_from, zero_to) zeros; a hash
 * of it. */
static uint64_t holds(const unsigned char *p, long it, int rank, size_t zero_from, size_t zero_to)
{
    unsigned char *want = malloc(BYTES);
    check(want != NULL, "out of memory");
    fill(want, BYTES, it, rank);
    memset(want + zero_from, 0, zero_to - zero_from);
    long bad = 0;
    for (size_t j = 0; j < BYTES; j++)
        bad += p[j] != want[j];
    free(want);
    check(bad == 0, "iteration %ld: %ld of %d bytes wrong", it, bad, BYTES);
    return mix2((uint64_t)it, (uint64_t)p[12345] << 8 | p[BYTES - 7]);
}

/* Rank `first` fills p and sends it; the other receives it into its p and
 * sends it back into the first's p (both shared after). */
static uint64_t there_and_back(unsigned char *p, long it, int rank, int peer, int first)
{
    if (rank == first) fill(p, BYTES, it, rank);
    for (int leg = 0; leg < 2; leg++)
        if ((rank == first) == (leg == 0))
            MPI_Send(p, BYTES, MPI_BYTE, peer, leg, MPI_COMM_WORLD);
        else
            MPI_Recv(p, BYTES, MPI_BYTE, peer, leg, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return holds(p, it, first, 0, 0);
}

/* Both discard p's second MiB, then rank `first` sends p as it is to the
 * other: at each end the share, replaced in part, is dropped, and not made
 * again (the discarded MiB is not in memory): the message is copied. */
static uint64_t discarded_then_sent(unsigned char *p, long it, int rank, int peer, int first)
{
    check(madvise(p + MIB, MIB, MADV_DONTNEED) == 0, "madvise failed");
    if (rank == first)
        MPI_Send(p, BYTES, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
    else
        MPI_Recv(p, BYTES, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return holds(p, it, first, MIB, 2 * MIB);
}

/* p must be private memory, as the program made it: under mpcr its pages
 * may be a share's memfd (which the library turns private whenever it
 * matters), never other shared memory (what an image restores shared
 * memory as); and a discarded page reads as zeros. (A fork child would show
 * it too, but a checkpoint refuses a process with a child.) */
static void still_private(unsigned char *p, long it)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    check(maps != NULL, "cannot read /proc/self/maps");
    char line[512];
    while (fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3) continue;
        if (hi <= (uintptr_t)p || lo >= (uintptr_t)p + BYTES) continue;
        check(perms[3] != 's' || strstr(line, "/memfd:mpcr-shared"),
              "iteration %ld: the buffer became shared memory: %s", it, line);
    }
    fclose(maps);
    p[BYTES - 4096] = 1;
    check(madvise(p + BYTES - 4096, 4096, MADV_DONTNEED) == 0 && p[BYTES - 4096] == 0,
          "iteration %ld: a discarded page kept its bytes", it);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 30), units = arg_long(argc, argv, 2, 100);
    int rank, peer = paired_peer(&rank);
    unsigned char *p =
        mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    check(p != MAP_FAILED, "mmap failed");
    memset(p, 0, BYTES);
    uint64_t sum = 0, work = 0;
    for (long it = 0; it < iters; it++) {
        int first = (rank & ~1) + (int)(it & 1);
        sum = mix2(sum, there_and_back(p, it, rank, peer, first));
        sum = mix2(sum, discarded_then_sent(p, it, rank, peer, first));
        work = mix2(work, compute((uint64_t)it, units));
        still_private(p, it);
        if (it % 10 == 9) progress("leftovers: iteration %ld done\n", it + 1);
    }
    const char *names[] = {"iterations", "checksum", "work"};
    uint64_t v[] = {(uint64_t)iters, sum, work};
    report("leftovers", names, v, 3);
    munmap(p, BYTES);
    MPI_Finalize();
    return 0;
}
