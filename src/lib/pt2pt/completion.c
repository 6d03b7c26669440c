/* Completion of non-blocking requests: MPI_Wait, MPI_Test and their
 * several-request forms. The helpers apply no error handler; each MPI
 * function applies, once, the handler of the communicator of the request
 * that failed (these are `ownerrors` functions in src/lib/api). A request's
 * communicator may go with the request (freed by the program meanwhile),
 * so what is kept is its error handler and handle (struct raise), not the
 * communicator. */
#include "api_gen.h"
#include "channel.h"
#include "coll/coll_task.h"
#include "comm/comm.h"
#include "env/errors.h"
#include "hash.h"
#include "p2p.h"
#include "request.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "runtime/threads.h"

#include <stdlib.h>

#include <sched.h>

/* Where the error of a completion is raised: the failed request's
 * communicator's handler, and its handle, which a user handler is given. */
struct raise {
    MPI_Errhandler eh;
    MPI_Comm comm;
};
#define RAISE_ON_WORLD ((struct raise){mpcr_world_errhandler(), MPI_COMM_WORLD})

static void empty_status(MPI_Status *status)
{
    mpcr_status_set_empty(status);
}

/* Whether handle h names no active request: MPI_REQUEST_NULL, or a
 * persistent request not started (MPI 4.0 3.7.3: both complete at once
 * with an empty status, and count as inactive in the several forms). */
static int inactive(MPI_Request h)
{
    if (h == MPI_REQUEST_NULL) return 1;
    struct mpcr_request *q = mpcr_request_get(h);
    return q && q->inactive;
}

/* Whether q has completed here already (nothing pending at the proxy): a
 * receive from MPI_PROC_NULL, a cancelled one, one whose completion
 * MPI_Request_get_status saw or a wait over collectives settled, a
 * completed generalized request, a collective whose schedule ended. */
static int completed_here(const struct mpcr_request *q)
{
    return !q->token && !q->queued && !q->inactive &&
           (!q->greq || mpcr_grequest_done((struct mpcr_request *)q)) &&
           (!q->task || mpcr_coll_task_done(q));
}

/* Whether q is active and can only complete in the library: a generalized
 * request the program has not completed, a collective still running. */
static int pending_here(const struct mpcr_request *q)
{
    return !q->inactive && ((q->greq && !mpcr_grequest_done((struct mpcr_request *)q)) ||
                            (q->task && !mpcr_coll_task_done(q)));
}

/* Finishes request q, whose completion the proxy reported in r (NULL when
 * it completed here): fills status, frees the request (a persistent one
 * becomes inactive). Returns the request's error class; *eh is the error
 * handler that applies to it. wait: the call waits for q (MPI_Wait,
 * MPI_Waitall), so it waits for an MPI_Isendrecv's send half too. */
static int finish(MPI_Request *request, struct mpcr_request *q, const struct mpcr_reply *r,
                  MPI_Status *status, struct raise *eh, int wait)
{
    if (q->greq)
        mpcr_grequest_finish(q);
    else if (r || q->token)
        mpcr_request_settle(q, r);
    mpcr_request_join_send_half(q, wait);
    mpcr_request_status_out(q, status);
    int err = q->rc;
    *eh = (struct raise){q->comm->errhandler, mpcr_comm_handle_of(q->comm)};
    if (q->persistent)
        q->inactive = 1;
    else if (q->greq)
        mpcr_grequest_free(request, q);
    else
        mpcr_request_free(request, q);
    return err;
}

/* complete_one while collectives run in the library (coll_task.h): a Wait
 * or Test lets them advance, and waits at the proxy for any of their
 * operations or q's own, so that a program waiting here for a peer that
 * waits for this rank's collective does not hang. */
