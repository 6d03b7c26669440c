/* MPI_THREAD_MULTIPLE (docs/threads.md): one lock serialises the library,
 * and a call that waits lets it go while it waits, so that other threads'
 * calls run meanwhile. Below MULTIPLE none of this costs more than a test
 * of the level. */
#ifndef MPCR_THREADS_H
#define MPCR_THREADS_H

/* 1 when the program asked for (and got) MPI_THREAD_MULTIPLE. */
int mpcr_threads_shared(void);

/* Taken by every entry point for the length of the call (recursively: a
 * callback the library runs may call MPI again). */
int mpcr_lock_enter(void);
void mpcr_lock_leave(int *entered);
#define MPCR_SERIALIZED_CALL()                                                                    \
    __attribute__((cleanup(mpcr_lock_leave), unused)) int mpcr_entered_ = mpcr_lock_enter()

/* A waiting call's pause between two tests: the lock is let go (when this
 * thread is not inside a callback of another call), the core given up for
 * a moment, longer the longer the wait lasts, and the lock taken again.
 * Whatever the caller read of the library's state before may have changed
 * since (staging pointers included: the area may have moved). Below
 * MULTIPLE, a sched_yield(). */
void mpcr_lock_yield(void);

#endif
