/* Point-to-point communication. Data is packed into the staging area (one
 * copy), the proxy moves it with the real MPI as bytes, and a receive
 * unpacks it from the staging area (one copy). Arguments are checked here,
 * as MPI prescribes, so the proxy only ever sees valid calls. */
#include "lib.h"

#include <stdio.h>

enum side { SENDER, RECEIVER };

/* Checks a point-to-point call's arguments; returns 0 or an error class. */
static int check(enum side side, const void *buf, int count, MPI_Datatype type, int peer, int tag,
                 struct mpcr_comm *c, const struct mpcr_type **t)
{
    if (!c) return MPI_ERR_COMM;
    if (count < 0) return MPI_ERR_COUNT;
    if (!(*t = mpcr_type_get(type))) return MPI_ERR_TYPE;
    if (count > 0 && (*t)->size && !buf) return MPI_ERR_BUFFER;
    int any = side == RECEIVER;
    if (!(peer >= 0 && peer < c->size) && peer != MPI_PROC_NULL && !(any && peer == MPI_ANY_SOURCE))
        return MPI_ERR_RANK;
    if (!(tag >= 0 && tag <= mpcr.tag_ub) && !(any && tag == MPI_ANY_TAG)) return MPI_ERR_TAG;
    return MPI_SUCCESS;
}

#define CHECK(fn, side, buf, count, type, peer, tag, comm, c, t)                                   \
    MPCR_REQUIRE_INIT(fn);                                                                         \
    struct mpcr_comm *c = mpcr_comm_get(comm);                                                     \
    const struct mpcr_type *t = NULL;                                                              \
    do {                                                                                           \
        int err_ = check(side, buf, count, type, peer, tag, c, &t);                                \
        if (err_) return mpcr_error(c, err_, fn);                                                  \
    } while (0)

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

static void begin_p2p(enum mpcr_op op, struct mpcr_comm *c, int peer, int tag, uint64_t offset,
                      uint64_t bytes)
{
    begin_p2p_vid(op, c->vid, peer, tag, offset, bytes);
}

const struct mpcr_reply *mpcr_p2p_call(enum mpcr_op op, uint32_t vid, int peer, int tag,
                                       uint64_t offset, uint64_t bytes)
{
    begin_p2p_vid(op, vid, peer, tag, offset, bytes);
    return mpcr_call_finish();
}

/* Copies the message into the staging area and begins a send call. */
static int stage_send(enum mpcr_op op, const void *buf, int count, const struct mpcr_type *t,
                      int dest, int tag, struct mpcr_comm *c, uint64_t *offset)
{
    uint64_t bytes = (uint64_t)count * t->size;
    int err = mpcr_staging_alloc(bytes, offset);
    if (err) return err;
    mpcr_pack(mpcr_staging_ptr(*offset), buf, count, t);
    begin_p2p(op, c, dest, tag, *offset, bytes);
    return MPI_SUCCESS;
}

/* Makes room for `capacity` bytes in the staging area and begins a receive call. */
static int stage_recv(enum mpcr_op op, uint64_t capacity, int source, int tag, struct mpcr_comm *c,
                      uint64_t *offset)
{
    int err = mpcr_staging_alloc(capacity, offset);
    if (err) return err;
    begin_p2p(op, c, source, tag, *offset, capacity);
    return MPI_SUCCESS;
}

static int send_blocking(enum mpcr_op op, const char *fn, const void *buf, int count,
                         MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    CHECK(fn, SENDER, buf, count, type, dest, tag, comm, c, t);
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    uint64_t off;
    int err = stage_send(op, buf, count, t, dest, tag, c, &off);
    if (err) return mpcr_error(c, err, fn);
    err = mpcr_call_finish()->rc;
    mpcr_staging_free(off);
    return mpcr_error(c, err, fn);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return send_blocking(MPCR_OP_SEND, "MPI_Send", buf, count, type, dest, tag, comm);
}
MPCR_ALIAS(Send);

int PMPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return send_blocking(MPCR_OP_SSEND, "MPI_Ssend", buf, count, type, dest, tag, comm);
}
MPCR_ALIAS(Ssend);

