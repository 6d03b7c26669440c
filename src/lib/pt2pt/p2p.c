/* Point-to-point communication. Data is packed into the staging area (one
 * copy), the proxy moves it with the real MPI as bytes, and a receive
 * unpacks it from the staging area (one copy). Arguments were checked by
 * the generated entry points (api_gen.c), so the proxy only sees valid
 * calls; counts arrive as MPI_Count (the _c forms share these bodies). */
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
    call->poll = 0; /* mpcr_coll_finish_blocking may set it */
}

const struct mpcr_reply *mpcr_p2p_call(enum mpcr_op op, uint32_t vid, int peer, int tag,
                                       uint64_t offset, uint64_t bytes)
{
    begin_p2p_vid(op, vid, peer, tag, offset, bytes);
    return mpcr_call_finish();
}

/* Copies the message into the staging area, or finds it in a shared
 * buffer (a large contiguous one: shared_buffers.c), and begins a send call. */
static int stage_send(enum mpcr_op op, const void *buf, MPI_Count count, const struct mpcr_type *t,
                      int dest, int tag, struct mpcr_comm *c, uint64_t *offset)
{
    uint64_t bytes;
    int err = mpcr_bytes_of(count, t, &bytes);
    if (err) return err;
    const void *flat = mpcr_type_flat_data(buf, count, t);
    if (!flat || !mpcr_share_send(flat, bytes, offset)) {
        if ((err = mpcr_staging_alloc(bytes, offset))) return err;
        mpcr_pack(mpcr_staging_ptr(*offset), buf, count, t);
    }
    begin_p2p_vid(op, c->vid, mpcr_comm_peer_out(c, dest), tag, *offset, bytes);
    return MPI_SUCCESS;
}

/* Makes room for the message in the staging area, or in the receive buffer
 * itself when it is shared, and begins a receive call. */
static int stage_recv(enum mpcr_op op, void *buf, MPI_Count count, const struct mpcr_type *t,
                      int source, int tag, struct mpcr_comm *c, uint64_t *offset,
                      uint64_t *capacity)
{
    int err = mpcr_bytes_of(count, t, capacity);
    if (err) return err;
    const void *flat = mpcr_type_flat_data(buf, count, t);
    if ((!flat || !mpcr_share_recv((void *)flat, *capacity, offset)) &&
        (err = mpcr_staging_alloc(*capacity, offset)))
        return err;
    begin_p2p_vid(op, c->vid, mpcr_comm_peer_out(c, source), tag, *offset, *capacity);
    return MPI_SUCCESS;
}

