/* Non-blocking requests: what a request needs to complete lives in its
 * object (handle.h); the proxy knows it by `token`. A request holds a
 * reference to its communicator, so that MPI_Comm_free with requests
 * pending frees the communicator only once they are done (MPI 4.0 6.4.3),
 * and to its datatype.
 *
 * A request the program frees while the proxy still has it pending
 * (MPI_Request_free of an active request; every buffered send) is an
 * orphan: it stays on a list, in the program's memory, and is completed
 * by later MPI calls (mpcr_orphans_poll): a receive's data reaches its
 * buffer, a send's staging is freed. Across a checkpoint it is an
 * ordinary pending request of the proxy (docs/pt2pt.md). */
#include "api_gen.h"
#include "channel.h"
#include "coll/coll_task.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "p2p.h"
#include "request.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "runtime/threads.h"

#include <stdlib.h>
#include <string.h>

static struct mpcr_request *orphans_list;

static void destroy(void *obj)
{
    struct mpcr_request *q = obj;
    if (q->has_staging) mpcr_staging_free(q->offset);
    if (q->type) mpcr_type_unref((struct mpcr_type *)q->type);
    if (q->greq) mpcr_grequest_destroy(q);
    if (q->task) mpcr_coll_task_destroy(q);
    if (q->send_half) mpcr_obj_unref(q->send_half);
    free(q->ready);
    mpcr_comm_unref(q->comm); /* may free a communicator the program freed already */
}

struct mpcr_request *mpcr_request_new(struct mpcr_comm *c, MPI_Request *handle)
{
    struct mpcr_request *q = mpcr_obj_new(MPCR_KIND_REQUEST, sizeof *q, destroy);
    if (!q) return NULL;
    q->comm = c;
    mpcr_comm_ref(c);
    *handle = (MPI_Request)mpcr_obj_handle(q);
    return q;
}

struct mpcr_request *mpcr_request_get(MPI_Request handle)
{
    return mpcr_obj_get(MPCR_KIND_REQUEST, (uint32_t)handle);
}

void mpcr_request_free(MPI_Request *handle, struct mpcr_request *q)
{
    if (q->token || q->queued) { /* still pending (or queued) at the proxy: completed later, by itself */
        mpcr_obj_ref(q);
        q->next_orphan = orphans_list;
        orphans_list = q;
    }
    mpcr_obj_drop_handle(q);
    *handle = MPI_REQUEST_NULL;
}

/* Fault injection for tests (MPCR_FAULT=send-error): the first send that
 * the proxy reports complete fails with MPI_ERR_OTHER, the error a real
 * send may meet at completion (none can be provoked at will), so that a
 * test can follow where such an error goes (MPI_Isendrecv's send half). */
static int send_error_fault(void)
{
    static int armed = -1;
    if (armed < 0) {
        const char *f = getenv("MPCR_FAULT");
        armed = f && !strcmp(f, "send-error");
    }
    if (!armed) return MPI_SUCCESS;
    armed = 0;
    return MPI_ERR_OTHER;
}

