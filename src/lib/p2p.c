/* Point-to-point communication. Data is packed into the staging area (one
 * copy), the proxy moves it with the real MPI as bytes, and a receive
 * unpacks it from the staging area (one copy). Arguments were checked by
 * the generated entry points (api_gen.c), so the proxy only sees valid
 * calls; counts arrive as MPI_Count (the _c forms share these bodies). */
#include "api_gen.h"

/* Bytes of `count` elements of t; MPI_ERR_COUNT when that overflows. */
static int bytes_of(MPI_Count count, const struct mpcr_type *t, uint64_t *bytes)
{
    return __builtin_mul_overflow((uint64_t)count, t->size, bytes) ? MPI_ERR_COUNT : MPI_SUCCESS;
}

/* Begins a point-to-point call: fills the call line. */
static void begin_p2p_vid(enum mpcr_op op, uint32_t vid, int peer, int tag, uint64_t offset,
                          uint64_t bytes)
{
    struct mpcr_call *call = mpcr_call_begin(op);
    call->comm = vid;
    call->peer = peer;
    call->tag = tag;
    call->offset = offset;
    call->bytes = bytes;
}

const struct mpcr_reply *mpcr_p2p_call(enum mpcr_op op, uint32_t vid, int peer, int tag,
                                       uint64_t offset, uint64_t bytes)
{
    begin_p2p_vid(op, vid, peer, tag, offset, bytes);
    return mpcr_call_finish();
}

/* Copies the message into the staging area and begins a send call. */
static int stage_send(enum mpcr_op op, const void *buf, MPI_Count count, const struct mpcr_type *t,
                      int dest, int tag, struct mpcr_comm *c, uint64_t *offset)
{
    uint64_t bytes;
    int err = bytes_of(count, t, &bytes);
    if (!err) err = mpcr_staging_alloc(bytes, offset);
    if (err) return err;
    mpcr_pack(mpcr_staging_ptr(*offset), buf, count, t);
    begin_p2p_vid(op, c->vid, dest, tag, *offset, bytes);
    return MPI_SUCCESS;
}

/* Makes room for the message in the staging area and begins a receive call. */
static int stage_recv(enum mpcr_op op, MPI_Count count, const struct mpcr_type *t, int source,
                      int tag, struct mpcr_comm *c, uint64_t *offset, uint64_t *capacity)
{
    int err = bytes_of(count, t, capacity);
    if (!err) err = mpcr_staging_alloc(*capacity, offset);
    if (err) return err;
    begin_p2p_vid(op, c->vid, source, tag, *offset, *capacity);
    return MPI_SUCCESS;
}

static int send_blocking(enum mpcr_op op, const void *buf, MPI_Count count,
                         const struct mpcr_type *t, int dest, int tag, struct mpcr_comm *c)
{
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    uint64_t off;
    int err = stage_send(op, buf, count, t, dest, tag, c, &off);
    if (err) return err;
    err = mpcr_call_finish()->rc;
    mpcr_staging_free(off);
    return err;
}

int mpcr_impl_Send(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                   struct mpcr_comm *c)
{
    return send_blocking(MPCR_OP_SEND, buf, count, t, dest, tag, c);
}

int mpcr_impl_Ssend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                    struct mpcr_comm *c)
{
    return send_blocking(MPCR_OP_SSEND, buf, count, t, dest, tag, c);
}

/* Completes a receive whose data and status the proxy just returned. */
int mpcr_finish_recv(const struct mpcr_reply *r, void *buf, uint64_t capacity, uint64_t offset,
                     const struct mpcr_type *t, MPI_Status *status)
{
    uint64_t got = r->bytes < capacity ? r->bytes : capacity;
    mpcr_unpack(buf, mpcr_staging_ptr(offset), got, t);
    mpcr_status_set(status, r->source, r->tag, got);
    return r->rc;
}

int mpcr_impl_Recv(void *buf, MPI_Count count, const struct mpcr_type *t, int source, int tag,
                   struct mpcr_comm *c, MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    uint64_t capacity, off;
    int err = stage_recv(MPCR_OP_RECV, count, t, source, tag, c, &off, &capacity);
    if (err) return err;
    err = mpcr_finish_recv(mpcr_call_finish(), buf, capacity, off, t, status);
    mpcr_staging_free(off);
    return err;
}

static int probe(enum mpcr_op op, int source, int tag, struct mpcr_comm *c, int *flag,
                 MPI_Status *status)
{
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    begin_p2p_vid(op, c->vid, source, tag, 0, 0);
    const struct mpcr_reply *r = mpcr_call_finish();
    *flag = op == MPCR_OP_PROBE || r->flag;
    if (*flag) mpcr_status_set(status, r->source, r->tag, r->bytes);
    return r->rc;
}

int mpcr_impl_Probe(int source, int tag, struct mpcr_comm *c, MPI_Status *status)
{
    int flag;
    return probe(MPCR_OP_PROBE, source, tag, c, &flag, status);
}

int mpcr_impl_Iprobe(int source, int tag, struct mpcr_comm *c, int *flag, MPI_Status *status)
{
    return probe(MPCR_OP_IPROBE, source, tag, c, flag, status);
}

/* A request that completed at once (peer MPI_PROC_NULL): nothing at the proxy. */
static int null_peer_request(enum mpcr_req_kind kind, struct mpcr_comm *c, MPI_Request *request)
{
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) return MPI_ERR_NO_MEM;
    q->kind = kind;
    mpcr_status_set(&q->status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return MPI_SUCCESS;
}

