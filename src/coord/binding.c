/* See binding.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "binding.h"
#include "coord.h"
#include "crc32c.h"
#include "state_format.h"
#include "image.h"
#include "path.h"
#include "private.h"

/* The proxy's state file (src/proxy/state.c, docs/mpi-checkpoint.md): a
 * 32-byte header (magic, then u32 version, rank, ...), and at its end the
 * identity {u64 job, u64 generation} and the u32 CRC32C of all before it. */
#define STATE_MAGIC   MPCR_STATE_MAGIC
#define STATE_VERSION MPCR_STATE_VERSION
#define STATE_HEADER  32
#define STATE_TRAILER 20

uint64_t mpcr_new_job_id(void)
{
    uint64_t id = 0;
    while (!id)
        if (getrandom(&id, sizeof id, 0) != (ssize_t)sizeof id)
            id = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
    return id;
}

static int pread_all(int fd, void *buf, size_t len, off_t at)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(fd, (char *)buf + done, len - done, at + (off_t)done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        done += (size_t)n;
    }
    return 0;
}

static int image_identity(int fd, const char *path, struct mpcr_file_id *id, char *why, size_t cap)
{
    static unsigned char block[MPCR_IMG_HEADER_SIZE];
    struct mpcr_img_header h;
    if (id->size < MPCR_IMG_HEADER_SIZE || pread_all(fd, block, sizeof block, 0))
        return snprintf(why, cap, "%s is too short for an image (%" PRIu64 " bytes)", path,
                        id->size),
               -1;
    memcpy(&h, block, sizeof h);
    if (memcmp(h.magic, MPCR_IMG_MAGIC, 8))
        return snprintf(why, cap, "%s is not an mpcr image", path), -1;
    if (h.version != MPCR_IMG_VERSION)
        return snprintf(why, cap, "%s is of image format version %u; this mpcr reads version %d",
                        path, h.version, MPCR_IMG_VERSION),
               -1;
    uint32_t crc = h.header_crc;
    memset(block + offsetof(struct mpcr_img_header, header_crc), 0, sizeof h.header_crc);
    if (mpcr_crc32c(0, block, sizeof block) != crc)
        return snprintf(why, cap, "%s has a damaged header (checksum mismatch)", path), -1;
    if (h.total_len != id->size)
        return snprintf(why, cap,
                        "%s is %" PRIu64 " bytes long; its header says %" PRIu64
                        " (truncated or extended)",
                        path, id->size, h.total_len),
               -1;
    id->job = h.job_id, id->gen = h.generation, id->rank = h.rank, id->crc = crc;
    return 0;
}

static int state_identity(int fd, const char *path, struct mpcr_file_id *id, char *why, size_t cap)
{
    unsigned char head[STATE_HEADER], tail[STATE_TRAILER];
    if (id->size < STATE_HEADER + STATE_TRAILER || pread_all(fd, head, sizeof head, 0) ||
        pread_all(fd, tail, sizeof tail, (off_t)(id->size - STATE_TRAILER)))
        return snprintf(why, cap, "%s is too short for a proxy state file (%" PRIu64 " bytes)",
                        path, id->size),
               -1;
    uint32_t version, rank;
    memcpy(&version, head + 8, 4);
    memcpy(&rank, head + 12, 4);
    if (memcmp(head, STATE_MAGIC, 8))
        return snprintf(why, cap, "%s is not a proxy state file", path), -1;
    if (version != STATE_VERSION)
        return snprintf(why, cap, "%s is of state format version %u; this mpcr reads version %d",
                        path, version, STATE_VERSION),
               -1;
    memcpy(&id->job, tail, 8);
    memcpy(&id->gen, tail + 8, 8);
    memcpy(&id->crc, tail + 16, 4);
    id->rank = rank;
    return 0;
}

int mpcr_image_chain(const char *path, uint64_t *chain, uint32_t *n, char *why, size_t cap)
{
    struct mpcr_file_id id;
    if (mpcr_file_identity(path, 0, &id, why, cap)) return -1; /* the header's checksum, among others */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct mpcr_img_header h;
    int rc = fd < 0 || pread_all(fd, &h, sizeof h, 0);
    if (fd >= 0) close(fd);
    if (rc) return snprintf(why, cap, "%s: cannot be read", path), -1;
    if (h.chain_len > MPCR_MAX_CHAIN)
        return snprintf(why, cap, "%s refers to %u earlier generations (at most %d)", path, h.chain_len,
                        MPCR_MAX_CHAIN),
               -1;
    *n = h.chain_len;
    memcpy(chain, h.chain, sizeof h.chain[0] * h.chain_len);
    return 0;
}

