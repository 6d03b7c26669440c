/* Persistent requests (MPI 4.0 section 3.9). A persistent request is an
 * ordinary request object that keeps its arguments: MPI_Start starts a
 * send or a receive on it at the proxy (request.c), completion makes it
 * inactive again, and only MPI_Request_free ends it. Everything is in the
 * program's memory, so across a checkpoint an inactive request is plain
 * data and an active one is a pending request of the proxy's, drained,
 * reposted or restored as any other; the handle the program holds never
 * changes (docs/pt2pt.md). */
#include "api_gen.h"
#include "coll_task.h"
#include "p2p.h"

static int init(enum mpcr_op op, int buffered, const void *buf, MPI_Count count,
                const struct mpcr_type *t, int peer, int tag, struct mpcr_comm *c,
                MPI_Request *request)
{
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) return MPI_ERR_NO_MEM;
    q->kind = op == MPCR_OP_IRECV ? MPCR_REQ_RECV : MPCR_REQ_SEND;
    q->persistent = 1, q->inactive = 1;
    q->start_op = op, q->buffered = buffered;
    q->sbuf = buf, q->count = count, q->peer = peer, q->tag = tag;
    q->type = t;
    mpcr_type_ref((struct mpcr_type *)t);
    return MPI_SUCCESS;
}

int mpcr_impl_Send_init(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest,
                        int tag, struct mpcr_comm *c, MPI_Request *request)
{
    return init(MPCR_OP_ISEND, 0, buf, count, t, dest, tag, c, request);
}

int mpcr_impl_Ssend_init(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest,
                         int tag, struct mpcr_comm *c, MPI_Request *request)
{
    return init(MPCR_OP_ISSEND, 0, buf, count, t, dest, tag, c, request);
}

/* A ready send is a standard send (p2p.c: MPI_Rsend). */
int mpcr_impl_Rsend_init(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest,
                         int tag, struct mpcr_comm *c, MPI_Request *request)
{
    return init(MPCR_OP_ISEND, 0, buf, count, t, dest, tag, c, request);
}

int mpcr_impl_Bsend_init(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest,
                         int tag, struct mpcr_comm *c, MPI_Request *request)
{
    return init(MPCR_OP_ISEND, 1, buf, count, t, dest, tag, c, request);
}

int mpcr_impl_Recv_init(void *buf, MPI_Count count, const struct mpcr_type *t, int source, int tag,
                        struct mpcr_comm *c, MPI_Request *request)
{
    return init(MPCR_OP_IRECV, 0, buf, count, t, source, tag, c, request);
}

/* A buffered one is sent from the attached buffer and complete at once.
 * *comm: the communicator whose error handler applies to an error, the
 * request's (MPI 4.0 9.3); NULL (MPI_COMM_WORLD's) for no valid request. */
