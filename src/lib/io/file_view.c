/* A file's view, pointer, size, atomicity and hints (MPI 4.0 14.2-14.4,
 * 14.6): the calls that read or change what the proxy's real file holds.
 *
 * A view's etype and filetype go to the proxy as their definitions
 * (real_type.h, mpcr_real_type_def), not as ids of the real-datatype
 * cache: the proxy keeps them with the file's record, so that a new proxy
 * builds the same view again when it reopens the file at a restart. The
 * library keeps its own duplicates of the two types for MPI_File_get_view.
 *
 * MPI_File_set_size and _preallocate are collective: once every rank has
 * entered, the leader (rank 0 of the file's communicator) changes the
 * size, and a second agreement ends the call everywhere, so that no rank's
 * access before or after it meets another rank's change. The others (set_view, sync, set_atomicity, set_info) act on
 * each rank's own real file; none needs the others. */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "datatype/real_type.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "env/info.h"
#include "file.h"

#include <stdlib.h>
#include <string.h>

/* The call with no bulky arguments, its result in *result (NULL: none). */
static int simple(struct mpcr_file *f, enum mpcr_file_op op, int64_t at, int flag, int64_t *result)
{
    struct mpcr_file_call fc = {.op = op, .file = mpcr_file_id(f), .at = at, .flag = flag};
    int err = mpcr_file_call(&fc, NULL);
    if (!err && result) *result = fc.result;
    return err;
}

/* Our own handle of type h: a duplicate of a derived type, h itself for a
 * predefined one. */
static int keep_type(MPI_Datatype h, MPI_Datatype *out)
{
    if (mpcr_type_is_predefined(h)) {
        *out = h;
        return MPI_SUCCESS;
    }
    return mpcr_impl_Type_dup(h, out);
}

/* The types by handle: the library keeps duplicates of them (keep_type). */
int mpcr_impl_File_set_view(struct mpcr_file *f, MPI_Offset disp, MPI_Datatype etype,
                            MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    const struct mpcr_type *etype_o = mpcr_type_get(etype), *filetype_o = mpcr_type_get(filetype);
    if (!etype_o || !filetype_o) return MPI_ERR_TYPE;
    if (!datarep) return MPI_ERR_ARG;
    int rep;
    if (!strcmp(datarep, "native"))
        rep = 0;
    else if (!strcmp(datarep, "internal"))
        rep = 1;
    else if (!strcmp(datarep, "external32"))
        rep = 2; /* converted by the real MPI in the proxy (mpcr_file_access) */
    else
        return MPI_ERR_UNSUPPORTED_DATAREP;
    if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT) return MPI_ERR_ARG;
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        /* the shared pointer's place in bytes, under the view before (MPI 4.0 14.3) */
        if (!(f->amode & MPI_MODE_SEQUENTIAL)) return MPI_ERR_ARG;
        int64_t shared;
        int err = simple(f, MPCR_FILE_GET_SHARED, 0, 0, &shared);
        if (!err) err = simple(f, MPCR_FILE_BYTE_OFFSET, shared, 0, &disp);
        if (err) return err;
    }
    if (etype_o->size == 0 || filetype_o->size % etype_o->size) return MPI_ERR_ARG;
    char *edef = NULL, *fdef = NULL, *hints = NULL;
    uint64_t ebytes, fbytes, hbytes;
    int err = mpcr_file_hints(info, &hints, &hbytes);
    if (!err) err = mpcr_real_type_def(etype_o, &edef, &ebytes);
    if (!err) err = mpcr_real_type_def(filetype_o, &fdef, &fbytes);
    if (!err) {
        struct mpcr_file_call fc = {.op = MPCR_FILE_SET_VIEW, .file = mpcr_file_id(f), .at = disp,
                                    .flag = rep};
        struct mpcr_file_blobs b = {.data = edef, .data_bytes = ebytes, .aux = fdef,
                                    .aux_bytes = fbytes, .info = hints, .info_bytes = hbytes};
        err = mpcr_file_call(&fc, &b);
    }
    free(edef), free(fdef), free(hints);
    MPI_Datatype e2 = MPI_DATATYPE_NULL, f2 = MPI_DATATYPE_NULL;
    if (!err) err = keep_type(etype, &e2);
    if (!err && (err = keep_type(filetype, &f2)) && !mpcr_type_is_predefined(e2))
        mpcr_impl_Type_free(&e2);
    if (!err) {
        if (!mpcr_type_is_predefined(f->etype)) mpcr_impl_Type_free(&f->etype);
        if (!mpcr_type_is_predefined(f->filetype)) mpcr_impl_Type_free(&f->filetype);
        f->etype = e2, f->filetype = f2, f->disp = disp;
        strcpy(f->datarep, datarep);
    }
    return mpcr_file_shared_reset(f, err); /* a new view puts the shared pointer at 0 too */
}

