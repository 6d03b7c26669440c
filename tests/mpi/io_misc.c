/* MPI-IO beyond reads and writes (docs/mpi-io.md), against native MPICH:
 * error classes of bad opens (a missing file, MPI_MODE_EXCL on an existing
 * one, a bad access mode, a read-only file written), the default error
 * handler of files (MPI_ERRORS_RETURN) and MPI_FILE_NULL's, a user file
 * error handler (called with the file and the code, by a failing call and
 * by MPI_File_call_errhandler), MPI_File_c2f/f2c, info hints set and read
 * back, preallocate, set_size and get_size, a read past the end (its
 * count), seek from the end, get_type_extent, MPI_MODE_DELETE_ON_CLOSE,
 * MPI_File_delete. Every rank prints; lines are compared sorted. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank;
static int calls, last_code;
static MPI_File last_file;

static void on_error(MPI_File *fh, int *code, ...)
{
    calls++, last_code = *code, last_file = *fh;
}

static int cls(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &c);
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096], missing[4200];
    long id = (long)getpid();
    MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/io_misc.%ld.dat", tmp ? tmp : "/tmp", id);
    snprintf(missing, sizeof missing, "%s.missing", path);
    MPI_File fh;

    MPI_Errhandler eh;
    MPI_File_get_errhandler(MPI_FILE_NULL, &eh);
    printf("rank %d: MPI_FILE_NULL's handler is MPI_ERRORS_RETURN: %d\n", rank, eh == MPI_ERRORS_RETURN);
    printf("rank %d: open of a missing file: class %d\n", rank,
           cls(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh)));
    printf("rank %d: open with RDONLY|RDWR: class %d\n", rank,
           cls(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh)));

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "write_once,random");
    int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    printf("rank %d: open with CREATE|EXCL: class %d\n", rank, cls(rc));
    MPI_File again;
    printf("rank %d: open with CREATE|EXCL again: class %d\n", rank,
           cls(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &again)));
    MPI_File_get_errhandler(fh, &eh);
    printf("rank %d: a file's handler is MPI_ERRORS_RETURN: %d\n", rank, eh == MPI_ERRORS_RETURN);
    MPI_Fint f = MPI_File_c2f(fh);
    printf("rank %d: c2f/f2c: %d, MPI_FILE_NULL's c2f %d\n", rank, MPI_File_f2c(f) == fh,
           (int)MPI_File_c2f(MPI_FILE_NULL));

    MPI_Info used;
    MPI_File_get_info(fh, &used);
    int nkeys = 0;
    MPI_Info_get_nkeys(used, &nkeys);
    printf("rank %d: get_info: some hints: %d\n", rank, nkeys > 0);
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "read_once");
    printf("rank %d: set_info: class %d\n", rank, cls(MPI_File_set_info(fh, info)));
    MPI_Info_free(&info);

    MPI_Offset size;
    MPI_File_preallocate(fh, 4000);
    MPI_File_get_size(fh, &size);
    printf("rank %d: after preallocate(4000): size >= 4000: %d (%lld)\n", rank, size >= 4000, (long long)size);
    MPI_File_set_size(fh, 1000);
    MPI_File_get_size(fh, &size);
    printf("rank %d: after set_size(1000): %lld\n", rank, (long long)size);

    int buf[300];
    MPI_Status st;
    int count;
    memset(buf, 0, sizeof buf);
    MPI_File_read_at(fh, 800, buf, 100, MPI_INT, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    printf("rank %d: read of 100 ints at 800 of 1000 bytes: %d ints\n", rank, count);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    printf("rank %d: ... as doubles: %d\n", rank, count);
    MPI_File_seek(fh, -10, MPI_SEEK_END);
    MPI_Offset pos;
    MPI_File_get_position(fh, &pos);
    printf("rank %d: seek(-10, END): %lld\n", rank, (long long)pos);
    MPI_Aint extent;
    MPI_Datatype pair;
    MPI_Type_contiguous(3, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    MPI_File_get_type_extent(fh, pair, &extent);
    printf("rank %d: get_type_extent(3 doubles): %ld\n", rank, (long)extent);
    MPI_Type_free(&pair);
    printf("rank %d: seek with a bad whence: class %d\n", rank, cls(MPI_File_seek(fh, 0, 12345)));

    MPI_Errhandler mine;
    MPI_File_create_errhandler(on_error, &mine);
    MPI_File_set_errhandler(fh, mine);
    MPI_File_get_errhandler(fh, &eh);
    printf("rank %d: set/get a user handler: %d\n", rank, eh == mine);
    rc = MPI_File_seek(fh, -1, MPI_SEEK_SET); /* a negative offset */
    printf("rank %d: user handler: called %d, same file %d, code's class %d, returned %d\n", rank,
           calls, last_file == fh, cls(last_code), cls(rc));
    MPI_File_call_errhandler(fh, MPI_ERR_IO);
    printf("rank %d: call_errhandler: called %d, code %d\n", rank, calls, last_code == MPI_ERR_IO);
    MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&mine);
    MPI_File_close(&fh);
    printf("rank %d: closed: MPI_FILE_NULL %d\n", rank, fh == MPI_FILE_NULL);

    /* read-only */
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int amode;
    MPI_File_get_amode(fh, &amode);
    printf("rank %d: amode RDONLY: %d; write: class %d\n", rank, amode == MPI_MODE_RDONLY,
           cls(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE)));
    MPI_File_close(&fh);

    /* delete on close */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, rank * 4, &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: after DELETE_ON_CLOSE the file exists: %d\n", rank, access(path, F_OK) == 0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        MPI_File_close(&fh);
        int first = cls(MPI_File_delete(path, MPI_INFO_NULL));
        printf("rank 0: delete: class %d, again: class %d\n", first,
               cls(MPI_File_delete(path, MPI_INFO_NULL)));
    }
    MPI_Finalize();
    return 0;
}
