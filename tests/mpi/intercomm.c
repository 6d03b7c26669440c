/* Inter-communicators: MPI_Intercomm_create between the even and the odd
 * ranks of MPI_COMM_WORLD (groups of different sizes with 5 ranks), the
 * queries (test_inter, size, rank, remote size and group, Comm_group,
 * compare), point-to-point naming remote ranks (MPI_ANY_SOURCE, probes,
 * non-blocking, Sendrecv; statuses give remote ranks), every collective
 * mpcr makes over an inter-communicator (MPI_ROOT/MPI_PROC_NULL roots),
 * Comm_dup, Comm_split, Intercomm_merge both ways, and the error classes
 * of wrong calls. Compared with MPICH's own run. */
#include "out.h"

#include <string.h>

static int world_of(MPI_Group g, int r)
{
    MPI_Group world;
    int w;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(g, 1, &r, world, &w);
    MPI_Group_free(&world);
    return w;
}

/* Sizes, ranks and both groups' members as world ranks. */
static void show(const char *what, MPI_Comm c)
{
    if (c == MPI_COMM_NULL) {
        out("%s: MPI_COMM_NULL\n", what);
        return;
    }
    int inter, size, rank, rsize = 0;
    MPI_Comm_test_inter(c, &inter);
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    MPI_Group g, rg;
    MPI_Comm_group(c, &g);
    out("%s: inter %d size %d rank %d local", what, inter, size, rank);
    for (int i = 0; i < size; i++)
        out(" %d", world_of(g, i));
    if (inter) {
        MPI_Comm_remote_size(c, &rsize);
        MPI_Comm_remote_group(c, &rg);
        int gs;
        MPI_Group_size(rg, &gs);
        out(" remote %d (group %d):", rsize, gs);
        for (int i = 0; i < rsize; i++)
            out(" %d", world_of(rg, i));
        MPI_Group_free(&rg);
    }
    out("\n");
    MPI_Group_free(&g);
}

static const char *cmp_name(int r)
{
    return r == MPI_IDENT       ? "ident"
           : r == MPI_CONGRUENT ? "congruent"
           : r == MPI_SIMILAR   ? "similar"
                                : "unequal";
}

/* Point-to-point over inter-communicator c (local size n, remote size m):
 * rank r sends to remote rank r % m; each rank receives, from any source,
 * from every remote rank j with j % n == r. */
static void p2p(const char *what, MPI_Comm c, int me)
{
    int n, m, r;
    MPI_Comm_size(c, &n);
    MPI_Comm_remote_size(c, &m);
    MPI_Comm_rank(c, &r);
    int val = 1000 * me + 7, expect = 0;
    for (int j = 0; j < m; j++)
        expect += j % n == r;
    MPI_Request sreq;
    MPI_Isend(&val, 1, MPI_INT, r % m, 5, c, &sreq);
    int from[16] = {0};
    for (int i = 0; i < expect; i++) {
        MPI_Status st;
        int flag = 0, count, got;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, 5, c, &flag, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        int src = st.MPI_SOURCE;
        MPI_Recv(&got, 1, MPI_INT, src, 5, c, &st);
        from[src] = got;
        if (st.MPI_SOURCE != src || count != 1) out("%s: status mismatch\n", what);
    }
    MPI_Status st;
    MPI_Wait(&sreq, &st);
    out("%s p2p: rank %d got", what, r);
    for (int j = 0; j < m; j++)
        if (j % n == r) out(" [%d]=%d", j, from[j]);
    out("\n");
    /* Sendrecv with the remote rank of the same number, where there is one. */
    if (r < m) {
        int back = -1;
        MPI_Sendrecv(&val, 1, MPI_INT, r, 6, &back, 1, MPI_INT, MPI_ANY_SOURCE, 6, c, &st);
        out("%s sendrecv: rank %d got %d from %d tag %d\n", what, r, back, st.MPI_SOURCE,
            st.MPI_TAG);
    }
    /* A receive nothing matches, cancelled at the end. */
    int none = -1;
    MPI_Request q;
    MPI_Irecv(&none, 1, MPI_INT, MPI_ANY_SOURCE, 8, c, &q);
    /* Every rank sends to remote rank 0, which probes for each sender by name. */
    MPI_Send(&val, 1, MPI_INT, 0, 9, c);
    if (r == 0) {
        int sum = 0;
        for (int j = 0; j < m; j++) {
            int x;
            MPI_Probe(j, 9, c, &st);
            MPI_Recv(&x, 1, MPI_INT, st.MPI_SOURCE, 9, c, &st);
            sum += x;
        }
        out("%s fan-in: rank 0 sum %d\n", what, sum);
    }
    MPI_Cancel(&q);
    MPI_Wait(&q, &st);
    int cancelled;
    MPI_Test_cancelled(&st, &cancelled);
    out("%s cancel: %d\n", what, cancelled);
}

