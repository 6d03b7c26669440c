/* Collectives over an inter-communicator (MPI 4.0 section 6.2.2) that go
 * through each group's rank 0 (or the root): MPI_Barrier, MPI_Bcast,
 * MPI_Reduce, MPI_Allreduce, MPI_Gather, MPI_Scatter, MPI_Allgather,
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block (the others, rank to rank:
 * coll_inter_direct.c). The generated entry points call these for an
 * inter-communicator (the `inter` flag, src/lib/api/README) and end the
 * job for the collectives without that flag.
 *
 * Each is made of the intra-communicator collectives over the hidden local
 * communicator of each group (intercomm.c) and messages between the groups'
 * rank 0 (or the root) on the span's collective context, numbered by the
 * inter-communicator's own count of collectives, which both groups keep
 * alike. So every step is a round of an existing schedule: a checkpoint
 * finds a rank between two rounds or inside one, as for any collective
 * (docs/collectives.md). */
#include "api/api.h"
#include "api_gen.h"
#include "coll.h"
#include "coll_inter.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"

#include <stdlib.h>

static const struct mpcr_type *bytes_type(void)
{
    return mpcr_type_get(MPI_BYTE);
}

/* Each group's barrier, the leaders' exchange, each group's barrier again:
 * no rank leaves before every rank of both groups has entered. */
int mpcr_inter_Barrier(struct mpcr_comm *c)
{
    struct coll k = inter_begin(c);
    struct mpcr_comm *l = c->inter->local;
    int err = mpcr_impl_Barrier(l);
    if (!err && c->rank == 0)
        err = coll_sendrecv(&k, 0, inter_remote(c, 0), NULL, 0, bytes_type(), inter_remote(c, 0),
                            NULL, 0, bytes_type());
    return err ? err : mpcr_impl_Barrier(l);
}

/* The root (MPI_ROOT) sends to the other group's rank 0, which broadcasts
 * in its group; the root's other members (MPI_PROC_NULL) take no part. */
int mpcr_inter_Bcast(void *buf, MPI_Count count, const struct mpcr_type *t, int root,
                     struct mpcr_comm *c)
{
    struct coll k = inter_begin(c);
    if (root == MPI_PROC_NULL || count == 0 || t->size == 0) return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return coll_sendrecv(&k, 0, inter_remote(c, 0), buf, count, t, MPI_PROC_NULL, NULL, 0, t);
    int err = MPI_SUCCESS;
    if (c->rank == 0)
        err = coll_sendrecv(&k, 0, MPI_PROC_NULL, NULL, 0, t, inter_remote(c, root), buf, count, t);
    return err ? err : mpcr_impl_Bcast(buf, count, t, 0, c->inter->local);
}

/* Reduces this group's data to its rank 0 (into *acc, allocated there). */
static int reduce_here(const void *sendbuf, void **acc, MPI_Count count, MPI_Datatype type,
                       const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    *acc = NULL;
    if (c->rank == 0 && !(*acc = coll_tmp(count, t))) return MPI_ERR_NO_MEM;
    return mpcr_impl_Reduce(sendbuf, *acc, count, type, t, op, 0, c->inter->local);
}

/* The other group reduces to its rank 0, which sends the result to the root. */
int mpcr_inter_Reduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                      const struct mpcr_type *t, MPI_Op op, int root, struct mpcr_comm *c)
{
    int err = mpcr_reduce_local(op, type, NULL, NULL, 0); /* op defined on type? */
    if (err) return err;
    struct coll k = inter_begin(c);
    if (root == MPI_PROC_NULL || count == 0) return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return coll_sendrecv(&k, 0, MPI_PROC_NULL, NULL, 0, t, inter_remote(c, 0), recvbuf, count,
                             t);
    void *acc;
    err = reduce_here(sendbuf, &acc, count, type, t, op, c);
    if (!err && c->rank == 0)
        err = coll_sendrecv(&k, 0, inter_remote(c, root), acc, count, t, MPI_PROC_NULL, NULL, 0, t);
    if (acc) coll_tmp_free(acc, t);
    return err;
}

/* Each group receives the other group's reduction: reduced to rank 0,
 * exchanged by the two ranks 0, broadcast in the group. */
int mpcr_inter_Allreduce(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                         const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    int err = mpcr_reduce_local(op, type, NULL, NULL, 0);
    if (err) return err;
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG; /* not for inter-communicators */
    struct coll k = inter_begin(c);
    if (count == 0) return MPI_SUCCESS;
    void *acc;
    err = reduce_here(sendbuf, &acc, count, type, t, op, c);
    if (!err && c->rank == 0)
        err = coll_sendrecv(&k, 0, inter_remote(c, 0), acc, count, t, inter_remote(c, 0), recvbuf,
                            count, t);
    if (acc) coll_tmp_free(acc, t);
    return err ? err : mpcr_impl_Bcast(recvbuf, count, t, 0, c->inter->local);
}

/* Gathers this group's blocks (count elements of t each) at its rank 0,
 * into *all (allocated there; the group's size times count elements). */
static int gather_here(const void *sendbuf, MPI_Count count, const struct mpcr_type *t, void **all,
                       struct mpcr_comm *c)
{
    *all = NULL;
    if (c->rank == 0 && !(*all = coll_tmp(count * c->size, t))) return MPI_ERR_NO_MEM;
    return mpcr_impl_Gather(sendbuf, count, t, *all, count, t, 0, c->inter->local);
}

