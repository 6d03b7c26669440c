/* Output side of an image: buffered writes with a running CRC32C, and the
 * atomic publication of the finished file (src/common/atomic_file.h), so
 * that a reader sees either the whole image or none. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "fmt.h"
#include "internal.h"

#define WRITEBACK_STEP (8ul << 20)

static int write_all(struct mpcr_scratch *s, const unsigned char *p, size_t len)
{
    int rc = mpcr_atomic_write(&s->out, p, len);
    if (rc) return mpcr_fail(rc, "writing %s: %s", s->out.tmp, mpcr_strerror(-rc));
    /* Start the disk on each written step at once: the final fsync then
     * finds little left, and writing and storing overlap instead of
     * following each other (as with `dd conv=fsync`). */
    uint64_t written = s->off - s->wbuf_len;
    if (written - s->writeback_from >= WRITEBACK_STEP) {
        sync_file_range(s->out.fd, (off_t)s->writeback_from, (off_t)(written - s->writeback_from), SYNC_FILE_RANGE_WRITE);
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
 * already written, then publishes it under its name (s->out.path). */
int mpcr_w_image(struct mpcr_scratch *s)
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
    if (pwrite(s->out.fd, block, sizeof block, 0) != (ssize_t)sizeof block)
        return mpcr_fail(-EIO, "writing the header of %s: %s", s->out.tmp, mpcr_strerror(errno));
    if ((rc = mpcr_atomic_commit(&s->out)))
        return mpcr_fail(rc, "publishing %s: %s", s->out.path, mpcr_strerror(-rc));
    return 0;
}
