/* Neighbourhood collectives (MPI 4.0 8.6): one round trip, a BATCH of a
 * receive from every in-neighbour and a send to every out-neighbour on the
 * communicator's collective context, so a checkpoint may land in the
 * middle (the batch is served again, channel.h). The neighbours come from
 * the topology in the program's memory (topo.h). */
#include "api/api.h"
#include "api_gen.h"
#include "channel.h"
#include "coll.h"
#include "comm/comm.h"
#include "comm/topo.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "pt2pt/p2p.h"
#include "runtime/staging.h"

#include <stdlib.h>

/* Tags: a neighbourhood collective is a collective like the others, with
 * the communicator's next sequence number in its tags (coll.h), so two in a
 * row, or one after another collective, never take each other's messages.
 * Its phase: a Cartesian neighbour in dimension d sends towards -1 in phase
 * 2d and towards +1 in phase 2d + 1, so that with two ranks in a periodic
 * dimension (both neighbours the same rank) each block still reaches its
 * place; graph neighbours use phase 0. */

struct hood {
    int nin, nout;
    int in[MPCR_BATCH_MAX], out[MPCR_BATCH_MAX];
    int in_tag[MPCR_BATCH_MAX], out_tag[MPCR_BATCH_MAX]; /* phases (coll.h) */
};

static int hood_of(const struct mpcr_comm *c, struct hood *h)
{
    const struct mpcr_topo *t = c->topo;
    if (!t) return MPI_ERR_TOPOLOGY;
    h->nin = h->nout = 0;
    if (t->kind == MPI_CART) {
        if (2 * t->ndims > COLL_PHASES)
            mpcr_unsupported_feature("a neighbourhood collective over more than 8 dimensions");
        int coords[t->ndims + 1];
        int r = c->rank;
        for (int d = t->ndims - 1; d >= 0; d--) {
            coords[d] = r % t->dims[d];
            r /= t->dims[d];
        }
        for (int d = 0; d < t->ndims; d++)
            for (int dir = -1; dir <= 1; dir += 2) {
                int x = coords[d] + dir, n = t->dims[d], peer = MPI_PROC_NULL;
                if (t->periods[d]) x = ((x % n) + n) % n;
                if (x >= 0 && x < n) {
                    int save = coords[d];
                    coords[d] = x;
                    peer = 0;
                    for (int k = 0; k < t->ndims; k++)
                        peer = peer * t->dims[k] + coords[k];
                    coords[d] = save;
                }
                int pos = 2 * d + (dir > 0);
                h->in[pos] = h->out[pos] = peer;
                /* sent towards dir: tag 2d (+1 when dir is +1); what comes
                 * from the -1 side was sent towards +1 */
                h->out_tag[pos] = pos;
                h->in_tag[pos] = 2 * d + (dir < 0);
            }
        h->nin = h->nout = 2 * t->ndims;
        return MPI_SUCCESS;
    }
    const int *in, *out;
    if (t->kind == MPI_GRAPH) {
        int first = c->rank ? t->index[c->rank - 1] : 0;
        h->nin = h->nout = t->index[c->rank] - first;
        in = out = t->edges + first;
    } else {
        h->nin = t->indegree, h->nout = t->outdegree;
        in = t->sources, out = t->destinations;
    }
    if (h->nin + h->nout > (int)MPCR_BATCH_MAX)
        mpcr_unsupported_feature("a neighbourhood collective with more than 64 neighbours");
    for (int i = 0; i < h->nin; i++)
        h->in[i] = in[i], h->in_tag[i] = 0;
    for (int i = 0; i < h->nout; i++)
        h->out[i] = out[i], h->out_tag[i] = 0;
    return MPI_SUCCESS;
}

/* One block of a neighbourhood collective: count elements of t at buf. */
struct block {
    const void *buf;
    MPI_Count count;
    const struct mpcr_type *t;
};

static int bytes_of(const struct block *b, uint64_t *bytes)
{
    if (b->count < 0) return MPI_ERR_COUNT;
    if (!b->t) return MPI_ERR_TYPE;
    return __builtin_mul_overflow((uint64_t)b->count, (uint64_t)b->t->size, bytes) ? MPI_ERR_COUNT
                                                                                   : MPI_SUCCESS;
}

/* Receives recv[i] from in-neighbour i, sends send[j] to out-neighbour j. */
static int exchange(struct mpcr_comm *c, const struct hood *h, const struct block *send,
                    const struct block *recv)
{
    struct mpcr_batch_op ops[MPCR_BATCH_MAX];
    int where[MPCR_BATCH_MAX]; /* each op's block: receives 0.., sends nin.. */
    unsigned n = 0;
    int err = MPI_SUCCESS;
    struct coll k = coll_begin(c);
    for (int i = 0; i < h->nin + h->nout && !err; i++) {
        int is_recv = i < h->nin, j = is_recv ? i : i - h->nin;
        int peer = is_recv ? h->in[j] : h->out[j];
        const struct block *b = is_recv ? &recv[j] : &send[j];
        uint64_t bytes, off;
        err = bytes_of(b, &bytes);
        if (err || peer == MPI_PROC_NULL) continue;
        if ((err = mpcr_staging_alloc(bytes, &off))) break;
        if (!is_recv) mpcr_pack(mpcr_staging_ptr(off), b->buf, b->count, b->t);
        where[n] = i;
        ops[n++] = (struct mpcr_batch_op){.op = is_recv ? MPCR_OP_RECV : MPCR_OP_SEND,
                                          .comm = k.ctx,
                                          .peer = peer,
                                          .tag = k.tag + (is_recv ? h->in_tag[j] : h->out_tag[j]),
                                          .offset = off,
                                          .bytes = bytes};
    }
    if (!err && n) err = mpcr_batch(ops, n);
    for (unsigned i = 0; i < n; i++) {
        if (!err) err = ops[i].rc;
        if (!err && ops[i].op == MPCR_OP_RECV) {
            const struct block *b = &recv[where[i]];
            mpcr_unpack((void *)b->buf, mpcr_staging_ptr(ops[i].offset), ops[i].rbytes, b->t);
        }
        mpcr_staging_free(ops[i].offset);
    }
    return err;
}

