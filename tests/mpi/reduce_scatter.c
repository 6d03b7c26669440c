/* MPI_Reduce_scatter with counts drawn per call (zeros among them, all
 * zero now and then, blocks of up to 40000 elements), by MPI_SUM on ints
 * (also MPI_IN_PLACE), MPI_MAX, a commutative user op, and MPI_SUM on
 * doubles with exact values (every other call MPI_Reduce_scatter_block).
 * Every rank checks its block against the reduction it computes itself
 * from every rank's data; rank 0 prints how
 * many elements were checked and how many were wrong. mpcr reduces a
 * commutative op by recursive halving, ranks beyond a power of two folded
 * in (src/lib/coll/coll_basic.c), so the rank counts that matter are 2^k, and
 * 2^k + 1 ... 2^(k+1) - 1. (Natively MPICH 4.0.2 fails this program from 6
 * ranks on: an assertion on overlapping memcpy ranges in its in-place
 * path.)
 *   reduce_scatter [CALLS]   (default 60) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int value(int call, int rank, int i)
{
    return (i * 7 + rank * 13 + call) % 1000;
}

/* a commutative op that is no predefined one: a + b + 1 */
static void plus_one(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] + b[i] + 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size, rank, calls = argc > 1 ? atoi(argv[1]) : 60;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Op op;
    MPI_Op_create(plus_one, 1, &op);
    int *counts = malloc(sizeof(int) * (size_t)size);
    long bad = 0, checked = 0;
    for (int call = 0; call < calls; call++) {
        int total = 0, before = 0;
        unsigned s = 12345u * (unsigned)(call + 1);
        for (int i = 0; i < size; i++) {
            s = s * 1103515245u + 12345u;
            counts[i] = call % 5 == 0 ? 0 : (int)((s >> 16) % (call % 3 == 0 ? 40000 : 7));
            if (call % 7 == 3 && i == 1) counts[i] = 0;
            if (i < rank) before += counts[i];
            total += counts[i];
        }
        int *in = malloc(sizeof(int) * (size_t)(total + 1));
        int *out = malloc(sizeof(int) * (size_t)(total + 1));
        int dtotal = total > size * counts[0] ? total : size * counts[0];
        double *din = malloc(sizeof(double) * (size_t)(dtotal + 1));
        double *dout = malloc(sizeof(double) * (size_t)(total + 1));
        for (int i = 0; i < dtotal; i++) {
            if (i < total) in[i] = value(call, rank, i);
            din[i] = value(call, rank, i) * 0.5;
        }
        int kind = call % 4;
        if (kind == 1) {
            memcpy(out, in, sizeof(int) * (size_t)total);
            MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Reduce_scatter(in, out, counts, MPI_INT,
                               kind == 2   ? MPI_MAX
                               : kind == 3 ? op
                                           : MPI_SUM,
                               MPI_COMM_WORLD);
        }
        if (call % 2) /* the block form, every block as large as rank 0's */
            MPI_Reduce_scatter_block(din, dout, counts[0], MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        else
            MPI_Reduce_scatter(din, dout, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        int dblock = call % 2 ? counts[0] : counts[rank],
            dbefore = call % 2 ? rank * counts[0] : before;
        for (int j = 0; j < dblock; j++) {
            double dwant = 0;
            for (int r = 0; r < size; r++)
                dwant += value(call, r, dbefore + j) * 0.5;
            checked++;
            bad += dout[j] != dwant;
        }
        for (int j = 0; j < counts[rank]; j++) {
            long want = kind == 2 ? -1 : kind == 3 ? size - 1 : 0;
            for (int r = 0; r < size; r++) {
                int x = value(call, r, before + j);
                want = kind == 2 ? (x > want ? x : want) : want + x;
            }
            checked++;
            bad += out[j] != want;
        }
        free(in), free(out), free(din), free(dout);
    }
    long mine[2] = {checked, bad}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%d ranks: %ld elements checked, %ld wrong\n", size, all[0], all[1]);
    MPI_Op_free(&op);
    free(counts);
    MPI_Finalize();
    return 0;
}
