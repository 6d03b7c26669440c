/* Open files as a resource (files.h; docs/mpi-io.md, docs/proxy-resources.md).
 *
 * Every file is opened on MPI_COMM_SELF: no real MPI-IO call of this
 * proxy waits for another rank, so a checkpoint finds none inside one, and
 * a new proxy reopens its rank's files alone. Before an image every file
 * is synced (the data the program wrote before the checkpoint is on disk
 * before the state file, and so before the manifest); the section then
 * records, per file, what reopening needs and where its individual pointer
 * and its size stood. A new proxy reopens each file without MPI_MODE_CREATE
 * and MPI_MODE_EXCL (the file exists; its creation happened), keeps
 * MPI_MODE_DELETE_ON_CLOSE, sets the view, atomicity and pointer again, and
 * the leader of each file (rank 0 of its communicator) cuts the file back
 * to its size at the checkpoint (bytes the lost run wrote after the
 * checkpoint are not left for the restarted one to find) and sets the
 * shared file pointer back where it was.
 *
 * This kind loads first (resources.c): loading the communicators is
 * collective over the job, so every rank's files are reopened and cut
 * back before any rank's program goes on. */
#include "files.h"
#include "real_types.h"
#include "report.h"
#include "resource.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Indexed by id; ids are slots of the library's handles (< 2^20). */
#define FILE_ID_END (1u << 20)
static struct pfile **table;
static uint32_t table_cap;

struct pfile *files_get(uint32_t id)
{
    return id < table_cap ? table[id] : NULL;
}

static void pfile_free(struct pfile *f)
{
    if (f->sfp_fd >= 0) close(f->sfp_fd);
    free(f->path), free(f->hints), free(f->edef), free(f->fdef), free(f->vhints);
    free(f);
}

int files_real_amode(int32_t amode)
{
    /* mpcr's ABI (MPICH's mpio.h) -> this MPI's */
    static const struct {
        int32_t abi;
        int real;
    } bits[] = {{1, MPI_MODE_CREATE},           {2, MPI_MODE_RDONLY},     {4, MPI_MODE_WRONLY},
                {8, MPI_MODE_RDWR},             {16, MPI_MODE_DELETE_ON_CLOSE},
                {32, MPI_MODE_UNIQUE_OPEN},     {64, MPI_MODE_EXCL},      {128, MPI_MODE_APPEND},
                {256, MPI_MODE_SEQUENTIAL}};
    int real = 0;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (amode & bits[i].abi) real |= bits[i].real;
    return real;
}

int files_info(const char *hints, uint64_t bytes, MPI_Info *out)
{
    *out = MPI_INFO_NULL;
    if (!bytes) return MPI_SUCCESS;
    int rc = MPI_Info_create(out);
    for (uint64_t at = 0; !rc && at < bytes;) {
        const char *key = hints + at;
        size_t k = strnlen(key, bytes - at);
        if (at + k + 1 >= bytes) break; /* checked by the caller; never past the end */
        const char *value = key + k + 1;
        size_t v = strnlen(value, bytes - at - k - 1);
        if (at + k + 1 + v >= bytes) break;
        /* a hint the real MPI refuses (too long) is left out, as hints may be */
        if (k < MPI_MAX_INFO_KEY && v < MPI_MAX_INFO_VAL) rc = MPI_Info_set(*out, key, value);
        at += k + 1 + v + 1;
    }
    if (rc) MPI_Info_free(out);
    return rc;
}

static int put(struct pfile *f)
{
    if (f->id >= FILE_ID_END) return MPI_ERR_FILE;
    if (f->id >= table_cap) {
        uint32_t n = table_cap ? table_cap : 16;
        while (n <= f->id)
            n *= 2;
        struct pfile **t = realloc(table, n * sizeof *t);
        if (!t) return MPI_ERR_NO_MEM;
        memset(t + table_cap, 0, (n - table_cap) * sizeof *t);
        table = t, table_cap = n;
    }
    if (table[f->id]) return MPI_ERR_FILE;
    table[f->id] = f;
    return MPI_SUCCESS;
}

