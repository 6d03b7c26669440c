/* The MPI job of bench/ckpt/bench.sh: every rank holds MIB MiB of
 * incompressible data and exchanges a small message around a ring every
 * millisecond until the file $BENCH_DIR/stop appears; rank 0 creates
 * $BENCH_DIR/ready once all memory is written. With INFLIGHT > 0, rank 0
 * first sends INFLIGHT small messages to rank 1, which receives them only at
 * the end: they are in flight at any checkpoint, and the drain takes them.
 *   memjob MIB [INFLIGHT]
 * Prints one checksum line per rank (rank order), the same whether or not
 * the job was checkpointed. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int exists(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", getenv("BENCH_DIR") ? getenv("BENCH_DIR") : ".", name);
    return access(path, F_OK) == 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t words = (size_t)(argc > 1 ? atol(argv[1]) : 64) << 17; /* 8-byte words per MiB */
    int inflight = argc > 2 ? atoi(argv[2]) : 0;
    uint64_t *mem = malloc(words * sizeof *mem), x = 0x9e3779b97f4a7c15ull * (uint64_t)(rank + 1);
    if (!mem) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < words; i++) { /* xorshift: incompressible */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        mem[i] = x;
    }
    int64_t *msgs = calloc((size_t)inflight + 1, sizeof *msgs);
    MPI_Request *reqs = calloc((size_t)inflight + 1, sizeof *reqs);
    if (rank == 0 && size > 1)
        for (int i = 0; i < inflight; i++) {
            msgs[i] = i * 7 + 1;
            MPI_Isend(&msgs[i], 1, MPI_INT64_T, 1, i + 1, MPI_COMM_WORLD, &reqs[i]);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char path[4096];
        snprintf(path, sizeof path, "%s/ready", getenv("BENCH_DIR") ? getenv("BENCH_DIR") : ".");
        FILE *f = fopen(path, "w");
        if (f) fclose(f);
    }
    int stop = 0, token = 0;
    (void)token;
    for (uint64_t round = 0; !stop; round++) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        MPI_Sendrecv(&rank, 1, MPI_INT, next, 0, &token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        usleep(1000);
        if (round % 50 == 0) {
            stop = rank == 0 && exists("stop");
            MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    uint64_t sum = 0;
    if (rank == 1)
        for (int i = 0; i < inflight; i++) {
            int64_t v;
            MPI_Recv(&v, 1, MPI_INT64_T, 0, i + 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += (uint64_t)v * (uint64_t)(i + 1);
        }
    if (rank == 0 && size > 1) {
        MPI_Status *st = calloc((size_t)inflight + 1, sizeof *st);
        MPI_Waitall(inflight, reqs, st);
        free(st);
    }
    for (size_t i = 0; i < words; i++)
        sum = sum * 31 + mem[i];
    /* Ranks print in order, so the output is the same however they are scheduled. */
    for (int r = 0; r < size; r++) {
        if (r == rank) printf("rank %d checksum %016llx\n", rank, (unsigned long long)sum);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
