/* Declarations shared by the restorer's files. */
#ifndef MPCR_RESTORE_H
#define MPCR_RESTORE_H

#include "image.h"
#include "sys.h"

__attribute__((noreturn)) void mpcr_jump(const struct mpcr_ctx *ctx, struct mpcr_handoff *h);
long mpcr_clone_jump(unsigned long flags, void *stack_top, uint64_t tls, const struct mpcr_ctx *ctx,
                     struct mpcr_handoff *h);

/* Memory inside the restorer's zone (never where the image goes). */
void *zalloc(size_t len);

/* The restorer's own view of its address space. */
struct own_maps {
    uint64_t vvar, vvar_len, vclock, vclock_len, vdso, vdso_len;
    uint64_t other_start[64], other_end[64]; /* to unmap: the kernel's stack, ... */
    int nother;
};
int read_own_maps(struct own_maps *m);

#endif
