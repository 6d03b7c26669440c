/* The proxy's handlers, one per channel operation, and the table that
 * dispatches to them. Blocking operations run as the non-blocking real call
 * plus progress_wait, so that the proxy keeps control while it waits (it
 * must notice its application dying, and later, checkpoint requests). */
#include "proxy.h"
#include "report.h"
#include "cache.h"
#include "record.h"
#include "requests.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- real point-to-point on neutral arguments (any byte count: MPI 4's
 * large-count calls where available) ---- */

int real_isend(int sync, uint32_t comm_id, int peer, int tag, uint64_t offset, uint64_t bytes,
               MPI_Request *req)
{
    void *buf = staging(offset);
    MPI_Comm comm = real_comm(comm_id);
#if MPI_VERSION >= 4
    if (sync) return MPI_Issend_c(buf, (MPI_Count)bytes, MPI_BYTE, peer, tag, comm, req);
    return MPI_Isend_c(buf, (MPI_Count)bytes, MPI_BYTE, peer, tag, comm, req);
#else
    if (bytes > INT_MAX) return MPI_ERR_COUNT;
    if (sync) return MPI_Issend(buf, (int)bytes, MPI_BYTE, peer, tag, comm, req);
    return MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, tag, comm, req);
#endif
}

int real_irecv(uint32_t comm_id, int peer, int tag, uint64_t offset, uint64_t cap, MPI_Request *req)
{
    void *buf = staging(offset);
    int src = real_source(peer), rtag = real_tag(tag);
    MPI_Comm comm = real_comm(comm_id);
#if MPI_VERSION >= 4
    return MPI_Irecv_c(buf, (MPI_Count)cap, MPI_BYTE, src, rtag, comm, req);
#else
    if (cap > INT_MAX) return MPI_ERR_COUNT;
    return MPI_Irecv(buf, (int)cap, MPI_BYTE, src, rtag, comm, req);
#endif
}

uint64_t status_bytes(const MPI_Status *st)
{
#if MPI_VERSION >= 4
    MPI_Count n = 0;
    MPI_Get_count_c(st, MPI_BYTE, &n);
#else
    int n = 0;
    MPI_Get_count(st, MPI_BYTE, &n);
#endif
    return n < 0 ? 0 : (uint64_t)n;
}

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
static void abandon(void)
{
    call_abandoned = 1;
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
    int tag_ub_flag = 0, *tag_ub = NULL, len;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &tag_ub_flag);
    r->value = proxy.rank;
    r->source = proxy.size;
    r->tag = tag_ub_flag ? *tag_ub : 32767;
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
    r->rc = error_class(MPI_Finalize());
    proxy.finalized = 1;
}

static void op_abort(const struct mpcr_call *c, struct mpcr_reply *r)
{
    (void)r;
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
static void op_send(const struct mpcr_call *c, struct mpcr_reply *r)
{
    send_common(0, c, r);
}
static void op_ssend(const struct mpcr_call *c, struct mpcr_reply *r)
{
    send_common(1, c, r);
}

static struct req *new_request(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = req_new(&r->token);
    if (!q) {
        r->rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    q->comm = c->comm, q->peer = c->peer, q->tag = c->tag;
    q->offset = c->offset, q->bytes = c->bytes;
    return q;
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
        if (ckpt_poll()) {
            abandon();
            return;
        }
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

/* WAIT and TEST: the request's status once it is REQ_DONE, which frees it. */
static void wait_or_test(int waiting, const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = req_get(c->token);
    if (!q) {
        r->rc = MPI_ERR_REQUEST;
        return;
    }
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

/* Several requests at once (channel.h: struct mpcr_completion). Every
 * active request of the call is tested; those that completed keep their status in the
 * table until reported, so a Waitany may leave others completed but not
 * yet reported, as the program cannot tell. */
static void op_complete(const struct mpcr_call *c, struct mpcr_reply *r)
{
    uint32_t n = (uint32_t)c->peer;
    const uint32_t *tokens = staging(c->offset);
    struct mpcr_completion *res = staging(mpcr_completion_offset(c->offset, n));
    int mode = c->tag, any = mode == MPCR_WAITANY || mode == MPCR_TESTANY;
    int waiting = mode == MPCR_WAITANY || mode == MPCR_WAITSOME;
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
        int all = mode == MPCR_TESTALL;
        if (all || done > 0 || !waiting || !active) {
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
        if (child_exited) child_ended();
        if (ckpt_poll()) {
            abandon();
            return;
        }
    }
}

/* ---- communicators: the library names each new one (token) ---- */

static void op_comm_dup(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = error_class(comm_dup(c->comm, c->token));
}

static void op_comm_split(const struct mpcr_call *c, struct mpcr_reply *r)
{
    int rc = comm_split(c->comm, c->peer, c->tag, c->token, &r->flag, &r->value, &r->source);
    r->rc = error_class(rc);
}

static void op_comm_free(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = error_class(comm_free(c->comm));
}

static void op_cancel(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = req_get(c->token);
    if (!q) {
        r->rc = MPI_ERR_REQUEST;
        return;
    }
    req_withdraw(q);
}

static void op_grow(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = c->bytes > proxy.staging_size ? grow_staging(c->bytes) : MPI_SUCCESS;
    if (r->rc)
        mpcr_report("rank %d: cannot extend the staging area to %llu bytes", proxy.rank,
                    (unsigned long long)c->bytes);
}

/* ---- dispatch ---- */

typedef void handler(const struct mpcr_call *, struct mpcr_reply *);
static handler *const handlers[MPCR_OP_COUNT] = {
#define MPCR_OP_HANDLER(name, fn) [MPCR_OP_##name] = op_##fn,
    MPCR_OPS(MPCR_OP_HANDLER)
#undef MPCR_OP_HANDLER
};

void serve_call(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = MPI_SUCCESS;
    r->flag = 0;
    call_abandoned = 0;
    if (c->op >= MPCR_OP_COUNT) {
        mpcr_report("rank %d: unknown operation %u on the channel", proxy.rank, c->op);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    handlers[c->op](c, r);
}
