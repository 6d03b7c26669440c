/* Posting without waiting (issue 14, point 2; docs/pt2pt.md, "Posting
 * without waiting").
 *
 * Where rank and proxy share a core, every call that waits for the proxy
 * costs a hand-off between two processes (10-20 us on the machines we
 * measured), whatever it does. A non-blocking send or receive need not
 * wait: MPI_Isend, MPI_Irecv (and their kin) and the sends and receives of
 * MPI_Start(all) stage their data as before, but their start at the proxy
 * is written into a queue, an IBATCH call's operations in the staging
 * area, and the call returns at once. The queue reaches the proxy:
 *
 * - carried by the next call to the proxy, whatever it is (runtime.h,
 *   mpcr_call_begin: the call line's pre_count and pre_offset; the proxy
 *   starts the posts before it serves the call, and mpcr_call_finish gives
 *   them their tokens: mpcr_posts_settle_carried), so the proxy sees every
 *   operation in the program's order and MPI's matching order holds;
 * - as one IBATCH at the entry of a call that reads requests without
 *   naming them to the proxy at once (threads.h, MPCR_SERIALIZED_CALL: the
 *   functions without the `carries` flag of src/lib/api), when the queue is
 *   full, and by the progress helper (progress.c) when the program has made
 *   no MPI call for a tick or two (POSTS_TICK_US there): MPI's progress rule
 *   wants a started send to reach a receiver that waits for it even if the
 *   sender computes for an hour.
 *
 * A queued request is active with token 0, `queued` set (its place + 1),
 * and listed here. Only the Wait and Test functions meet it so: they name
 * it by its place (mpcr_request_token) in the call that carries the queue,
 * and the proxy puts its token there (channel.h: MPCR_TOKEN_CARRIED).
 * MPI_Request_free would make it an orphan, whose test skips it until it
 * has its token. MPI_Startall queues its requests whatever the thread level
 * (mpcr_posts_batch_begin/end) and hands them over at its end where the
 * queue may not wait. Errors the proxy reports for a queued post (none of
 * the arguments can be wrong: the entry points checked them) complete its
 * request with that error, reported by the call that completes it, as MPI
 * allows for non-blocking operations. The queue is program memory and the
 * operations are in the staging area, both in the checkpoint image: a
 * checkpoint that finds posts queued keeps them there (they are not sent,
 * so the drain does not count them) and the restarted program hands them to
 * its new proxy like any queue; a call that carried posts and is served
 * again after a checkpoint starts none twice (each is marked `done`).
 *
 * Queuing is used below MPI_THREAD_MULTIPLE only, in the program's
 * outermost call, and only where the progress helper runs; MPCR_POST_QUEUE=0
 * turns it off (every post then waits for its token, as before). */
#include "channel.h"
#include "comm/comm.h"
#include "pt2pt/p2p.h"
#include "pt2pt/request.h"
#include "runtime.h"
#include "staging.h"
#include "threads.h"

#include <stdlib.h>
#include <string.h>

unsigned mpcr_posts_queued, mpcr_posts_carried; /* runtime.h */
static struct mpcr_request *queued_requests[MPCR_BATCH_MAX];
static uint64_t ops_offset; /* the IBATCH operations, in the staging area, while any is queued */
static uint32_t generation; /* counts the queue's starts from empty (mpcr_posts_overdue) */
static uint32_t generation_seen;
static unsigned batching; /* inside mpcr_posts_batch_begin/end */

static int wanted(void)
{
    static int w = -1;
    if (w < 0) {
        const char *v = getenv("MPCR_POST_QUEUE");
        w = !v || strcmp(v, "0") != 0;
    }
    return w;
}

/* The queue may wait past this call: someone hands it over later. */
static int may_wait(void)
{
    return wanted() && !mpcr_threads_shared() && mpcr_lock_depth == 1 && mpcr_progress_ready();
}

int mpcr_posts_deferrable(void)
{
    return batching || may_wait();
}

void mpcr_posts_batch_begin(void)
{
    batching++;
}

void mpcr_posts_batch_end(void)
{
    if (!--batching && !may_wait()) mpcr_posts_flush();
}

uint32_t mpcr_posts_generation(void)
{
    return __atomic_load_n(&generation, __ATOMIC_RELAXED);
}