/* The other group gathers at its rank 0, which sends everything to the root. */
int mpcr_inter_Gather(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                      void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt, int root,
                      struct mpcr_comm *c)
{
    int here = root == MPI_ROOT;
    int err = coll_check_used(sendcount, st, recvcount, rt, !here && root != MPI_PROC_NULL, here);
    if (err) return err;
    struct coll k = inter_begin(c);
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (here)
        return coll_sendrecv(&k, 0, MPI_PROC_NULL, NULL, 0, rt, inter_remote(c, 0), recvbuf,
                             recvcount * c->inter->remote_size, rt);
    void *all;
    err = gather_here(sendbuf, sendcount, st, &all, c);
    if (!err && c->rank == 0)
        err = coll_sendrecv(&k, 0, inter_remote(c, root), all, sendcount * c->size, st,
                            MPI_PROC_NULL, NULL, 0, st);
    if (all) coll_tmp_free(all, st);
    return err;
}

/* The root sends everything to the other group's rank 0, which scatters it. */
int mpcr_inter_Scatter(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                       void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt, int root,
                       struct mpcr_comm *c)
{
    int here = root == MPI_ROOT;
    int err = coll_check_used(sendcount, st, recvcount, rt, here, !here && root != MPI_PROC_NULL);
    if (err) return err;
    struct coll k = inter_begin(c);
    if (root == MPI_PROC_NULL) return MPI_SUCCESS;
    if (here)
        return coll_sendrecv(&k, 0, inter_remote(c, 0), sendbuf, sendcount * c->inter->remote_size,
                             st, MPI_PROC_NULL, NULL, 0, st);
    void *all = NULL;
    if (c->rank == 0 && !(all = coll_tmp(recvcount * c->size, rt))) return MPI_ERR_NO_MEM;
    if (c->rank == 0)
        err = coll_sendrecv(&k, 0, MPI_PROC_NULL, NULL, 0, rt, inter_remote(c, root), all,
                            recvcount * c->size, rt);
    if (!err)
        err = mpcr_impl_Scatter(all, recvcount, rt, recvbuf, recvcount, rt, 0, c->inter->local);
    if (all) coll_tmp_free(all, rt);
    return err;
}

/* Each group gathers at its rank 0; the ranks 0 exchange; each broadcasts
 * the other group's blocks in its group. */
int mpcr_inter_Allgather(const void *sendbuf, MPI_Count sendcount, const struct mpcr_type *st,
                         void *recvbuf, MPI_Count recvcount, const struct mpcr_type *rt,
                         struct mpcr_comm *c)
{
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG;
    int err = coll_check_used(sendcount, st, recvcount, rt, 1, 1);
    if (err) return err;
    struct coll k = inter_begin(c);
    MPI_Count rall = recvcount * c->inter->remote_size;
    void *all;
    err = gather_here(sendbuf, sendcount, st, &all, c);
    if (!err && c->rank == 0)
        err = coll_sendrecv(&k, 0, inter_remote(c, 0), all, sendcount * c->size, st,
                            inter_remote(c, 0), recvbuf, rall, rt);
    if (all) coll_tmp_free(all, st);
    return err ? err : mpcr_impl_Bcast(recvbuf, rall, rt, 0, c->inter->local);
}

/* MPI 4.0 6.11.1 and 6.11.2 on an inter-communicator: each group reduces
 * its vector (the sum of its own recvcounts, the same total in both
 * groups) to its rank 0; the ranks 0 exchange; each scatters what the
 * other group reduced in its group, block i to rank i. counts NULL:
 * recvcount elements for everyone. */
static int reduce_scatter(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                          const struct mpcr_counts *counts, MPI_Datatype type,
                          const struct mpcr_type *t, MPI_Op op, struct mpcr_comm *c)
{
    int err = mpcr_reduce_local(op, type, NULL, NULL, 0);
    if (err) return err;
    if (sendbuf == MPI_IN_PLACE) return MPI_ERR_ARG; /* not for inter-communicators */
    MPI_Count total = 0;
    MPI_Count *displs = counts ? malloc(((size_t)c->size + 1) * sizeof *displs) : NULL;
    if (counts && !displs) return MPI_ERR_NO_MEM;
    for (int i = 0; i < c->size && !err; i++) {
        MPI_Count n = counts ? mpcr_count_at(*counts, i) : recvcount;
        if (n < 0) err = MPI_ERR_COUNT;
        if (displs) displs[i] = total;
        total += n;
    }
    if (err) {
        free(displs);
        return err;
    }
    struct coll k = inter_begin(c);
    void *acc = NULL, *theirs = NULL;
    err = reduce_here(sendbuf, &acc, total, type, t, op, c);
    if (!err && c->rank == 0 && !(theirs = coll_tmp(total, t))) err = MPI_ERR_NO_MEM;
    if (!err && c->rank == 0)
        err = coll_sendrecv(&k, 0, inter_remote(c, 0), acc, total, t, inter_remote(c, 0), theirs,
                            total, t);
    if (!err && counts)
        err = mpcr_impl_Scatterv(theirs, *counts, (struct mpcr_counts){displs, 1}, t, recvbuf,
                                 mpcr_count_at(*counts, c->rank), t, 0, c->inter->local);
    else if (!err)
        err = mpcr_impl_Scatter(theirs, recvcount, t, recvbuf, recvcount, t, 0, c->inter->local);
    coll_tmp_free(acc, t);
    coll_tmp_free(theirs, t);
    free(displs);
    return err;
}

int mpcr_inter_Reduce_scatter(const void *sendbuf, void *recvbuf, struct mpcr_counts recvcounts,
                              MPI_Datatype type, const struct mpcr_type *t, MPI_Op op,
                              struct mpcr_comm *c)
{
    return reduce_scatter(sendbuf, recvbuf, 0, &recvcounts, type, t, op, c);
}

int mpcr_inter_Reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype type, const struct mpcr_type *t, MPI_Op op,
                                    struct mpcr_comm *c)
{
    return reduce_scatter(sendbuf, recvbuf, recvcount, NULL, type, t, op, c);
}
