/* The shared file pointer (MPI 4.0 14.4.4; docs/mpi-io.md): read_shared,
 * write_shared and their non-blocking forms, the ordered collectives,
 * seek_shared, get_position_shared.
 *
 * Each rank's real file is its own (opened on MPI_COMM_SELF), so the real
 * MPI's shared pointer would be private to the rank. mpcr keeps one per
 * open in a small file beside the data file, which every rank's proxy
 * reads and changes under an fcntl lock (src/proxy/serve/serve_file.c):
 * an independent access takes its etypes from it and accesses there in one
 * call to the proxy, so no checkpoint falls between the two. The ordered
 * collectives and seek_shared are agreements of the library (point-to-point
 * messages, which a checkpoint's drain covers) around one real change made
 * by the leader (rank 0 of the file's communicator). The proxy saves the
 * pointer with the file, and a restart sets it back. */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "file.h"
#include "pt2pt/p2p.h"

static int leader(const struct mpcr_file *f)
{
    return f->comm->rank == 0;
}

int mpcr_file_shared_reset(struct mpcr_file *f, int err)
{
    err = mpcr_file_agree(f, err);
    if (err) return err;
    struct mpcr_file_call fc = {.op = MPCR_FILE_SEEK_SHARED, .file = mpcr_file_id(f),
                                .flag = MPI_SEEK_SET};
    return mpcr_file_agree(f, leader(f) ? mpcr_file_call(&fc, NULL) : MPI_SUCCESS);
}

/* ---- independent ---- */

int mpcr_impl_File_read_shared(struct mpcr_file *f, void *buf, MPI_Count count,
                               const struct mpcr_type *t, MPI_Status *status)
{
    return mpcr_file_access(f, MPCR_FILE_READ_SHARED, 0, buf, count, t, status);
}

int mpcr_impl_File_write_shared(struct mpcr_file *f, const void *buf, MPI_Count count,
                                const struct mpcr_type *t, MPI_Status *status)
{
    return mpcr_file_access(f, MPCR_FILE_WRITE_SHARED, 0, buf, count, t, status);
}

int mpcr_impl_File_iread_shared(struct mpcr_file *f, void *buf, MPI_Count count,
                                const struct mpcr_type *t, MPI_Request *request)
{
    return mpcr_file_access_request(f, MPCR_FILE_READ_SHARED, 0, buf, count, t, request);
}

int mpcr_impl_File_iwrite_shared(struct mpcr_file *f, const void *buf, MPI_Count count,
                                 const struct mpcr_type *t, MPI_Request *request)
{
    return mpcr_file_access_request(f, MPCR_FILE_WRITE_SHARED, 0, buf, count, t, request);
}

int mpcr_impl_File_get_position_shared(struct mpcr_file *f, MPI_Offset *offset)
{
    if (!offset) return MPI_ERR_ARG;
    struct mpcr_file_call fc = {.op = MPCR_FILE_GET_SHARED, .file = mpcr_file_id(f)};
    int err = mpcr_file_call(&fc, NULL);
    if (!err) *offset = fc.result;
    return err;
}

/* ---- collective ---- */

int mpcr_impl_File_seek_shared(struct mpcr_file *f, MPI_Offset offset, int whence)
{
    int err = whence == MPI_SEEK_SET || whence == MPI_SEEK_CUR || whence == MPI_SEEK_END
                  ? MPI_SUCCESS
                  : MPI_ERR_ARG;
    if (!err && whence == MPI_SEEK_SET && offset < 0) err = MPI_ERR_ARG;
    /* every rank in, with the same arguments (MPI 4.0 14.4.4), before the change */
    const struct mpcr_type *t = mpcr_type_get(MPI_OFFSET);
    MPI_Offset mine[2] = {offset, whence}, lo[2], hi[2];
    int e = mpcr_impl_Allreduce(mine, lo, 2, MPI_OFFSET, t, MPI_MIN, f->comm);
    if (!e) e = mpcr_impl_Allreduce(mine, hi, 2, MPI_OFFSET, t, MPI_MAX, f->comm);
    if (e) return e;
    if (lo[0] != hi[0] || lo[1] != hi[1]) err = MPI_ERR_NOT_SAME;
    if ((err = mpcr_file_agree(f, err))) return err;
    struct mpcr_file_call fc = {.op = MPCR_FILE_SEEK_SHARED, .file = mpcr_file_id(f), .at = offset,
                                .flag = whence};
    return mpcr_file_agree(f, leader(f) ? mpcr_file_call(&fc, NULL) : MPI_SUCCESS);
}

/* The ordered collectives: rank r's data goes after ranks 0..r-1's, all of
 * it at the shared pointer, which advances by the sum. Two sums over the
 * communicator (this rank's offset among them, and the total), the leader
 * takes the total from the shared pointer, a broadcast says where it
 * began, then each rank accesses its part by explicit offset. */
int mpcr_file_ordered(struct mpcr_file *f, enum mpcr_file_op op, const void *buf, MPI_Count count,
                      const struct mpcr_type *t, MPI_Status *status)
{
    const struct mpcr_type *e = mpcr_type_get(f->etype), *off_t_ = mpcr_type_get(MPI_OFFSET);
    uint64_t bytes;
    int err = mpcr_bytes_of(count, t, &bytes);
    if (!err && (!e || !e->size || bytes % (uint64_t)e->size)) err = MPI_ERR_ARG; /* whole etypes */
    MPI_Offset mine = err ? 0 : (MPI_Offset)(bytes / (uint64_t)e->size), before = 0, total = 0;
    if ((err = mpcr_file_agree(f, err))) return err;
    err = mpcr_impl_Exscan(&mine, &before, 1, MPI_OFFSET, off_t_, MPI_SUM, f->comm);
    if (!err) err = mpcr_impl_Allreduce(&mine, &total, 1, MPI_OFFSET, off_t_, MPI_SUM, f->comm);
    if (err) return err;
    if (leader(f)) before = 0; /* Exscan leaves rank 0's undefined */
    MPI_Offset base = 0;
    struct mpcr_file_call fc = {.op = MPCR_FILE_SHARED_ADD, .file = mpcr_file_id(f), .at = total};
    int lerr = leader(f) ? mpcr_file_call(&fc, NULL) : MPI_SUCCESS;
    if (leader(f) && !lerr) base = fc.result;
    if ((err = mpcr_file_agree(f, lerr))) return err;
    if ((err = mpcr_impl_Bcast(&base, 1, off_t_, 0, f->comm))) return err;
    return mpcr_file_access(f, op == MPCR_FILE_READ ? MPCR_FILE_READ_AT : MPCR_FILE_WRITE_AT,
                            base + before, buf, count, t, status);
}

int mpcr_impl_File_read_ordered(struct mpcr_file *f, void *buf, MPI_Count count,
                                const struct mpcr_type *t, MPI_Status *status)
{
    return mpcr_file_ordered(f, MPCR_FILE_READ, buf, count, t, status);
}

int mpcr_impl_File_write_ordered(struct mpcr_file *f, const void *buf, MPI_Count count,
                                 const struct mpcr_type *t, MPI_Status *status)
{
    return mpcr_file_ordered(f, MPCR_FILE_WRITE, buf, count, t, status);
}