static int send_blocking(enum mpcr_op op, const void *buf, MPI_Count count,
                         const struct mpcr_type *t, int dest, int tag, struct mpcr_comm *c)
{
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    uint64_t off;
    int err = stage_send(op, buf, count, t, dest, tag, c, &off);
    if (err) return err;
    err = mpcr_coll_finish_blocking()->rc;
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
int mpcr_finish_recv(const struct mpcr_comm *c, const struct mpcr_reply *r, void *buf,
                     uint64_t capacity, uint64_t offset, const struct mpcr_type *t,
                     MPI_Status *status)
{
    uint64_t got = r->bytes < capacity ? r->bytes : capacity;
    if (offset >= MPCR_SHARED_BASE)
        mpcr_share_received(offset, got);
    else
        mpcr_unpack(buf, mpcr_staging_ptr(offset), got, t);
    mpcr_status_set(status, mpcr_comm_peer_in(c, r->source), r->tag, got);
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
    int err = stage_recv(MPCR_OP_RECV, buf, count, t, source, tag, c, &off, &capacity);
    if (err) return err;
    err = mpcr_finish_recv(c, mpcr_coll_finish_blocking(), buf, capacity, off, t, status);
    mpcr_staging_free(off);
    mpcr_orphans_poll(0);
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
    /* An Iprobe loop asks the proxy at a pace (poll_pace.c), unless a
     * collective in the library advances with each call or posts wait in
     * the queue for a call to carry them. */
    struct mpcr_poll_question question = {op, c->vid, source, tag};
    int paced = op == MPCR_OP_IPROBE && !mpcr_coll_in_flight() && !mpcr_posts_queued;
    if (paced && mpcr_poll_paced(&question)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    uint64_t asked_ns = paced ? mpcr_now_ns() : 0;
    /* While collectives run in the library (coll_task.h), a blocking probe
     * polls, so that they advance meanwhile (each MPI_Iprobe does). Under
     * MULTIPLE a thread waiting alone probes at the proxy instead, which
     * answers `pending` when another thread wants the lock. */
    const struct mpcr_reply *r;
    for (;;) {
        int polled = 0;
        while (op == MPCR_OP_PROBE && mpcr_coll_async() && !(polled = mpcr_coll_wait_at_proxy())) {
            int err = probe(MPCR_OP_IPROBE, source, tag, c, flag, status);
            if (err || *flag) return err;
            mpcr_lock_yield();
        }
        begin_p2p_vid(op, c->vid, mpcr_comm_peer_out(c, source), tag, 0, 0);
        mpcr.draft.poll = (uint32_t)polled;
        r = mpcr_call_finish();
        if (!r->pending) break;
        mpcr_lock_pass();
    }
    *flag = op == MPCR_OP_PROBE || r->flag;
    if (*flag) mpcr_status_set(status, mpcr_comm_peer_in(c, r->source), r->tag, r->bytes);
    int err = r->rc;
    if (paced && !err) mpcr_poll_answered(&question, *flag, asked_ns);
    mpcr_orphans_poll(0);
    return err;
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

/* A new request started by start() (a send's or a receive's); freed again
 * when it could not start. */
static int new_request(struct mpcr_comm *c, MPI_Request *request,
                       int (*start)(struct mpcr_request *, void *), void *args)
{
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) return MPI_ERR_NO_MEM;
    int err = start(q, args);
    if (err) mpcr_request_free(request, q);
    return err;
}

struct send_args {
    enum mpcr_op op;
    const void *buf;
    MPI_Count count;
    const struct mpcr_type *t;
    int peer, tag;
};
static int start_send(struct mpcr_request *q, void *p)
{
    const struct send_args *a = p;
    return mpcr_request_start_send(q, a->op, a->buf, a->count, a->t, a->peer, a->tag);
}
/* The send half of MPI_Isendrecv(_replace) completes by itself, maybe after
 * the program has its buffer back: its data is copied, never shared. */
static int start_send_copied(struct mpcr_request *q, void *p)
{
    q->copies_data = 1;
    return start_send(q, p);
}
static int start_recv(struct mpcr_request *q, void *p)
{
    const struct send_args *a = p;
    return mpcr_request_start_recv(q, (void *)a->buf, a->count, a->t, a->peer, a->tag);
}

int mpcr_impl_Isend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                    struct mpcr_comm *c, MPI_Request *request)
{
    struct send_args a = {MPCR_OP_ISEND, buf, count, t, dest, tag};
    return new_request(c, request, start_send, &a);
}

int mpcr_impl_Issend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                     struct mpcr_comm *c, MPI_Request *request)
{
    struct send_args a = {MPCR_OP_ISSEND, buf, count, t, dest, tag};
    return new_request(c, request, start_send, &a);
}

/* A ready send is a standard send, as in MPICH: a program whose receive is
 * not posted yet still gets its message delivered (MPI leaves it erroneous). */
int mpcr_impl_Irsend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                     struct mpcr_comm *c, MPI_Request *request)
{
    return mpcr_impl_Isend(buf, count, t, dest, tag, c, request);
}

int mpcr_impl_Rsend(const void *buf, MPI_Count count, const struct mpcr_type *t, int dest, int tag,
                    struct mpcr_comm *c)
{
    return mpcr_impl_Send(buf, count, t, dest, tag, c);
}

