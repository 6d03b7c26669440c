/* Persistent requests (MPI 4.0 section 3.9). A persistent request is an
 * ordinary request object that keeps its arguments: MPI_Start starts a
 * send or a receive on it at the proxy (request.c), completion makes it
 * inactive again, and only MPI_Request_free ends it. Everything is in the
 * program's memory, so across a checkpoint an inactive request is plain
 * data and an active one is a pending request of the proxy's, drained,
 * reposted or restored as any other; the handle the program holds never
 * changes (docs/pt2pt.md). */
#include "api_gen.h"
#include "channel.h"
#include "coll/coll_task.h"
#include "comm/comm.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "p2p.h"
#include "request.h"
#include "runtime/runtime.h"

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
    if (!q || !q->persistent || !q->inactive || q->part_started) return MPI_ERR_REQUEST;
    if (q->task) return mpcr_coll_task_start(q);
    if (q->partitions) return mpcr_partitioned_start(q);
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

/* Whether every request is a persistent one not started, none named twice
 * (marked while looking: inactive 2); else *comm is the first bad one's. */
static int all_startable(MPI_Count count, MPI_Request requests[], struct mpcr_comm **comm)
{
    MPI_Count i = 0;
    for (; i < count; i++) {
        struct mpcr_request *q = mpcr_request_get(requests[i]);
        if (!q || !q->persistent || q->inactive != 1 || q->part_started) {
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

/* Each started in turn, as MPI_Start starts it: the sends and receives
 * among them queued (post_queue.c), so that they reach the proxy in one
 * IBATCH call, one hand-off for all (issue 14, point 2), at the end of this
 * call or later; buffered sends, MPI_PROC_NULL peers and persistent
 * collectives are started at once (MPI 4.0 3.9 lets MPI_Startall start
 * them in any order). The first that cannot start ends the call with its
 * error (those before it are started); a bad handle is found before any
 * starts. */
int mpcr_impl_Startall(MPI_Count count, MPI_Request requests[])
{
    struct mpcr_comm *c = NULL;
    int err = MPI_SUCCESS;
    if (count > 1 && !all_startable(count, requests, &c)) return mpcr_error(c, MPI_ERR_REQUEST, "MPI_Startall");
    mpcr_posts_batch_begin();
    for (MPI_Count i = 0; i < count && !err; i++)
        err = start(requests[i], &c);
    mpcr_posts_batch_end();
    return mpcr_error(c, err, "MPI_Startall");
}
