/* Reading and writing (MPI 4.0 14.4): the blocking forms with explicit
 * offsets and with the individual file pointer, independent and
 * collective.
 *
 * The data travel as packed bytes, as messages do: the proxy reads or
 * writes them as MPI_BYTE through the file's view, which the real MPI
 * holds with its real datatypes (file_view.c), so a memory datatype
 * needs no real twin, except under a view in external32: the real MPI
 * converts what it reads and writes by the memory datatype, so the access
 * carries its definition and the proxy unpacks the bytes into it
 * (docs/mpi-io.md, "Data representations"). A large contiguous buffer is shared with the proxy
 * (shared_buffers.c) and moves without a copy; any other is packed into,
 * or unpacked from, the staging area.
 *
 * The non-blocking forms (iread, iwrite and their _at and _all forms) are
 * carried out at once and return a request completed already, which any
 * Wait or Test function completes with the access's status: MPI lets an
 * operation complete at its start, and a checkpoint then never finds one
 * in flight.
 *
 * The collective forms (_all) are carried out as the independent ones
 * (their lines in io.api say `calls=`):
 * every rank's real call is made on its own MPI_COMM_SELF file, so that a
 * checkpoint may stop a rank between any two calls without leaving
 * another inside a real collective (docs/mpi-io.md). MPI lets a collective
 * access be carried out so; what it loses is ROMIO's and OMPIO's two-phase
 * aggregation. */
#include "api_gen.h"
#include "datatype/dtype.h"
#include "datatype/real_type.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "file.h"
#include "pt2pt/p2p.h"
#include "pt2pt/request.h"
#include "runtime/staging.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Only the byte count: a file access's status has no source or tag
 * (MPI_Get_count and MPI_Get_elements read the count), and MPI_ERROR is
 * left alone as for any single completion. */
static void status_bytes(MPI_Status *st, uint64_t bytes)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->count_lo = (int)(uint32_t)bytes;
    st->count_hi_and_cancelled = (int)(uint32_t)((bytes >> 32) << 1);
}

int mpcr_file_explicit_refused(const struct mpcr_file *f, enum mpcr_file_op op)
{
    return (f->amode & MPI_MODE_SEQUENTIAL) && (op == MPCR_FILE_READ_AT || op == MPCR_FILE_WRITE_AT);
}

int mpcr_file_access(struct mpcr_file *f, enum mpcr_file_op op, int64_t at, const void *buf,
                     MPI_Count count, const struct mpcr_type *t, MPI_Status *st)
{
    int reading = op == MPCR_FILE_READ || op == MPCR_FILE_READ_AT || op == MPCR_FILE_READ_SHARED;
    uint64_t bytes, off;
    int err = mpcr_bytes_of(count, t, &bytes);
    if (err) return err;
    const void *flat = mpcr_type_flat_data(buf, count, t);
    int shared = flat && (reading ? mpcr_share_recv((void *)flat, bytes, &off)
                                  : mpcr_share_send(flat, bytes, &off));
    if (!shared) {
        if ((err = mpcr_staging_alloc(bytes, &off))) return err;
        if (!reading) mpcr_pack(mpcr_staging_ptr(off), buf, count, t);
    }
    struct mpcr_file_call fc = {.op = op, .file = mpcr_file_id(f), .at = at, .data = off,
                                .bytes = bytes};
    struct mpcr_file_blobs b = {0};
    char *def = NULL;
    if (mpcr_file_external32(f) && bytes) { /* the memory type for the real MPI's conversion */
        if (bytes / (uint64_t)t->size > INT_MAX) /* the proxy's typed access takes an int count */
            mpcr_unsupported_feature("an MPI_File access under external32 of more than 2^31 - 1 "
                                     "elements of its datatype");
        err = mpcr_real_type_def(t, &def, &b.aux_bytes);
        b.aux = def;
    }
    if (!err) err = mpcr_file_call(&fc, &b);
    free(def);
    uint64_t done = err ? 0 : fc.done < bytes ? fc.done : bytes;
    if (reading && shared)
        mpcr_share_received(off, done);
    else if (reading)
        mpcr_unpack((void *)buf, mpcr_staging_ptr(off), done, t);
    mpcr_staging_free(off);
    if (!err) status_bytes(st, done);
    return err;
}