int mpcr_impl_Irecv(void *buf, MPI_Count count, const struct mpcr_type *t, int source, int tag,
                    struct mpcr_comm *c, MPI_Request *request)
{
    struct send_args a = {MPCR_OP_IRECV, buf, count, t, source, tag};
    return new_request(c, request, start_recv, &a);
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
    err = mpcr_coll_batch(off, n); /* collectives in flight advance meanwhile (coll_task.h) */
    shared = mpcr_staging_ptr(off);
    for (unsigned i = 0; i < n; i++)
        ops[i] = shared[i];
    mpcr_staging_free(off);
    return err;
}

/* The two halves of an exchange, their data named by offset (staged or
 * shared): one batch, the receive posted first; offsets freed. */
static int exchange_at(const struct mpcr_comm *c, int dest, int sendtag, uint64_t soff,
                       uint64_t sbytes, int source, int recvtag, void *recvbuf,
                       const struct mpcr_type *rt, uint64_t roff, uint64_t rbytes,
                       MPI_Status *status)
{
    struct mpcr_batch_op ops[2];
    unsigned n = 0, recv = 2, send = 2;
    if (source != MPI_PROC_NULL) {
        recv = n;
        ops[n++] = (struct mpcr_batch_op){.op = MPCR_OP_RECV,
                                          .comm = c->vid,
                                          .peer = mpcr_comm_peer_out(c, source),
                                          .tag = recvtag,
                                          .offset = roff,
                                          .bytes = rbytes};
    }
    if (dest != MPI_PROC_NULL) {
        send = n;
        ops[n++] = (struct mpcr_batch_op){.op = MPCR_OP_SEND,
                                          .comm = c->vid,
                                          .peer = mpcr_comm_peer_out(c, dest),
                                          .tag = sendtag,
                                          .offset = soff,
                                          .bytes = sbytes};
    }
    int err = n ? mpcr_batch(ops, n) : MPI_SUCCESS;
    if (recv == 2) {
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    } else {
        struct mpcr_reply r = {.rc = ops[recv].rc,
                               .source = ops[recv].source,
                               .tag = ops[recv].rtag,
                               .bytes = ops[recv].rbytes};
        int rerr = mpcr_finish_recv(c, &r, recvbuf, rbytes, roff, rt, status);
        if (!err) err = rerr;
        mpcr_staging_free(roff);
    }
    if (send < 2) {
        if (!err) err = ops[send].rc;
        mpcr_staging_free(soff);
    }
    return err;
}

/* Where a receive's data lands: the buffer itself when it is shared, else
 * room in the staging area. */
static int recv_room(void *buf, MPI_Count count, const struct mpcr_type *t, uint64_t bytes,
                     uint64_t *offset)
{
    const void *flat = mpcr_type_flat_data(buf, count, t);
    if (flat && mpcr_share_recv((void *)flat, bytes, offset)) return MPI_SUCCESS;
    return mpcr_staging_alloc(bytes, offset);
}

/* Where a send's data is: the buffer itself when it is shared, else a
 * packed copy in the staging area (always, with may_share 0). */
static int send_data(const void *buf, MPI_Count count, const struct mpcr_type *t, uint64_t bytes,
                     int may_share, uint64_t *offset)
{
    const void *flat = may_share ? mpcr_type_flat_data(buf, count, t) : NULL;
    if (flat && mpcr_share_send(flat, bytes, offset)) return MPI_SUCCESS;
    int err = mpcr_staging_alloc(bytes, offset);
    if (!err) mpcr_pack(mpcr_staging_ptr(*offset), buf, count, t);
    return err;
}

/* An exchange; with send_copied, the send's data is copied first (the
 * receive may land in the send buffer: MPI_Sendrecv_replace). */