static const void *at(const void *buf, MPI_Count index, MPI_Count count, const struct mpcr_type *t)
{
    return t ? (const char *)buf + index * count * t->extent : buf;
}

/* How one side's blocks lie in its buffer: block i is `count` elements of t
 * at buf + i blocks (the plain forms), or counts[i] elements at displs[i]
 * elements (v forms), or counts[i] elements of types[i] at bytes[i] bytes
 * (w form); with `one`, every block is the whole buffer (allgather's send). */
struct side {
    const void *buf;
    MPI_Count count;
    const struct mpcr_type *t;
    const struct mpcr_counts *counts, *displs;
    const MPI_Aint *bytes;
    const MPI_Datatype *types;
    int one;
};

static struct block block_of(const struct side *s, int i)
{
    if (s->one) return (struct block){s->buf, s->count, s->t};
    if (s->types)
        return (struct block){(const char *)s->buf + s->bytes[i], mpcr_count_at(*s->counts, i),
                              mpcr_type_get(s->types[i])};
    if (s->counts)
        return (struct block){at(s->buf, mpcr_count_at(*s->displs, i), 1, s->t),
                              mpcr_count_at(*s->counts, i), s->t};
    return (struct block){at(s->buf, i, s->count, s->t), s->count, s->t};
}

/* Every neighbourhood collective: out's block j to out-neighbour j, in's
 * block i from in-neighbour i, in one round trip. */
static int neighbor(struct mpcr_comm *c, struct side out, struct side in)
{
    struct hood h;
    int err = hood_of(c, &h);
    if (err) return err;
    struct block send[MPCR_BATCH_MAX], recv[MPCR_BATCH_MAX];
    for (int j = 0; j < h.nout; j++)
        send[j] = block_of(&out, j);
    for (int i = 0; i < h.nin; i++)
        recv[i] = block_of(&in, i);
    return exchange(c, &h, send, recv);
}

int mpcr_impl_Neighbor_allgather(const void *sendbuf, MPI_Count sendcount,
                                 const struct mpcr_type *st, void *recvbuf, MPI_Count recvcount,
                                 const struct mpcr_type *rt, struct mpcr_comm *c)
{
    return neighbor(c, (struct side){.buf = sendbuf, .count = sendcount, .t = st, .one = 1},
                    (struct side){.buf = recvbuf, .count = recvcount, .t = rt});
}

int mpcr_impl_Neighbor_allgatherv(const void *sendbuf, MPI_Count sendcount,
                                  const struct mpcr_type *st, void *recvbuf,
                                  struct mpcr_counts recvcounts, struct mpcr_counts displs,
                                  const struct mpcr_type *rt, struct mpcr_comm *c)
{
    return neighbor(
        c, (struct side){.buf = sendbuf, .count = sendcount, .t = st, .one = 1},
        (struct side){.buf = recvbuf, .t = rt, .counts = &recvcounts, .displs = &displs});
}

int mpcr_impl_Neighbor_alltoall(const void *sendbuf, MPI_Count sendcount,
                                const struct mpcr_type *st, void *recvbuf, MPI_Count recvcount,
                                const struct mpcr_type *rt, struct mpcr_comm *c)
{
    return neighbor(c, (struct side){.buf = sendbuf, .count = sendcount, .t = st},
                    (struct side){.buf = recvbuf, .count = recvcount, .t = rt});
}

int mpcr_impl_Neighbor_alltoallv(const void *sendbuf, struct mpcr_counts sendcounts,
                                 struct mpcr_counts sdispls, const struct mpcr_type *st,
                                 void *recvbuf, struct mpcr_counts recvcounts,
                                 struct mpcr_counts rdispls, const struct mpcr_type *rt,
                                 struct mpcr_comm *c)
{
    return neighbor(
        c, (struct side){.buf = sendbuf, .t = st, .counts = &sendcounts, .displs = &sdispls},
        (struct side){.buf = recvbuf, .t = rt, .counts = &recvcounts, .displs = &rdispls});
}

/* Displacements in bytes, a datatype per block. */
int mpcr_impl_Neighbor_alltoallw(const void *sendbuf, struct mpcr_counts sendcounts,
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, struct mpcr_counts recvcounts,
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                 struct mpcr_comm *c)
{
    return neighbor(
        c,
        (struct side){.buf = sendbuf, .counts = &sendcounts, .bytes = sdispls, .types = sendtypes},
        (struct side){.buf = recvbuf, .counts = &recvcounts, .bytes = rdispls, .types = recvtypes});
}
