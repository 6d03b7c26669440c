/* The collectives' temporaries (coll.h: coll_tmp), kept for the next call.
 *
 * A reduction's partial results need a buffer as large as the message. A
 * malloc of a megabyte and its free each time cost more than the copy
 * itself: glibc takes such a block from the top of the heap or from mmap
 * and gives it back at the free (trim, munmap), so every call faulted its
 * pages in again (a 1 MiB Allreduce at 2 ranks spent about a fifth of the
 * program's time in page faults and brk). So blocks of SCRATCH_MIN bytes
 * and more are kept when freed, up to SCRATCH_KEEP of them and
 * SCRATCH_TOTAL bytes in all, and handed out again for a request they fit
 * without wasting more than three quarters of themselves. Smaller ones
 * come and go through malloc (glibc keeps them in its bins anyway). Any
 * thread may call (MPI_THREAD_MULTIPLE, tasks); a checkpoint that stops a
 * thread holding the lock finds it again as it was after a restart (a
 * plain mutex keeps no thread id). */
#include "coll.h"
#include "datatype/typemap.h"

#include <pthread.h>
#include <stdlib.h>

#define SCRATCH_MIN (64u << 10)
#define SCRATCH_KEEP 4
#define SCRATCH_TOTAL (64u << 20)
#define HEADER 64 /* the block's length, and room that keeps the data 64-byte aligned */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *kept[SCRATCH_KEEP]; /* blocks (their headers); NULL: a free slot */
static size_t kept_bytes;

static size_t block_len(const void *block)
{
    return *(const size_t *)block;
}

/* A kept block of at least len bytes and at most four times that, or NULL. */
static void *take_kept(size_t len)
{
    void *best = NULL;
    int at = -1;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SCRATCH_KEEP; i++)
        if (kept[i] && block_len(kept[i]) >= len && block_len(kept[i]) / 4 <= len &&
            (!best || block_len(kept[i]) < block_len(best)))
            best = kept[i], at = i;
    if (best) kept[at] = NULL, kept_bytes -= block_len(best);
    pthread_mutex_unlock(&lock);
    return best;
}

void *coll_scratch_get(size_t len)
{
    void *block = len >= SCRATCH_MIN ? take_kept(len) : NULL;
    if (!block) {
        if (!(block = aligned_alloc(HEADER, (len + HEADER + HEADER - 1) / HEADER * HEADER))) return NULL;
        *(size_t *)block = len;
    }
    return (char *)block + HEADER;
}

void coll_scratch_put(void *p)
{
    void *block = (char *)p - HEADER, *drop = block;
    size_t have = block_len(block);
    pthread_mutex_lock(&lock);
    if (have >= SCRATCH_MIN && have <= SCRATCH_TOTAL)
        for (int i = 0; i < SCRATCH_KEEP && drop == block; i++) {
            /* a free slot with room under the total, or the slot of a
             * smaller block, which is dropped instead */
            size_t old_len = kept[i] ? block_len(kept[i]) : 0;
            if ((kept[i] && old_len >= have) || kept_bytes - old_len + have > SCRATCH_TOTAL) continue;
            drop = kept[i];
            kept_bytes += have - old_len;
            kept[i] = block;
        }
    pthread_mutex_unlock(&lock);
    free(drop);
}

void *coll_tmp(MPI_Count count, const struct mpcr_type *t)
{
    /* count extents (an op may copy a whole element, padding included, as
     * MINLOC's struct assignment does), and room for the data's span */
    uint64_t len, extent = (uint64_t)(t->extent < 0 ? -t->extent : t->extent);
    if (count <= 0) count = 1;
    if (coll_span(count, extent, &len) ||
        __builtin_add_overflow(len, (uint64_t)(t->true_ub - t->true_lb) + 1, &len) || len > SIZE_MAX - 2 * HEADER)
        return NULL;
    char *p = coll_scratch_get((size_t)len);
    return p ? p - t->true_lb : NULL;
}

void coll_tmp_free(void *p, const struct mpcr_type *t)
{
    if (p) coll_scratch_put((char *)p + t->true_lb);
}
