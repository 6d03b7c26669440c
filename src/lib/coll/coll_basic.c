/* MPI_Barrier, MPI_Bcast, MPI_Reduce, MPI_Allreduce (docs/collectives.md).
 * Each round of a schedule is one round trip to the proxy (coll_round.c). */
#include "api_gen.h"
#include "coll.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"

#include <string.h>

/* Dissemination barrier: in round k every rank signals rank + 2^k and waits
 * for rank - 2^k; after ceil(log2(size)) rounds everyone has, transitively,
 * heard from everyone. Messages are empty. */
int mpcr_impl_Barrier(struct mpcr_comm *c)
{
    struct coll k = coll_begin(c);
    const struct mpcr_type *none = mpcr_type_get(MPI_BYTE);
    for (int d = 1; d < k.size; d <<= 1) {
        int to = (k.rank + d) % k.size, from = (k.rank - d + k.size) % k.size;
        int err = coll_sendrecv(&k, 0, to, NULL, 0, none, from, NULL, 0, none);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

/* Binomial tree from the root (ranks counted from the root: vr): a rank
 * receives from the rank that differs in its lowest set bit, then sends
 * to every rank below that bit in one round. Large messages among many
 * ranks are scattered and gathered instead (coll_bcast_split.c). */
int coll_bcast(const struct coll *k, int phase, void *buf, MPI_Count count,
               const struct mpcr_type *t, int root)
{
    uint64_t n;
    if (coll_span(count, (uint64_t)t->size, &n)) return MPI_ERR_COUNT;
    if (coll_bcast_split_wanted(k->size, n))
        return coll_bcast_split(k, phase, buf, count, t, root, n);
    int size = k->size, vr = (k->rank - root + size) % size, mask = 1, err;
    while (mask < size && !(vr & mask))
        mask <<= 1;
    if (mask < size) {
        err = coll_sendrecv(k, phase, MPI_PROC_NULL, NULL, 0, t, (vr - mask + root) % size, buf,
                            count, t);
        if (err) return err;
    }
    struct coll_round r;
    round_init(&r, k);
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size) round_send(&r, (vr + mask + root) % size, phase, buf, count, t);
    return round_run(&r);
}

int mpcr_impl_Bcast(void *buf, MPI_Count count, const struct mpcr_type *t, int root,
                    struct mpcr_comm *c)
{
    struct coll k = coll_begin(c);
    if (count == 0 || t->size == 0) return MPI_SUCCESS; /* the same on every rank: MPI's rule */
    return coll_bcast(&k, 0, buf, count, t, root);
}

/* Ops whose operands can be swapped without changing a bit of the result
 * on any type they apply to. Not MIN and MAX (nor MINLOC, MAXLOC): between
 * a NaN and a number, or -0.0 and +0.0, each keeps its second operand, and
 * an Allreduce's partners, each computing with its own part second, would
 * get different results; nor a program's op, commutative or not. (SUM and
 * PROD of two NaNs keep the first one's payload: NaN either way.) */
static int swaps_exactly(MPI_Op op)
{
    return op == MPI_SUM || op == MPI_PROD || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR ||
           op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
}

/* acc = acc op part, where acc holds the earlier ranks' part: the order of
 * every rank's result, so that an Allreduce's ranks all get the same bits;
 * part is clobbered. An op whose operands swap exactly is applied the other
 * way round, straight into acc, saving a copy of the whole vector. */
static int combine_after(MPI_Op op, MPI_Datatype type, const struct mpcr_type *t, void *acc,
                         void *part, MPI_Count count)
{
    if (swaps_exactly(op)) return mpcr_reduce_local(op, type, part, acc, count); /* acc = part op acc */
    int err = mpcr_reduce_local(op, type, acc, part, count); /* part = acc op part */
    return err ? err : coll_copy(part, count, t, acc, count, t);
}

/* Binomial tree towards the root: a rank receives the partial results of
 * all its children in one round, combines them in rank order (child
 * 2^j covers the ranks after those it already holds), and sends the result
 * to its parent. Ranks are counted from the root for commutative ops, from
 * 0 otherwise (then rank 0 sends the result on to the root), so that a
 * non-commutative op is applied in rank order. `acc` holds this rank's
 * data on entry and, at the root (vr 0), the result on return. */
int coll_reduce(const struct coll *k, int phase, void *acc, MPI_Count count, MPI_Datatype type,
                const struct mpcr_type *t, MPI_Op op, int root)
{
    int size = k->size, base = mpcr_op_commutes(op) ? root : 0;
    int vr = (k->rank - base + size) % size, mask = 1, nkids = 0, err = MPI_SUCCESS;
    void *kid[32] = {0};
    struct coll_round r;
    round_init(&r, k);
    while (mask < size && !(vr & mask)) {
        if (vr + mask < size) {
            if (!(kid[nkids] = coll_tmp(count, t))) err = MPI_ERR_NO_MEM;
            round_recv(&r, (vr + mask + base) % size, phase, kid[nkids++], count, t);
        }
        mask <<= 1;
    }
    if (!err) err = round_run(&r);
    for (int i = 0; i < nkids && !err; i++)
        err = combine_after(op, type, t, acc, kid[i], count);
    for (int i = 0; i < nkids; i++)
        coll_tmp_free(kid[i], t);
    if (!err && mask < size)
        err = coll_sendrecv(k, phase, (vr - mask + base) % size, acc, count, t, MPI_PROC_NULL, NULL,
                            0, t);
    if (!err && base != root && (k->rank == 0 || k->rank == root))
        err = coll_sendrecv(k, phase + 1, k->rank == 0 ? root : MPI_PROC_NULL, acc, count, t,
                            k->rank == root ? 0 : MPI_PROC_NULL, acc, count, t);
    return err;
}

/* Is op defined on type (MPI 4.0 section 6.9.2)? 0 or MPI_ERR_OP. */
static int check_op(MPI_Op op, MPI_Datatype type)
{
    return mpcr_reduce_local(op, type, NULL, NULL, 0);
}

/* Puts this rank's contribution (sendbuf, or recvbuf with MPI_IN_PLACE)
 * into acc, a buffer of count elements of t. */
int coll_load(void *acc, const void *sendbuf, const void *recvbuf, MPI_Count count,
              const struct mpcr_type *t)
{
    const void *from = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    return from == acc ? MPI_SUCCESS : coll_copy(from, count, t, acc, count, t);
}

int mpcr_impl_Reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                     const struct mpcr_type *t, MPI_Op op, int root, struct mpcr_comm *c)
{
    int err = check_op(op, type);
    if (err) return err;
    struct coll k = coll_begin(c);
    if (count == 0) return MPI_SUCCESS; /* the same count on every rank */
    int here = c->rank == root;
    void *acc = here ? recvbuf : coll_tmp(count, t);
    if (!acc) return MPI_ERR_NO_MEM;
    err = coll_load(acc, sendbuf, recvbuf, count, t);
    if (!err) err = coll_reduce(&k, 0, acc, count, type, t, op, root);
    if (!here) coll_tmp_free(acc, t);
    return err;
}

