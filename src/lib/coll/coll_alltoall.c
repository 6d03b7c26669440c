/* MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw (docs/collectives.md).
 *
 * Every rank sends to rank + d and receives from rank - d for each
 * distance d = 1 .. size - 1, in windows of MPCR_BATCH_MAX / 2 distances:
 * one round (one round trip) per window, so up to 33 ranks exchange
 * everything in one round trip. Rank r's window w receives from the ranks
 * whose window w sends to r, so windows never wait for one another. */
#include "api/api.h"
#include "api_gen.h"
#include "channel.h"
#include "coll.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"

#include <stdlib.h>
#include <string.h>

#define WINDOW ((int)MPCR_BATCH_MAX / 2)

/* coll.h */
int coll_block_of(const struct coll_side *s, int peer, struct coll_block *b)
{
    if (s->one) {
        *b = (struct coll_block){(char *)s->buf, s->count, s->t};
        return MPI_SUCCESS;
    }
    if (!s->counts.p) {
        *b = (struct coll_block){coll_at(s->buf, peer * s->count, s->t), s->count, s->t};
        return MPI_SUCCESS;
    }
    MPI_Count count = mpcr_count_at(s->counts, peer), displ = mpcr_count_at(s->displs, peer);
    const struct mpcr_type *t = s->types ? mpcr_type_get(s->types[peer]) : s->t;
    if (count < 0) return MPI_ERR_COUNT;
    if (!t) return MPI_ERR_TYPE;
    *b = (struct coll_block){s->types ? (char *)s->buf + displ : coll_at(s->buf, displ, t), count,
                             t};
    return MPI_SUCCESS;
}

static int alltoall(const struct coll *k, const struct coll_side *out, const struct coll_side *in)
{
    int size = k->size, rank = k->rank, err;
    struct coll_block sb, rb;
    if ((err = coll_block_of(out, rank, &sb)) || (err = coll_block_of(in, rank, &rb))) return err;
    if ((err = coll_copy(sb.buf, sb.count, sb.t, rb.buf, rb.count, rb.t))) return err;
    struct coll_round r;
    round_init(&r, k);
    for (int d0 = 1; d0 < size && !err; d0 += WINDOW) {
        for (int d = d0; d < size && d < d0 + WINDOW && !err; d++) {
            int to = (rank + d) % size, from = (rank - d + size) % size;
            if ((err = coll_block_of(in, from, &rb)) || (err = coll_block_of(out, to, &sb))) break;
            round_recv(&r, from, 0, rb.buf, rb.count, rb.t);
            round_send(&r, to, 0, sb.buf, sb.count, sb.t);
        }
        if (!err) err = round_run(&r);
    }
    return err;
}

/* MPI_IN_PLACE: what this rank sends is in recvbuf, which receives
 * overwrite; a copy is sent (one window would not need it, several do). */
static int alltoall_in_place(const struct coll *k, struct coll_side *in)
{
    MPI_Count lo = 0, hi = 0; /* the bytes of recvbuf its blocks' data spans */
    int any = 0;
    for (int i = 0; i < k->size; i++) {
        struct coll_block b;
        int err = coll_block_of(in, i, &b);
        if (err) return err;
        if (b.count == 0 || b.t->size == 0) continue;
        MPI_Count at = b.buf - in->buf, from = at + b.t->true_lb,
                  to = at + (b.count - 1) * b.t->extent + b.t->true_ub;
        if (!any || from < lo) lo = from;
        if (!any || to > hi) hi = to;
        any = 1;
    }
    char *copy = malloc((size_t)(hi - lo) + 1);
    if (!copy) return MPI_ERR_NO_MEM;
    memcpy(copy, in->buf + lo, (size_t)(hi - lo)); /* holes too: a plain copy */
    struct coll_side out = *in;
    out.buf = copy - lo;
    int err = alltoall(k, &out, in);
    free(copy);
    return err;
}

int mpcr_impl_Alltoall(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                       void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                       struct mpcr_comm *c)
{
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = coll_check_used(sendcount, st, recvcount, rt, !in_place, 1);
    if (err) return err;
    struct coll k = coll_begin(c);
    struct coll_side in = {.buf = recvbuf, .count = recvcount, .t = rt};
    if (in_place) return alltoall_in_place(&k, &in);
    struct coll_side out = {.buf = sendbuf, .count = sendcount, .t = st};
    return alltoall(&k, &out, &in);
}

int mpcr_impl_Alltoallv(const void *sendbuf, struct mpcr_counts sendcounts,
                        struct mpcr_counts sdispls, const struct mpcr_type *st, void *recvbuf,
                        struct mpcr_counts recvcounts, struct mpcr_counts rdispls,
                        const struct mpcr_type *rt, struct mpcr_comm *c)
{
    int in_place = sendbuf == MPI_IN_PLACE;
    int err = coll_check_used(0, st, 0, rt, !in_place, 1);
    if (err) return err;
    struct coll k = coll_begin(c);
    struct coll_side in = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .t = rt};
    if (in_place) return alltoall_in_place(&k, &in);
    struct coll_side out = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .t = st};
    return alltoall(&k, &out, &in);
}

int mpcr_impl_Alltoallw(const void *sendbuf, struct mpcr_counts sendcounts,
                        struct mpcr_counts sdispls, const MPI_Datatype sendtypes[], void *recvbuf,
                        struct mpcr_counts recvcounts, struct mpcr_counts rdispls,
                        const MPI_Datatype recvtypes[], struct mpcr_comm *c)
{
    struct coll k = coll_begin(c);
    struct coll_side in = {
        .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .types = recvtypes};
    if (sendbuf == MPI_IN_PLACE) return alltoall_in_place(&k, &in);
    struct coll_side out = {
        .buf = sendbuf, .counts = sendcounts, .displs = sdispls, .types = sendtypes};
    return alltoall(&k, &out, &in);
}
