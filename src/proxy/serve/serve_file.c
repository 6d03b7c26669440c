/* The FILE call (channel.h, struct mpcr_file_call; docs/mpi-io.md): the
 * program's MPI-IO, done by the real MPI-IO (ROMIO under MPICH, OMPIO under
 * Open MPI) on the files of resources/files.c. Every real call here is on
 * a file opened on MPI_COMM_SELF and returns without waiting for another
 * rank, so a FILE call is never abandoned: a checkpoint waits for it.
 *
 * The program is not trusted: the call's struct is copied, every range it
 * names is checked to lie in the staging area (the data of a read or write
 * may be a shared buffer), and every string to end inside its range. */
#include "files.h"
#include "proxy.h"
#include "real_types.h"
#include "serve_file.h"
#include "shared.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Whether [off, off + n) is staged (or, for data, shared). */
static int staged(uint64_t off, uint64_t n, int may_share)
{
    return in_staging(off, n) || (may_share && in_shared(off, n));
}

/* A copy of the range (NUL-terminated within it when `string`), or NULL
 * for an empty one; *bad set when it is outside the staging area. */
static char *copy_range(uint64_t off, uint64_t n, int string, int *bad)
{
    if (!n) return NULL;
    if (!staged(off, n, 0) || (string && ((const char *)staging(off))[n - 1])) {
        *bad = 1;
        return NULL;
    }
    char *p = malloc(n);
    if (!p) {
        *bad = 1;
        return NULL;
    }
    memcpy(p, staging(off), n);
    return p;
}

/* Hints are "key\0value\0...": a range ending in NUL (the real MPI's
 * MPI_Info_set refuses what is too long: files_info leaves it out). */
static char *copy_hints(const struct mpcr_file_call *fc, int *bad)
{
    return copy_range(fc->info, fc->info_bytes, 1, bad);
}

static int do_open(struct mpcr_file_call *fc)
{
    int bad = 0;
    struct pfile *f = calloc(1, sizeof *f);
    if (!f) return MPI_ERR_NO_MEM;
    f->path = copy_range(fc->data, fc->bytes, 1, &bad);
    f->hints = copy_hints(fc, &bad);
    if (bad || !f->path) {
        free(f->path), free(f->hints), free(f);
        return MPI_ERR_ARG;
    }
    f->id = fc->file, f->comm = fc->comm, f->amode = fc->amode, f->leader = fc->flag != 0;
    f->tag = fc->tag;
    f->hints_bytes = fc->info_bytes;
    int rc = files_open(f, 0);
    if (rc) free(f->path), free(f->hints), free(f);
    return rc;
}

static int do_delete(struct mpcr_file_call *fc)
{
    int bad = 0;
    char *path = copy_range(fc->data, fc->bytes, 1, &bad), *hints = copy_hints(fc, &bad);
    MPI_Info info = MPI_INFO_NULL;
    int rc = bad || !path ? MPI_ERR_ARG : files_info(hints, fc->info_bytes, &info);
    if (!rc) rc = MPI_File_delete(path, info);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    free(path), free(hints);
    return rc;
}

static int do_set_view(struct pfile *f, struct mpcr_file_call *fc)
{
    if ((uint32_t)fc->flag > 2 || fc->at < 0) return MPI_ERR_ARG;
    int bad = 0;
    struct pfile v = *f; /* the new view tried on the real file, kept only if it takes */
    v.edef = copy_range(fc->data, fc->bytes, 0, &bad);
    v.fdef = copy_range(fc->aux, fc->aux_bytes, 0, &bad);
    v.vhints = copy_hints(fc, &bad);
    v.ebytes = fc->bytes, v.fbytes = fc->aux_bytes, v.vhints_bytes = fc->info_bytes;
    v.disp = fc->at, v.datarep = fc->flag;
    int rc = bad || !v.edef || !v.fdef ? MPI_ERR_ARG : files_apply_view(&v, NULL, 0);
    if (rc) {
        free(v.edef), free(v.fdef), free(v.vhints);
        return rc < 0 ? MPI_ERR_TYPE : rc;
    }
    free(f->edef), free(f->fdef), free(f->vhints);
    *f = v;
    return MPI_SUCCESS;
}

