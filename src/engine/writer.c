/* Output side of an image: buffered writes with a running CRC32C, and the
 * atomic publication of the finished file (temporary name created with
 * O_EXCL, fsync, rename, fsync of the directory), so that a reader sees
 * either the whole image or none. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename */
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "fmt.h"
#include "internal.h"

#define WRITEBACK_STEP (8ul << 20)

/* The file being written, for a message: what s->fd is open on. */
static const char *image_name(const struct mpcr_scratch *s, char *buf, size_t cap)
{
    char link[64];
    mpcr_fmt(link, sizeof link, "/proc/self/fd/%d", s->fd);
    ssize_t n = readlink(link, buf, cap - 1);
    if (n <= 0) return "the image";
    buf[n] = 0;
    return buf;
}

static int write_all(struct mpcr_scratch *s, const unsigned char *p, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = write(s->fd, p + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            char name[512];
            return mpcr_fail(-e, "writing %s: %s", image_name(s, name, sizeof name), mpcr_strerror(e));
        }
        done += (size_t)n;
    }
    /* Start the disk on each written step at once: the final fsync then
     * finds little left, and writing and storing overlap instead of
     * following each other (as with `dd conv=fsync`). */
    uint64_t written = s->off - s->wbuf_len;
    if (written - s->writeback_from >= WRITEBACK_STEP) {
        sync_file_range(s->fd, (off_t)s->writeback_from, (off_t)(written - s->writeback_from), SYNC_FILE_RANGE_WRITE);
        s->writeback_from = written;
    }
    return 0;
}

int mpcr_w_flush(struct mpcr_scratch *s)
{
    size_t len = s->wbuf_len;
    s->wbuf_len = 0;
    return write_all(s, s->wbuf, len);
}

int mpcr_w_put(struct mpcr_scratch *s, const void *p, size_t n)
{
    const unsigned char *c = p;
    mpcr_crc32c_init(); /* this file's copy of the lane tables (crc32c.h) */
    s->crc = mpcr_crc32c(s->crc, p, n);
    if (n >= sizeof s->wbuf) { /* large: straight from the caller's buffer */
        int rc = mpcr_w_flush(s);
        s->off += n;
        return rc ? rc : write_all(s, c, n);
    }
    s->off += n;
    while (n) {
        size_t k = sizeof s->wbuf - s->wbuf_len;
        if (k > n) k = n;
        memcpy(s->wbuf + s->wbuf_len, c, k);
        s->wbuf_len += k;
        c += k;
        n -= k;
        if (s->wbuf_len == sizeof s->wbuf) {
            int rc = mpcr_w_flush(s);
            if (rc) return rc;
        }
    }
    return 0;
}

static int put_table(struct mpcr_scratch *s, enum mpcr_table t, const void *p, size_t len, uint32_t count)
{
    s->hdr.table[t].off = s->off;
    s->hdr.table[t].len = len;
    s->hdr.table[t].count = count;
    s->crc = 0;
    int rc = mpcr_w_put(s, p, len);
    s->hdr.table[t].crc = s->crc;
    return rc;
}

/* Writes the tables, footer and header of an image whose region streams are
 * already written, then publishes it under `path`. */
int mpcr_w_image(struct mpcr_scratch *s, const char *path)
{
    int rc = 0;
    struct mpcr_img_header *h = &s->hdr;
    if ((rc = put_table(s, MPCR_T_THREADS, s->threads, sizeof s->threads[0] * h->nthreads, h->nthreads)) ||
        (rc = put_table(s, MPCR_T_REGIONS, s->regions, sizeof s->regions[0] * s->nregions, s->nregions)) ||
        (rc = put_table(s, MPCR_T_FILES, s->files, sizeof s->files[0] * s->nfiles, s->nfiles)) ||
        (rc = put_table(s, MPCR_T_SIGACT, s->sigact, sizeof s->sigact, 64)) ||
        (rc = put_table(s, MPCR_T_STRINGS, s->strings, s->strings_len, s->strings_len)))
        return rc;
    struct mpcr_img_footer f;
    memcpy(f.magic, MPCR_IMG_FOOTER_MAGIC, 8);
    f.total_len = s->off + sizeof f;
    if ((rc = mpcr_w_put(s, &f, sizeof f)) || (rc = mpcr_w_flush(s))) return rc;

    h->total_len = f.total_len;
    h->header_crc = 0;
    unsigned char block[MPCR_IMG_HEADER_SIZE] = {0};
    memcpy(block, h, sizeof *h);
    h->header_crc = mpcr_crc32c(0, block, sizeof block);
    memcpy(block, h, sizeof *h);
    char name[512];
    if (pwrite(s->fd, block, sizeof block, 0) != (ssize_t)sizeof block)
        return mpcr_fail(-EIO, "writing the header of %s: %s", image_name(s, name, sizeof name), mpcr_strerror(errno));
    if (fsync(s->fd))
        return mpcr_fail(-errno, "fsync of %s: %s", image_name(s, name, sizeof name), mpcr_strerror(errno));

    char tmp[4200];
    mpcr_fmt(tmp, sizeof tmp, "%s.tmp", path);
    if (rename(tmp, path)) return mpcr_fail(-errno, "renaming %s: %s", tmp, mpcr_strerror(errno));
    char dir[4200];
    mpcr_fmt(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == dir) slash[1] = 0;
    else if (slash) *slash = 0;
    else strcpy(dir, ".");
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || fsync(dfd)) rc = mpcr_fail(-errno, "fsync of directory %s: %s", dir, mpcr_strerror(errno));
    if (dfd >= 0) close(dfd);
    return rc;
}
