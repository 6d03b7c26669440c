/* Topologies: MPI_Dims_create over many sizes, Cartesian grids (rank,
 * coords, shift, sub, map, a dup keeps the grid), graphs, distributed
 * graphs (adjacent and general), MPI_Topo_test, and the errors of queries
 * on the wrong kind. Compared with MPICH's own run. */
#include "out.h"

static const char *kind(int t)
{
    return t == MPI_CART         ? "cart"
           : t == MPI_GRAPH      ? "graph"
           : t == MPI_DIST_GRAPH ? "dist_graph"
           : t == MPI_UNDEFINED  ? "none"
                                 : "?";
}

static void dims_sweep(void)
{
    for (int nodes = 1; nodes <= 36; nodes++) {
        out("dims %2d:", nodes);
        for (int nd = 1; nd <= 4; nd++) {
            int dims[4] = {0, 0, 0, 0};
            MPI_Dims_create(nodes, nd, dims);
            out(" [");
            for (int d = 0; d < nd; d++)
                out("%s%d", d ? "," : "", dims[d]);
            out("]");
        }
        out("\n");
    }
    int big[3] = {0, 0, 0}, fixed[3] = {0, 3, 0}, bad[2] = {5, 0};
    MPI_Dims_create(720, 3, big);
    MPI_Dims_create(24, 3, fixed);
    out("dims 720/3 = %d,%d,%d; 24 with 3 fixed = %d,%d,%d; 24 with 5 fixed: class %d\n", big[0],
        big[1], big[2], fixed[0], fixed[1], fixed[2], error_class_of(MPI_Dims_create(24, 2, bad)));
}

static void cart(int n, int me)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(n, 2, dims);
    MPI_Comm grid, dup, row, col;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    int t, nd, r, coords[2], gd[2], gp[2], gc[2];
    MPI_Topo_test(grid, &t);
    MPI_Cartdim_get(grid, &nd);
    MPI_Comm_rank(grid, &r);
    MPI_Cart_get(grid, 2, gd, gp, gc);
    MPI_Cart_coords(grid, r, 2, coords);
    out("cart %dx%d periods %d,%d: kind %s ndims %d rank %d coords %d,%d get %d,%d\n", gd[0], gd[1],
        gp[0], gp[1], kind(t), nd, r, coords[0], coords[1], gc[0], gc[1]);
    for (int dir = 0; dir < 2; dir++)
        for (int disp = -1; disp <= 2; disp += 3) {
            int src, dst;
            MPI_Cart_shift(grid, dir, disp, &src, &dst);
            out("  shift dir %d disp %d: source %d dest %d\n", dir, disp, src, dst);
        }
    int c2[2] = {coords[0] + dims[0], coords[1]}, rr;
    MPI_Cart_rank(grid, c2, &rr);
    out("  rank of coords wrapped around dim 0: %d\n", rr);
    c2[1] = dims[1];
    out("  rank of coords off the open dim 1: class %d\n",
        error_class_of(MPI_Cart_rank(grid, c2, &rr)));
    MPI_Comm_dup(grid, &dup);
    MPI_Topo_test(dup, &t);
    int dd[2], dp[2], dc[2];
    MPI_Cart_get(dup, 2, dd, dp, dc);
    out("  dup: kind %s %dx%d coords %d,%d\n", kind(t), dd[0], dd[1], dc[0], dc[1]);
    /* no dimension kept: a zero-dimensional grid for the first rank only */
    int keep_none[2] = {0, 0};
    MPI_Comm none;
    MPI_Cart_sub(grid, keep_none, &none);
    if (none == MPI_COMM_NULL) {
        out("  sub of no dimension: MPI_COMM_NULL\n");
    } else {
        int nsz, nnd;
        MPI_Comm_size(none, &nsz), MPI_Cartdim_get(none, &nnd);
        out("  sub of no dimension: size %d ndims %d\n", nsz, nnd);
        MPI_Comm_free(&none);
    }
    int keep_row[2] = {0, 1}, keep_col[2] = {1, 0};
    MPI_Cart_sub(grid, keep_row, &row);
    MPI_Cart_sub(grid, keep_col, &col);
    int rs, rr2, cs, cr, rnd, cnd, wr = me, rowsum = 0;
    MPI_Comm_size(row, &rs), MPI_Comm_rank(row, &rr2), MPI_Comm_size(col, &cs);
    MPI_Comm_rank(col, &cr);
    MPI_Cartdim_get(row, &rnd), MPI_Cartdim_get(col, &cnd);
    MPI_Allreduce(&wr, &rowsum, 1, MPI_INT, MPI_SUM, row);
    int cp[1], cdim[1], ccoord[1];
    MPI_Cart_get(col, 1, cdim, cp, ccoord);
    out("  row: size %d rank %d ndims %d sum of world ranks %d; col: size %d rank %d ndims %d "
        "dim %d periodic %d coord %d\n",
        rs, rr2, rnd, rowsum, cs, cr, cnd, cdim[0], cp[0], ccoord[0]);
    int newrank, mdims[1] = {n - 1};
    MPI_Cart_map(MPI_COMM_WORLD, 1, mdims, periods, &newrank);
    out("  cart_map onto %d: %d\n", n - 1, newrank);
    /* a grid smaller than the communicator: the last rank is left out */
    MPI_Comm small;
    int sdims[1] = {n - 1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, sdims, periods, 0, &small);
    out("  grid of %d: %s\n", n - 1, small == MPI_COMM_NULL ? "MPI_COMM_NULL" : "member");
    if (small != MPI_COMM_NULL) MPI_Comm_free(&small);
    MPI_Comm_free(&row), MPI_Comm_free(&col), MPI_Comm_free(&dup);
    MPI_Comm_free(&grid);
}

