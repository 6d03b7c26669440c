/* Collectives and multi-request calls, every rank printing what it got:
 * MPI_Bcast from every root (ints, doubles, a pair type, 1 MiB), MPI_Reduce
 * and MPI_Allreduce with the predefined ops (exactly representable values,
 * so any summation order gives the same result), MPI_IN_PLACE,
 * MINLOC/MAXLOC, MPI_Sendrecv around the ring, MPI_Waitall, MPI_Gather,
 * MPI_Scatter, MPI_Allgather, MPI_Alltoall (with MPI_IN_PLACE where MPI
 * allows it, and matching but different send and receive types), and
 * MPI_Barrier. */
#include "out.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (int root = 0; root < size; root++) {
        int v[3] = {rank, rank, rank};
        if (rank == root) v[0] = 100 + root, v[1] = 200 + root, v[2] = 300 + root;
        MPI_Bcast(v, 3, MPI_INT, root, MPI_COMM_WORLD);
        struct {
            double d;
            int i;
        } p = {rank == root ? 2.5 * root : -1, rank == root ? root : -1};
        MPI_Bcast(&p, 1, MPI_DOUBLE_INT, root, MPI_COMM_WORLD);
        out("rank %d bcast from %d: %d %d %d (%g, %d)\n", rank, root, v[0], v[1], v[2], p.d, p.i);
    }
    int n = 1 << 18;
    int *big = malloc(n * sizeof *big);
    for (int i = 0; i < n; i++)
        big[i] = rank == 1 % size ? i * 3 : 0;
    MPI_Bcast(big, n, MPI_INT, 1 % size, MPI_COMM_WORLD);
    long sum = 0;
    for (int i = 0; i < n; i++)
        sum += big[i];
    out("rank %d bcast 1 MiB: sum %ld\n", rank, sum);
    free(big);

    static const struct {
        MPI_Op op;
        const char *name;
    } ops[] = {{MPI_SUM, "sum"},   {MPI_PROD, "prod"}, {MPI_MAX, "max"},   {MPI_MIN, "min"},
               {MPI_LAND, "land"}, {MPI_LOR, "lor"},   {MPI_LXOR, "lxor"}, {MPI_BAND, "band"},
               {MPI_BOR, "bor"},   {MPI_BXOR, "bxor"}};
    for (unsigned k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        int in[4] = {rank + 1, rank % 2, 7 * rank + 3, -rank}, out[4] = {0};
        MPI_Reduce(in, out, 4, MPI_INT, ops[k].op, size - 1, MPI_COMM_WORLD);
        if (rank == size - 1)
            out("reduce %s: %d %d %d %d\n", ops[k].name, out[0], out[1], out[2], out[3]);
        long all[2] = {rank * 1000L + 1, 5 - rank};
        MPI_Allreduce(MPI_IN_PLACE, all, 2, MPI_LONG, ops[k].op, MPI_COMM_WORLD);
        out("rank %d allreduce %s: %ld %ld\n", rank, ops[k].name, all[0], all[1]);
    }
    double d[2] = {rank * 0.5, -rank * 0.25}, dsum[2], dmax[2];
    MPI_Allreduce(d, dsum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(d, dmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    out("rank %d doubles: sum %g %g max %g %g\n", rank, dsum[0], dsum[1], dmax[0], dmax[1]);
    struct {
        double v;
        int i;
    } loc = {(double)((rank * 7) % 3), rank}, mx, mn;
    MPI_Allreduce(&loc, &mx, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&loc, &mn, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    int two[2] = {rank % 2, rank}, two_out[2];
    MPI_Allreduce(two, two_out, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD);
    out("rank %d maxloc %g@%d minloc %g@%d 2int maxloc %d@%d\n", rank, mx.v, mx.i, mn.v, mn.i,
        two_out[0], two_out[1]);

    int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
    MPI_Status st;
    MPI_Sendrecv(&rank, 1, MPI_INT, next, 11, &got, 1, MPI_INT, prev, 11, MPI_COMM_WORLD, &st);
    out("rank %d sendrecv: got %d from %d\n", rank, got, st.MPI_SOURCE);

    MPI_Request rq[8];
    int recv[4], send[4];
    for (int i = 0; i < 4; i++) {
        send[i] = rank * 10 + i;
        MPI_Irecv(&recv[i], 1, MPI_INT, prev, 20 + i, MPI_COMM_WORLD, &rq[i]);
    }
    for (int i = 3; i >= 0; i--)
        MPI_Isend(&send[i], 1, MPI_INT, next, 20 + i, MPI_COMM_WORLD, &rq[4 + i]);
    MPI_Status sts[8];
    MPI_Waitall(8, rq, sts);
    out("rank %d waitall: %d %d %d %d tags %d %d %d %d\n", rank, recv[0], recv[1], recv[2], recv[3],
        sts[0].MPI_TAG, sts[1].MPI_TAG, sts[2].MPI_TAG, sts[3].MPI_TAG);
    /* Gather, Scatter, Allgather, Alltoall; IN_PLACE where MPI allows it. */
    int mine[2] = {rank * 2, rank * 2 + 1}, *all = calloc(2 * size, sizeof(int));
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < 2 * size; i++)
            all[i] = -1;
        if (rank == root && root % 2) { /* IN_PLACE: the root's block is already there */
            all[2 * root] = mine[0], all[2 * root + 1] = mine[1];
            MPI_Gather(MPI_IN_PLACE, 2, MPI_INT, all, 1, MPI_2INT, root, MPI_COMM_WORLD);
        } else {
            MPI_Gather(mine, 2, MPI_INT, all, 1, MPI_2INT, root, MPI_COMM_WORLD);
        }
        if (rank == root) { /* one printf per line: ranks' lines must not interleave */
            char line[512];
            int n = snprintf(line, sizeof line, "gather to %d:", root);
            for (int i = 0; i < 2 * size; i++)
                n += snprintf(line + n, sizeof line - n, " %d", all[i]);
            out("%s\n", line);
        }
        int part[2] = {-1, -1};
        for (int i = 0; i < 2 * size; i++)
            all[i] = 1000 * root + i;
        if (rank == root && root % 2)
            MPI_Scatter(all, 2, MPI_INT, MPI_IN_PLACE, 2, MPI_INT, root, MPI_COMM_WORLD);
        else
            MPI_Scatter(all, 2, MPI_INT, part, 2, MPI_INT, root, MPI_COMM_WORLD);
        out("rank %d scatter from %d: %d %d\n", rank, root, part[0], part[1]);
    }
    for (int i = 0; i < 2 * size; i++)
        all[i] = -1;
    MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < 2 * size; i++)
        ok &= all[i] == i;
    for (int i = 0; i < 2 * size; i++)
        all[i] = i / 2 == rank ? i : -1;
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < 2 * size; i++)
        ok &= all[i] == i;
    out("rank %d allgather (plain and in place): %s\n", rank, ok ? "ok" : "WRONG");
    double *out = malloc(3 * size * sizeof *out), *in = malloc(3 * size * sizeof *in);
    for (int i = 0; i < 3 * size; i++)
        out[i] = rank * 100 + i, in[i] = -1;
    MPI_Alltoall(out, 3, MPI_DOUBLE, in, 3, MPI_DOUBLE, MPI_COMM_WORLD);
    char line[512];
    int len = snprintf(line, sizeof line, "rank %d alltoall:", rank);
    for (int i = 0; i < 3 * size; i++)
        len += snprintf(line + len, sizeof line - len, " %g", in[i]);
    out("%s\n", line);
    free(all), free(out), free(in);
    for (int i = 0; i < 50; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    out_flush();
    MPI_Finalize();
    return 0;
}