/* The program's explicit-offset accesses (not those the ordered
 * collectives make): refused on a sequential file, as ROMIO refuses them
 * (MPI 4.0 14.2.2), since the proxy's real file is not sequential. */
static int explicit(struct mpcr_file *f, enum mpcr_file_op op, int64_t at, const void *buf,
                    MPI_Count count, const struct mpcr_type *t, MPI_Status *status)
{
    if (mpcr_file_explicit_refused(f, op)) return MPI_ERR_UNSUPPORTED_OPERATION;
    return mpcr_file_access(f, op, at, buf, count, t, status);
}

int mpcr_impl_File_read(struct mpcr_file *f, void *buf, MPI_Count count, const struct mpcr_type *t,
                        MPI_Status *status)
{
    return mpcr_file_access(f, MPCR_FILE_READ, 0, buf, count, t, status);
}

int mpcr_impl_File_write(struct mpcr_file *f, const void *buf, MPI_Count count,
                         const struct mpcr_type *t, MPI_Status *status)
{
    return mpcr_file_access(f, MPCR_FILE_WRITE, 0, buf, count, t, status);
}

int mpcr_impl_File_read_at(struct mpcr_file *f, MPI_Offset offset, void *buf, MPI_Count count,
                           const struct mpcr_type *t, MPI_Status *status)
{
    return explicit(f, MPCR_FILE_READ_AT, offset, buf, count, t, status);
}

int mpcr_impl_File_write_at(struct mpcr_file *f, MPI_Offset offset, const void *buf,
                            MPI_Count count, const struct mpcr_type *t, MPI_Status *status)
{
    return explicit(f, MPCR_FILE_WRITE_AT, offset, buf, count, t, status);
}

/* ---- non-blocking: done at once, a completed request returned ---- */

int mpcr_file_access_request(struct mpcr_file *f, enum mpcr_file_op op, int64_t at,
                             const void *buf, MPI_Count count, const struct mpcr_type *t,
                             MPI_Request *request)
{
    MPI_Status st;
    if (mpcr_file_explicit_refused(f, op)) return MPI_ERR_UNSUPPORTED_OPERATION;
    int err = mpcr_file_access(f, op, at, buf, count, t, &st);
    if (err) return err;
    struct mpcr_request *q = mpcr_request_new(f->comm, request);
    if (!q) return MPI_ERR_NO_MEM;
    q->kind = MPCR_REQ_RECV; /* its status is the program's whole (mpcr_request_status_out) */
    q->token = 0, q->rc = MPI_SUCCESS;
    q->status = st;
    q->status.MPI_SOURCE = MPI_ANY_SOURCE, q->status.MPI_TAG = MPI_ANY_TAG;
    q->status.MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

int mpcr_impl_File_iread(struct mpcr_file *f, void *buf, MPI_Count count, const struct mpcr_type *t,
                         MPI_Request *request)
{
    return mpcr_file_access_request(f, MPCR_FILE_READ, 0, buf, count, t, request);
}

int mpcr_impl_File_iwrite(struct mpcr_file *f, const void *buf, MPI_Count count,
                          const struct mpcr_type *t, MPI_Request *request)
{
    return mpcr_file_access_request(f, MPCR_FILE_WRITE, 0, buf, count, t, request);
}

int mpcr_impl_File_iread_at(struct mpcr_file *f, MPI_Offset offset, void *buf, MPI_Count count,
                            const struct mpcr_type *t, MPI_Request *request)
{
    return mpcr_file_access_request(f, MPCR_FILE_READ_AT, offset, buf, count, t, request);
}

int mpcr_impl_File_iwrite_at(struct mpcr_file *f, MPI_Offset offset, const void *buf,
                             MPI_Count count, const struct mpcr_type *t, MPI_Request *request)
{
    return mpcr_file_access_request(f, MPCR_FILE_WRITE_AT, offset, buf, count, t, request);
}

