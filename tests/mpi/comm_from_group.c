/* MPI_Comm_create_from_group (MPI 4.0 11.14.2) in the world model: over
 * the world group, over the even and the odd ranks (two disjoint groups,
 * two stringtags, at the same time), twice with the same stringtag in turn,
 * with MPI_ERRORS_RETURN and MPI_ERRORS_ARE_FATAL; each checked by its
 * size, rank, error handler and an MPI_Allreduce over it. */
#include <mpi.h>
#include <stdio.h>

static void show(int wrank, const char *what, MPI_Comm c, MPI_Errhandler want)
{
    int size, rank, sum = 0, one = 1, cmp;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(c, &eh);
    MPI_Comm_compare(c, MPI_COMM_WORLD, &cmp);
    printf("rank %d %s: size %d rank %d sum %d errhandler %s world %s\n", wrank, what, size, rank,
           sum, eh == want ? "as given" : "other",
           cmp == MPI_CONGRUENT ? "congruent" : cmp == MPI_UNEQUAL ? "unequal" : "other");
    if (eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL) MPI_Errhandler_free(&eh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Group world, half;
    MPI_Comm_group(MPI_COMM_WORLD, &world);

    MPI_Comm all;
    MPI_Comm_create_from_group(world, "mpcr.test.all", MPI_INFO_NULL, MPI_ERRORS_RETURN, &all);
    show(wrank, "all", all, MPI_ERRORS_RETURN);

    int ranks[64], n = 0;
    for (int r = wrank % 2; r < wsize; r += 2) ranks[n++] = r;
    MPI_Group_incl(world, n, ranks, &half);
    MPI_Comm h;
    MPI_Comm_create_from_group(half, wrank % 2 ? "mpcr.test.odd" : "mpcr.test.even",
                               MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &h);
    show(wrank, wrank % 2 ? "odd" : "even", h, MPI_ERRORS_ARE_FATAL);

    MPI_Comm again;
    MPI_Comm_create_from_group(world, "mpcr.test.all", MPI_INFO_NULL, MPI_ERRORS_RETURN, &again);
    show(wrank, "again", again, MPI_ERRORS_RETURN);
    int cmp;
    MPI_Comm_compare(all, again, &cmp);
    printf("rank %d all and again: %s\n", wrank, cmp == MPI_CONGRUENT ? "congruent" : "other");

    MPI_Comm_free(&again);
    MPI_Comm_free(&h);
    MPI_Comm_free(&all);
    MPI_Group_free(&half);
    MPI_Group_free(&world);
    MPI_Finalize();
    return 0;
}
