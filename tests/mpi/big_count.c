/* A message above 2 GiB with a count above 2^31 through the large-count
 * `_c` forms (MPI 4.0 section 3.2.1), compared with a native MPICH run (2
 * ranks): MPI_Send_c of 2^31 + 5 MPI_BYTEs (a count no int holds), received
 * with MPI_Irecv_c into a larger buffer and MPI_Wait; checked byte for byte
 * (a pattern that no shifted or truncated copy matches), with
 * MPI_Get_count_c, MPI_Get_elements_c and MPI_Get_count (which must say
 * MPI_UNDEFINED). One message only: each costs seconds (2 GiB staged on both
 * sides). */
#include "out.h"
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#define BYTES (((MPI_Count)1 << 31) + 5)

/* The pattern, a word at a time (the messages are large), and the bytes
 * past the last whole word one at a time. */
static uint64_t word(MPI_Count i, int round)
{
    return ((uint64_t)i * 0x9e3779b97f4a7c15u) ^ (uint64_t)round;
}

static void fill(unsigned char *b, MPI_Count n, int round)
{
    uint64_t *w = (uint64_t *)b;
    for (MPI_Count i = 0; i < n / 8; i++)
        w[i] = word(i, round);
    for (MPI_Count i = n / 8 * 8; i < n; i++)
        b[i] = (unsigned char)word(i, round);
}

/* The first byte that differs from the pattern, or n. */
static MPI_Count first_wrong(const unsigned char *b, MPI_Count n, int round)
{
    const uint64_t *w = (const uint64_t *)b;
    for (MPI_Count i = 0; i < n / 8; i++)
        if (w[i] != word(i, round)) return i * 8;
    for (MPI_Count i = n / 8 * 8; i < n; i++)
        if (b[i] != (unsigned char)word(i, round)) return i;
    return n;
}

static void report(const char *what, MPI_Status *st, MPI_Datatype t, MPI_Count want,
                   const unsigned char *b, MPI_Count bytes, int round)
{
    MPI_Count count = -1, elements = -1;
    MPI_Get_count_c(st, t, &count);
    MPI_Get_elements_c(st, t, &elements);
    int small = 0;
    MPI_Get_count(st, t, &small);
    MPI_Count wrong = first_wrong(b, bytes, round);
    out("%s: count %lld (want %lld), elements %lld, int count %s, source %d tag %d, %s\n", what,
        (long long)count, (long long)want, (long long)elements,
        small == MPI_UNDEFINED ? "MPI_UNDEFINED" : "a number", st->MPI_SOURCE, st->MPI_TAG,
        wrong == bytes ? "every byte right" : "CORRUPT");
    if (wrong != bytes) out("%s: first wrong byte at %lld\n", what, (long long)wrong);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t room = (size_t)BYTES + 64;
    unsigned char *buf = malloc(room);
    if (!buf) {
        out("rank %d: no memory for %zu bytes\n", rank, room);
        out_flush();
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Status st;
    if (rank == 0) {
        fill(buf, BYTES, 1);
        MPI_Send_c(buf, BYTES, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request rq;
        MPI_Irecv_c(buf, BYTES + 64, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, &st);
        report("Send_c/Irecv_c 2^31+5 bytes", &st, MPI_BYTE, BYTES, buf, BYTES, 1);
    }
    free(buf);
    out_flush();
    MPI_Finalize();
    return 0;
}
