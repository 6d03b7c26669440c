/* Parallel HDF5, unmodified, at any checkpoint (issue 39, point 4; docs/mpi-io.md "Parallel
 * HDF5"). Built with Debian's h5pcc.mpich against libhdf5-mpich, as a user would build it: HDF5
 * calls MPI-IO itself (file views of derived datatypes, write_at_all, set_size, sync, atomicity)
 * and MPI_Comm_dup, attributes on MPI_COMM_SELF, Mprobe, Allgatherv.
 *
 * A file created through the MPI-IO driver, with attributes; over STEPS steps:
 *  - "field", a contiguous 2-D dataset of NY x (NXR * ranks) ints, each rank owning a block of
 *    columns (a strided selection in the file: a derived filetype), rewritten every step,
 *    collectively on even steps and independently on odd ones, from a strided memory selection
 *    on every third step;
 *  - "history", a chunked 2-D dataset extended by one row a step (H5Dset_extent), each rank
 *    writing its part of the new row, collectively or not;
 *  - every 5 steps a new dataset "snap_S" (a link more in the root group);
 *  - the attribute "step" of "field" rewritten every 3 steps, H5Fflush every 4 (MPI_File_sync);
 *  - "field" read back whole, collectively, and the neighbour's part of the new "history" row
 *    read independently, both checked against what was written;
 *  - UNITS of computation (ckpt.h), so that a checkpoint finds the job anywhere.
 * After H5Fclose, rank 0 reads the file again through HDF5's POSIX driver (not through MPI) and
 * prints a checksum of what h5dump -p would show: every dataset's name, shape, layout and
 * contents, the attributes; with `bytes`, also the file's size and a checksum of its bytes (no
 * modification times are stored: H5Pset_obj_track_times). A restart from any cut must leave an
 * uninterrupted run's file. The bytes are compared only where the same MPI-IO writes the file:
 * some bytes in no object (h5dump -p shows the same files) are 0xff after ROMIO's writes and 0
 * after OMPIO's (a plain run under Open MPI's proxy shows it), so a job restarted under Open MPI
 * has the same contents, not the same bytes.
 *   ckpt_hdf5 [STEPS [UNITS_PER_STEP [bytes]]]   (default 40 2)
 * The file is in $CKPT_SCRATCH (kept for a restart from an older generation), or in $TMPDIR or
 * /tmp and deleted at the end. */
#include "ckpt.h"
#include <hdf5.h>

#define NY 40  /* rows of "field" */
#define NXR 24 /* columns of "field" per rank */
#define NH 16  /* ints of a "history" row per rank */

static int value(long step, long row, long col)
{
    return (int)(mix2((uint64_t)step << 20 | (uint64_t)row, (uint64_t)col) & 0x7fffffff);
}

static void ok(herr_t rc, const char *what)
{
    check(rc >= 0, "%s failed (%d)", what, (int)rc);
}

static hid_t transfer(int collective)
{
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    ok(H5Pset_dxpl_mpio(dxpl, collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT),
       "H5Pset_dxpl_mpio");
    return dxpl;
}

/* Writes this rank's columns of "field" for step s, from a contiguous buffer or, when strided,
 * from every other int of a wider one (a strided selection in memory too). */
static void write_field(hid_t field, long s, int rank, int collective, int strided)
{
    static int buf[2 * NY * NXR];
    hsize_t dims[2] = {NY, NXR}, wide[2] = {NY, 2 * NXR};
    for (long i = 0; i < NY; i++)
        for (long j = 0; j < NXR; j++) {
            int v = value(s, i, (long)rank * NXR + j);
            if (strided)
                buf[i * 2 * NXR + 2 * j] = v, buf[i * 2 * NXR + 2 * j + 1] = -1;
            else
                buf[i * NXR + j] = v;
        }
    hid_t mem = H5Screate_simple(2, strided ? wide : dims, NULL);
    if (strided) {
        hsize_t start[2] = {0, 0}, stride[2] = {1, 2}, count[2] = {NY, NXR};
        ok(H5Sselect_hyperslab(mem, H5S_SELECT_SET, start, stride, count, NULL), "memory slab");
    }
    hid_t file = H5Dget_space(field);
    hsize_t start[2] = {0, (hsize_t)rank * NXR};
    ok(H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, dims, NULL), "field slab");
    hid_t dxpl = transfer(collective);
    ok(H5Dwrite(field, H5T_NATIVE_INT, mem, file, dxpl, buf), "H5Dwrite (field)");
    H5Pclose(dxpl);
    H5Sclose(file);
    H5Sclose(mem);
}

/* Reads "field" whole (collectively) and checks it is step s's; returns its hash mixed in. */
static uint64_t check_field(hid_t field, long s, int size, uint64_t sum)
{
    long nx = (long)NXR * size;
    int *all = malloc((size_t)NY * nx * sizeof *all);
    hid_t dxpl = transfer(1);
    ok(H5Dread(field, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, all), "H5Dread (field)");
    H5Pclose(dxpl);
    for (long i = 0; i < NY; i++)
        for (long j = 0; j < nx; j++) {
            check(all[i * nx + j] == value(s, i, j), "step %ld: field[%ld][%ld] is %d, not %d", s,
                  i, j, all[i * nx + j], value(s, i, j));
            sum = mix2(sum, (uint64_t)all[i * nx + j]);
        }
    free(all);
    return sum;
}

