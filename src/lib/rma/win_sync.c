/* Synchronisation (MPI 4.0 12.5; docs/one-sided.md, "Synchronisation in
 * the library"). Every operation is complete at its target when its call
 * returns (win_ops.c), so an epoch's end has nothing to wait for:
 *   - a fence is a barrier over the window's communicator (the library's
 *     duplicate; its messages are drained like any at a checkpoint), with
 *     a separate window's copies merged before and after;
 *   - a lock is a word in the target's control page, taken by its proxy
 *     with real atomics, one attempt per call: between attempts this rank
 *     pauses outside any call, so a checkpoint may land while it waits.
 *     The word is the target's memory, in its image: a lock held at a
 *     checkpoint is held after a restart, with nothing to replay;
 *   - flushes have nothing to do beyond checking the epoch.
 * A separate window's copies are also merged at lock and unlock of the
 * rank's own window and at MPI_Win_sync. */
#include "api_gen.h"
#include "comm/comm.h"
#include "win.h"

#include <sched.h>
#include <time.h>

enum { WIN_LOCKED_NOCHECK = WIN_LOCKED_EXCLUSIVE + 1 }; /* assert MPI_MODE_NOCHECK: no word taken */

int mpcr_impl_Win_fence(int assert, struct mpcr_win *w)
{
    (void)assert; /* every assertion only says what need not be done */
    mpcr_win_merge(w);
    int err = mpcr_impl_Barrier(w->comm);
    mpcr_win_merge(w);
    return err;
}

/* Takes rank r's lock word, asking again after a pause until it is ours. */
static int take(struct mpcr_win *w, int r, int exclusive)
{
    long pause_ns = 1000;
    for (int tries = 0;; tries++) {
        struct mpcr_win_call wc = {.op = MPCR_WIN_LOCK, .win = mpcr_win_id(w),
                                   .target = w->members[r], .at = mpcr_win_lock_word(w, r),
                                   .flag = exclusive};
        int err = mpcr_win_call(&wc, NULL);
        if (err || wc.result) return err;
        if (tries < 8) {
            sched_yield();
            continue;
        }
        /* a pause of its own length (ranks that undo each other's adds fall out of step) */
        unsigned seed = (unsigned)(mpcr_win_id(w) * 7919u + (unsigned)tries * 104729u +
                                   (unsigned)w->comm->rank * 15485863u);
        nanosleep(&(struct timespec){0, pause_ns / 2 + (long)(seed % (unsigned)pause_ns)}, NULL);
        if (pause_ns < 1000000) pause_ns *= 2;
    }
}

static int lock(struct mpcr_win *w, int r, int exclusive, int assert)
{
    if (assert & MPI_MODE_NOCHECK) {
        w->locks[r] = WIN_LOCKED_NOCHECK;
    } else {
        int err = take(w, r, exclusive);
        if (err) return err;
        w->locks[r] = exclusive ? WIN_LOCKED_EXCLUSIVE : WIN_LOCKED_SHARED;
    }
    if (r == w->comm->rank) mpcr_win_merge(w);
    return MPI_SUCCESS;
}

static int unlock(struct mpcr_win *w, int r)
{
    int err = MPI_SUCCESS;
    if (r == w->comm->rank) mpcr_win_merge(w);
    if (w->locks[r] == WIN_LOCKED_SHARED || w->locks[r] == WIN_LOCKED_EXCLUSIVE) {
        struct mpcr_win_call wc = {.op = MPCR_WIN_UNLOCK, .win = mpcr_win_id(w),
                                   .target = w->members[r], .at = mpcr_win_lock_word(w, r),
                                   .flag = w->locks[r] == WIN_LOCKED_EXCLUSIVE};
        err = mpcr_win_call(&wc, NULL);
    }
    w->locks[r] = WIN_UNLOCKED;
    return err;
}

int mpcr_impl_Win_lock(int lock_type, int rank, int assert, struct mpcr_win *w)
{
    if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE) return MPI_ERR_LOCKTYPE;
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->nmembers) return MPI_ERR_RANK;
    if (w->lock_all || w->locks[rank] != WIN_UNLOCKED) return MPI_ERR_RMA_SYNC;
    return lock(w, rank, lock_type == MPI_LOCK_EXCLUSIVE, assert);
}

int mpcr_impl_Win_unlock(int rank, struct mpcr_win *w)
{
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->nmembers) return MPI_ERR_RANK;
    if (w->lock_all || w->locks[rank] == WIN_UNLOCKED) return MPI_ERR_RMA_SYNC;
    return unlock(w, rank);
}

int mpcr_impl_Win_lock_all(int assert, struct mpcr_win *w)
{
    for (int r = 0; r < w->nmembers; r++)
        if (w->locks[r] != WIN_UNLOCKED) return MPI_ERR_RMA_SYNC;
    for (int r = 0; r < w->nmembers; r++) {
        int err = lock(w, r, 0, assert);
        if (err) { /* those taken given back */
            while (r--)
                unlock(w, r);
            return err;
        }
    }
    w->lock_all = 1;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_unlock_all(struct mpcr_win *w)
{
    if (!w->lock_all) return MPI_ERR_RMA_SYNC;
    int err = MPI_SUCCESS;
    for (int r = 0; r < w->nmembers; r++) {
        int e = unlock(w, r);
        if (!err) err = e;
    }
    w->lock_all = 0;
    return err;
}

/* Flushes: every operation is complete at its call already. */
static int in_epoch(struct mpcr_win *w, int rank)
{
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= w->nmembers) return MPI_ERR_RANK;
    return w->locks[rank] != WIN_UNLOCKED ? MPI_SUCCESS : MPI_ERR_RMA_SYNC;
}

int mpcr_impl_Win_flush(int rank, struct mpcr_win *w)
{
    return in_epoch(w, rank);
}

int mpcr_impl_Win_flush_local(int rank, struct mpcr_win *w)
{
    return in_epoch(w, rank);
}

int mpcr_impl_Win_flush_all(struct mpcr_win *w)
{
    (void)w;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_flush_local_all(struct mpcr_win *w)
{
    (void)w;
    return MPI_SUCCESS;
}

int mpcr_impl_Win_sync(struct mpcr_win *w)
{
    mpcr_win_merge(w);
    return MPI_SUCCESS;
}