int files_open(struct pfile *f, int again)
{
    if (files_get(f->id)) return MPI_ERR_FILE; /* the library never opens an id twice */
    f->sfp_fd = -1;
    int32_t amode = again ? f->amode & ~(1 | 64) : f->amode; /* without CREATE, EXCL */
    MPI_Info info;
    int rc = files_info(f->hints, f->hints_bytes, &info);
    if (rc) return rc;
    /* Without MPI_MODE_SEQUENTIAL: the shared pointer is mpcr's, and its
       accesses are explicit offsets here (the library refuses the others).
       Without MPI_MODE_DELETE_ON_CLOSE: the leader deletes the file at the
       program's close (files_close); Open MPI's MPI_Finalize closes what is
       open, which deleted such a file when a checkpoint --exit ended the
       proxy, before the restart that needs it (a program showed it). */
    rc = MPI_File_open(MPI_COMM_SELF, f->path, files_real_amode(amode & ~(256 | 16)), info, &f->fh);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    if (rc) return rc;
    /* errors come back as codes: the library applies the program's handler */
    MPI_File_set_errhandler(f->fh, MPI_ERRORS_RETURN);
    if ((rc = put(f))) MPI_File_close(&f->fh);
    return rc;
}

/* The shared pointer's file: PATH.mpcr-sfp-TAG (a ROMIO prefix "ufs:" left
 * out: this is a POSIX path). */
static void sfp_path(const struct pfile *f, char *out, size_t cap)
{
    const char *p = f->path, *colon = strchr(p, ':'), *slash = strchr(p, '/');
    if (colon && (!slash || colon < slash)) p = colon + 1;
    snprintf(out, cap, "%s.mpcr-sfp-%016llx", p, (unsigned long long)f->tag);
}

static int sfp_open(struct pfile *f, int create)
{
    if (f->sfp_fd >= 0) return 0;
    char path[4200];
    sfp_path(f, path, sizeof path);
    f->sfp_fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (create ? O_CREAT : 0), 0600);
    return f->sfp_fd >= 0 ? 0 : -1;
}

/* Locks (type F_WRLCK) or unlocks (F_UNLCK) the whole file: an open file
 * description's lock, which each rank's proxy holds on its own. */
static int sfp_lock(int fd, short type)
{
    struct flock l = {.l_type = type, .l_whence = SEEK_SET};
    while (fcntl(fd, F_OFD_SETLKW, &l))
        if (errno != EINTR) return -1;
    return 0;
}

static int sfp_update(struct pfile *f, int set, int64_t v, int64_t *old)
{
    if (sfp_open(f, 1) || sfp_lock(f->sfp_fd, F_WRLCK)) return MPI_ERR_IO;
    int64_t cur = 0;
    ssize_t n = pread(f->sfp_fd, &cur, sizeof cur, 0);
    int rc = n == 0 || n == (ssize_t)sizeof cur ? MPI_SUCCESS : MPI_ERR_IO;
    if (n == 0) cur = 0;
    int64_t next = set ? v : cur + v;
    if (!rc && (set || v) && pwrite(f->sfp_fd, &next, sizeof next, 0) != (ssize_t)sizeof next)
        rc = MPI_ERR_IO;
    sfp_lock(f->sfp_fd, F_UNLCK);
    if (!rc && old) *old = cur;
    return rc;
}

int files_shared_add(struct pfile *f, int64_t add, int64_t *old)
{
    return sfp_update(f, 0, add, old);
}

int files_shared_exists(struct pfile *f)
{
    return sfp_open(f, 0) == 0;
}

int files_shared_set(struct pfile *f, int64_t value)
{
    return sfp_update(f, 1, value, NULL);
}

int files_close(struct pfile *f)
{
    if (f->leader) { /* every rank has closed its own (the library's barrier) */
        char path[4200];
        sfp_path(f, path, sizeof path);
        unlink(path);
    }
    table[f->id] = NULL;
    int rc = MPI_File_close(&f->fh);
    if (!rc && f->leader && (f->amode & 16)) rc = MPI_File_delete(f->path, MPI_INFO_NULL);
    pfile_free(f);
    return rc;
}

int files_apply_view(struct pfile *f, char *msg, size_t cap)
{
    MPI_Datatype e = MPI_BYTE, t = MPI_BYTE;
    int rc = MPI_SUCCESS;
    if (f->edef && (rc = real_type_build(f->edef, f->ebytes, &e, msg, cap))) return rc;
    if (f->fdef && (rc = real_type_build(f->fdef, f->fbytes, &t, msg, cap))) {
        if (f->edef) real_type_release(&e);
        return rc;
    }
    MPI_Info info;
    if (!(rc = files_info(f->vhints, f->vhints_bytes, &info))) {
        static const char *const reps[] = {"native", "internal", "external32"};
        rc = MPI_File_set_view(f->fh, f->disp, e, t, reps[f->datarep], info);
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    }
    if (rc && msg) snprintf(msg, cap, "the real MPI_File_set_view failed");
    if (f->edef) real_type_release(&e);
    if (f->fdef) real_type_release(&t);
    return rc;
}

