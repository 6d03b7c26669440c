/* MPI_Gather(v), MPI_Scatter(v), MPI_Allgather(v) (docs/collectives.md).
 * The root's receives (Gather) and sends (Scatter) go in rounds of up to
 * MPCR_BATCH_MAX, so a root of n ranks makes ceil((n - 1) / 64) round
 * trips; every other rank makes one. */
#include "api/api.h"
#include "api_gen.h"
#include "coll.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"

#include <stdlib.h>

/* Where rank i's block lies in the root's buffer, and how large it is:
 * the same count for every rank (displacement i * count), or counts and
 * displacements given per rank (the v forms). */
struct blocks {
    MPI_Count count;           /* the plain forms */
    struct mpcr_counts counts; /* the v forms: counts.p non-NULL */
    struct mpcr_counts displs;
};

static MPI_Count block_count(const struct blocks *b, int i)
{
    return b->counts.p ? mpcr_count_at(b->counts, i) : b->count;
}

static MPI_Count block_displ(const struct blocks *b, int i)
{
    return b->counts.p ? mpcr_count_at(b->displs, i) : (MPI_Count)i * b->count;
}

static int check_blocks(const struct blocks *b, int size)
{
    for (int i = 0; b->counts.p && i < size; i++)
        if (block_count(b, i) < 0) return MPI_ERR_COUNT;
    return MPI_SUCCESS;
}

/* The root receives every rank's block (its own copied, unless in place). */
static int gather(const struct coll *k, const void *sbuf, MPI_Count scount,
                  const struct mpcr_type *st, void *rbuf, const struct blocks *b,
                  const struct mpcr_type *rt, int root)
{
    if (k->rank != root)
        return coll_sendrecv(k, 0, root, sbuf, scount, st, MPI_PROC_NULL, NULL, 0, st);
    struct coll_round r;
    round_init(&r, k);
    for (int i = 0; i < k->size; i++)
        if (i != root)
            round_recv(&r, i, 0, coll_at(rbuf, block_displ(b, i), rt), block_count(b, i), rt);
    int err = round_run(&r);
    if (!err && sbuf != MPI_IN_PLACE)
        err = coll_copy(sbuf, scount, st, coll_at(rbuf, block_displ(b, root), rt),
                        block_count(b, root), rt);
    return err;
}

/* The root sends every rank its block (its own copied, unless in place). */
static int scatter(const struct coll *k, const void *sbuf, const struct blocks *b,
                   const struct mpcr_type *st, void *rbuf, MPI_Count rcount,
                   const struct mpcr_type *rt, int root)
{
    if (k->rank != root)
        return coll_sendrecv(k, 0, MPI_PROC_NULL, NULL, 0, rt, root, rbuf, rcount, rt);
    struct coll_round r;
    round_init(&r, k);
    for (int i = 0; i < k->size; i++)
        if (i != root)
            round_send(&r, i, 0, coll_at(sbuf, block_displ(b, i), st), block_count(b, i), st);
    int err = round_run(&r);
    if (!err && rbuf != MPI_IN_PLACE)
        err = coll_copy(coll_at(sbuf, block_displ(b, root), st), block_count(b, root), st, rbuf,
                        rcount, rt);
    return err;
}

int mpcr_impl_Gather(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                     void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt, int root,
                     struct mpcr_comm *c)
{
    int at_root = c->rank == root;
    int err = coll_check_used(sendcount, st, recvcount, rt, !(at_root && sendbuf == MPI_IN_PLACE),
                              at_root);
    if (err) return err;
    struct coll k = coll_begin(c);
    struct blocks b = {.count = recvcount};
    return gather(&k, sendbuf, sendcount, st, recvbuf, &b, rt, root);
}

