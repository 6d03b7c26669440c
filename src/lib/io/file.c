/* Files as objects (MPI 4.0 sections 14.2 and 14.7; docs/mpi-io.md):
 * opening, closing, deleting, their error handlers, access mode, group and
 * Fortran handles, and the one helper by which every file function calls
 * the proxy.
 *
 * MPI_File_open is collective, and the proxy opens each rank's file on
 * MPI_COMM_SELF so that no real call waits for another rank (a checkpoint
 * may stop any rank between two calls). So the agreement is made here:
 * the communicator's rank 0 (the leader) opens first with the program's
 * access mode (MPI_MODE_CREATE and MPI_MODE_EXCL act once), an allreduce
 * tells every rank its result, then the others open the existing file
 * without them, and a second allreduce makes every rank return the same
 * error class. These collectives are the library's own, built on
 * point-to-point messages that a checkpoint's drain covers. */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "env/errors.h"
#include "env/info.h"
#include "file.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* MPI_FILE_NULL's handler: what MPI_File_open and _delete raise errors on,
 * and the handler a new file gets (MPI 4.0 14.7: MPI_ERRORS_RETURN). */
static MPI_Errhandler null_eh = MPI_ERRORS_RETURN;

struct mpcr_file *mpcr_file_get(MPI_File fh)
{
    uintptr_t v = (uintptr_t)fh;
    return v > UINT32_MAX ? NULL : mpcr_obj_get(MPCR_KIND_FILE, (uint32_t)v);
}

int mpcr_file_error(struct mpcr_file *f, int err, const char *fn)
{
    if (err == MPI_SUCCESS) return err;
    MPI_Errhandler eh = f ? f->eh : null_eh;
    if (eh == MPI_ERRORS_RETURN) return err;
    if (mpcr_errhandler_call_file(eh, f ? mpcr_file_handle(f) : MPI_FILE_NULL, err)) return err;
    mpcr_fatal_error_of(err, fn, "file");
}

int mpcr_file_call(struct mpcr_file_call *fc, const struct mpcr_file_blobs *b)
{
    static const struct mpcr_file_blobs none;
    if (!b) b = &none;
    uint64_t head = (sizeof *fc + 7) / 8 * 8, at = head;
    uint64_t data_at = at, aux_at, info_at;
    if (b->data) at += (b->data_bytes + 7) / 8 * 8;
    aux_at = at;
    if (b->aux) at += (b->aux_bytes + 7) / 8 * 8;
    info_at = at;
    at += b->info ? b->info_bytes : b->out ? b->out_room : 0;
    uint64_t off;
    int err = mpcr_staging_alloc(at, &off);
    if (err) return err;
    char *p = mpcr_staging_ptr(off);
    if (b->data) memcpy(p + data_at, b->data, b->data_bytes), fc->data = off + data_at,
                 fc->bytes = b->data_bytes;
    if (b->aux) memcpy(p + aux_at, b->aux, b->aux_bytes), fc->aux = off + aux_at,
                fc->aux_bytes = b->aux_bytes;
    if (b->info) memcpy(p + info_at, b->info, b->info_bytes);
    if (b->info || b->out) fc->info = off + info_at, fc->info_bytes = b->info ? b->info_bytes : b->out_room;
    memcpy(p, fc, sizeof *fc);
    struct mpcr_call *c = mpcr_call_begin(MPCR_OP_FILE);
    c->offset = off, c->bytes = at;
    err = mpcr_call_finish()->rc;
    p = mpcr_staging_ptr(off); /* by offset again after a call, as everywhere (staging.h) */
    memcpy(fc, p, sizeof *fc);
    if (b->out && !err) memcpy(b->out, p + info_at, b->out_room);
    mpcr_staging_free(off);
    return err;
}

int mpcr_file_hints(MPI_Info info, char **out, uint64_t *bytes)
{
    *out = NULL, *bytes = 0;
    struct mpcr_info *o = info == MPI_INFO_NULL ? NULL : mpcr_info_get(info);
    if (info != MPI_INFO_NULL && !o) return MPI_ERR_INFO;
    int n = 0;
    if (o && mpcr_impl_Info_get_nkeys(o, &n)) return MPI_ERR_INFO;
    size_t cap = 1, len = 0;
    char *buf = malloc(cap);
    if (!buf) return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int vlen = (int)sizeof value, flag = 0;
        if (mpcr_impl_Info_get_nthkey(o, i, key) ||
            mpcr_impl_Info_get_string(o, key, &vlen, value, &flag) || !flag)
            continue;
        size_t k = strlen(key) + 1, v = strlen(value) + 1;
        char *t = realloc(buf, len + k + v);
        if (!t) {
            free(buf);
            return MPI_ERR_NO_MEM;
        }
        buf = t;
        memcpy(buf + len, key, k), memcpy(buf + len + k, value, v);
        len += k + v;
    }
    *out = buf, *bytes = len;
    return MPI_SUCCESS;
}

