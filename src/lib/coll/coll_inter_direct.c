/* Collectives over an inter-communicator (MPI 4.0 section 6.2.2) that go
 * rank to rank, each block straight to the remote rank it is for:
 * MPI_Gatherv, MPI_Scatterv (the root and every rank of the other group),
 * MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv, MPI_Alltoallw (every rank
 * and every remote rank). The counts of a v or w form are known only where
 * the blocks arrive or leave (the root's, or each rank's own), so no group
 * could gather its blocks at its rank 0 first; a direct message costs no
 * more rounds anyway (one round trip per 64 operations).
 *
 * Every message is one of a round on the span's collective context
 * (coll_inter.h), so a checkpoint finds a rank between two rounds or inside
 * one, as for any collective (docs/collectives.md). */
#include "api/api.h"
#include "api_gen.h"
#include "channel.h"
#include "coll.h"
#include "coll_inter.h"
#include "comm/comm.h"
#include "datatype/typemap.h"

/* Every rank sends block j of `out` to remote rank j and receives block j
 * of `in` from it, in windows of MPCR_BATCH_MAX / 2 remote ranks, one
 * round each. Block (i, j) moves in i's window j / W and j's window i / W:
 * by induction on the sum of the two windows' numbers, every window finds
 * its partners. */
static int exchange(struct mpcr_comm *c, const struct coll_side *out, const struct coll_side *in)
{
    enum { WINDOW = MPCR_BATCH_MAX / 2 };
    struct coll k = inter_begin(c);
    struct coll_round r;
    round_init(&r, &k);
    int n = c->inter->remote_size, err = MPI_SUCCESS;
    for (int w = 0; w < n && !err; w += WINDOW) {
        for (int j = w; j < n && j < w + WINDOW && !err; j++) {
            struct coll_block sb, rb;
            if ((err = coll_block_of(in, j, &rb)) || (err = coll_block_of(out, j, &sb))) break;
            round_recv(&r, inter_remote(c, j), 0, rb.buf, rb.count, rb.t);
            round_send(&r, inter_remote(c, j), 0, sb.buf, sb.count, sb.t);
        }
        if (!err) err = round_run(&r);
    }
    return err;
}

/* The root receives (root_sends 0) or sends (1) block j of `blocks` from or
 * to remote rank j, in rounds of up to 64; every rank of the other group
 * sends or receives its one block; the root's other members (MPI_PROC_NULL)
 * take no part. */
static int rooted(struct mpcr_comm *c, int root, int root_sends, const struct coll_side *blocks,
                  const struct coll_side *mine)
{
    struct coll k = inter_begin(c);
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    struct coll_block b;
    int err = MPI_SUCCESS;
    if (root != MPI_ROOT) {
        if ((err = coll_block_of(mine, 0, &b))) return err;
        if (root_sends)
            return coll_sendrecv(&k, 0, MPI_PROC_NULL, NULL, 0, b.t, inter_remote(c, root), b.buf,
                                 b.count, b.t);
        return coll_sendrecv(&k, 0, inter_remote(c, root), b.buf, b.count, b.t, MPI_PROC_NULL, NULL,
                             0, b.t);
    }
    struct coll_round r;
    round_init(&r, &k);
    for (int j = 0; j < c->inter->remote_size && !err; j++) {
        if ((err = coll_block_of(blocks, j, &b))) break;
        if (root_sends)
            round_send(&r, inter_remote(c, j), 0, b.buf, b.count, b.t);
        else
            round_recv(&r, inter_remote(c, j), 0, b.buf, b.count, b.t);
    }
    return err ? err : round_run(&r);
}

int mpcr_inter_Gatherv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                       void *recvbuf, struct mpcr_counts recvcounts, struct mpcr_counts displs,
                       const struct mpcr_type *rt, int root, struct mpcr_comm *c)
{
    int here = root == MPI_ROOT;
    int err = coll_check_used(sendcount, st, 0, rt, !here && root != MPI_PROC_NULL, here);
    if (err) return err;
    struct coll_side all = {.buf = recvbuf, .counts = recvcounts, .displs = displs, .t = rt},
                     mine = {.buf = sendbuf, .count = sendcount, .t = st, .one = 1};
    return rooted(c, root, 0, &all, &mine);
}

int mpcr_inter_Scatterv(const void *sendbuf, struct mpcr_counts sendcounts,
                        struct mpcr_counts displs, const struct mpcr_type *st, void *recvbuf,
                        MPI_Count recvcount, const struct mpcr_type *rt, int root,
                        struct mpcr_comm *c)
{
    int here = root == MPI_ROOT;
    int err = coll_check_used(0, st, recvcount, rt, here, !here && root != MPI_PROC_NULL);
    if (err) return err;
    struct coll_side all = {.buf = sendbuf, .counts = sendcounts, .displs = displs, .t = st},
                     mine = {.buf = recvbuf, .count = recvcount, .t = rt, .one = 1};
    return rooted(c, root, 1, &all, &mine);
}

/* Every rank sends its one block to every remote rank. */
int mpcr_inter_Allgatherv(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                          void *recvbuf, struct mpcr_counts recvcounts, struct mpcr_counts displs,
                          const struct mpcr_type *rt, struct mpcr_comm *c)
{
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG; /* not for inter-communicators */
    int err = coll_check_used(sendcount, st, 0, rt, 1, 1);
    if (err) return err;
    struct coll_side out = {.buf = sendbuf, .count = sendcount, .t = st, .one = 1},
                     in = {.buf = recvbuf, .counts = recvcounts, .displs = displs, .t = rt};
    return exchange(c, &out, &in);
}

int mpcr_inter_Alltoall(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                        void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                        struct mpcr_comm *c)
{
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    int err = coll_check_used(sendcount, st, recvcount, rt, 1, 1);
    if (err) return err;
    struct coll_side out = {.buf = sendbuf, .count = sendcount, .t = st},
                     in = {.buf = recvbuf, .count = recvcount, .t = rt};
    return exchange(c, &out, &in);
}

int mpcr_inter_Alltoallv(const void *sendbuf, struct mpcr_counts sendcounts,
                         struct mpcr_counts sdispls, const struct mpcr_type *st, void *recvbuf,
                         struct mpcr_counts recvcounts, struct mpcr_counts rdispls,
                         const struct mpcr_type *rt, struct mpcr_comm *c)
{
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    int err = coll_check_used(0, st, 0, rt, 1, 1);
    if (err) return err;
    struct coll_side out = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .t = st},
                     in = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .t = rt};
    return exchange(c, &out, &in);
}

/* Displacements in bytes, a datatype per block. */
int mpcr_inter_Alltoallw(const void *sendbuf, struct mpcr_counts sendcounts,
                         struct mpcr_counts sdispls, const MPI_Datatype sendtypes[], void *recvbuf,
                         struct mpcr_counts recvcounts, struct mpcr_counts rdispls,
                         const MPI_Datatype recvtypes[], struct mpcr_comm *c)
{
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    struct coll_side
        out = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .types = sendtypes},
        in = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .types = recvtypes};
    return exchange(c, &out, &in);
}
