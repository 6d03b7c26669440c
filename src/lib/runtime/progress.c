/* The progress helper: a thread of the library that advances non-blocking
 * and persistent collectives while the program computes outside MPI
 * (docs/collectives.md, "Progress").
 *
 * A collective's task posts one round of sends and receives and pauses; the
 * proxy moves them meanwhile (its idle progress), but the next round used
 * to wait for the program's next MPI call. Now, when the proxy's idle
 * progress completes a request while helper_waits is set in the channel,
 * it bumps progress_kick and wakes this thread, which takes the library's
 * lock (threads.h: from the first task on, every call of the program holds
 * it, at every thread level), tests the tasks' rounds with one call and
 * resumes those whose round completed; they post their next round or end.
 * With nothing in flight it sleeps until a task starts (mpcr_progress_arm).
 *
 * It also hands over posts the program queued (post_queue.c) when the
 * program has made no MPI call since: while posts come, it wakes every
 * POSTS_TICK_US and hands over a queue that was there at its last turn
 * already, taking the lock only if it is free (a program inside a call
 * hands the queue over itself). After POSTS_QUIET_TICKS turns without a
 * new queue it sleeps until the next queue starts (mpcr_progress_posts_started
 * wakes it then), so a program that computes costs it nothing (one wake-up
 * a second once it has shared a buffer: SWEEP_TICK_US).
 *
 * It also drops shared buffers the program has given back while it
 * computes (SWEEP_TICK_US).
 *
 * It starts with the first task that pauses, the first post queued or the
 * first shared buffer made, never for a program without any of them;
 * MPCR_PROGRESS_THREAD=0 keeps it off (then only MPI calls advance tasks,
 * and nothing is queued). Its state is
 * program memory: a checkpoint saves the thread with the others, wherever
 * it stands. */
#include "channel.h"
#include "coll/coll_task.h"
#include "runtime.h"
#include "staging.h"
#include "threads.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* A safety net for a kick lost while the channel moved (its futex word's
 * address changes with it: staging.c): with tasks in flight the helper
 * tests anyway this long after its last turn. */
#define KICK_TIMEOUT_US 100000

/* While the program has shared buffers, the helper also answers the
 * proxy's request to drop those the program has given back (sweep_shares,
 * shared_buffers.c), which the proxy makes about once a second: a program
 * that frees a large buffer and then computes without MPI calls would hold
 * its memory until its next call. So with shares made, the helper sleeps
 * this long at most. */
#define SWEEP_TICK_US 1000000

/* A queued post reaches the proxy at most two ticks after it was queued
 * when the program makes no call; ticking stops after 100 ms without posts. */
#define POSTS_TICK_US 2000
#define POSTS_QUIET_TICKS 50

static _Atomic int stopping;
static _Atomic int sleeps_deep; /* the helper waits for a kick only, no tick */

/* The kick count now, read before a turn: a completion after the read
 * wakes the wait that follows the turn. */
static uint32_t kick_now(void)
{
    mpcr_chan_use_begin(); /* the channel cannot move meanwhile */
    uint32_t kick = atomic_load(&mpcr.chan->progress_kick);
    mpcr_chan_use_end();
    return kick;
}

static void wait_kick(uint32_t kick, long timeout_us)
{
    mpcr_chan_use_begin();
    _Atomic uint32_t *word = &mpcr.chan->progress_kick;
    mpcr_chan_use_end();
    /* If the channel moves before the wait, the old address fails (EFAULT)
     * or holds another value: the loop comes back at once, or at the
     * timeout. */
    mpcr_futex_wait_us(word, kick, timeout_us);
}

/* One turn, the library held: tasks advanced, overdue posts handed over.
 * Returns 1 while tasks are in flight. */
static int turn(void)
{
    if (atomic_load(&stopping)) return 0;
    int in_flight = mpcr_coll_progress_background();
    /* under the lock, as mpcr_progress_arm sets it */
    if (!in_flight) atomic_store(&mpcr.chan->helper_waits, 0);
    if (mpcr_posts_overdue()) mpcr_posts_flush();
    if (atomic_load_explicit(&mpcr.chan->sweep_shares, memory_order_relaxed)) mpcr_shares_sweep();
    return in_flight;
}

