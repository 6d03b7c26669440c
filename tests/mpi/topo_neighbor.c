/* Neighbourhood collectives over a 2-D grid periodic in one dimension and
 * of size 1 in the other (MPI_PROC_NULL both sides), an open 1-D grid
 * (MPI_PROC_NULL ends), a graph and a distributed graph: MPI_Neighbor_allgather(v),
 * alltoall(v/w), each block received printed. Compared with MPICH's run. */
#include "out.h"

#define MAXN 16

static void print(const char *what, const int *v, int n)
{
    out("  %s:", what);
    for (int i = 0; i < n; i++)
        out(" %d", v[i]);
    out("\n");
}

static void all(const char *what, MPI_Comm c, int nin, int nout, int me)
{
    out("%s (in %d, out %d):\n", what, nin, nout);
    int send[2 * MAXN], recv[2 * MAXN], counts[MAXN], displs[MAXN], scounts[MAXN], sdispls[MAXN];
    MPI_Aint sbytes[MAXN], rbytes[MAXN];
    MPI_Datatype types[MAXN];
    for (int i = 0; i < 2 * MAXN; i++)
        send[i] = 100 * me + i, recv[i] = -1;
    MPI_Neighbor_allgather(send, 2, MPI_INT, recv, 2, MPI_INT, c);
    print("allgather", recv, 2 * nin);
    for (int i = 0; i < nin; i++)
        counts[i] = 1, displs[i] = 2 * (nin - 1 - i); /* reversed, with gaps */
    for (int i = 0; i < 2 * MAXN; i++)
        recv[i] = -1;
    MPI_Neighbor_allgatherv(send, 1, MPI_INT, recv, counts, displs, MPI_INT, c);
    print("allgatherv", recv, 2 * nin);
    for (int i = 0; i < 2 * MAXN; i++)
        recv[i] = -1;
    MPI_Neighbor_alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, c);
    print("alltoall", recv, nin);
    for (int j = 0; j < nout; j++)
        scounts[j] = 1 + j % 2, sdispls[j] = j;
    for (int i = 0; i < nin; i++)
        counts[i] = 2, displs[i] = 2 * i;
    for (int i = 0; i < 2 * MAXN; i++)
        recv[i] = -1;
    /* each receives what its neighbour sent it: 1 or 2 ints, so counts of 2 */
    MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INT, recv, counts, displs, MPI_INT, c);
    print("alltoallv", recv, 2 * nin);
    for (int j = 0; j < nout; j++)
        scounts[j] = 1, sbytes[j] = (MPI_Aint)(j * sizeof(int)), types[j] = MPI_INT;
    for (int i = 0; i < nin; i++)
        counts[i] = 1, rbytes[i] = (MPI_Aint)((nin - 1 - i) * sizeof(int));
    for (int i = 0; i < 2 * MAXN; i++)
        recv[i] = -1;
    MPI_Neighbor_alltoallw(send, scounts, sbytes, types, recv, counts, rbytes, types, c);
    print("alltoallw", recv, nin);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    out("rank %d:\n", me);
    /* (a periodic dimension of 2: the one neighbour gets both blocks, and
     * MPICH 4.0.2's alltoall and alltoallv/w order them differently; mpcr
     * follows the alltoall's, MPI 4.0 8.6: not compared) */
    int dims[2] = {n, 1}, periods[2] = {1, 0};
    MPI_Comm grid, line, graph, dist;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    all("periodic ring by 1", grid, 4, 4, me);
    int ld[1] = {n}, lp[1] = {0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, ld, lp, 0, &line);
    all("open line", line, 2, 2, me);
    /* a star: 0 linked to everyone */
    int index[MAXN], edges[2 * MAXN], e = 0;
    for (int i = 0; i < n; i++) {
        if (i == 0)
            for (int k = 1; k < n; k++)
                edges[e++] = k;
        else
            edges[e++] = 0;
        index[i] = e;
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph);
    int cnt;
    MPI_Graph_neighbors_count(graph, me, &cnt);
    all("star graph", graph, cnt, cnt, me);
    /* directed: to 1 right and 2 left (two edges to one rank: MPICH 4.0.2's
     * alltoall and alltoallv order the blocks differently, not compared) */
    int src[2] = {(me + n - 1) % n, (me + 2) % n}, dst[2] = {(me + 1) % n, (me + n - 2) % n};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &dist);
    all("dist graph", dist, 2, 2, me);
    MPI_Comm_free(&grid), MPI_Comm_free(&line), MPI_Comm_free(&graph), MPI_Comm_free(&dist);
    out_flush();
    MPI_Finalize();
    return 0;
}
