/* Application-like kernels (issue 14, point 6): what a real code pays under
 * mpcr, as opposed to a single call. Each is the inner loop of a kind of
 * HPC code, sized so that native MPI spends a modest share of its time
 * communicating at 2 ranks on 2 cores:
 *   kernel_stencil3d_us  a 3-D 7-point Jacobi sweep over a 40^3 block a rank,
 *                        its 6 faces packed and exchanged with MPI_Isend and
 *                        MPI_Irecv on a periodic MPI_Cart_create grid
 *   kernel_stencil3d_persistent_us  the same with persistent requests
 *                        (MPI_Send_init, MPI_Recv_init once, MPI_Startall
 *                        each iteration), as many stencil codes do
 *   kernel_cg_us         conjugate gradients on a 2-D Poisson problem (a
 *                        256-wide grid, 128 rows a rank): a halo row to and
 *                        from each neighbour (MPI_Sendrecv), a 5-point
 *                        matrix-vector product, two MPI_Allreduce of a dot
 *                        product
 *   kernel_particles_us  2 000 particles a rank on a periodic line: a
 *                        short-range force over neighbours in the array, a
 *                        move, the particles that left sent to the
 *                        neighbouring rank (counts, then data, MPI_Sendrecv),
 *                        an MPI_Allreduce of the energy
 *   kernel_fft2d_us      a 2-D FFT of a 256 x 256 complex array in row
 *                        blocks: FFTs of the rows, a transpose by
 *                        MPI_Alltoall, FFTs of the rows again
 * Time per iteration in microseconds, the median of BENCH_BATCHES batches,
 * and for each the share of rank 0's time inside MPI calls
 * (<name>_comm_pct): the weight of communication in the kernel as run.
 *   kernels [SECONDS]   (default 0.5 per kernel; any number of ranks; the
 *                        FFT needs 256 rows divisible by the ranks) */
#include "bench_mpi.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { STENCIL, STENCIL_PERSISTENT, CG, PARTICLES, FFT, NKINDS };
static const char *const names[NKINDS] = {"kernel_stencil3d_us", "kernel_stencil3d_persistent_us", "kernel_cg_us",
                                          "kernel_particles_us", "kernel_fft2d_us"};

static int rank, nranks;
static double comm_s, comm_t0; /* rank 0's time inside MPI, this kind's runs */
static void comm_begin(void) { comm_t0 = bench_now(); }
static void comm_end(void) { comm_s += bench_now() - comm_t0; }

/* ---- 3-D stencil: a block of S^3 cells with a one-cell halo ---- */
enum { S = 40 };
#define AT3(g, i, j, k) ((g)[((size_t)(i) * (S + 2) + (j)) * (S + 2) + (k)])
static double *u, *u_next, *face_out[6], *face_in[6];
static int nbr3[6]; /* -x, +x, -y, +y, -z, +z */
static MPI_Comm grid3;

/* Face f's cells (layer 1 or S along its axis), or its halo (0 or S + 1),
 * copied to or from buf. */
static void face_copy(double *g, int f, int layer, double *buf, int to_buf)
{
    int axis = f / 2, n = 0;
    for (int a = 1; a <= S; a++)
        for (int b = 1; b <= S; b++, n++) {
            double *cell = axis == 0   ? &AT3(g, layer, a, b)
                           : axis == 1 ? &AT3(g, a, layer, b)
                                       : &AT3(g, a, b, layer);
            if (to_buf)
                buf[n] = *cell;
            else
                *cell = buf[n];
        }
}

static MPI_Request stencil_persistent[12];

/* The 12 requests of an exchange: the face sent towards neighbour f
 * arrives there as its halo f ^ 1. */
