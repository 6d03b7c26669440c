/* MPI_THREAD_MULTIPLE (docs/threads.md): one lock serialises the library,
 * and a call that waits lets it go while it waits, so that other threads'
 * calls run meanwhile. Below MULTIPLE none of this costs more than a test
 * of the level (mpcr.thread_level, runtime.h), inlined into every entry
 * point. */
#ifndef MPCR_THREADS_H
#define MPCR_THREADS_H

#include <mpi.h>
#include <stdatomic.h>

#include "runtime.h"

/* 1 when the program asked for (and got) MPI_THREAD_MULTIPLE. */
static inline int mpcr_threads_shared(void)
{
    return __builtin_expect(mpcr.thread_level == MPI_THREAD_MULTIPLE, 0);
}

/* The lock's slow half (threads.c): under MULTIPLE, and for the progress
 * helper's own turns (progress.c). */
void mpcr_lock_take(void);
void mpcr_lock_drop(void);
int mpcr_lock_try_take(void); /* 0: another thread holds it; else as mpcr_lock_take */

/* How deep this thread is inside the library (calls nested in callbacks
 * count). Below MULTIPLE it is counted too, so that once the progress
 * helper runs (mpcr.progress_helper, set inside a call) the outermost call
 * of the program's thread holds the lock, and lets it go when it leaves:
 * the helper then never runs inside a program's call. */
extern __thread unsigned mpcr_lock_depth __attribute__((tls_model("initial-exec")));
void mpcr_lock_plain_take(void); /* the mutex alone, for the outermost call */
void mpcr_lock_plain_drop(void);

/* Taken by every entry point for the length of the call (recursively: a
 * callback the library runs may call MPI again). */
static inline int mpcr_lock_enter(void)
{
    if (mpcr_threads_shared()) {
        mpcr_lock_take();
        return 1;
    }
    if (mpcr_lock_depth++ == 0 && __builtin_expect(mpcr.progress_helper, 0))
        mpcr_lock_plain_take();
    return 0;
}
static inline void mpcr_lock_leave(int *entered)
{
    if (__builtin_expect(*entered, 0)) {
        mpcr_lock_drop();
        return;
    }
    if (--mpcr_lock_depth == 0 && __builtin_expect(mpcr.progress_helper, 0))
        mpcr_lock_plain_drop();
}
/* The prologue of every entry point: the library held for the length of
 * the call, and posts the program queued handed to the proxy before the
 * call reads any request (post_queue.c). */
#define MPCR_SERIALIZED_CALL()                                                                    \
    MPCR_SERIALIZED_CARRY();                                                                       \
    mpcr_posts_flush()
/* The prologue of a call that reads no request's token (the `carries` flag
 * of src/lib/api): the queue stays, to be carried by the call's first
 * message to the proxy, if any (MPI_Isend and MPI_Irecv add to it; MPI_Recv,
 * MPI_Send, the blocking collectives carry it; MPI_Comm_rank keeps it). */
#define MPCR_SERIALIZED_CARRY()                                                                   \
    __attribute__((cleanup(mpcr_lock_leave), unused)) int mpcr_entered_ = mpcr_lock_enter();      \
    mpcr_sweep_if_asked()
/* Drops the shares whose buffers the program has given back, their memory
 * freed (shared_buffers.c). The proxy asks about once a second while it
 * maps shares; the program's outermost call answers at its entry, where no
 * call to the proxy is under way: one load of a line written that rarely. */
void mpcr_shares_sweep(void);
static inline void mpcr_sweep_if_asked(void)
{
    if (__builtin_expect(mpcr.chan != NULL, 1) &&
        __builtin_expect(atomic_load_explicit(&mpcr.chan->sweep_shares, memory_order_relaxed), 0) &&
        mpcr_lock_depth == 1 && mpcr.initialized && !mpcr.finalized)
        mpcr_shares_sweep();
}

/* A waiting call's pause between two tests: the lock is let go (when this
 * thread is not inside a callback of another call), the core given up for
 * a moment, longer the longer the wait lasts, and the lock taken again.
 * Whatever the caller read of the library's state before may have changed
 * since (staging pointers included: the area may have moved). Below
 * MULTIPLE, a sched_yield(). */
void mpcr_lock_yield(void);
/* Notes that this thread's call waits (until it leaves the library);
 * 1 when no other thread's call waits too. A call that waits alone waits at
 * the proxy, answered when another thread wants the lock (then
 * mpcr_lock_pass); several waiting at once test in turn, the lock let go
 * between tests (mpcr_lock_yield): handing the lock round at every call
 * starves them on busy cores. */
int mpcr_lock_wait_alone(void);
/* After a wait at the proxy was answered because another thread wants the
 * lock (the channel's lock_wanted): lets the lock go until one of those has
 * it, with no back-off. Below MULTIPLE, a sched_yield(). */
void mpcr_lock_pass(void);

#endif