int mpcr_file_identity(const char *path, int state, struct mpcr_file_id *id, char *why, size_t cap)
{
    /* O_NONBLOCK: a FIFO put in an image's place must not hold us */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return snprintf(why, cap, "%s: %s", path, strerror(errno)), -1;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        close(fd);
        return snprintf(why, cap, "%s is not a regular file", path), -1;
    }
    memset(id, 0, sizeof *id);
    id->size = (uint64_t)st.st_size;
    int rc =
        state ? state_identity(fd, path, id, why, cap) : image_identity(fd, path, id, why, cap);
    close(fd);
    return rc;
}

/* A path under dir that does not fit PATH_MAX: said so, -1. */
static int too_long(const char *dir, char *why, size_t cap)
{
    snprintf(why, cap, "the paths under %s are too long (more than %d bytes)", dir, PATH_MAX - 1);
    return -1;
}

static void file_name(char *buf, size_t cap, int rank, int state)
{
    snprintf(buf, cap, "rank-%d.%s", rank, state ? "state" : "img");
}

/* "job J, generation G, rank R" of an identity, for messages */
static const char *whose(const struct mpcr_file_id *id, char *buf, size_t cap)
{
    snprintf(buf, cap, "job %016" PRIx64 ", generation %" PRIu64 ", rank %" PRId64, id->job,
             id->gen, id->rank);
    return buf;
}

/* Whether file f of generation gen's directory names job, gen and rank. */
static int check_slot(const char *path, const struct mpcr_file_id *f, uint64_t job,
                      unsigned long gen, int rank, char *why, size_t cap)
{
    if (f->job == job && f->gen == gen && f->rank == rank) return 0;
    char a[96], b[96];
    struct mpcr_file_id want = {.job = job, .gen = gen, .rank = rank};
    snprintf(why, cap, "%s belongs to %s, not to this slot (%s)%s", path, whose(f, a, sizeof a),
             whose(&want, b, sizeof b),
             f->job != job   ? ": a file of another job"
             : f->gen != gen ? ": a file of another generation"
                             : ": another rank's file");
    return -1;
}

int mpcr_manifest_write(const char *dir, uint64_t job, unsigned long gen, int nranks,
                        const char *mpi, char *why, size_t cap)
{
    char gdir[PATH_MAX], path[PATH_MAX], name[64];
    if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", dir, gen)) return too_long(dir, why, cap);
    int per_rank = mpi ? 2 : 1;
    struct mpcr_file_id *ids = calloc((size_t)nranks * 2, sizeof *ids);
    if (!ids) return snprintf(why, cap, "out of memory"), -1;
    unsigned long long bytes = 0;
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < per_rank; k++) {
            file_name(name, sizeof name, r, k);
            if (mpcr_path_join(path, sizeof path, gdir, name)) {
                free(ids);
                return too_long(dir, why, cap);
            }
            if (mpcr_file_identity(path, k, &ids[2 * r + k], why, cap) ||
                check_slot(path, &ids[2 * r + k], job, gen, r, why, cap)) {
                free(ids);
                return -1;
            }
            if (!k) bytes += ids[2 * r].size;
        }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        free(ids);
        return snprintf(why, cap, "out of memory"), -1;
    }
    fprintf(f, "mpcr-manifest %d\njob %016" PRIx64 "\ngeneration %lu\nranks %d\n",
            MPCR_MANIFEST_VERSION, job, gen, nranks);
    if (mpi) fprintf(f, "mpi %s\n", mpi);
    fprintf(f, "bytes %llu\n", bytes);
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < per_rank; k++) {
            file_name(name, sizeof name, r, k);
            fprintf(f, "file %s %" PRIu64 " %08x\n", name, ids[2 * r + k].size, ids[2 * r + k].crc);
        }
    free(ids);
    int rc = fclose(f) ? -ENOMEM : 0;
    if (!rc) rc = mpcr_path_join(path, sizeof path, gdir, "manifest");
    if (!rc) rc = mpcr_atomic_write_file(path, text, len, 0600);
    free(text);
    if (rc) return snprintf(why, cap, "writing %s/manifest: %s", gdir, strerror(-rc)), -1;
    return 0;
}