int mpcr_impl_File_get_view(struct mpcr_file *f, MPI_Offset *disp, MPI_Datatype *etype,
                            MPI_Datatype *filetype, char *datarep)
{
    if (!disp || !datarep) return MPI_ERR_ARG;
    MPI_Datatype e, t;
    int err = keep_type(f->etype, &e);
    if (err) return err;
    if ((err = keep_type(f->filetype, &t))) {
        if (!mpcr_type_is_predefined(e)) mpcr_impl_Type_free(&e);
        return err;
    }
    *disp = f->disp, *etype = e, *filetype = t;
    strcpy(datarep, f->datarep);
    return MPI_SUCCESS;
}

/* native and internal: the extent in memory; external32: the real MPI's answer (its sizes of
 * the basic types in external32, its rules for derived types), as for the view itself. */
int mpcr_impl_File_get_type_extent(struct mpcr_file *f, const struct mpcr_type *t, MPI_Count *extent)
{
    if (!mpcr_file_external32(f)) {
        *extent = t->extent;
        return MPI_SUCCESS;
    }
    char *def = NULL;
    uint64_t bytes;
    int err = mpcr_real_type_def(t, &def, &bytes);
    if (!err) {
        struct mpcr_file_call fc = {.op = MPCR_FILE_TYPE_EXTENT, .file = mpcr_file_id(f)};
        struct mpcr_file_blobs b = {.aux = def, .aux_bytes = bytes};
        if (!(err = mpcr_file_call(&fc, &b))) *extent = fc.result;
    }
    free(def);
    return err;
}

/* ---- the individual file pointer ---- */

int mpcr_impl_File_seek(struct mpcr_file *f, MPI_Offset offset, int whence)
{
    if (whence != MPI_SEEK_SET && whence != MPI_SEEK_CUR && whence != MPI_SEEK_END)
        return MPI_ERR_ARG;
    if (whence == MPI_SEEK_SET && offset < 0) return MPI_ERR_ARG; /* as ROMIO says; OMPIO: OTHER */
    if (f->amode & MPI_MODE_SEQUENTIAL) return MPI_ERR_UNSUPPORTED_OPERATION;
    return simple(f, MPCR_FILE_SEEK, offset, whence, NULL);
}

int mpcr_impl_File_get_position(struct mpcr_file *f, MPI_Offset *offset)
{
    if (!offset) return MPI_ERR_ARG;
    if (f->amode & MPI_MODE_SEQUENTIAL) return MPI_ERR_UNSUPPORTED_OPERATION;
    return simple(f, MPCR_FILE_POSITION, 0, 0, offset);
}

int mpcr_impl_File_get_byte_offset(struct mpcr_file *f, MPI_Offset offset, MPI_Offset *disp)
{
    if (!disp) return MPI_ERR_ARG;
    if (offset < 0) return MPI_ERR_ARG;
    return simple(f, MPCR_FILE_BYTE_OFFSET, offset, 0, disp);
}

/* ---- size, sync, atomicity, hints ---- */

int mpcr_impl_File_get_size(struct mpcr_file *f, MPI_Offset *size)
{
    if (!size) return MPI_ERR_ARG;
    return simple(f, MPCR_FILE_GET_SIZE, 0, 0, size);
}

