/* Collectives, built from point-to-point messages on each communicator's
 * collective context (MPCR_COLL_CONTEXT), where they never match the
 * program's messages. Built so, a collective is never half done inside the
 * real MPI when a checkpoint drains the network (docs/mpi-checkpoint.md). */
#include "lib.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_GATHER, TAG_SCATTER, TAG_ALLTOALL };

int mpcr_op_valid(MPI_Op op);
int mpcr_reduce_local(MPI_Op op, MPI_Datatype type, const void *in, void *inout, int count);

/* Blocking send and receive of `count` elements on a collective context. */
static int coll_send(uint32_t ctx, int peer, int tag, const void *buf, int count,
                     const struct mpcr_type *t)
{
    uint64_t bytes = (uint64_t)count * t->size, off;
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) return err;
    mpcr_pack(mpcr_staging_ptr(off), buf, count, t);
    err = mpcr_p2p_call(MPCR_OP_SEND, ctx, peer, tag, off, bytes)->rc;
    mpcr_staging_free(off);
    return err;
}

static int coll_recv(uint32_t ctx, int peer, int tag, void *buf, int count,
                     const struct mpcr_type *t)
{
    uint64_t capacity = (uint64_t)count * t->size, off;
    int err = mpcr_staging_alloc(capacity, &off);
    if (err) return err;
    const struct mpcr_reply *r = mpcr_p2p_call(MPCR_OP_RECV, ctx, peer, tag, off, capacity);
    err = r->rc;
    if (!err) mpcr_unpack(buf, mpcr_staging_ptr(off), r->bytes < capacity ? r->bytes : capacity, t);
    mpcr_staging_free(off);
    return err;
}

/* Dissemination barrier: in round k every rank signals rank + 2^k and waits
 * for rank - 2^k; after ceil(log2(size)) rounds everyone has, transitively,
 * heard from everyone. Messages are empty. */
static int barrier(struct mpcr_comm *c)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    for (int k = 1; k < c->size; k <<= 1) {
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        const struct mpcr_reply *r = mpcr_p2p_call(MPCR_OP_ISEND, ctx, to, TAG_BARRIER, 0, 0);
        if (r->rc) return r->rc;
        uint32_t token = r->token;
        int err = mpcr_p2p_call(MPCR_OP_RECV, ctx, from, TAG_BARRIER, 0, 0)->rc;
        struct mpcr_call *call = mpcr_call_begin(MPCR_OP_WAIT); /* always: frees the token */
        call->token = token;
        r = mpcr_call_finish();
        if (err || r->rc) return err ? err : r->rc;
    }
    return MPI_SUCCESS;
}

/* Binomial tree from the root: a rank receives from the rank that differs
 * in its lowest set bit (ranks counted from the root), then sends on to the
 * ranks below that bit. */
static int bcast(struct mpcr_comm *c, void *buf, int count, const struct mpcr_type *t, int root)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    int size = c->size, vr = (c->rank - root + size) % size, mask = 1, err;
    for (; mask < size; mask <<= 1)
        if (vr & mask) {
            err = coll_recv(ctx, (vr - mask + root) % size, TAG_BCAST, buf, count, t);
            if (err) return err;
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size) {
            err = coll_send(ctx, (vr + mask + root) % size, TAG_BCAST, buf, count, t);
            if (err) return err;
        }
    return MPI_SUCCESS;
}

/* Binomial tree towards the root; every predefined op is commutative, so
 * partial results combine in any order. `acc` holds this rank's data on
 * entry and, at the root, the result on return. */
static int reduce(struct mpcr_comm *c, void *acc, int count, MPI_Datatype type,
                  const struct mpcr_type *t, MPI_Op op, int root)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    int size = c->size, vr = (c->rank - root + size) % size, err = MPI_SUCCESS;
    void *tmp = malloc((size_t)count * t->extent + 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    for (int mask = 1; mask < size && !err; mask <<= 1) {
        if (vr & mask) {
            err = coll_send(ctx, (vr - mask + root) % size, TAG_REDUCE, acc, count, t);
            break;
        }
        if (vr + mask < size) {
            err = coll_recv(ctx, (vr + mask + root) % size, TAG_REDUCE, tmp, count, t);
            if (!err) err = mpcr_reduce_local(op, type, tmp, acc, count);
        }
    }
    free(tmp);
    return err;
}

