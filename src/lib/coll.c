/* Collectives. For now MPI_Barrier, run by the proxy's real MPI. */
#include "lib.h"

int PMPI_Barrier(MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Barrier");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Barrier");
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_BARRIER);
    call->comm = c->vid;
    return mpcr_error(c, mpcr_call_finish()->rc, "MPI_Barrier");
}
MPCR_ALIAS(Barrier);