void mpcr_manifest_free(struct mpcr_manifest *m)
{
    free(m->files);
    m->files = NULL;
}

/* One "file NAME SIZE CRC" line: which slot it names (2r or 2r + 1), or -1. */
static int file_slot(const char *name, int nranks, int mpi)
{
    int r, n = 0;
    char kind[8];
    if (sscanf(name, "rank-%d.%7[a-z]%n", &r, kind, &n) != 2 || name[n] || r < 0 || r >= nranks)
        return -1;
    char canonical[64];
    snprintf(canonical, sizeof canonical, "rank-%d.%s", r, kind);
    if (strcmp(canonical, name)) return -1; /* "rank-01.img" */
    if (!strcmp(kind, "img")) return 2 * r;
    return mpi && !strcmp(kind, "state") ? 2 * r + 1 : -1;
}

int mpcr_manifest_read(const char *dir, unsigned long gen, struct mpcr_manifest *m, char *why,
                       size_t cap)
{
    char path[PATH_MAX], line[512];
    memset(m, 0, sizeof *m);
    if (mpcr_path_printf(path, sizeof path, "%s/gen-%lu/manifest", dir, gen))
        return too_long(dir, why, cap);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return snprintf(why, cap, "%s: %s", path, strerror(errno)), -1;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > 64 << 20) {
        close(fd);
        return snprintf(why, cap, "%s is not a regular file of a sensible size", path), -1;
    }
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return snprintf(why, cap, "%s: out of memory", path), -1;
    }
    int version = 0, have_job = 0, have_gen = 0, have_bytes = 0, listed = 0, lineno = 0, bad = 0;
    unsigned char *seen = NULL;
    while (!bad && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strcspn(line, "\n");
        if (!line[len]) bad = 1; /* a line too long, or the last one cut */
        line[len] = 0;
        char name[64], tail;
        unsigned long long a;
        unsigned crc;
        int n = 0;
        if (lineno == 1) {
            if (sscanf(line, "mpcr-manifest %d%c", &version, &tail) != 1)
                bad = 1;
            else if (version != MPCR_MANIFEST_VERSION) {
                fclose(f);
                return snprintf(why, cap,
                                "%s is of manifest version %d; this mpcr reads version %d", path,
                                version, MPCR_MANIFEST_VERSION),
                       -1;
            }
        } else if (sscanf(line, "job %16" SCNx64 "%n", &m->job, &n) == 1 && !line[n] && !have_job)
            have_job = 1;
        else if (sscanf(line, "generation %llu%n", &a, &n) == 1 && !line[n] && !have_gen) {
            have_gen = 1;
            if (a != gen) {
                fclose(f), free(seen);
                mpcr_manifest_free(m); /* the file table, when "ranks" came first */
                return snprintf(why, cap, "%s says generation %llu, but it lies in gen-%lu", path,
                                a, gen),
                       -1;
            }
        } else if (sscanf(line, "ranks %llu%n", &a, &n) == 1 && !line[n] && !m->nranks && a > 0 &&
                   a <= MPCR_MANIFEST_MAX_RANKS) {
            m->nranks = (int)a;
            seen = calloc(2 * a, 1);
            m->files = calloc(2 * a, sizeof *m->files);
            if (!seen || !m->files) bad = 1;
        } else if (sscanf(line, "mpi %31s%n", m->mpi, &n) == 1 && !line[n] && listed == 0)
            ;
        else if (sscanf(line, "bytes %llu%n", &m->bytes, &n) == 1 && !line[n] && !have_bytes)
            have_bytes = 1;
        else if (sscanf(line, "file %63s %llu %8x%n", name, &a, &crc, &n) == 3 && !line[n] &&
                 m->nranks) {
            int slot = file_slot(name, m->nranks, m->mpi[0] != 0);
            if (slot < 0 || seen[slot])
                bad = 1;
            else {
                seen[slot] = 1, listed++;
                m->files[slot] = (struct mpcr_file_id){m->job, gen, slot / 2, a, crc};
            }
        } else
            bad = 1;
    }
    fclose(f);
    int per_rank = m->mpi[0] ? 2 : 1;
    if (bad || !version || !have_job || !have_gen || !have_bytes || !m->nranks ||
        listed != per_rank * m->nranks) {
        free(seen);
        int n = m->nranks;
        mpcr_manifest_free(m);
        if (bad)
            return snprintf(why, cap, "%s: line %d is not a line of a manifest (edited or damaged)",
                            path, lineno),
                   -1;
        if (n && listed != per_rank * n)
            return snprintf(why, cap, "%s lists %d file%s, but %d rank%s need %d (edited?)", path,
                            listed, listed == 1 ? "" : "s", n, n == 1 ? "" : "s", per_rank * n),
                   -1;
        return snprintf(why, cap,
                        "%s is incomplete: it must give the job, generation, ranks and bytes",
                        path),
               -1;
    }
    free(seen);
    m->gen = gen;
    unsigned long long sum = 0;
    for (int r = 0; r < m->nranks; r++)
        sum += m->files[2 * r].size;
    if (sum != m->bytes) {
        mpcr_manifest_free(m);
        return snprintf(why, cap, "%s says %llu bytes, but its images add up to %llu (edited?)",
                        path, m->bytes, sum),
               -1;
    }
    return 0;
}

