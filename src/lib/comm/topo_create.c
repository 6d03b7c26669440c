/* Topology constructors: the new communicator is made as any other (a
 * split keeping the ranks, as MPICH does with or without reorder, or a
 * duplicate), then its topology is attached to it (topo.h). */
#include "api_gen.h"
#include "comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "env/info.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>

/* Copies n ints into a new array at *dst; 0 or MPI_ERR_NO_MEM. */
static int keep(int **dst, const int *src, int n)
{
    *dst = malloc(((size_t)n + 1) * sizeof **dst);
    if (!*dst) return MPI_ERR_NO_MEM;
    if (n && src) memcpy(*dst, src, (size_t)n * sizeof **dst);
    return MPI_SUCCESS;
}

/* The first n ranks of c, in their order, with topology t attached (taken
 * over, freed on failure); MPI_COMM_NULL for the others. */
static int make_with(struct mpcr_comm *c, int n, struct mpcr_topo *t, MPI_Comm *out)
{
    struct mpcr_comm *nc = NULL;
    int err = mpcr_comm_split(c, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, &nc);
    if (err || !nc) {
        mpcr_topo_free(t);
        if (!err) *out = MPI_COMM_NULL;
        return err;
    }
    nc->topo = t;
    *out = mpcr_comm_handle(nc);
    return MPI_SUCCESS;
}

static struct mpcr_topo *cart(int ndims, const int dims[], const int periods[])
{
    struct mpcr_topo *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->kind = MPI_CART, t->ndims = ndims;
    if (keep(&t->dims, dims, ndims) || keep(&t->periods, periods, ndims)) {
        mpcr_topo_free(t);
        return NULL;
    }
    for (int d = 0; d < ndims; d++)
        t->periods[d] = t->periods[d] != 0;
    return t;
}

int mpcr_impl_Cart_create(struct mpcr_comm *c, int ndims, const int dims[], const int periods[],
                          int reorder, MPI_Comm *comm_cart)
{
    (void)reorder; /* ranks are kept, as MPICH keeps them */
    int n, err = mpcr_cart_grid_size(ndims, dims, &n);
    if (err) return err;
    if (ndims > 0 && !periods) return MPI_ERR_ARG;
    if (n > c->size) return MPI_ERR_ARG;
    if (!comm_cart) return MPI_ERR_ARG;
    struct mpcr_topo *t = cart(ndims, dims, periods);
    if (!t) return MPI_ERR_NO_MEM;
    return make_with(c, n, t, comm_cart);
}

/* The ranks whose coordinates agree in the dimensions dropped form one
 * new grid of the dimensions kept; the order of rank in it is their order
 * in c (row-major in both). */
int mpcr_impl_Cart_sub(struct mpcr_comm *c, const int remain_dims[], MPI_Comm *newcomm)
{
    const struct mpcr_topo *t = c->topo;
    if (!t || t->kind != MPI_CART) return MPI_ERR_TOPOLOGY;
    if ((t->ndims && !remain_dims) || !newcomm) return MPI_ERR_ARG;
    int coords[t->ndims + 1], dims[t->ndims + 1], periods[t->ndims + 1], kept = 0, color = 0;
    int r = c->rank;
    for (int d = t->ndims - 1; d >= 0; d--) {
        coords[d] = r % t->dims[d];
        r /= t->dims[d];
    }
    for (int d = 0; d < t->ndims; d++) {
        if (remain_dims[d]) {
            dims[kept] = t->dims[d], periods[kept] = t->periods[d];
            kept++;
        } else {
            color = color * t->dims[d] + coords[d];
        }
    }
    /* No dimension kept: a zero-dimensional grid, which (as from
     * MPI_Cart_create with no dimension) holds one rank, the first; the
     * others get MPI_COMM_NULL, as MPICH answers (its test topo/cartsuball) */
    if (kept == 0) color = c->rank == 0 ? 0 : MPI_UNDEFINED;
    struct mpcr_topo *sub = cart(kept, dims, periods);
    if (!sub) return MPI_ERR_NO_MEM;
    struct mpcr_comm *nc;
    int err = mpcr_comm_split(c, color, c->rank, &nc);
    if (err || !nc) {
        mpcr_topo_free(sub);
        if (!err) *newcomm = MPI_COMM_NULL;
        return err;
    }
    nc->topo = sub;
    *newcomm = mpcr_comm_handle(nc);
    return MPI_SUCCESS;
}

