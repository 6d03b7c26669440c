/* The library's state and its calls to the proxy: what every part of the
 * library that talks to the proxy shares (call.c, post_queue.c,
 * progress.c, poll_pace.c, restart.c, init.c).
 *
 * Everything here lives in the application's memory, so it is part of the
 * application's checkpoint image (DESIGN section 2); the proxy holds nothing
 * that must survive. Names: MPI_/PMPI_ are the public ABI, mpcr_ internal. */
#ifndef MPCR_RUNTIME_H
#define MPCR_RUNTIME_H

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "channel.h"

struct mpcr_lib {
    /* initialized: the library is connected to its proxy (by MPI_Init or
     * the first MPI_Session_init); finalized: it has ended that connection
     * (the proxy's MPI is finalized), after which no call reaches the proxy. */
    int initialized, finalized;
    int world;    /* the world model: MPCR_WORLD_NONE, _ON (MPI_Init), _ENDED (MPI_Finalize) */
    int sessions; /* sessions open (src/lib/session) */
    int thread_level;
    /* 1 once the progress helper runs (progress.c): from then on every
     * call holds the library's lock, at every thread level (threads.h). */
    int progress_helper;
    pthread_t main_thread;
    int rank, size, tag_ub;
    pid_t proxy_pid;
    struct mpcr_chan *chan; /* its mapping */
    uint64_t staging_size;  /* bytes of staging area mapped after the control page */
    uint64_t staging_growing; /* size asked by a GROW not yet followed by the mremap, or 0 (staging.c) */
    uint32_t seq;           /* last call published */
    /* The call being written (mpcr_call_begin .. mpcr_call_finish), copied
     * into the channel's call line in one burst when it is published: the
     * proxy polls that line, and each field written there one at a time
     * would pull the line back and forth between the two cores. */
    struct mpcr_call draft;
    char processor_name[MPI_MAX_PROCESSOR_NAME];
    char proxy_version[256];
};
extern struct mpcr_lib mpcr;

enum { MPCR_WORLD_NONE, MPCR_WORLD_ON, MPCR_WORLD_ENDED };

/* Connects to the proxy unless connected (MPI_Init_thread, MPI_Session_init;
 * init.c) and raises the library's thread level to thread_level. 0, or an
 * error class. */
int mpcr_start(int thread_level);
/* Ends the connection: the proxy finalizes its MPI (MPI_Finalize, or the
 * last MPI_Session_finalize after it, or the program's exit outside the
 * world model). 0, or an error class. */
int mpcr_stop(void);

/* The proxy is our parent; the kernel sends this signal when it dies. */
#define MPCR_PROXY_DEATH_SIGNAL (SIGRTMAX - 1)

struct mpcr_request;

/* Hooks the checkpoint engine into this library (restart.c). */
void mpcr_checkpoint_setup(void);

/* ---- calls to the proxy (call.c) ---- */

/* ---- posting without waiting (post_queue.c) ---- */
extern unsigned mpcr_posts_queued; /* posts in the queue */
extern unsigned mpcr_posts_carried; /* posts the call being made carries */
void mpcr_posts_flush_queued(void);
struct mpcr_call;
void mpcr_posts_attach(struct mpcr_call *c); /* the queue goes with call c */
void mpcr_posts_settle_carried(void); /* c answered: the posts' tokens (mpcr_call_finish) */
/* Hands the queued posts to the proxy (one IBATCH call), if there are any.
 * Never allocates staging: pointers into the area stay valid. */
static inline void mpcr_posts_flush(void)
{
    if (__builtin_expect(mpcr_posts_queued != 0, 0)) mpcr_posts_flush_queued();
}
/* Whether a send or receive started now may be queued instead of posted:
 * below MULTIPLE, in the program's outermost call, the progress helper
 * running (started here if need be); or inside mpcr_posts_batch_begin/end. */
int mpcr_posts_deferrable(void);
/* Around starting several requests (MPI_Startall): they are queued, and the
 * queue is handed over at the end unless it may wait. */
void mpcr_posts_batch_begin(void);
void mpcr_posts_batch_end(void);
/* Queues the start of q (a send's or a receive's; op MPCR_OP_ISEND, ISSEND
 * or IRECV) with its data staged at [data, data + bytes): q is active, its
 * token 0 until the queue is handed over. */
int mpcr_post_enqueue(struct mpcr_request *q, enum mpcr_op op, int peer, int tag, uint64_t data,
                      uint64_t bytes);
/* One IBATCH call: the n operations at staging offset off started as
 * requests of the proxy (their tokens written back); the call's error class. */
int mpcr_ibatch(uint64_t off, unsigned n);
/* For the progress helper (progress.c): the queue's starts so far, and
 * whether the queue there now was there at its last turn already. */
uint32_t mpcr_posts_generation(void);
int mpcr_posts_overdue(void);
/* progress.c: whether the progress helper runs (started now if it may),
 * and the queue's start from empty, which wakes a helper asleep for good. */
int mpcr_progress_ready(void);
void mpcr_progress_posts_started(void);

/* Starts a call that has no place in the program's order of operations
 * (GROW, made from inside the staging allocator, which a hand-over of the
 * queue must not re-enter): returns the call's draft (mpcr.draft) with op
 * filled in, others stale. */
static inline struct mpcr_call *mpcr_call_begin_aside(enum mpcr_op op)
{
    struct mpcr_call *c = &mpcr.draft;
    c->op = op;
    c->pre_count = 0;
    return c;
}
/* Starts a call (as above) that carries the posts still queued: the proxy
 * starts them before it serves the call, so that it sees the program's
 * order, and the call's mpcr_call_finish gives them their tokens. */
static inline struct mpcr_call *mpcr_call_begin(enum mpcr_op op)
{
    struct mpcr_call *c = mpcr_call_begin_aside(op);
    if (__builtin_expect(mpcr_posts_queued != 0, 0)) mpcr_posts_attach(c);
    return c;
}
/* Publishes the call begun with mpcr_call_begin and waits for the reply. */
const struct mpcr_reply *mpcr_call_finish(void);
static inline const struct mpcr_reply *mpcr_call_finish_op(enum mpcr_op op)
{
    mpcr_call_begin(op);
    return mpcr_call_finish();
}
/* Ends the program when the proxy is gone (called from waits). */
_Noreturn void mpcr_proxy_lost(void);
/* Ends the whole job with status code because mpcr ends it (a function it
 * does not support, a fatal error), once the reason has been reported: the
 * proxy does not say "the program called MPI_Abort" (init.c). */
_Noreturn void mpcr_end_job(int code);

/* ---- polls that keep finding nothing (poll_pace.c) ---- */
struct mpcr_poll_question {
    uint32_t op, comm; /* the call (MPCR_OP_IPROBE...), the communicator's vid */
    int32_t peer, tag;
};
/* Whether poll q may answer "nothing yet" without asking the proxy. */
int mpcr_poll_paced(const struct mpcr_poll_question *q);
/* The proxy answered poll q, asked at asked_ns (mpcr_now_ns): found or not. */
void mpcr_poll_answered(const struct mpcr_poll_question *q, int found, uint64_t asked_ns);

#endif
