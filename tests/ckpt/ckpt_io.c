/* MPI-IO at any checkpoint (docs/mpi-io.md): a file opened collectively,
 * with a view of holes per rank (each rank's etypes interleaved with the
 * others' in blocks, after a header), written over many steps with every
 * form (write_at_all, write_all after a seek, write, write_at, iwrite_at and
 * iwrite_at_all with MPI_Wait), from contiguous buffers (some of 256 KiB
 * and more: shared with the proxy) and from a strided memory type; each
 * step's data read back (read_at_all, read or iread with MPI_Test after a
 * seek) and checked, with MPI_Get_count of the statuses, and
 * every 4 steps the file's size (a restart from an older generation must
 * have cut back what the lost run wrote after the checkpoint). Beside it a
 * log written with write_ordered each step through the shared file pointer
 * (a restart sets it back), read back at the end with read_shared. At
 * the end every rank checks its pointer, byte offsets, size, amode,
 * atomicity and view, and rank 0 reads the whole file through the default
 * view and prints its size and a checksum: a restart from any cut must
 * leave the same bytes as an uninterrupted run.
 *   ckpt_io [STEPS [UNITS_PER_STEP [shared|explicit [doc]]]]   (default 48 2 shared)
 * `explicit`: the log written and read by explicit offsets, to the same
 * bytes and results: for native MPICH, whose own shared file pointer fails
 * here (tests/io.cmake). `doc`: the log opened with
 * MPI_MODE_DELETE_ON_CLOSE (it must survive a checkpoint --exit).
 * The file is in $CKPT_SCRATCH (the checkpoint harness's scratch directory,
 * kept there for a restart from an older generation), or in $TMPDIR/ /tmp
 * and deleted at the end. */
#include "ckpt.h"

#define K 64 /* blocks of the filetype */
#define L 16 /* ints per block */
#define HEADER 512

static int instances(long step)
{
    return step % 8 == 5 ? 80 : 1 + (int)(mix64((uint64_t)step) % 3); /* 80 x 4 KiB: shared */
}

static int value(long inst, int rank, long j)
{
    return (int)(mix2((uint64_t)inst << 8 | (uint64_t)rank, (uint64_t)j) & 0x7fffffff);
}