int mpcr_impl_Graph_create(struct mpcr_comm *c, int nnodes, const int indx[], const int edges[],
                           int reorder, MPI_Comm *comm_graph)
{
    (void)reorder;
    if (nnodes < 0 || nnodes > c->size || !comm_graph) return MPI_ERR_ARG;
    if (nnodes > 0 && !indx) return MPI_ERR_ARG;
    int nedges = nnodes ? indx[nnodes - 1] : 0;
    if (nedges < 0 || (nedges > 0 && !edges)) return MPI_ERR_ARG;
    for (int i = 0; i < nnodes; i++)
        if (indx[i] < (i ? indx[i - 1] : 0)) return MPI_ERR_ARG;
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes) return MPI_ERR_ARG;
    struct mpcr_topo *t = calloc(1, sizeof *t);
    if (!t) return MPI_ERR_NO_MEM;
    t->kind = MPI_GRAPH, t->nnodes = nnodes, t->nedges = nedges;
    if (keep(&t->index, indx, nnodes) || keep(&t->edges, edges, nedges)) {
        mpcr_topo_free(t);
        return MPI_ERR_NO_MEM;
    }
    return make_with(c, nnodes, t, comm_graph);
}

/* Weights given (not MPI_UNWEIGHTED) for a list of n. */
static int weights_given(const int *w)
{
    return w != MPI_UNWEIGHTED;
}

/* A duplicate of c with this rank's neighbours attached (taken over). */
static int dist_make(struct mpcr_comm *c, struct mpcr_topo *t, MPI_Comm *out)
{
    struct mpcr_comm *nc;
    int err = mpcr_comm_dup(c, &nc);
    if (err) {
        mpcr_topo_free(t);
        return err;
    }
    nc->topo = t;
    *out = mpcr_comm_handle(nc);
    return MPI_SUCCESS;
}

static int ranks_valid(const int *r, int n, int size)
{
    for (int i = 0; i < n; i++)
        if (r[i] < 0 || r[i] >= size) return 0;
    return 1;
}

int mpcr_impl_Dist_graph_create_adjacent(struct mpcr_comm *c, int indegree, const int sources[],
                                         const int sourceweights[], int outdegree,
                                         const int destinations[], const int destweights[],
                                         MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    if (!mpcr_info_valid_or_null(info)) return MPI_ERR_INFO;
    if (indegree < 0 || outdegree < 0 || !comm_dist_graph) return MPI_ERR_ARG;
    if ((indegree && !sources) || (outdegree && !destinations)) return MPI_ERR_ARG;
    if (!ranks_valid(sources, indegree, c->size) || !ranks_valid(destinations, outdegree, c->size))
        return MPI_ERR_RANK;
    int weighted = weights_given(sourceweights) && weights_given(destweights);
    struct mpcr_topo *t = calloc(1, sizeof *t);
    if (!t) return MPI_ERR_NO_MEM;
    t->kind = MPI_DIST_GRAPH, t->indegree = indegree, t->outdegree = outdegree;
    t->weighted = weighted;
    int err = keep(&t->sources, sources, indegree);
    if (!err) err = keep(&t->destinations, destinations, outdegree);
    if (!err && weighted && indegree && sourceweights != MPI_WEIGHTS_EMPTY)
        err = keep(&t->sourceweights, sourceweights, indegree);
    if (!err && weighted && outdegree && destweights != MPI_WEIGHTS_EMPTY)
        err = keep(&t->destweights, destweights, outdegree);
    if (err) {
        mpcr_topo_free(t);
        return err;
    }
    return dist_make(c, t, comm_dist_graph);
}

