/* Checkpoint scenario: a 2-D Jacobi stencil on a Cartesian grid of ranks
 * (MPI_Dims_create, MPI_Cart_create with reorder, MPI_Cart_shift for the
 * halo partners), row sums over a MPI_Comm_split of the grid, column sums
 * over a MPI_Cart_sub. Every step also makes and frees a communicator of
 * the row's group (MPI_Comm_create_group) and one of the ranks sharing a
 * host (MPI_Comm_split_type), so checkpoints land inside creations,
 * exchanges with neighbourhood collectives over a graph and a distributed
 * graph (rings made before the first step), and asks every topology,
 * group and name query again: each must answer what
 * it answered before the first step, whatever checkpoints and restarts
 * (under another MPI too) happened in between (MANA loses the Cartesian
 * topology at a restart). Integer arithmetic: the result is exact, the
 * same natively and under mpcr.
 *   ckpt_jacobi [STEPS [N [UNITS]]]   (default 20 16 5: N x N points a
 *   rank, UNITS units of computation a step) */
#include "ckpt.h"

struct view { /* everything the program asks of its communicators */
    int topo, ndims, dims[2], periods[2], coords[2], rank, up, down, left, right;
    int row_size, row_rank, col_ndims, col_dims, col_coord, row_cmp, row_in_world[8], namelen;
    char name[MPI_MAX_OBJECT_NAME];
    int graph_topo, nnodes, nedges, nneighbours, neighbours[8], dist_topo, indeg, outdeg, weighted;
    int sources[2], sourceweights[2], destinations[2], destweights[2];
};

/* A ring as a graph and as a distributed graph (weighted), both made
 * before the first step, so in every image. */
static void rings(MPI_Comm *graph, MPI_Comm *dist)
{
    int size, me;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int index[64], edges[128];
    for (int i = 0; i < size; i++) {
        edges[2 * i] = (i + 1) % size, edges[2 * i + 1] = (i + size - 1) % size;
        index[i] = 2 * i + 2;
    }
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, graph);
    int src[2] = {(me + size - 1) % size, (me + 1) % size}, sw[2] = {me, 10 + me};
    int dst[2] = {(me + 1) % size, (me + size - 1) % size}, dw[2] = {20 + me, 30 + me};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, dist);
}

static void look_rings(MPI_Comm graph, MPI_Comm dist, struct view *v)
{
    int me;
    MPI_Comm_rank(graph, &me);
    MPI_Topo_test(graph, &v->graph_topo);
    MPI_Graphdims_get(graph, &v->nnodes, &v->nedges);
    MPI_Graph_neighbors_count(graph, me, &v->nneighbours);
    MPI_Graph_neighbors(graph, me, 8, v->neighbours);
    MPI_Topo_test(dist, &v->dist_topo);
    MPI_Dist_graph_neighbors_count(dist, &v->indeg, &v->outdeg, &v->weighted);
    MPI_Dist_graph_neighbors(dist, 2, v->sources, v->sourceweights, 2, v->destinations,
                             v->destweights);
}

