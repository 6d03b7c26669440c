/* What the coordinator (binding.c) and the proxy that writes it (state.c)
 * share of the proxy's state file's form: its magic and version. The
 * layout itself is described in src/proxy/ckpt/state.c and
 * docs/proxy-resources.md; a resource kind's section has a version of its
 * own, bumped with its layout; this one changes with the file's frame. */
#ifndef MPCR_STATE_FORMAT_H
#define MPCR_STATE_FORMAT_H

#define MPCR_STATE_MAGIC   "MPCRPST1"
#define MPCR_STATE_VERSION 6 /* 6: a section per resource kind of the proxy (src/proxy/resources) */

#endif
