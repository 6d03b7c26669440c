/* Non-blocking and persistent collectives over an inter-communicator
 * (between the even and the odd ranks of MPI_COMM_WORLD): several
 * outstanding at once on it, a blocking one and a point-to-point exchange
 * among them, completed in another order than begun; then persistent ones
 * started twice. Every result printed, compared with MPICH's own run. */
#include "out.h"

#define B 8

static int a, r, n, m; /* group a?, local rank, local and remote sizes */

static void print(const char *what, const int *v, int len)
{
    out("%s: rank %d%s", what, r, a ? "a" : "b");
    for (int i = 0; i < len; i++)
        out(" %d", v[i]);
    out("\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    a = me % 2 == 0;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, !a, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 1 : 0, 5, &ic);
    MPI_Comm_rank(ic, &r);
    MPI_Comm_size(ic, &n);
    MPI_Comm_remote_size(ic, &m);
    int mine[B], sum[B], bc[B], all[2 * B * 8], red[B], rsb[B], ata[2 * 8], ga[2 * 8], sc[2];
    for (int i = 0; i < B; i++)
        mine[i] = 100 * me + i, sum[i] = bc[i] = red[i] = rsb[i] = -1;
    for (int i = 0; i < 2 * 8; i++)
        ata[i] = ga[i] = -1;
    for (int i = 0; i < 2 * B * 8; i++)
        all[i] = -1;
    sc[0] = sc[1] = -1;
    int ata_in[2 * 8], sc_in[2 * 8];
    for (int i = 0; i < 2 * m; i++)
        ata_in[i] = 1000 * me + i, sc_in[i] = 10 * me + i;
    /* group a's rank 0 is the root of the rooted ones */
    int root = a ? (r == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request q[9];
    MPI_Iallreduce(mine, sum, B, MPI_INT, MPI_SUM, ic, &q[0]);
    if (a)
        MPI_Ibcast(mine, B, MPI_INT, root, ic, &q[1]);
    else
        MPI_Ibcast(bc, B, MPI_INT, root, ic, &q[1]);
    MPI_Ibarrier(ic, &q[2]);
    MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, ic, &q[3]);
    MPI_Ireduce(mine, red, B, MPI_INT, MPI_MAX, root, ic, &q[4]);
    /* a blocking one and a ring on MPI_COMM_WORLD among them */
    int x = me, y = -1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, ic);
    out("blocking allreduce: rank %d%s %d\n", r, a ? "a" : "b", y);
    int got = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % np, 9, &got, 1, MPI_INT, (me + np - 1) % np, 9,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ialltoall(ata_in, 2, MPI_INT, ata, 2, MPI_INT, ic, &q[5]);
    int broot = a ? 0 : (r == 0 ? MPI_ROOT : MPI_PROC_NULL); /* group b's rank 0 gathers */
    MPI_Igather(mine, 2, MPI_INT, ga, 2, MPI_INT, broot, ic, &q[6]);
    MPI_Iscatter(sc_in, 2, MPI_INT, sc, 2, MPI_INT, root, ic, &q[7]);
    /* the same vector length in both groups: recvcount times the group's size */
    int rcount = m; /* 3 and 2 ranks: 2 and 3 elements each, 6 in all */
    MPI_Ireduce_scatter_block(mine, rsb, rcount, MPI_INT, MPI_SUM, ic, &q[8]);
    for (int i = 8; i >= 0; i--) /* the other order */
        MPI_Wait(&q[i], MPI_STATUS_IGNORE);
    print("iallreduce", sum, B);
    print("ibcast", a ? mine : bc, B);
    print("iallgather", all, 2 * m);
    print("ireduce", red, B);
    print("ialltoall", ata, 2 * m);
    print("igather", ga, 2 * m);
    print("iscatter", sc, 2);
    print("ireduce_scatter_block", rsb, m);
    out("ring: rank %d%s %d\n", r, a ? "a" : "b", got);

    /* persistent: initialised, started twice with new values */
    MPI_Request p[2];
    MPI_Allreduce_init(mine, sum, B, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &p[0]);
    MPI_Barrier_init(ic, MPI_INFO_NULL, &p[1]);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < B; i++)
            mine[i] += round + 1;
        MPI_Status st[2];
        MPI_Startall(2, p);
        MPI_Waitall(2, p, st);
        print(round ? "allreduce_init 2" : "allreduce_init 1", sum, B);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    out_flush();
    MPI_Finalize();
    return 0;
}
