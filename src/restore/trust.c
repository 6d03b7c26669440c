/* Whether the files the image maps may be mapped again (docs/security.md,
 * "Files the image maps or has open"). Phase 1 opens each mapped file once,
 * checks whose it is (file_trust.h) and, for a private map, that it is the
 * file the checkpoint mapped: the same device, inode, ctime and size (none of
 * which its owner can set), or else, on another host or after a copy, the
 * same contents (the SHA-256 the checkpoint recorded). What it vouched for is
 * kept per region, and every later open for the mapping itself must find that
 * very file (trust_same_file), so nothing can be swapped in between. */
#include <linux/fcntl.h>
#include <linux/stat.h>

#include "file_trust.h"
#include "restore.h"
#include "sha256.h"

#define ENOENT 2
#define HASH_CACHE 64

struct vouched {
    uint64_t dev, ino, size;
    int64_t ctime, ctime_ns;
    int whole; /* size and ctime too (a private map); a shared map's contents are live data */
};

static struct vouched *vouched; /* one per region */
static int trust_others;
static uint32_t euid;
static unsigned char *hash_buf;
static struct { struct vouched id; unsigned char sha[MPCR_SHA256_LEN]; } hashed[HASH_CACHE];
static uint32_t nhashed;

static const char *const advice = ": a restart maps the files as they were at the checkpoint; put them back (a copy with "
                                  "the same contents will do, on any host) or start the job again with mpcr run";

void trust_init(uint32_t nregions, int others)
{
    vouched = zalloc(nregions * sizeof *vouched + 1);
    trust_others = others;
    euid = (uint32_t)sc(geteuid);
}

static const char *oct(uint32_t mode)
{
    static char s[8];
    for (int i = 3; i >= 0; i--, mode >>= 3) s[i] = (char)('0' + (mode & 7));
    s[4] = 0;
    return s;
}

void trust_owner(const struct kstat *st, const char *what, const char *path)
{
    if (trust_others) return;
    switch (mpcr_file_distrust(st->mode, st->uid, euid)) {
    case MPCR_TRUSTED: return;
    case MPCR_OTHERS_FILE:
        die(1, what, path, " is owned by uid ", dec(st->uid), ", another user than the one restarting (uid ", dec(euid),
            ") and not root, who could have changed what the restarted job runs; restart with " MPCR_TRUST_OPTION
            " to take that risk",
            (char *)0);
    case MPCR_OTHERS_CAN_WRITE:
        die(1, what, path, " is writable by other users (mode ", oct(st->mode & 07777),
            "), who could have changed what the restarted job runs; restart with " MPCR_TRUST_OPTION
            " to take that risk",
            (char *)0);
    }
}

static struct vouched identity(const struct kstat *st, int whole)
{
    return (struct vouched){st->dev, st->ino, (uint64_t)st->size, st->ctime, st->ctime_ns, whole};
}

static int same(const struct vouched *a, const struct vouched *b)
{
    return a->dev == b->dev && a->ino == b->ino &&
           (!a->whole || (a->size == b->size && a->ctime == b->ctime && a->ctime_ns == b->ctime_ns));
}

/* SHA-256 of the file open as fd, whose identity is id; several regions of one
 * library are hashed once. */
static const unsigned char *file_sha256(long fd, const struct vouched *id, const char *path)
{
    for (uint32_t i = 0; i < nhashed && i < HASH_CACHE; i++)
        if (same(&hashed[i].id, id)) return hashed[i].sha;
    if (!hash_buf) hash_buf = zalloc(1 << 20);
    struct mpcr_sha256 s;
    mpcr_sha256_init(&s);
    uint64_t off = 0;
    for (;;) {
        long n = sc(pread, fd, hash_buf, 1 << 20, off);
        if (n < 0) die(1, "cannot read the mapped file ", path, ": ", errword(n), (char *)0);
        if (n == 0) break;
        mpcr_sha256_update(&s, hash_buf, (size_t)n);
        off += (uint64_t)n;
    }
    struct kstat after;
    if (sc(fstat, fd, &after) < 0 || off != id->size) die(1, "the mapped file ", path, " changed while it was read", (char *)0);
    struct vouched now = identity(&after, 1);
    if (!same(id, &now)) die(1, "the mapped file ", path, " changed while it was read", (char *)0);
    uint32_t k = nhashed++ % HASH_CACHE;
    hashed[k].id = *id;
    mpcr_sha256_final(&s, hashed[k].sha);
    return hashed[k].sha;
}

void trust_check_mapped(uint32_t i, const struct mpcr_img_region *r, const char *path)
{
    long fd = sc(openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd == -ENOENT) die(1, "the mapped file ", path, " is gone", (char *)0);
    if (fd < 0) die(1, "the mapped file ", path, " cannot be opened: ", errword(fd), (char *)0);
    struct kstat st;
    if (sc(fstat, fd, &st) < 0) die(1, "cannot stat the mapped file ", path, (char *)0);
    trust_owner(&st, "the mapped file ", path);
    int private = r->kind == MPCR_R_FILE_PRIVATE;
    vouched[i] = identity(&st, private);
    if ((st.mode & S_IFMT) != (r->f_mode & S_IFMT))
        die(1, "the mapped file ", path, " changed since the checkpoint (another kind of file)", advice, (char *)0);
    if (private) {
        struct vouched then = {r->f_dev, r->f_ino, r->f_size, r->f_ctime_sec, r->f_ctime_nsec, 1};
        if (!same(&then, &vouched[i])) { /* another host's copy, a rebuild, a swap: the contents decide */
            if ((uint64_t)st.size != r->f_size)
                die(1, "the mapped file ", path, " changed since the checkpoint (", dec((uint64_t)st.size),
                    " bytes, were ", dec(r->f_size), ")", advice, (char *)0);
            if (!(r->flags & MPCR_RF_HASHED))
                die(1, "the mapped file ", path, " changed since the checkpoint (it is another file)", advice,
                    (char *)0);
            if (memcmp(file_sha256(fd, &vouched[i], path), r->f_sha256, MPCR_SHA256_LEN))
                die(1, "the mapped file ", path, " changed since the checkpoint (its contents differ: another SHA-256)",
                    advice, (char *)0);
        }
    }
    sc(close, fd);
}

void trust_same_file(uint32_t i, long fd, const char *path, int code)
{
    struct kstat st;
    if (sc(fstat, fd, &st) < 0) die(code, "cannot stat the mapped file ", path, (char *)0);
    struct vouched now = identity(&st, vouched[i].whole);
    if (!same(&vouched[i], &now))
        die(code, "the mapped file ", path, " was replaced while the restart checked it", (char *)0);
}
