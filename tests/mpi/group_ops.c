/* Groups: every operation, printed, and the errors MPI prescribes (the
 * error handler set to MPI_ERRORS_RETURN). Compared with MPICH's own run. */
#include "out.h"

static void show(const char *what, MPI_Group g)
{
    int size, rank;
    MPI_Group_size(g, &size);
    MPI_Group_rank(g, &rank);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int in[64], outr[64];
    for (int i = 0; i < size; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, size, in, world, outr);
    out("%s: size %d rank %d%s world ranks", what, size, rank == MPI_UNDEFINED ? -1 : rank,
        g == MPI_GROUP_EMPTY ? " (MPI_GROUP_EMPTY)" : "");
    for (int i = 0; i < size; i++)
        out(" %d", outr[i]);
    out("\n");
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    out("rank %d:\n", me);

    MPI_Group world, odd, even, rev, u, x, d, r;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    show("world", world);
    int ranks[64], k = 0;
    for (int i = 1; i < n; i += 2)
        ranks[k++] = i;
    MPI_Group_incl(world, k, ranks, &odd);
    show("odd", odd);
    MPI_Group_excl(world, k, ranks, &even);
    show("even", even);
    for (int i = 0; i < n; i++)
        ranks[i] = n - 1 - i;
    MPI_Group_incl(world, n, ranks, &rev);
    show("reversed", rev);
    MPI_Group_union(odd, even, &u);
    show("odd+even", u);
    MPI_Group_intersection(rev, odd, &x);
    show("reversed&odd", x);
    MPI_Group_difference(rev, odd, &d);
    show("reversed-odd", d);
    MPI_Group e1, e2, e3;
    MPI_Group_intersection(odd, even, &e1);
    show("odd&even", e1);
    MPI_Group_difference(world, world, &e2);
    show("world-world", e2);
    MPI_Group_incl(world, 0, ranks, &e3);
    show("incl none", e3);
    int cmp[6];
    MPI_Group_compare(world, world, &cmp[0]);
    MPI_Group_compare(world, rev, &cmp[1]);
    MPI_Group_compare(world, u, &cmp[2]);
    MPI_Group_compare(odd, even, &cmp[3]);
    MPI_Group_compare(MPI_GROUP_EMPTY, e1, &cmp[4]);
    MPI_Group_compare(world, odd, &cmp[5]);
    out("compare: %d %d %d %d %d %d (ident %d congruent %d similar %d unequal %d)\n", cmp[0],
        cmp[1], cmp[2], cmp[3], cmp[4], cmp[5], MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL);

    int ranges[2][3] = {{n - 1, 0, -2}, {0, n - 1, 4}};
    MPI_Group_range_incl(world, 1, ranges, &r);
    show("range_incl n-1..0/-2", r);
    MPI_Group_free(&r);
    MPI_Group_range_excl(world, 1, ranges + 1, &r);
    show("range_excl 0..n-1/4", r);
    MPI_Group_free(&r);

    /* translate with MPI_PROC_NULL and a rank not in the target */
    int t_in[3] = {0, MPI_PROC_NULL, n - 1}, t_out[3];
    MPI_Group_translate_ranks(world, 3, t_in, odd, t_out);
    out("translate world->odd: %d %d %d (undefined %d, proc_null %d)\n", t_out[0], t_out[1],
        t_out[2], MPI_UNDEFINED, MPI_PROC_NULL);

    /* errors */
    int bad[1] = {n}; /* (a rank listed twice: MPICH does not check) */
    out("incl out of range: class %d\n", error_class_of(MPI_Group_incl(world, 1, bad, &r)));
    out("excl out of range: class %d\n", error_class_of(MPI_Group_excl(world, 1, bad, &r)));
    int zero_stride[1][3] = {{0, 1, 0}};
    out("range stride 0: class %d\n",
        error_class_of(MPI_Group_range_incl(world, 1, zero_stride, &r)));
    int sz;
    out("size of GROUP_NULL: class %d\n", error_class_of(MPI_Group_size(MPI_GROUP_NULL, &sz)));
    MPI_Group_free(&odd); /* (the freed handle's use: MPICH does not check) */
    out("freed handle is null %d\n", odd == MPI_GROUP_NULL);
    int tr = n;
    out("translate rank out of range: class %d\n",
        error_class_of(MPI_Group_translate_ranks(world, 1, &tr, world, t_out)));

    MPI_Group_free(&even), MPI_Group_free(&rev), MPI_Group_free(&u), MPI_Group_free(&x);
    MPI_Group_free(&d), MPI_Group_free(&world);
    MPI_Group empty = MPI_GROUP_EMPTY;
    out("free MPI_GROUP_EMPTY: class %d\n", error_class_of(MPI_Group_free(&empty)));
    out_flush();
    MPI_Finalize();
    return 0;
}
