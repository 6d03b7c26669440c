/* The FILE call's handler (serve_file.c; channel.h, struct mpcr_file_call). */
#ifndef MPCR_PROXY_SERVE_FILE_H
#define MPCR_PROXY_SERVE_FILE_H

#include "channel.h"

void op_file(const struct mpcr_call *c, struct mpcr_reply *r);

#endif
