/* The collectives beyond tests/mpi/coll.c, every rank printing what it got
 * (compared with the native run): Gatherv, Scatterv, Allgatherv,
 * Alltoallv, Alltoallw, Reduce_scatter(_block), Scan, Exscan,
 * Reduce_local, with MPI_IN_PLACE where MPI allows it, zero counts and _c
 * forms; Allreduce long enough for reduce-scatter + allgather (64 KiB and
 * more) and short (recursive doubling, odd rank counts fold in); user ops,
 * commutative and not (2x2 matrix products: rank order shows); many
 * collectives back to back with different roots. Values are exact in
 * floating point, so any order of summation gives the same result. */
#include "out.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

/* One line: "LABEL: v0 v1 ..." */
static void line_ints(const char *label, const int *v, int n)
{
    char buf[4096];
    int len = snprintf(buf, sizeof buf, "rank %d %s:", rank, label);
    for (int i = 0; i < n && len < (int)sizeof buf - 16; i++)
        len += snprintf(buf + len, sizeof buf - len, " %d", v[i]);
    out("%s\n", buf);
}

/* 2x2 integer matrices, row major, 4 ints each: inout = in * inout (not
 * commutative). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    int *a = in, *b = inout;
    for (int k = 0; k < *len / 4; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}

static void absmax_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type)
{
    (void)type;
    long *a = in, *b = inout;
    for (MPI_Count i = 0; i < *len; i++)
        b[i] = labs(a[i]) > labs(b[i]) || (labs(a[i]) == labs(b[i]) && a[i] > b[i]) ? a[i] : b[i];
}

static void vectors(void)
{
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    int total = 0;
    for (int i = 0; i < size; i++) {
        counts[i] = i % 3;     /* zero counts too */
        displs[i] = total + 1; /* a gap before each block */
        total += counts[i] + 1;
    }
    int *all = malloc((total + 1) * sizeof(int)), mine[4];
    for (int root = 0; root < size; root++) {
        for (int i = 0; i < counts[rank]; i++)
            mine[i] = 100 * rank + i;
        for (int i = 0; i < total; i++)
            all[i] = -1;
        if (rank == root && root == 1) {
            memcpy(all + displs[rank], mine, counts[rank] * sizeof(int));
            MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT, root,
                        MPI_COMM_WORLD);
        } else {
            MPI_Gatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root,
                        MPI_COMM_WORLD);
        }
        if (rank == root) line_ints("gatherv", all, total);
        for (int i = 0; i < total; i++)
            all[i] = 1000 * root + i;
        int got[4] = {-1, -1, -1, -1};
        MPI_Scatterv(all, counts, displs, MPI_INT, got, counts[rank], MPI_INT, root,
                     MPI_COMM_WORLD);
        line_ints("scatterv", got, 4);
    }
    for (int i = 0; i < total; i++)
        all[i] = -1;
    for (int i = 0; i < counts[rank]; i++)
        all[displs[rank] + i] = 7 * rank + i;
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
    line_ints("allgatherv in place", all, total);
    MPI_Count ccounts[64], cdispls[64];
    for (int i = 0; i < size; i++)
        ccounts[i] = counts[i], cdispls[i] = displs[i];
    for (int i = 0; i < total; i++)
        all[i] = -2;
    MPI_Allgatherv_c(mine, counts[rank], MPI_INT, all, ccounts, (MPI_Aint *)cdispls, MPI_INT,
                     MPI_COMM_WORLD);
    line_ints("allgatherv_c", all, total);

    /* Alltoallv: rank r sends (r + j) % 3 ints to rank j. */
    int *sc = malloc(size * sizeof(int)), *sd = malloc(size * sizeof(int));
    int *rc = malloc(size * sizeof(int)), *rd = malloc(size * sizeof(int));
    int sn = 0, rn = 0;
    for (int j = 0; j < size; j++) {
        sc[j] = (rank + j) % 3, sd[j] = sn, sn += sc[j];
        rc[j] = (j + rank) % 3, rd[j] = rn + 1, rn += rc[j] + 1;
    }
    int *sb = malloc((sn + 1) * sizeof(int)), *rb = malloc((rn + 1) * sizeof(int));
    for (int i = 0; i < sn; i++)
        sb[i] = rank * 1000 + i;
    for (int i = 0; i < rn; i++)
        rb[i] = -1;
    MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, MPI_COMM_WORLD);
    line_ints("alltoallv", rb, rn);
    /* Alltoallw: ints to even ranks, doubles to odd, displacements in bytes. */
    MPI_Datatype *st = malloc(size * sizeof *st), *rt = malloc(size * sizeof *rt);
    int *swc = malloc(size * sizeof(int)), *swd = malloc(size * sizeof(int));
    int *rwc = malloc(size * sizeof(int)), *rwd = malloc(size * sizeof(int));
    char sw[1024], rw[1024];
    for (int j = 0; j < size; j++) {
        st[j] = j % 2 ? MPI_DOUBLE : MPI_INT, rt[j] = rank % 2 ? MPI_DOUBLE : MPI_INT;
        swc[j] = 2, swd[j] = 16 * j, rwc[j] = 2, rwd[j] = 16 * j;
        if (j % 2) {
            double v[2] = {rank + 0.5, j + 0.25};
            memcpy(sw + 16 * j, v, sizeof v);
        } else {
            int v[2] = {rank, j};
            memcpy(sw + 16 * j, v, sizeof v);
        }
    }
    memset(rw, 0, sizeof rw);
    MPI_Alltoallw(sw, swc, swd, st, rw, rwc, rwd, rt, MPI_COMM_WORLD);
    char buf[2048];
    int len = snprintf(buf, sizeof buf, "rank %d alltoallw:", rank);
    for (int j = 0; j < size; j++) {
        if (rank % 2) {
            double v[2];
            memcpy(v, rw + 16 * j, sizeof v);
            len += snprintf(buf + len, sizeof buf - len, " %g/%g", v[0], v[1]);
        } else {
            int v[2];
            memcpy(v, rw + 16 * j, sizeof v);
            len += snprintf(buf + len, sizeof buf - len, " %d/%d", v[0], v[1]);
        }
    }
    out("%s\n", buf);
    /* Alltoall in place. */
    int *ip = malloc(2 * size * sizeof(int));
    for (int i = 0; i < 2 * size; i++)
        ip[i] = rank * 100 + i;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ip, 2, MPI_INT, MPI_COMM_WORLD);
    line_ints("alltoall in place", ip, 2 * size);
    free(ip), free(st), free(rt), free(swc), free(swd), free(rwc), free(rwd);
    free(sc), free(sd), free(rc), free(rd), free(sb), free(rb);
    free(counts), free(displs), free(all);
}

