/* Communicators: the predefined ones for now. Each keeps its rank, size and
 * error handler here; `vid` is how the proxy names it. */
#include "lib.h"

/* Virtual ids shared with every proxy (see docs/channel.md). */
enum { VID_WORLD = 0, VID_SELF = 1 };

static struct mpcr_comm world = {VID_WORLD, 0, 0, MPI_ERRORS_ARE_FATAL};
static struct mpcr_comm self = {VID_SELF, 0, 1, MPI_ERRORS_ARE_FATAL};

void mpcr_comm_setup(int rank, int size)
{
    world.rank = rank;
    world.size = size;
}

struct mpcr_comm *mpcr_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return &world;
    if (comm == MPI_COMM_SELF) return &self;
    return NULL;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    MPCR_REQUIRE_INIT("MPI_Comm_size");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_size");
    *size = c->size;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_size);

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPCR_REQUIRE_INIT("MPI_Comm_rank");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_rank");
    *rank = c->rank;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_rank);

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPCR_REQUIRE_INIT("MPI_Comm_set_errhandler");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_set_errhandler");
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN &&
        errhandler != MPI_ERRORS_ABORT)
        return mpcr_error(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler");
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPCR_REQUIRE_INIT("MPI_Comm_get_errhandler");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_get_errhandler");
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_get_errhandler);

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    /* Predefined handlers are never really freed; the handle becomes null. */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Errhandler_free);

/* The predefined attributes of MPI_COMM_WORLD. Their values are fixed for
 * the life of the job, kept here so that the pointers handed out stay valid. */
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    MPCR_REQUIRE_INIT("MPI_Comm_get_attr");
    static int tag_ub, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, universe,
                       appnum = 0;
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_get_attr");
    tag_ub = mpcr.tag_ub;
    universe = mpcr.size;
    int *v = NULL;
    switch (keyval) {
    case MPI_TAG_UB:
        v = &tag_ub;
        break;
    case MPI_HOST:
        v = &host;
        break;
    case MPI_IO:
        v = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        v = &wtime_global;
        break;
    case MPI_UNIVERSE_SIZE:
        v = &universe;
        break;
    case MPI_APPNUM:
        v = &appnum;
        break;
    default:
        return mpcr_error(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr");
    }
    *(int **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_get_attr);
