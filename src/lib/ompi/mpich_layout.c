/* What ompi_front.h says of MPICH's ABI, checked against MPICH's own mpi.h. */
#include <mpi.h>

#include "ompi/ompi_front.h"

#include <stddef.h>

_Static_assert(sizeof(MPI_Status) == sizeof(struct mpich_status), "MPICH's MPI_Status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == offsetof(struct mpich_status, MPI_SOURCE), "");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == offsetof(struct mpich_status, MPI_TAG), "");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == offsetof(struct mpich_status, MPI_ERROR), "");
_Static_assert(offsetof(MPI_Status, count_lo) == offsetof(struct mpich_status, count_lo), "");
_Static_assert(sizeof(MPI_Comm) == sizeof(int) && sizeof(MPI_Datatype) == sizeof(int) &&
                   sizeof(MPI_Request) == sizeof(int) && sizeof(MPI_Op) == sizeof(int),
               "MPICH's handles are ints");

/* The front end's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY (Open MPI's (int *)2
 * and 3, the standard ABI's 10 and 11) to MPICH's (the addresses of its
 * library's data). */
#ifdef MPCR_FRONT_ABI
#define UNWEIGHTED 10
#else
#define UNWEIGHTED 2
#endif
int *mpcr_ompi_weights(const int *w)
{
    if (w == (const int *)UNWEIGHTED) return MPI_UNWEIGHTED;
    if (w == (const int *)(UNWEIGHTED + 1)) return MPI_WEIGHTS_EMPTY;
    return (int *)w;
}

/* Windows' flavors pass untranslated: Open MPI 4.1's mpi.h numbers them 1-4 too. */
_Static_assert(MPI_WIN_FLAVOR_CREATE == 1 && MPI_WIN_FLAVOR_ALLOCATE == 2 &&
                   MPI_WIN_FLAVOR_DYNAMIC == 3 && MPI_WIN_FLAVOR_SHARED == 4,
               "MPICH's window flavors");
