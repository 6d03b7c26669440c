/* MPI_Win_create over another window's memory (docs/one-sided.md, "Where
 * a window's memory lives"): over each rank's part of an
 * MPI_Win_allocate_shared window, and over an MPI_Win_allocate window's
 * memory. Both created windows must be MPI_WIN_UNIFIED and behave so: each
 * rank puts into the next rank's created window in a passive-target epoch,
 * and after a barrier the next rank reads the value in its memory directly,
 * through the created window's base and, for the shared one, through
 * MPI_Win_shared_query's pointer of the other window. Under mpcr the pages
 * are the other window's memory, which the proxy has attached already (a
 * public copy there, the separate model mpcr used before, left the other
 * members' loads and stores and the created window apart: MPICH's
 * rma/win_shared_create_*). Prints the values read: the same natively. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define K 16

static int errors;

static void check_unified(MPI_Win w, const char *what)
{
    int *model, flag;
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
    if (!flag || *model != MPI_WIN_UNIFIED) {
        printf("the window over %s is not MPI_WIN_UNIFIED\n", what);
        errors++;
    }
}

/* Puts v into slot i of the next rank's window w, then reads what the
 * previous rank put into this rank's memory mem (and alias, if not NULL). */
static int exchange(MPI_Win w, int64_t *mem, const int64_t *alias, int i, int64_t v)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, w);
    MPI_Put(&v, 1, MPI_INT64_T, next, i, 1, MPI_INT64_T, w);
    MPI_Win_unlock(next, w);
    MPI_Barrier(MPI_COMM_WORLD);
    if (alias && alias[i] != mem[i]) {
        printf("rank %d: the shared window reads %lld, the created one %lld\n", rank,
               (long long)alias[i], (long long)mem[i]);
        errors++;
    }
    int64_t got = mem[i];
    MPI_Barrier(MPI_COMM_WORLD);
    return (int)got;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int prev = (rank + size - 1) % size;

    int64_t *part, *alloc;
    MPI_Win shared, created_shared, allocated, created_alloc;
    MPI_Win_allocate_shared(K * sizeof *part, sizeof *part, MPI_INFO_NULL, MPI_COMM_WORLD, &part,
                            &shared);
    MPI_Win_allocate(K * sizeof *alloc, sizeof *alloc, MPI_INFO_NULL, MPI_COMM_WORLD, &alloc,
                     &allocated);
    for (int i = 0; i < K; i++)
        part[i] = alloc[i] = 0;
    MPI_Win_create(part, K * sizeof *part, sizeof *part, MPI_INFO_NULL, MPI_COMM_WORLD,
                   &created_shared);
    MPI_Win_create(alloc, K * sizeof *alloc, sizeof *alloc, MPI_INFO_NULL, MPI_COMM_WORLD,
                   &created_alloc);
    check_unified(created_shared, "shared memory");
    check_unified(created_alloc, "allocated memory");
    /* this rank's part as the shared window's other members see it */
    MPI_Aint qsize;
    int qunit;
    int64_t *mine;
    MPI_Win_shared_query(shared, rank, &qsize, &qunit, &mine);

    for (int i = 0; i < K; i++) {
        int a = exchange(created_shared, part, mine, i, 100 * rank + i);
        int b = exchange(created_alloc, alloc, NULL, i, 1000 * rank + i);
        if (a != 100 * prev + i || b != 1000 * prev + i) {
            printf("rank %d, slot %d: read %d and %d\n", rank, i, a, b);
            errors++;
        }
    }
    MPI_Win_free(&created_alloc);
    MPI_Win_free(&created_shared);
    MPI_Win_free(&allocated);
    MPI_Win_free(&shared);
    int all; /* every rank's exit status says it */
    MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("win_over_window: %d ranks, %d errors\n", size, all);
    MPI_Finalize();
    return all != 0;
}
