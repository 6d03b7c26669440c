/* Collectives, built from point-to-point messages on each communicator's
 * collective context (MPCR_COLL_CONTEXT), where they never match the
 * program's messages. Built so, a collective is never half done inside the
 * real MPI when a checkpoint drains the network (docs/mpi-checkpoint.md). */
#include "lib.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE };

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
    return c ? mpcr_error(c, err, "MPI_Bcast") : mpcr_error_world(err, "MPI_Bcast");
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
    if (err) return c ? mpcr_error(c, err, fn) : mpcr_error_world(err, fn);
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
