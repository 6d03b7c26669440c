/* The WIN call's handler (serve_win.c; channel.h, struct mpcr_win_call;
 * docs/one-sided.md). */
#ifndef MPCR_PROXY_SERVE_WIN_H
#define MPCR_PROXY_SERVE_WIN_H

#include "channel.h"

void op_win(const struct mpcr_call *c, struct mpcr_reply *r);

#endif
