/* Collectives, built from point-to-point messages on each communicator's
 * collective context (MPCR_COLL_CONTEXT), where they never match the
 * program's messages. Built so, a collective is never half done inside the
 * real MPI when a checkpoint drains the network (docs/mpi-checkpoint.md). */
#include "api_gen.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_BARRIER = 1, TAG_BCAST, TAG_REDUCE, TAG_GATHER, TAG_SCATTER, TAG_ALLTOALL };

int mpcr_reduce_local(MPI_Op op, MPI_Datatype type, const void *in, void *inout, MPI_Count count);

/* Bytes of `count` elements of t, of their extent (for buffers); 0 when
 * it overflows, which callers report as MPI_ERR_COUNT. */
static int span(MPI_Count count, uint64_t per, uint64_t *bytes)
{
    return __builtin_mul_overflow((uint64_t)count, per, bytes) ? MPI_ERR_COUNT : MPI_SUCCESS;
}

/* Blocking send and receive of `count` elements on a collective context. */
static int coll_send(uint32_t ctx, int peer, int tag, const void *buf, MPI_Count count,
                     const struct mpcr_type *t)
{
    uint64_t bytes, off;
    int err = span(count, t->size, &bytes);
    if (!err) err = mpcr_staging_alloc(bytes, &off);
    if (err) return err;
    mpcr_pack(mpcr_staging_ptr(off), buf, count, t);
    err = mpcr_p2p_call(MPCR_OP_SEND, ctx, peer, tag, off, bytes)->rc;
    mpcr_staging_free(off);
    return err;
}

static int coll_recv(uint32_t ctx, int peer, int tag, void *buf, MPI_Count count,
                     const struct mpcr_type *t)
{
    uint64_t capacity, off;
    int err = span(count, t->size, &capacity);
    if (!err) err = mpcr_staging_alloc(capacity, &off);
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
    const struct mpcr_type *none = mpcr_type_get(MPI_BYTE);
    for (int k = 1; k < c->size; k <<= 1) { /* one round trip a round */
        int to = (c->rank + k) % c->size, from = (c->rank - k + c->size) % c->size;
        int err = mpcr_exchange(ctx, to, TAG_BARRIER, NULL, 0, none, from, TAG_BARRIER, NULL, 0,
                                none, MPI_STATUS_IGNORE);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

/* Binomial tree from the root: a rank receives from the rank that differs
 * in its lowest set bit (ranks counted from the root), then sends on to the
 * ranks below that bit. */
static int bcast(struct mpcr_comm *c, void *buf, MPI_Count count, const struct mpcr_type *t,
                 int root)
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
static int reduce(struct mpcr_comm *c, void *acc, MPI_Count count, MPI_Datatype type,
                  const struct mpcr_type *t, MPI_Op op, int root, uint64_t len)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    int size = c->size, vr = (c->rank - root + size) % size, err = MPI_SUCCESS;
    void *tmp = malloc(len + 1);
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

/* Is op defined on type (MPI 4.0 section 6.9.2)? 0 or MPI_ERR_OP. */
static int check_op(MPI_Op op, MPI_Datatype type)
{
    return mpcr_reduce_local(op, type, NULL, NULL, 0);
}

int mpcr_impl_Bcast(void *buf, MPI_Count count, const struct mpcr_type *t, int root,
                    struct mpcr_comm *c)
{
    return bcast(c, buf, count, t, root);
}

static int reduce_to(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     const struct mpcr_type *t, MPI_Op op, int root, struct mpcr_comm *c, int all)
{
    int err = check_op(op, type);
    uint64_t len;
    if (!err) err = span(count, t->extent, &len);
    if (err) return err;
    int here = all || c->rank == root; /* ranks whose recvbuf receives the result */
    void *acc = here ? recvbuf : malloc(len + 1);
    if (!acc) return MPI_ERR_NO_MEM;
    if (sendbuf != MPI_IN_PLACE && acc != sendbuf) memcpy(acc, sendbuf, len);
    err = reduce(c, acc, count, type, t, op, root, len);
    if (!here) free(acc);
    if (!err && all) err = bcast(c, recvbuf, count, t, root);
    return err;
}

int mpcr_impl_Reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     const struct mpcr_type *t, MPI_Op op, int root, struct mpcr_comm *c)
{
    return reduce_to(sendbuf, recvbuf, count, type, t, op, root, c, 0);
}

int mpcr_impl_Allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                        const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    return reduce_to(sendbuf, recvbuf, count, type, t, op, 0, c, 1);
}

int mpcr_impl_Barrier(struct mpcr_comm *c)
{
    return barrier(c);
}

/* Copies `count` elements of type st at src to rcount elements of rt at
 * dst, through the packed form (a rank's message to itself). */