int mpcr_impl_Gatherv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                      void *recvbuf, struct mpcr_counts recvcounts, struct mpcr_counts displs,
                      const struct mpcr_type *rt, int root, struct mpcr_comm *c)
{
    int at_root = c->rank == root;
    struct blocks b = {.counts = recvcounts, .displs = displs};
    int err = coll_check_used(sendcount, st, 0, rt, !(at_root && sendbuf == MPI_IN_PLACE), at_root);
    if (!err && at_root) err = check_blocks(&b, c->size);
    if (err) return err;
    struct coll k = coll_begin(c);
    return gather(&k, sendbuf, sendcount, st, recvbuf, &b, rt, root);
}

int mpcr_impl_Scatter(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                      void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt, int root,
                      struct mpcr_comm *c)
{
    int at_root = c->rank == root;
    int err = coll_check_used(sendcount, st, recvcount, rt, at_root,
                              !(at_root && recvbuf == MPI_IN_PLACE));
    if (err) return err;
    struct coll k = coll_begin(c);
    struct blocks b = {.count = sendcount};
    return scatter(&k, sendbuf, &b, st, recvbuf, recvcount, rt, root);
}

int mpcr_impl_Scatterv(const void *sendbuf, struct mpcr_counts sendcounts,
                       struct mpcr_counts displs, const struct mpcr_type *st, void *recvbuf,
                       MPI_Count recvcount, const struct mpcr_type *rt, int root,
                       struct mpcr_comm *c)
{
    int at_root = c->rank == root;
    struct blocks b = {.counts = sendcounts, .displs = displs};
    int err = coll_check_used(0, st, recvcount, rt, at_root, !(at_root && recvbuf == MPI_IN_PLACE));
    if (!err && at_root) err = check_blocks(&b, c->size);
    if (err) return err;
    struct coll k = coll_begin(c);
    return scatter(&k, sendbuf, &b, st, recvbuf, recvcount, rt, root);
}

/* ---- MPI_Allgather(v) ---- */

/* Recursive doubling (a power of two of ranks, equal blocks): in round j
 * each rank exchanges the 2^j blocks it has with the partner that differs
 * in bit j; log2(size) rounds. */