void mpcr_request_settle(struct mpcr_request *q, const struct mpcr_reply *r)
{
    if (r && q->kind == MPCR_REQ_RECV) {
        q->rc = mpcr_finish_recv(q->comm, r, q->buf, q->capacity, q->offset, q->type, &q->status);
        if (q->ctx) q->status.MPI_TAG = q->tag; /* a partitioned one's tag, not its hidden one */
    } else if (r) {
        q->rc = r->rc || q->kind != MPCR_REQ_SEND ? r->rc : send_error_fault();
        mpcr_status_set(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    }
    if (q->has_staging) mpcr_staging_free(q->offset);
    q->has_staging = 0;
    q->token = 0;
}

void mpcr_request_status_out(const struct mpcr_request *q, MPI_Status *status)
{
    if (status == MPI_STATUS_IGNORE) return;
    if (q->kind == MPCR_REQ_SEND) { /* MPICH sets only the cancelled bit of a send's status */
        status->count_hi_and_cancelled =
            (int)(((uint32_t)status->count_hi_and_cancelled & ~1u) |
                  ((uint32_t)q->status.count_hi_and_cancelled & 1u));
        return;
    }
    int keep = status->MPI_ERROR; /* single completions leave it alone (status.c) */
    *status = q->status;
    status->MPI_ERROR = keep;
}

/* ---- starting a send or a receive at the proxy ---- */

/* Bytes of `count` elements of t; MPI_ERR_COUNT when that overflows. */
int mpcr_bytes_of(MPI_Count count, const struct mpcr_type *t, uint64_t *bytes)
{
    return __builtin_mul_overflow((uint64_t)count, t->size, bytes) ? MPI_ERR_COUNT : MPI_SUCCESS;
}

/* A request completed here with status (source, tag, 0 bytes). */
static void done_here(struct mpcr_request *q, int source, int tag)
{
    q->token = 0, q->rc = MPI_SUCCESS;
    mpcr_status_set(&q->status, source, tag, 0);
}

/* Stages q's data: count elements of t, a send's packed from buf (which
 * may be MPI_BOTTOM), a receive's room; q->kind says which. A large
 * contiguous buffer may be a shared one instead (shared_buffers.c), except
 * a buffered send's, which the program may reuse as soon as it returns. */
static int stage(struct mpcr_request *q, const void *buf, MPI_Count count,
                 const struct mpcr_type *t, uint64_t *off, uint64_t *bytes)
{
    int err = mpcr_bytes_of(count, t, bytes);
    const void *flat = err || q->copies_data ? NULL : mpcr_type_flat_data(q->kind == MPCR_REQ_SEND ? buf : q->buf, count, t);
    if (flat && (q->kind == MPCR_REQ_SEND ? mpcr_share_send(flat, *bytes, off)
                                          : mpcr_share_recv((void *)flat, *bytes, off)))
        return MPI_SUCCESS;
    if (!err) err = mpcr_staging_alloc(*bytes, off);
    if (!err && q->kind == MPCR_REQ_SEND) mpcr_pack(mpcr_staging_ptr(*off), buf, count, t);
    return err;
}

/* Starts op at the proxy on q (staged as above), or queues its start
 * (post_queue.c); a peer MPI_PROC_NULL completes at once. */
static int start(struct mpcr_request *q, enum mpcr_op op, const void *buf, MPI_Count count,
                 const struct mpcr_type *t, int peer, int tag)
{
    q->inactive = 0;
    if (peer == MPI_PROC_NULL) {
        done_here(q, MPI_PROC_NULL, MPI_ANY_TAG);
        return MPI_SUCCESS;
    }
    uint64_t off, bytes;
    int err = stage(q, buf, count, t, &off, &bytes);
    if (err) return err;
    q->rc = MPI_SUCCESS;
    if (mpcr_posts_deferrable()) {
        err = mpcr_post_enqueue(q, op, peer, tag, off, bytes);
        if (err) mpcr_staging_free(off);
        return err;
    }
    const struct mpcr_reply *r =
        mpcr_p2p_call(op, q->comm->vid | q->ctx, mpcr_comm_peer_out(q->comm, peer), tag, off, bytes);
    if (r->rc) {
        mpcr_staging_free(off);
        return r->rc;
    }
    q->token = r->token, q->offset = off, q->has_staging = 1, q->capacity = bytes;
    return MPI_SUCCESS;
}

int mpcr_request_start_send(struct mpcr_request *q, enum mpcr_op op, const void *buf,
                            MPI_Count count, const struct mpcr_type *t, int dest, int tag)
{
    q->kind = MPCR_REQ_SEND;
    return start(q, op, buf, count, t, dest, tag);
}

int mpcr_request_start_recv(struct mpcr_request *q, void *buf, MPI_Count count,
                            const struct mpcr_type *t, int source, int tag)
{
    q->kind = MPCR_REQ_RECV;
    q->buf = buf;
    if (!q->type) {
        q->type = t;
        mpcr_type_ref((struct mpcr_type *)t);
    }
    return start(q, MPCR_OP_IRECV, NULL, count, t, source, tag);
}

/* ---- orphans ---- */

/* Which orphans complete_orphans() waits for; the others it only tests. */
enum orphans_wait { WAIT_NONE, WAIT_BUFFERED, WAIT_ALL };

/* Orphan sends only hold staging room (their data is there), so a test
 * that would find nothing else to do waits until this many have gathered:
 * a program that frees each MPI_Isend's request at once would otherwise pay
 * a second hand-off to the proxy in every later MPI_Recv or MPI_Wait.
 * Orphan receives (their data must reach the buffer: docs/pt2pt.md) and
 * buffered sends (their room in the attached buffer) are tested at once. */
#define ORPHAN_SENDS_TESTED_AT 32

static void complete_orphans_once(enum orphans_wait wait)
{
    if (mpcr_coll_async()) mpcr_coll_progress(0, NULL, NULL, 0); /* every call lets them advance */
    uint32_t n = 0, buffered = 0, receives = 0;
    for (struct mpcr_request *q = orphans_list; q; q = q->next_orphan)
        n++, buffered += q->bsend_charge > 0, receives += q->kind == MPCR_REQ_RECV;
    if (!n || (wait == WAIT_NONE && !buffered && !receives && n < ORPHAN_SENDS_TESTED_AT)) return;
    uint64_t off,
        bytes = mpcr_completion_offset(0, n) + (uint64_t)n * sizeof(struct mpcr_completion);
    if (mpcr_staging_alloc(bytes, &off)) return; /* tried again at the next call */
    uint32_t *tokens = mpcr_staging_ptr(off), i = 0;
    for (struct mpcr_request *q = orphans_list; q; q = q->next_orphan)
        tokens[i++] = wait != WAIT_BUFFERED || q->bsend_charge ? q->token : 0;
    enum mpcr_complete_mode mode =
        wait == WAIT_ALL || (wait == WAIT_BUFFERED && buffered) ? MPCR_WAITALL : MPCR_TESTSOME;
    int err = mpcr_complete_call(mode, n, off, 0)->rc;
    const struct mpcr_completion *res = mpcr_staging_ptr(mpcr_completion_offset(off, n));
    struct mpcr_request **link = &orphans_list;
    for (i = 0; !err && i < n; i++) {
        struct mpcr_request *q = *link;
        if (!res[i].done) {
            link = &q->next_orphan;
            continue;
        }
        struct mpcr_reply r = {
            .rc = res[i].rc, .source = res[i].source, .tag = res[i].tag, .bytes = res[i].bytes};
        mpcr_request_settle(q, &r); /* an orphan's error has nobody to go to */
        mpcr_bsend_release(q->bsend_charge);
        *link = q->next_orphan;
        mpcr_obj_unref(q);
    }
    mpcr_staging_free(off);
}

/* How many orphans a wait of complete_orphans() is for. */
static unsigned orphans_waited_for(enum orphans_wait wait)
{
    unsigned n = 0;
    for (struct mpcr_request *q = orphans_list; q; q = q->next_orphan)
        n += wait == WAIT_ALL || (wait == WAIT_BUFFERED && q->bsend_charge > 0);
    return n;
}

static void complete_orphans(enum orphans_wait wait)
{
    if (wait == WAIT_NONE || !mpcr_threads_shared()) {
        complete_orphans_once(wait);
        return;
    }
    /* MPI_THREAD_MULTIPLE: tests, the lock let go between them (threads.h) */
    for (;;) {
        complete_orphans_once(WAIT_NONE);
        if (!orphans_waited_for(wait)) return;
        mpcr_lock_yield();
    }
}

/* Takes orphan q, which has completed, off the list. */
static void orphan_done(struct mpcr_request *q)
{
    struct mpcr_request **link = &orphans_list;
    while (*link && *link != q)
        link = &(*link)->next_orphan;
    if (!*link) return;
    *link = q->next_orphan;
    mpcr_bsend_release(q->bsend_charge);
    mpcr_obj_unref(q);
}

void mpcr_request_join_send_half(struct mpcr_request *q, int wait)
{
    struct mpcr_request *s = q->send_half;
    if (!s) return;
    if (s->token) {
        /* a blocking WAIT would stall the collectives the library runs (coll_task.h) */
        enum mpcr_op op = wait && !mpcr_coll_async() ? MPCR_OP_WAIT : MPCR_OP_TEST;
        mpcr_call_begin(op)->token = s->token;
        const struct mpcr_reply *r = mpcr_call_finish();
        if (op == MPCR_OP_TEST && !r->flag) return; /* an orphan to the end */
        mpcr_request_settle(s, r);
        orphan_done(s);
    }
    if (!q->rc) q->rc = s->rc;
    q->send_half = NULL;
    mpcr_obj_unref(s);
}

void mpcr_orphans_poll(int wait_buffered)
{
    complete_orphans(wait_buffered ? WAIT_BUFFERED : WAIT_NONE);
}

void mpcr_orphans_finish(void)
{
    complete_orphans(WAIT_ALL);
}

/* ---- MPI_Request_free, MPI_Request_get_status, MPI_Cancel ---- */

int mpcr_impl_Request_free(MPI_Request *request)
{
    if (!request || *request == MPI_REQUEST_NULL) return MPI_ERR_REQUEST;
    struct mpcr_request *q = mpcr_request_get(*request);
    if (!q) return MPI_ERR_REQUEST;
    if (q->greq && !q->inactive) return mpcr_grequest_free(request, q);
    mpcr_request_free(request, q);
    return MPI_SUCCESS;
}

/* Completion without freeing: a request the proxy reports complete is
 * settled here (its data unpacked), so that the Wait or Test that follows
 * finds it completed. */
int mpcr_impl_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    *flag = 1;
    struct mpcr_request *q = request == MPI_REQUEST_NULL ? NULL : mpcr_request_get(request);
    if (request != MPI_REQUEST_NULL && !q) return MPI_ERR_REQUEST;
    if (q && q->part_started) { /* a partitioned send waiting for MPI_Pready: not complete */
        *flag = 0;
        return MPI_SUCCESS;
    }
    if (!q || q->inactive) {
        mpcr_status_set_empty(status);
        return MPI_SUCCESS;
    }
    if (q->greq) { /* its status is query_fn's (MPI 4.0 13.2) */
        *flag = mpcr_grequest_done(q);
        if (*flag) mpcr_grequest_finish(q);
    } else if (q->task) {
        int err = mpcr_coll_progress(0, NULL, NULL, 0);
        if (err) return err;
        *flag = mpcr_coll_task_done(q);
    } else if (q->token) { /* a polling loop asks at a pace, as MPI_Test's (poll_pace.c) */
        struct mpcr_poll_question question = {MPCR_OP_TEST, q->token, (int32_t)request, 0};
        int paced = !mpcr_coll_in_flight(); /* else each call advances the collectives */
        if (paced && mpcr_poll_paced(&question)) return *flag = 0, MPI_SUCCESS;
        uint64_t asked_ns = paced ? mpcr_now_ns() : 0;
        struct mpcr_call *call = mpcr_call_begin(MPCR_OP_TEST);
        call->token = q->token;
        const struct mpcr_reply *r = mpcr_call_finish();
        *flag = r->flag;
        if (paced && !r->rc) mpcr_poll_answered(&question, r->flag, asked_ns);
        if (r->flag) mpcr_request_settle(q, r);
    }
    if (*flag) {
        mpcr_request_join_send_half(q, 0);
        mpcr_request_status_out(q, status);
    }
    mpcr_orphans_poll(0);
    return *flag ? q->rc : MPI_SUCCESS;
}

/* A receive not yet matched is cancelled (the proxy cancels the real one);
 * a matched receive and every send complete as if not cancelled, as with
 * MPICH, whose sends are never cancelled. */
int mpcr_impl_Cancel(MPI_Request *request)
{
    struct mpcr_request *q = *request == MPI_REQUEST_NULL ? NULL : mpcr_request_get(*request);
    if (!q) return MPI_ERR_REQUEST;
    if (q->greq) return mpcr_grequest_cancel(q);
    if (q->kind != MPCR_REQ_RECV || !q->token) return MPI_SUCCESS;
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_CANCEL);
    call->token = q->token;
    const struct mpcr_reply *r = mpcr_call_finish();
    if (r->rc || !r->flag) return r->rc;
    mpcr_request_settle(q, NULL);
    q->rc = MPI_SUCCESS;
    mpcr_status_set(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    q->status.count_hi_and_cancelled |= 1;
    return MPI_SUCCESS;
}
