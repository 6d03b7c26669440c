/* Open files (MPI-IO; docs/mpi-io.md) as a resource of the proxy
 * (files.c): each file the program has open, opened here on MPI_COMM_SELF
 * under the library's id, with everything a new proxy needs to open it
 * again as it was: path, access mode, hints, view (its types as the
 * library's definitions), atomicity, and at a checkpoint the individual
 * file pointer and the size. The handlers of the FILE calls are
 * serve/serve_file.c. */
#ifndef MPCR_PROXY_FILES_H
#define MPCR_PROXY_FILES_H

#include "proxy.h"

struct pfile {
    uint32_t id;       /* the library's id (its handle's slot) */
    uint32_t comm;     /* the communicator it was opened on (the library's id; for reports) */
    int32_t amode;     /* as this rank opened it, mpcr's ABI values */
    int32_t leader;    /* rank 0 of that communicator: it deletes on close, cuts back at restart */
    int32_t atomic;    /* MPI_File_set_atomicity's flag */
    int32_t datarep;   /* 0 native, 1 internal, 2 external32 */
    MPI_File fh;       /* the real file */
    char *path;        /* absolute */
    char *hints;       /* "key\0value\0..." given at open and to set_info since */
    uint64_t hints_bytes;
    int64_t disp;      /* the view; no definitions: the default view */
    char *edef, *fdef; /* the etype's and filetype's definitions (struct mpcr_type_def) */
    uint64_t ebytes, fbytes;
    char *vhints; /* the hints set_view was given */
    uint64_t vhints_bytes;
    int64_t position, size; /* at the last save: the individual pointer (etypes), bytes */
    /* The shared file pointer: a file of 8 bytes beside the data file,
     * "PATH.mpcr-sfp-TAG" (the tag drawn by the leader at open), opened at
     * its first use; -1 until then. */
    uint64_t tag;
    int sfp_fd;
    int32_t has_shared; /* at the last save (or load): the shared pointer was in use */
    int64_t shared;     /* its value then */
};

/* The open file with this id, or NULL. */
struct pfile *files_get(uint32_t id);
/* Opens f's file here (f filled, fh not): the real MPI_File_open on
 * MPI_COMM_SELF with f's hints and amode without CREATE|EXCL when `again`
 * (a restart), then keeps f (its strings are the table's now). A real error code. */
int files_open(struct pfile *f, int again);
/* Closes and forgets it: a real error code. */
int files_close(struct pfile *f);
/* Sets f's view on its real file from f's record: a real error code, or
 * -1 (msg says why) when a definition is refused. */
int files_apply_view(struct pfile *f, char *msg, size_t cap);
/* The shared file pointer of f (etypes): read, or changed under an fcntl
 * lock on its file, which every rank's proxy takes: *old is the value
 * before, the new one is old + add (set: `value` instead). 0, or an MPI
 * error class (MPI_ERR_IO: its file cannot be made or read). */
int files_shared_add(struct pfile *f, int64_t add, int64_t *old);
int files_shared_set(struct pfile *f, int64_t value);
/* Whether f's shared pointer has a file yet (a rank has used it). */
int files_shared_exists(struct pfile *f);
/* Hints "key\0value\0..." as a real info object (MPI_INFO_NULL for none). */
int files_info(const char *hints, uint64_t bytes, MPI_Info *out);
/* mpcr's ABI access mode as this MPI's. */
int files_real_amode(int32_t amode);

#endif
