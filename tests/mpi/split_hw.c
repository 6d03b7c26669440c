/* MPI_Comm_split_type's hardware types and MPICH's neighbourhood type, as
 * mpcr answers them (src/lib/comm/comm_split_hw.c; natively MPICH splits by
 * hwloc's levels, so this is checked against mpcr's rules, not a native
 * run): rank 0 prints one line per case, the size of its new communicator
 * or NULL. */
#include <mpi.h>
#include <stdio.h>

static int rank;

static void show(const char *what, MPI_Comm c)
{
    int size = 0;
    if (c != MPI_COMM_NULL) MPI_Comm_size(c, &size);
    if (rank == 0) {
        if (c == MPI_COMM_NULL)
            printf("%s: NULL\n", what);
        else
            printf("%s: size %d\n", what, size);
    }
    if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
}

static void split(const char *what, int type, const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Comm c;
    MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &c);
    show(what, c);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *res = "mpi_hw_resource_type", *dir = "nbhd_common_dirname";
    split("guided mpi_shared_memory", MPI_COMM_TYPE_HW_GUIDED, res, "mpi_shared_memory");
    split("guided machine", MPI_COMM_TYPE_HW_GUIDED, res, "machine");
    split("guided core", MPI_COMM_TYPE_HW_GUIDED, res, "core");
    split("guided no key", MPI_COMM_TYPE_HW_GUIDED, "shmem_topo", "machine");
    split("guided no info", MPI_COMM_TYPE_HW_GUIDED, NULL, NULL);
    split("unguided one host", MPI_COMM_TYPE_HW_UNGUIDED, "other", "x");
    split("neighborhood .", MPIX_COMM_TYPE_NEIGHBORHOOD, dir, ".");
    split("neighborhood mismatched", MPIX_COMM_TYPE_NEIGHBORHOOD, dir, rank ? "/tmp" : ".");
    split("neighborhood unwritable", MPIX_COMM_TYPE_NEIGHBORHOOD, dir, "/proc");
    split("neighborhood network_topo", MPIX_COMM_TYPE_NEIGHBORHOOD, "network_topo", "switch_level:2");
    MPI_Finalize();
    return 0;
}