/* ---- open, close, delete ---- */

/* The file name made absolute (the proxy's working directory, and a new
 * proxy's after a restart, need not be the program's): a ROMIO prefix
 * ("ufs:") kept in front. NULL when out of memory. */
static char *absolute(const char *name)
{
    const char *colon = strchr(name, ':'), *slash = strchr(name, '/');
    size_t prefix = colon && (!slash || colon < slash) && colon - name > 1 ? (size_t)(colon - name + 1) : 0;
    const char *path = name + prefix;
    char cwd[4096];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd)) return strdup(name);
    size_t n = prefix + strlen(cwd) + 1 + strlen(path) + 1;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%.*s%s/%s", (int)prefix, name, cwd, path);
    return out;
}

static int amode_ok(int amode)
{
    int rw = (amode & MPI_MODE_RDONLY ? 1 : 0) + (amode & MPI_MODE_RDWR ? 1 : 0) +
             (amode & MPI_MODE_WRONLY ? 1 : 0);
    if (rw != 1) return 0;
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) return 0;
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL)) return 0;
    return 1;
}

static void destroy(void *obj)
{
    struct mpcr_file *f = obj;
    if (!mpcr_type_is_predefined(f->etype)) mpcr_impl_Type_free(&f->etype);
    if (!mpcr_type_is_predefined(f->filetype)) mpcr_impl_Type_free(&f->filetype);
    if (f->comm) mpcr_comm_release(f->comm);
}

/* An allreduce (MAX) over c of an error class and of a tag that one rank
 * gives (the others 0): every rank's answer. */
static int agree(struct mpcr_comm *c, int err, uint64_t *tag)
{
    int64_t mine[2] = {err, (int64_t)*tag}, all[2];
    int e = mpcr_impl_Allreduce(mine, all, 2, MPI_INT64_T, mpcr_type_get(MPI_INT64_T), MPI_MAX, c);
    if (e) return e;
    *tag = (uint64_t)all[1];
    return (int)all[0];
}

int mpcr_file_agree(struct mpcr_file *f, int err)
{
    uint64_t none = 0;
    return agree(f->comm, err, &none);
}

/* The open's tag, drawn by the leader: names the shared file pointer's
 * file, unique among the program's opens of one file (and among jobs). */
static uint64_t new_tag(const struct mpcr_file *f)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t x = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
    x ^= (uint64_t)getpid() << 32 ^ mpcr_file_id(f);
    x += 0x9e3779b97f4a7c15ull, x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (x ^ (x >> 31)) >> 1; /* positive as an int64 (the agreement's MAX) */
}

/* This rank's OPEN at the proxy. */
static int open_here(struct mpcr_file *f, const char *path, int amode, int leader, MPI_Info info,
                     uint64_t tag)
{
    char *hints;
    uint64_t hint_bytes;
    int err = mpcr_file_hints(info, &hints, &hint_bytes);
    if (err) return err;
    struct mpcr_file_call fc = {.op = MPCR_FILE_OPEN, .file = mpcr_file_id(f), .amode = amode,
                                .flag = leader, .comm = f->comm->vid, .tag = tag};
    struct mpcr_file_blobs b = {.data = path, .data_bytes = strlen(path) + 1, .info = hints,
                                .info_bytes = hint_bytes};
    err = mpcr_file_call(&fc, &b);
    free(hints);
    return err;
}

static int close_here(struct mpcr_file *f)
{
    struct mpcr_file_call fc = {.op = MPCR_FILE_CLOSE, .file = mpcr_file_id(f)};
    return mpcr_file_call(&fc, NULL);
}