static int complete_progressing(enum mpcr_op op, MPI_Request *request, struct mpcr_request *q,
                                int *flag, MPI_Status *status, struct raise *eh)
{
    uint32_t token = q->token;
    struct mpcr_completion res;
    for (;;) {
        if (q->task ? mpcr_coll_task_done(q) : !token) break;
        int err = mpcr_coll_progress(op == MPCR_OP_WAIT, &token, &res, 1);
        if (err) return err;
        if (op == MPCR_OP_TEST && (q->task ? !mpcr_coll_task_done(q) : token)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    int wait = op == MPCR_OP_WAIT;
    if (!q->token) return finish(request, q, NULL, status, eh, wait);
    struct mpcr_reply r = {.rc = res.rc, .source = res.source, .tag = res.tag, .bytes = res.bytes};
    return finish(request, q, &r, status, eh, wait);
}

/* Completes one request: MPCR_OP_WAIT waits for it, MPCR_OP_TEST only
 * looks (*flag says whether it completed). An inactive request completes
 * at once with an empty status. */
static int complete_one(enum mpcr_op op, MPI_Request *request, int *flag, MPI_Status *status,
                        struct raise *eh)
{
    *flag = 1;
    struct mpcr_request *q = *request == MPI_REQUEST_NULL ? NULL : mpcr_request_get(*request);
    if (q && q->part_started) { /* a partitioned send waiting for MPI_Pready (partitioned.c) */
        if (op == MPCR_OP_WAIT)
            mpcr_unsupported_feature("MPI_Wait on a partitioned send whose partitions are not all marked "
                                     "ready (MPI_Pready from another thread meanwhile)");
        *flag = 0; /* not complete: the program's MPI_Pready calls are still to come */
        return MPI_SUCCESS;
    }
    if (*request == MPI_REQUEST_NULL || (q && q->inactive)) { /* inactive() without a second look-up */
        empty_status(status);
        return MPI_SUCCESS;
    }
    if (!q) return MPI_ERR_REQUEST;
    if (q->greq) { /* completed by the program itself (MPI_Grequest_complete) */
        while (op == MPCR_OP_WAIT && !mpcr_grequest_done(q))
            mpcr_lock_yield(); /* another thread may be the one to complete it */
        if (!mpcr_grequest_done(q)) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    if (mpcr_coll_async()) mpcr_posts_flush(); /* its progress calls keep tokens across calls */
    if (q->task || (q->token && mpcr_coll_async()))
        return complete_progressing(op, request, q, flag, status, eh);
    if (!q->token && !q->queued) return finish(request, q, NULL, status, eh, op == MPCR_OP_WAIT);
    /* a Test loop asks the proxy at a pace (poll_pace.c) */
    struct mpcr_poll_question question = {MPCR_OP_TEST, q->token, (int32_t)*request, 0};
    int paced = op == MPCR_OP_TEST && q->token && !mpcr_posts_queued;
    if (paced && mpcr_poll_paced(&question)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    uint64_t asked_ns = paced ? mpcr_now_ns() : 0;
    struct mpcr_call *call = mpcr_call_begin(op); /* carries q's start if it is queued */
    call->token = mpcr_request_token(q);
    const struct mpcr_reply *r = mpcr_call_finish();
    if (paced && !r->rc) mpcr_poll_answered(&question, r->flag, asked_ns);
    if (op == MPCR_OP_TEST && !r->flag) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return finish(request, q, r, status, eh, op == MPCR_OP_WAIT);
}

int mpcr_impl_Wait(MPI_Request *request, MPI_Status *status)
{
    struct raise eh = RAISE_ON_WORLD;
    int flag, err = complete_one(MPCR_OP_WAIT, request, &flag, status, &eh);
    mpcr_orphans_poll(0);
    return mpcr_error_on(eh.eh, eh.comm, err, "MPI_Wait");
}

int mpcr_impl_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    struct raise eh = RAISE_ON_WORLD;
    int err = complete_one(MPCR_OP_TEST, request, flag, status, &eh);
    mpcr_orphans_poll(0);
    return mpcr_error_on(eh.eh, eh.comm, err, "MPI_Test");
}

/* MPI_Waitall: where one request fails, MPI returns MPI_ERR_IN_STATUS and
 * each status says how its request ended (MPI 4.0 section 3.7.5); without
 * statuses, the first error. */
/* ---- several requests through the proxy's COMPLETE (channel.h) ---- */

/* A request the proxy reported complete (and forgot) while the call that
 * asked cannot finish it yet: its data and status are kept in it, so that
 * it has completed here. */
static void settle_result(struct mpcr_request *q, const struct mpcr_completion *res)
{
    struct mpcr_reply r = {
        .rc = res->rc, .source = res->source, .tag = res->tag, .bytes = res->bytes};
    mpcr_request_settle(q, &r);
}

/* Finishes request i of a COMPLETE call from its result. */
static int finish_result(MPI_Request *request, const struct mpcr_completion *res,
                         MPI_Status *status, struct raise *eh, int wait)
{
    struct mpcr_reply r = {
        .rc = res->rc, .source = res->source, .tag = res->tag, .bytes = res->bytes};
    return finish(request, mpcr_request_get(*request), &r, status, eh, wait);
}

static MPI_Status *status_at(MPI_Status statuses[], int i, MPI_Status *ignored)
{
    return statuses == MPI_STATUSES_IGNORE ? ignored : &statuses[i];
}

/* The question a Testany/Testsome/Testall loop asks (poll_pace.c): its
 * mode, its count and, folded into one word, the requests' tokens. */
static struct mpcr_poll_question tests_question(enum mpcr_complete_mode mode, int count,
                                                MPI_Request reqs[])
{
    uint32_t h = MPCR_HASH32_INIT;
    for (int i = 0; i < count; i++) {
        struct mpcr_request *q = inactive(reqs[i]) ? NULL : mpcr_request_get(reqs[i]);
        uint32_t token = q ? q->token : 0;
        h = mpcr_hash32(h, &token, sizeof token);
    }
    return (struct mpcr_poll_question){MPCR_OP_COMPLETE, mode, count, (int32_t)h};
}

/* Waitany/Testany/Waitsome/Testsome/Testall/Waitall, each one round trip
 * to the proxy. Out: *result (the index for ANY, the count for SOME;
 * MPI_UNDEFINED when no request is active), *flag (TEST modes), indices[]
 * (SOME), statuses. Returns an error class: for SOME and ALL,
 * MPI_ERR_IN_STATUS when a request failed (ALL without statuses: the first
 * failure's class). */
static int several(enum mpcr_complete_mode mode, int count, MPI_Request reqs[], int *result,
                   int *flag, int indices[], MPI_Status statuses[], struct raise *c)
{
    int any = mode == MPCR_WAITANY || mode == MPCR_TESTANY, active = 0, local = -1;
    int all = mode == MPCR_TESTALL || mode == MPCR_WAITALL, waiting_here = 0;
    MPI_Status ignored;
    for (int i = 0; i < count; i++) {
        if (reqs[i] == MPI_REQUEST_NULL) continue;
        struct mpcr_request *q = mpcr_request_get(reqs[i]);
        if (!q) return MPI_ERR_REQUEST;
        if (q->part_started) /* a partitioned send waiting for MPI_Pready (partitioned.c) */
            mpcr_unsupported_feature("a completion of several requests (MPI_Waitall, MPI_Testany...) "
                                     "among which a partitioned send whose partitions are not all marked ready");
        if (q->inactive) continue;
        active++;
        if (completed_here(q) && local < 0) local = i;
        waiting_here += pending_here(q);
    }
    if (flag) *flag = 1;
    if (!active) { /* MPI 4.0 3.7.5: nothing to wait for */
        *result = MPI_UNDEFINED;
        if (any) empty_status(statuses == MPI_STATUSES_IGNORE ? &ignored : statuses);
        for (int i = 0; all && i < count; i++)
            empty_status(status_at(statuses, i, &ignored));
        return MPI_SUCCESS;
    }
    if (local >= 0 && !all) { /* a completed request: report it at once */
        struct mpcr_request *q = mpcr_request_get(reqs[local]);
        MPI_Status *st = any ? (statuses == MPI_STATUSES_IGNORE ? &ignored : statuses)
                             : status_at(statuses, 0, &ignored);
        int err = finish(&reqs[local], q, NULL, st, c, 0);
        if (!any) st->MPI_ERROR = err, err = err ? MPI_ERR_IN_STATUS : err;
        *result = any ? local : 1;
        if (!any) indices[0] = local;
        return err;
    }
    int tests = mode == MPCR_TESTANY || mode == MPCR_TESTSOME || mode == MPCR_TESTALL;
    int paced = tests && !waiting_here && !mpcr_coll_async() && !mpcr_posts_queued;
    struct mpcr_poll_question question = {0};
    if (paced && (question = tests_question(mode, count, reqs), mpcr_poll_paced(&question))) {
        *result = any ? MPI_UNDEFINED : 0;
        *flag = 0;
        return MPI_SUCCESS;
    }
    uint64_t asked_ns = paced ? mpcr_now_ns() : 0;
    uint64_t off, bytes = mpcr_completion_offset(0, (uint32_t)count) +
                          (uint64_t)count * sizeof(struct mpcr_completion);
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) return err;
    uint32_t *tokens = mpcr_staging_ptr(off);
    for (int i = 0; i < count; i++) { /* the call carries the starts still queued */
        struct mpcr_request *q = inactive(reqs[i]) ? NULL : mpcr_request_get(reqs[i]);
        tokens[i] = q ? mpcr_request_token(q) : 0;
    }
    const struct mpcr_reply *r = mpcr_complete_call(mode, (uint32_t)count, off, 0);
    err = r->rc;
    int value = r->value, all_done = r->flag && !waiting_here;
    const struct mpcr_completion *res =
        mpcr_staging_ptr(mpcr_completion_offset(off, (uint32_t)count));
    if (!err && any) {
        *result = value >= 0 ? value : MPI_UNDEFINED;
        if (flag) *flag = value >= 0;
        if (value >= 0)
            err = finish_result(&reqs[value], &res[value],
                                statuses == MPI_STATUSES_IGNORE ? &ignored : statuses, c, 0);
    } else if (!err && all) {
        if (flag) *flag = all_done;
        for (int i = 0; !all_done && i < count; i++) /* the proxy's are done, not the library's: */
            if (res[i].done) settle_result(mpcr_request_get(reqs[i]), &res[i]); /* kept here */
        for (int i = 0; all_done && i < count; i++) {
            MPI_Status *st = status_at(statuses, i, &ignored);
            struct raise ci = *c;
            int e = inactive(reqs[i]) ? (empty_status(st), MPI_SUCCESS)
                    : res[i].done ? finish_result(&reqs[i], &res[i], st, &ci, mode == MPCR_WAITALL)
                                  : finish(&reqs[i], mpcr_request_get(reqs[i]), NULL, st, &ci,
                                           mode == MPCR_WAITALL);
            st->MPI_ERROR = e;
            if (e && !err) err = statuses == MPI_STATUSES_IGNORE ? e : MPI_ERR_IN_STATUS, *c = ci;
        }
    } else if (!err) { /* SOME */
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (!res[i].done) continue;
            MPI_Status *st = status_at(statuses, n, &ignored);
            struct raise ci = *c;
            int e = finish_result(&reqs[i], &res[i], st, &ci, 0);
            st->MPI_ERROR = e;
            if (e && !err) err = MPI_ERR_IN_STATUS, *c = ci;
            indices[n++] = i;
        }
        *result = n;
        if (flag) *flag = n > 0;
    }
    if (paced && !err) mpcr_poll_answered(&question, *flag, asked_ns);
    mpcr_staging_free(off);
    return err;
}

const struct mpcr_reply *mpcr_complete_call(enum mpcr_complete_mode mode, uint32_t n, uint64_t off,
                                           int yielding)
{
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMPLETE);
    call->offset = off;
    call->peer = (int32_t)n;
    call->tag = mode;
    call->poll = (uint32_t)yielding;
    return mpcr_call_finish();
}

