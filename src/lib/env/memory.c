/* MPI_Alloc_mem and MPI_Free_mem (MPI 4.0 section 9.2). The memory is the
 * program's own heap: it is in the checkpoint image like any other, and
 * its address stays valid after a restart (DESIGN section 2). No hint of
 * the info object changes anything (MPI lets an implementation ignore
 * them); an invalid info object is still an error, as in MPICH. */
#include "api_gen.h"
#include "info.h"

#include <stdlib.h>

/* Aligned for any vector type, as MPICH's own allocation is. */
#define ALLOC_MEM_ALIGNMENT 64

int mpcr_impl_Alloc_mem(MPI_Count size, MPI_Info info, void *baseptr)
{
    if (info != MPI_INFO_NULL && !mpcr_info_get(info)) return MPI_ERR_INFO;
    if (size < 0 || !baseptr) return MPI_ERR_ARG;
    void *p = NULL;
    /* size 0 still gives a distinct pointer that MPI_Free_mem accepts */
    if (posix_memalign(&p, ALLOC_MEM_ALIGNMENT, size ? (size_t)size : 1)) return MPI_ERR_NO_MEM;
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int mpcr_impl_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
