/* Files (MPI 4.0 chapter 14; docs/mpi-io.md): what the generated entry
 * points (the FILE kind) and the files of this folder share.
 *
 * A file is an object of the handle system in the program's memory (so it
 * survives a restart with its handle); the proxy opens the real file on
 * MPI_COMM_SELF under the file's id (its handle's slot) and keeps, as a
 * resource of its state file, what a new proxy needs to open it again
 * (src/proxy/resources/files.c). The collective parts of a file's life are
 * done here with the library's own collectives, which a checkpoint's drain
 * covers: no real MPI-IO call of the proxy ever waits for another rank. */
#ifndef MPCR_FILE_H
#define MPCR_FILE_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "channel.h"
#include "runtime/handle.h"

struct mpcr_comm;
struct mpcr_type;

struct mpcr_file {
    struct mpcr_object h;
    struct mpcr_comm *comm; /* a duplicate of the communicator it was opened on */
    int amode;              /* as the program gave it */
    int atomic;
    MPI_Errhandler eh;
    /* The view: the library's own copies of the types (MPI_Type_dup), so
     * that the program may free its handles; MPI_BYTE's for the default. */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    /* A split collective begun (file_split.c): its buffer and status. */
    int split_active;
    const void *split_buf;
    MPI_Status split_status;
    int split_rc;
};

/* NULL unless fh is an open file. */
struct mpcr_file *mpcr_file_get(MPI_File fh);
static inline MPI_File mpcr_file_handle(const struct mpcr_file *f)
{
    return (MPI_File)(uintptr_t)mpcr_obj_handle(f);
}
static inline uint32_t mpcr_file_id(const struct mpcr_file *f)
{
    return mpcr_obj_index(f);
}

/* Applies f's error handler (MPI_FILE_NULL's when f is NULL: a call
 * without a valid file, MPI_File_open, MPI_File_delete) to error class err
 * raised by fn: returns err, or ends the job (MPI_ERRORS_ARE_FATAL). */
int mpcr_file_error(struct mpcr_file *f, int err, const char *fn);

/* The bulky arguments of a FILE call, copied into the staging area after
 * the call's struct (a NULL pointer: that range is left as fc has it). */
struct mpcr_file_blobs {
    const void *data, *aux, *info;
    uint64_t data_bytes, aux_bytes, info_bytes;
    /* GET_INFO: room for the proxy's answer, copied back to `out` */
    char *out;
    uint64_t out_room;
};
/* One FILE call (channel.h) on the proxy; on return *fc holds its results.
 * The proxy's error class. */
int mpcr_file_call(struct mpcr_file_call *fc, const struct mpcr_file_blobs *b);

/* An agreement over f's communicator: every rank's error class err, the
 * largest returned to all (and every rank has entered). */
int mpcr_file_agree(struct mpcr_file *f, int err);
/* The shared file pointer's part of MPI_File_set_view (file_shared.c):
 * collective; once every rank has its new view (err: this rank's result),
 * the leader sets it to 0. The agreed error class. */
int mpcr_file_shared_reset(struct mpcr_file *f, int err);
/* A read or write of count elements of t (file_io.c): op READ, WRITE,
 * READ_AT, WRITE_AT, READ_SHARED or WRITE_SHARED; at: the explicit offset;
 * *status gets the byte count. */
int mpcr_file_access(struct mpcr_file *f, enum mpcr_file_op op, int64_t at, const void *buf,
                     MPI_Count count, const struct mpcr_type *t, MPI_Status *status);
/* Whether f's view is in external32 (its accesses carry their memory datatype). */
static inline int mpcr_file_external32(const struct mpcr_file *f)
{
    return !strcmp(f->datarep, "external32");
}
/* Whether the program's explicit-offset access op is refused on f (a
 * sequential file: MPI_ERR_UNSUPPORTED_OPERATION). */
int mpcr_file_explicit_refused(const struct mpcr_file *f, enum mpcr_file_op op);
/* The same, returning a request completed already (the non-blocking forms;
 * explicit offsets refused on a sequential file). */
int mpcr_file_access_request(struct mpcr_file *f, enum mpcr_file_op op, int64_t at,
                             const void *buf, MPI_Count count, const struct mpcr_type *t,
                             MPI_Request *request);

/* The ordered collectives (file_shared.c): op READ or WRITE, rank order
 * from the shared file pointer. */
int mpcr_file_ordered(struct mpcr_file *f, enum mpcr_file_op op, const void *buf, MPI_Count count,
                      const struct mpcr_type *t, MPI_Status *status);

/* Hints of info (MPI_INFO_NULL: none) as the channel carries them
 * (channel.h): a malloc'ed buffer in *out, its length in *bytes. */
int mpcr_file_hints(MPI_Info info, char **out, uint64_t *bytes);

#endif
