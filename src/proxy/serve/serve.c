/* The proxy's handlers, one per channel operation, and the table that
 * dispatches to them. Blocking operations run as the non-blocking real call
 * plus progress_wait, so that the proxy keeps control while it waits (it
 * must notice its application dying, and later, checkpoint requests). */
#include "ckpt.h"
#include "proxy.h"
#include "report.h"
#include "cache.h"
#include "creation.h"
#include "idup.h"
#include "real_types.h"
#include "record.h"
#include "requests.h"
#include "serve_file.h"
#include "serve_p2p.h"
#include "serve_win.h"
#include "shared.h"
#include "stats.h"
#include "windows.h"

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

static void reply_done(struct mpcr_reply *r, const struct req_status *s)
{
    r->rc = s->rc;
    r->source = s->source;
    r->tag = s->tag;
    r->bytes = s->bytes;
}

static void reply_status(struct mpcr_reply *r, int rc, const MPI_Status *st)
{
    struct req_status s;
    req_status_from(&s, rc, st);
    reply_done(r, &s);
}

/* A call left unanswered because a checkpoint began: the serve loop does
 * not publish a reply, and serves the call again afterwards (or a new proxy
 * does, after a restart). Only calls that have changed nothing yet in the
 * real MPI, or whose change is undone (a cancelled receive), are left so. */
int call_abandoned;
void abandon(void)
{
    call_abandoned = 1;
    stats_count(STAT_ABANDONED);
}

/* ---- handlers ---- */