static int start(MPI_Request handle, struct mpcr_comm **comm)
{
    struct mpcr_request *q = mpcr_request_get(handle);
    *comm = q ? q->comm : NULL;
    if (!q || !q->persistent || !q->inactive) return MPI_ERR_REQUEST;
    if (q->task) return mpcr_coll_task_start(q);
    q->rc = MPI_SUCCESS;
    if (q->start_op == MPCR_OP_IRECV)
        return mpcr_request_start_recv(q, (void *)q->sbuf, q->count, q->type, q->peer, q->tag);
    if (!q->buffered)
        return mpcr_request_start_send(q, q->start_op, q->sbuf, q->count, q->type, q->peer, q->tag);
    int err = mpcr_bsend(q->sbuf, q->count, q->type, q->peer, q->tag, q->comm);
    if (!err) {
        q->inactive = 0;
        mpcr_status_set(&q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    }
    return err;
}

/* Both are `ownerrors` (src/lib/api): the request's communicator's
 * handler applies, which the generated entry point cannot know. */
int mpcr_impl_Start(MPI_Request *request)
{
    struct mpcr_comm *c = NULL;
    int err = request ? start(*request, &c) : MPI_ERR_ARG;
    return mpcr_error(c, err, "MPI_Start");
}

/* Whether MPI_Startall may post q in its batch: a send (not buffered) or a
 * receive with a real peer, valid and inactive. */
static int batchable(MPI_Request handle)
{
    struct mpcr_request *q = mpcr_request_get(handle);
    return q && q->persistent && q->inactive && !q->task && !q->buffered && q->peer != MPI_PROC_NULL;
}

/* Posts the n requests (batchable) in one IBATCH call, one hand-off to the
 * proxy for all (issue 14, point 2): each staged as MPI_Start stages it,
 * each started at the proxy as MPI_Start's ISEND, ISSEND or IRECV would
 * start it (src/proxy/serve.c op_ibatch). *comm: as in start(). */
static int start_batch(MPI_Request handles[], unsigned n, struct mpcr_comm **comm)
{
    struct mpcr_request *qs[MPCR_BATCH_MAX];
    uint64_t data[MPCR_BATCH_MAX], bytes[MPCR_BATCH_MAX], ops_off;
    unsigned staged = 0;
    int err = MPI_SUCCESS;
    while (staged < n && !err) {
        struct mpcr_request *q = qs[staged] = mpcr_request_get(handles[staged]);
        *comm = q->comm;
        err = mpcr_request_stage(q, q->sbuf, q->count, q->type, &data[staged], &bytes[staged]);
        if (!err) staged++;
    }
    if (!err) err = mpcr_staging_alloc(n * sizeof(struct mpcr_batch_op), &ops_off);
    if (err) {
        for (unsigned i = 0; i < staged; i++)
            mpcr_staging_free(data[i]);
        return err;
    }
    struct mpcr_batch_op *ops = mpcr_staging_ptr(ops_off);
    for (unsigned i = 0; i < n; i++) {
        struct mpcr_request *q = qs[i];
        ops[i] = (struct mpcr_batch_op){
            .op = q->start_op == MPCR_OP_IRECV    ? MPCR_OP_RECV
                  : q->start_op == MPCR_OP_ISSEND ? MPCR_OP_SSEND
                                                  : MPCR_OP_SEND,
            .comm = q->comm->vid,
            .peer = mpcr_comm_peer_out(q->comm, q->peer),
            .tag = q->tag,
            .offset = data[i],
            .bytes = bytes[i]};
    }
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_IBATCH);
    call->offset = ops_off;
    call->peer = (int32_t)n;
    err = mpcr_call_finish()->rc; /* a bad operation: none was started */
    ops = mpcr_staging_ptr(ops_off);
    for (unsigned i = 0; i < n; i++) {
        struct mpcr_request *q = qs[i];
        int rc = err ? err : ops[i].rc ? ops[i].rc : !ops[i].token ? MPI_ERR_INTERN : MPI_SUCCESS;
        if (rc) {
            mpcr_staging_free(data[i]);
            if (!err && rc) err = rc, *comm = q->comm;
            continue;
        }
        q->inactive = 0, q->rc = MPI_SUCCESS;
        if (q->kind == MPCR_REQ_RECV) q->buf = (void *)q->sbuf;
        mpcr_request_started(q, ops[i].token, data[i], bytes[i]);
    }
    mpcr_staging_free(ops_off);
    return err;
}

/* Whether every request is a persistent one not started, none named twice
 * (marked while looking: inactive 2); else *comm is the first bad one's. */
static int all_startable(MPI_Count count, MPI_Request requests[], struct mpcr_comm **comm)
{
    MPI_Count i = 0;
    for (; i < count; i++) {
        struct mpcr_request *q = mpcr_request_get(requests[i]);
        if (!q || !q->persistent || q->inactive != 1) {
            *comm = q ? q->comm : NULL;
            break;
        }
        q->inactive = 2;
    }
    for (MPI_Count k = 0; k < i; k++) {
        struct mpcr_request *q = mpcr_request_get(requests[k]);
        if (q->inactive == 2) q->inactive = 1; /* a duplicate's second mark was never made */
    }
    return i == count;
}

/* The sends and receives among them in one call (start_batch), the rest
 * (buffered sends, MPI_PROC_NULL peers, persistent collectives) each in
 * turn: MPI 4.0 3.9 lets MPI_Startall start them in any order. The first
 * that cannot start ends the call with its error (those before it are
 * started); a bad handle is found before any starts. */
int mpcr_impl_Startall(MPI_Count count, MPI_Request requests[])
{
    struct mpcr_comm *c = NULL;
    int err = MPI_SUCCESS;
    MPI_Request batch[MPCR_BATCH_MAX];
    unsigned n = 0;
    if (count > 1 && !all_startable(count, requests, &c)) return mpcr_error(c, MPI_ERR_REQUEST, "MPI_Startall");
    for (MPI_Count i = 0; i < count && !err; i++) {
        if (count > 1 && batchable(requests[i])) {
            batch[n++] = requests[i];
            if (n == MPCR_BATCH_MAX) err = start_batch(batch, n, &c), n = 0;
        } else {
            err = start(requests[i], &c);
        }
    }
    if (!err && n) err = start_batch(batch, n, &c);
    return mpcr_error(c, err, "MPI_Startall");
}