/* One step of progress of the collectives in flight (coll_task.h) and of
 * the point-to-point requests among reqs, each of which the proxy reports
 * complete is settled here (completed_here then finishes it); block: wait
 * at the proxy until something has completed. */
static int progress_with(int block, int count, MPI_Request reqs[])
{
    uint32_t *tokens = malloc(((size_t)count + 1) * sizeof *tokens);
    struct mpcr_completion *res = malloc(((size_t)count + 1) * sizeof *res);
    int err = tokens && res ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int i = 0; !err && i < count; i++) {
        struct mpcr_request *q = inactive(reqs[i]) ? NULL : mpcr_request_get(reqs[i]);
        tokens[i] = q ? q->token : 0;
    }
    if (!err) err = mpcr_coll_progress(block, tokens, res, (uint32_t)count);
    for (int i = 0; !err && i < count; i++) {
        struct mpcr_request *q = inactive(reqs[i]) ? NULL : mpcr_request_get(reqs[i]);
        if (q && q->token && !tokens[i]) settle_result(q, &res[i]);
    }
    free(tokens), free(res);
    return err;
}

/* A wait over requests that complete in the library (generalized ones the
 * program has not completed, collectives running) cannot wait at the proxy
 * alone: it tests until something completes, letting the collectives in
 * flight advance between the tests. */
