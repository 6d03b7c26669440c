/* Every rank of an MPI_Allreduce gets the same bits (MPI 4.0 section
 * 6.9.1 advises it; a solver that branches on the result hangs otherwise),
 * also where swapping an op's operands changes the result: MIN and MAX of
 * a NaN and a number, of -0.0 and +0.0, MINLOC of a NaN, and a vector long
 * enough for the long algorithm. Rank 0 gathers every rank's result bytes
 * and compares them: "allreduce same bits: PASS" or the first difference.
 * Run under mpcr only: MPICH itself applies commutative ops either way. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 40000 /* 320 KB of doubles: the long Allreduce at 4 ranks and more */

static int compare(const char *what, const void *mine, int bytes, int rank, int size)
{
    unsigned char *all = rank == 0 ? malloc((size_t)bytes * size) : NULL;
    MPI_Gather(mine, bytes, MPI_BYTE, all, bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        for (int r = 1; r < size && !bad; r++)
            if (memcmp(all, all + (size_t)r * bytes, (size_t)bytes)) {
                printf("allreduce same bits: FAIL: %s: rank %d differs from rank 0\n", what, r);
                bad = 1;
            }
        free(all);
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    /* element i: a NaN at one rank, a number at the others; -0.0 and +0.0 */
    for (int i = 0; i < N; i++)
        in[i] = i % 3 == 0 ? (rank == i % size ? NAN : (double)(rank + i))
                : i % 3 == 1 ? (rank % 2 ? -0.0 : 0.0)
                             : (double)((rank * 7919 + i) % 1000) / 7.0;
    const MPI_Op ops[] = {MPI_MIN, MPI_MAX, MPI_SUM};
    const char *names[] = {"MIN", "MAX", "SUM"};
    for (int k = 0; k < 3 && !bad; k++)
        for (int n = 1; n <= N && !bad; n *= 200) { /* 1, 200, 40000 elements */
            char what[64];
            snprintf(what, sizeof what, "%s of %d doubles", names[k], n);
            MPI_Allreduce(in, out, n, MPI_DOUBLE, ops[k], MPI_COMM_WORLD);
            bad = compare(what, out, n * (int)sizeof *out, rank, size);
        }
    struct {
        double v;
        int i;
    } pair[3] = {{rank == 0 ? NAN : 1.0, rank}, {rank % 2 ? -0.0 : 0.0, rank}, {2.0, size - rank}},
      res[3];
    if (!bad) {
        MPI_Allreduce(pair, res, 3, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
        unsigned char bytes[3 * (sizeof(double) + sizeof(int))]; /* not the pairs' padding */
        for (int i = 0; i < 3; i++) {
            memcpy(bytes + i * 12, &res[i].v, 8);
            memcpy(bytes + i * 12 + 8, &res[i].i, 4);
        }
        bad = compare("MINLOC of NaN, -0.0 and ties", bytes, (int)sizeof bytes, rank, size);
    }
    if (!bad && rank == 0) printf("allreduce same bits: PASS\n");
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
