/* A communicator's virtual topology (MPI 4.0 chapter 8): plain data in the
 * program's memory, attached to its communicator, so every query answers
 * the same after a restart (the proxy knows nothing of it). */
#ifndef MPCR_TOPO_H
#define MPCR_TOPO_H

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

#endif