static void graph(int n, int me)
{
    /* a ring with chords: node i -> i+1, i-1 and (node 0 only) all */
    int index[64], edges[256], e = 0;
    for (int i = 0; i < n; i++) {
        edges[e++] = (i + 1) % n;
        edges[e++] = (i + n - 1) % n;
        if (i == 0)
            for (int k = 2; k < n - 1; k++)
                edges[e++] = k;
        index[i] = e;
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
    int t, nn, ne, cnt, nb[64], gi[64], ge[256];
    MPI_Topo_test(g, &t);
    MPI_Graphdims_get(g, &nn, &ne);
    MPI_Graph_neighbors_count(g, me, &cnt);
    MPI_Graph_neighbors(g, me, 64, nb);
    MPI_Graph_get(g, 64, 256, gi, ge);
    out("graph: kind %s nodes %d edges %d; my %d neighbours:", kind(t), nn, ne, cnt);
    for (int i = 0; i < cnt; i++)
        out(" %d", nb[i]);
    out("; index[last] %d edges[last] %d\n", gi[nn - 1], ge[ne - 1]);
    int newrank;
    MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &newrank);
    out("  graph_map: %d; neighbours of rank %d: class %d\n", newrank, n,
        error_class_of(MPI_Graph_neighbors_count(g, n, &cnt)));
    int nd;
    out("  cartdim_get on a graph: class %d\n", error_class_of(MPI_Cartdim_get(g, &nd)));
    MPI_Comm_free(&g);
}

static void show_dist(const char *what, MPI_Comm d)
{
    int in, outd, w, t, src[64], sw[64], dst[64], dw[64];
    MPI_Topo_test(d, &t);
    MPI_Dist_graph_neighbors_count(d, &in, &outd, &w);
    MPI_Dist_graph_neighbors(d, 64, src, w ? sw : MPI_UNWEIGHTED, 64, dst, w ? dw : MPI_UNWEIGHTED);
    out("%s: kind %s in %d out %d weighted %d; sources", what, kind(t), in, outd, w);
    for (int i = 0; i < in; i++)
        out(" %d(%d)", src[i], w ? sw[i] : 0);
    out("; destinations");
    for (int i = 0; i < outd; i++)
        out(" %d(%d)", dst[i], w ? dw[i] : 0);
    out("\n");
}

static void dist_graph(int n, int me)
{
    /* adjacent: from the left, to the right and to rank 0 */
    int src[1] = {(me + n - 1) % n}, sw[1] = {10 + me}, dst[2] = {(me + 1) % n, 0}, dw[2] = {1, 2};
    MPI_Comm d, du, dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, &d);
    show_dist("dist adjacent weighted", d);
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, MPI_UNWEIGHTED, 1, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &du);
    show_dist("dist adjacent unweighted", du);
    /* general: each rank i gives i -> 0 */
    int sources[3], degrees[3], dests[64], weights[64], ns = 0, ne = 0;
    if (me == 0) { /* and rank 0 gives 1 -> 2 (mod n) for rank 1 */
        sources[ns] = 1 % n, degrees[ns] = 1, dests[ne] = 2 % n, weights[ne++] = 5, ns++;
    }
    sources[ns] = me, degrees[ns] = 1, dests[ne] = 0, weights[ne++] = 100 + me, ns++;
    /* and 0 -> i, from rank i (MPICH 4.0.2 crashes on a weighted query of degree 0) */
    sources[ns] = 0, degrees[ns] = 1, dests[ne] = me, weights[ne++] = 200 + me, ns++;
    MPI_Dist_graph_create(MPI_COMM_WORLD, ns, sources, degrees, dests, weights, MPI_INFO_NULL, 0,
                          &dg);
    /* the order of neighbours is MPI's to choose: print them sorted */
    int in, outd, w, s[64], swt[64], dd[64], dwt[64];
    MPI_Dist_graph_neighbors_count(dg, &in, &outd, &w);
    MPI_Dist_graph_neighbors(dg, 64, s, swt, 64, dd, dwt);
    for (int i = 0; i < in; i++)
        for (int j = i + 1; j < in; j++)
            if (s[j] < s[i] || (s[j] == s[i] && swt[j] < swt[i])) {
                int a = s[i], b = swt[i];
                s[i] = s[j], swt[i] = swt[j], s[j] = a, swt[j] = b;
            }
    for (int i = 0; i < outd; i++)
        for (int j = i + 1; j < outd; j++)
            if (dd[j] < dd[i] || (dd[j] == dd[i] && dwt[j] < dwt[i])) {
                int a = dd[i], b = dwt[i];
                dd[i] = dd[j], dwt[i] = dwt[j], dd[j] = a, dwt[j] = b;
            }
    out("dist general: in %d out %d weighted %d; sources", in, outd, w);
    for (int i = 0; i < in; i++)
        out(" %d(%d)", s[i], swt[i]);
    out("; destinations");
    for (int i = 0; i < outd; i++)
        out(" %d(%d)", dd[i], dwt[i]);
    out("\n");
    MPI_Comm_free(&d), MPI_Comm_free(&du), MPI_Comm_free(&dg);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n, t;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    out("rank %d:\n", me);
    if (me == 0) dims_sweep();
    MPI_Topo_test(MPI_COMM_WORLD, &t);
    out("world: kind %s\n", kind(t));
    int nd;
    out("cartdim_get on world: class %d\n", error_class_of(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)));
    cart(n, me);
    graph(n, me);
    dist_graph(n, me);
    out_flush();
    MPI_Finalize();
    return 0;
}