static void ok(int rc, const char *what)
{
    check(rc == MPI_SUCCESS, "%s failed with error %d", what, rc);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 48), units = arg_long(argc, argv, 2, 2);
    int shared = !(argc > 3 && !strcmp(argv[3], "explicit"));
    int doc = argc > 4 && !strcmp(argv[4], "doc");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    char path[4096];
    int scratch = scratch_file(path, sizeof path, "ckpt_io", "dat");

    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "access_style", "read_mostly,write_mostly");
    ok(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR, info,
                     &fh),
       "MPI_File_open");
    MPI_Info_free(&info);
    /* A log through the shared file pointer: each step's records in rank order. */
    char logpath[4200];
    snprintf(logpath, sizeof logpath, "%s.log", path);
    MPI_File log;
    ok(MPI_File_open(MPI_COMM_WORLD, logpath,
                     MPI_MODE_CREATE | MPI_MODE_RDWR | (doc ? MPI_MODE_DELETE_ON_CLOSE : 0),
                     MPI_INFO_NULL, &log),
       "MPI_File_open (log)");
    ok(MPI_File_set_view(log, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), "set_view (log)");
    MPI_Offset logged = 0; /* ints, every rank's */
    MPI_Errhandler eh;
    ok(MPI_File_get_errhandler(fh, &eh), "MPI_File_get_errhandler");
    check(eh == MPI_ERRORS_RETURN, "a file's default error handler is not MPI_ERRORS_RETURN");
    ok(MPI_File_set_size(fh, HEADER), "MPI_File_set_size");
    if (rank == 0) {
        char header[HEADER];
        memset(header, '#', sizeof header);
        ok(MPI_File_write_at(fh, 0, header, HEADER, MPI_CHAR, MPI_STATUS_IGNORE), "header");
    }
    ok(MPI_File_set_atomicity(fh, 1), "MPI_File_set_atomicity"); /* 0 again half-way */

    /* The view: this rank's blocks of L ints among every rank's, K a filetype. */
    MPI_Datatype vec, filetype;
    MPI_Type_vector(K, L, L * size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)K * L * size * (MPI_Aint)sizeof(int), &filetype);
    MPI_Type_commit(&filetype);
    MPI_Type_free(&vec); /* the view keeps what it needs */
    ok(MPI_File_set_view(fh, HEADER + (MPI_Offset)rank * L * sizeof(int), MPI_INT, filetype,
                         "native", MPI_INFO_NULL),
       "MPI_File_set_view");
    MPI_Type_free(&filetype);

    int *buf = malloc(80 * K * L * sizeof(int)), *back = malloc(80 * K * L * sizeof(int));
    int *wide = malloc(2 * 80 * K * L * sizeof(int));
    uint64_t sum = 0, work = 0, written = 0;
    long inst = 0, every = steps / 6 > 0 ? steps / 6 : 1;
    for (long s = 0; s < steps; s++) {
        if (s == steps / 2) midway_for_harness(rank); /* a harness's first checkpoint finds the files open */
        if (s == steps / 2) ok(MPI_File_set_atomicity(fh, 0), "MPI_File_set_atomicity");
        int n = instances(s);
        long count = (long)n * K * L;
        MPI_Offset at = (MPI_Offset)inst * K * L;
        for (long j = 0; j < count; j++)
            buf[j] = value(inst + j / (K * L), rank, j % (K * L));
        MPI_Status st;
        int got = -1;
        switch (s % 6) {
        case 0: ok(MPI_File_write_at_all(fh, at, buf, (int)count, MPI_INT, &st), "write_at_all"); break;
        case 1:
            ok(MPI_File_seek(fh, at, MPI_SEEK_SET), "seek");
            ok(MPI_File_write_all(fh, buf, (int)count, MPI_INT, &st), "write_all");
            break;
        case 2:
            ok(MPI_File_seek(fh, at, MPI_SEEK_SET), "seek");
            ok(MPI_File_write(fh, buf, (int)count, MPI_INT, &st), "write");
            break;
        case 3: ok(MPI_File_write_at(fh, at, buf, (int)count, MPI_INT, &st), "write_at"); break;
        case 4: { /* from every other int of a wider buffer: packed by the library */
            MPI_Datatype strided;
            MPI_Type_vector((int)count, 1, 2, MPI_INT, &strided);
            MPI_Type_commit(&strided);
            for (long j = 0; j < count; j++)
                wide[2 * j] = buf[j], wide[2 * j + 1] = -1;
            ok(MPI_File_write_at_all_c(fh, at, wide, 1, strided, &st), "write_at_all_c (strided)");
            MPI_Type_free(&strided);
            break;
        }
        case 5: { /* non-blocking, completed by MPI_Wait */
            MPI_Request rq;
            if (s % 4 == 1)
                ok(MPI_File_iwrite_at_all(fh, at, buf, (int)count, MPI_INT, &rq), "iwrite_at_all");
            else
                ok(MPI_File_iwrite_at(fh, at, buf, (int)count, MPI_INT, &rq), "iwrite_at");
            ok(MPI_Wait(&rq, &st), "MPI_Wait");
            break;
        }
        }
        MPI_Get_count(&st, MPI_INT, &got);
        check(got == count, "step %ld: MPI_Get_count of the write says %d, not %ld", s, got, count);
        written += (uint64_t)count;
        work = mix2(work, compute(sum ^ (uint64_t)s, units));
        /* read back: explicit offset collectively, or the pointer independently */
        memset(back, 0, (size_t)count * sizeof(int));
        if (s % 6 == 1) {
            MPI_Request rq;
            ok(MPI_File_seek(fh, at, MPI_SEEK_SET), "seek");
            ok(MPI_File_iread(fh, back, (int)count, MPI_INT, &rq), "iread");
            int flag = 0;
            while (!flag)
                ok(MPI_Test(&rq, &flag, &st), "MPI_Test");
        } else if (s % 2) {
            ok(MPI_File_read_at_all(fh, at, back, (int)count, MPI_INT, &st), "read_at_all");
        } else {
            ok(MPI_File_seek(fh, at, MPI_SEEK_SET), "seek");
            ok(MPI_File_read(fh, back, (int)count, MPI_INT, &st), "read");
            MPI_Offset pos;
            ok(MPI_File_get_position(fh, &pos), "get_position");
            check(pos == at + count, "step %ld: pointer %lld after a read, not %lld", s,
                  (long long)pos, (long long)(at + count));
        }
        MPI_Get_count(&st, MPI_INT, &got);
        check(got == count, "step %ld: MPI_Get_count of the read says %d, not %ld", s, got, count);
        for (long j = 0; j < count; j++) {
            check(back[j] == buf[j], "step %ld: int %ld read back is %d, not %d", s, j, back[j], buf[j]);
            sum = mix2(sum, (uint64_t)back[j]);
        }
        inst += n;
        { /* the log: 1 + (step + rank) % 3 records of 4 ints, in rank order */
            int rec[12], nrec = 1 + (int)((s + rank) % 3);
            for (int j = 0; j < 4 * nrec; j++)
                rec[j] = value(s, rank, 1000 + j);
            MPI_Offset mine = logged;
            for (int q = 0; q < rank; q++)
                mine += 4 * (1 + (s + q) % 3);
            if (shared)
                ok(MPI_File_write_ordered(log, rec, 4 * nrec, MPI_INT, &st), "write_ordered");
            else
                ok(MPI_File_write_at_all(log, mine, rec, 4 * nrec, MPI_INT, &st), "write_at_all (log)");
            for (int q = 0; q < size; q++)
                logged += 4 * (1 + (s + q) % 3);
            MPI_Offset at_log = logged;
            if (shared) ok(MPI_File_get_position_shared(log, &at_log), "get_position_shared");
            check(at_log >= logged, "step %ld: shared pointer %lld, below %lld", s,
                  (long long)at_log, (long long)logged);
        }
        if (s % 4 == 3) { /* the size: no bytes beyond what was written (a restart from an older
                             generation cuts back what the lost run wrote after it) */
            MPI_Offset fsize;
            MPI_Barrier(MPI_COMM_WORLD);
            ok(MPI_File_get_size(fh, &fsize), "get_size");
            check(fsize == HEADER + (MPI_Offset)inst * K * L * size * (MPI_Offset)sizeof(int),
                  "step %ld: the file has %lld bytes, not %lld", s, (long long)fsize,
                  (long long)(HEADER + (MPI_Offset)inst * K * L * size * (MPI_Offset)sizeof(int)));
            MPI_Barrier(MPI_COMM_WORLD);
        }
        if (s % every == every - 1)
            progress("io: step %ld done, %ld instances, checksum %016" PRIx64 "\n", s + 1, inst, sum);
    }

    /* What the file says of itself. */
    MPI_Offset pos, byte, fsize;
    ok(MPI_File_seek(fh, 5, MPI_SEEK_SET), "seek");
    ok(MPI_File_seek(fh, 3, MPI_SEEK_CUR), "seek cur");
    ok(MPI_File_get_position(fh, &pos), "get_position");
    check(pos == 8, "pointer %lld after seeks, not 8", (long long)pos);
    ok(MPI_File_get_byte_offset(fh, (MPI_Offset)K * L + 3, &byte), "get_byte_offset");
    check(byte == HEADER + (MPI_Offset)rank * L * 4 + (MPI_Offset)K * L * size * 4 + 12,
          "byte offset %lld", (long long)byte);
    ok(MPI_File_sync(fh), "sync");
    MPI_Barrier(MPI_COMM_WORLD);
    ok(MPI_File_get_size(fh, &fsize), "get_size");
    int amode, atomic;
    ok(MPI_File_get_amode(fh, &amode), "get_amode");
    check(amode == (MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR), "amode %d", amode);
    ok(MPI_File_get_atomicity(fh, &atomic), "get_atomicity");
    check(atomic == 0, "atomicity %d", atomic);
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    ok(MPI_File_get_view(fh, &disp, &et, &ft, rep), "get_view");
    MPI_Aint lb, extent;
    MPI_Type_get_extent(ft, &lb, &extent);
    check(disp == HEADER + (MPI_Offset)rank * L * 4 && et == MPI_INT && !strcmp(rep, "native") &&
              extent == (MPI_Aint)K * L * size * 4,
          "view: disp %lld extent %ld datarep %s", (long long)disp, (long)extent, rep);
    MPI_Type_free(&ft);
    MPI_Group g;
    int gsize;
    ok(MPI_File_get_group(fh, &g), "get_group");
    MPI_Group_size(g, &gsize);
    check(gsize == size, "group of %d", gsize);
    MPI_Group_free(&g);

    /* Rank 0 reads the whole file through the default view. */
    ok(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL), "default view");
    uint64_t fsum = 0;
    if (rank == 0) {
        unsigned char *all = malloc((size_t)fsize);
        MPI_Status st;
        ok(MPI_File_read_at(fh, 0, all, (int)fsize, MPI_BYTE, &st), "read the whole file");
        int got;
        MPI_Get_count(&st, MPI_BYTE, &got);
        check(got == fsize, "read %d of %lld bytes", got, (long long)fsize);
        for (MPI_Offset i = 0; i + 8 <= fsize; i += 8) {
            uint64_t w;
            memcpy(&w, all + i, 8);
            fsum = mix2(fsum, w);
        }
        free(all);
    }
    ok(MPI_File_close(&fh), "MPI_File_close");
    /* The log: its shared pointer, every record read back once by someone
     * (read_shared from the start), its bytes. */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset at_log = logged, log_size;
    if (shared) ok(MPI_File_get_position_shared(log, &at_log), "get_position_shared");
    check(at_log == logged, "the log's shared pointer is %lld, not %lld", (long long)at_log,
          (long long)logged);
    ok(MPI_File_get_size(log, &log_size), "get_size (log)");
    check(log_size == logged * (MPI_Offset)sizeof(int), "the log has %lld bytes", (long long)log_size);
    if (shared) ok(MPI_File_seek_shared(log, 0, MPI_SEEK_SET), "seek_shared");
    uint64_t lsum = 0, all_lsum = 0;
    MPI_Status st;
    for (MPI_Offset i = rank;; i += size) { /* explicit: every size-th record */
        int rec[4], got;
        if (shared)
            ok(MPI_File_read_shared(log, rec, 4, MPI_INT, &st), "read_shared");
        else
            ok(MPI_File_read_at(log, 4 * i, rec, 4, MPI_INT, &st), "read_at (log)");
        MPI_Get_count(&st, MPI_INT, &got);
        if (got == 0) break;
        for (int j = 0; j < got; j++)
            lsum += (uint64_t)rec[j];
    }
    MPI_Allreduce(&lsum, &all_lsum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    ok(MPI_File_close(&log), "MPI_File_close (log)");
    if (doc && rank == 0) check(access(logpath, F_OK) != 0, "the log is left after its close");
    if (!scratch && !doc && rank == 0)
        ok(MPI_File_delete(logpath, MPI_INFO_NULL), "MPI_File_delete (log)");
    check(fh == MPI_FILE_NULL, "the handle is not MPI_FILE_NULL after MPI_File_close");
    if (!scratch && rank == 0) ok(MPI_File_delete(path, MPI_INFO_NULL), "MPI_File_delete");

    const char *names[] = {"ints", "instances", "checksum", "work", "file_size", "file_sum", "log_ints", "log_sum"};
    uint64_t v[] = {written, (uint64_t)inst, sum, work, (uint64_t)fsize, fsum, (uint64_t)logged, all_lsum};
    report("io", names, v, 8);
    free(buf), free(back), free(wide);
    MPI_Finalize();
    return 0;
}
