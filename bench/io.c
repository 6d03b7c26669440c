/* MPI-IO bandwidth (docs/mpi-io.md; issue 39's collective write and read):
 * every rank writes MIB MiB of a file with MPI_File_write_at_all, in pieces
 * of 16 MiB interleaved with the other ranks' (piece k of rank r at
 * (k * nranks + r) * 16 MiB), then MPI_File_sync, then reads it all back
 * with MPI_File_read_at_all; each timed from a barrier to the last rank's
 * end, BENCH_BATCHES times, and reported as the median aggregate MB/s.
 * The file is in $TMPDIR (or /tmp) and deleted at the end; what is timed
 * is mostly the page cache, as for any MPI-IO program on a local disk.
 *   io [MIB]   (default 256) */
#include "bench.h"

#include <mpi.h>
#include <string.h>
#include <unistd.h>

#define PIECE (16l << 20)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double mib = argc > 1 ? atof(argv[1]) : 256;
    long bytes = (long)(mib * (1 << 20)), piece = bytes < PIECE ? bytes : PIECE;
    long pieces = (bytes + piece - 1) / piece;
    char *buf = malloc((size_t)piece);
    memset(buf, rank + 1, (size_t)piece);
    char path[4096];
    long id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/mpcr-bench-io.%ld", tmp ? tmp : "/tmp", id);
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                      MPI_INFO_NULL, &fh)) {
        fprintf(stderr, "io: cannot open %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double w[BENCH_BATCHES], r[BENCH_BATCHES], total = (double)bytes * size / 1e6;
    for (int b = 0; b < BENCH_BATCHES; b++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = bench_now();
        for (long k = 0; k < pieces; k++)
            MPI_File_write_at_all(fh, (k * size + rank) * piece, buf, (int)piece, MPI_BYTE,
                                  MPI_STATUS_IGNORE);
        MPI_File_sync(fh);
        MPI_Barrier(MPI_COMM_WORLD);
        w[b] = total / (bench_now() - t0);
        t0 = bench_now();
        for (long k = 0; k < pieces; k++)
            MPI_File_read_at_all(fh, (k * size + rank) * piece, buf, (int)piece, MPI_BYTE,
                                 MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        r[b] = total / (bench_now() - t0);
    }
    if (rank == 0) {
        printf("# %d ranks, %.0f MiB each, pieces of %ld MiB\n", size, mib, piece >> 20);
        bench_result("io_write_all_MBps", bench_median(w, BENCH_BATCHES));
        bench_result("io_read_all_MBps", bench_median(r, BENCH_BATCHES));
    }
    MPI_File_close(&fh);
    free(buf);
    MPI_Finalize();
    return 0;
}
