/* Partitioned point-to-point (MPI 4.0 chapter 4), compared with a native
 * MPICH run (2 ranks): every partition count 1..16 with MPI_INT, several
 * datatypes (a derived vector among them, and a receiver partitioning
 * differently from its sender), partitions marked ready with MPI_Pready,
 * _range and _list in scrambled orders, MPI_Parrived polled until each
 * partition arrives, MPI_Startall of several requests, reuse over
 * iterations, an ordinary message on the same tag (received with
 * MPI_ANY_TAG) that must not match a partitioned receive,
 * MPI_Request_get_status and MPI_Test. With argument "errors" (mpcr only,
 * self-checking): MPI_Pready out of range and twice, _range and _list
 * likewise, MPI_Start of a send still waiting, MPI_Parrived out of range
 * fail with the standard's classes under MPI_ERRORS_RETURN; and an
 * MPI_PROC_NULL peer (MPICH 4.0.2 with UCX crashes in MPI_Psend_init to
 * MPI_PROC_NULL, so it is not compared). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"

static int rank, peer;

/* Marks partitions 0..n-1 ready in an order chosen by variant v. */
static void mark_ready(MPI_Request rq, int n, int v)
{
    if (v % 3 == 0) {
        for (int p = n - 1; p >= 0; p--)
            MPI_Pready(p, rq);
    } else if (v % 3 == 1) {
        int half = n / 2;
        if (half > 0) MPI_Pready_range(half, n - 1, rq);
        if (half > 0) MPI_Pready_range(0, half - 1, rq);
        else MPI_Pready_range(0, n - 1, rq);
    } else {
        int *list = malloc(sizeof *list * (size_t)n), k = 0;
        for (int p = 0; p < n; p += 2)
            list[k++] = p;
        for (int p = 1; p < n; p += 2)
            list[k++] = p;
        MPI_Pready_list(n, list, rq);
        free(list);
    }
}

