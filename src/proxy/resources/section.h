/* The inside of a state-file section (resource.h: section_put), for the
 * writer of the file (ckpt/state.c). */
#ifndef MPCR_PROXY_SECTION_H
#define MPCR_PROXY_SECTION_H

#include <stddef.h>

#include "resource.h"

struct piece {
    void *data;
    size_t len;
    size_t room; /* 0: a reference (section_put_ref); else a buffer of the section's */
};

struct section {
    struct piece *pieces;
    size_t npieces, cap;
    size_t bytes; /* of all pieces */
};

void section_free(struct section *s);

#endif