/* Every rank learns every edge (source, destination, weight) given by any
 * rank: an allgather of the counts, then of the edges padded to the
 * largest count (mpcr's collectives, on c). */
static int all_edges(struct mpcr_comm *c, const int *mine, int n, int **all, int *most)
{
    const struct mpcr_type *it = mpcr_type_get(MPI_INT);
    int *counts = malloc((size_t)c->size * sizeof *counts);
    if (!counts) return MPI_ERR_NO_MEM;
    int err = mpcr_impl_Allgather(&n, 1, it, counts, 1, it, c);
    int m = 0;
    for (int i = 0; !err && i < c->size; i++)
        if (counts[i] > m) m = counts[i];
    free(counts);
    if (err) return err;
    int *padded = calloc((size_t)m * 3 + 1, sizeof *padded);
    int *got = malloc(((size_t)m * 3 * (size_t)c->size + 1) * sizeof *got);
    if (!padded || !got) {
        free(padded), free(got);
        return MPI_ERR_NO_MEM;
    }
    for (int i = 0; i < m * 3; i++)
        padded[i] = i < n * 3 ? mine[i] : -1; /* source -1: no edge */
    err = mpcr_impl_Allgather(padded, (MPI_Count)m * 3, it, got, (MPI_Count)m * 3, it, c);
    free(padded);
    if (err) {
        free(got);
        return err;
    }
    *all = got, *most = m;
    return MPI_SUCCESS;
}

int mpcr_impl_Dist_graph_create(struct mpcr_comm *c, int n, const int sources[],
                                const int degrees[], const int destinations[], const int weights[],
                                MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    (void)reorder;
    if (!mpcr_info_valid_or_null(info)) return MPI_ERR_INFO;
    if (n < 0 || !comm_dist_graph || (n && (!sources || !degrees))) return MPI_ERR_ARG;
    int nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0) return MPI_ERR_ARG;
        nedges += degrees[i];
    }
    if (!ranks_valid(sources, n, c->size) ||
        (nedges && (!destinations || !ranks_valid(destinations, nedges, c->size))))
        return MPI_ERR_RANK;
    int weighted = weights_given(weights);
    int *mine = malloc(((size_t)nedges * 3 + 1) * sizeof *mine);
    if (!mine) return MPI_ERR_NO_MEM;
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            mine[3 * e] = sources[i], mine[3 * e + 1] = destinations[e];
            mine[3 * e + 2] = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
        }
    int *all, most;
    int err = all_edges(c, mine, nedges, &all, &most);
    free(mine);
    if (err) return err;
    struct mpcr_topo *t = calloc(1, sizeof *t);
    int total = most * c->size;
    if (t) t->kind = MPI_DIST_GRAPH, t->weighted = weighted;
    if (!t || keep(&t->sources, NULL, total) || keep(&t->destinations, NULL, total) ||
        keep(&t->sourceweights, NULL, total) || keep(&t->destweights, NULL, total)) {
        free(all), mpcr_topo_free(t);
        return MPI_ERR_NO_MEM;
    }
    /* In the order the edges were given: by the giving rank, then its order. */
    for (int e = 0; e < total; e++) {
        const int *edge = all + 3 * e;
        if (edge[0] < 0) continue;
        if (edge[1] == c->rank) {
            t->sourceweights[t->indegree] = edge[2];
            t->sources[t->indegree++] = edge[0];
        }
        if (edge[0] == c->rank) {
            t->destweights[t->outdegree] = edge[2];
            t->destinations[t->outdegree++] = edge[1];
        }
    }
    free(all);
    if (!weighted) {
        free(t->sourceweights), free(t->destweights);
        t->sourceweights = t->destweights = NULL;
    }
    return dist_make(c, t, comm_dist_graph);
}
