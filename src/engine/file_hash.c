/* The content hash of a file the image maps privately (the program, its
 * libraries, data files mapped read-only): SHA-256 of the whole file, which
 * a restart compares when the file it finds is not, by device, inode, ctime
 * and size, the very file the checkpoint saw (another host's copy, a rebuilt
 * program, a file someone swapped in: docs/security.md).
 *
 * Hashing reads the whole file while the process is stopped, so each file is
 * hashed once per process: a small cache keyed by (device, inode, ctime,
 * size). The key is safe because none of it can be set by the file's owner:
 * every change of contents, owner or mode moves ctime, which only the kernel
 * writes, and an inode reused by a new file gets that file's own ctime. The
 * cache is plain static memory (no malloc while threads are frozen) and is
 * part of the image, so a restart on the same host keeps it. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt.h"
#include "internal.h"
#include "sha256.h"

#define CACHE_SLOTS 128

static struct hashed {
    uint64_t dev, ino, size;
    int64_t ctime_sec, ctime_nsec;
    unsigned char sha[MPCR_SHA256_LEN];
    int used;
} cache[CACHE_SLOTS];
static unsigned next_slot; /* round robin once full */

static struct hashed key_of(const struct stat *st)
{
    return (struct hashed){.dev = (uint64_t)st->st_dev, .ino = (uint64_t)st->st_ino, .size = (uint64_t)st->st_size,
                           .ctime_sec = st->st_ctim.tv_sec, .ctime_nsec = st->st_ctim.tv_nsec, .used = 1};
}

static int same_key(const struct hashed *a, const struct hashed *b)
{
    return a->used && b->used && a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

int mpcr_file_sha256(int fd, const struct stat *st, const char *path, unsigned char *buf, size_t buflen,
                     unsigned char out[MPCR_SHA256_LEN])
{
    struct hashed key = key_of(st);
    for (unsigned i = 0; i < CACHE_SLOTS; i++)
        if (same_key(&cache[i], &key)) {
            memcpy(out, cache[i].sha, MPCR_SHA256_LEN);
            return 0;
        }
    struct mpcr_sha256 s;
    mpcr_sha256_init(&s);
    uint64_t off = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, buflen, (off_t)off);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return mpcr_fail(-errno, "reading %s to hash it: %s", path, mpcr_strerror(errno));
        if (n == 0) break;
        mpcr_sha256_update(&s, buf, (size_t)n);
        off += (uint64_t)n;
    }
    struct stat after; /* a file written meanwhile has another ctime: its hash would be of no one state */
    struct hashed now = fstat(fd, &after) ? (struct hashed){0} : key_of(&after);
    if (!same_key(&key, &now) || off != key.size)
        return mpcr_fail(-EAGAIN, "%s changed while it was being hashed", path);
    mpcr_sha256_final(&s, out);
    struct hashed *h = &cache[next_slot++ % CACHE_SLOTS];
    *h = key;
    memcpy(h->sha, out, MPCR_SHA256_LEN);
    return 0;
}