/* Rank 0 sends n partitions of count ints, rank 1 receives them and polls. */
static void counts(void)
{
    for (int n = 1; n <= 16; n++) {
        int count = 3, total = n * count;
        int *buf = malloc(sizeof(int) * (size_t)total);
        MPI_Request rq;
        if (rank == 0) {
            MPI_Psend_init(buf, n, count, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        } else {
            MPI_Precv_init(buf, n, count, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        }
        for (int it = 0; it < 3; it++) {
            for (int i = 0; i < total; i++)
                buf[i] = rank == 0 ? 1000 * n + 100 * it + i : -1;
            MPI_Start(&rq);
            if (rank == 0) {
                mark_ready(rq, n, n + it);
            } else {
                for (int p = n - 1; p >= 0; p--) {
                    int flag = 0;
                    while (!flag)
                        MPI_Parrived(rq, p, &flag);
                }
            }
            MPI_Status st;
            MPI_Wait(&rq, &st);
            if (rank == 1) {
                long sum = 0;
                int bad = 0;
                for (int i = 0; i < total; i++) {
                    sum += buf[i];
                    bad += buf[i] != 1000 * n + 100 * it + i;
                }
                int got;
                MPI_Get_count(&st, MPI_INT, &got);
                out("partitions %d iteration %d: sum %ld, %d wrong, source %d, tag %d, count %d\n", n,
                    it, sum, bad, st.MPI_SOURCE, st.MPI_TAG, got);
            }
        }
        MPI_Request_free(&rq);
        free(buf);
    }
}

/* Several datatypes, a derived vector among them (every other double). */
static void datatypes(void)
{
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    double d[4 * 8], d2[4 * 8];
    char c[5 * 7];
    short s[6];
    MPI_Request rq[3];
    for (int i = 0; i < 32; i++)
        d[i] = rank == 0 ? i * 0.5 : -1, d2[i] = -1;
    for (int i = 0; i < 35; i++)
        c[i] = rank == 0 ? (char)('a' + i % 26) : '.';
    for (int i = 0; i < 6; i++)
        s[i] = rank == 0 ? (short)(i * 111) : 0;
    if (rank == 0) {
        /* 4 partitions of 2 vectors: each vector covers 3 doubles, the last extent ends at 3 */
        MPI_Psend_init(d, 4, 2, vec, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
        MPI_Psend_init(c, 5, 7, MPI_CHAR, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
        MPI_Psend_init(s, 6, 1, MPI_SHORT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]);
    } else {
        /* the receiver's partitioning differs from the sender's (MPI 4.0 4.2.3) */
        MPI_Precv_init(d2, 2, 8, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
        MPI_Precv_init(c, 7, 5, MPI_CHAR, peer, 8, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
        MPI_Precv_init(s, 3, 2, MPI_SHORT, peer, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[2]);
    }
    MPI_Startall(3, rq);
    if (rank == 0) {
        MPI_Pready_range(0, 4, rq[1]);
        MPI_Pready(3, rq[0]);
        int l[] = {5, 0, 3, 1, 4, 2};
        MPI_Pready_list(6, l, rq[2]);
        MPI_Pready_range(0, 2, rq[0]);
    }
    MPI_Status sts[3];
    MPI_Waitall(3, rq, sts);
    if (rank == 1) {
        out("derived:");
        for (int i = 0; i < 16; i++)
            out(" %g", d2[i]);
        out("\nchars: %.35s\nshorts:", c);
        for (int i = 0; i < 6; i++)
            out(" %d", s[i]);
        out("\n");
    }
    for (int i = 0; i < 3; i++)
        MPI_Request_free(&rq[i]);
    MPI_Type_free(&vec);
}

/* An ordinary message with the same tag, sent before the partitioned one,
 * goes to the ordinary receive (MPI_ANY_TAG too); MPI_Test and
 * MPI_Request_get_status on the partitioned request meanwhile. */
static void separate(void)
{
    int part[4], plain = 0;
    MPI_Request rq;
    if (rank == 0) {
        for (int i = 0; i < 4; i++)
            part[i] = 40 + i;
        MPI_Psend_init(part, 2, 2, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        MPI_Start(&rq);
        MPI_Pready(1, rq);
        plain = 77;
        MPI_Send(&plain, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
        MPI_Pready(0, rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else {
        MPI_Precv_init(part, 4, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        MPI_Start(&rq);
        MPI_Status st;
        MPI_Recv(&plain, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        out("plain %d tag %d\n", plain, st.MPI_TAG);
        int flag = 0;
        while (!flag)
            MPI_Request_get_status(rq, &flag, MPI_STATUS_IGNORE);
        flag = 0;
        while (!flag)
            MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        out("partitioned %d %d %d %d\n", part[0], part[1], part[2], part[3]);
    }
    MPI_Request_free(&rq);
}

/* MPI_PROC_NULL: completes at once, nothing changes (mpcr only: MPICH
 * 4.0.2 with UCX crashes in MPI_Psend_init to MPI_PROC_NULL). */
static int proc_null(void)
{
    int buf[6] = {1, 2, 3, 4, 5, 6};
    MPI_Request rq[2];
    MPI_Psend_init(buf, 3, 2, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]);
    MPI_Precv_init(buf, 2, 3, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]);
    MPI_Startall(2, rq);
    MPI_Pready_range(0, 2, rq[0]);
    int flag = 0;
    while (!flag)
        MPI_Parrived(rq[1], 1, &flag);
    MPI_Status st[2];
    MPI_Waitall(2, rq, st);
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    return st[1].MPI_SOURCE != MPI_PROC_NULL || buf[0] != 1 || buf[5] != 6;
}

static int errors(void)
{
    int buf[4] = {0}, fails = 0;
    MPI_Request rq;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 0) {
        MPI_Psend_init(buf, 4, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        MPI_Start(&rq);
        fails += error_class_of(MPI_Pready(4, rq)) != MPI_ERR_ARG;
        fails += error_class_of(MPI_Pready(-1, rq)) != MPI_ERR_ARG;
        fails += MPI_Pready(1, rq) != MPI_SUCCESS;
        fails += error_class_of(MPI_Pready(1, rq)) != MPI_ERR_ARG;
        fails += error_class_of(MPI_Pready_range(2, 7, rq)) != MPI_ERR_ARG;
        int l[] = {0, 0};
        fails += error_class_of(MPI_Pready_list(2, l, rq)) != MPI_ERR_ARG; /* marks 0, then fails */
        fails += error_class_of(MPI_Start(&rq)) != MPI_ERR_REQUEST;       /* still active */
        fails += MPI_Pready_range(2, 3, rq) != MPI_SUCCESS;
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        fails += error_class_of(MPI_Pready(0, rq)) != MPI_ERR_REQUEST; /* inactive */
    } else {
        MPI_Precv_init(buf, 2, 2, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
        fails += error_class_of(MPI_Pready(0, rq)) != MPI_ERR_REQUEST; /* a receive */
        MPI_Start(&rq);
        int flag;
        fails += error_class_of(MPI_Parrived(rq, 2, &flag)) != MPI_ERR_ARG;
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&rq);
    return fails;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    if (argc > 1 && !strcmp(argv[1], "errors")) {
        int f = errors() + proc_null();
        printf("rank %d: partitioned errors: %s\n", rank, f ? "FAIL" : "PASS");
        MPI_Finalize();
        return f != 0;
    }
    counts();
    datatypes();
    separate();
    out_flush();
    MPI_Finalize();
    return 0;
}
