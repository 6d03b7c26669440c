/* Generalised active target synchronisation (MPI 4.0 12.5.2): post, start,
 * complete, wait, test, as the library's messages on the window's
 * communicator (its own duplicate: no program message can match them),
 * which a checkpoint's drain covers like any. A target's MPI_Win_post sends
 * an empty message to each origin of its group, whose MPI_Win_start waits
 * for them; MPI_Win_complete sends one back to each target (the epoch's
 * operations are complete already: win_ops.c), whose MPI_Win_wait (or a
 * successful MPI_Win_test) receives them, then merges a separate window's
 * copies. Which ranks an epoch names is kept in the window, in the
 * program's memory, so a checkpoint may land between any two of these. */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "win.h"

#include <stdlib.h>

enum { TAG_POST = 1, TAG_COMPLETE = 2 };

/* The ranks of w's communicator that g names, malloc'ed into *out. */
static int ranks_of(const struct mpcr_win *w, const struct mpcr_group *g, int **out, int *n)
{
    int *r = malloc(((size_t)g->size + 1) * sizeof *r);
    if (!r) return MPI_ERR_NO_MEM;
    for (int i = 0; i < g->size; i++) {
        int j = 0;
        while (j < w->nmembers && w->members[j] != g->ranks[i])
            j++;
        if (j == w->nmembers) {
            free(r);
            return MPI_ERR_GROUP;
        }
        r[i] = j;
    }
    *out = r, *n = g->size;
    return MPI_SUCCESS;
}

static int note(struct mpcr_win *w, int rank, int tag)
{
    return mpcr_impl_Send(NULL, 0, mpcr_type_get(MPI_BYTE), rank, tag, w->comm);
}

static int await(struct mpcr_win *w, int rank, int tag)
{
    return mpcr_impl_Recv(NULL, 0, mpcr_type_get(MPI_BYTE), rank, tag, w->comm,
                          MPI_STATUS_IGNORE);
}

int mpcr_impl_Win_post(struct mpcr_group *group, int assert, struct mpcr_win *w)
{
    (void)assert;
    if (w->post_ranks) return MPI_ERR_RMA_SYNC;
    int err = ranks_of(w, group, &w->post_ranks, &w->npost);
    if (err) return err;
    w->post_done = 0;
    mpcr_win_merge(w); /* the program's stores before the epoch are what the origins see */
    for (int i = 0; i < w->npost && !err; i++)
        err = note(w, w->post_ranks[i], TAG_POST);
    return err;
}

int mpcr_impl_Win_start(struct mpcr_group *group, int assert, struct mpcr_win *w)
{
    (void)assert;
    if (w->start_ranks) return MPI_ERR_RMA_SYNC;
    int err = ranks_of(w, group, &w->start_ranks, &w->nstart);
    for (int i = 0; i < w->nstart && !err; i++)
        err = await(w, w->start_ranks[i], TAG_POST);
    return err;
}

int mpcr_impl_Win_complete(struct mpcr_win *w)
{
    if (!w->start_ranks) return MPI_ERR_RMA_SYNC;
    int err = MPI_SUCCESS;
    for (int i = 0; i < w->nstart && !err; i++)
        err = note(w, w->start_ranks[i], TAG_COMPLETE);
    free(w->start_ranks);
    w->start_ranks = NULL, w->nstart = 0;
    return err;
}

/* The exposure epoch's end: every origin's complete received. */
static void exposed(struct mpcr_win *w)
{
    mpcr_win_merge(w); /* the origins' operations reach the private copy */
    free(w->post_ranks);
    w->post_ranks = NULL, w->npost = w->post_done = 0;
}

int mpcr_impl_Win_wait(struct mpcr_win *w)
{
    if (!w->post_ranks) return MPI_ERR_RMA_SYNC;
    for (; w->post_done < w->npost; w->post_done++) {
        int err = await(w, w->post_ranks[w->post_done], TAG_COMPLETE);
        if (err) return err;
    }
    exposed(w);
    return MPI_SUCCESS;
}

int mpcr_impl_Win_test(struct mpcr_win *w, int *flag)
{
    if (!flag) return MPI_ERR_ARG;
    if (!w->post_ranks) return MPI_ERR_RMA_SYNC;
    *flag = 0;
    while (w->post_done < w->npost) {
        int there = 0, err = mpcr_impl_Iprobe(w->post_ranks[w->post_done], TAG_COMPLETE, w->comm,
                                              &there, MPI_STATUS_IGNORE);
        if (err) return err;
        if (!there) return MPI_SUCCESS;
        if ((err = await(w, w->post_ranks[w->post_done], TAG_COMPLETE))) return err;
        w->post_done++;
    }
    exposed(w);
    *flag = 1;
    return MPI_SUCCESS;
}
