/* MPICH's fault-tolerance extensions (ULFM: MPIX_Comm_agree, _shrink,
 * _failure_ack, _failure_get_acked), for a job in which no process has
 * failed, which under mpcr is every job that still runs: a process that
 * dies ends the job (docs/channel.md, "How a job ends"); a restart is the
 * recovery mpcr offers. So: agree is the bitwise AND of the flags over the
 * communicator, a collective; shrink makes a communicator of the same
 * processes in the same order (a split with one colour: no attributes, no
 * topology, as the extension's shrink makes a new one); no failure is ever
 * acknowledged, the acknowledged group is empty. MPIX_Comm_revoke stays
 * unsupported: its effect (every pending and later operation on the
 * communicator fails, on every process) is not one mpcr can give. */
#include "api_gen.h"
#include "comm.h"
#include "datatype/dtype.h"
#include "env/errors.h"

int mpcr_impl_MPIX_Comm_agree(struct mpcr_comm *c, int *flag)
{
    if (c->inter) mpcr_unsupported_feature("MPIX_Comm_agree on an inter-communicator");
    return mpcr_impl_Allreduce(MPI_IN_PLACE, flag, 1, MPI_INT, mpcr_type_get(MPI_INT), MPI_BAND, c);
}

int mpcr_impl_MPIX_Comm_shrink(struct mpcr_comm *c, MPI_Comm *newcomm)
{
    return mpcr_impl_Comm_split(c, 0, c->rank, newcomm);
}

int mpcr_impl_MPIX_Comm_failure_ack(struct mpcr_comm *c)
{
    (void)c;
    return MPI_SUCCESS;
}

int mpcr_impl_MPIX_Comm_failure_get_acked(struct mpcr_comm *c, MPI_Group *failedgrp)
{
    (void)c;
    *failedgrp = MPI_GROUP_EMPTY;
    return MPI_SUCCESS;
}