/* Copies the string src into dst of cap bytes, cut if need be. */
static void copy_cut(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

static void op_init(const struct mpcr_call *c, struct mpcr_reply *r)
{
    int len;
    r->value = proxy.rank;
    r->source = proxy.size;
    r->tag = proxy.tag_ub;
    r->bytes = mpcr_spin_ns();
    char *out = staging(c->offset), name[MPI_MAX_PROCESSOR_NAME],
         version[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_processor_name(name, &len);
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = 0; /* first line only */
    /* This MPI's maximum lengths may exceed mpcr's ABI: cut to it. */
    copy_cut(out, MPCR_INIT_NAME_MAX, name);
    copy_cut(out + MPCR_INIT_NAME_MAX, MPCR_INIT_VERSION_MAX, version);
    r->rc = MPI_SUCCESS;
}

static void op_finalize(const struct mpcr_call *c, struct mpcr_reply *r)
{
    (void)c;
    ckpt_finalizing();
    windows_finalize();
    r->rc = error_class(MPI_Finalize());
    proxy.finalized = 1;
}

static void op_abort(const struct mpcr_call *c, struct mpcr_reply *r)
{
    (void)r;
    if (c->peer == MPCR_ABORT_BY_MPCR) end_job_for_mpcr(c->tag); /* the library said why */
    mpcr_report("rank %d: the program called MPI_Abort with error code %d; ending the job",
                proxy.rank, c->tag);
    MPI_Abort(MPI_COMM_WORLD, c->tag);
}

static void send_common(int sync, const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Request req;
    MPI_Status st;
    int rc = real_isend(sync, c->comm, c->peer, c->tag, c->offset, c->bytes, &req);
    if (rc == MPI_SUCCESS) {
        proxy.sent++;
        rc = progress_wait(&req, &st, 0); /* a send is never abandoned: the drain completes it */
    }
    r->rc = error_class(rc);
}
static struct req *new_request(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = req_new(&r->token);
    if (!q) {
        r->rc = error_class(MPI_ERR_NO_MEM);
        return NULL;
    }
    q->comm = c->comm, q->peer = c->peer, q->tag = c->tag;
    q->offset = c->offset, q->bytes = c->bytes;
    return q;
}

/* 1 while a thread of the program waits for the library's lock (channel.h). */
static int lock_wanted(void)
{
    return atomic_load_explicit(&proxy.chan->lock_wanted, memory_order_relaxed) != 0;
}

/* A blocking SEND, SSEND or RECV with poll set: the call of a thread that
 * waits alone under MPI_THREAD_MULTIPLE. Made as a request of the table and
 * waited for here; answered as the blocking call once it completes, or
 * `pending` with its token as soon as another thread wants the library's
 * lock or a checkpoint begins: the library then waits for it as for an
 * MPI_Isend/MPI_Irecv (a request the checkpoint saves like any other). */
static void polled_p2p(int recv, int sync, const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = new_request(c, r);
    if (!q) return;
    int rc = recv ? req_post_recv(q) : req_start_send(q, sync);
    if (rc != MPI_SUCCESS) {
        req_release(q), r->token = 0;
        r->rc = error_class(rc);
        return;
    }
    for (;;) {
        if (q->state == REQ_ACTIVE) req_test(q);
        if (q->state == REQ_DONE) {
            reply_done(r, &q->done);
            req_release(q), r->token = 0;
            return;
        }
        if (lock_wanted() || ckpt_poll()) {
            r->pending = 1;
            return;
        }
        if (child_exited) child_ended();
        progress_pause();
    }
}

static void op_send(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (c->poll) polled_p2p(0, 0, c, r);
    else send_common(0, c, r);
}
static void op_ssend(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (c->poll) polled_p2p(0, 1, c, r);
    else send_common(1, c, r);
}

static void op_isend(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = new_request(c, r);
    if (!q) return;
    int rc = req_start_send(q, 0);
    if (rc != MPI_SUCCESS) req_release(q), r->token = 0;
    r->rc = error_class(rc);
}

static void op_irecv(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = new_request(c, r);
    if (!q) return;
    int rc = req_post_recv(q);
    if (rc != MPI_SUCCESS) req_release(q), r->token = 0;
    r->rc = error_class(rc);
}

static void op_recv(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (c->poll) {
        polled_p2p(1, 0, c, r);
        return;
    }
    struct req_status s;
    int i = cache_find(c->comm, c->peer, c->tag);
    if (i >= 0) {
        cache_take(i, staging(c->offset), c->bytes, &s);
        reply_done(r, &s);
        return;
    }
    MPI_Request req;
    MPI_Status st;
    int rc = real_irecv(c->comm, c->peer, c->tag, c->offset, c->bytes, &req);
    if (rc != MPI_SUCCESS) {
        r->rc = error_class(rc);
        return;
    }
    rc = progress_wait(&req, &st, 1);
    if (rc == PROXY_ABANDON) { /* undo: the receive is posted again afterwards */
        int cancelled = 0;
        MPI_Cancel(&req);
        rc = MPI_Wait(&req, &st);
        MPI_Test_cancelled(&st, &cancelled);
        if (cancelled) {
            abandon();
            return;
        }
    }
    if (took_message(rc)) proxy.received++;
    reply_status(r, rc, &st);
}

int progress_yield; /* set by main.c's choose_spin (proxy.h) */

static void op_probe(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Status st;
    int flag = 0, rc;
    for (;;) {
        int i = cache_find(c->comm, c->peer, c->tag);
        if (i >= 0) {
            struct req_status s;
            cache_peek(i, &s);
            reply_done(r, &s);
            return;
        }
        rc = MPI_Iprobe(real_source(c->peer), real_tag(c->tag), real_comm(c->comm), &flag, &st);
        if (rc != MPI_SUCCESS || flag) break;
        if (child_exited) child_ended();
        if (c->poll && lock_wanted()) { /* the library asks again (polled_p2p) */
            r->pending = 1;
            return;
        }
        if (ckpt_poll()) {
            abandon();
            return;
        }
        progress_pause();
    }
    reply_status(r, rc, &st);
}

static void op_iprobe(const struct mpcr_call *c, struct mpcr_reply *r)
{
    int i = cache_find(c->comm, c->peer, c->tag);
    if (i >= 0) {
        struct req_status s;
        cache_peek(i, &s);
        reply_done(r, &s);
        r->flag = 1;
        return;
    }
    MPI_Status st;
    int rc = MPI_Iprobe(real_source(c->peer), real_tag(c->tag), real_comm(c->comm), &r->flag, &st);
    if (r->flag)
        reply_status(r, rc, &st);
    else
        r->rc = error_class(rc);
}

/* WAIT and TEST: the request's status once it is REQ_DONE, which frees it.
 * The token names a live request (MPCR_ARG_TOKEN). */
static void wait_or_test(int waiting, const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = req_get(c->token);
    for (;;) {
        req_test(q);
        if (q->state == REQ_DONE) {
            r->flag = 1;
            reply_done(r, &q->done);
            req_release(q);
            return;
        }
        if (!waiting) return;
        if (child_exited) child_ended();
        if (ckpt_poll()) {
            abandon();
            return;
        }
        progress_pause();
    }
}
static void op_wait(const struct mpcr_call *c, struct mpcr_reply *r)
{
    wait_or_test(1, c, r);
}
static void op_test(const struct mpcr_call *c, struct mpcr_reply *r)
{
    wait_or_test(0, c, r);
}

/* Several requests at once (channel.h: struct mpcr_completion); the count,
 * mode, arrays and tokens are checked (MPCR_ARG_COMPLETE). Every
 * active request of the call is tested; those that completed keep their status in the
 * table until reported, so a Waitany may leave others completed but not
 * yet reported, as the program cannot tell. */
static void op_complete(const struct mpcr_call *c, struct mpcr_reply *r)
{
    uint32_t n = (uint32_t)c->peer;
    const uint32_t *tokens = staging(c->offset);
    struct mpcr_completion *res = staging(mpcr_completion_offset(c->offset, n));
    int mode = c->tag, any = mode == MPCR_WAITANY || mode == MPCR_TESTANY;
    int waiting = mode == MPCR_WAITANY || mode == MPCR_WAITSOME || mode == MPCR_WAITALL;
    for (uint32_t i = 0; i < n; i++)
        res[i].done = 0;
    for (;;) {
        int rc = req_progress(tokens, n); /* only this call's requests: the hot path */
        if (rc != MPI_SUCCESS) {
            r->rc = error_class(rc);
            return;
        }
        uint32_t active = 0, done = 0;
        for (uint32_t i = 0; i < n; i++) {
            struct req *q = req_get(tokens[i]);
            if (!q) continue;
            active++;
            done += q->state == REQ_DONE;
        }
        int all = mode == MPCR_TESTALL || mode == MPCR_WAITALL;
        if (!waiting || !active || (all ? done == active : done > 0)) {
            int got = 0, first = -1;
            for (uint32_t i = 0; i < n && (!all || done == active); i++) {
                struct req *q = req_get(tokens[i]);
                if (!q || q->state != REQ_DONE) continue;
                const struct req_status *s = &q->done;
                res[i] = (struct mpcr_completion){1, s->rc, s->source, s->tag, s->bytes};
                req_release(q);
                got++;
                if (first < 0) first = (int)i;
                if (any) break;
            }
            r->rc = MPI_SUCCESS;
            r->value = any ? first : got;
            r->flag = all ? (int)(done == active) : got > 0;
            return;
        }
        if (c->poll && lock_wanted()) {
            /* another thread of the program waits for the library's lock,
             * which this call's thread holds: answer, nothing completed */
            r->rc = MPI_SUCCESS;
            r->value = any ? -1 : 0;
            r->flag = 0;
            return;
        }
        if (child_exited) child_ended();
        if (ckpt_poll()) {
            abandon();
            return;
        }
        progress_pause();
    }
}

/* ---- communicators: the library names each new one (token) ---- */

/* Made so that a checkpoint can land at any instant (creation.h). */
static void op_comm_dup(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (creation_serve(c, r)) abandon();
}

static void op_comm_split(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (creation_serve(c, r)) abandon();
}

static void op_comm_split_type(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (creation_serve(c, r)) abandon();
}

static void op_comm_create_group(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (creation_serve(c, r)) abandon();
}

static void op_comm_idup(const struct mpcr_call *c, struct mpcr_reply *r)
{
    idup_start(c, r);
}

static void op_comm_free(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = error_class(comm_free(c->comm));
}

/* ---- BATCH (channel.h: struct mpcr_batch_op) ---- */

static int check_call(const struct mpcr_call *c, unsigned args);
static unsigned op_args(uint32_t op);

/* The call line a batch operation would have been. */
static struct mpcr_call batch_call(const struct mpcr_batch_op *b)
{
    return (struct mpcr_call){.op = b->op,
                              .comm = b->comm,
                              .peer = b->peer,
                              .tag = b->tag,
                              .offset = b->offset,
                              .bytes = b->bytes};
}

/* Operation i completed: its result goes to the program's copy (shared),
 * and to ours, which is what the proxy goes by. */
static void batch_done(struct mpcr_batch_op *shared, struct mpcr_batch_op *b,
                       const struct req_status *s)
{
    b->rc = s->rc, b->source = s->source, b->rtag = s->tag, b->rbytes = s->bytes;
    b->done = 1;
    memcpy(&shared->done, &b->done, sizeof *b - offsetof(struct mpcr_batch_op, done));
}

/* Every operation of a batch is checked before any starts: 0 or the
 * error class of the first bad one. */
static int batch_check(const struct mpcr_batch_op *ops, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        struct mpcr_call sub = batch_call(&ops[i]);
        int bad = sub.op == MPCR_OP_SEND || sub.op == MPCR_OP_SSEND || sub.op == MPCR_OP_RECV
                      ? check_call(&sub, op_args(sub.op))
                      : MPI_ERR_ARG;
        if (bad) return error_class(bad);
    }
    return MPI_SUCCESS;
}

/* IBATCH's work, and that of the posts a call carries (pre_count): the n
 * operations at offset checked, then each started as ISEND, ISSEND or
 * IRECV starts one, its token (0: not started, rc says why) written to the
 * program's copy. skip_done (the posts a call carries): operations marked
 * `done` were started when the call was first served, before a checkpoint
 * interrupted it; the others are marked when started. The first bad
 * operation's error class, and none started; else 0. */
static int start_batch(uint64_t offset, uint32_t n, int skip_done)
{
    struct mpcr_batch_op *shared = staging(offset), ops[MPCR_BATCH_MAX];
    memcpy(ops, shared, n * sizeof *ops); /* what is checked is what is used */
    int bad = batch_check(ops, n);
    if (bad) return bad;
    for (uint32_t i = 0; i < n; i++) {
        if (skip_done && ops[i].done) continue;
        struct mpcr_call sub = batch_call(&ops[i]);
        struct mpcr_reply one = {0};
        if (ops[i].op == MPCR_OP_RECV)
            op_irecv(&sub, &one);
        else if (ops[i].op == MPCR_OP_SSEND)
            op_issend(&sub, &one);
        else
            op_isend(&sub, &one);
        shared[i].token = one.rc ? 0 : one.token, shared[i].rc = one.rc;
        if (skip_done) shared[i].done = 1;
    }
    return MPI_SUCCESS;
}

static void op_batch(const struct mpcr_call *c, struct mpcr_reply *r)
{
    uint32_t n = (uint32_t)c->peer;
    struct mpcr_batch_op *shared = staging(c->offset), ops[MPCR_BATCH_MAX];
    /* A copy: what is checked is what is used, whatever the program writes. */
    memcpy(ops, shared, n * sizeof *ops);
    MPI_Request real[MPCR_BATCH_MAX];
    if ((r->rc = batch_check(ops, n))) return;
    for (uint32_t i = 0; i < n; i++)
        real[i] = MPI_REQUEST_NULL;
    /* Receives first, so that ranks exchanging with each other meet. */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n; i++) {
            struct mpcr_batch_op *b = &ops[i];
            int recv = b->op == MPCR_OP_RECV;
            if (b->done || recv != (pass == 0)) continue;
            int rc, k = recv ? cache_find(b->comm, b->peer, b->tag) : -1;
            if (k >= 0) {
                struct req_status s;
                cache_take(k, staging(b->offset), b->bytes, &s);
                batch_done(&shared[i], b, &s);
                continue;
            }
            rc = recv ? real_irecv(b->comm, b->peer, b->tag, b->offset, b->bytes, &real[i])
                      : real_isend(b->op == MPCR_OP_SSEND, b->comm, b->peer, b->tag, b->offset,
                                   b->bytes, &real[i]);
            if (rc != MPI_SUCCESS) {
                MPI_Status st = {0};
                struct req_status s;
                req_status_from(&s, rc, &st);
                batch_done(&shared[i], b, &s);
            } else if (!recv) {
                proxy.sent++;
            }
        }
    /* An operation that could not start (its error is its result) ends the
     * batch: the receives are withdrawn, as MPI_Sendrecv's would be. */
    int failed = 0, interrupted = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ops[i].done && ops[i].rc) failed = ops[i].rc;
    /* Sends first: they are never abandoned (a checkpoint's drain completes
     * them). Then the receives, each cancelled if a checkpoint has begun
     * (posted again when the call is served again) or the batch failed. */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n; i++) {
            int recv = ops[i].op == MPCR_OP_RECV;
            if (real[i] == MPI_REQUEST_NULL || recv != (pass == 1)) continue;
            MPI_Status st;
            int rc = recv && failed ? PROXY_ABANDON : progress_wait(&real[i], &st, recv);
            if (rc == PROXY_ABANDON) {
                int cancelled = 0;
                MPI_Cancel(&real[i]);
                rc = MPI_Wait(&real[i], &st);
                if (rc == MPI_SUCCESS) MPI_Test_cancelled(&st, &cancelled);
                if (cancelled && !failed) {
                    interrupted = 1;
                    continue;
                }
                if (cancelled) {
                    struct req_status s = {failed, neutral_source(MPI_ANY_SOURCE),
                                           neutral_tag(MPI_ANY_TAG), 0};
                    batch_done(&shared[i], &ops[i], &s);
                    continue;
                }
            }
            if (recv && took_message(rc)) proxy.received++;
            struct req_status s;
            req_status_from(&s, rc, &st);
            batch_done(&shared[i], &ops[i], &s);
        }
    if (interrupted) abandon();
}

