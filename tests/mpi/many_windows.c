/* Many windows alive at once, and a shared window's empty parts
 * (docs/one-sided.md): 100 windows, every third of MPI_Win_allocate and
 * the others of MPI_Win_create over heap blocks, each a Put to the next
 * rank in a fence epoch, read back from the memory; then an
 * MPI_Win_allocate_shared window where odd ranks ask for no bytes, whose
 * MPI_Win_shared_query answers NULL for those parts (as MPICH and Open MPI
 * do). Under Open MPI's proxy every window is attached to one dynamic
 * window, which takes 64 attachments by default: the proxy raises Open
 * MPI's osc_rdma_max_attach (src/proxy/main.c). Prints a line of
 * results: the same natively. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOWS 100
#define N 8

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, errors = 0;

    MPI_Win win[WINDOWS];
    int64_t *mem[WINDOWS];
    for (int k = 0; k < WINDOWS; k++) {
        if (k % 3 == 0) {
            MPI_Win_allocate(N * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &mem[k], &win[k]);
        } else {
            mem[k] = malloc(N * sizeof(int64_t));
            MPI_Win_create(mem[k], N * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win[k]);
        }
        MPI_Win_fence(0, win[k]);
        for (int i = 0; i < N; i++)
            mem[k][i] = -1;
        MPI_Win_fence(0, win[k]);
    }
    for (int k = 0; k < WINDOWS; k++) {
        int64_t v = 1000 * k + rank;
        MPI_Win_fence(0, win[k]);
        MPI_Put(&v, 1, MPI_INT64_T, next, k % N, 1, MPI_INT64_T, win[k]);
        MPI_Win_fence(0, win[k]);
        if (mem[k][k % N] != 1000 * k + prev) errors++;
    }
    for (int k = 0; k < WINDOWS; k++) {
        MPI_Win_free(&win[k]);
        if (k % 3) free(mem[k]);
    }

    int64_t *part;
    MPI_Win shared;
    MPI_Win_allocate_shared(rank % 2 ? 0 : N * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &part, &shared);
    int empty_null = 1;
    for (int r = 0; r < size; r++) {
        MPI_Aint bytes;
        int unit;
        int64_t *base;
        MPI_Win_shared_query(shared, r, &bytes, &unit, &base);
        if (r % 2 && (bytes != 0 || base != NULL)) empty_null = 0;
        if (!(r % 2) && (bytes != N * sizeof(int64_t) || base == NULL)) errors++;
    }
    MPI_Win_free(&shared);

    int all, all_null; /* every rank's exit status says it */
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&empty_null, &all_null, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("many_windows: %d windows at once, %d wrong values; empty shared parts: %s\n",
               WINDOWS, all, all_null ? "NULL" : "not NULL");
    MPI_Finalize();
    return all != 0 || !all_null;
}
