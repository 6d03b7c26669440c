/* The "entered" messages of a communicator creation that a checkpoint may
 * interrupt (creation.h, idup.h; docs/mpi-checkpoint.md, "Creating a
 * communicator during a checkpoint"): an empty message from each member
 * taking part to every other, on the parent's collective context.
 *
 * Blocking creations and MPI_Comm_idup's have a tag each: members begin the
 * creations of one kind on a parent in one order, but MPI_Comm_create_group
 * and a duplicate may come in different orders on different members (MPI
 * lets them). Within a kind, each member's messages arrive in the order
 * sent, so with several duplicates pending on one parent, the first message
 * from a member belongs to the oldest of them still waiting for it; a
 * caller says which are older (`older`). */
#ifndef MPCR_PROXY_ENTERED_H
#define MPCR_PROXY_ENTERED_H

#include <stdint.h>

/* Per rank of the parent. */
enum { ENTERED_MISSING, ENTERED_IN, ENTERED_NOT_TAKING_PART };

/* Above every tag of the library's collectives (src/lib/coll.h); MPI
 * guarantees tags up to 32767 everywhere. */
enum { ENTERED_TAG_BLOCKING = 32766, ENTERED_TAG_IDUP = 32765 };

/* Says "entered" to every rank of parent marked ENTERED_MISSING in
 * entered[0..n) (the caller has marked itself ENTERED_IN). The sends
 * complete by themselves (a drain receives those still in flight). An MPI
 * error code. */
int entered_announce(uint32_t parent, int tag, const uint8_t *entered, uint32_t n);

/* Whether an older creation on parent still waits for rank m's message
 * (then the next one from m is its own). */
typedef int entered_older_fn(uint32_t parent, uint32_t m, const void *self);

/* Takes the messages that are in (drain cache first: it holds what a drain
 * took), for every rank still missing that no older creation waits for.
 * Returns 1 once every rank taking part is in. */
int entered_collect(uint32_t parent, int tag, uint8_t *entered, uint32_t n,
                    entered_older_fn *older, const void *self);

#endif
