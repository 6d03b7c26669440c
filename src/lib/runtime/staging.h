/* Where message data waits for the proxy: the channel's staging area
 * (staging.c), and the buffers the program shares with the proxy for large
 * messages (shared_buffers.c, memory_calls.c). Both are named by offsets,
 * which the proxy understands: the area moves when it grows. */
#ifndef MPCR_STAGING_H
#define MPCR_STAGING_H

#include <signal.h>
#include <stdint.h>

#include "channel.h"
#include "runtime.h"

/* ---- shared buffers (shared_buffers.c): large messages without copies ---- */
/* Whether the contiguous message [data, data + bytes) moves through a
 * shared buffer; then *offset names it for the proxy (>= MPCR_SHARED_BASE),
 * and mpcr_staging_free(*offset) ends the use. A send's data is ready. */
int mpcr_share_send(const void *data, uint64_t bytes, uint64_t *offset);
int mpcr_share_recv(void *data, uint64_t bytes, uint64_t *offset);
/* A receive at offset completed with `got` bytes: its ends come out of the slots. */
void mpcr_share_received(uint64_t offset, uint64_t got);
void mpcr_share_release(uint64_t offset);
void mpcr_shares_before_checkpoint(void); /* checkpoint hooks (restart.c) */
/* Checkpoints held off (the checkpoint signal blocked; mask: the program's)
 * while a table the checkpoint's hooks read is changed; never around a
 * call to the proxy, which a checkpoint waits for. */
void mpcr_hold_checkpoints(sigset_t *mask);
void mpcr_let_checkpoints_in(const sigset_t *mask);
void mpcr_shares_restarted(int sock);
/* Whether a share was ever made (any thread may ask: the progress helper's
 * sweeps, progress.c). */
int mpcr_shares_made(void);
/* The program is about to discard [lo, hi) (discard: MADV_DONTNEED or
 * MADV_DONTNEED_LOCKED, as the kernel should check it; the pages become
 * zeros) or to move it or change its kind (discard 0: the bytes stay):
 * the pieces of it that are a share's memory become private memory
 * first, so that the call does what it does to private memory
 * (memory_calls.c). -1 with errno: the kernel refused the discard, or no
 * memory (a piece may be left as it was). */
int mpcr_shares_leave(uintptr_t lo, uintptr_t hi, int discard);
/* Whether the pages [lo, hi) are the program's private writable memory
 * (anonymous, a file's, the stack; or a share's or window's left-over pages), which a
 * memfd with the same bytes may replace unnoticed: a created window's
 * pages are shared only then (src/lib/rma/win.c). 0 where the kernel
 * cannot tell (no PROCMAP_QUERY). */
int mpcr_private_memory(uintptr_t lo, uintptr_t hi);
/* Whether [lo, hi) overlaps a window's piece still attached (the proxy
 * maps it too), and whether any piece was given back, its pages left as
 * the memfd's (src/lib/rma/win_dynamic.c): a checkpoint makes those
 * private memory again (shared_buffers.c). Signal-safe. */
int mpcr_win_piece_attached(uintptr_t lo, uintptr_t hi);
int mpcr_win_pieces_given_back(void);

/* ---- staging area (staging.c) ---- */
int mpcr_staging_alloc(uint64_t bytes, uint64_t *offset); /* 0 or MPI error class */
void mpcr_staging_free_area(uint64_t offset);
/* Ends a message's use of offset: of the staging area or of a shared buffer. */
static inline void mpcr_staging_free(uint64_t offset)
{
    if (__builtin_expect(offset >= MPCR_SHARED_BASE, 0))
        mpcr_share_release(offset);
    else
        mpcr_staging_free_area(offset);
}
/* Around an access to the channel by a thread that has not the library's
 * lock (MULTIPLE): the channel does not move meanwhile (staging.c). */
void mpcr_chan_use_begin(void);
void mpcr_chan_use_end(void);
static inline void *mpcr_staging_ptr(uint64_t offset)
{
    return mpcr_staging(mpcr.chan, offset);
}

#endif
