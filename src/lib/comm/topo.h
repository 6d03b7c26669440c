/* A communicator's virtual topology (MPI 4.0 chapter 8): plain data in the
 * program's memory, attached to its communicator, so every query answers
 * the same after a restart (the proxy knows nothing of it). */
#ifndef MPCR_TOPO_H
#define MPCR_TOPO_H

#include "lib.h"

struct mpcr_topo {
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    /* MPI_CART: ndims of each; MPI_GRAPH: nnodes index entries, nedges edges */
    int ndims, nnodes, nedges;
    int *dims, *periods;
    int *index, *edges;
    /* MPI_DIST_GRAPH: this rank's neighbours and their weights (NULL
     * when created unweighted) */
    int indegree, outdegree, weighted;
    int *sources, *sourceweights, *destinations, *destweights;
};

/* A deep copy (MPI_Comm_dup keeps the topology); NULL when out of memory. */
struct mpcr_topo *mpcr_topo_copy(const struct mpcr_topo *t);
void mpcr_topo_free(struct mpcr_topo *t);
/* Whether ndims dims describe a grid (MPI_ERR_DIMS, MPI_ERR_ARG), and its
 * number of processes. */
int mpcr_cart_grid_size(int ndims, const int dims[], int *n);

/* An info argument of a constructor: hints, which mpcr may ignore, but the
 * handle must be MPI_INFO_NULL or a valid info object (else MPI_ERR_INFO). */
static inline int mpcr_info_valid_or_null(MPI_Info info)
{
    return info == MPI_INFO_NULL || mpcr_info_get(info) != NULL;
}

/* ---- comm.c, for the topology constructors ---- */

/* A new communicator of the ranks of c with color >= 0, ordered by key then
 * rank (MPI_Comm_split); *out NULL where this rank's color is MPI_UNDEFINED. */
int mpcr_comm_split(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out);
/* A duplicate of c (its topology not copied), as MPI_Comm_dup makes it. */
int mpcr_comm_dup(struct mpcr_comm *c, struct mpcr_comm **out);
/* The program's handle of a new communicator. */
MPI_Comm mpcr_comm_handle(struct mpcr_comm *c);

#endif
