/* The drain cache: messages a checkpoint's drain took out of the network
 * before the program asked for them, in the order they arrived. Every
 * receive and probe looks here before the real MPI. Nothing is added once a
 * checkpoint is over, and every cached message was sent before anything
 * sent since, so looking here first keeps MPI's non-overtaking order.
 * (A communicator creation's "entered" message taken for another creation
 * is kept here too, at any time: entered.h. The same holds of it.) */
#ifndef MPCR_PROXY_CACHE_H
#define MPCR_PROXY_CACHE_H

#include <stdint.h>

#include "requests.h"

/* A cached message's comm with this bit is a matched message (MPI_Mprobe),
 * the rest of comm its id (serve_p2p.c): no receive or probe matches it,
 * and the state file keeps it as any other. Communicator ids stay below it
 * (proxy.h: MAP_COMM_ID_END), collective contexts have MPCR_COLL_CONTEXT. */
#define CACHE_MATCHED 0x40000000u

struct cached_msg {
    uint32_t comm;       /* mpcr communicator id, MPCR_COLL_CONTEXT included */
    int32_t source, tag; /* neutral values */
    int32_t rc;          /* how the drain's receive ended (an error class in mpcr's ABI) */
    uint64_t bytes;
    void *data; /* malloc'd */
};

extern struct cached_msg *cache;
extern uint32_t ncache;

/* The first cached message a receive (comm, peer, tag) would match, wildcards
 * in mpcr's ABI; -1 if none. */
int cache_find(uint32_t comm, int32_t peer, int32_t tag);
/* The next one after index i; -1 if none. */
int cache_find_after(int i, uint32_t comm, int32_t peer, int32_t tag);
/* Its status, as a probe reports it. */
void cache_peek(int i, struct req_status *s);
/* Delivers it into buf (capacity cap: of a longer message the first cap
 * bytes, with MPI_ERR_TRUNCATE, as a receive from the network does; a
 * message whose drain receive failed delivers that error) and removes it. */
void cache_take(int i, void *buf, uint64_t cap, struct req_status *s);
/* Appends a message that the drain received with error class rc; data
 * becomes the cache's. 0, or -1 when out of memory. */
int cache_add(uint32_t comm, int32_t source, int32_t tag, int32_t rc, uint64_t bytes, void *data);
uint64_t cache_bytes(void);

#endif