/* Every rank has entered (an allreduce that also checks that they all
 * asked the same size, as ROMIO does), then the leader changes the size,
 * and a second allreduce ends the call everywhere with its result: no
 * rank's access before the call or after it meets the change half done. */
static int resize(struct mpcr_file *f, enum mpcr_file_op op, MPI_Offset size)
{
    if (size < 0) return MPI_ERR_ARG;
    const struct mpcr_type *t = mpcr_type_get(MPI_OFFSET);
    MPI_Offset lo = size, hi = size;
    int err = mpcr_impl_Allreduce(&size, &lo, 1, MPI_OFFSET, t, MPI_MIN, f->comm);
    if (!err) err = mpcr_impl_Allreduce(&size, &hi, 1, MPI_OFFSET, t, MPI_MAX, f->comm);
    if (err) return err;
    if (lo != hi) return MPI_ERR_ARG; /* the same on every rank (MPI 4.0 14.2.6) */
    return mpcr_file_agree(f, f->comm->rank == 0 ? simple(f, op, size, 0, NULL) : MPI_SUCCESS);
}

int mpcr_impl_File_set_size(struct mpcr_file *f, MPI_Offset size)
{
    return resize(f, MPCR_FILE_SET_SIZE, size);
}

int mpcr_impl_File_preallocate(struct mpcr_file *f, MPI_Offset size)
{
    return resize(f, MPCR_FILE_PREALLOCATE, size);
}

int mpcr_impl_File_sync(struct mpcr_file *f)
{
    return simple(f, MPCR_FILE_SYNC, 0, 0, NULL);
}

int mpcr_impl_File_set_atomicity(struct mpcr_file *f, int flag)
{
    int err = simple(f, MPCR_FILE_SET_ATOMICITY, 0, flag != 0, NULL);
    if (!err) f->atomic = flag != 0;
    return err;
}

int mpcr_impl_File_get_atomicity(struct mpcr_file *f, int *flag)
{
    if (!flag) return MPI_ERR_ARG;
    *flag = f->atomic;
    return MPI_SUCCESS;
}

int mpcr_impl_File_set_info(struct mpcr_file *f, MPI_Info info)
{
    char *hints;
    uint64_t bytes;
    int err = mpcr_file_hints(info, &hints, &bytes);
    if (err) return err;
    struct mpcr_file_call fc = {.op = MPCR_FILE_SET_INFO, .file = mpcr_file_id(f)};
    struct mpcr_file_blobs b = {.info = hints, .info_bytes = bytes};
    err = mpcr_file_call(&fc, &b);
    free(hints);
    return err;
}

/* The real file's hints in use, as a new info object. */
int mpcr_impl_File_get_info(struct mpcr_file *f, MPI_Info *info_used)
{
    enum { ROOM = 64 * 1024 };
    char *buf = malloc(ROOM);
    if (!buf) return MPI_ERR_NO_MEM;
    struct mpcr_file_call fc = {.op = MPCR_FILE_GET_INFO, .file = mpcr_file_id(f)};
    struct mpcr_file_blobs b = {.out = buf, .out_room = ROOM};
    int err = mpcr_file_call(&fc, &b);
    MPI_Info info = MPI_INFO_NULL;
    if (!err) err = mpcr_impl_Info_create(&info);
    uint64_t n = err ? 0 : (uint64_t)fc.result < ROOM ? (uint64_t)fc.result : ROOM;
    for (uint64_t at = 0; !err && at < n;) {
        const char *key = buf + at, *value;
        size_t k = strnlen(key, n - at);
        if (at + k + 1 >= n) break;
        value = key + k + 1;
        size_t v = strnlen(value, n - at - k - 1);
        if (at + k + 1 + v >= n) break;
        err = mpcr_impl_Info_set(mpcr_info_get(info), key, value);
        at += k + 1 + v + 1;
    }
    free(buf);
    if (err) {
        if (info != MPI_INFO_NULL) mpcr_impl_Info_free(&info);
        return err;
    }
    *info_used = info;
    return MPI_SUCCESS;
}