/* Every collective over c; `a` says which group this rank is in. */
static void collectives(const char *what, MPI_Comm c, int a, int me)
{
    int n, m, r;
    MPI_Comm_size(c, &n);
    MPI_Comm_remote_size(c, &m);
    MPI_Comm_rank(c, &r);
    MPI_Barrier(c);
    /* Bcast from group a's rank 1 (or 0 if alone) */
    int buf[8] = {0};
    int aroot = n > 1 ? 1 : 0;
    if (a) {
        for (int i = 0; i < 8; i++)
            buf[i] = r == aroot ? 100 + i : -1;
        MPI_Bcast(buf, 8, MPI_INT, r == aroot ? MPI_ROOT : MPI_PROC_NULL, c);
    } else {
        int broot = m > 1 ? 1 : 0;
        MPI_Bcast(buf, 8, MPI_INT, broot, c);
    }
    out("%s bcast: rank %d %d %d %d\n", what, r, buf[0], buf[3], buf[7]);
    int v[3] = {me, me * me, -me}, s[3];
    MPI_Allreduce(v, s, 3, MPI_INT, MPI_SUM, c);
    out("%s allreduce: rank %d %d %d %d\n", what, r, s[0], s[1], s[2]);
    MPI_Allreduce(v, s, 3, MPI_INT, MPI_MAX, c);
    out("%s allreduce max: rank %d %d %d %d\n", what, r, s[0], s[1], s[2]);
    int all[16];
    int two[2] = {me, 10 * me};
    MPI_Allgather(two, 2, MPI_INT, all, 2, MPI_INT, c);
    out("%s allgather: rank %d", what, r);
    for (int i = 0; i < 2 * m; i++)
        out(" %d", all[i]);
    out("\n");
    /* Reduce to group b's rank 0 */
    s[0] = s[1] = s[2] = -1;
    if (a)
        MPI_Reduce(v, NULL, 3, MPI_INT, MPI_SUM, 0, c);
    else
        MPI_Reduce(v, s, 3, MPI_INT, MPI_SUM, r == 0 ? MPI_ROOT : MPI_PROC_NULL,
                   c); /* MPICH wants a sendbuf */
    out("%s reduce: rank %d %d %d %d\n", what, r, s[0], s[1], s[2]);
    /* Gather at group a's rank 0 */
    for (int i = 0; i < 16; i++)
        all[i] = -1;
    if (a)
        MPI_Gather(NULL, 0, MPI_INT, all, 2, MPI_INT, r == 0 ? MPI_ROOT : MPI_PROC_NULL, c);
    else
        MPI_Gather(two, 2, MPI_INT, NULL, 0, MPI_INT, 0, c);
    out("%s gather: rank %d", what, r);
    for (int i = 0; i < 2 * (a ? m : 0); i++)
        out(" %d", all[i]);
    out("\n");
    /* Scatter from group b's last rank */
    int one = -1;
    if (!a) {
        int src[16];
        for (int i = 0; i < 16; i++)
            src[i] = 500 + i + me;
        MPI_Scatter(src, 1, MPI_INT, NULL, 0, MPI_INT, r == n - 1 ? MPI_ROOT : MPI_PROC_NULL, c);
    } else {
        MPI_Scatter(NULL, 0, MPI_INT, &one, 1, MPI_INT, m - 1, c);
    }
    out("%s scatter: rank %d %d\n", what, r, one);
    int sb[16], rb[16];
    for (int i = 0; i < m; i++)
        sb[i] = 100 * me + i;
    MPI_Alltoall(sb, 1, MPI_INT, rb, 1, MPI_INT, c);
    out("%s alltoall: rank %d", what, r);
    for (int i = 0; i < m; i++)
        out(" %d", rb[i]);
    out("\n");
}

