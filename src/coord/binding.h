/* What binds a checkpoint file to its slot (docs/security.md): the job's
 * identity, the generation and the rank, carried inside every image
 * (src/engine/image.h) and proxy state file (src/proxy/state.c); and the
 * manifest, which lists each file with its size and checksum. The
 * coordinator reads them before it writes a manifest; `mpcr restart` reads
 * them again, with the owner and mode checks, before it uses anything. */
#ifndef MPCR_COORD_BINDING_H
#define MPCR_COORD_BINDING_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Who a file says it belongs to, and its size and checksum: for an image
 * the header's CRC32C (the header holds the CRC of every table, the region
 * table that of every data stream: it covers the whole image); for a state
 * file its trailing CRC32C of everything before it. */
struct mpcr_file_id {
    uint64_t job, gen;
    int64_t rank;
    uint64_t size;
    uint32_t crc;
};

/* Room for a `why` below: a refusal that names a path. */
#define MPCR_WHY_MAX (PATH_MAX + 400)

/* Reads the identity of an image (state: 0) or a state file (state: 1) at
 * path, which must be a regular file (never a FIFO or device: no read may
 * block). 0, or -1 with why (naming path) filled. */
int mpcr_file_identity(const char *path, int state, struct mpcr_file_id *id, char *why, size_t cap);

/* The manifest of a generation (version 2). */
#define MPCR_MANIFEST_VERSION   2
#define MPCR_MANIFEST_MAX_RANKS (1 << 20)
struct mpcr_manifest {
    uint64_t job;
    unsigned long gen;
    int nranks;
    char mpi[32]; /* "" for one process */
    unsigned long long bytes;
    struct mpcr_file_id *files; /* per rank: image at 2r, state at 2r + 1 (none without MPI) */
};

/* The job's identity: a new random one, or the one of an existing
 * generation (its manifest's). 0 is never drawn (it marks an API image). */
uint64_t mpcr_new_job_id(void);

/* Writes gen-K/manifest of dir: reads every rank's image (and state, with
 * an MPI) and checks that each names job, gen and its rank; 0, or -1 with
 * why. Atomic: a temporary created privately, fsync, rename, fsync. */
int mpcr_manifest_write(const char *dir, uint64_t job, unsigned long gen, int nranks,
                        const char *mpi, char *why, size_t cap);

/* The earlier generations an image refers to (an increment's chain,
 * docs/incremental.md), read from its header (checked by its checksum):
 * how many (0 for a full image) into *n, their numbers into chain (room for
 * MPCR_MAX_CHAIN); 0, or -1 with why. */
int mpcr_image_chain(const char *path, uint64_t *chain, uint32_t *n, char *why, size_t cap);

/* Reads and checks gen-K/manifest of dir into m (files malloc'ed; free
 * them with mpcr_manifest_free). Every line must be one of the format's,
 * the generation the directory's, each rank's files listed once. 0, or -1
 * with why. */
int mpcr_manifest_read(const char *dir, unsigned long gen, struct mpcr_manifest *m, char *why,
                       size_t cap);
void mpcr_manifest_free(struct mpcr_manifest *m);

/* Everything a restart trusts in generation K of dir, checked before any
 * of it is used: dir, gen-K and every file in the manifest are the user's
 * alone (mpcr_check_private), each file's size and checksum are the
 * manifest's, and it names the manifest's job, generation K and its own
 * rank. 0 with m filled, or -1 with why naming the file and the problem. */
int mpcr_generation_verify(const char *dir, unsigned long gen, struct mpcr_manifest *m, char *why,
                           size_t cap);

#endif