static void look(MPI_Comm grid, MPI_Comm row, MPI_Comm col, MPI_Group rowg, struct view *v)
{
    memset(v, 0, sizeof *v);
    MPI_Topo_test(grid, &v->topo);
    MPI_Cartdim_get(grid, &v->ndims);
    MPI_Cart_get(grid, 2, v->dims, v->periods, v->coords);
    MPI_Comm_rank(grid, &v->rank);
    int c[2];
    MPI_Cart_coords(grid, v->rank, 2, c);
    int r;
    MPI_Cart_rank(grid, c, &r);
    check(r == v->rank && c[0] == v->coords[0] && c[1] == v->coords[1], "cart rank/coords");
    MPI_Cart_shift(grid, 0, 1, &v->up, &v->down);
    MPI_Cart_shift(grid, 1, 1, &v->left, &v->right);
    MPI_Comm_size(row, &v->row_size);
    MPI_Comm_rank(row, &v->row_rank);
    int cp;
    MPI_Cartdim_get(col, &v->col_ndims);
    MPI_Cart_get(col, 1, &v->col_dims, &cp, &v->col_coord);
    MPI_Group g;
    MPI_Comm_group(row, &g);
    MPI_Group_compare(g, rowg, &v->row_cmp);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int in[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Group_translate_ranks(g, v->row_size < 8 ? v->row_size : 8, in, wg, v->row_in_world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Comm_get_name(grid, v->name, &v->namelen);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 20), n = arg_long(argc, argv, 2, 16),
         units = arg_long(argc, argv, 3, 5);
    int size, dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Comm grid, row, col;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Comm_set_name(grid, "jacobi grid");
    int me, coords[2], keep_col[2] = {1, 0};
    MPI_Comm_rank(grid, &me);
    MPI_Cart_coords(grid, me, 2, coords);
    MPI_Comm_split(grid, coords[0], coords[1], &row);
    MPI_Cart_sub(grid, keep_col, &col);
    MPI_Group rowg;
    MPI_Comm_group(row, &rowg);
    MPI_Comm graph, dist;
    rings(&graph, &dist);
    struct view before, now;
    look(grid, row, col, rowg, &before);
    look_rings(graph, dist, &before);

    /* (n+2) x (n+2) points with a halo; fixed values on the global border */
    long w = n + 2;
    int64_t *a = calloc((size_t)(w * w), sizeof *a), *b = calloc((size_t)(w * w), sizeof *b);
    int64_t *sendbuf = malloc((size_t)n * sizeof *sendbuf),
            *recvbuf = malloc((size_t)n * sizeof *recvbuf);
    for (long i = 0; i < w * w; i++)
        a[i] = (int64_t)(mix2((uint64_t)me, (uint64_t)i) % 1000000);
    uint64_t work = 0;
    for (long s = 0; s < steps; s++) {
        /* halos: rows are contiguous, columns packed by hand */
        MPI_Sendrecv(a + w + 1, (int)n, MPI_INT64_T, before.up, 1, a + (n + 1) * w + 1, (int)n,
                     MPI_INT64_T, before.down, 1, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + n * w + 1, (int)n, MPI_INT64_T, before.down, 2, a + 1, (int)n, MPI_INT64_T,
                     before.up, 2, grid, MPI_STATUS_IGNORE);
        for (int side = 0; side < 2; side++) {
            long from = side ? n : 1, to = side ? 0 : n + 1; /* side 0: send left column */
            int dst = side ? before.right : before.left, src = side ? before.left : before.right;
            for (long i = 0; i < n; i++)
                sendbuf[i] = a[(i + 1) * w + from];
            MPI_Sendrecv(sendbuf, (int)n, MPI_INT64_T, dst, 3 + side, recvbuf, (int)n, MPI_INT64_T,
                         src, 3 + side, grid, MPI_STATUS_IGNORE);
            if (src != MPI_PROC_NULL)
                for (long i = 0; i < n; i++)
                    a[(i + 1) * w + to] = recvbuf[i];
        }
        int64_t change = 0;
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++) {
                long k = i * w + j;
                b[k] = (a[k - 1] + a[k + 1] + a[k - w] + a[k + w] + 4 * a[k]) / 8;
                change += b[k] > a[k] ? b[k] - a[k] : a[k] - b[k];
            }
        for (long i = 1; i <= n; i++)
            memcpy(a + i * w + 1, b + i * w + 1, (size_t)n * sizeof *a);
        work = mix2(work, compute((uint64_t)s, units));
        int64_t total = 0, rowsum = 0, colsum = 0;
        MPI_Allreduce(&change, &total, 1, MPI_INT64_T, MPI_SUM, grid);
        MPI_Allreduce(&change, &rowsum, 1, MPI_INT64_T, MPI_SUM, row);
        MPI_Allreduce(&change, &colsum, 1, MPI_INT64_T, MPI_SUM, col);
        /* communicators made and freed while checkpoints come */
        MPI_Comm byrow, shared;
        /* (over the world: MPICH 4.0.2's MPI_Comm_create_group crashes on a
         * Cartesian communicator) */
        MPI_Comm_create_group(MPI_COMM_WORLD, rowg, 7, &byrow);
        int64_t again = 0;
        MPI_Allreduce(&change, &again, 1, MPI_INT64_T, MPI_SUM, byrow);
        check(again == rowsum, "step %ld: the row's sum over MPI_Comm_create_group's communicator",
              s);
        MPI_Comm_free(&byrow);
        MPI_Comm_split_type(grid, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &shared);
        MPI_Comm_free(&shared);
        /* the neighbourhood collectives over the rings: each rank's change */
        int64_t around[2] = {-1, -1}, back[2] = {-1, -1}, mine[2] = {change, -change};
        MPI_Neighbor_allgather(&change, 1, MPI_INT64_T, around, 1, MPI_INT64_T, graph);
        MPI_Neighbor_alltoall(mine, 1, MPI_INT64_T, back, 1, MPI_INT64_T, dist);
        int64_t check_sum = 0;
        MPI_Allreduce(&around[0], &check_sum, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        check(check_sum == total, "step %ld: the changes gathered from the graph's neighbours", s);
        work = mix2(work, (uint64_t)(back[0] * 3 + back[1])); /* in the report */
        look(grid, row, col, rowg, &now);
        look_rings(graph, dist, &now);
        check(!memcmp(&now, &before, sizeof now),
              "step %ld: a topology, group or name query answers otherwise", s);
        if (s % 10 == 9) progress("step %ld: change %" PRId64 "\n", s + 1, total);
        if (s == 0) {
            int64_t rows[2] = {rowsum, colsum};
            MPI_Allreduce(MPI_IN_PLACE, rows, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
            progress("largest row sum %" PRId64 ", column sum %" PRId64 "\n", rows[0], rows[1]);
        }
    }
    uint64_t sum = 0;
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            sum = mix2(sum, (uint64_t)a[i * w + j]);
    const char *names[] = {"grid", "coords", "work"};
    uint64_t v[] = {sum, (uint64_t)(before.coords[0] * 100 + before.coords[1]), work};
    report("jacobi", names, v, 3);
    MPI_Group_free(&rowg);
    MPI_Comm_free(&row), MPI_Comm_free(&col), MPI_Comm_free(&grid);
    MPI_Comm_free(&graph), MPI_Comm_free(&dist);
    free(a), free(b), free(sendbuf), free(recvbuf);
    MPI_Finalize();
    return 0;
}