static void stencil_requests(MPI_Request r[12], int persistent)
{
    for (int f = 0; f < 6; f++)
        if (persistent) {
            MPI_Recv_init(face_in[f], S * S, MPI_DOUBLE, nbr3[f], f ^ 1, grid3, &r[f]);
            MPI_Send_init(face_out[f], S * S, MPI_DOUBLE, nbr3[f], f, grid3, &r[6 + f]);
        } else {
            MPI_Irecv(face_in[f], S * S, MPI_DOUBLE, nbr3[f], f ^ 1, grid3, &r[f]);
            MPI_Isend(face_out[f], S * S, MPI_DOUBLE, nbr3[f], f, grid3, &r[6 + f]);
        }
}

static void stencil_exchange(int persistent)
{
    MPI_Request r[12], *use = persistent ? stencil_persistent : r;
    MPI_Status st[12]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads its size */
    for (int f = 0; f < 6; f++)
        face_copy(u, f, f % 2 ? S : 1, face_out[f], 1);
    comm_begin();
    if (persistent)
        MPI_Startall(12, use);
    else
        stencil_requests(use, 0);
    MPI_Waitall(12, use, st);
    comm_end();
    for (int f = 0; f < 6; f++)
        face_copy(u, f, f % 2 ? S + 1 : 0, face_in[f], 0);
    for (int i = 1; i <= S; i++)
        for (int j = 1; j <= S; j++)
            for (int k = 1; k <= S; k++)
                AT3(u_next, i, j, k) = (AT3(u, i - 1, j, k) + AT3(u, i + 1, j, k) + AT3(u, i, j - 1, k) +
                                        AT3(u, i, j + 1, k) + AT3(u, i, j, k - 1) + AT3(u, i, j, k + 1)) /
                                       6.0;
    double *t = u;
    u = u_next, u_next = t;
}

static void stencil_step(void) { stencil_exchange(0); }
static void stencil_persistent_step(void) { stencil_exchange(1); }

static void stencil_setup(void)
{
    int dims[3] = {0, 0, 0}, periodic[3] = {1, 1, 1};
    MPI_Dims_create(nranks, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periodic, 0, &grid3);
    for (int axis = 0; axis < 3; axis++)
        MPI_Cart_shift(grid3, axis, 1, &nbr3[2 * axis], &nbr3[2 * axis + 1]);
    size_t cells = (size_t)(S + 2) * (S + 2) * (S + 2);
    u = calloc(cells, sizeof *u), u_next = calloc(cells, sizeof *u_next);
    for (size_t c = 0; c < cells; c++)
        u[c] = (double)((c * 7919 + (size_t)rank * 104729) % 1000);
    for (int f = 0; f < 6; f++)
        face_out[f] = malloc(S * S * sizeof(double)), face_in[f] = malloc(S * S * sizeof(double));
    stencil_requests(stencil_persistent, 1);
}

/* ---- CG on the 5-point Laplacian of a W-wide grid, ROWS rows a rank ---- */
enum { W = 256, ROWS = 128 };
static double *x, *rv, *p, *q; /* p has a halo row above and below */
static double rr;
#define PROW(i) (p + (size_t)(i) * W) /* rows 0 and ROWS + 1: the halo */

static double dot(const double *a, const double *b)
{
    double local = 0, global;
    for (size_t i = 0; i < (size_t)ROWS * W; i++)
        local += a[i] * b[i];
    comm_begin();
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    comm_end();
    return global;
}

static void cg_restart(void)
{
    for (size_t i = 0; i < (size_t)ROWS * W; i++)
        x[i] = 0, rv[i] = 1.0 + (double)((i + (size_t)rank * 31) % 7), PROW(1)[i] = rv[i];
    rr = dot(rv, rv);
}

