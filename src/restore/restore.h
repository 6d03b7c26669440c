/* Declarations shared by the restorer's files. */
#ifndef MPCR_RESTORE_H
#define MPCR_RESTORE_H

#include "image.h"
#include "sys.h"

__attribute__((noreturn)) void mpcr_jump(const struct mpcr_ctx *ctx, struct mpcr_handoff *h);
/* Starts a thread on stack_top that runs fn() and exits; the kernel clears
 * *tid (and wakes its futex) when the thread is gone. */
long mpcr_clone_call(unsigned long flags, void *stack_top, uint32_t *tid, void (*fn)(void));
long mpcr_clone_jump(unsigned long flags, void *stack_top, uint64_t tls, const struct mpcr_ctx *ctx,
                     struct mpcr_handoff *h);

/* Memory inside the restorer's zone (never where the image goes). */
void *zalloc(size_t len);

/* stream.c: reads region r's data stream from the image once and returns its
 * CRC32C; with place, also puts its pages at their (mapped) addresses. */
uint32_t mpcr_restore_stream(int img, const struct mpcr_img_region *r, uint32_t index, int place);

/* Incremental images (chain.c, docs/incremental.md). A ref: pages
 * [start, end) of the image's region `region` are as generation chain[index]
 * holds them; `covered` counts the pages found there so far. */
struct mpcr_ref {
    uint64_t start, end, covered;
    uint32_t index, region, kind;
    int place;    /* its region is mapped: put the pages there (else only check them) */
    int use_uffd;
};
extern uint32_t mpcr_chain_len; /* of the image being restored */
/* stream.c met a ref extent of region `region` (of kind `kind`; mapped: place). */
void mpcr_chain_ref(uint32_t region, uint32_t kind, uint64_t start, uint64_t len, uint32_t index, int place);
/* Puts (fill) or checks the pages of the refs met since the last call,
 * reading each generation they name once (its regions that hold them),
 * checked against the image (same job, rank, its generation) and by its
 * checksums; refuses (exit code) naming the file. own: the image's regions;
 * image: its path. */
void mpcr_chain_apply(const struct mpcr_img_header *h, const struct mpcr_img_region *own, const char *image, int fill,
                      int code);
void mpcr_chain_close(void);
/* stream.c, for chain.c: a base region's stream, placing what refs[0..n)
 * of `index` want (refs sorted, apart); returns its CRC32C. */
uint32_t mpcr_restore_stream_refs(int img, const struct mpcr_img_region *src, int fill, struct mpcr_ref *refs,
                                  uint64_t nrefs, uint32_t index);
/* userfaultfd (MISSING) over a range the refs fill: 1 when registered. */
int mpcr_restore_uffd_register(uint64_t start, uint64_t len);
void mpcr_restore_uffd_unregister(uint64_t start, uint64_t len);
/* Ends the helper thread (for good) and closes userfaultfd (until needed again). */
void mpcr_restore_stream_done(void);
/* MPCR_RESTORE_SIMPLE=1: one thread and plain copies, as where the kernel has
 * no userfaultfd and the restorer one CPU (tests use it to cover that path). */
extern int mpcr_restore_simple;

/* trust.c: whose files the image maps, and whether they are the checkpoint's
 * (docs/security.md). trust_init first (others: MPCR_TRUST_OTHERS_FILES=1);
 * trust_check_mapped in phase 1 for region i of a file kind; trust_same_file
 * on each later open of it: it must be the file phase 1 vouched for (else
 * exits with code); trust_owner for a descriptor's file (what: "the open file "). */
struct kstat;
void trust_init(uint32_t nregions, int others);
void trust_check_mapped(uint32_t i, const struct mpcr_img_region *r, const char *path);
void trust_same_file(uint32_t i, long fd, const char *path, int code);
void trust_owner(const struct kstat *st, const char *what, const char *path);

/* The restorer's own view of its address space. */
struct own_maps {
    uint64_t vvar, vvar_len, vclock, vclock_len, vdso, vdso_len;
    uint64_t other_start[64], other_end[64]; /* to unmap: the kernel's stack, ... */
    int nother;
};
int read_own_maps(struct own_maps *m);

#endif
