/* Allocation in the channel's staging area, where message data waits for
 * the proxy. Offsets, not pointers: the area moves when it grows, and the
 * proxy maps it elsewhere. Few allocations are alive at once (one per
 * blocking call, one per pending non-blocking request), so a sorted array
 * with first fit is enough. The area grows when the proxy extends the memfd
 * (GROW) and the library then extends its own mapping; pages are allocated
 * only when touched. */
#include "channel.h"
#include "env/errors.h"
#include "runtime.h"
#include "staging.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ALIGN 64u

struct extent {
    uint64_t offset, length;
};
static struct extent *live; /* sorted by offset */
static size_t nlive, caplive;

/* Fault injection for tests (MPCR_FAULT=grow-gap, read at the first GROW):
 * the first GROW stops between the proxy's reply and the mremap, and
 * waits there until a checkpoint of that instant has been restarted (the
 * restarted hook sets the new proxy's pid), so that a test can land a
 * checkpoint in that gap. */
static void grow_gap_fault(void)
{
    static int armed = -1;
    if (armed < 0) {
        const char *f = getenv("MPCR_FAULT");
        armed = f && !strcmp(f, "grow-gap");
    }
    if (!armed) return;
    armed = 0; /* once: the image remembers it, so a restarted process does not stop again */
    char msg[160];
    int n = snprintf(msg, sizeof msg, "mpcr: fault grow-gap: process %d waits between GROW and mremap until restarted\n",
                     (int)getpid());
    if (write(2, msg, (size_t)n) < 0) { /* the test waits for it in vain and says so */
    }
    pid_t proxy = mpcr.proxy_pid;
    while (__atomic_load_n(&mpcr.proxy_pid, __ATOMIC_ACQUIRE) == proxy)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
}

/* The mremap below may move the channel, and a thread that has not the
 * library's lock (which the growing thread holds) may be touching it, to say
 * that it wants the lock (threads.c): a pointer it read before the move
 * faults after it (MPICH's threads/pt2pt/mt_sendrecv_huge with checkpoints).
 * Such a thread is counted in chan_users meanwhile, and a move waits until
 * none is. Plain counters, not a pthread_rwlock: a checkpoint may stop any
 * of these threads anywhere, and glibc's rwlock records its writer's thread
 * id, which a restart changes. A thread stopped while counted is restored
 * counted and goes on; the mover waits with the engine's signal open, so a
 * checkpoint can stop it there too. */
static _Atomic unsigned chan_users;
static _Atomic int chan_moving;

void mpcr_chan_use_begin(void)
{
    for (;;) { /* seq_cst: the count and the flag are a Dekker pair with move_begin */
        atomic_fetch_add(&chan_users, 1);
        if (!atomic_load(&chan_moving)) return;
        atomic_fetch_sub(&chan_users, 1);
        while (atomic_load(&chan_moving))
            sched_yield();
    }
}

void mpcr_chan_use_end(void)
{
    atomic_fetch_sub(&chan_users, 1);
}

static void move_begin(void)
{
    atomic_store(&chan_moving, 1);
    while (atomic_load(&chan_users))
        sched_yield();
}

/* The proxy extends the memfd, then this side its mapping. A checkpoint may
 * land between the two: staging_growing tells the restarted hook how large
 * the new channel must be for the mremap that follows (restart.c). The
 * mremap and the bookkeeping after it are one step for a checkpoint
 * (SIGRTMAX, the engine's signal, blocked): an image never has the mapping
 * moved or grown but mpcr.chan and staging_size not yet saying so. */
static int grow(uint64_t need)
{
    uint64_t size = mpcr.staging_size ? mpcr.staging_size : 1u << 20;
    while (size < need)
        size *= 2;
    size_t old_total = MPCR_CHAN_CONTROL + mpcr.staging_size, total = MPCR_CHAN_CONTROL + size;
    __atomic_store_n(&mpcr.staging_growing, size, __ATOMIC_RELEASE);
    struct mpcr_call *call = mpcr_call_begin_aside(MPCR_OP_GROW); /* runtime.h: queue stays */
    call->bytes = size;
    int err = mpcr_call_finish()->rc;
    if (err) {
        __atomic_store_n(&mpcr.staging_growing, 0, __ATOMIC_RELEASE);
        return err;
    }
    grow_gap_fault();
    move_begin(); /* before SIGRTMAX is blocked: it may wait */
    sigset_t ckpt, old;
    sigemptyset(&ckpt);
    sigaddset(&ckpt, SIGRTMAX);
    pthread_sigmask(SIG_BLOCK, &ckpt, &old);
    /* the system call itself: mremap is the program's (memory_calls.c) */
    void *p = (void *)syscall(SYS_mremap, mpcr.chan, old_total, total, MREMAP_MAYMOVE);
    if (p != MAP_FAILED) {
        mpcr.chan = p;
        mpcr.staging_size = size;
    }
    __atomic_store_n(&mpcr.staging_growing, 0, __ATOMIC_RELEASE);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    atomic_store(&chan_moving, 0);
    return p == MAP_FAILED ? MPI_ERR_NO_MEM : MPI_SUCCESS;
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

void mpcr_staging_free_area(uint64_t offset)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i].offset == offset) {
            if (live[i].length >= RELEASE_ABOVE) /* frees the shared pages themselves */
                syscall(SYS_madvise, mpcr_staging_ptr(offset), live[i].length, MADV_REMOVE);
            memmove(&live[i], &live[i + 1], (nlive - i - 1) * sizeof *live);
            nlive--;
            return;
        }
    mpcr_fatal("internal error: freeing staging offset %llu that is not allocated",
               (unsigned long long)offset);
}
