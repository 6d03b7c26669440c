/* A view in the external32 data representation at any checkpoint (docs/mpi-io.md, "Data
 * representations"): the real MPI in the proxy converts by the memory datatype, so what must
 * hold is that the file's bytes are the native MPI's (big-endian, external32 sizes), whatever
 * memory datatype wrote them, and that a restart sets the view in external32 again.
 * Each rank's ints are interleaved with the others' in blocks of B (a resized vector filetype
 * after a header of 8 bytes); over STEPS steps each rank writes 1-3 blocks' worth with
 * write_at_all, from a contiguous buffer or from every other int of a wider one (a strided
 * memory type), reads them back with read_at (checked), and computes. Every rank checks
 * MPI_File_get_type_extent of MPI_INT, MPI_DOUBLE and a struct; at the end rank 0 reads the
 * file with POSIX calls and prints its size, a checksum, and its first int decoded big-endian.
 *   ckpt_io_external32 [STEPS [UNITS_PER_STEP]]   (default 30 2)
 * The file is in $CKPT_SCRATCH, or in $TMPDIR or /tmp and deleted at the end. */
#include "ckpt.h"

#define B 8 /* ints of a block */

static int value(long i, int rank)
{
    return (int)(mix2((uint64_t)i, (uint64_t)rank) & 0xffffffff); /* negative ones too */
}

static void ok(int rc, const char *what)
{
    check(rc == MPI_SUCCESS, "%s failed with error %d", what, rc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 30), units = arg_long(argc, argv, 2, 2);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[4096];
    int scratch = scratch_file(path, sizeof path, "ckpt_io_e32", "dat");

    MPI_File fh;
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                     MPI_INFO_NULL, &fh),
       "MPI_File_open");
    MPI_Datatype vec, filetype;
    MPI_Type_vector(1, B, B * size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)B * size * 4, &filetype); /* 4: an int in external32 */
    MPI_Type_commit(&filetype);
    MPI_Type_free(&vec);
    ok(MPI_File_set_view(fh, 8 + (MPI_Offset)rank * B * 4, MPI_INT, filetype, "external32",
                         MPI_INFO_NULL),
       "MPI_File_set_view");
    MPI_Type_free(&filetype);
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype e, t;
    ok(MPI_File_get_view(fh, &disp, &e, &t, rep), "MPI_File_get_view");
    check(!strcmp(rep, "external32"), "the view's representation is '%s'", rep);
    MPI_Type_free(&t);

    /* extents in the file: external32's sizes (MPI 4.0 14.5.2) */
    MPI_Aint xi, xd, xs;
    MPI_Datatype pair;
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lens, displs, types, &pair);
    MPI_Type_commit(&pair); /* Open MPI 4.1 refuses an uncommitted one here (natively too) */
    ok(MPI_File_get_type_extent(fh, MPI_INT, &xi), "get_type_extent");
    ok(MPI_File_get_type_extent(fh, MPI_DOUBLE, &xd), "get_type_extent");
    ok(MPI_File_get_type_extent(fh, pair, &xs), "get_type_extent (struct)");
    MPI_Type_free(&pair);
    progress("extents in external32: int %ld, double %ld, struct {int; double} %ld\n", (long)xi,
             (long)xd, (long)xs);

    int *buf = malloc(3 * B * sizeof(int)), *back = malloc(3 * B * sizeof(int));
    int *wide = malloc(6 * B * sizeof(int));
    uint64_t sum = 0, work = 0;
    long at = 0; /* ints of this rank so far */
    for (long s = 0; s < steps; s++) {
        int n = (1 + (int)(mix64((uint64_t)s) % 3)) * B;
        for (int j = 0; j < n; j++)
            buf[j] = value(at + j, rank);
        MPI_Status st;
        int got;
        if (s % 2) { /* every other int of a wider buffer: the memory type the proxy unpacks into */
            MPI_Datatype strided;
            MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
            MPI_Type_commit(&strided);
            for (int j = 0; j < n; j++)
                wide[2 * j] = buf[j], wide[2 * j + 1] = -1;
            ok(MPI_File_write_at_all(fh, at, wide, 1, strided, &st), "write_at_all (strided)");
            MPI_Type_free(&strided);
        } else {
            ok(MPI_File_write_at_all(fh, at, buf, n, MPI_INT, &st), "write_at_all");
        }
        MPI_Get_count(&st, MPI_BYTE, &got);
        check(got == n * 4, "step %ld: the write's status says %d bytes, not %d", s, got, n * 4);
        work = mix2(work, compute(sum ^ (uint64_t)s, units));
        ok(MPI_File_read_at(fh, at, back, n, MPI_INT, &st), "read_at");
        MPI_Get_count(&st, MPI_INT, &got);
        check(got == n, "step %ld: read %d ints, not %d", s, got, n);
        for (int j = 0; j < n; j++) {
            check(back[j] == buf[j], "step %ld: int %d read back is %d, not %d", s, j, back[j], buf[j]);
            sum = mix2(sum, (uint64_t)(uint32_t)back[j]);
        }
        at += n;
    }
    ok(MPI_File_close(&fh), "MPI_File_close");
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t bytes = 0, length = 0, first = 0;
    if (rank == 0) { /* the file as any program reads it: big-endian ints after the header */
        FILE *raw = fopen(path, "rb");
        check(raw != NULL, "fopen %s", path);
        unsigned char c4[4];
        int c;
        while ((c = getc(raw)) != EOF) {
            if (length >= 8 && length < 12) c4[length - 8] = (unsigned char)c;
            bytes = mix2(bytes, (uint64_t)c ^ length << 8), length++;
        }
        fclose(raw);
        first = (uint64_t)c4[0] << 24 | (uint64_t)c4[1] << 16 | (uint64_t)c4[2] << 8 | c4[3];
        check(first == (uint32_t)value(0, 0), "the file's first int is %08llx, not %08x",
              (unsigned long long)first, (unsigned)value(0, 0));
    }
    const char *names[] = {"readback", "work", "bytes", "length", "first"};
    uint64_t v[] = {sum, work, bytes, length, first};
    report("portable_io", names, v, 5);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!scratch && rank == 0) unlink(path);
    free(buf), free(back), free(wide);
    MPI_Finalize();
    return 0;
}