static int several_waiting(enum mpcr_complete_mode mode, int count, MPI_Request reqs[], int *result,
                           int *flag, int indices[], MPI_Status statuses[], struct raise *c)
{
    int greqs = 0, here = 0, async = mpcr_coll_async();
    int waits = mode != MPCR_TESTANY && mode != MPCR_TESTSOME && mode != MPCR_TESTALL;
    for (int i = 0; i < count; i++) {
        struct mpcr_request *q = inactive(reqs[i]) ? NULL : mpcr_request_get(reqs[i]);
        here |= q && pending_here(q);
        greqs |= q && q->greq && pending_here(q);
    }
    int err;
    if (!async && !(waits && here)) {
        err = several(mode, count, reqs, result, flag, indices, statuses, c);
    } else {
        mpcr_posts_flush(); /* the tests below keep tokens across calls */
        enum mpcr_complete_mode test = mode == MPCR_WAITANY || mode == MPCR_TESTANY     ? MPCR_TESTANY
                                       : mode == MPCR_WAITSOME || mode == MPCR_TESTSOME ? MPCR_TESTSOME
                                                                                        : MPCR_TESTALL;
        if (async && !waits && (err = progress_with(0, count, reqs))) return err;
        for (int done = 0;;) {
            err = several(test, count, reqs, result, &done, indices, statuses, c);
            if (flag) *flag = done;
            if (done || err || !waits) break;
            if (!mpcr_coll_async())
                mpcr_lock_yield(); /* only generalized requests can complete */
            else if ((err = progress_with(!greqs, count, reqs)))
                break;
            else if (greqs)
                mpcr_lock_yield(); /* another thread may be the one to complete them */
        }
    }
    mpcr_orphans_poll(0);
    return err;
}

