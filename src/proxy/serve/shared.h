/* Shared buffers (docs/pt2pt.md, "Large messages without copies"): ranges
 * of the program's memory that are mappings of a memfd the proxy maps too,
 * so that a large message moves between the program's buffer and the real
 * MPI without a copy. The proxy maps each range inside its staging
 * reservation at the range's offset (>= MPCR_SHARED_BASE), so a call names
 * shared data by offset exactly as it names staging data. */
#ifndef MPCR_PROXY_SHARED_H
#define MPCR_PROXY_SHARED_H

#include "channel.h"

void op_share(const struct mpcr_call *c, struct mpcr_reply *r);
void op_unshare(const struct mpcr_call *c, struct mpcr_reply *r);

/* While ranges are mapped, asks the library about once a second (at most)
 * to drop the shares whose buffers the program has given back (channel.h,
 * sweep_shares): called between calls, from the proxy's wait (while it
 * waits, and every 1024 calls for a program that never lets it). */
void shared_nudge(struct mpcr_chan *ch);

/* Whether [offset, offset + bytes) lies inside one shared range. */
int in_shared(uint64_t offset, uint64_t bytes);

/* After a restart: the program hands each range's new memfd over the
 * set-up socket (src/lib/runtime/restart.c); maps them until the socket
 * closes. A window's memory (MPCR_WIN_HANDOVER) goes to windows_accept. */
void shared_accept(int sock);

/* Seals fd's size (the program, which opens it too, cannot shrink it under
 * the proxy's mapping); whether it is sealed so and `length` long. */
int shared_sealed(int fd, uint64_t length);

#endif
