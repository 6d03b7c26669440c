/* The shared file pointer (docs/mpi-io.md), against native MPICH:
 * write_shared and iwrite_shared from every rank (in whatever order they
 * come: what is checked is that every record is there once), write_ordered
 * (rank order), seek_shared, read_ordered, read_shared until the end of the
 * file, get_position_shared after each, and a new view putting the shared
 * pointer back to 0. Rank 0 prints; every check ends the job on failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REC 16 /* ints per record */

static int rank, size;

#define check(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rank %d: ", rank);                                                    \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                          \
        }                                                                                          \
    } while (0)

static void record(int *r, int who, int k)
{
    for (int j = 0; j < REC; j++)
        r[j] = who * 100000 + k * 100 + j;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[4096];
    long id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/io_shared.%ld.dat", tmp ? tmp : "/tmp", id);
    MPI_File fh;
    check(!MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh),
          "open");
    /* records of REC ints: etype one int */
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    int r[REC], k, n = 3 + rank; /* rank r writes 3 + r records */
    MPI_Status st;
    for (k = 0; k < n; k++) {
        record(r, rank, k);
        if (k % 2) {
            MPI_Request q;
            check(!MPI_File_iwrite_shared(fh, r, REC, MPI_INT, &q), "iwrite_shared");
            MPI_Wait(&q, &st);
        } else {
            check(!MPI_File_write_shared(fh, r, REC, MPI_INT, &st), "write_shared");
        }
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        check(c == REC, "write_shared wrote %d ints", c);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset pos, total = 0;
    for (int q = 0; q < size; q++)
        total += (3 + q) * REC;
    MPI_File_get_position_shared(fh, &pos);
    check(pos == total, "shared pointer %lld after the shared writes, not %lld", (long long)pos,
          (long long)total);
    if (rank == 0) printf("after write_shared: shared pointer %lld\n", (long long)pos);

    /* ordered: rank r's 2 + r records after the lower ranks' */
    int m = 2 + rank, *mine = malloc((size_t)m * REC * sizeof(int));
    for (k = 0; k < m; k++)
        record(mine + k * REC, rank, 50 + k);
    check(!MPI_File_write_ordered(fh, mine, m * REC, MPI_INT, &st), "write_ordered");
    MPI_File_get_position_shared(fh, &pos);
    MPI_Offset ordered_at = total;
    for (int q = 0; q < size; q++)
        total += (2 + q) * REC;
    check(pos == total, "shared pointer %lld after write_ordered, not %lld", (long long)pos,
          (long long)total);
    if (rank == 0) printf("after write_ordered: shared pointer %lld\n", (long long)pos);

    /* back to the ordered part, read it in order */
    check(!MPI_File_seek_shared(fh, ordered_at, MPI_SEEK_SET), "seek_shared");
    int *back = calloc((size_t)m * REC, sizeof(int));
    check(!MPI_File_read_ordered(fh, back, m * REC, MPI_INT, &st), "read_ordered");
    check(!memcmp(back, mine, (size_t)m * REC * sizeof(int)), "read_ordered read other data");
    check(!MPI_File_seek_shared(fh, -2 * REC, MPI_SEEK_END), "seek_shared from the end");
    MPI_File_get_position_shared(fh, &pos);
    check(pos == total - 2 * REC, "seek_shared from the end: %lld", (long long)pos);
    if (rank == 0) printf("seek_shared(-%d, END): %lld\n", 2 * REC, (long long)pos);

    /* every record read once by someone, with read_shared from the start */
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    long long seen = 0, sum = 0, all_seen, all_sum;
    for (;;) {
        check(!MPI_File_read_shared(fh, r, REC, MPI_INT, &st), "read_shared");
        int c;
        MPI_Get_count(&st, MPI_INT, &c);
        if (c == 0) break;
        check(c == REC, "read_shared read %d ints", c);
        seen++;
        for (int j = 0; j < REC; j++)
            sum += r[j];
    }
    MPI_Allreduce(&seen, &all_seen, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&sum, &all_sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("read_shared: %lld records, sum %lld\n", all_seen, all_sum);

    /* a new view: the shared pointer at 0 */
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_File_get_position_shared(fh, &pos);
    check(pos == 0, "shared pointer %lld after set_view", (long long)pos);
    MPI_File_close(&fh);
    if (rank == 0) printf("io_shared: PASS\n");
    free(mine), free(back);
    MPI_Finalize();
    return 0;
}
