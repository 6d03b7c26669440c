/* Topology queries: answered from the communicator's topology in the
 * program's memory (topo.h), without the proxy, so the same after a
 * restart. Constructors: topo_create.c. */
#include "api_gen.h"
#include "comm.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>

/* A copy of n ints (NULL for none); *ok cleared when out of memory. */
static int *ints_copy(const int *a, int n, int *ok)
{
    if (!a) return NULL;
    int *b = malloc(((size_t)n + 1) * sizeof *b);
    if (!b) {
        *ok = 0;
        return NULL;
    }
    memcpy(b, a, (size_t)n * sizeof *b);
    return b;
}

struct mpcr_topo *mpcr_topo_copy(const struct mpcr_topo *t)
{
    struct mpcr_topo *c = malloc(sizeof *c);
    if (!c) return NULL;
    *c = *t;
    int ok = 1;
    c->dims = ints_copy(t->dims, t->ndims, &ok);
    c->periods = ints_copy(t->periods, t->ndims, &ok);
    c->index = ints_copy(t->index, t->nnodes, &ok);
    c->edges = ints_copy(t->edges, t->nedges, &ok);
    c->sources = ints_copy(t->sources, t->indegree, &ok);
    c->sourceweights = ints_copy(t->sourceweights, t->indegree, &ok);
    c->destinations = ints_copy(t->destinations, t->outdegree, &ok);
    c->destweights = ints_copy(t->destweights, t->outdegree, &ok);
    if (!ok) {
        mpcr_topo_free(c);
        return NULL;
    }
    return c;
}

void mpcr_topo_free(struct mpcr_topo *t)
{
    if (!t) return;
    free(t->dims), free(t->periods), free(t->index), free(t->edges);
    free(t->sources), free(t->sourceweights), free(t->destinations), free(t->destweights);
    free(t);
}

int mpcr_impl_Topo_test(struct mpcr_comm *c, int *status)
{
    if (!status) return MPI_ERR_ARG;
    *status = c->topo ? c->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* c's topology when it is of this kind, else NULL (MPI_ERR_TOPOLOGY). */
static const struct mpcr_topo *topo_of(const struct mpcr_comm *c, int kind)
{
    return c->topo && c->topo->kind == kind ? c->topo : NULL;
}

/* ---- Cartesian ---- */

int mpcr_impl_Cartdim_get(struct mpcr_comm *c, int *ndims)
{
    const struct mpcr_topo *t = topo_of(c, MPI_CART);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (!ndims) return MPI_ERR_ARG;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

/* The coordinates of rank r (row-major: the last dimension varies fastest). */
static void coords_of(const struct mpcr_topo *t, int r, int *coords)
{
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = r % t->dims[d];
        r /= t->dims[d];
    }
}

int mpcr_impl_Cart_get(struct mpcr_comm *c, int maxdims, int dims[], int periods[], int coords[])
{
    const struct mpcr_topo *t = topo_of(c, MPI_CART);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (maxdims < t->ndims) return MPI_ERR_ARG;
    if (t->ndims && (!dims || !periods || !coords)) return MPI_ERR_ARG;
    memcpy(dims, t->dims, (size_t)t->ndims * sizeof *dims);
    memcpy(periods, t->periods, (size_t)t->ndims * sizeof *periods);
    coords_of(t, c->rank, coords);
    return MPI_SUCCESS;
}

int mpcr_impl_Cart_coords(struct mpcr_comm *c, int rank, int maxdims, int coords[])
{
    const struct mpcr_topo *t = topo_of(c, MPI_CART);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (rank < 0 || rank >= c->size) return MPI_ERR_RANK;
    if (maxdims < t->ndims || (t->ndims && !coords)) return MPI_ERR_ARG;
    coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

/* The rank at coords (periodic dimensions wrap); -1 when outside the grid. */
static int rank_at(const struct mpcr_topo *t, const int *coords)
{
    int r = 0;
    for (int d = 0; d < t->ndims; d++) {
        int x = coords[d], n = t->dims[d];
        if (t->periods[d])
            x = ((x % n) + n) % n;
        else if (x < 0 || x >= n)
            return -1;
        r = r * n + x;
    }
    return r;
}

int mpcr_impl_Cart_rank(struct mpcr_comm *c, const int coords[], int *rank)
{
    const struct mpcr_topo *t = topo_of(c, MPI_CART);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (!rank || (t->ndims && !coords)) return MPI_ERR_ARG;
    int r = rank_at(t, coords);
    if (r < 0) return MPI_ERR_ARG;
    *rank = r;
    return MPI_SUCCESS;
}

int mpcr_impl_Cart_shift(struct mpcr_comm *c, int direction, int disp, int *rank_source,
                         int *rank_dest)
{
    const struct mpcr_topo *t = topo_of(c, MPI_CART);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (direction < 0 || direction >= t->ndims || !rank_source || !rank_dest) return MPI_ERR_ARG;
    int coords[t->ndims], at = 0;
    coords_of(t, c->rank, coords);
    at = coords[direction];
    coords[direction] = at + disp;
    *rank_dest = rank_at(t, coords);
    coords[direction] = at - disp;
    *rank_source = rank_at(t, coords);
    if (*rank_dest < 0) *rank_dest = MPI_PROC_NULL;
    if (*rank_source < 0) *rank_source = MPI_PROC_NULL;
    return MPI_SUCCESS;
}

/* Whether ndims dims describe a grid, and its number of processes. */
static int grid_size(int ndims, const int dims[], int *n)
{
    if (ndims < 0) return MPI_ERR_DIMS;
    if (ndims > 0 && !dims) return MPI_ERR_ARG;
    long p = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0) return MPI_ERR_DIMS;
        p *= dims[d];
        if (p > INT32_MAX) return MPI_ERR_DIMS;
    }
    *n = (int)p;
    return MPI_SUCCESS;
}