static void reductions(void)
{
    /* Reduce_scatter_block, Reduce_scatter (counts i % 3 + 1), in place too. */
    int n = 3 * size, *v = malloc(n * sizeof(int)), got[8];
    for (int i = 0; i < n; i++)
        v[i] = rank * 10 + i;
    MPI_Reduce_scatter_block(v, got, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    line_ints("reduce_scatter_block sum", got, 3);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    line_ints("reduce_scatter_block max in place", v, 3);
    int *rc = malloc(size * sizeof(int)), tot = 0;
    for (int i = 0; i < size; i++)
        rc[i] = i % 3 + 1, tot += rc[i];
    int *w = malloc(tot * sizeof(int));
    for (int i = 0; i < tot; i++)
        w[i] = rank + i;
    MPI_Reduce_scatter(w, got, rc, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
    line_ints("reduce_scatter prod", got, rc[rank]);
    /* Scan, Exscan; in place. */
    long s[2] = {rank + 1, -rank}, r[2] = {-7, -7};
    MPI_Scan(s, r, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    out("rank %d scan sum: %ld %ld\n", rank, r[0], r[1]);
    r[0] = r[1] = -7;
    MPI_Exscan(s, r, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank) out("rank %d exscan sum: %ld %ld\n", rank, r[0], r[1]);
    MPI_Scan(MPI_IN_PLACE, s, 2, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    out("rank %d scan max in place: %ld %ld\n", rank, s[0], s[1]);
    int e = rank + 2;
    MPI_Exscan(MPI_IN_PLACE, &e, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD);
    if (rank) out("rank %d exscan prod in place: %d\n", rank, e);
    /* Reduce_local, plain and _c. */
    double a[3] = {1, 2, 3}, b[3] = {4, 5, 6};
    MPI_Reduce_local(a, b, 3, MPI_DOUBLE, MPI_SUM);
    MPI_Reduce_local_c(a, b, 3, MPI_DOUBLE, MPI_MAX);
    out("rank %d reduce_local: %g %g %g\n", rank, b[0], b[1], b[2]);
    /* Zero counts. */
    MPI_Allreduce(s, r, 0, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(s, r, 0, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Scan(s, r, 0, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(s, 0, MPI_LONG, size - 1, MPI_COMM_WORLD);
    /* Allreduce, long (64 KiB and 1 MiB of doubles) and short. */
    for (int len = 8192; len <= 131072; len *= 16) {
        double *x = malloc(len * sizeof *x), *y = malloc(len * sizeof *y);
        for (int i = 0; i < len; i++)
            x[i] = (i % 1000) * 0.5 + rank;
        MPI_Allreduce(x, y, len, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double check = 0;
        int ok = 1;
        for (int i = 0; i < len; i++) {
            ok &= y[i] == size * ((i % 1000) * 0.5) + size * (size - 1) / 2.0;
            check += y[i];
        }
        out("rank %d allreduce %d doubles: %s %g\n", rank, len, ok ? "ok" : "WRONG", check);
        MPI_Allreduce_c(MPI_IN_PLACE, x, len, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        out("rank %d allreduce_c max in place: %g %g\n", rank, x[0], x[len - 1]);
        free(x), free(y);
    }
    free(v), free(rc), free(w);
}

static void user_ops(void)
{
    MPI_Op mm, am;
    MPI_Datatype mat = MPI_INT; /* 4 a matrix */
    MPI_Op_create(matmul, 0, &mm);
    MPI_Op_create_c(absmax_c, 1, &am);
    int commute[2];
    MPI_Op_commutative(mm, &commute[0]);
    MPI_Op_commutative(am, &commute[1]);
    out("rank %d commutative: matmul %d absmax %d\n", rank, commute[0], commute[1]);
    /* A different matrix per rank: the product depends on the order. */
    int m[8] = {1, rank + 1, 0, 1, 1, 0, rank, 1}, p[8];
    for (int root = 0; root < size; root++) {
        memset(p, 0, sizeof p);
        MPI_Reduce(m, p, 8, mat, mm, root, MPI_COMM_WORLD);
        if (rank == root) line_ints("reduce matmul", p, 8);
    }
    MPI_Allreduce(m, p, 8, mat, mm, MPI_COMM_WORLD);
    line_ints("allreduce matmul", p, 8);
    MPI_Scan(m, p, 8, mat, mm, MPI_COMM_WORLD);
    line_ints("scan matmul", p, 8);
    MPI_Exscan(m, p, 8, mat, mm, MPI_COMM_WORLD);
    if (rank) line_ints("exscan matmul", p, 8);
    int *rsb = malloc(8 * size * sizeof(int));
    for (int i = 0; i < 2 * size; i++)
        memcpy(rsb + 4 * i, m + 4 * (i % 2), 4 * sizeof(int)), rsb[4 * i + 1] += i;
    MPI_Reduce_scatter_block(rsb, p, 8, mat, mm, MPI_COMM_WORLD);
    line_ints("reduce_scatter_block matmul", p, 8);
    long l[3] = {rank - 2, 3 - 2 * rank, rank * rank}, lr[3];
    MPI_Allreduce(l, lr, 3, MPI_LONG, am, MPI_COMM_WORLD);
    out("rank %d allreduce absmax: %ld %ld %ld\n", rank, lr[0], lr[1], lr[2]);
    MPI_Reduce_local(m, m + 4, 4, mat, mm);
    line_ints("reduce_local matmul", m + 4, 4);
    MPI_Op_free(&mm);
    MPI_Op_free(&am);
    out("rank %d op freed: %d\n", rank, mm == MPI_OP_NULL && am == MPI_OP_NULL);
    free(rsb);
}

/* Many collectives back to back, roots changing: none may take another's
 * messages. */
static void back_to_back(void)
{
    long acc = 0;
    for (int i = 0; i < 60; i++) {
        int root = i % size, v = rank == root ? i * 3 + root : -1;
        MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
        int s;
        MPI_Reduce(&v, &s, 1, MPI_INT, MPI_SUM, (root + 1) % size, MPI_COMM_WORLD);
        if (rank == (root + 1) % size) acc += s;
        int g[64];
        MPI_Allgather(&i, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD);
        acc += g[size - 1] + v;
    }
    long total;
    MPI_Allreduce(&acc, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    out("rank %d back to back: %ld\n", rank, total);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    vectors();
    reductions();
    user_ops();
    back_to_back();
    out_flush();
    MPI_Finalize();
    return 0;
}