/* Checks a collective's common arguments; returns 0 or an error class. */
static int check_coll(struct mpcr_comm *c, int count, MPI_Datatype type, int root,
                      const struct mpcr_type **t)
{
    if (!c) return MPI_ERR_COMM;
    if (count < 0) return MPI_ERR_COUNT;
    if (!(*t = mpcr_type_get(type))) return MPI_ERR_TYPE;
    if (root < 0 || root >= c->size) return MPI_ERR_ROOT;
    return MPI_SUCCESS;
}

static int check_op(MPI_Op op, MPI_Datatype type)
{
    if (!mpcr_op_valid(op)) return MPI_ERR_OP;
    return mpcr_reduce_local(op, type, NULL, NULL, 0); /* is op defined on type? */
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Bcast");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    const struct mpcr_type *t;
    int err = check_coll(c, count, type, root, &t);
    if (!err) err = bcast(c, buf, count, t, root);
    return mpcr_error(c, err, "MPI_Bcast");
}
MPCR_ALIAS(Bcast);

static int reduce_to(const char *fn, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, int all)
{
    MPCR_REQUIRE_INIT(fn);
    struct mpcr_comm *c = mpcr_comm_get(comm);
    const struct mpcr_type *t;
    int err = check_coll(c, count, type, root, &t);
    if (!err) err = check_op(op, type);
    if (err) return mpcr_error(c, err, fn);
    int here = all || c->rank == root; /* ranks whose recvbuf receives the result */
    size_t len = (size_t)count * t->extent;
    void *acc = here ? recvbuf : malloc(len + 1);
    if (!acc) return mpcr_error(c, MPI_ERR_NO_MEM, fn);
    if (sendbuf != MPI_IN_PLACE && acc != sendbuf) memcpy(acc, sendbuf, len);
    err = reduce(c, acc, count, type, t, op, root);
    if (!here) free(acc);
    if (!err && all) err = bcast(c, recvbuf, count, t, root);
    return mpcr_error(c, err, fn);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                int root, MPI_Comm comm)
{
    return reduce_to("MPI_Reduce", sendbuf, recvbuf, count, type, op, root, comm, 0);
}
MPCR_ALIAS(Reduce);

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm)
{
    return reduce_to("MPI_Allreduce", sendbuf, recvbuf, count, type, op, 0, comm, 1);
}
MPCR_ALIAS(Allreduce);

int PMPI_Barrier(MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Barrier");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Barrier");
    return mpcr_error(c, barrier(c), "MPI_Barrier");
}
MPCR_ALIAS(Barrier);

/* Copies `count` elements of type st at src to rcount elements of rt at
 * dst, through the packed form (a rank's message to itself). */
