/* Collectives, built from point-to-point messages on each communicator's
 * collective context (MPCR_COLL_CONTEXT), where they never match the
 * program's messages. Built so, a collective is never half done inside the
 * real MPI when a checkpoint drains the network (docs/mpi-checkpoint.md). */
#include "lib.h"

enum { TAG_BARRIER = 1 };

/* Dissemination barrier: in round k every rank signals rank + 2^k and waits
 * for rank - 2^k; after ceil(log2(size)) rounds everyone has, transitively,
 * heard from everyone. Messages are empty. */
static int barrier(struct mpcr_comm *c)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    for (int k = 1; k < c->size; k <<= 1) {
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        const struct mpcr_reply *r = mpcr_p2p_call(MPCR_OP_ISEND, ctx, to, TAG_BARRIER, 0, 0);
        if (r->rc) return r->rc;
        uint32_t token = r->token;
        int err = mpcr_p2p_call(MPCR_OP_RECV, ctx, from, TAG_BARRIER, 0, 0)->rc;
        struct mpcr_call *call = mpcr_call_begin(MPCR_OP_WAIT); /* always: frees the token */
        call->token = token;
        r = mpcr_call_finish();
        if (err || r->rc) return err ? err : r->rc;
    }
    return MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Barrier");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Barrier");
    return mpcr_error(c, barrier(c), "MPI_Barrier");
}
MPCR_ALIAS(Barrier);
