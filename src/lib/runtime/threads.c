/* The library's lock for MPI_THREAD_MULTIPLE (threads.h, docs/threads.md).
 *
 * The lock is a plain mutex; how deep this thread is inside the library
 * is a thread-local count, so re-entry from a callback (an error handler,
 * a copy callback, a user op calling MPI) does not take it twice. The
 * progress helper (progress.c) takes the same lock below MULTIPLE too. The
 * mutex and the depths are program memory: a checkpoint saves them with
 * the threads that hold or wait for the lock, and a restarted program goes
 * on with them as they were. */
#include "runtime.h"
#include "staging.h"
#include "threads.h"

#include <sched.h>
#include <time.h>

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
__thread unsigned mpcr_lock_depth __attribute__((tls_model("initial-exec"))); /* threads.h */
static __thread unsigned idle;  /* pauses of its current wait, for the back-off */
static __thread int waits;      /* this thread's current call has waited */
static _Atomic unsigned waiting; /* threads whose current call has waited */

/* A thread that finds the lock taken says so in the channel before it
 * waits (lock_wanted): a thread inside waiting at the proxy is then
 * answered and lets the lock go (mpcr_lock_pass). So a call that waits
 * alone waits at the proxy, as below MULTIPLE, without holding others up. */
static _Atomic unsigned contended; /* acquisitions that had to wait */

/* lock_wanted, touched without the lock: only while the channel cannot
 * move (staging.c, mpcr_chan_use_begin). */
static void announce_wanted(void)
{
    mpcr_chan_use_begin();
    atomic_fetch_add_explicit(&mpcr.chan->lock_wanted, 1, memory_order_relaxed);
    mpcr_chan_use_end();
}

static uint32_t read_wanted(void)
{
    mpcr_chan_use_begin();
    uint32_t v = atomic_load_explicit(&mpcr.chan->lock_wanted, memory_order_relaxed);
    mpcr_chan_use_end();
    return v;
}

static void lock(void)
{
    if (pthread_mutex_trylock(&mutex)) {
        announce_wanted();
        pthread_mutex_lock(&mutex);
        atomic_fetch_sub_explicit(&mpcr.chan->lock_wanted, 1, memory_order_relaxed); /* held: no move */
        atomic_fetch_add_explicit(&contended, 1, memory_order_release);
    }
}

void mpcr_lock_take(void)
{
    if (mpcr_lock_depth++ == 0) {
        lock();
        idle = 0;
    }
}

int mpcr_lock_try_take(void)
{
    if (mpcr_lock_depth == 0 && pthread_mutex_trylock(&mutex)) return 0;
    mpcr_lock_depth++;
    idle = 0;
    return 1;
}

void mpcr_lock_plain_take(void)
{
    lock();
}

void mpcr_lock_plain_drop(void)
{
    pthread_mutex_unlock(&mutex);
}

void mpcr_lock_drop(void)
{
    if (--mpcr_lock_depth) return;
    if (waits) waits = 0, atomic_fetch_sub_explicit(&waiting, 1, memory_order_relaxed);
    pthread_mutex_unlock(&mutex);
}

static void note_waiting(void)
{
    if (!waits) waits = 1, atomic_fetch_add_explicit(&waiting, 1, memory_order_relaxed);
}

int mpcr_lock_wait_alone(void)
{
    note_waiting();
    return atomic_load_explicit(&waiting, memory_order_relaxed) == 1;
}

/* The first pauses only give the core up (a message from a thread of this
 * process is usually a few microseconds away); a long wait sleeps up to
 * 50 us between tests, so that a thread blocked in MPI_Recv for seconds
 * does not keep the proxy busy answering its tests. */
static void pause_briefly(void)
{
    if (++idle <= 32) {
        sched_yield();
        return;
    }
    long us = idle - 32 < 50 ? idle - 32 : 50;
    nanosleep(&(struct timespec){0, us * 1000}, NULL);
}

void mpcr_lock_pass(void)
{
    if (!mpcr_threads_shared() || mpcr_lock_depth != 1) {
        sched_yield();
        return;
    }
    unsigned before = atomic_load_explicit(&contended, memory_order_acquire);
    mpcr_lock_depth = 0;
    pthread_mutex_unlock(&mutex);
    /* Until a thread that waited for the lock has it: a mutex lets the
     * thread that unlocks take it again before the one it woke runs, which
     * on busy cores starves the others for good (seen with 4 threads). */
    while (read_wanted() &&
           atomic_load_explicit(&contended, memory_order_acquire) == before)
        sched_yield();
    lock();
    mpcr_lock_depth = 1;
}

void mpcr_lock_yield(void)
{
    if (!mpcr_threads_shared() || mpcr_lock_depth != 1) {
        /* Inside a callback the caller's state must not change under it:
         * the lock stays (a callback that waits for another thread of this
         * process would wait for ever, as it would in a library without
         * the lock's release). */
        sched_yield();
        return;
    }
    /* a thread that polls (a creation, a generalized request) waits too:
     * the others then test in turn rather than wait at the proxy, where
     * the proxy would not answer its polls meanwhile */
    note_waiting();
    mpcr_lock_depth = 0;
    pthread_mutex_unlock(&mutex);
    pause_briefly();
    lock();
    mpcr_lock_depth = 1;
}
