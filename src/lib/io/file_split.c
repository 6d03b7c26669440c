/* Split collectives (MPI 4.0 14.4.5): MPI_File_read_all_begin ... _end.
 * The access is made by the _begin call, like the blocking collective it
 * splits (file_io.c, file_shared.c), and the _end call returns its status:
 * nothing is left in flight between the two, so a checkpoint there finds
 * only the status, in the file object in the program's memory. A file has
 * one split collective at a time (MPI_ERR_OTHER otherwise, as a second
 * begin or an end without one is erroneous). */
#include "api_gen.h"
#include "file.h"

static int begin(struct mpcr_file *f, enum mpcr_file_op op, int64_t at, const void *buf,
                 MPI_Count count, const struct mpcr_type *t, int ordered)
{
    if (f->split_active) return MPI_ERR_OTHER;
    if (mpcr_file_explicit_refused(f, op)) return MPI_ERR_UNSUPPORTED_OPERATION;
    MPI_Status st = {0};
    int err = ordered ? mpcr_file_ordered(f, op, buf, count, t, &st)
                      : mpcr_file_access(f, op, at, buf, count, t, &st);
    f->split_active = 1, f->split_buf = buf, f->split_status = st, f->split_rc = err;
    return err;
}

static int end(struct mpcr_file *f, const void *buf, MPI_Status *status)
{
    if (!f->split_active || buf != f->split_buf) return MPI_ERR_OTHER;
    f->split_active = 0;
    if (status != MPI_STATUS_IGNORE) {
        int keep = status->MPI_ERROR; /* a single completion leaves it alone */
        *status = f->split_status;
        status->MPI_ERROR = keep;
    }
    return MPI_SUCCESS; /* an error of the access was the _begin's */
}

int mpcr_impl_File_read_all_begin(struct mpcr_file *f, void *buf, MPI_Count count,
                                  const struct mpcr_type *t)
{
    return begin(f, MPCR_FILE_READ, 0, buf, count, t, 0);
}

int mpcr_impl_File_read_all_end(struct mpcr_file *f, void *buf, MPI_Status *status)
{
    return end(f, buf, status);
}

int mpcr_impl_File_write_all_begin(struct mpcr_file *f, const void *buf, MPI_Count count,
                                   const struct mpcr_type *t)
{
    return begin(f, MPCR_FILE_WRITE, 0, buf, count, t, 0);
}

int mpcr_impl_File_write_all_end(struct mpcr_file *f, const void *buf, MPI_Status *status)
{
    return end(f, buf, status);
}

int mpcr_impl_File_read_at_all_begin(struct mpcr_file *f, MPI_Offset offset, void *buf,
                                     MPI_Count count, const struct mpcr_type *t)
{
    return begin(f, MPCR_FILE_READ_AT, offset, buf, count, t, 0);
}

int mpcr_impl_File_read_at_all_end(struct mpcr_file *f, void *buf, MPI_Status *status)
{
    return end(f, buf, status);
}

int mpcr_impl_File_write_at_all_begin(struct mpcr_file *f, MPI_Offset offset, const void *buf,
                                      MPI_Count count, const struct mpcr_type *t)
{
    return begin(f, MPCR_FILE_WRITE_AT, offset, buf, count, t, 0);
}

int mpcr_impl_File_write_at_all_end(struct mpcr_file *f, const void *buf, MPI_Status *status)
{
    return end(f, buf, status);
}

int mpcr_impl_File_read_ordered_begin(struct mpcr_file *f, void *buf, MPI_Count count,
                                      const struct mpcr_type *t)
{
    return begin(f, MPCR_FILE_READ, 0, buf, count, t, 1);
}

int mpcr_impl_File_read_ordered_end(struct mpcr_file *f, void *buf, MPI_Status *status)
{
    return end(f, buf, status);
}

int mpcr_impl_File_write_ordered_begin(struct mpcr_file *f, const void *buf, MPI_Count count,
                                       const struct mpcr_type *t)
{
    return begin(f, MPCR_FILE_WRITE, 0, buf, count, t, 1);
}

int mpcr_impl_File_write_ordered_end(struct mpcr_file *f, const void *buf, MPI_Status *status)
{
    return end(f, buf, status);
}
