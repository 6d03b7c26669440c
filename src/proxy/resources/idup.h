/* MPI_Comm_idup at the proxy (docs/mpi-checkpoint.md, "Non-blocking
 * duplicates"): a duplicate the program does not wait for, which must not
 * make this rank wait either, and which a checkpoint may find at any stage.
 *
 * As a blocking creation (creation.h), it begins with "entered" messages,
 * and the real MPI is asked only once every member has entered, so that
 * after a checkpoint's drain all members agree on whether it is under way.
 * Then non-blocking collectives on the parent, one duplicate of a parent at
 * a time: the real MPI_Comm_idup, a second one for its collective context,
 * and an MPI_Iallreduce agreeing on its creation key (record.h).
 * Every wait of the proxy advances them (ckpt_poll), and so does the idle
 * proxy, once a second.
 *
 * The program's request is an entry of the proxy's request table (kind
 * REQ_IDUP), active until the communicator is made and recorded. Before an
 * image, every duplicate whose members have all entered is finished (all
 * members do the same, so each completes); the others are saved with who
 * has entered, so a restarted proxy takes them up where they were. */
#ifndef MPCR_PROXY_IDUP_H
#define MPCR_PROXY_IDUP_H

#include <stddef.h>
#include <stdint.h>

#include "channel.h"

/* COMM_IDUP: enters, and answers with the request's token at once. */
void idup_start(const struct mpcr_call *c, struct mpcr_reply *r);
/* Advances every pending duplicate; cheap when there is none. */
void idup_progress(void);
/* Whether a duplicate on parent has not ended yet. */
int idup_pending_on(uint32_t parent);
/* Whether a pending duplicate will make communicator id. */
int idup_holds(uint32_t id);
/* Whether a pending duplicate completes request entry `token`. */
int idup_requested(uint32_t token);
/* The program's request for it went away (request entry `token` freed):
 * the duplicate goes on, nobody is told when it is made. */
void idup_forget(uint32_t token);

/* As a resource (resource.h: resource_idups): polled with every wait;
 * before an image, every duplicate whose members have all entered is
 * finished, the others saved with who has entered. */

#endif