static int allgather_doubling(const struct coll *k, void *rbuf, MPI_Count count,
                              const struct mpcr_type *rt)
{
    for (int mask = 1; mask < k->size; mask <<= 1) {
        int partner = k->rank ^ mask, mine = k->rank & ~(mask - 1), theirs = partner & ~(mask - 1);
        int err = coll_sendrecv(k, 1, partner, coll_at(rbuf, mine * count, rt), mask * count, rt,
                                partner, coll_at(rbuf, theirs * count, rt), mask * count, rt);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

/* Ring: in round s every rank passes the block it received in round s - 1
 * (its own first) to the next rank; size - 1 rounds, each rank sends and
 * receives every block once. */
static int allgather_ring(const struct coll *k, void *rbuf, const struct blocks *b,
                          const struct mpcr_type *rt)
{
    int size = k->size, next = (k->rank + 1) % size, prev = (k->rank - 1 + size) % size;
    for (int s = 0; s < size - 1; s++) {
        int out = (k->rank - s + size) % size, in = (k->rank - s - 1 + size) % size;
        int err =
            coll_sendrecv(k, 1, next, coll_at(rbuf, block_displ(b, out), rt), block_count(b, out),
                          rt, prev, coll_at(rbuf, block_displ(b, in), rt), block_count(b, in), rt);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

/* Bruck: the blocks packed in a temporary in the order this rank's own,
 * then rank + 1's, and so on; in round j (d = 2^j) each rank sends its first
 * min(d, p - d) blocks to rank - d and receives as many into place d from
 * rank + d, which sends the blocks of ranks rank + d onwards. ceil(log2 p)
 * rounds for any p, where the ring takes p - 1; each rank sends p - 1 blocks
 * either way, and here copies every block once more (into and out of the
 * temporary). `total`: the packed bytes of all blocks. */
static int allgather_bruck(const struct coll *k, void *rbuf, const struct blocks *b,
                           const struct mpcr_type *rt, uint64_t total)
{
    int p = k->size, r = k->rank, err = MPI_SUCCESS;
    uint64_t *at = malloc(((size_t)p + 1) * sizeof *at); /* at[i]: block (r + i) % p */
    char *tmp = at && total < SIZE_MAX - 128 ? coll_scratch_get((size_t)total + 1) : NULL;
    if (!tmp) {
        free(at);
        return MPI_ERR_NO_MEM;
    }
    at[0] = 0;
    for (int i = 0; i < p; i++)
        at[i + 1] = at[i] + (uint64_t)block_count(b, (r + i) % p) * (uint64_t)rt->size;
    mpcr_pack(tmp, coll_at(rbuf, block_displ(b, r), rt), block_count(b, r), rt);
    const struct mpcr_type *bytes = mpcr_type_get(MPI_BYTE);
    for (int d = 1; d < p && !err; d <<= 1) {
        int n = d < p - d ? d : p - d;
        err = coll_sendrecv(k, 1, (r - d + p) % p, tmp, (MPI_Count)at[n], bytes, (r + d) % p,
                            tmp + at[d], (MPI_Count)(at[d + n] - at[d]), bytes);
    }
    for (int i = 1; i < p && !err; i++) {
        int from = (r + i) % p;
        mpcr_unpack(coll_at(rbuf, block_displ(b, from), rt), tmp + at[i], at[i + 1] - at[i], rt);
    }
    coll_scratch_put(tmp);
    free(at);
    return err;
}

/* Below this many bytes in all, Bruck's log2(p) rounds (each a proxied
 * round trip) cost less than the ring's p - 1 plus Bruck's extra copy. */
#define ALLGATHER_BRUCK_MAX (128u << 10)

static int allgather(const struct coll *k, const void *sbuf, MPI_Count scount,
                     const struct mpcr_type *st, void *rbuf, const struct blocks *b,
                     const struct mpcr_type *rt)
{
    int err = MPI_SUCCESS;
    if (sbuf != MPI_IN_PLACE) /* this rank's block into its place, then exchange in rbuf */
        err = coll_copy(sbuf, scount, st, coll_at(rbuf, block_displ(b, k->rank), rt),
                        block_count(b, k->rank), rt);
    if (err || k->size == 1) return err;
    if (!b->counts.p && !(k->size & (k->size - 1)))
        return allgather_doubling(k, rbuf, b->count, rt);
    uint64_t total = 0, bytes; /* the same on every rank: MPI's signatures match */
    for (int i = 0; i < k->size; i++) {
        if (coll_span(block_count(b, i), (uint64_t)rt->size, &bytes) ||
            __builtin_add_overflow(total, bytes, &total))
            return MPI_ERR_COUNT;
    }
    if (k->size > 2 && total < ALLGATHER_BRUCK_MAX) return allgather_bruck(k, rbuf, b, rt, total);
    return allgather_ring(k, rbuf, b, rt);
}

int mpcr_impl_Allgather(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                        void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                        struct mpcr_comm *c)
{
    int err = coll_check_used(sendcount, st, recvcount, rt, sendbuf != MPI_IN_PLACE, 1);
    if (err) return err;
    struct coll k = coll_begin(c);
    struct blocks b = {.count = recvcount};
    return allgather(&k, sendbuf, sendcount, st, recvbuf, &b, rt);
}

int mpcr_impl_Allgatherv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                         void *recvbuf, struct mpcr_counts recvcounts, struct mpcr_counts displs,
                         const struct mpcr_type *rt, struct mpcr_comm *c)
{
    struct blocks b = {.counts = recvcounts, .displs = displs};
    int err = coll_check_used(sendcount, st, 0, rt, sendbuf != MPI_IN_PLACE, 1);
    if (!err) err = check_blocks(&b, c->size);
    if (err) return err;
    struct coll k = coll_begin(c);
    return allgather(&k, sendbuf, sendcount, st, recvbuf, &b, rt);
}