/* The size of f's etype (1 for the default view). */
static int etype_size(struct pfile *f)
{
    MPI_Datatype e, t;
    MPI_Offset disp;
    char rep[MPI_MAX_DATAREP_STRING];
    int size = 1, ni, na, nt, combiner;
    if (MPI_File_get_view(f->fh, &disp, &e, &t, rep)) return 1;
    MPI_Type_size(e, &size);
    MPI_Type_get_envelope(e, &ni, &na, &nt, &combiner);
    if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&e);
    MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
    if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(&t);
    return size > 0 ? size : 1;
}

/* The real datatype of the definition at aux (copied out of the program's reach first). */
static int aux_type(const struct mpcr_file_call *fc, MPI_Datatype *t)
{
    int bad = 0;
    char *def = copy_range(fc->aux, fc->aux_bytes, 0, &bad);
    int rc = bad || !def ? MPI_ERR_TYPE : real_type_build(def, fc->aux_bytes, t, NULL, 0);
    free(def);
    return rc;
}

/* An access under a view in external32: the packed bytes unpacked into the program's memory
 * datatype (aux), which the real MPI converts from or to external32, then packed again for a
 * read. Counts up to INT_MAX elements of it (the int forms: ROMIO's view refuses _c types). */
static int typed_access(struct pfile *f, struct mpcr_file_call *fc, char *data)
{
    MPI_Datatype t;
    int rc = aux_type(fc, &t), size = 0;
    if (rc) return rc;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &tlb, &textent);
    uint64_t count = size > 0 ? fc->bytes / (uint64_t)size : 0;
    char *mem = NULL;
    if (size <= 0 || fc->bytes % (uint64_t)size || count == 0 || count > INT_MAX)
        rc = MPI_ERR_COUNT;
    else if (!(mem = malloc((size_t)((int64_t)(count - 1) * extent + textent))))
        rc = MPI_ERR_NO_MEM;
    char *base = rc ? NULL : mem - tlb; /* where element 0 starts */
    int n = (int)count, pos = 0, got = 0, reading = fc->op == MPCR_FILE_READ || fc->op == MPCR_FILE_READ_AT;
    MPI_Status st;
    if (!rc && !reading) rc = MPI_Unpack(data, (int)fc->bytes, &pos, base, n, t, MPI_COMM_SELF);
    if (!rc) switch (fc->op) {
        case MPCR_FILE_READ: rc = MPI_File_read(f->fh, base, n, t, &st); break;
        case MPCR_FILE_WRITE: rc = MPI_File_write(f->fh, base, n, t, &st); break;
        case MPCR_FILE_READ_AT: rc = MPI_File_read_at(f->fh, fc->at, base, n, t, &st); break;
        case MPCR_FILE_WRITE_AT: rc = MPI_File_write_at(f->fh, fc->at, base, n, t, &st); break;
        default: rc = MPI_ERR_ARG;
        }
    if (!rc) MPI_Get_count(&st, MPI_BYTE, &got); /* bytes in memory: the packed bytes done */
    if (!rc && reading) rc = MPI_Pack(base, n, t, data, (int)fc->bytes, &pos, MPI_COMM_SELF);
    fc->done = rc || got < 0 ? 0 : (uint64_t)got;
    free(mem);
    real_type_release(&t);
    return rc;
}

static int do_access(struct pfile *f, struct mpcr_file_call *fc)
{
    if (!staged(fc->data, fc->bytes, 1)) return MPI_ERR_BUFFER;
    char *data = staging(fc->data);
    if (fc->aux_bytes) return typed_access(f, fc, data);
    /* Bytes travel as MPI_BYTE, counts beyond int in pieces of whole etypes
     * (an explicit offset counts the view's etypes). */
    int esize = fc->bytes > (1u << 30) ? etype_size(f) : 1;
    uint64_t piece = (1u << 30) / (unsigned)esize * (unsigned)esize, done = 0;
    int rc = MPI_SUCCESS;
    while (!rc && done < fc->bytes) {
        uint64_t left = fc->bytes - done;
        int n = (int)(left > piece ? piece : left), got = 0;
        MPI_Status st;
        char *p = data + done;
        MPI_Offset at = fc->at + (MPI_Offset)(done / (uint64_t)esize);
        switch (fc->op) {
        case MPCR_FILE_READ: rc = MPI_File_read(f->fh, p, n, MPI_BYTE, &st); break;
        case MPCR_FILE_WRITE: rc = MPI_File_write(f->fh, p, n, MPI_BYTE, &st); break;
        case MPCR_FILE_READ_AT: rc = MPI_File_read_at(f->fh, at, p, n, MPI_BYTE, &st); break;
        case MPCR_FILE_WRITE_AT: rc = MPI_File_write_at(f->fh, at, p, n, MPI_BYTE, &st); break;
        default: rc = MPI_ERR_ARG;
        }
        if (rc) break;
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (got < 0) got = 0;
        done += (uint64_t)got;
        if (got < n) break; /* the end of the file */
    }
    fc->done = done;
    return rc;
}