/* Extends "history" to s + 1 rows and writes this rank's part of row s. */
static void write_history(hid_t history, long s, int rank, int collective)
{
    int row[NH];
    for (int j = 0; j < NH; j++)
        row[j] = value(s, 1000000, (long)rank * NH + j);
    hsize_t extent[2];
    hid_t file = H5Dget_space(history);
    H5Sget_simple_extent_dims(file, extent, NULL);
    H5Sclose(file);
    extent[0] = (hsize_t)s + 1;
    ok(H5Dset_extent(history, extent), "H5Dset_extent");
    file = H5Dget_space(history);
    hsize_t start[2] = {(hsize_t)s, (hsize_t)rank * NH}, count[2] = {1, NH};
    ok(H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, count, NULL), "history slab");
    hid_t mem = H5Screate_simple(2, count, NULL), dxpl = transfer(collective);
    ok(H5Dwrite(history, H5T_NATIVE_INT, mem, file, dxpl, row), "H5Dwrite (history)");
    H5Pclose(dxpl);
    H5Sclose(mem);
    H5Sclose(file);
}

/* Reads rank peer's part of row s of "history" independently and checks it. */
static uint64_t check_history(hid_t history, long s, int peer, uint64_t sum)
{
    int row[NH];
    hid_t file = H5Dget_space(history);
    hsize_t start[2] = {(hsize_t)s, (hsize_t)peer * NH}, count[2] = {1, NH};
    ok(H5Sselect_hyperslab(file, H5S_SELECT_SET, start, NULL, count, NULL), "history slab");
    hid_t mem = H5Screate_simple(2, count, NULL), dxpl = transfer(0);
    ok(H5Dread(history, H5T_NATIVE_INT, mem, file, dxpl, row), "H5Dread (history)");
    H5Pclose(dxpl);
    H5Sclose(mem);
    H5Sclose(file);
    for (int j = 0; j < NH; j++) {
        check(row[j] == value(s, 1000000, (long)peer * NH + j),
              "step %ld: history[%ld][%d] of rank %d is wrong", s, s, j, peer);
        sum = mix2(sum, (uint64_t)row[j]);
    }
    return sum;
}

static void write_attr(hid_t obj, const char *name, long v)
{
    hid_t space = H5Screate(H5S_SCALAR), a;
    if (H5Aexists(obj, name) > 0)
        a = H5Aopen(obj, name, H5P_DEFAULT);
    else
        a = H5Acreate2(obj, name, H5T_NATIVE_LONG, space, H5P_DEFAULT, H5P_DEFAULT);
    check(a >= 0, "attribute %s", name);
    ok(H5Awrite(a, H5T_NATIVE_LONG, &v), "H5Awrite");
    H5Aclose(a);
    H5Sclose(space);
}

/* A dataset creation list without modification times (the file's bytes must not depend on when
 * it was written), chunked when chunk is not NULL. */
static hid_t creation(const hsize_t *chunk)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    ok(H5Pset_obj_track_times(dcpl, 0), "H5Pset_obj_track_times");
    if (chunk) ok(H5Pset_chunk(dcpl, 2, chunk), "H5Pset_chunk");
    return dcpl;
}

/* Rank 0, after the file is closed: every object's contents through the POSIX driver. */
static herr_t hash_object(hid_t group, const char *name, const H5L_info_t *info, void *op)
{
    (void)info;
    uint64_t *h = op;
    hid_t d = H5Dopen2(group, name, H5P_DEFAULT);
    if (d < 0) return -1;
    hid_t space = H5Dget_space(d), dcpl = H5Dget_create_plist(d);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    hsize_t dims[2] = {0, 0}, chunk[2] = {0, 0};
    int ndims = H5Sget_simple_extent_dims(space, dims, NULL);
    H5D_layout_t layout = H5Pget_layout(dcpl);
    if (layout == H5D_CHUNKED) H5Pget_chunk(dcpl, 2, chunk);
    H5Pclose(dcpl);
    uint64_t shape[] = {(uint64_t)ndims, dims[0], dims[1], (uint64_t)layout, chunk[0], chunk[1]};
    for (int i = 0; i < 6; i++) /* what h5dump -p shows of it: its shape and layout */
        *h = mix2(*h, shape[i]);
    int *data = malloc((size_t)(n > 0 ? n : 1) * sizeof *data);
    if (H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) return -1;
    *h = mix2(*h, (uint64_t)n);
    for (char *c = (char *)name; *c; c++)
        *h = mix2(*h, (uint64_t)*c);
    for (hssize_t i = 0; i < n; i++)
        *h = mix2(*h, (uint64_t)data[i]);
    free(data);
    if (H5Aexists(d, "step") > 0) {
        long v;
        hid_t a = H5Aopen(d, "step", H5P_DEFAULT);
        H5Aread(a, H5T_NATIVE_LONG, &v);
        H5Aclose(a);
        *h = mix2(*h, (uint64_t)v);
    }
    H5Sclose(space);
    H5Dclose(d);
    return 0;
}