/* ---- as a resource ---- */

/* Before the image: the program's writes on disk. */
static void settle(void)
{
    for (uint32_t i = 0; i < table_cap; i++) {
        struct pfile *f = table[i];
        if (!f) continue;
        if (!(f->amode & 2) && MPI_File_sync(f->fh) != MPI_SUCCESS) /* RDONLY: nothing to sync */
            mpcr_report("rank %d: syncing %s for a checkpoint failed", proxy.rank, f->path);
    }
}

/* The section: u32 count, u32 0, then per file a struct saved_file and
 * its strings and definitions (path with its NUL, hints, etype's and
 * filetype's definitions, the view's hints), each padded to 8. */
struct saved_file {
    uint32_t id, comm;
    int32_t amode, leader, atomic, datarep;
    int64_t disp, position, size;
    uint64_t tag;          /* names the shared pointer's file */
    int32_t has_shared, pad; /* the shared pointer was in use: its value */
    int64_t shared;
    uint64_t path_bytes, hints_bytes, ebytes, fbytes, vhints_bytes;
};
_Static_assert(sizeof(struct saved_file) == 112, "a saved file's layout changed: bump its section's version");

static int put_bytes(struct section *out, const void *p, uint64_t n)
{
    return section_put(out, p, n) || section_align(out) ? -1 : 0;
}

static int save(struct section *out, char *err, size_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < table_cap; i++)
        n += table[i] != NULL;
    if (section_put_count(out, n)) return -1;
    for (uint32_t i = 0; i < table_cap; i++) {
        struct pfile *f = table[i];
        if (!f) continue;
        MPI_Offset pos = 0, size = 0;
        if (MPI_File_get_position(f->fh, &pos) || MPI_File_get_size(f->fh, &size))
            return snprintf(err, cap, "cannot read the pointer or size of %s", f->path), -1;
        f->position = pos, f->size = size;
        /* the shared pointer, if any rank has used it (its file exists) */
        f->has_shared = files_shared_exists(f) && !files_shared_add(f, 0, &f->shared);
        struct saved_file s = {.id = f->id, .comm = f->comm, .amode = f->amode,
                               .leader = f->leader, .atomic = f->atomic, .datarep = f->datarep,
                               .disp = f->disp, .position = f->position, .size = f->size,
                               .tag = f->tag, .has_shared = f->has_shared, .shared = f->shared,
                               .path_bytes = strlen(f->path) + 1, .hints_bytes = f->hints_bytes,
                               .ebytes = f->ebytes, .fbytes = f->fbytes,
                               .vhints_bytes = f->vhints_bytes};
        if (section_put(out, &s, sizeof s) || put_bytes(out, f->path, s.path_bytes) ||
            put_bytes(out, f->hints, f->hints_bytes) || put_bytes(out, f->edef, f->ebytes) ||
            put_bytes(out, f->fdef, f->fbytes) || put_bytes(out, f->vhints, f->vhints_bytes))
            return -1;
    }
    return 0;
}

/* The next n bytes of the section, copied into a new buffer (NULL for 0):
 * 0, or -1 when they are not there or memory is short. */
static int take_copy(struct section_in *in, uint64_t n, char **out)
{
    *out = NULL;
    if (!n) return 0;
    const void *p;
    if (n > (uint64_t)(in->end - in->p) || !(p = section_take(in, (size_t)n)) ||
        section_skip_align(in) || !(*out = malloc(n)))
        return -1;
    memcpy(*out, p, n);
    return 0;
}