static int copy_typed(const void *src, int count, const struct mpcr_type *st, void *dst, int rcount,
                      const struct mpcr_type *rt)
{
    uint64_t bytes = (uint64_t)count * st->size, room = (uint64_t)rcount * rt->size;
    if (bytes > room) return MPI_ERR_TRUNCATE;
    void *tmp = malloc(bytes + 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    mpcr_pack(tmp, src, count, st);
    mpcr_unpack(dst, tmp, bytes, rt);
    free(tmp);
    return MPI_SUCCESS;
}

/* Checks the arguments of a data-moving collective; 0 or an error class. */
static int check_data(struct mpcr_comm *c, int scount, MPI_Datatype stype, int rcount,
                      MPI_Datatype rtype, int root, const struct mpcr_type **st,
                      const struct mpcr_type **rt, int send_used, int recv_used)
{
    int err = check_coll(c, 0, MPI_BYTE, root, st);
    if (err) return err;
    if ((send_used && scount < 0) || (recv_used && rcount < 0)) return MPI_ERR_COUNT;
    *st = send_used ? mpcr_type_get(stype) : NULL;
    *rt = recv_used ? mpcr_type_get(rtype) : NULL;
    if ((send_used && !*st) || (recv_used && !*rt)) return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* Linear gather: the root receives each rank's block in rank order. */
static int gather(struct mpcr_comm *c, const void *sbuf, int scount, const struct mpcr_type *st,
                  void *rbuf, int rcount, const struct mpcr_type *rt, int root)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    if (c->rank != root) return coll_send(ctx, root, TAG_GATHER, sbuf, scount, st);
    for (int i = 0; i < c->size; i++) {
        char *slot = (char *)rbuf + (size_t)i * rcount * rt->extent;
        int err = i != root              ? coll_recv(ctx, i, TAG_GATHER, slot, rcount, rt)
                  : sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                         : copy_typed(sbuf, scount, st, slot, rcount, rt);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Gather");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    const struct mpcr_type *st, *rt;
    int at_root = c && c->rank == root;
    int err = check_data(c, sendcount, sendtype, recvcount, recvtype, root, &st, &rt,
                         !(at_root && sendbuf == MPI_IN_PLACE), at_root);
    if (!err) err = gather(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, root);
    return mpcr_error(c, err, "MPI_Gather");
}
MPCR_ALIAS(Gather);

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Scatter");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    const struct mpcr_type *st, *rt;
    int at_root = c && c->rank == root;
    int err = check_data(c, sendcount, sendtype, recvcount, recvtype, root, &st, &rt, at_root,
                         !(at_root && recvbuf == MPI_IN_PLACE));
    if (err) return mpcr_error(c, err, "MPI_Scatter");
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    if (!at_root) {
        err = coll_recv(ctx, root, TAG_SCATTER, recvbuf, recvcount, rt);
    } else {
        for (int i = 0; i < c->size && !err; i++) {
            const char *slot = (const char *)sendbuf + (size_t)i * sendcount * st->extent;
            if (i != root)
                err = coll_send(ctx, i, TAG_SCATTER, slot, sendcount, st);
            else if (recvbuf != MPI_IN_PLACE)
                err = copy_typed(slot, sendcount, st, recvbuf, recvcount, rt);
        }
    }
    return mpcr_error(c, err, "MPI_Scatter");
}
MPCR_ALIAS(Scatter);

/* Gather to rank 0, then broadcast the whole array. */
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Allgather");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    const struct mpcr_type *st, *rt;
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = check_data(c, sendcount, sendtype, recvcount, recvtype, 0, &st, &rt, !in_place, 1);
    if (err) return mpcr_error(c, err, "MPI_Allgather");
    if (in_place) { /* this rank's block is already in its slot of recvbuf */
        sendbuf = (char *)recvbuf + (size_t)c->rank * recvcount * rt->extent;
        sendcount = recvcount, st = rt;
        if (c->rank == 0) sendbuf = MPI_IN_PLACE;
    }
    err = gather(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, 0);
    if (!err && recvcount > 0 && (uint64_t)recvcount * c->size > INT32_MAX) err = MPI_ERR_COUNT;
    if (!err) err = bcast(c, recvbuf, recvcount * c->size, rt, 0);
    return mpcr_error(c, err, "MPI_Allgather");
}
MPCR_ALIAS(Allgather);

/* Pairwise exchange: in step i every rank sends its block for rank + i and
 * receives the block of rank - i, so each step pairs everyone once. */
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPCR_REQUIRE_INIT("MPI_Alltoall");
    if (sendbuf == MPI_IN_PLACE) mpcr_unsupported_feature("MPI_Alltoall with MPI_IN_PLACE");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    const struct mpcr_type *st, *rt;
    int err = check_data(c, sendcount, sendtype, recvcount, recvtype, 0, &st, &rt, 1, 1);
    if (err) return mpcr_error(c, err, "MPI_Alltoall");
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    int size = c->size, rank = c->rank;
    for (int i = 0; i < size && !err; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        const char *out = (const char *)sendbuf + (size_t)to * sendcount * st->extent;
        char *in = (char *)recvbuf + (size_t)from * recvcount * rt->extent;
        if (i == 0) {
            err = copy_typed(out, sendcount, st, in, recvcount, rt);
            continue;
        }
        uint64_t bytes = (uint64_t)sendcount * st->size, off;
        if ((err = mpcr_staging_alloc(bytes, &off))) break;
        mpcr_pack(mpcr_staging_ptr(off), out, sendcount, st);
        const struct mpcr_reply *r =
            mpcr_p2p_call(MPCR_OP_ISEND, ctx, to, TAG_ALLTOALL, off, bytes);
        uint32_t token = r->token;
        if ((err = r->rc)) {
            mpcr_staging_free(off);
            break;
        }
        err = coll_recv(ctx, from, TAG_ALLTOALL, in, recvcount, rt);
        struct mpcr_call *call = mpcr_call_begin(MPCR_OP_WAIT); /* always: frees the token */
        call->token = token;
        int werr = mpcr_call_finish()->rc;
        mpcr_staging_free(off);
        if (!err) err = werr;
    }
    return mpcr_error(c, err, "MPI_Alltoall");
}
MPCR_ALIAS(Alltoall);