/* READ_SHARED, WRITE_SHARED: the request's etypes taken from the shared
 * pointer (under its lock), then the access there: one call, so that no
 * checkpoint falls between the two. */
static int do_shared(struct pfile *f, struct mpcr_file_call *fc)
{
    if (!staged(fc->data, fc->bytes, 1)) return MPI_ERR_BUFFER;
    int esize = etype_size(f);
    if (fc->bytes % (uint64_t)esize) return MPI_ERR_ARG; /* whole etypes only */
    int64_t at;
    int rc = files_shared_add(f, (int64_t)(fc->bytes / (uint64_t)esize), &at);
    if (rc) return rc;
    struct mpcr_file_call x = *fc;
    x.op = fc->op == MPCR_FILE_READ_SHARED ? MPCR_FILE_READ_AT : MPCR_FILE_WRITE_AT;
    x.at = at;
    rc = do_access(f, &x);
    fc->done = x.done, fc->result = at;
    return rc;
}

/* SEEK_SHARED (the leader's part of the collective MPI_File_seek_shared):
 * MPI_SEEK_END as the real MPI reckons it for the individual pointer (the
 * view's etypes to the end of the file), which is put back. */
static int do_seek_shared(struct pfile *f, struct mpcr_file_call *fc, int whence)
{
    int64_t to = fc->at, cur = 0;
    int rc = MPI_SUCCESS;
    /* no file: 0 already (a new view's reset makes none) */
    if (whence == MPI_SEEK_SET && to == 0 && !files_shared_exists(f)) return MPI_SUCCESS;
    if (whence == MPI_SEEK_CUR && (rc = files_shared_add(f, 0, &cur))) return rc;
    if (whence == MPI_SEEK_CUR) to += cur;
    if (whence == MPI_SEEK_END) {
        MPI_Offset mine, end;
        if ((rc = MPI_File_get_position(f->fh, &mine)) || (rc = MPI_File_seek(f->fh, 0, MPI_SEEK_END)) ||
            (rc = MPI_File_get_position(f->fh, &end)) || (rc = MPI_File_seek(f->fh, mine, MPI_SEEK_SET)))
            return rc;
        to += end;
    }
    if (to < 0) return MPI_ERR_ARG;
    if ((rc = files_shared_set(f, to))) return rc;
    fc->result = to;
    return MPI_SUCCESS;
}

static int do_type_extent(struct pfile *f, struct mpcr_file_call *fc)
{
    MPI_Datatype t;
    MPI_Aint extent = 0;
    int rc = aux_type(fc, &t);
    if (rc) return rc;
    rc = MPI_File_get_type_extent(f->fh, t, &extent);
    real_type_release(&t);
    fc->result = extent;
    return rc;
}

static int do_get_info(struct pfile *f, struct mpcr_file_call *fc)
{
    if (!staged(fc->info, fc->info_bytes, 0)) return MPI_ERR_ARG;
    MPI_Info info;
    int rc = MPI_File_get_info(f->fh, &info), n = 0;
    if (rc) return rc;
    MPI_Info_get_nkeys(info, &n);
    char *out = staging(fc->info);
    uint64_t at = 0;
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        if (MPI_Info_get_nthkey(info, i, key) ||
            MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) || !flag)
            continue;
        size_t k = strlen(key) + 1, v = strlen(value) + 1;
        if (at + k + v > fc->info_bytes) break;
        memcpy(out + at, key, k), memcpy(out + at + k, value, v);
        at += k + v;
    }
    MPI_Info_free(&info);
    fc->result = (int64_t)at;
    return MPI_SUCCESS;
}