static void *helper_main(void *unused)
{
    (void)unused;
    uint32_t seen = kick_now() - 1; /* the first turn is owed */
    unsigned quiet = 0, generation = 0;
    int in_flight = 0;
    for (;;) {
        uint32_t kick = kick_now();
        /* a kick or tasks in flight: a turn is owed, the lock waited for;
         * a tick only: a program inside a call holds the lock, and needs
         * no help with its queue */
        if (kick != seen || in_flight) {
            mpcr_lock_take();
            in_flight = turn();
            mpcr_lock_drop();
        } else if (mpcr_lock_try_take()) {
            in_flight = turn();
            mpcr_lock_drop();
        }
        seen = kick;
        if (atomic_load(&stopping)) return NULL;
        uint32_t g = mpcr_posts_generation();
        quiet = g != generation ? 0 : quiet + 1, generation = g;
        int ticking = quiet < POSTS_QUIET_TICKS;
        if (!ticking) {
            /* seq_cst, as the queue's count: a queue started after this
             * store wakes us (mpcr_progress_posts_started), one started
             * before it is seen here */
            atomic_store(&sleeps_deep, 1);
            if (__atomic_load_n(&mpcr_posts_queued, __ATOMIC_SEQ_CST)) ticking = 1;
        }
        wait_kick(kick, in_flight ? KICK_TIMEOUT_US
                        : ticking   ? POSTS_TICK_US
                        : mpcr_shares_made() ? SWEEP_TICK_US
                                             : -1);
        atomic_store(&sleeps_deep, 0);
    }
}

static int wanted(void)
{
    static int answer = -1; /* (asked at every large message when off) */
    if (answer < 0) {
        const char *v = getenv("MPCR_PROGRESS_THREAD");
        answer = !v || strcmp(v, "0") != 0;
    }
    return answer;
}

/* Starts the helper; inside the program's call, the library held. */
static void start_helper(void)
{
    if (mpcr.progress_helper || !wanted()) return;
    /* Below MULTIPLE this call does not hold the lock yet; from now on the
     * outermost call does (threads.h), this one too. */
    if (!mpcr_threads_shared()) mpcr_lock_plain_take();
    mpcr.progress_helper = 1;
    pthread_attr_t attr;
    pthread_t helper;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024); /* tasks run on stacks of their own */
    /* The helper inherits a mask that blocks every signal but the engine's
     * checkpoint signal (a checkpoint stops it as any thread): a signal
     * meant for the program (SIGALRM, SIGCHLD, a profiling timer) must not
     * run the program's handler on a thread it did not make. */
    sigset_t all, mask;
    sigfillset(&all);
    sigdelset(&all, SIGRTMAX);
    pthread_sigmask(SIG_BLOCK, &all, &mask);
    if (pthread_create(&helper, &attr, helper_main, NULL) == 0)
        pthread_setname_np(helper, "mpcr-progress");
    else
        mpcr.progress_helper = 2; /* no helper: MPI calls advance the tasks, nothing is queued */
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    pthread_attr_destroy(&attr);
}

/* Inside the program's call, the library held. */
void mpcr_progress_arm(void)
{
    start_helper();
    if (mpcr.progress_helper == 1)
        atomic_store(&mpcr.chan->helper_waits, 1); /* the proxy's next completion kicks */
}

int mpcr_progress_ready(void)
{
    start_helper();
    return mpcr.progress_helper == 1;
}

void mpcr_progress_posts_started(void)
{
    if (!atomic_load(&sleeps_deep)) return; /* it ticks: it will see the queue */
    atomic_fetch_add(&mpcr.chan->progress_kick, 1);
    mpcr_futex_wake(&mpcr.chan->progress_kick);
}

/* MPI_Finalize, the library held. */
void mpcr_progress_stop(void)
{
    if (!mpcr.progress_helper) return;
    atomic_store(&stopping, 1);
    atomic_store(&mpcr.chan->helper_waits, 0);
    atomic_fetch_add(&mpcr.chan->progress_kick, 1);
    mpcr_futex_wake(&mpcr.chan->progress_kick);
    /* Not joined: it may wait for the lock this call holds; it ends at its
     * next turn, without a call to the proxy. */
}