static int exchange(const struct mpcr_comm *c, int dest, int sendtag, const void *sendbuf,
                    MPI_Count sendcount, const struct mpcr_type *st, int send_copied, int source,
                    int recvtag, void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                    MPI_Status *status)
{
    uint64_t sbytes = 0, rbytes = 0, soff = 0, roff = 0;
    int err = mpcr_bytes_of(sendcount, st, &sbytes);
    if (!err) err = mpcr_bytes_of(recvcount, rt, &rbytes);
    if (err) return err;
    if (dest != MPI_PROC_NULL &&
        (err = send_data(sendbuf, sendcount, st, sbytes, !send_copied, &soff)))
        return err;
    if (source != MPI_PROC_NULL && (err = recv_room(recvbuf, recvcount, rt, rbytes, &roff))) {
        if (dest != MPI_PROC_NULL) mpcr_staging_free(soff);
        return err;
    }
    return exchange_at(c, dest, sendtag, soff, sbytes, source, recvtag, recvbuf, rt, roff, rbytes,
                       status);
}

int mpcr_exchange(const struct mpcr_comm *c, int dest, int sendtag, const void *sendbuf,
                  MPI_Count sendcount, const struct mpcr_type *st, int source, int recvtag,
                  void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                  MPI_Status *status)
{
    return exchange(c, dest, sendtag, sendbuf, sendcount, st, 0, source, recvtag, recvbuf,
                    recvcount, rt, status);
}

/* One round trip: the proxy posts the receive before the send, so two
 * ranks exchanging with each other cannot deadlock (MPI 4.0 section 3.10). */
int mpcr_impl_Sendrecv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                       int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                       const struct mpcr_type *rt, int source, int recvtag, struct mpcr_comm *c,
                       MPI_Status *status)
{
    int err = mpcr_exchange(c, dest, sendtag, sendbuf, sendcount, st, source, recvtag, recvbuf,
                            recvcount, rt, status);
    mpcr_orphans_poll(0);
    return err;
}

/* The message goes out of a packed copy in the staging area, so the
 * receive may land in buf (shared, or through the staging area). */
int mpcr_impl_Sendrecv_replace(void *buf, MPI_Count count, const struct mpcr_type *t, int dest,
                               int sendtag, int source, int recvtag, struct mpcr_comm *c,
                               MPI_Status *status)
{
    int err = exchange(c, dest, sendtag, buf, count, t, 1, source, recvtag, buf, count, t, status);
    mpcr_orphans_poll(0);
    return err;
}

/* The receive is the program's request; the send starts an orphan (request.c)
 * that completes by itself. Its data is in the staging area once it has
 * started (never in a shared buffer: start_send_copied), so the send
 * buffer is free at once, as after a completed send,
 * and MPI_Isendrecv_replace's receive may land in the same buffer. The
 * request keeps the send as its send_half: an error the send meets is the
 * request's (mpcr_request_join_send_half). */
static int isendrecv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                     int source, int recvtag, struct mpcr_comm *c, MPI_Request *request)
{
    MPI_Request send;
    struct send_args a = {MPCR_OP_ISEND, sendbuf, sendcount, st, dest, sendtag};
    int err = new_request(c, &send, start_send_copied, &a);
    if (err) return err;
    struct mpcr_request *s = mpcr_request_get(send);
    err = mpcr_impl_Irecv(recvbuf, recvcount, rt, source, recvtag, c, request);
    mpcr_posts_flush(); /* both started in one call (their starts may be queued): s's token */
    if (!err && s->token) { /* not a send to MPI_PROC_NULL */
        mpcr_request_get(*request)->send_half = s;
        mpcr_obj_ref(s);
    }
    mpcr_request_free(&send, s);
    return err;
}

int mpcr_impl_Isendrecv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                        int dest, int sendtag, void *recvbuf, MPI_Count recvcount,
                        const struct mpcr_type *rt, int source, int recvtag, struct mpcr_comm *c,
                        MPI_Request *request)
{
    return isendrecv(sendbuf, sendcount, st, dest, sendtag, recvbuf, recvcount, rt, source, recvtag,
                     c, request);
}

int mpcr_impl_Isendrecv_replace(void *buf, MPI_Count count, const struct mpcr_type *t, int dest,
                                int sendtag, int source, int recvtag, struct mpcr_comm *c,
                                MPI_Request *request)
{
    return isendrecv(buf, count, t, dest, sendtag, buf, count, t, source, recvtag, c, request);
}