int mpcr_impl_File_open(struct mpcr_comm *c, const char *filename, int amode, MPI_Info info,
                        MPI_File *fh)
{
    if (!filename || !fh) return MPI_ERR_ARG;
    if (c->inter) return MPI_ERR_COMM;
    if (!amode_ok(amode)) return MPI_ERR_AMODE;
    struct mpcr_file *f = mpcr_obj_new(MPCR_KIND_FILE, sizeof *f, destroy);
    if (!f) return MPI_ERR_NO_MEM;
    f->amode = amode, f->eh = null_eh;
    f->etype = f->filetype = MPI_BYTE;
    strcpy(f->datarep, "native");
    int err = mpcr_comm_dup(c, &f->comm);
    char *path = err ? NULL : absolute(filename);
    if (!err && !path) err = MPI_ERR_NO_MEM;
    if (err) {
        mpcr_obj_drop_handle(f);
        free(path);
        return err;
    }
    int leader = f->comm->rank == 0, opened = 0;
    uint64_t tag = leader ? new_tag(f) : 0, none = 0;
    if (leader) opened = !(err = open_here(f, path, amode, 1, info, tag));
    err = agree(f->comm, err, &tag);
    if (!err && !leader) {
        int mine = open_here(f, path,
                             amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE),
                             0, info, tag);
        opened = !mine;
        err = agree(f->comm, mine, &none);
    } else if (!err) {
        err = agree(f->comm, MPI_SUCCESS, &none);
    }
    free(path);
    if (err) {
        if (opened) close_here(f); /* opened here, failed elsewhere */
        mpcr_obj_drop_handle(f);
        return err;
    }
    *fh = mpcr_file_handle(f);
    return MPI_SUCCESS;
}

int mpcr_impl_File_close(MPI_File *fh, struct mpcr_file *f)
{
    /* Every rank's accesses end before the leader's close may delete the
     * file (MPI_MODE_DELETE_ON_CLOSE). */
    int err = mpcr_impl_Barrier(f->comm);
    if (!err) err = close_here(f);
    if (err) return err;
    mpcr_obj_drop_handle(f);
    *fh = MPI_FILE_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_File_delete(const char *filename, MPI_Info info)
{
    if (!filename) return MPI_ERR_ARG;
    char *path = absolute(filename), *hints;
    uint64_t hint_bytes;
    if (!path) return MPI_ERR_NO_MEM;
    int err = mpcr_file_hints(info, &hints, &hint_bytes);
    if (!err) {
        struct mpcr_file_call fc = {.op = MPCR_FILE_DELETE};
        struct mpcr_file_blobs b = {.data = path, .data_bytes = strlen(path) + 1, .info = hints,
                                    .info_bytes = hint_bytes};
        err = mpcr_file_call(&fc, &b);
        free(hints);
    }
    free(path);
    return err;
}

/* ---- what a file carries ---- */

int mpcr_impl_File_get_amode(struct mpcr_file *f, int *amode)
{
    if (!amode) return MPI_ERR_ARG;
    *amode = f->amode;
    return MPI_SUCCESS;
}

int mpcr_impl_File_get_group(struct mpcr_file *f, MPI_Group *group)
{
    return mpcr_impl_Comm_group(f->comm, group);
}

/* MPI_FILE_NULL is a valid argument here: its handler is the one new files
 * get, and MPI_File_open's and _delete's errors go to (MPI 4.0 14.7). */
int mpcr_impl_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    struct mpcr_file *f = mpcr_file_get(file);
    if (!f && file != MPI_FILE_NULL) return MPI_ERR_FILE;
    if (f)
        f->eh = errhandler;
    else
        null_eh = errhandler;
    return MPI_SUCCESS;
}

int mpcr_impl_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    struct mpcr_file *f = mpcr_file_get(file);
    if (!f && file != MPI_FILE_NULL) return MPI_ERR_FILE;
    if (!errhandler) return MPI_ERR_ARG;
    *errhandler = f ? f->eh : null_eh;
    return MPI_SUCCESS;
}

int mpcr_impl_File_call_errhandler(struct mpcr_file *f, int errorcode)
{
    if (f->eh == MPI_ERRORS_RETURN) return MPI_SUCCESS;
    mpcr_file_error(f, errorcode, "MPI_File_call_errhandler");
    return MPI_SUCCESS;
}

/* Fortran's handle of a file is its C handle's value (a 32-bit handle of
 * the handle system: see handle.h), so the two convert without a table. */
MPI_Fint PMPI_File_c2f(MPI_File file)
{
    return mpcr_file_get(file) ? (MPI_Fint)(uint32_t)(uintptr_t)file : 0;
}
MPCR_ALIAS(File_c2f);

MPI_File PMPI_File_f2c(MPI_Fint file)
{
    MPI_File fh = (MPI_File)(uintptr_t)(uint32_t)file;
    return mpcr_file_get(fh) ? fh : MPI_FILE_NULL;
}
MPCR_ALIAS(File_f2c);