/* Completes a receive whose data and status the proxy just returned. */
int mpcr_finish_recv(const struct mpcr_reply *r, void *buf, uint64_t capacity, uint64_t offset,
                     const struct mpcr_type *t, MPI_Status *status)
{
    uint64_t got = r->bytes < capacity ? r->bytes : capacity;
    mpcr_unpack(buf, mpcr_staging_ptr(offset), got, t);
    mpcr_status_set(status, r->source, r->tag, got);
    return r->rc;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    CHECK("MPI_Recv", RECEIVER, buf, count, type, source, tag, comm, c, t);
    if (source == MPI_PROC_NULL) {
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    uint64_t capacity = (uint64_t)count * t->size, off;
    int err = stage_recv(MPCR_OP_RECV, capacity, source, tag, c, &off);
    if (err) return mpcr_error(c, err, "MPI_Recv");
    err = mpcr_finish_recv(mpcr_call_finish(), buf, capacity, off, t, status);
    mpcr_staging_free(off);
    return mpcr_error(c, err, "MPI_Recv");
}
MPCR_ALIAS(Recv);

static int probe(enum mpcr_op op, const char *fn, int source, int tag, MPI_Comm comm, int *flag,
                 MPI_Status *status)
{
    CHECK(fn, RECEIVER, NULL, 0, MPI_BYTE, source, tag, comm, c, t);
    (void)t;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    begin_p2p(op, c, source, tag, 0, 0);
    const struct mpcr_reply *r = mpcr_call_finish();
    *flag = op == MPCR_OP_PROBE || r->flag;
    if (*flag) mpcr_status_set(status, r->source, r->tag, r->bytes);
    return mpcr_error(c, r->rc, fn);
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int flag;
    return probe(MPCR_OP_PROBE, "MPI_Probe", source, tag, comm, &flag, status);
}
MPCR_ALIAS(Probe);

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe(MPCR_OP_IPROBE, "MPI_Iprobe", source, tag, comm, flag, status);
}
MPCR_ALIAS(Iprobe);

/* A request that completed at once (peer MPI_PROC_NULL): nothing at the proxy. */
static struct mpcr_request *null_peer_request(enum mpcr_req_kind kind, struct mpcr_comm *c,
                                              MPI_Request *request)
{
    struct mpcr_request *q = mpcr_request_new(request);
    q->kind = kind;
    q->comm = c;
    mpcr_status_set(&q->status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
    return q;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    CHECK("MPI_Isend", SENDER, buf, count, type, dest, tag, comm, c, t);
    if (dest == MPI_PROC_NULL) {
        null_peer_request(MPCR_REQ_SEND, c, request);
        return MPI_SUCCESS;
    }
    uint64_t off;
    int err = stage_send(MPCR_OP_ISEND, buf, count, t, dest, tag, c, &off);
    if (err) return mpcr_error(c, err, "MPI_Isend");
    const struct mpcr_reply *r = mpcr_call_finish();
    if (r->rc) {
        mpcr_staging_free(off);
        return mpcr_error(c, r->rc, "MPI_Isend");
    }
    struct mpcr_request *q = mpcr_request_new(request);
    *q = (struct mpcr_request){
        .kind = MPCR_REQ_SEND, .token = r->token, .offset = off, .has_staging = 1, .comm = c};
    return MPI_SUCCESS;
}
MPCR_ALIAS(Isend);

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    CHECK("MPI_Irecv", RECEIVER, buf, count, type, source, tag, comm, c, t);
    if (source == MPI_PROC_NULL) {
        null_peer_request(MPCR_REQ_RECV, c, request);
        return MPI_SUCCESS;
    }
    uint64_t capacity = (uint64_t)count * t->size, off;
    int err = stage_recv(MPCR_OP_IRECV, capacity, source, tag, c, &off);
    if (err) return mpcr_error(c, err, "MPI_Irecv");
    const struct mpcr_reply *r = mpcr_call_finish();
    if (r->rc) {
        mpcr_staging_free(off);
        return mpcr_error(c, r->rc, "MPI_Irecv");
    }
    struct mpcr_request *q = mpcr_request_new(request);
    *q = (struct mpcr_request){.kind = MPCR_REQ_RECV,
                               .token = r->token,
                               .offset = off,
                               .has_staging = 1,
                               .buf = buf,
                               .capacity = capacity,
                               .type = t,
                               .comm = c};
    return MPI_SUCCESS;
}
MPCR_ALIAS(Irecv);

/* A receive posted before the send, so that two ranks exchanging with each
 * other cannot deadlock (MPI 4.0 section 3.10). */
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    MPI_Request rq;
    int err = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq);
    if (err) return err;
    err = PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (err) return err; /* only under MPI_ERRORS_RETURN; the receive stays posted */
    return PMPI_Wait(&rq, status);
}
MPCR_ALIAS(Sendrecv);