/* The request of a call the proxy accepted (reply r, staging at off);
 * without memory for it, the proxy's request is waited for and dropped. */
static struct mpcr_request *proxy_request(enum mpcr_req_kind kind, struct mpcr_comm *c,
                                          const struct mpcr_reply *r, uint64_t off,
                                          MPI_Request *request)
{
    uint32_t token = r->token;
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) {
        mpcr_call_begin(MPCR_OP_WAIT)->token = token;
        mpcr_call_finish();
        mpcr_staging_free(off);
        return NULL;
    }
    q->kind = kind, q->token = token, q->offset = off, q->has_staging = 1;
    return q;
}

int mpcr_impl_Isend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                    struct mpcr_comm *c, MPI_Request *request)
{
    if (dest == MPI_PROC_NULL) return null_peer_request(MPCR_REQ_SEND, c, request);
    uint64_t off;
    int err = stage_send(MPCR_OP_ISEND, buf, count, t, dest, tag, c, &off);
    if (err) return err;
    const struct mpcr_reply *r = mpcr_call_finish();
    if (r->rc) {
        mpcr_staging_free(off);
        return r->rc;
    }
    return proxy_request(MPCR_REQ_SEND, c, r, off, request) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int mpcr_impl_Irecv(void *buf, MPI_Count count, const struct mpcr_type *t, int source, int tag,
                    struct mpcr_comm *c, MPI_Request *request)
{
    if (source == MPI_PROC_NULL) return null_peer_request(MPCR_REQ_RECV, c, request);
    uint64_t capacity, off;
    int err = stage_recv(MPCR_OP_IRECV, count, t, source, tag, c, &off, &capacity);
    if (err) return err;
    const struct mpcr_reply *r = mpcr_call_finish();
    if (r->rc) {
        mpcr_staging_free(off);
        return r->rc;
    }
    struct mpcr_request *q = proxy_request(MPCR_REQ_RECV, c, r, off, request);
    if (!q) return MPI_ERR_NO_MEM;
    q->buf = buf, q->capacity = capacity, q->type = t;
    return MPI_SUCCESS;
}

/* ---- several operations in one round trip (channel.h: BATCH) ---- */

int mpcr_batch(struct mpcr_batch_op *ops, unsigned n)
{
    uint64_t off;
    int err = mpcr_staging_alloc((uint64_t)n * sizeof *ops, &off);
    if (err) return err;
    struct mpcr_batch_op *shared = mpcr_staging_ptr(off);
    for (unsigned i = 0; i < n; i++)
        shared[i] = ops[i], shared[i].done = 0;
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_BATCH);
    call->offset = off;
    call->peer = (int32_t)n;
    err = mpcr_call_finish()->rc;
    shared = mpcr_staging_ptr(off);
    for (unsigned i = 0; i < n; i++)
        ops[i] = shared[i];
    mpcr_staging_free(off);
    return err;
}

int mpcr_exchange(uint32_t vid, int dest, int sendtag, const void *sendbuf, MPI_Count sendcount,
                  const struct mpcr_type *st, int source, int recvtag, void *recvbuf,
                  MPI_Count recvcount, const struct mpcr_type *rt, MPI_Status *status)
{
    struct mpcr_batch_op ops[2];
    unsigned n = 0, recv = 2, send = 2;
    uint64_t sbytes = 0, rbytes = 0, soff = 0, roff = 0;
    int err = bytes_of(sendcount, st, &sbytes);
    if (!err) err = bytes_of(recvcount, rt, &rbytes);
    if (err) return err;
    if (source != MPI_PROC_NULL) {
        if ((err = mpcr_staging_alloc(rbytes, &roff))) return err;
        recv = n;
        ops[n++] = (struct mpcr_batch_op){.op = MPCR_OP_RECV, .comm = vid, .peer = source,
                                          .tag = recvtag, .offset = roff, .bytes = rbytes};
    }
    if (dest != MPI_PROC_NULL) {
        if ((err = mpcr_staging_alloc(sbytes, &soff))) {
            if (recv < 2) mpcr_staging_free(roff);
            return err;
        }
        mpcr_pack(mpcr_staging_ptr(soff), sendbuf, sendcount, st);
        send = n;
        ops[n++] = (struct mpcr_batch_op){.op = MPCR_OP_SEND, .comm = vid, .peer = dest,
                                          .tag = sendtag, .offset = soff, .bytes = sbytes};
    }
    err = n ? mpcr_batch(ops, n) : MPI_SUCCESS;
    if (recv == 2) {
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    } else {
        struct mpcr_reply r = {.rc = ops[recv].rc, .source = ops[recv].source,
                               .tag = ops[recv].rtag, .bytes = ops[recv].rbytes};
        int rerr = mpcr_finish_recv(&r, recvbuf, rbytes, roff, rt, status);
        if (!err) err = rerr;
        mpcr_staging_free(roff);
    }
    if (send < 2) {
        if (!err) err = ops[send].rc;
        mpcr_staging_free(soff);
    }
    return err;
}

/* One round trip: the proxy posts the receive before the send, so two
 * ranks exchanging with each other cannot deadlock (MPI 4.0 section 3.10). */
int mpcr_impl_Sendrecv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                       int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                       const struct mpcr_type *rt, int source, int recvtag, struct mpcr_comm *c,
                       MPI_Status *status)
{
    return mpcr_exchange(c->vid, dest, sendtag, sendbuf, sendcount, st, source, recvtag, recvbuf,
                         recvcount, rt, status);
}