/* ---- MPI_Allreduce ---- */

/* Ranks beyond a power of two: with pof2 the largest power of two <= size
 * and rem = size - pof2, ranks 2i and 2i+1 (i < rem) first combine into
 * 2i+1, which takes part as new rank i; rank r >= 2 rem is new rank r - rem.
 * Rank order is kept, so non-commutative ops are applied in order. */
struct fold {
    int pof2, rem, newrank; /* newrank -1: this rank sits out */
};

static struct fold fold_of(int rank, int size)
{
    struct fold f = {1, 0, 0};
    while (f.pof2 * 2 <= size)
        f.pof2 *= 2;
    f.rem = size - f.pof2;
    f.newrank = rank < 2 * f.rem ? (rank % 2 ? rank / 2 : -1) : rank - f.rem;
    return f;
}

static int old_rank(const struct fold *f, int newrank)
{
    return newrank < f->rem ? newrank * 2 + 1 : newrank + f->rem;
}

/* The fold's first step (into the odd ranks) and last (the result back). */
static int fold_in(const struct coll *k, const struct fold *f, void *acc, void *tmp,
                   MPI_Count count, MPI_Datatype type, const struct mpcr_type *t, MPI_Op op)
{
    if (k->rank >= 2 * f->rem) return MPI_SUCCESS;
    if (f->newrank < 0)
        return coll_sendrecv(k, 0, k->rank + 1, acc, count, t, MPI_PROC_NULL, NULL, 0, t);
    int err = coll_sendrecv(k, 0, MPI_PROC_NULL, NULL, 0, t, k->rank - 1, tmp, count, t);
    return err ? err : mpcr_reduce_local(op, type, tmp, acc, count); /* acc = earlier op acc */
}

