/* A hybrid MPI + OpenMP stencil (issue 16, point 3), for checkpoints at
 * random instants: each rank holds a band of rows of a periodic 2-D grid
 * of integers; every step, inside one parallel region of THREADS threads,
 * the master thread exchanges the halo rows with both neighbours
 * (MPI_Sendrecv, MPI_THREAD_FUNNELED: MPI from the main thread only) while
 * the other threads already update the interior rows; after an OpenMP
 * barrier all of them update the two rows next to the halos. Every SUM
 * steps the master thread, still inside the region, sums the grid over
 * all ranks with MPI_Allreduce while the others wait in an OpenMP
 * barrier, and rank 0 prints it. So a checkpoint finds threads computing, threads
 * in libgomp's barriers, and the main thread inside an MPI call
 * or computing. Integer arithmetic only, each cell written by one thread:
 * the result does not depend on the thread count, the schedule or the cut.
 *   t_ckpt_omp STEPS [THREADS]      (2 ranks or more) */
#include "ckpt.h"

#include <omp.h>

#define ROWS 96   /* a rank's band, without its two halo rows */
#define COLS 1024 /* per row */
#define SUM 50    /* steps between global sums */

static uint32_t cell(const uint32_t *g, int r, int c)
{
    return g[(size_t)r * COLS + (unsigned)(c + COLS) % COLS];
}

/* The new value of cell (r, c): a smoothing of its four neighbours and
 * itself, plus a little of a fixed hash so that the values keep changing. */
static uint32_t update(const uint32_t *g, int r, int c, int step)
{
    uint64_t s = 4u * (uint64_t)cell(g, r, c) + cell(g, r - 1, c) + cell(g, r + 1, c) +
                 cell(g, r, c - 1) + cell(g, r, c + 1);
    return (uint32_t)(s / 8 + (mix2((uint64_t)step, (uint64_t)r * COLS + (unsigned)c) & 0xff));
}

static void update_row(const uint32_t *g, uint32_t *n, int r, int step)
{
    for (int c = 0; c < COLS; c++)
        n[(size_t)r * COLS + c] = update(g, r, c, step);
}

static uint64_t grid_sum(const uint32_t *g)
{
    uint64_t s = 0;
    for (int r = 1; r <= ROWS; r++)
        for (int c = 0; c < COLS; c++)
            s = s * 31 + g[(size_t)r * COLS + c];
    return s;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    check(provided >= MPI_THREAD_FUNNELED, "MPI_Init_thread gave level %d, not FUNNELED", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long steps = arg_long(argc, argv, 1, 2000);
    int threads = (int)arg_long(argc, argv, 2, 3);
    omp_set_num_threads(threads);
    int up = (rank + size - 1) % size, down = (rank + 1) % size;

    size_t cells = (size_t)(ROWS + 2) * COLS;
    uint32_t *g = malloc(cells * sizeof *g), *n = malloc(cells * sizeof *n);
    check(g && n, "out of memory");
    for (size_t i = 0; i < cells; i++)
        g[i] = (uint32_t)mix2((uint64_t)rank, i);
    memcpy(n, g, cells * sizeof *g);
    uint64_t global = 0, sums = 0;
    int team = 0;

    for (long step = 1; step <= steps; step++) {
        if (step == steps / 2) midway_for_harness(rank); /* outside the threads' region */
#pragma omp parallel
        {
#pragma omp master
            {
                team = omp_get_num_threads();
                /* halos: my first row goes up, my last row goes down */
                MPI_Sendrecv(g + COLS, COLS, MPI_UINT32_T, up, 1, g + (size_t)(ROWS + 1) * COLS,
                             COLS, MPI_UINT32_T, down, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Sendrecv(g + (size_t)ROWS * COLS, COLS, MPI_UINT32_T, down, 2, g, COLS,
                             MPI_UINT32_T, up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
#pragma omp for schedule(dynamic, 4) nowait
            for (int r = 2; r < ROWS; r++)
                update_row(g, n, r, (int)step);
#pragma omp barrier
#pragma omp for
            for (int i = 0; i < 2; i++)
                update_row(g, n, i == 0 ? 1 : ROWS, (int)step);
            if (step % SUM == 0) {
#pragma omp master
                {
                    uint64_t mine = grid_sum(n);
                    MPI_Allreduce(&mine, &global, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
                }
#pragma omp barrier
            }
        }
        uint32_t *t = g;
        g = n, n = t;
        if (step % SUM == 0) {
            sums = mix2(sums, global);
            if (step % (SUM * 8) == 0) progress("step %ld: grid %016" PRIx64 "\n", step, global);
        }
    }
    check(team == threads, "the parallel region had %d threads, not %d", team, threads);
    int level, is_main;
    MPI_Query_thread(&level); /* kept across a restart: the level given at MPI_Init_thread */
    MPI_Is_thread_main(&is_main);
    check(level == provided && is_main, "MPI_Query_thread %d (given %d), MPI_Is_thread_main %d",
          level, provided, is_main);
    const char *names[] = {"grid", "sums"};
    uint64_t v[] = {grid_sum(g), sums};
    report("omp", names, v, 2);
    free(g), free(n);
    MPI_Finalize();
    return 0;
}