static void merged(const char *what, MPI_Comm c, int me)
{
    show(what, c);
    int sum, r;
    MPI_Comm_rank(c, &r);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
    int x = r * 3;
    MPI_Bcast(&x, 1, MPI_INT, 1, c);
    out("%s: rank %d sum %d bcast %d\n", what, r, sum, x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    out("rank %d:\n", me);
    int a = me % 2 == 0; /* group a: the even ranks */
    MPI_Comm local, ic, dup, split, m1, m2;
    MPI_Comm_split(MPI_COMM_WORLD, !a, me, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, a ? 1 : 0, 99, &ic);
    show("ic", ic);
    int flag, res;
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    out("world inter %d\n", flag);
    p2p("ic", ic, me);
    collectives("ic", ic, a, me);
    MPI_Comm_dup(ic, &dup);
    show("dup", dup);
    MPI_Comm_compare(ic, dup, &res);
    out("compare ic dup: %s\n", cmp_name(res));
    MPI_Comm_compare(ic, ic, &res);
    out("compare ic ic: %s\n", cmp_name(res));
    MPI_Comm_compare(ic, MPI_COMM_WORLD, &res);
    out("compare ic world: %s\n", cmp_name(res));
    p2p("dup", dup, me);
    collectives("dup", dup, a, me);
    /* Split: color by world rank / 2 % 2 in both groups, keys reversed. */
    MPI_Comm_split(ic, (me / 2) % 2, -me, &split);
    show("split", split);
    if (split != MPI_COMM_NULL) {
        int sa = a;
        p2p("split", split, me);
        collectives("split", split, sa, me);
    }
    /* MPI_Intercomm_create_from_groups: the same groups, named directly */
    MPI_Group wg, mineg, otherg;
    MPI_Comm fg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_group(ic, &mineg);
    MPI_Comm_remote_group(ic, &otherg);
    MPI_Intercomm_create_from_groups(mineg, 0, otherg, 0, "mpcr-test", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &fg);
    show("from groups", fg);
    collectives("from groups", fg, a, me);
    MPI_Comm_free(&fg);
    MPI_Group_free(&wg);
    MPI_Group_free(&mineg);
    MPI_Group_free(&otherg);
    /* Comm_create: each group without its rank 1 */
    MPI_Group lg, sub;
    MPI_Comm made;
    int one = 1, lsize;
    MPI_Comm_group(ic, &lg);
    MPI_Group_size(lg, &lsize);
    MPI_Group_excl(lg, lsize > 1, &one, &sub);
    MPI_Comm_create(ic, sub, &made);
    show("create", made);
    if (made != MPI_COMM_NULL) {
        MPI_Barrier(made);
        MPI_Comm_free(&made);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);
    /* A color only group a gives: MPI_COMM_NULL everywhere */
    MPI_Comm lonely;
    MPI_Comm_split(ic, a ? 7 : MPI_UNDEFINED, 0, &lonely);
    out("lonely split null %d\n", lonely == MPI_COMM_NULL);
    MPI_Intercomm_merge(ic, !a, &m1); /* group a first */
    merged("merge a-low", m1, me);
    MPI_Intercomm_merge(ic, a, &m2); /* group b first */
    merged("merge b-low", m2, me);
    /* Errors */
    int rc, cls;
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int rs;
    MPI_Comm_remote_size(ic, &rs);
    rc = MPI_Send(&me, 1, MPI_INT, rs, 0, ic);
    MPI_Error_class(rc, &cls);
    out("send to remote size: class %d\n", cls);
    rc = MPI_Bcast(&me, 1, MPI_INT, rs, ic);
    MPI_Error_class(rc, &cls);
    out("bcast root remote size: class %d\n", cls);
    MPI_Comm_free(&m1);
    MPI_Comm_free(&m2);
    if (split != MPI_COMM_NULL) MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
    out("done %d\n", ic == MPI_COMM_NULL);
    out_flush();
    MPI_Finalize();
    return 0;
}