int mpcr_ibatch(uint64_t off, unsigned n)
{
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_IBATCH);
    call->offset = off;
    call->peer = (int32_t)n;
    return mpcr_call_finish()->rc; /* a bad operation: none was started */
}

int mpcr_post_enqueue(struct mpcr_request *q, enum mpcr_op op, int peer, int tag, uint64_t data,
                      uint64_t bytes)
{
    if (mpcr_posts_queued == MPCR_BATCH_MAX) mpcr_posts_flush();
    if (!mpcr_posts_queued) {
        /* the operations' room now, so that a flush never allocates (and
         * never moves the staging area under a caller: runtime.h) */
        int err = mpcr_staging_alloc(MPCR_BATCH_MAX * sizeof(struct mpcr_batch_op), &ops_offset);
        if (err) return err;
        __atomic_store_n(&generation, generation + 1, __ATOMIC_RELAXED);
    }
    unsigned i = mpcr_posts_queued;
    struct mpcr_batch_op *o = mpcr_staging_ptr(ops_offset + i * sizeof *o);
    *o = (struct mpcr_batch_op){.op = op == MPCR_OP_IRECV    ? MPCR_OP_RECV
                                      : op == MPCR_OP_ISSEND ? MPCR_OP_SSEND
                                                             : MPCR_OP_SEND,
                                .comm = q->comm->vid | q->ctx,
                                .peer = mpcr_comm_peer_out(q->comm, peer),
                                .tag = tag,
                                .offset = data,
                                .bytes = bytes};
    q->token = 0, q->offset = data, q->capacity = bytes, q->has_staging = 1, q->queued = (int)i + 1;
    queued_requests[i] = q;
    /* seq_cst: the progress helper reads it without the lock (progress.c) */
    __atomic_store_n(&mpcr_posts_queued, i + 1, __ATOMIC_SEQ_CST);
    if (!i) mpcr_progress_posts_started();
    return MPI_SUCCESS;
}

/* The n posts handed over have been answered (err: the call's own error,
 * none started): each request gets its token, or completes here with the
 * error that kept it from starting. */
static void settle(unsigned n, int err)
{
    const struct mpcr_batch_op *ops = mpcr_staging_ptr(ops_offset);
    for (unsigned i = 0; i < n; i++) {
        struct mpcr_request *q = queued_requests[i];
        int rc = err ? err : ops[i].rc ? ops[i].rc : !ops[i].token ? MPI_ERR_INTERN : MPI_SUCCESS;
        q->queued = 0;
        if (rc) {
            mpcr_staging_free(q->offset);
            q->has_staging = 0;
            q->rc = rc;
            mpcr_status_set(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
        } else {
            q->token = ops[i].token;
        }
    }
    mpcr_staging_free(ops_offset);
}

void mpcr_posts_flush_queued(void)
{
    /* emptied first: the IBATCH call below must not carry them too
     * (mpcr_call_begin); nothing is queued meanwhile (the library is held) */
    unsigned n = mpcr_posts_queued;
    __atomic_store_n(&mpcr_posts_queued, 0, __ATOMIC_SEQ_CST);
    settle(n, mpcr_ibatch(ops_offset, n));
}

void mpcr_posts_attach(struct mpcr_call *c)
{
    c->pre_count = mpcr_posts_carried = mpcr_posts_queued;
    c->pre_offset = ops_offset;
    __atomic_store_n(&mpcr_posts_queued, 0, __ATOMIC_SEQ_CST);
}

void mpcr_posts_settle_carried(void)
{
    unsigned n = mpcr_posts_carried;
    mpcr_posts_carried = 0;
    /* a started post is marked done; the proxy refused them all when the
     * first is not (an operation it found bad: the call's error says why) */
    const struct mpcr_batch_op *ops = mpcr_staging_ptr(ops_offset);
    int err = ops[0].done ? MPI_SUCCESS : mpcr.chan->reply.rc ? mpcr.chan->reply.rc : MPI_ERR_INTERN;
    mpcr.draft.pre_count = 0; /* the call may be published again (a `pending` answer) */
    settle(n, err);
}

int mpcr_posts_overdue(void)
{
    int overdue = mpcr_posts_queued && generation == generation_seen;
    generation_seen = generation;
    return overdue;
}
