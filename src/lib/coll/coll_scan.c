/* MPI_Reduce_scatter(_block), MPI_Scan, MPI_Exscan, MPI_Reduce_local
 * (docs/collectives.md). */
#include "api/api.h"
#include "api_gen.h"
#include "coll.h"
#include "comm/comm.h"
#include "datatype/typemap.h"

#include <stdlib.h>

int coll_reduce(const struct coll *k, int phase, void *acc, MPI_Count count, MPI_Datatype type,
                const struct mpcr_type *t, MPI_Op op, int root);
int coll_load(void *acc, const void *sendbuf, const void *recvbuf, MPI_Count count,
              const struct mpcr_type *t);

/* The whole vector reduced to rank 0 (binomial tree, rank order kept),
 * then rank i's block sent to it (one round at rank 0, in rounds of 64). */
static int to_root_then_scatter(const struct coll *k, void *acc, MPI_Count total,
                                const MPI_Count *displs, MPI_Count mine, void *recvbuf,
                                MPI_Datatype type, const struct mpcr_type *t, MPI_Op op)
{
    int err = coll_reduce(k, 0, acc, total, type, t, op, 0);
    if (err) return err;
    if (k->rank != 0) return coll_sendrecv(k, 2, MPI_PROC_NULL, NULL, 0, t, 0, recvbuf, mine, t);
    struct coll_round r;
    round_init(&r, k);
    for (int i = 1; i < k->size; i++)
        round_send(&r, i, 2, coll_at(acc, displs[i], t), displs[i + 1] - displs[i], t);
    err = round_run(&r);
    return err ? err : coll_copy(acc, mine, t, recvbuf, mine, t);
}

/* A commutative op: recursive halving (coll_basic.c), each element combined
 * on one rank only; otherwise through rank 0, in rank order. counts NULL:
 * recvcount elements for everyone. */
static int reduce_scatter(struct mpcr_comm *c, const void *sendbuf, void *recvbuf,
                          MPI_Count recvcount, const struct mpcr_counts *counts, MPI_Datatype type,
                          const struct mpcr_type *t, MPI_Op op)
{
    int err = mpcr_reduce_local(op, type, NULL, NULL, 0);
    MPI_Count total = 0, mine = recvcount; /* displs[i]: where rank i's block starts */
    MPI_Count *displs = err ? NULL : malloc(((size_t)c->size + 1) * sizeof *displs);
    if (!err && !displs) err = MPI_ERR_NO_MEM;
    for (int i = 0; i < c->size && !err; i++) {
        MPI_Count n = counts ? mpcr_count_at(*counts, i) : recvcount;
        if (n < 0 || __builtin_add_overflow(total, n, &displs[i + 1])) err = MPI_ERR_COUNT;
        if (i == c->rank) mine = n;
        displs[i] = total, total = displs[i + 1];
    }
    if (err) {
        free(displs);
        return err;
    }
    struct coll k = coll_begin(c);
    void *acc = coll_tmp(total, t);
    if (!acc) err = MPI_ERR_NO_MEM;
    if (!err) err = coll_load(acc, sendbuf, recvbuf, total, t);
    if (!err)
        err = mpcr_op_commutes(op)
                  ? coll_reduce_scatter_halving(&k, acc, total, displs, mine, recvbuf, type, t, op)
                  : to_root_then_scatter(&k, acc, total, displs, mine, recvbuf, type, t, op);
    if (acc) coll_tmp_free(acc, t);
    free(displs);
    return err;
}

int mpcr_impl_Reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                   MPI_Datatype type, const struct mpcr_type *t, MPI_Op op,
                                   struct mpcr_comm *c)
{
    return reduce_scatter(c, sendbuf, recvbuf, recvcount, NULL, type, t, op);
}

int mpcr_impl_Reduce_scatter(const void *sendbuf, void *recvbuf, struct mpcr_counts recvcounts,
                             MPI_Datatype type, const struct mpcr_type *t, MPI_Op op,
                             struct mpcr_comm *c)
{
    return reduce_scatter(c, sendbuf, recvbuf, 0, &recvcounts, type, t, op);
}

/* Prefix reductions by recursive doubling: in round j each rank exchanges
 * the reduction of the 2^j ranks block it knows (`partial`) with the rank
 * that differs in bit j; what comes from a lower rank joins the result.
 * log2(size) rounds. Exclusive: rank 0's result is left untouched, and a
 * rank's own data never joins its result. */
static int scan(struct mpcr_comm *c, const void *sendbuf, void *recvbuf, MPI_Count count,
                MPI_Datatype type, const struct mpcr_type *t, MPI_Op op, int exclusive)
{
    int err = mpcr_reduce_local(op, type, NULL, NULL, 0);
    if (err) return err;
    struct coll k = coll_begin(c);
    void *partial = coll_tmp(count, t), *tmp = coll_tmp(count, t);
    int have = !exclusive; /* recvbuf holds a result already */
    if (!partial || !tmp) err = MPI_ERR_NO_MEM;
    if (!err) err = coll_load(partial, sendbuf, recvbuf, count, t);
    if (!err && !exclusive) err = coll_load(recvbuf, sendbuf, recvbuf, count, t);
    for (int mask = 1; mask < c->size && !err; mask <<= 1) {
        int peer = c->rank ^ mask;
        if (peer >= c->size) continue;
        err = coll_sendrecv(&k, 0, peer, partial, count, t, peer, tmp, count, t);
        if (err) break;
        if (peer < c->rank) { /* tmp: the ranks before this block */
            if (have)
                err = mpcr_reduce_local(op, type, tmp, recvbuf, count);
            else
                err = coll_copy(tmp, count, t, recvbuf, count, t);
            have = 1;
            if (!err) err = mpcr_reduce_local(op, type, tmp, partial, count);
        } else { /* partial = partial op tmp */
            err = mpcr_reduce_local(op, type, partial, tmp, count);
            if (!err) err = coll_copy(tmp, count, t, partial, count, t);
        }
    }
    coll_tmp_free(partial, t);
    coll_tmp_free(tmp, t);
    return err;
}

int mpcr_impl_Scan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                   const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    return scan(c, sendbuf, recvbuf, count, type, t, op, 0);
}

int mpcr_impl_Exscan(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    return scan(c, sendbuf, recvbuf, count, type, t, op, 1);
}

int mpcr_impl_Reduce_local(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype type,
                           const struct mpcr_type *t, MPI_Op op)
{
    (void)t;
    return mpcr_reduce_local(op, type, inbuf, inoutbuf, count);
}
