/* Communicator hints (MPI 4.0 section 7.4.4), compared with MPICH's own
 * run: the four assertions MPI defines as MPI_Comm_set_info sets them, as
 * MPI_Comm_get_info returns them (only those four are printed: MPICH adds
 * hints of its own), what MPI_Comm_dup and MPI_Comm_dup_with_info pass on,
 * and that an unknown key is ignored. */
#include <mpi.h>
#include <stdio.h>

static const char *const assertion[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                        "mpi_assert_exact_length",
                                        "mpi_assert_allow_overtaking"};

static void show(const char *what, MPI_Comm c, int rank)
{
    MPI_Info used;
    MPI_Comm_get_info(c, &used);
    char value[MPI_MAX_INFO_VAL + 1];
    int flag;
    if (rank == 0) printf("%s:", what);
    for (int i = 0; i < 4; i++) {
        MPI_Info_get(used, assertion[i], MPI_MAX_INFO_VAL, value, &flag);
        if (rank == 0) printf(" %s", flag ? value : "(none)");
    }
    MPI_Info_get(used, "arbitrary_key", MPI_MAX_INFO_VAL, value, &flag);
    if (rank == 0) printf("; arbitrary_key %s\n", flag ? "kept" : "ignored");
    MPI_Info_free(&used);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm c, dup, dupinfo;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    show("fresh duplicate", c, rank);

    MPI_Info in;
    MPI_Info_create(&in);
    MPI_Info_set(in, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(in, "mpi_assert_exact_length", "true");
    MPI_Info_set(in, "arbitrary_key", "arbitrary_value");
    MPI_Comm_set_info(c, in);
    show("after set_info", c, rank);

    MPI_Comm_dup(c, &dup);
    show("its MPI_Comm_dup", dup, rank);

    MPI_Info other;
    MPI_Info_create(&other);
    MPI_Info_set(other, "mpi_assert_allow_overtaking", "true");
    MPI_Comm_dup_with_info(c, other, &dupinfo);
    show("its MPI_Comm_dup_with_info", dupinfo, rank);

    /* A later set_info changes only the keys it gives. */
    MPI_Info_set(other, "mpi_assert_no_any_tag", "false");
    MPI_Comm_set_info(c, other);
    show("after a second set_info", c, rank);

    MPI_Info_free(&in), MPI_Info_free(&other);
    MPI_Comm_free(&dupinfo), MPI_Comm_free(&dup), MPI_Comm_free(&c);
    MPI_Finalize();
    return 0;
}