/* Reopens one saved file as it was. 0, or -1 with the reason in err. */
static int reopen(struct pfile *f, char *err, size_t cap)
{
    char msg[512] = "", text[MPI_MAX_ERROR_STRING] = "";
    int len, rc = files_open(f, 1);
    if (rc) {
        MPI_Error_string(rc, text, &len);
        return snprintf(err, cap, "file %s (the program's file %u) cannot be opened again: %s",
                        f->path, f->id, text),
               -1;
    }
    if ((f->edef || f->fdef || f->disp || f->vhints) && (rc = files_apply_view(f, msg, sizeof msg)))
        return snprintf(err, cap, "file %s: its view cannot be set again: %s", f->path, msg), -1;
    MPI_Offset size = 0;
    if ((f->atomic && (rc = MPI_File_set_atomicity(f->fh, 1))) ||
        (rc = MPI_File_seek(f->fh, f->position, MPI_SEEK_SET)) ||
        (rc = MPI_File_get_size(f->fh, &size)))
        return snprintf(err, cap, "file %s: its atomicity or pointer cannot be set again", f->path),
               -1;
    if (size < f->size) /* truncated (or replaced) since: the data is not what the image expects */
        return snprintf(err, cap,
                        "file %s is %lld bytes long, shorter than the %lld bytes it had at the "
                        "checkpoint",
                        f->path, (long long)size, (long long)f->size),
               -1;
    if (f->leader && size > f->size && (rc = MPI_File_set_size(f->fh, f->size)))
        return snprintf(err, cap, "file %s cannot be cut back to its %lld bytes at the checkpoint",
                        f->path, (long long)f->size),
               -1;
    /* the shared pointer where it was (its file made again where it is gone) */
    if (f->leader && f->has_shared && files_shared_set(f, f->shared))
        return snprintf(err, cap, "file %s: its shared file pointer cannot be set again", f->path),
               -1;
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t n;
    if (section_get_count(&in, &n))
        return snprintf(err, cap, "%zu bytes, too short for its count (damaged)", len), -1;
    for (uint32_t i = 0; i < n; i++) {
        struct saved_file s;
        if (section_get(&in, &s, sizeof s))
            return snprintf(err, cap, "it counts %u files and holds %u (damaged)", n, i), -1;
        if (s.id >= FILE_ID_END || files_get(s.id))
            return snprintf(err, cap, "file %u: id %u is out of range or twice (damaged)", i, s.id), -1;
        int rw = ((s.amode & 2) != 0) + ((s.amode & 4) != 0) + ((s.amode & 8) != 0);
        if (rw != 1 || (s.amode & ~0x1ff) || (uint32_t)s.datarep > 2 || s.disp < 0 ||
            s.position < 0 || s.size < 0 || s.shared < 0 || s.path_bytes < 2)
            return snprintf(err, cap, "file %u: a field is out of range (damaged)", i), -1;
        struct pfile *f = calloc(1, sizeof *f);
        if (!f) return snprintf(err, cap, "out of memory"), -1;
        f->id = s.id, f->comm = s.comm, f->amode = s.amode, f->leader = s.leader != 0;
        f->atomic = s.atomic != 0, f->datarep = s.datarep, f->disp = s.disp;
        f->position = s.position, f->size = s.size, f->tag = s.tag;
        f->has_shared = s.has_shared != 0, f->shared = s.shared, f->sfp_fd = -1;
        f->hints_bytes = s.hints_bytes, f->ebytes = s.ebytes, f->fbytes = s.fbytes,
        f->vhints_bytes = s.vhints_bytes;
        if (take_copy(&in, s.path_bytes, &f->path) || take_copy(&in, s.hints_bytes, &f->hints) ||
            take_copy(&in, s.ebytes, &f->edef) || take_copy(&in, s.fbytes, &f->fdef) ||
            take_copy(&in, s.vhints_bytes, &f->vhints)) {
            pfile_free(f);
            return snprintf(err, cap, "file %u: its strings are longer than the section (damaged)", i),
                   -1;
        }
        if (f->path[s.path_bytes - 1] || strlen(f->path) + 1 != s.path_bytes ||
            (f->hints_bytes && f->hints[f->hints_bytes - 1]) ||
            (f->vhints_bytes && f->vhints[f->vhints_bytes - 1])) {
            pfile_free(f);
            return snprintf(err, cap, "file %u: a string is not terminated (damaged)", i), -1;
        }
        if (reopen(f, err, cap)) {
            if (files_get(f->id) == f)
                files_close(f);
            else
                pfile_free(f);
            return -1;
        }
    }
    if (in.p != in.end) return snprintf(err, cap, "bytes after its last file (damaged)"), -1;
    return 0;
}

const struct proxy_resource resource_files = {
    .name = "files",
    .version = 1,
    .settle = settle,
    .save = save,
    .load = load,
};