/* A round of a non-blocking collective (the library's coll_task.c): each
 * operation checked as BATCH checks them, then started as ISEND, ISSEND or
 * IRECV start one; its token goes to the program's copy. */
static void op_ibatch(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = start_batch(c->offset, (uint32_t)c->peer, 0);
}

static void op_grow(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = c->bytes > proxy.staging_size ? error_class(grow_staging(c->bytes)) : MPI_SUCCESS;
    if (r->rc)
        mpcr_report("rank %d: cannot extend the staging area to %llu bytes", proxy.rank,
                    (unsigned long long)c->bytes);
}

/* ---- validation: the program is not trusted ----
 *
 * A buggy program can scribble over its channel, so every field a handler
 * uses is checked before the handler runs, and a bad one is answered with
 * the error class MPI prescribes for that argument: the proxy never reads
 * or writes outside the staging area, and never names a communicator or a
 * request that is not live. What each operation's fields mean is said once,
 * in its line of MPCR_OPS (channel.h); one checker serves every operation
 * (docs/channel.md, "Validation"). */

/* COMPLETE: the count first (as MPI checks it), then the mode, then the
 * arrays, then each token (0: none, else a live request). A count whose
 * arrays are larger than the whole staging area is MPI_ERR_COUNT; arrays
 * that merely lie outside it are MPI_ERR_ARG. */
