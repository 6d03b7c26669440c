/* The v and w collectives and the reduce-scatters over an
 * inter-communicator (between the even and the odd ranks of
 * MPI_COMM_WORLD): MPI_Gatherv and MPI_Scatterv with the root in either
 * group (MPI_ROOT, MPI_PROC_NULL), MPI_Allgatherv, MPI_Alltoallv (and its
 * _c form), MPI_Alltoallw with a derived datatype, MPI_Reduce_scatter and
 * MPI_Reduce_scatter_block with a predefined and a non-commutative user
 * op, zero counts among the blocks; then, with the argument `split`,
 * MPI_Comm_split_type on the inter-communicator (its groups, a collective
 * over it, MPI_UNDEFINED on one rank). Every buffer printed, compared with
 * MPICH's own run. */
#include "out.h"

#include <string.h>

#define MAXR 16  /* ranks in a group, at most */
#define BUF  256 /* ints in a buffer */

static int me, a, n, m, r; /* world rank, group a?, local size, remote size, local rank */

static void clear(int *v)
{
    for (int i = 0; i < BUF; i++)
        v[i] = -1;
}

static void print(const char *what, const int *v, int len)
{
    out("%s: rank %d%s", what, r, a ? "a" : "b");
    for (int i = 0; i < len; i++)
        out(" %d", v[i]);
    out("\n");
}

/* The root of a rooted collective: local rank 0 of group `ga` (a 1: the
 * even ranks), remote rank 0 for the other group. */
static int root_of(int ga)
{
    if (a == ga) return r == 0 ? MPI_ROOT : MPI_PROC_NULL;
    return 0;
}

static void rooted(MPI_Comm ic)
{
    int send[BUF], recv[BUF], counts[MAXR], displs[MAXR];
    for (int ga = 0; ga < 2; ga++) {
        int root = root_of(ga);
        /* Gatherv: remote rank i sends i + 1 ints, placed in reverse order */
        for (int i = 0; i < BUF; i++)
            send[i] = 1000 * me + i;
        clear(recv);
        for (int i = 0; i < m; i++)
            counts[i] = i + 1, displs[i] = 10 * (m - 1 - i);
        MPI_Gatherv(send, r + 1, MPI_INT, recv, counts, displs, MPI_INT, root, ic);
        print(ga ? "gatherv to a" : "gatherv to b", recv, root == MPI_ROOT ? 10 * m : 0);
        /* Scatterv: remote rank i gets i % 3 ints (zero for some) */
        clear(recv);
        for (int i = 0; i < m; i++)
            counts[i] = i % 3, displs[i] = 7 * i;
        MPI_Scatterv(send, counts, displs, MPI_INT, recv, r % 3, MPI_INT, root, ic);
        print(ga ? "scatterv from a" : "scatterv from b", recv, 3);
    }
}

static void all_to_all(MPI_Comm ic)
{
    int send[BUF], recv[BUF], scounts[MAXR], sdispls[MAXR], rcounts[MAXR], rdispls[MAXR];
    for (int i = 0; i < BUF; i++)
        send[i] = 1000 * me + i;
    /* Allgatherv: each rank sends r % 2 + 1 ints */
    clear(recv);
    for (int j = 0; j < m; j++)
        rcounts[j] = j % 2 + 1, rdispls[j] = 3 * (m - 1 - j);
    MPI_Allgatherv(send, r % 2 + 1, MPI_INT, recv, rcounts, rdispls, MPI_INT, ic);
    print("allgatherv", recv, 3 * m);
    /* Alltoallv: (r + j) % 3 ints between local rank r and remote rank j */
    clear(recv);
    for (int j = 0; j < m; j++) {
        scounts[j] = rcounts[j] = (r + j) % 3;
        sdispls[j] = 4 * j, rdispls[j] = 4 * (m - 1 - j);
    }
    MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, ic);
    print("alltoallv", recv, 4 * m);
    MPI_Count cs[MAXR], cr[MAXR];
    MPI_Aint ds[MAXR], dr[MAXR];
    for (int j = 0; j < m; j++)
        cs[j] = scounts[j], cr[j] = rcounts[j], ds[j] = sdispls[j], dr[j] = rdispls[j];
    clear(recv);
    MPI_Alltoallv_c(send, cs, ds, MPI_INT, recv, cr, dr, MPI_INT, ic);
    print("alltoallv_c", recv, 4 * m);
    /* Alltoallw: to an even remote rank two ints, to an odd one every other
     * int of four (a vector type); received as two ints, at byte offsets */
    MPI_Datatype every_other, stypes[MAXR], rtypes[MAXR];
    MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    for (int j = 0; j < m; j++) {
        stypes[j] = j % 2 ? every_other : MPI_INT;
        scounts[j] = j % 2 ? 1 : 2, sdispls[j] = (int)(5 * j * sizeof(int));
        rtypes[j] = MPI_INT, rcounts[j] = 2, rdispls[j] = (int)(3 * j * sizeof(int));
    }
    clear(recv);
    MPI_Alltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, ic);
    print("alltoallw", recv, 3 * m);
    MPI_Type_free(&every_other);
}