int mpcr_generation_verify(const char *dir, unsigned long gen, struct mpcr_manifest *m, char *why,
                           size_t cap)
{
    char gdir[PATH_MAX], path[PATH_MAX], name[64];
    memset(m, 0, sizeof *m);
    if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", dir, gen) ||
        mpcr_path_join(path, sizeof path, gdir, "manifest"))
        return too_long(dir, why, cap);
    if (mpcr_check_private(dir, S_IFDIR, why, cap) || mpcr_check_private(gdir, S_IFDIR, why, cap) ||
        mpcr_check_private(path, S_IFREG, why, cap) || mpcr_manifest_read(dir, gen, m, why, cap))
        return -1;
    int per_rank = m->mpi[0] ? 2 : 1;
    for (int r = 0; r < m->nranks; r++)
        for (int k = 0; k < per_rank; k++) {
            const struct mpcr_file_id *want = &m->files[2 * r + k];
            struct mpcr_file_id got;
            file_name(name, sizeof name, r, k);
            if (mpcr_path_join(path, sizeof path, gdir, name)) {
                too_long(dir, why, cap);
                goto refused;
            }
            if (mpcr_check_private(path, S_IFREG, why, cap) ||
                mpcr_file_identity(path, k, &got, why, cap) ||
                check_slot(path, &got, m->job, gen, r, why, cap))
                goto refused;
            if (got.size != want->size || got.crc != want->crc) {
                snprintf(why, cap,
                         "%s is not the file the manifest lists (%" PRIu64
                         " bytes, checksum %08x; the manifest "
                         "says %" PRIu64 " bytes, %08x)",
                         path, got.size, got.crc, want->size, want->crc);
                goto refused;
            }
            /* An increment: every generation it refers to must be whole too,
             * of the same job (the restorer checks their data). */
            uint64_t chain[MPCR_MAX_CHAIN];
            uint32_t n = 0;
            if (!k && mpcr_image_chain(path, chain, &n, why, cap)) goto refused;
            for (uint32_t i = 0; i < n; i++) {
                struct mpcr_manifest bm;
                char bwhy[MPCR_WHY_MAX];
                if (chain[i] >= gen || mpcr_generation_verify(dir, (unsigned long)chain[i], &bm, bwhy, sizeof bwhy)) {
                    snprintf(why, cap, "%s refers to gen-%" PRIu64 ", which cannot be used: %s", path, chain[i],
                             chain[i] >= gen ? "not an earlier generation" : bwhy);
                    goto refused;
                }
                int other = bm.job != m->job;
                mpcr_manifest_free(&bm);
                if (other) {
                    snprintf(why, cap, "%s refers to gen-%" PRIu64 ", of another job", path, chain[i]);
                    goto refused;
                }
            }
        }
    return 0;
refused:
    mpcr_manifest_free(m);
    return -1;
}