static int do_set_info(struct pfile *f, struct mpcr_file_call *fc)
{
    int bad = 0;
    char *hints = copy_hints(fc, &bad);
    if (bad) return MPI_ERR_ARG;
    MPI_Info info;
    int rc = files_info(hints, fc->info_bytes, &info);
    if (!rc && info != MPI_INFO_NULL) {
        rc = MPI_File_set_info(f->fh, info);
        MPI_Info_free(&info);
    }
    if (!rc && hints) { /* kept with the open's, to be given again at a restart */
        char *all = realloc(f->hints, f->hints_bytes + fc->info_bytes);
        if (all) {
            memcpy(all + f->hints_bytes, hints, fc->info_bytes);
            f->hints = all, f->hints_bytes += fc->info_bytes;
        }
    }
    free(hints);
    return rc;
}

static int whence_of(int32_t abi)
{
    return abi == 600 ? MPI_SEEK_SET : abi == 602 ? MPI_SEEK_CUR : abi == 604 ? MPI_SEEK_END : -1;
}

static int serve_file(struct mpcr_file_call *fc)
{
    if (fc->op == MPCR_FILE_OPEN) return do_open(fc);
    if (fc->op == MPCR_FILE_DELETE) return do_delete(fc);
    struct pfile *f = files_get(fc->file);
    if (!f) return MPI_ERR_FILE;
    MPI_Offset v = 0;
    int rc;
    switch (fc->op) {
    case MPCR_FILE_CLOSE: return files_close(f);
    case MPCR_FILE_SET_VIEW: return do_set_view(f, fc);
    case MPCR_FILE_READ:
    case MPCR_FILE_WRITE:
    case MPCR_FILE_READ_AT:
    case MPCR_FILE_WRITE_AT: return do_access(f, fc);
    case MPCR_FILE_SEEK:
        if (whence_of(fc->flag) < 0) return MPI_ERR_ARG;
        rc = MPI_File_seek(f->fh, fc->at, whence_of(fc->flag));
        break;
    case MPCR_FILE_POSITION: rc = MPI_File_get_position(f->fh, &v); break;
    case MPCR_FILE_BYTE_OFFSET: rc = MPI_File_get_byte_offset(f->fh, fc->at, &v); break;
    case MPCR_FILE_GET_SIZE: rc = MPI_File_get_size(f->fh, &v); break;
    case MPCR_FILE_SET_SIZE: rc = MPI_File_set_size(f->fh, fc->at); break;
    case MPCR_FILE_PREALLOCATE: rc = MPI_File_preallocate(f->fh, fc->at); break;
    case MPCR_FILE_SYNC: rc = MPI_File_sync(f->fh); break;
    case MPCR_FILE_SET_ATOMICITY:
        if (!(rc = MPI_File_set_atomicity(f->fh, fc->flag != 0))) f->atomic = fc->flag != 0;
        break;
    case MPCR_FILE_READ_SHARED:
    case MPCR_FILE_WRITE_SHARED: return do_shared(f, fc);
    case MPCR_FILE_SHARED_ADD:
        if (fc->at < 0) return MPI_ERR_ARG;
        rc = files_shared_add(f, fc->at, &fc->result);
        return rc;
    case MPCR_FILE_SEEK_SHARED:
        return whence_of(fc->flag) < 0 ? MPI_ERR_ARG : do_seek_shared(f, fc, whence_of(fc->flag));
    case MPCR_FILE_GET_SHARED:
        return files_shared_add(f, 0, &fc->result);
    case MPCR_FILE_SET_INFO: return do_set_info(f, fc);
    case MPCR_FILE_GET_INFO: return do_get_info(f, fc);
    case MPCR_FILE_TYPE_EXTENT: return do_type_extent(f, fc);
    default: return MPI_ERR_ARG;
    }
    fc->result = v;
    return rc;
}

void op_file(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct mpcr_file_call fc;
    if (c->bytes < sizeof fc) {
        r->rc = error_class(MPI_ERR_ARG);
        return;
    }
    memcpy(&fc, staging(c->offset), sizeof fc); /* checked as MPCR_ARG_DATA */
    fc.done = 0, fc.result = 0;
    int rc = fc.op < MPCR_FILE_OPS ? serve_file(&fc) : MPI_ERR_ARG;
    r->rc = error_class(rc);
    /* the results back, where the struct was (the program's copy; it reads nothing else) */
    struct mpcr_file_call *out = staging(c->offset);
    out->done = fc.done, out->result = fc.result;
}
