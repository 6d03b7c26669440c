/* Neighbourhood collectives over a 2-D grid periodic in one dimension and
 * of size 1 in the other (MPI_PROC_NULL both sides), an open 1-D grid
 * (MPI_PROC_NULL ends), a graph and a distributed graph: MPI_Neighbor_allgather(v),
 * alltoall(v/w), each block received printed; each blocking, non-blocking
 * (all five outstanding at once, completed by MPI_Waitall) and persistent
 * (MPI_Neighbor_*_init, started twice by MPI_Startall). Compared with
 * MPICH's run. */
#include "out.h"

#define MAXN 16

enum form { BLOCKING, NONBLOCKING, PERSISTENT, FORMS };
static const char *form_names[FORMS] = {"blocking", "non-blocking", "persistent"};

/* One neighbourhood collective x in the form `form`: called, started
 * (request q[k]), or made (q[k], started later). */
#define HOOD(x, ...)                                                                               \
    (void)(form == BLOCKING      ? MPI_Neighbor_##x(__VA_ARGS__)                                   \
           : form == NONBLOCKING ? MPI_Ineighbor_##x(__VA_ARGS__, &q[k++])                         \
                                 : MPI_Neighbor_##x##_init(__VA_ARGS__, MPI_INFO_NULL, &q[k++]))

static void print(const char *what, const int *v, int n)
{
    out("  %s:", what);
    for (int i = 0; i < n; i++)
        out(" %d", v[i]);
    out("\n");
}

enum { GATHER, GATHERV, TOALL, TOALLV, TOALLW, OPS };

static void clear(int recv[OPS][2 * MAXN])
{
    for (int o = 0; o < OPS; o++)
        for (int i = 0; i < 2 * MAXN; i++)
            recv[o][i] = -1;
}

static void all(const char *what, MPI_Comm c, int nin, int nout, int me)
{
    int send[2 * MAXN], recv[OPS][2 * MAXN];
    int gv_counts[MAXN], gv_displs[MAXN], v_scounts[MAXN], v_sdispls[MAXN], v_rcounts[MAXN],
        v_rdispls[MAXN], w_scounts[MAXN], w_rcounts[MAXN];
    MPI_Aint sbytes[MAXN], rbytes[MAXN];
    MPI_Datatype types[MAXN];
    for (int i = 0; i < 2 * MAXN; i++)
        send[i] = 100 * me + i;
    for (int i = 0; i < nin; i++)
        gv_counts[i] = 1, gv_displs[i] = 2 * (nin - 1 - i); /* reversed, with gaps */
    /* each receives what its neighbour sent it: 1 or 2 ints, so counts of 2 */
    for (int j = 0; j < nout; j++)
        v_scounts[j] = 1 + j % 2, v_sdispls[j] = j;
    for (int i = 0; i < nin; i++)
        v_rcounts[i] = 2, v_rdispls[i] = 2 * i;
    for (int j = 0; j < nout; j++)
        w_scounts[j] = 1, sbytes[j] = (MPI_Aint)(j * sizeof(int)), types[j] = MPI_INT;
    for (int i = 0; i < nin; i++)
        w_rcounts[i] = 1, rbytes[i] = (MPI_Aint)((nin - 1 - i) * sizeof(int));
    for (enum form form = BLOCKING; form < FORMS; form++) {
        MPI_Request q[OPS];
        MPI_Status st[OPS];
        int k = 0;
        clear(recv);
        HOOD(allgather, send, 2, MPI_INT, recv[GATHER], 2, MPI_INT, c);
        HOOD(allgatherv, send, 1, MPI_INT, recv[GATHERV], gv_counts, gv_displs, MPI_INT, c);
        HOOD(alltoall, send, 1, MPI_INT, recv[TOALL], 1, MPI_INT, c);
        HOOD(alltoallv, send, v_scounts, v_sdispls, MPI_INT, recv[TOALLV], v_rcounts, v_rdispls,
             MPI_INT, c);
        HOOD(alltoallw, send, w_scounts, sbytes, types, recv[TOALLW], w_rcounts, rbytes, types, c);
        if (form == NONBLOCKING) MPI_Waitall(k, q, st);
        for (int start = 0; form == PERSISTENT && start < 2; start++) {
            clear(recv);
            MPI_Startall(k, q);
            MPI_Waitall(k, q, st);
        }
        for (int i = 0; form == PERSISTENT && i < k; i++)
            MPI_Request_free(&q[i]);
        out("%s (in %d, out %d), %s:\n", what, nin, nout, form_names[form]);
        print("allgather", recv[GATHER], 2 * nin);
        print("allgatherv", recv[GATHERV], 2 * nin);
        print("alltoall", recv[TOALL], nin);
        print("alltoallv", recv[TOALLV], 2 * nin);
        print("alltoallw", recv[TOALLW], nin);
    }
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
