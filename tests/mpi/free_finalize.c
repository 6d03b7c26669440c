/* Requests the program freed while active complete before the job ends
 * (MPI 4.0 11.2.2: MPI completes them, at MPI_Finalize at the latest; MPICH's
 * pt2pt/rqfreeb relies on it), compared with a native MPICH run (2 ranks).
 * Rank 0 frees a large MPI_Isend (rendezvous in MPICH: it cannot complete
 * before rank 1 receives), then a small one, and calls MPI_Finalize at once,
 * while rank 1 is still computing. Rank 1 had freed an MPI_Irecv for the
 * small one; it receives the large one, and after its own MPI_Finalize the
 * small one's data is in place. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LARGE (4 << 20) /* ints */

static uint64_t checksum(const int *v, size_t n)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint32_t)v[i]) * 1099511628211u;
    return h;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, small = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int *large = malloc(LARGE * sizeof *large);
    MPI_Request rq;
    if (rank == 0) {
        for (int i = 0; i < LARGE; i++)
            large[i] = i * 7 + 3;
        small = 4242;
        MPI_Isend(large, LARGE, MPI_INT, 1, 1, MPI_COMM_WORLD, &rq);
        MPI_Request_free(&rq);
        MPI_Isend(&small, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq);
        MPI_Request_free(&rq);
        MPI_Finalize();
        return 0; /* the buffers stay as they are: the sends may read them until they complete */
    }
    MPI_Irecv(&small, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &rq);
    MPI_Request_free(&rq);
    nanosleep(&(struct timespec){0, 500 * 1000 * 1000}, NULL); /* rank 0 reaches MPI_Finalize first */
    MPI_Status st;
    MPI_Recv(large, LARGE, MPI_INT, 0, 1, MPI_COMM_WORLD, &st);
    int n;
    MPI_Get_count(&st, MPI_INT, &n);
    MPI_Finalize();
    printf("large: %d ints, checksum %016llx\n", n, (unsigned long long)checksum(large, LARGE));
    printf("small (a freed receive): %d\n", small);
    free(large);
    return 0;
}
