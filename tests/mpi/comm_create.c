/* Communicators: compare, test_inter, names, groups of communicators, and
 * every way of making one (dup, dup_with_info, split, split_type,
 * create, create_group), each used for a collective and a ring exchange
 * and freed. Compared with MPICH's own run. */
#include "out.h"

#include <string.h>

/* Its size, rank, world ranks, and a sum over it (so it works). */
static void show(const char *what, MPI_Comm c)
{
    if (c == MPI_COMM_NULL) {
        out("%s: MPI_COMM_NULL\n", what);
        return;
    }
    int size, rank, wr, sum = 0;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Allreduce(&wr, &sum, 1, MPI_INT, MPI_SUM, c);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&wr, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, c, MPI_STATUS_IGNORE);
    MPI_Group g, world;
    MPI_Comm_group(c, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int in[64], w[64];
    for (int i = 0; i < size; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, size, in, world, w);
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(c, name, &len);
    out("%s: size %d rank %d sum %d left's world rank %d name '%s' (%d) members", what, size, rank,
        sum, got, name, len);
    for (int i = 0; i < size; i++)
        out(" %d", w[i]);
    out("\n");
    MPI_Group_free(&g);
    MPI_Group_free(&world);
}

static void compare(const char *what, MPI_Comm a, MPI_Comm b)
{
    int r;
    MPI_Comm_compare(a, b, &r);
    out("compare %s: %s\n", what,
        r == MPI_IDENT       ? "ident"
        : r == MPI_CONGRUENT ? "congruent"
        : r == MPI_SIMILAR   ? "similar"
                             : "unequal");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    out("rank %d:\n", me);
    show("world", MPI_COMM_WORLD);
    show("self", MPI_COMM_SELF);
    int inter = -1;
    MPI_Comm_test_inter(MPI_COMM_WORLD, &inter);
    out("world is inter %d\n", inter);

    MPI_Comm dup, dupi, rev, half, shared, created, grouped, none;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    show("dup", dup);
    MPI_Comm_set_name(dup, "my duplicate");
    show("dup named", dup);
    MPI_Comm_dup_with_info(dup, MPI_INFO_NULL, &dupi);
    show("dup_with_info of named", dupi);
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &rev);
    show("reversed", rev);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    show("half", half);
    MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : 1, 0, &none);
    show("all but 0", none);
    if (none != MPI_COMM_NULL) MPI_Comm_free(&none);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
    show("shared", shared); /* one host: all */
    MPI_Comm_split_type(rev, MPI_UNDEFINED, 0, MPI_INFO_NULL, &none);
    show("split_type undefined", none);
    compare("world world", MPI_COMM_WORLD, MPI_COMM_WORLD);
    compare("world dup", MPI_COMM_WORLD, dup);
    compare("world reversed", MPI_COMM_WORLD, rev);
    compare("world half", MPI_COMM_WORLD, half);
    compare("world self", MPI_COMM_WORLD, MPI_COMM_SELF);

    /* Comm_create: the odd ranks in reverse order; then disjoint groups */
    MPI_Group world, odd, mine;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[64], k = 0;
    for (int i = n - 1; i >= 0; i--)
        if (i % 2) ranks[k++] = i;
    MPI_Group_incl(world, k, ranks, &odd);
    MPI_Comm_create(MPI_COMM_WORLD, odd, &created);
    show("create odd reversed", created);
    if (created != MPI_COMM_NULL) MPI_Comm_free(&created);
    MPI_Comm_group(half, &mine);
    MPI_Comm_create(MPI_COMM_WORLD, mine, &created);
    show("create disjoint halves", created);
    compare("half created", half, created);
    MPI_Comm_free(&created);
    /* Comm_create_group: only the odd ranks call */
    if (me % 2) {
        MPI_Comm_create_group(MPI_COMM_WORLD, odd, 5, &grouped);
        show("create_group odd reversed", grouped);
        MPI_Comm_free(&grouped);
    }
    MPI_Comm_create_group(rev, mine, 9, &grouped); /* each half: its own */
    show("create_group halves of reversed", grouped);
    MPI_Comm_free(&grouped);

    /* errors */
    int r;
    out("compare with null: class %d\n",
        error_class_of(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &r)));
    out("split_type of a bad type: class %d\n",
        error_class_of(MPI_Comm_split_type(MPI_COMM_WORLD, -7, 0, MPI_INFO_NULL, &none)));

    MPI_Group_free(&world), MPI_Group_free(&odd), MPI_Group_free(&mine);
    MPI_Comm_free(&dup), MPI_Comm_free(&dupi), MPI_Comm_free(&rev), MPI_Comm_free(&half);
    MPI_Comm_free(&shared);
    out_flush();
    MPI_Finalize();
    return 0;
}