static int check_complete(const struct mpcr_call *c)
{
    if (c->peer < 0) return MPI_ERR_COUNT;
    if (c->tag < MPCR_WAITANY || c->tag > MPCR_WAITALL) return MPI_ERR_ARG;
    uint32_t n = (uint32_t)c->peer;
    uint64_t bytes = mpcr_completion_offset(0, n) + (uint64_t)n * sizeof(struct mpcr_completion);
    if (bytes > proxy.staging_size) return MPI_ERR_COUNT;
    if (!in_staging(c->offset, bytes)) return MPI_ERR_ARG;
    const uint32_t *tokens = staging(c->offset);
    for (uint32_t i = 0; i < n; i++)
        if (tokens[i] && !req_get(tokens[i])) return MPI_ERR_REQUEST;
    return MPI_SUCCESS;
}

/* The first bad field of call c, whose fields mean `args`, as the (real)
 * MPI error class for it; MPI_SUCCESS when all are good. Communicator
 * first, then request, buffer, rank and tag, in the order MPI
 * implementations check a call's arguments. */
static int check_call(const struct mpcr_call *c, unsigned args)
{
    int size = 0, any_source = (args & MPCR_ARG_SOURCE) != 0,
        any_tag = (args & MPCR_ARG_ANY_TAG) != 0;
    if (args & (MPCR_ARG_COMM | MPCR_ARG_PROGRAM_COMM)) {
        if ((args & MPCR_ARG_PROGRAM_COMM) && (c->comm & MPCR_COLL_CONTEXT)) return MPI_ERR_COMM;
        if (!(size = map_comm_size(c->comm))) return MPI_ERR_COMM;
    }
    if ((args & MPCR_ARG_NEW_COMM) &&
        ((!map_comm_id_free(c->token) && !creation_is_done(c->token)) || idup_holds(c->token)))
        return MPI_ERR_COMM;
    if ((args & MPCR_ARG_TOKEN) && !req_get(c->token)) return MPI_ERR_REQUEST;
    if ((args & MPCR_ARG_NEW_MESSAGE) && !message_id_free(c->token)) return MPI_ERR_REQUEST;
    if ((args & MPCR_ARG_MESSAGE) && message_find(c->token) < 0) return MPI_ERR_REQUEST;
    if ((args & MPCR_ARG_DATA) && !in_staging(c->offset, c->bytes) && !in_shared(c->offset, c->bytes))
        return MPI_ERR_BUFFER;
    if ((args & MPCR_ARG_INIT_OUT) &&
        !in_staging(c->offset, MPCR_INIT_NAME_MAX + MPCR_INIT_VERSION_MAX))
        return MPI_ERR_BUFFER;
    if ((args & (MPCR_ARG_DEST | MPCR_ARG_SOURCE)) && !(c->peer >= 0 && c->peer < size) &&
        !(any_source && c->peer == ABI_ANY_SOURCE))
        return MPI_ERR_RANK;
    if ((args & MPCR_ARG_COLOR) && c->peer < 0 && c->peer != ABI_UNDEFINED) return MPI_ERR_ARG;
    if ((args & (MPCR_ARG_TAG | MPCR_ARG_ANY_TAG)) && !(c->tag >= 0 && c->tag <= proxy.tag_ub) &&
        !(any_tag && c->tag == ABI_ANY_TAG))
        return MPI_ERR_TAG;
    if (args & MPCR_ARG_COMPLETE) return check_complete(c);
    if ((args & MPCR_ARG_BATCH) && (c->peer < 1 || c->peer > (int32_t)MPCR_BATCH_MAX))
        return MPI_ERR_COUNT;
    if ((args & MPCR_ARG_BATCH) &&
        !in_staging(c->offset, (uint64_t)c->peer * sizeof(struct mpcr_batch_op)))
        return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

/* ---- dispatch ---- */

typedef void handler(const struct mpcr_call *, struct mpcr_reply *);
static const struct {
    handler *serve;
    unsigned args; /* enum mpcr_arg */
} ops[MPCR_OP_COUNT] = {
#define MPCR_OP_ENTRY(name, fn, args) [MPCR_OP_##name] = {op_##fn, args},
    MPCR_OPS(MPCR_OP_ENTRY)
#undef MPCR_OP_ENTRY
};

static unsigned op_args(uint32_t op)
{
    return ops[op].args;
}

/* MPCR_TEST_PROXY_STALL="N SECONDS" (tests only): rank 1's proxy sleeps
 * SECONDS before serving the program's N-th call, as a proxy stuck inside
 * a real MPI call would: a checkpoint then times out in the quiesce stage,
 * and its message must say what held the rank (ckpt_doing;
 * tests/ckpt/late_rank.sh). */
static void test_stall(void)
{
    static int armed = -1;
    static unsigned long calls, at;
    static unsigned seconds;
    if (!armed) return;
    if (armed < 0) {
        const char *v = getenv("MPCR_TEST_PROXY_STALL");
        armed = v && proxy.rank == 1 && sscanf(v, "%lu %u", &at, &seconds) == 2;
        if (!armed) return;
    }
    if (++calls < at) return;
    armed = 0;
    /* said first, so that a test asks for its checkpoint only now: asked
     * before (a loaded machine's rank 1 still short of its N-th call), the
     * checkpoint found the rank at a safe point and succeeded */
    char line[128];
    int n = snprintf(line, sizeof line, "mpcr: test: rank 1's proxy stalls %u s before the program's call %lu\n",
                     seconds, at);
    if (write(2, line, (size_t)n) < 0) { /* the test then waits for it in vain, and says so */
    }
    sleep(seconds);
}

/* The token a carried post got (channel.h: MPCR_TOKEN_CARRIED), or t
 * itself; a carried post that does not exist, or did not start, names no
 * request (the check then answers MPI_ERR_REQUEST, or COMPLETE skips it). */
static uint32_t resolve_token(uint32_t t, const struct mpcr_call *c)
{
    if (!(t & MPCR_TOKEN_CARRIED)) return t;
    uint32_t i = t & ~MPCR_TOKEN_CARRIED;
    if (i >= c->pre_count) return UINT32_MAX;
    const struct mpcr_batch_op *pre = staging(c->pre_offset);
    return pre[i].token;
}

/* The call's tokens, with the carried posts' in their places: the call
 * line's (a copy) and COMPLETE's array (the program's copy, in staging,
 * which it does not read back). Before the call is checked. */
static void resolve_carried(struct mpcr_call *c)
{
    c->token = resolve_token(c->token, c);
    uint64_t n = (uint32_t)c->peer;
    if (c->op != MPCR_OP_COMPLETE || !in_staging(c->offset, n * sizeof(uint32_t))) return;
    uint32_t *tokens = staging(c->offset);
    for (uint64_t i = 0; i < n; i++)
        tokens[i] = resolve_token(tokens[i], c);
}

void serve_call(struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = MPI_SUCCESS;
    r->flag = 0;
    r->token = 0;
    r->pending = 0;
    call_abandoned = 0;
    /* The posts it carries go first, whatever the call: the program made
     * them first. An unknown operation (garbage, or a library of another
     * version that the hello did not catch) is the caller's error, not the
     * job's end. */
    int bad = !c->pre_count ? MPI_SUCCESS
              : c->pre_count > MPCR_BATCH_MAX ||
                      !in_staging(c->pre_offset, (uint64_t)c->pre_count * sizeof(struct mpcr_batch_op))
                  ? MPI_ERR_ARG
                  : start_batch(c->pre_offset, c->pre_count, 1);
    if (!bad && c->pre_count) resolve_carried(c);
    if (!bad) bad = c->op < MPCR_OP_COUNT ? check_call(c, ops[c->op].args) : MPI_ERR_OTHER;
    if (bad) {
        r->rc = error_class(bad);
        return;
    }
    ckpt_doing("serving the program's call", mpcr_op_name(c->op));
    test_stall();
    ops[c->op].serve(c, r);
    ckpt_doing("waiting for the program's next call", "");
}
