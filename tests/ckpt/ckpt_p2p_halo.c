/* Checkpoint scenario: a 2-D halo exchange. The ranks form a periodic
 * PX x PY grid (MPI_Dims_create); each holds an N x N block of a grid with
 * one ghost cell around it, and every iteration exchanges its four edges
 * with its neighbours, then updates every cell from its four neighbours
 * (a Jacobi step on integers, so the result is exact) and computes about
 * UNITS units. Rows are contiguous; columns go as an MPI_Type_vector.
 * MODE persistent: the eight requests are made once (MPI_Send_init,
 * MPI_Recv_init) and run with MPI_Startall/MPI_Waitall every iteration;
 * MODE isend: MPI_Isend/MPI_Irecv/MPI_Waitall. The receives are started
 * before the computation, the sends after it, so a checkpoint finds
 * receives pending most of the time. mpcr keeps started requests in the
 * library until the next call or the progress helper's next tick (2 to
 * 4 ms: docs/pt2pt.md, "Posting without waiting"); on even iterations an
 * MPI_Testall right after the start hands them to the proxy at once, so
 * that a checkpoint during that computation finds them pending there (3
 * checkpoints of a CI run once found none: the test's required path was
 * not taken); on odd iterations they wait in the library's queue.
 *   ckpt_p2p_halo persistent|isend [ITERS [N [UNITS]]]   (default 60 48 10) */
#include "ckpt.h"

enum { UP, DOWN, LEFT, RIGHT };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int persistent = argc > 1 && !strcmp(argv[1], "persistent");
    long iters = arg_long(argc, argv, 2, 60), n = arg_long(argc, argv, 3, 48),
         units = arg_long(argc, argv, 4, 10);
    int rank, size, dims[2] = {0, 0};
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    int px = rank % dims[0], py = rank / dims[0];
    int nb[4] = {
        [UP] = px + ((py + dims[1] - 1) % dims[1]) * dims[0],
        [DOWN] = px + ((py + 1) % dims[1]) * dims[0],
        [LEFT] = (px + dims[0] - 1) % dims[0] + py * dims[0],
        [RIGHT] = (px + 1) % dims[0] + py * dims[0],
    };
    long w = n + 2; /* row length with the ghost cells */
    uint64_t *g = calloc((size_t)(w * w), sizeof *g), *next = calloc((size_t)(w * w), sizeof *g);
#define AT(a, i, j) (a)[(i)*w + (j)]
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            AT(g, i, j) = mix2((uint64_t)rank << 32 | (uint64_t)i, (uint64_t)j) % 1000003;
    MPI_Datatype column;
    MPI_Type_vector((int)n, 1, (int)w, MPI_UINT64_T, &column);
    MPI_Type_commit(&column);
    /* what goes where: send an edge to a neighbour, receive its edge into our ghost cells;
     * tags say which edge of the sender it is, so that a 1-wide grid (a neighbour on both
     * sides) still matches each message to its place */
    struct {
        uint64_t *send, *recv;
        MPI_Datatype type;
        int count;
    } edge[4] = {
        [UP] = {&AT(g, 1, 1), &AT(g, 0, 1), MPI_UINT64_T, (int)n},
        [DOWN] = {&AT(g, n, 1), &AT(g, n + 1, 1), MPI_UINT64_T, (int)n},
        [LEFT] = {&AT(g, 1, 1), &AT(g, 1, 0), column, 1},
        [RIGHT] = {&AT(g, 1, n), &AT(g, 1, n + 1), column, 1},
    };
    static const int opposite[4] = {DOWN, UP, RIGHT, LEFT};
    MPI_Request rq[8];
    MPI_Status sts[8];
    if (persistent)
        for (int d = 0; d < 4; d++) {
            MPI_Recv_init(edge[d].recv, edge[d].count, edge[d].type, nb[d], opposite[d],
                          MPI_COMM_WORLD, &rq[d]);
            MPI_Send_init(edge[d].send, edge[d].count, edge[d].type, nb[d], d, MPI_COMM_WORLD,
                          &rq[4 + d]);
        }
    uint64_t work = 0;
    long every = iters / 6 > 0 ? iters / 6 : 1;
    for (long it = 0; it < iters; it++) {
        /* (ckpt.h) a native run slowed by a passing load made every cut of
           a continue run land at the job's end once */
        if (it == iters / 2) midway_for_harness(rank);
        if (persistent)
            MPI_Startall(4, rq);
        else
            for (int d = 0; d < 4; d++)
                MPI_Irecv(edge[d].recv, edge[d].count, edge[d].type, nb[d], opposite[d],
                          MPI_COMM_WORLD, &rq[d]);
        if (it % 2 == 0) { /* the receives at the proxy now (see the top) */
            int done;
            MPI_Testall(4, rq, &done, sts);
        }
        work = mix2(work, compute(mix2(work, (uint64_t)it), units));
        if (persistent)
            MPI_Startall(4, rq + 4);
        else
            for (int d = 0; d < 4; d++)
                MPI_Isend(edge[d].send, edge[d].count, edge[d].type, nb[d], d, MPI_COMM_WORLD,
                          &rq[4 + d]);
        MPI_Waitall(8, rq, sts);
        for (long i = 1; i <= n; i++)
            for (long j = 1; j <= n; j++)
                AT(next, i, j) = (AT(g, i - 1, j) + AT(g, i + 1, j) + AT(g, i, j - 1) +
                                  AT(g, i, j + 1) + 3 * AT(g, i, j)) %
                                 1000003;
        for (long i = 1; i <= n; i++)
            memcpy(&AT(g, i, 1), &AT(next, i, 1), (size_t)n * sizeof *g);
        if (it % every == every - 1) {
            uint64_t h = 0, all;
            for (long i = 1; i <= n; i++)
                for (long j = 1; j <= n; j++)
                    h += AT(g, i, j);
            MPI_Reduce(&h, &all, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
            progress("halo: iteration %ld, sum %" PRIu64 "\n", it + 1, all);
        }
    }
    if (persistent)
        for (int k = 0; k < 8; k++)
            MPI_Request_free(&rq[k]);
    uint64_t h = 0;
    for (long i = 1; i <= n; i++)
        for (long j = 1; j <= n; j++)
            h = mix2(h, AT(g, i, j));
    const char *names[] = {"grid", "work"};
    uint64_t v[] = {h, work};
    report("halo", names, v, 2);
    MPI_Type_free(&column);
    free(g), free(next);
    MPI_Finalize();
    return 0;
}
