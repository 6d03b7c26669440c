/* A proxy's part of a checkpoint, DIR/gen-K/rank-R.state, next to the
 * program's image: a section per resource kind of the proxy, in mpcr's
 * neutral terms (docs/proxy-resources.md has the layout). A new proxy, of
 * either MPI, rebuilds itself from it. */
#ifndef MPCR_PROXY_STATE_H
#define MPCR_PROXY_STATE_H

#include <stddef.h>

/* Saves every kind's section (after resources_settle). 0, or -1 with a
 * reason in err. */
int state_save(unsigned long gen, char *err, size_t cap);
/* Reads gen_dir/rank-R.state and has every kind load its section, in the
 * table's order: communicators re-created, requests and cache filled
 * (receives are posted later, once the channel is mapped:
 * resources_resume). 0, or -1 with a reason in err. */
int state_load(const char *gen_dir, char *err, size_t cap);

#endif
