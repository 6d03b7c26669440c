/* Info objects (info.c): what the functions that take an info argument
 * need of them. */
#ifndef MPCR_INFO_H
#define MPCR_INFO_H

#include <mpi.h>
#include <stddef.h>

struct mpcr_info;
/* NULL when the handle is not a valid info object (MPI_INFO_NULL included). */
struct mpcr_info *mpcr_info_get(MPI_Info info);
/* An info argument of a constructor: hints, which mpcr may ignore, but the
 * handle must be MPI_INFO_NULL or a valid info object (else MPI_ERR_INFO). */
static inline int mpcr_info_valid_or_null(MPI_Info info)
{
    return info == MPI_INFO_NULL || mpcr_info_get(info) != NULL;
}

#endif
