/* The proxy's handlers of the point-to-point operations added with the
 * whole point-to-point chapter (docs/pt2pt.md): synchronous non-blocking
 * sends, the program's MPI_Cancel, matched probes. serve.c's dispatch
 * table names them (channel.h: MPCR_OPS). */
#ifndef MPCR_PROXY_SERVE_P2P_H
#define MPCR_PROXY_SERVE_P2P_H

#include "channel.h"

void op_issend(const struct mpcr_call *c, struct mpcr_reply *r);
void op_cancel(const struct mpcr_call *c, struct mpcr_reply *r);
void op_mprobe(const struct mpcr_call *c, struct mpcr_reply *r);
void op_improbe(const struct mpcr_call *c, struct mpcr_reply *r);
void op_mrecv(const struct mpcr_call *c, struct mpcr_reply *r);

/* Matched messages are named by the library's ids, 1 .. MESSAGE_ID_MAX. */
#define MESSAGE_ID_MAX (1u << 20)
/* Whether id may name a new matched message; the cache index of the one
 * it names, or -1. */
int message_id_free(uint32_t id);
int message_find(uint32_t id);

/* A call left unanswered because a checkpoint began (serve.c). */
void abandon(void);

#endif