/* The count was checked (non-negative) by the entry point; MPI's int
 * count is what these functions take. */
#define SEVERAL(name, mode, count, reqs, result, flag, indices, statuses)                          \
    struct raise eh = RAISE_ON_WORLD;                                                              \
    int err = several_waiting(mode, (int)(count), reqs, result, flag, indices, statuses, &eh);     \
    return mpcr_error_on(eh.eh, eh.comm, err, name)

int mpcr_impl_Waitany(MPI_Count count, MPI_Request requests[], int *index, MPI_Status *status)
{
    SEVERAL("MPI_Waitany", MPCR_WAITANY, count, requests, index, NULL, NULL, status);
}

int mpcr_impl_Testany(MPI_Count count, MPI_Request requests[], int *index, int *flag,
                      MPI_Status *status)
{
    SEVERAL("MPI_Testany", MPCR_TESTANY, count, requests, index, flag, NULL, status);
}

int mpcr_impl_Waitsome(MPI_Count incount, MPI_Request requests[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    SEVERAL("MPI_Waitsome", MPCR_WAITSOME, incount, requests, outcount, NULL, indices, statuses);
}

int mpcr_impl_Testsome(MPI_Count incount, MPI_Request requests[], int *outcount, int indices[],
                       MPI_Status statuses[])
{
    int flag;
    SEVERAL("MPI_Testsome", MPCR_TESTSOME, incount, requests, outcount, &flag, indices, statuses);
}

int mpcr_impl_Waitall(MPI_Count count, MPI_Request requests[], MPI_Status statuses[])
{
    int result;
    SEVERAL("MPI_Waitall", MPCR_WAITALL, count, requests, &result, NULL, NULL, statuses);
}

int mpcr_impl_Testall(MPI_Count count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    int result;
    SEVERAL("MPI_Testall", MPCR_TESTALL, count, requests, &result, flag, NULL, statuses);
}