int mpcr_cart_grid_size(int ndims, const int dims[], int *n)
{
    return grid_size(ndims, dims, n);
}

/* The identity mapping, as MPICH's: the grid's first ranks keep theirs. */
int mpcr_impl_Cart_map(struct mpcr_comm *c, int ndims, const int dims[], const int periods[],
                       int *newrank)
{
    (void)periods;
    int n, err = grid_size(ndims, dims, &n);
    if (err) return err;
    if (!newrank) return MPI_ERR_ARG;
    if (n > c->size) return MPI_ERR_ARG;
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- graphs ---- */

int mpcr_impl_Graphdims_get(struct mpcr_comm *c, int *nnodes, int *nedges)
{
    const struct mpcr_topo *t = topo_of(c, MPI_GRAPH);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (!nnodes || !nedges) return MPI_ERR_ARG;
    *nnodes = t->nnodes, *nedges = t->nedges;
    return MPI_SUCCESS;
}

int mpcr_impl_Graph_get(struct mpcr_comm *c, int maxindex, int maxedges, int indx[], int edges[])
{
    const struct mpcr_topo *t = topo_of(c, MPI_GRAPH);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (maxindex < 0 || maxedges < 0) return MPI_ERR_ARG;
    int ni = maxindex < t->nnodes ? maxindex : t->nnodes;
    int ne = maxedges < t->nedges ? maxedges : t->nedges;
    if ((ni && !indx) || (ne && !edges)) return MPI_ERR_ARG;
    memcpy(indx, t->index, (size_t)ni * sizeof *indx);
    memcpy(edges, t->edges, (size_t)ne * sizeof *edges);
    return MPI_SUCCESS;
}

/* The neighbours of node `rank`: edges [first, end). */
static int neighbours(const struct mpcr_topo *t, int rank, int *first, int *end)
{
    if (rank < 0 || rank >= t->nnodes) return MPI_ERR_RANK;
    *first = rank ? t->index[rank - 1] : 0;
    *end = t->index[rank];
    return MPI_SUCCESS;
}

int mpcr_impl_Graph_neighbors_count(struct mpcr_comm *c, int rank, int *nneighbors)
{
    const struct mpcr_topo *t = topo_of(c, MPI_GRAPH);
    if (!t) return MPI_ERR_TOPOLOGY;
    int first, end, err = neighbours(t, rank, &first, &end);
    if (err) return err;
    if (!nneighbors) return MPI_ERR_ARG;
    *nneighbors = end - first;
    return MPI_SUCCESS;
}

int mpcr_impl_Graph_neighbors(struct mpcr_comm *c, int rank, int maxneighbors, int neighbors[])
{
    const struct mpcr_topo *t = topo_of(c, MPI_GRAPH);
    if (!t) return MPI_ERR_TOPOLOGY;
    int first, end, err = neighbours(t, rank, &first, &end);
    if (err) return err;
    if (maxneighbors < 0) return MPI_ERR_ARG;
    int n = end - first < maxneighbors ? end - first : maxneighbors;
    if (n && !neighbors) return MPI_ERR_ARG;
    memcpy(neighbors, t->edges + first, (size_t)n * sizeof *neighbors);
    return MPI_SUCCESS;
}

int mpcr_impl_Graph_map(struct mpcr_comm *c, int nnodes, const int indx[], const int edges[],
                        int *newrank)
{
    (void)indx, (void)edges;
    if (nnodes < 1 || nnodes > c->size || !newrank) return MPI_ERR_ARG;
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- distributed graphs ---- */

int mpcr_impl_Dist_graph_neighbors_count(struct mpcr_comm *c, int *indegree, int *outdegree,
                                         int *weighted)
{
    const struct mpcr_topo *t = topo_of(c, MPI_DIST_GRAPH);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (!indegree || !outdegree || !weighted) return MPI_ERR_ARG;
    *indegree = t->indegree, *outdegree = t->outdegree, *weighted = t->weighted;
    return MPI_SUCCESS;
}

/* Copies up to max of n ints (weights: only when both sides have them). */
static void copy_upto(int *dst, const int *src, int n, int max)
{
    if (dst && src && dst != MPI_UNWEIGHTED && dst != MPI_WEIGHTS_EMPTY)
        memcpy(dst, src, (size_t)(n < max ? n : max) * sizeof *dst);
}

int mpcr_impl_Dist_graph_neighbors(struct mpcr_comm *c, int maxindegree, int sources[],
                                   int sourceweights[], int maxoutdegree, int destinations[],
                                   int destweights[])
{
    const struct mpcr_topo *t = topo_of(c, MPI_DIST_GRAPH);
    if (!t) return MPI_ERR_TOPOLOGY;
    if (maxindegree < 0 || maxoutdegree < 0) return MPI_ERR_ARG;
    copy_upto(sources, t->sources, t->indegree, maxindegree);
    copy_upto(destinations, t->destinations, t->outdegree, maxoutdegree);
    copy_upto(sourceweights, t->sourceweights, t->indegree, maxindegree);
    copy_upto(destweights, t->destweights, t->outdegree, maxoutdegree);
    return MPI_SUCCESS;
}
