/* The library's lock for MPI_THREAD_MULTIPLE (threads.h, docs/threads.md).
 *
 * The lock is a plain mutex; how deep this thread is inside the library
 * is a thread-local count, so re-entry from a callback (an error handler,
 * a copy callback, a user op calling MPI) does not take it twice. Both are
 * program memory: a checkpoint saves them with the threads that hold or
 * wait for the lock, and a restarted program goes on with them as they
 * were. */
#include "lib.h"

#include <sched.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread unsigned depth; /* this thread's calls into the library, nested */
static __thread unsigned idle;  /* pauses of its current wait, for the back-off */

void mpcr_lock_take(void)
{
    if (depth++ == 0) {
        pthread_mutex_lock(&lock);
        idle = 0;
    }
}

void mpcr_lock_drop(void)
{
    if (--depth == 0) pthread_mutex_unlock(&lock);
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

void mpcr_lock_yield(void)
{
    if (!mpcr_threads_shared() || depth != 1) {
        /* Inside a callback the caller's state must not change under it:
         * the lock stays (a callback that waits for another thread of this
         * process would wait for ever, as it would in a library without
         * the lock's release). */
        sched_yield();
        return;
    }
    depth = 0;
    pthread_mutex_unlock(&lock);
    pause_briefly();
    pthread_mutex_lock(&lock);
    depth = 1;
}