static void hash_file(const char *path, uint64_t *contents, uint64_t *bytes, uint64_t *length)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    check(f >= 0, "H5Fopen %s (POSIX driver)", path);
    *contents = 0;
    if (bytes) *bytes = 0, *length = 0;
    ok(H5Literate(f, H5_INDEX_NAME, H5_ITER_INC, NULL, hash_object, contents), "H5Literate");
    long ranks;
    hid_t a = H5Aopen(f, "ranks", H5P_DEFAULT);
    H5Aread(a, H5T_NATIVE_LONG, &ranks);
    H5Aclose(a);
    *contents = mix2(*contents, (uint64_t)ranks);
    H5Fclose(f);
    if (!bytes) return;
    FILE *raw = fopen(path, "rb");
    check(raw != NULL, "fopen %s", path);
    int c;
    while ((c = getc(raw)) != EOF)
        *bytes = mix2(*bytes, (uint64_t)c ^ *length << 8), ++*length;
    fclose(raw);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 2);
    int raw = argc > 3 && !strcmp(argv[3], "bytes");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[4096];
    int scratch = scratch_file(path, sizeof path, "ckpt_hdf5", "h5");

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_mostly");
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    ok(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, info), "H5Pset_fapl_mpio");
    MPI_Info_free(&info);
    ok(H5Pset_all_coll_metadata_ops(fapl, 1), "H5Pset_all_coll_metadata_ops");
    ok(H5Pset_coll_metadata_write(fapl, 1), "H5Pset_coll_metadata_write");
    hid_t f = H5Fcreate(path, H5F_ACC_EXCL, H5P_DEFAULT, fapl);
    check(f >= 0, "H5Fcreate %s", path);
    H5Pclose(fapl);
    write_attr(f, "ranks", size);

    hsize_t fdims[2] = {NY, (hsize_t)NXR * size};
    hid_t space = H5Screate_simple(2, fdims, NULL), dcpl = creation(NULL);
    hid_t field = H5Dcreate2(f, "field", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(field >= 0, "H5Dcreate2 field");
    H5Pclose(dcpl);
    H5Sclose(space);
    hsize_t hdims[2] = {0, (hsize_t)NH * size}, hmax[2] = {H5S_UNLIMITED, (hsize_t)NH * size};
    hsize_t chunk[2] = {4, NH};
    space = H5Screate_simple(2, hdims, hmax), dcpl = creation(chunk);
    hid_t history = H5Dcreate2(f, "history", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    check(history >= 0, "H5Dcreate2 history");
    H5Pclose(dcpl);
    H5Sclose(space);

    uint64_t sum = 0, work = 0;
    for (long s = 0; s < steps; s++) {
        write_field(field, s, rank, s % 2 == 0, s % 3 == 2);
        write_history(history, s, rank, s % 4 < 2);
        if (s % 5 == 4) { /* a new dataset: the rank-0 half of this step's first row */
            char name[32];
            snprintf(name, sizeof name, "snap_%03ld", s);
            hsize_t n = NXR;
            hid_t sp = H5Screate_simple(1, &n, NULL), dc = creation(NULL);
            hid_t d = H5Dcreate2(f, name, H5T_NATIVE_INT, sp, H5P_DEFAULT, dc, H5P_DEFAULT);
            check(d >= 0, "H5Dcreate2 %s", name);
            int row[NXR];
            for (int j = 0; j < NXR; j++)
                row[j] = value(s, 0, j);
            hid_t dxpl = transfer(1);
            if (rank != 0) H5Sselect_none(sp);
            ok(H5Dwrite(d, H5T_NATIVE_INT, sp, sp, dxpl, row), "H5Dwrite (snap)");
            H5Pclose(dxpl);
            H5Pclose(dc);
            H5Sclose(sp);
            H5Dclose(d);
        }
        if (s % 3 == 0) write_attr(field, "step", s);
        if (s % 4 == 3) ok(H5Fflush(f, H5F_SCOPE_GLOBAL), "H5Fflush");
        work = mix2(work, compute(sum ^ (uint64_t)s, units));
        sum = check_field(field, s, size, sum);
        sum = check_history(history, s, (rank + 1) % size, sum);
        if (s % 10 == 9) progress("step %ld\n", s + 1);
    }
    H5Dclose(history);
    H5Dclose(field);
    ok(H5Fclose(f), "H5Fclose");

    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t contents = 0, bytes = 0, length = 0;
    if (rank == 0) hash_file(path, &contents, raw ? &bytes : NULL, &length);
    const char *names[] = {"readback", "work", "contents", "bytes", "length"};
    uint64_t v[] = {sum, work, contents, bytes, length};
    report("parallel_hdf", names, v, 5);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!scratch && rank == 0) unlink(path);
    MPI_Finalize();
    return 0;
}