static int copy_typed(const void *src, MPI_Count count, const struct mpcr_type *st, void *dst,
                      MPI_Count rcount, const struct mpcr_type *rt)
{
    uint64_t bytes, room;
    if (span(count, st->size, &bytes) || span(rcount, rt->size, &room)) return MPI_ERR_COUNT;
    if (bytes > room) return MPI_ERR_TRUNCATE;
    void *tmp = malloc(bytes + 1);
    if (!tmp) return MPI_ERR_NO_MEM;
    mpcr_pack(tmp, src, count, st);
    mpcr_unpack(dst, tmp, bytes, rt);
    free(tmp);
    return MPI_SUCCESS;
}

/* The send and receive arguments that are significant on this rank (their
 * kinds are optional in src/lib/api): 0 or an error class. */
static int check_used(MPI_Count scount, const struct mpcr_type *st, MPI_Count rcount,
                      const struct mpcr_type *rt, int send_used, int recv_used)
{
    if ((send_used && scount < 0) || (recv_used && rcount < 0)) return MPI_ERR_COUNT;
    if ((send_used && !st) || (recv_used && !rt)) return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}

/* Address of block i of `count` elements of t in buf. */
static char *block_at(const void *buf, int i, MPI_Count count, const struct mpcr_type *t)
{
    return (char *)buf + (size_t)i * (size_t)count * t->extent;
}

/* Linear gather: the root receives each rank's block in rank order. */
static int gather(struct mpcr_comm *c, const void *sbuf, MPI_Count scount,
                  const struct mpcr_type *st, void *rbuf, MPI_Count rcount,
                  const struct mpcr_type *rt, int root)
{
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    if (c->rank != root) return coll_send(ctx, root, TAG_GATHER, sbuf, scount, st);
    for (int i = 0; i < c->size; i++) {
        char *slot = block_at(rbuf, i, rcount, rt);
        int err = i != root              ? coll_recv(ctx, i, TAG_GATHER, slot, rcount, rt)
                  : sbuf == MPI_IN_PLACE ? MPI_SUCCESS
                                         : copy_typed(sbuf, scount, st, slot, rcount, rt);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

int mpcr_impl_Gather(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                     void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt, int root,
                     struct mpcr_comm *c)
{
    int at_root = c->rank == root;
    int err = check_used(sendcount, st, recvcount, rt, !(at_root && sendbuf == MPI_IN_PLACE),
                         at_root);
    return err ? err : gather(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, root);
}

int mpcr_impl_Scatter(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                      void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt, int root,
                      struct mpcr_comm *c)
{
    int at_root = c->rank == root;
    int err = check_used(sendcount, st, recvcount, rt, at_root,
                         !(at_root && recvbuf == MPI_IN_PLACE));
    if (err) return err;
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    if (!at_root) return coll_recv(ctx, root, TAG_SCATTER, recvbuf, recvcount, rt);
    for (int i = 0; i < c->size && !err; i++) {
        const char *slot = block_at(sendbuf, i, sendcount, st);
        if (i != root)
            err = coll_send(ctx, i, TAG_SCATTER, slot, sendcount, st);
        else if (recvbuf != MPI_IN_PLACE)
            err = copy_typed(slot, sendcount, st, recvbuf, recvcount, rt);
    }
    return err;
}

/* Gather to rank 0, then broadcast the whole array. */
int mpcr_impl_Allgather(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                        void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                        struct mpcr_comm *c)
{
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = check_used(sendcount, st, recvcount, rt, !in_place, 1);
    if (err) return err;
    if (in_place) { /* this rank's block is already in its slot of recvbuf */
        sendbuf = block_at(recvbuf, c->rank, recvcount, rt);
        sendcount = recvcount, st = rt;
        if (c->rank == 0) sendbuf = MPI_IN_PLACE;
    }
    err = gather(c, sendbuf, sendcount, st, recvbuf, recvcount, rt, 0);
    MPI_Count total;
    if (!err && __builtin_mul_overflow(recvcount, (MPI_Count)c->size, &total)) err = MPI_ERR_COUNT;
    if (!err) err = bcast(c, recvbuf, total, rt, 0);
    return err;
}

/* Pairwise exchange: in step i every rank sends its block for rank + i and
 * receives the block of rank - i, so each step pairs everyone once. */
int mpcr_impl_Alltoall(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                       void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                       struct mpcr_comm *c)
{
    if (sendbuf == MPI_IN_PLACE) mpcr_unsupported_feature("MPI_Alltoall with MPI_IN_PLACE");
    int err = check_used(sendcount, st, recvcount, rt, 1, 1);
    if (err) return err;
    uint32_t ctx = c->vid | MPCR_COLL_CONTEXT;
    int size = c->size, rank = c->rank;
    for (int i = 0; i < size && !err; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        const char *out = block_at(sendbuf, to, sendcount, st);
        char *in = block_at(recvbuf, from, recvcount, rt);
        if (i == 0) {
            err = copy_typed(out, sendcount, st, in, recvcount, rt);
            continue;
        }
        err = mpcr_exchange(ctx, to, TAG_ALLTOALL, out, sendcount, st, from, TAG_ALLTOALL, in,
                            recvcount, rt, MPI_STATUS_IGNORE);
    }
    return err;
}
