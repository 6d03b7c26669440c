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
 * caller says which are older (`older`).
 *
 * MPI_Comm_create_group is not collective over its parent: threads may
 * make several on one parent at once, each with its own tag, begun in
 * different orders on different members. So each message carries a key,
 * the user's tag for MPI_Comm_create_group, ENTERED_KEY_ORDERED for the
 * creations that are collective over the parent, and a member's message
 * counts only for a creation of its key; one taken for another key is
 * kept in the drain cache for it (once one creation took another's
 * message, which made its real call begin without that member: a
 * checkpoint then waited for ever for the real call to end). */
#ifndef MPCR_PROXY_ENTERED_H
#define MPCR_PROXY_ENTERED_H

#include <stddef.h>
#include <stdint.h>

/* Per rank of the parent. */
enum { ENTERED_MISSING, ENTERED_IN, ENTERED_NOT_TAKING_PART };

/* Above every tag of the library's collectives (src/lib/coll/coll.h); MPI
 * guarantees tags up to 32767 everywhere. */
enum { ENTERED_TAG_BLOCKING = 32766, ENTERED_TAG_IDUP = 32765 };

/* The key of creations that every member of the parent makes in one order
 * (MPI_Comm_dup, _split, _split_type, _idup); a message without one (an
 * image's cache from before keys) has it too. */
#define ENTERED_KEY_ORDERED (-1)
extern const int32_t entered_key_ordered; /* ENTERED_KEY_ORDERED, to send */

/* Says "entered" with *key to every rank of parent marked ENTERED_MISSING
 * in entered[0..n) (the caller has marked itself ENTERED_IN). The sends
 * complete by themselves (a drain receives those still in flight); *key
 * must stay until they have: the creation's own field, or a constant. An
 * MPI error code. */
int entered_announce(uint32_t parent, int tag, const int32_t *key, const uint8_t *entered, uint32_t n);

/* Whether an older creation on parent still waits for rank m's message
 * (then the next one from m is its own). */
typedef int entered_older_fn(uint32_t parent, uint32_t m, const void *self);

/* Takes the messages of `key` that are in (drain cache first: it holds
 * what a drain took, and messages of other keys), for every rank still
 * missing that no older creation waits for. Returns 1 once every rank
 * taking part is in. */
int entered_collect(uint32_t parent, int tag, int32_t key, uint8_t *entered, uint32_t n,
                    entered_older_fn *older, const void *self);

/* The ranks still ENTERED_MISSING in entered[0..n), as " 3 5" (cut to cap;
 * "" when none): what a report of a waiting creation names. */
void entered_missing(const uint8_t *entered, uint32_t n, char *out, size_t cap);

#endif