static void cg_step(void)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
    memset(PROW(0), 0, W * sizeof(double)), memset(PROW(ROWS + 1), 0, W * sizeof(double));
    comm_begin();
    MPI_Sendrecv(PROW(1), W, MPI_DOUBLE, up, 0, PROW(ROWS + 1), W, MPI_DOUBLE, down, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(PROW(ROWS), W, MPI_DOUBLE, down, 1, PROW(0), W, MPI_DOUBLE, up, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    comm_end();
    for (int i = 1; i <= ROWS; i++)
        for (int j = 0; j < W; j++) {
            double left = j > 0 ? PROW(i)[j - 1] : 0, right = j < W - 1 ? PROW(i)[j + 1] : 0;
            q[(size_t)(i - 1) * W + j] = 4 * PROW(i)[j] - left - right - PROW(i - 1)[j] - PROW(i + 1)[j];
        }
    double alpha = rr / dot(PROW(1), q);
    for (size_t i = 0; i < (size_t)ROWS * W; i++)
        x[i] += alpha * PROW(1)[i], rv[i] -= alpha * q[i];
    double rr_next = dot(rv, rv), beta = rr_next / rr;
    rr = rr_next;
    for (size_t i = 0; i < (size_t)ROWS * W; i++)
        PROW(1)[i] = rv[i] + beta * PROW(1)[i];
    if (rr < 1e-20) cg_restart(); /* converged: start again, every rank alike (rr is global) */
}

static void cg_setup(void)
{
    size_t n = (size_t)ROWS * W;
    x = malloc(n * sizeof *x), rv = malloc(n * sizeof *rv), q = malloc(n * sizeof *q);
    p = calloc(n + 2 * W, sizeof *p);
    cg_restart();
}

/* ---- particles on the periodic line [0, nranks), rank r owning [r, r + 1) ---- */
enum { NPART = 2000, CAP = 4 * NPART, REACH = 4 };
struct particle {
    double x, v;
};
static struct particle *part, *leaving[2], *arriving[2];
static int npart;

static void particles_step(void)
{
    const double dt = 0.002, span = nranks;
    double energy = 0, total;
    for (int i = 0; i < npart; i++) { /* a short-range pull towards the array's neighbours */
        double f = -sin(2 * M_PI * part[i].x);
        for (int k = 1; k <= REACH && i + k < npart; k++)
            f += 0.01 * sin(part[i + k].x - part[i].x);
        part[i].v += dt * f;
    }
    int nleave[2] = {0, 0}, kept = 0;
    for (int i = 0; i < npart; i++) {
        struct particle q = part[i];
        q.x += dt * q.v;
        if (q.x < 0) q.x += span;
        if (q.x >= span) q.x -= span;
        energy += 0.5 * q.v * q.v;
        int owner = (int)q.x;
        if (owner == rank)
            part[kept++] = q;
        else {
            int side = owner == (rank + 1) % nranks; /* 0: to the left neighbour, 1: to the right */
            leaving[side][nleave[side]++] = q;
        }
    }
    npart = kept;
    int left = (rank + nranks - 1) % nranks, right = (rank + 1) % nranks, narrive[2];
    comm_begin();
    MPI_Sendrecv(&nleave[0], 1, MPI_INT, left, 0, &narrive[1], 1, MPI_INT, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&nleave[1], 1, MPI_INT, right, 1, &narrive[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (npart + narrive[0] + narrive[1] > CAP) {
        fprintf(stderr, "kernels: rank %d holds more than %d particles\n", rank, CAP);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Sendrecv(leaving[0], 2 * nleave[0], MPI_DOUBLE, left, 2, arriving[1], 2 * narrive[1], MPI_DOUBLE, right, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(leaving[1], 2 * nleave[1], MPI_DOUBLE, right, 3, arriving[0], 2 * narrive[0], MPI_DOUBLE, left,
                 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    comm_end();
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < narrive[s]; i++)
            part[npart++] = arriving[s][i];
}

static void particles_setup(void)
{
    part = malloc(CAP * sizeof *part);
    for (int s = 0; s < 2; s++)
        leaving[s] = malloc(CAP * sizeof *part), arriving[s] = malloc(CAP * sizeof *part);
    npart = NPART;
    for (int i = 0; i < NPART; i++) /* spread over the rank's interval, velocities of either sign */
        part[i].x = rank + (i + 0.5) / NPART, part[i].v = ((i * 7919) % 2001 - 1000) / 1000.0;
}

/* ---- 2-D FFT of an N x N complex array, N / nranks rows a rank ---- */
enum { N = 256 };
static double complex *rows, *sendb, *recvb, twiddle[N / 2];

/* In place, radix 2, scaled by 1/sqrt(N) so that repeated transforms keep
 * the values' size. */
static void fft_row(double complex *a)
{
    for (int i = 1, j = 0; i < N; i++) { /* bit reversal */
        int bit = N >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double complex t = a[i];
            a[i] = a[j], a[j] = t;
        }
    }
    for (int len = 2; len <= N; len <<= 1)
        for (int i = 0; i < N; i += len)
            for (int k = 0; k < len / 2; k++) {
                double complex w = twiddle[k * (N / len)], e = a[i + k], o = a[i + k + len / 2] * w;
                a[i + k] = e + o, a[i + k + len / 2] = e - o;
            }
    for (int i = 0; i < N; i++)
        a[i] *= 1.0 / 16.0; /* 1 / sqrt(256) */
}

static void fft_step(void)
{
    int mine = N / nranks;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < mine; i++)
            fft_row(rows + (size_t)i * N);
        /* block b of the send buffer: our rows' columns of rank b, in order */
        for (int b = 0; b < nranks; b++)
            for (int i = 0; i < mine; i++)
                memcpy(sendb + ((size_t)b * mine + i) * mine, rows + (size_t)i * N + (size_t)b * mine,
                       mine * sizeof *rows);
        comm_begin();
        MPI_Alltoall(sendb, 2 * mine * mine, MPI_DOUBLE, recvb, 2 * mine * mine, MPI_DOUBLE, MPI_COMM_WORLD);
        comm_end();
        /* rows of the transpose: column c of our block from rank b is row c, at columns b*mine.. */
        for (int b = 0; b < nranks; b++)
            for (int i = 0; i < mine; i++)
                for (int c = 0; c < mine; c++)
                    rows[(size_t)c * N + (size_t)b * mine + i] = recvb[((size_t)b * mine + i) * mine + c];
    }
}

static void fft_setup(void)
{
    if (N % nranks) {
        if (rank == 0) fprintf(stderr, "kernels: the FFT needs %d rows divisible by the %d ranks\n", N, nranks);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t n = (size_t)N * (N / nranks);
    rows = malloc(n * sizeof *rows), sendb = malloc(n * sizeof *sendb), recvb = malloc(n * sizeof *recvb);
    for (int k = 0; k < N / 2; k++)
        twiddle[k] = cexp(-2 * M_PI * I * k / N);
    for (size_t i = 0; i < n; i++)
        rows[i] = (double)((i + (size_t)rank * 17) % 13) - 6.0;
}

static void (*const step[NKINDS])(void) = {stencil_step, stencil_persistent_step, cg_step, particles_step,
                                           fft_step};

static double run(int kind, long iterations)
{
    double t0 = bench_now();
    for (long it = 0; it < iterations; it++)
        step[kind]();
    return bench_now() - t0;
}

int main(int argc, char **argv)
{
    double seconds = bench_seconds(argc, argv, 0.5);
    bench_mpi_init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    stencil_setup(), cg_setup(), particles_setup(), fft_setup();
    for (int kind = 0; kind < NKINDS; kind++) {
        comm_s = 0;
        double t0 = bench_now();
        bench_per_iteration(run, kind, 5, seconds, names[kind]);
        double all = bench_now() - t0;
        if (rank == 0) {
            char metric[64];
            snprintf(metric, sizeof metric, "%s_comm_pct", names[kind]);
            bench_result(metric, 100 * comm_s / all);
        }
    }
    for (int k = 0; k < 12; k++)
        MPI_Request_free(&stencil_persistent[k]);
    MPI_Comm_free(&grid3);
    MPI_Finalize();
    return 0;
}
