/* See mpi_abi.h. */
#include "mpi_abi.h"

#include <string.h>

const char *const mpcr_mpi_impl_symbols[] = {"PMPI_Init", "PMPI_Init_thread", NULL};
const char *const mpcr_mpi_init_symbols[] = {"MPI_Init", "MPI_Init_thread", NULL};

/* 1 when base is "stem" followed by ".so" and anything else. */
static int named(const char *base, const char *stem)
{
    size_t n = strlen(stem);
    return !strncmp(base, stem, n) && !strncmp(base + n, ".so", 3);
}

const char *mpcr_mpi_abi_words(const char *name)
{
    const char *slash = strrchr(name, '/'), *base = slash ? slash + 1 : name;
    if (named(base, "libmpich") || !strncmp(base, "libmpi.so.12", 12))
        return "MPICH's ABI, but MPICH's own library, not mpcr's";
    if (named(base, "libmpi_abi")) return "the MPI 5.0 standard ABI, but another library than mpcr's";
    if (named(base, "libmpi")) return "Open MPI's ABI, but Open MPI's own library, not mpcr's";
    return "an MPI library";
}