static int fold_out(const struct coll *k, const struct fold *f, void *acc, MPI_Count count,
                    const struct mpcr_type *t)
{
    if (k->rank >= 2 * f->rem) return MPI_SUCCESS;
    int odd = f->newrank >= 0;
    return coll_sendrecv(k, 3, odd ? k->rank - 1 : MPI_PROC_NULL, acc, count, t,
                         odd ? MPI_PROC_NULL : k->rank + 1, acc, count, t);
}

/* Recursive doubling: log2(pof2) rounds, each an exchange of the whole
 * vector with the partner that differs in one bit. */
static int recursive_doubling(const struct coll *k, const struct fold *f, void *acc, void *tmp,
                              MPI_Count count, MPI_Datatype type, const struct mpcr_type *t,
                              MPI_Op op)
{
    for (int mask = 1; mask < f->pof2; mask <<= 1) {
        int partner = f->newrank ^ mask, peer = old_rank(f, partner);
        int err = coll_sendrecv(k, 1, peer, acc, count, t, peer, tmp, count, t);
        if (!err)
            err = partner < f->newrank ? mpcr_reduce_local(op, type, tmp, acc, count)
                                       : combine_after(op, type, t, acc, tmp, count);
        if (err) return err;
    }
    return MPI_SUCCESS;
}

/* Elements [first, last) of the pof2 pieces a vector of count elements is
 * cut into (piece i: count / pof2 elements, one more for the first
 * count % pof2). */
static MPI_Count piece_at(MPI_Count count, int pof2, int i)
{
    MPI_Count q = count / pof2, rest = count % pof2;
    return i * q + (i < rest ? i : rest);
}

/* Where the pof2 pieces of a halving lie: piece i is elements
 * [bound(i), bound(i + 1)) of the vector. Equal pieces of `count` elements
 * (displs NULL: piece_at), or the blocks of the ranks new rank i stands for
 * (Reduce_scatter: displs[r] where rank r's block starts, `count` the
 * total). Computed, not tabled: nothing to allocate, so nothing that could
 * fail on one rank while its partners wait. */
struct bounds {
    const MPI_Count *displs;
    MPI_Count count;
    const struct fold *f;
};

static MPI_Count bound(const struct bounds *b, int i)
{
    if (!b->displs) return piece_at(b->count, b->f->pof2, i);
    if (i == b->f->pof2) return b->count;
    return b->displs[i < b->f->rem ? 2 * i : i + b->f->rem]; /* the first rank it stands for */
}

/* Reduce-scatter by recursive halving among the pof2 new ranks: in each
 * round a rank keeps the half of its pieces on its side of its partner,
 * sends the other half and combines what comes back into the half it
 * keeps. At the end this rank's piece (newrank) holds the reduction over
 * all ranks. Commutative ops only: a piece's parts are combined in no rank
 * order, but each element on one rank only, so every rank gets the same
 * bits. */
static int halving(const struct coll *k, const struct bounds *b, void *acc, void *tmp,
                   MPI_Datatype type, const struct mpcr_type *t, MPI_Op op)
{
    const struct fold *f = b->f;
    int lo = 0, hi = f->pof2; /* the pieces this rank is responsible for */
    for (int mask = f->pof2 / 2; mask > 0; mask >>= 1) {
        int partner = f->newrank ^ mask, peer = old_rank(f, partner), mid = lo + (hi - lo) / 2;
        int keep_lo = f->newrank < partner ? lo : mid, keep_hi = f->newrank < partner ? mid : hi;
        int give_lo = f->newrank < partner ? mid : lo, give_hi = f->newrank < partner ? hi : mid;
        MPI_Count k0 = bound(b, keep_lo), k1 = bound(b, keep_hi);
        MPI_Count g0 = bound(b, give_lo), g1 = bound(b, give_hi);
        int err = coll_sendrecv(k, 1, peer, coll_at(acc, g0, t), g1 - g0, t, peer,
                                coll_at(tmp, k0, t), k1 - k0, t);
        if (!err)
            err = mpcr_reduce_local(op, type, coll_at(tmp, k0, t), coll_at(acc, k0, t), k1 - k0);
        if (err) return err;
        lo = keep_lo, hi = keep_hi;
    }
    return MPI_SUCCESS;
}

/* Reduce-scatter by recursive halving, then allgather by recursive
 * doubling (Rabenseifner): each rank sends and receives about 2 * count
 * elements in all, instead of log2(pof2) * count. Commutative ops only. */
