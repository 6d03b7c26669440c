/* A 2-D halo-exchange kernel, as stencil codes run it (issue 10, point 6):
 * the ranks form a periodic Cartesian grid (MPI_Dims_create,
 * MPI_Cart_create, MPI_Cart_shift); each owns an N x N block of doubles
 * with a one-cell halo. An iteration posts 4 MPI_Irecv and 4 MPI_Isend of
 * its edges (columns packed into a buffer), MPI_Waitall over the 8, then a
 * 5-point Jacobi sweep. Time per iteration in microseconds, the median of
 * BENCH_BATCHES batches:
 *   halo_64_us             N = 64: communication weighs most
 *   halo_512_us            N = 512: the sweep weighs most
 *   halo_64_persistent_us  N = 64 with persistent requests (MPI_Send_init,
 *                          MPI_Recv_init once, MPI_Startall each iteration)
 *   halo [SECONDS]   (default 0.5 per measurement; any number of ranks) */
#include "bench_mpi.h"

#include <string.h>

enum { SMALL, LARGE, PERSISTENT, NKINDS };
static const char *const names[NKINDS] = {"halo_64_us", "halo_512_us", "halo_64_persistent_us"};
static const int edge[NKINDS] = {64, 512, 64};

static MPI_Comm grid;
static int nbr[4]; /* up, down, left, right */
static double *cur, *next, *sendbuf[4], *recvbuf[4];

#define AT(g, n, i, j) ((g)[(size_t)(i) * ((n) + 2) + (j)])

static void pack_edges(int n)
{
    for (int k = 0; k < n; k++) {
        sendbuf[0][k] = AT(cur, n, 1, k + 1);
        sendbuf[1][k] = AT(cur, n, n, k + 1);
        sendbuf[2][k] = AT(cur, n, k + 1, 1);
        sendbuf[3][k] = AT(cur, n, k + 1, n);
    }
}

/* The halo received from neighbour d lies beside the edge facing it. */
static void unpack_halo(int n)
{
    for (int k = 0; k < n; k++) {
        AT(cur, n, 0, k + 1) = recvbuf[0][k];
        AT(cur, n, n + 1, k + 1) = recvbuf[1][k];
        AT(cur, n, k + 1, 0) = recvbuf[2][k];
        AT(cur, n, k + 1, n + 1) = recvbuf[3][k];
    }
}

static void sweep(int n)
{
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++)
            AT(next, n, i, j) = 0.25 * (AT(cur, n, i - 1, j) + AT(cur, n, i + 1, j) +
                                        AT(cur, n, i, j - 1) + AT(cur, n, i, j + 1));
    double *t = cur;
    cur = next, next = t;
}

/* What neighbour d sends towards us carries its tag d ^ 1: its "down"
 * edge arrives as our "up" halo. */
static void make_requests(int n, MPI_Request r[8], int persistent)
{
    for (int d = 0; d < 4; d++) {
        if (persistent) {
            MPI_Recv_init(recvbuf[d], n, MPI_DOUBLE, nbr[d], d ^ 1, grid, &r[d]);
            MPI_Send_init(sendbuf[d], n, MPI_DOUBLE, nbr[d], d, grid, &r[4 + d]);
        } else {
            MPI_Irecv(recvbuf[d], n, MPI_DOUBLE, nbr[d], d ^ 1, grid, &r[d]);
            MPI_Isend(sendbuf[d], n, MPI_DOUBLE, nbr[d], d, grid, &r[4 + d]);
        }
    }
}

static double run(int kind, long iterations)
{
    int n = edge[kind];
    MPI_Request r[8];
    MPI_Status st[8]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
    if (kind == PERSISTENT) make_requests(n, r, 1);
    double t0 = bench_now();
    for (long it = 0; it < iterations; it++) {
        pack_edges(n);
        if (kind == PERSISTENT)
            MPI_Startall(8, r);
        else
            make_requests(n, r, 0);
        MPI_Waitall(8, r, st);
        unpack_halo(n);
        sweep(n);
    }
    double t = bench_now() - t0;
    if (kind == PERSISTENT)
        for (int k = 0; k < 8; k++)
            MPI_Request_free(&r[k]);
    return t;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    int size, dims[2] = {0, 0}, periodic[2] = {1, 1}, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periodic, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_shift(grid, 0, 1, &nbr[0], &nbr[1]);
    MPI_Cart_shift(grid, 1, 1, &nbr[2], &nbr[3]);
    size_t cells = (size_t)(512 + 2) * (512 + 2);
    cur = calloc(cells, sizeof *cur), next = calloc(cells, sizeof *next);
    for (int d = 0; d < 4; d++)
        sendbuf[d] = malloc(512 * sizeof(double)), recvbuf[d] = malloc(512 * sizeof(double));
    for (int kind = 0; kind < NKINDS; kind++) {
        int n = edge[kind];
        for (int i = 0; i <= n + 1; i++) /* each run starts from the same field */
            for (int j = 0; j <= n + 1; j++)
                AT(cur, n, i, j) = (double)((rank * 7919 + i * 131 + j) % 1000);
        bench_per_iteration(run, kind, 10, seconds, names[kind]);
    }
    for (int d = 0; d < 4; d++)
        free(sendbuf[d]), free(recvbuf[d]);
    free(cur), free(next);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
