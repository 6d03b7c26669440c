/* Checkpoint scenario: a conjugate-gradient solver calling MPI_Allreduce
 * every iteration, with unequal computation between the collectives so
 * that a checkpoint finds ranks computing, inside an Allreduce, and
 * already past it. It solves the 1D Laplacian (tridiagonal 2, -1) for a
 * fixed right-hand side, LOCAL rows per rank: each iteration a halo
 * exchange (MPI_Sendrecv), the matrix-vector product, and two Allreduce
 * (dot products). Every ITERS / 8 iterations other collectives join in:
 * Bcast from a rotating root, Allgatherv, Alltoall, Scan with a
 * non-commutative user op (2x2 matrix products, rank order shows), and
 * Reduce_scatter_block. All in double precision with a fixed order of
 * operations, so the result is bit-identical however often the job is cut
 * and restarted; rank 0 prints the residual now and then and, at the end,
 * every rank's checksum.
 *   ckpt_coll_cg [ITERS [UNITS]]   (default 400 2; UNITS: units of computation
 *                                   a rank adds, unequally, per iteration) */
#include "ckpt.h"

#include <math.h>

#define LOCAL 512

static int rank, size;

/* 2x2 integer matrices mod 2^16 (4 ints each): inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) & 0xffff, (a[0] * b[1] + a[1] * b[3]) & 0xffff,
                    (a[2] * b[0] + a[3] * b[2]) & 0xffff, (a[2] * b[1] + a[3] * b[3]) & 0xffff};
        memcpy(b, c, sizeof c);
    }
}

static double dot(const double *a, const double *b)
{
    double local = 0, all;
    for (int i = 0; i < LOCAL; i++)
        local += a[i] * b[i];
    MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

/* q = A p, with the neighbours' edge values of p. */
static void matvec(const double *p, double *q)
{
    int left = rank ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double from_left = 0, from_right = 0;
    MPI_Sendrecv(&p[LOCAL - 1], 1, MPI_DOUBLE, right, 1, &from_left, 1, MPI_DOUBLE, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&p[0], 1, MPI_DOUBLE, left, 2, &from_right, 1, MPI_DOUBLE, right, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < LOCAL; i++)
        q[i] = 2 * p[i] - (i ? p[i - 1] : from_left) - (i < LOCAL - 1 ? p[i + 1] : from_right);
}

/* The other collectives, every few iterations; returns a hash of what
 * they gave. */
static uint64_t others(long it, MPI_Op mm, const double *x)
{
    uint64_t h = (uint64_t)it;
    int root = (int)(it % size);
    double head[4];
    memcpy(head, x, sizeof head);
    MPI_Bcast(head, 4, MPI_DOUBLE, root, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        h = mix2(h, (uint64_t)(head[i] * 1e6));
    int counts[16], displs[16], mine[3], all[64];
    for (int i = 0, at = 0; i < size; i++)
        counts[i] = i % 3 + 1, displs[i] = at, at += counts[i];
    for (int i = 0; i < counts[rank]; i++)
        mine[i] = (int)(mix2(h, (uint64_t)(rank * 8 + i)) & 0xffff);
    MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < displs[size - 1] + counts[size - 1]; i++)
        h = mix2(h, (uint64_t)all[i]);
    int a2a[16], got[16];
    for (int i = 0; i < size; i++)
        a2a[i] = rank * 100 + i + (int)it;
    MPI_Alltoall(a2a, 1, MPI_INT, got, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++)
        h = mix2(h, (uint64_t)got[i]);
    int m[4] = {1, (rank + (int)it) & 0xff, rank & 3, 1}, prefix[4];
    MPI_Scan(m, prefix, 4, MPI_INT, mm, MPI_COMM_WORLD);
    for (int i = 0; i < 4; i++)
        h = mix2(h, (uint64_t)prefix[i]);
    long rs[16], one;
    for (int i = 0; i < size; i++)
        rs[i] = (long)(mix2(h, (uint64_t)i) & 0xfff);
    MPI_Reduce_scatter_block(rs, &one, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    return mix2(h, (uint64_t)one);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 400), units = arg_long(argc, argv, 2, 2);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size <= 16, "at most 16 ranks");
    MPI_Op mm;
    MPI_Op_create(matmul, 0, &mm);
    static double x[LOCAL], r[LOCAL], p[LOCAL], q[LOCAL];
    for (int i = 0; i < LOCAL; i++) /* b: a fixed right-hand side; x = 0, so r = p = b */
        r[i] = p[i] = 1.0 + (double)((rank * LOCAL + i) % 7) / 8;
    double rr = dot(r, r);
    uint64_t h = 0, work = 0;
    long every = iters / 8 > 0 ? iters / 8 : 1;
    for (long it = 0; it < iters; it++) {
        /* Unequal computation: ranks reach the collectives at different times. */
        work = compute(mix2(work, (uint64_t)it), units * ((rank + it) % 3));
        matvec(p, q);
        double alpha = rr / dot(p, q);
        for (int i = 0; i < LOCAL; i++)
            x[i] += alpha * p[i], r[i] -= alpha * q[i];
        double rr_new = dot(r, r);
        for (int i = 0; i < LOCAL; i++)
            p[i] = r[i] + rr_new / rr * p[i];
        rr = rr_new;
        if (it % every == every - 1) {
            h = mix2(h, others(it, mm, x));
            progress("cg: iteration %ld, residual %.6e, hash %016" PRIx64 "\n", it + 1, sqrt(rr),
                     h);
        }
    }
    uint64_t sum = 0;
    for (int i = 0; i < LOCAL; i++) {
        uint64_t bits;
        memcpy(&bits, &x[i], sizeof bits);
        sum = mix2(sum, bits);
    }
    uint64_t v[3] = {sum, h, work};
    const char *names[] = {"x", "others", "work"};
    report("cg", names, v, 3);
    MPI_Op_free(&mm);
    MPI_Finalize();
    return 0;
}
