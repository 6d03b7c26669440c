/* Translation between mpcr's neutral values on the channel and this MPI
 * implementation's. The channel speaks MPICH's ABI values for the few
 * constants it carries (wildcards, error classes); this file is what a
 * proxy for another implementation changes. */
#include "proxy.h"

/* mpcr ABI values of the wildcards (MPICH's). */
enum { ABI_ANY_SOURCE = -2, ABI_PROC_NULL = -1, ABI_ANY_TAG = -1 };

/* The collective contexts of the predefined communicators (MPCR_COLL_CONTEXT). */
static MPI_Comm coll_world = MPI_COMM_NULL, coll_self = MPI_COMM_NULL;

void map_init(void)
{
    MPI_Comm_dup(MPI_COMM_WORLD, &coll_world);
    MPI_Comm_dup(MPI_COMM_SELF, &coll_self);
    MPI_Comm_set_errhandler(coll_world, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(coll_self, MPI_ERRORS_RETURN);
}

MPI_Comm real_comm(uint32_t vid)
{
    switch (vid) {
    case 0:
        return MPI_COMM_WORLD;
    case 1:
        return MPI_COMM_SELF;
    case 0 | MPCR_COLL_CONTEXT:
        return coll_world;
    case 1 | MPCR_COLL_CONTEXT:
        return coll_self;
    default:
        return MPI_COMM_NULL;
    }
}

int real_source(int peer)
{
    return peer == ABI_ANY_SOURCE ? MPI_ANY_SOURCE : peer;
}
int real_tag(int tag)
{
    return tag == ABI_ANY_TAG ? MPI_ANY_TAG : tag;
}
int neutral_source(int source)
{
    return source == MPI_ANY_SOURCE ? ABI_ANY_SOURCE : source;
}
int neutral_tag(int tag)
{
    return tag == MPI_ANY_TAG ? ABI_ANY_TAG : tag;
}

int error_class(int real_code)
{
    int cls = real_code;
    if (real_code != MPI_SUCCESS) MPI_Error_class(real_code, &cls);
    return cls; /* MPICH's classes are mpcr's; another MPI needs a table here */
}
