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
 * It starts with the first task that pauses, never for a program without
 * non-blocking collectives; MPCR_PROGRESS_THREAD=0 keeps it off (then only
 * MPI calls advance tasks, as before). Its state is program memory: a
 * checkpoint saves the thread with the others, wherever it stands. */
#include "coll_task.h"

#include <stdlib.h>
#include <string.h>

/* A safety net for a kick lost while the channel moved (its futex word's
 * address changes with it: staging.c): with tasks in flight the helper
 * tests anyway this long after its last turn. */
#define KICK_TIMEOUT_US 100000

static _Atomic int stopping;

/* The kick count now, read before a turn: a completion after the read
 * wakes the wait that follows the turn. */
static uint32_t kick_now(void)
{
    mpcr_chan_use_begin(); /* the channel cannot move meanwhile */
    uint32_t kick = atomic_load(&mpcr.chan->progress_kick);
    mpcr_chan_use_end();
    return kick;
}

static void wait_kick(uint32_t kick, int in_flight)
{
    mpcr_chan_use_begin();
    _Atomic uint32_t *word = &mpcr.chan->progress_kick;
    mpcr_chan_use_end();
    /* If the channel moves before the wait, the old address fails (EFAULT)
     * or holds another value: the loop comes back at once, or at the
     * timeout. */
    mpcr_futex_wait_us(word, kick, in_flight ? KICK_TIMEOUT_US : -1);
}

static void *helper_main(void *unused)
{
    (void)unused;
    for (;;) {
        uint32_t kick = kick_now();
        mpcr_lock_take();
        int in_flight = 0;
        if (!atomic_load(&stopping)) {
            in_flight = mpcr_coll_progress_background();
            /* under the lock, as mpcr_progress_arm sets it */
            if (!in_flight) atomic_store(&mpcr.chan->helper_waits, 0);
        }
        mpcr_lock_drop();
        if (atomic_load(&stopping)) return NULL;
        wait_kick(kick, in_flight);
    }
}

static int wanted(void)
{
    const char *v = getenv("MPCR_PROGRESS_THREAD");
    return !v || strcmp(v, "0") != 0;
}

/* Inside the program's call, the library held. */
void mpcr_progress_arm(void)
{
    if (mpcr.progress_helper) {
        atomic_store(&mpcr.chan->helper_waits, 1); /* the proxy's next completion kicks */
        return;
    }
    if (!wanted()) return;
    /* Below MULTIPLE this call does not hold the lock yet; from now on the
     * outermost call does (threads.h), this one too. */
    if (!mpcr_threads_shared()) mpcr_lock_plain_take();
    mpcr.progress_helper = 1;
    atomic_store(&mpcr.chan->helper_waits, 1);
    pthread_attr_t attr;
    pthread_t helper;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024); /* tasks run on stacks of their own */
    if (pthread_create(&helper, &attr, helper_main, NULL) == 0)
        pthread_setname_np(helper, "mpcr-progress");
    /* else no helper: MPI calls advance the tasks, as without one */
    pthread_attr_destroy(&attr);
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
