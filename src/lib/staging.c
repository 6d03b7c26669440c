/* Allocation in the channel's staging area, where message data waits for
 * the proxy. Offsets, not pointers: the area moves when it grows, and the
 * proxy maps it elsewhere. Few allocations are alive at once (one per
 * blocking call, one per pending non-blocking request), so a sorted array
 * with first fit is enough. The area grows when the proxy extends the memfd
 * (GROW) and the library then extends its own mapping; pages are allocated
 * only when touched. */
#include "lib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ALIGN 64u

struct extent {
    uint64_t offset, length;
};
static struct extent *live; /* sorted by offset */
static size_t nlive, caplive;

static int grow(uint64_t need)
{
    uint64_t size = mpcr.staging_size ? mpcr.staging_size : 1u << 20;
    while (size < need)
        size *= 2;
    size_t old_total = MPCR_CHAN_CONTROL + mpcr.staging_size, total = MPCR_CHAN_CONTROL + size;
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_GROW);
    call->bytes = size;
    int err = mpcr_call_finish()->rc;
    if (err) return err;
    void *p = mremap(mpcr.chan, old_total, total, MREMAP_MAYMOVE);
    if (p == MAP_FAILED) return MPI_ERR_NO_MEM;
    mpcr.chan = p;
    mpcr.staging_size = size;
    return MPI_SUCCESS;
}

int mpcr_staging_alloc(uint64_t bytes, uint64_t *offset)
{
    uint64_t len = (bytes + ALIGN - 1) / ALIGN * ALIGN;
    if (!len) len = ALIGN;
    uint64_t at = 0;
    size_t i = 0;
    for (; i < nlive; i++) { /* first gap that fits */
        if (live[i].offset - at >= len) break;
        at = live[i].offset + live[i].length;
    }
    if (at + len > mpcr.staging_size) {
        int err = grow(at + len);
        if (err) return err;
    }
    if (nlive == caplive) {
        size_t cap = caplive ? 2 * caplive : 16;
        struct extent *n = realloc(live, cap * sizeof *n);
        if (!n) return MPI_ERR_NO_MEM;
        live = n, caplive = cap;
    }
    memmove(&live[i + 1], &live[i], (nlive - i) * sizeof *live);
    live[i] = (struct extent){at, len};
    nlive++;
    *offset = at;
    return MPI_SUCCESS;
}

/* Staging pages stay allocated (as shared memory) once touched; a large
 * message's are handed back to the kernel, so that one 1 GiB message does
 * not leave 1 GiB behind for the rest of the job. */
#define RELEASE_ABOVE (32u << 20)

void mpcr_staging_free(uint64_t offset)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i].offset == offset) {
            if (live[i].length >= RELEASE_ABOVE) /* frees the shared pages themselves */
                madvise(mpcr_staging_ptr(offset), live[i].length, MADV_REMOVE);
            memmove(&live[i], &live[i + 1], (nlive - i - 1) * sizeof *live);
            nlive--;
            return;
        }
    mpcr_fatal("internal error: freeing staging offset %llu that is not allocated",
               (unsigned long long)offset);
}
