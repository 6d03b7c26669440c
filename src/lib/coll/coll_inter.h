/* What the collectives over an inter-communicator share (coll_inter.c:
 * through each group's rank 0; coll_inter_direct.c: rank to rank). Their
 * messages between the groups travel on the span's collective context
 * (intercomm.c), tagged with the inter-communicator's own count of
 * collectives, which both groups keep alike (coll.h). */
#ifndef MPCR_COLL_INTER_H
#define MPCR_COLL_INTER_H

#include "coll.h"
#include "comm/comm.h"

/* Starts a collective on c's span: its messages between the groups. Ranks
 * in its rounds are the span's (inter_remote). */
static inline struct coll inter_begin(struct mpcr_comm *c)
{
    struct coll k = coll_begin(c);
    k.size = c->inter->span_size;
    k.rank = -1; /* rounds need no rank of this rank */
    return k;
}

/* The span rank of remote rank r. */
static inline int inter_remote(const struct mpcr_comm *c, int r)
{
    return c->inter->to_span[r];
}

#endif
