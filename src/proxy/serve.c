/* The proxy's handlers, one per channel operation, and the table that
 * dispatches to them. Blocking operations run as the non-blocking real call
 * plus progress_wait, so that the proxy keeps control while it waits (it
 * must notice its application dying, and later, checkpoint requests). */
#include "proxy.h"
#include "report.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- non-blocking requests held for the library, named by token ---- */

static struct pending {
    MPI_Request req; /* MPI_REQUEST_NULL: slot free */
} * pending;
static uint32_t npending;

static uint32_t token_new(MPI_Request req)
{
    uint32_t i = 0;
    while (i < npending && pending[i].req != MPI_REQUEST_NULL)
        i++;
    if (i == npending) {
        uint32_t n = npending ? 2 * npending : 64;
        pending = realloc(pending, n * sizeof *pending);
        if (!pending) {
            mpcr_report("rank %d: the proxy is out of memory", proxy.rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        for (uint32_t j = npending; j < n; j++)
            pending[j].req = MPI_REQUEST_NULL;
        npending = n;
    }
    pending[i].req = req;
    return i + 1;
}

static MPI_Request *token_req(uint32_t token)
{
    return token >= 1 && token <= npending ? &pending[token - 1].req : NULL;
}

/* ---- byte counts of any size (MPI 4 large-count calls where available) ---- */

static int isend_bytes(int sync, const struct mpcr_call *c, MPI_Request *req)
{
    void *buf = staging(c->offset);
    MPI_Comm comm = real_comm(c->comm);
#if MPI_VERSION >= 4
    if (sync) return MPI_Issend_c(buf, (MPI_Count)c->bytes, MPI_BYTE, c->peer, c->tag, comm, req);
    return MPI_Isend_c(buf, (MPI_Count)c->bytes, MPI_BYTE, c->peer, c->tag, comm, req);
#else
    if (c->bytes > INT_MAX) return MPI_ERR_COUNT;
    if (sync) return MPI_Issend(buf, (int)c->bytes, MPI_BYTE, c->peer, c->tag, comm, req);
    return MPI_Isend(buf, (int)c->bytes, MPI_BYTE, c->peer, c->tag, comm, req);
#endif
}

static int irecv_bytes(const struct mpcr_call *c, MPI_Request *req)
{
    void *buf = staging(c->offset);
    int src = real_source(c->peer), tag = real_tag(c->tag);
#if MPI_VERSION >= 4
    return MPI_Irecv_c(buf, (MPI_Count)c->bytes, MPI_BYTE, src, tag, real_comm(c->comm), req);
#else
    if (c->bytes > INT_MAX) return MPI_ERR_COUNT;
    return MPI_Irecv(buf, (int)c->bytes, MPI_BYTE, src, tag, real_comm(c->comm), req);
#endif
}

static uint64_t status_bytes(const MPI_Status *st)
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

static void reply_status(struct mpcr_reply *r, int rc, const MPI_Status *st)
{
    r->rc = error_class(rc);
    r->source = neutral_source(st->MPI_SOURCE);
    r->tag = neutral_tag(st->MPI_TAG);
    /* On truncation MPI leaves the buffer's contents undefined (MPICH writes
     * nothing): deliver no bytes rather than stale staging contents. */
    r->bytes = r->rc == MPI_ERR_TRUNCATE ? 0 : status_bytes(st);
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
    int rc = isend_bytes(sync, c, &req);
    if (rc == MPI_SUCCESS) rc = progress_wait(&req, &st);
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

static void op_isend(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Request req;
    int rc = isend_bytes(0, c, &req);
    r->rc = error_class(rc);
    if (rc == MPI_SUCCESS) r->token = token_new(req);
}

static void op_recv(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Request req;
    MPI_Status st;
    int rc = irecv_bytes(c, &req);
    if (rc != MPI_SUCCESS) {
        r->rc = error_class(rc);
        return;
    }
    rc = progress_wait(&req, &st);
    reply_status(r, rc, &st);
}

static void op_irecv(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Request req;
    int rc = irecv_bytes(c, &req);
    r->rc = error_class(rc);
    if (rc == MPI_SUCCESS) r->token = token_new(req);
}

static void op_probe(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Status st;
    int flag = 0, rc;
    do {
        rc = MPI_Iprobe(real_source(c->peer), real_tag(c->tag), real_comm(c->comm), &flag, &st);
        if (child_exited) child_ended();
    } while (rc == MPI_SUCCESS && !flag);
    reply_status(r, rc, &st);
}

static void op_iprobe(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Status st;
    int rc = MPI_Iprobe(real_source(c->peer), real_tag(c->tag), real_comm(c->comm), &r->flag, &st);
    if (r->flag)
        reply_status(r, rc, &st);
    else
        r->rc = error_class(rc);
}

static void op_wait(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Request *req = token_req(c->token);
    MPI_Status st;
    if (!req) {
        r->rc = MPI_ERR_REQUEST;
        return;
    }
    int rc = progress_wait(req, &st);
    reply_status(r, rc, &st);
    *req = MPI_REQUEST_NULL;
}

static void op_test(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Request *req = token_req(c->token);
    MPI_Status st;
    if (!req) {
        r->rc = MPI_ERR_REQUEST;
        return;
    }
    int rc = MPI_Test(req, &r->flag, &st);
    if (r->flag || rc != MPI_SUCCESS) {
        r->flag = 1;
        reply_status(r, rc, &st);
        *req = MPI_REQUEST_NULL;
    }
}

/* Several requests at once (docs: struct mpcr_completion). The real MPI's
 * own Testany/Testsome/Testall decide; requests it completes are set to
 * MPI_REQUEST_NULL in the array, which is copied back to the token slots. */
static void op_complete(const struct mpcr_call *c, struct mpcr_reply *r)
{
    uint32_t n = (uint32_t)c->peer;
    const uint32_t *tokens = staging(c->offset);
    struct mpcr_completion *res = staging(mpcr_completion_offset(c->offset, n));
    MPI_Request *reqs = malloc((n + 1) * sizeof *reqs);
    MPI_Status *sts = malloc((n + 1) * sizeof *sts), *by_index = malloc((n + 1) * sizeof *sts);
    int *idx = malloc((n + 1) * sizeof *idx), got = 0, flag = 0, rc = MPI_SUCCESS;
    if (!reqs || !sts || !by_index || !idx) {
        r->rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        MPI_Request *q = token_req(tokens[i]);
        reqs[i] = q ? *q : MPI_REQUEST_NULL;
        res[i].done = 0;
    }
    int mode = c->tag, waiting = mode == MPCR_WAITANY || mode == MPCR_WAITSOME;
    for (;;) {
        if (mode == MPCR_WAITANY || mode == MPCR_TESTANY) {
            rc = MPI_Testany((int)n, reqs, &idx[0], &flag, &sts[0]);
            got = flag && idx[0] != MPI_UNDEFINED;
            if (got) by_index[idx[0]] = sts[0];
            if (flag) break; /* one completed, or none was active */
        } else if (mode == MPCR_TESTALL) {
            rc = MPI_Testall((int)n, reqs, &flag, sts);
            got = flag ? (int)n : 0;
            for (int i = 0; i < got; i++)
                idx[i] = i, by_index[i] = sts[i];
            break;
        } else {
            rc = MPI_Testsome((int)n, reqs, &got, idx, sts);
            for (int k = 0; k < got; k++)
                by_index[idx[k]] = sts[k];
            if (got != 0) break; /* some completed, or none was active */
        }
        if (!waiting || (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)) break;
        if (child_exited) child_ended();
    }
    if (got == MPI_UNDEFINED) got = 0;
    for (int k = 0; k < got; k++) {
        int i = idx[k];
        if (tokens[i] == 0) continue; /* nothing was pending there */
        const MPI_Status *st = &by_index[i];
        int err = rc == MPI_ERR_IN_STATUS ? st->MPI_ERROR : rc;
        res[i] = (struct mpcr_completion){1, error_class(err), neutral_source(st->MPI_SOURCE),
                                          neutral_tag(st->MPI_TAG), status_bytes(st)};
        if (res[i].rc == MPI_ERR_TRUNCATE) res[i].bytes = 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        MPI_Request *q = token_req(tokens[i]);
        if (q) *q = reqs[i]; /* completed ones are MPI_REQUEST_NULL now: slot free */
    }
    r->rc = rc == MPI_ERR_IN_STATUS ? MPI_SUCCESS : error_class(rc);
    r->value = (mode == MPCR_WAITANY || mode == MPCR_TESTANY) ? (got ? idx[0] : -1) : got;
    r->flag = mode == MPCR_TESTALL ? flag : got > 0;
out:
    free(reqs), free(sts), free(by_index), free(idx);
}

/* ---- communicators: the library names each new one (token) ---- */

static void op_comm_dup(const struct mpcr_call *c, struct mpcr_reply *r)
{
    MPI_Comm comm;
    int rc = MPI_Comm_dup(real_comm(c->comm), &comm);
    if (rc == MPI_SUCCESS) rc = map_comm_add(c->token, comm);
    r->rc = error_class(rc);
}

static void op_comm_split(const struct mpcr_call *c, struct mpcr_reply *r)
{
    enum { ABI_UNDEFINED = -32766 };
    MPI_Comm comm;
    int color = c->peer == ABI_UNDEFINED ? MPI_UNDEFINED : c->peer;
    int rc = MPI_Comm_split(real_comm(c->comm), color, c->tag, &comm);
    r->flag = rc == MPI_SUCCESS && comm != MPI_COMM_NULL;
    if (r->flag) {
        MPI_Comm_rank(comm, &r->value);
        MPI_Comm_size(comm, &r->source);
        rc = map_comm_add(c->token, comm);
    }
    r->rc = error_class(rc);
}

static void op_comm_free(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = error_class(map_comm_free(c->comm));
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
    if (c->op >= MPCR_OP_COUNT) {
        mpcr_report("rank %d: unknown operation %u on the channel", proxy.rank, c->op);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    handlers[c->op](c, r);
}