/* Not commutative: the result depends on the ranks' order. */
static void affine(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = (x[i] * 7u + y[i]) & 0xffffff;
}

static void reductions(MPI_Comm ic)
{
    enum { TOTAL = 13 }; /* elements reduced by each group: the same in both */
    int send[BUF], recv[BUF], counts[MAXR];
    MPI_Op op;
    MPI_Op_create(affine, 0, &op);
    for (int i = 0; i < BUF; i++)
        send[i] = 100 * me + i;
    for (int i = 0; i < n; i++)
        counts[i] = TOTAL / n + (i < TOTAL % n);
    clear(recv);
    MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, ic);
    print("reduce_scatter sum", recv, counts[r]);
    clear(recv);
    MPI_Reduce_scatter(send, recv, counts, MPI_INT, op, ic);
    print("reduce_scatter user", recv, counts[r]);
    /* block: 6 elements in each group (both sizes divide 6 at 3 to 5 ranks) */
    int block = 6 / n;
    clear(recv);
    MPI_Reduce_scatter_block(send, recv, block, MPI_INT, MPI_MAX, ic);
    print("reduce_scatter_block max", recv, block);
    clear(recv);
    MPI_Reduce_scatter_block(send, recv, block, MPI_INT, op, ic);
    print("reduce_scatter_block user", recv, block);
    MPI_Op_free(&op);
}

static int world_of(MPI_Group g, int i)
{
    MPI_Group world;
    int w;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(g, 1, &i, world, &w);
    MPI_Group_free(&world);
    return w;
}

/* Both groups of an inter-communicator as world ranks, and a collective over it. */
static void show(const char *what, MPI_Comm c)
{
    if (c == MPI_COMM_NULL) {
        out("%s: world rank %d MPI_COMM_NULL\n", what, me);
        return;
    }
    int inter, size, rank, rsize;
    MPI_Group g, rg;
    MPI_Comm_test_inter(c, &inter);
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_remote_size(c, &rsize);
    MPI_Comm_group(c, &g);
    MPI_Comm_remote_group(c, &rg);
    out("%s: world rank %d inter %d rank %d local", what, me, inter, rank);
    for (int i = 0; i < size; i++)
        out(" %d", world_of(g, i));
    out(" remote");
    for (int i = 0; i < rsize; i++)
        out(" %d", world_of(rg, i));
    int sum;
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
    out(" remote sum %d\n", sum);
    MPI_Group_free(&g);
    MPI_Group_free(&rg);
}

static void split_type(MPI_Comm ic)
{
    MPI_Comm s;
    /* keys reversed: the local group in reverse order */
    MPI_Comm_split_type(ic, MPI_COMM_TYPE_SHARED, -me, MPI_INFO_NULL, &s);
    show("split_type shared", s);
    if (s != MPI_COMM_NULL) MPI_Comm_free(&s);
    /* MPI_UNDEFINED on world rank 1 (not where it is group b's only rank:
     * MPICH 4.0.2 then goes on splitting the MPI_COMM_NULL it got from its
     * first split, fixed in MPICH's pull request 6784) */
    int np;
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 4) return;
    MPI_Comm_split_type(ic, me == 1 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s);
    show("split_type without world rank 1", s);
    if (s != MPI_COMM_NULL) MPI_Comm_free(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 2 || np > MAXR) {
        fprintf(stderr, "2 to %d ranks\n", MAXR);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    a = me % 2 == 0; /* group a: the even ranks */
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, !a, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 1 : 0, 99, &ic);
    MPI_Comm_size(ic, &n);
    MPI_Comm_remote_size(ic, &m);
    MPI_Comm_rank(ic, &r);
    rooted(ic);
    all_to_all(ic);
    reductions(ic);
    /* MPICH 4.0.2 crashes in MPI_Comm_split_type of an inter-communicator
     * at 5 ranks (it works at 3): only asked for */
    if (argc > 1 && !strcmp(argv[1], "split")) split_type(ic);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    out_flush();
    MPI_Finalize();
    return 0;
}