static int halving_doubling(const struct coll *k, const struct fold *f, void *acc, void *tmp,
                            MPI_Count count, MPI_Datatype type, const struct mpcr_type *t,
                            MPI_Op op)
{
    struct bounds b = {NULL, count, f};
    int err = halving(k, &b, acc, tmp, type, t, op);
    int lo = f->newrank, hi = lo + 1;
    for (int mask = 1; mask < f->pof2 && !err; mask <<= 1) {
        int partner = f->newrank ^ mask, peer = old_rank(f, partner);
        int width = hi - lo, plo = partner < f->newrank ? lo - width : hi;
        MPI_Count m0 = bound(&b, lo), m1 = bound(&b, hi);
        MPI_Count p0 = bound(&b, plo), p1 = bound(&b, plo + width);
        err = coll_sendrecv(k, 2, peer, coll_at(acc, m0, t), m1 - m0, t, peer, coll_at(acc, p0, t),
                            p1 - p0, t);
        lo = lo < plo ? lo : plo, hi = lo + 2 * width;
    }
    return err;
}

/* MPI_Reduce_scatter(_block) with a commutative op: the ranks beyond a
 * power of two fold in as for Allreduce, the pof2 new ranks reduce-scatter
 * by recursive halving, a new rank's piece being the blocks of the ranks
 * it stands for, and a rank that folded in gets its block from its
 * partner at the end. displs[i]: where rank i's block starts in the vector
 * of `total` elements in acc; this rank's block (`mine` elements) goes to
 * recvbuf. log2(pof2) rounds, 2 more with a fold. */
int coll_reduce_scatter_halving(const struct coll *k, void *acc, MPI_Count total,
                                const MPI_Count *displs, MPI_Count mine, void *recvbuf,
                                MPI_Datatype type, const struct mpcr_type *t, MPI_Op op)
{
    struct fold f = fold_of(k->rank, k->size);
    if (f.newrank < 0) { /* folded in; the block comes back from the partner */
        int err = fold_in(k, &f, acc, NULL, total, type, t, op);
        return err ? err : coll_sendrecv(k, 3, MPI_PROC_NULL, NULL, 0, t, k->rank + 1, recvbuf,
                                         mine, t);
    }
    void *tmp = coll_tmp(total, t); /* what partners send, before it is combined */
    if (!tmp) return MPI_ERR_NO_MEM;
    struct bounds b = {displs, total, &f};
    int err = fold_in(k, &f, acc, tmp, total, type, t, op);
    if (!err) err = halving(k, &b, acc, tmp, type, t, op);
    if (!err && k->rank < 2 * f.rem) /* the partner's block, before this rank's */
        err = coll_sendrecv(k, 3, k->rank - 1, coll_at(acc, displs[k->rank - 1], t),
                            displs[k->rank] - displs[k->rank - 1], t, MPI_PROC_NULL, NULL, 0, t);
    if (!err) err = coll_copy(coll_at(acc, displs[k->rank], t), mine, t, recvbuf, mine, t);
    coll_tmp_free(tmp, t);
    return err;
}

/* Above this many bytes, and with 4 ranks or more, Rabenseifner's
 * algorithm moves less data than recursive doubling; below, its extra
 * rounds (each a proxied round trip) cost more than the bytes saved. */
#define ALLREDUCE_LONG (64 * 1024)

int coll_allreduce(const struct coll *k, void *acc, MPI_Count count, MPI_Datatype type,
                   const struct mpcr_type *t, MPI_Op op)
{
    if (k->size == 1 || count == 0) return MPI_SUCCESS;
    struct fold f = fold_of(k->rank, k->size);
    void *tmp = coll_tmp(count, t);
    if (!tmp) return MPI_ERR_NO_MEM;
    int err = fold_in(k, &f, acc, tmp, count, type, t, op);
    if (!err && f.newrank >= 0) {
        uint64_t bytes = (uint64_t)count * (uint64_t)t->size;
        if (mpcr_op_commutes(op) && f.pof2 >= 4 && count >= f.pof2 && bytes >= ALLREDUCE_LONG)
            err = halving_doubling(k, &f, acc, tmp, count, type, t, op);
        else
            err = recursive_doubling(k, &f, acc, tmp, count, type, t, op);
    }
    if (!err) err = fold_out(k, &f, acc, count, t);
    coll_tmp_free(tmp, t);
    return err;
}

int mpcr_impl_Allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                        const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    int err = check_op(op, type);
    if (err) return err;
    struct coll k = coll_begin(c);
    err = coll_load(recvbuf, sendbuf, recvbuf, count, t);
    return err ? err : coll_allreduce(&k, recvbuf, count, type, t, op);
}
