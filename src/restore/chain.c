/* Restoring an increment (docs/incremental.md): the image's ref extents say
 * that some of its pages are as an earlier generation of its chain holds
 * them, at the same addresses. stream.c collects them while it reads the
 * image; here each generation they name is opened once, as
 * DIR/gen-G/<the image's own file name> beside the image's gen-K, checked
 * (its header and tables, that it is the same job and rank and generation
 * G), and only its regions that hold referred pages are read, checked by
 * their checksums in the same pass that puts the pages in place. A page
 * the generation does not hold, a missing or damaged file, refuses the
 * restart naming the file. */
#include <linux/fcntl.h>
#include <linux/mman.h>

#include "crc32c.h"
#include "restore.h"

uint32_t mpcr_chain_len;

static struct {
    struct mpcr_ref *v;
    uint64_t n, cap, applied; /* refs [applied, n) are still to be placed */
} refs;

static struct base {
    int fd; /* 0: not opened yet */
    uint64_t size;
    struct mpcr_img_header h;
    const struct mpcr_img_region *regions;
    char path[4096];
} base[MPCR_MAX_CHAIN];

void mpcr_chain_ref(uint32_t region, uint32_t kind, uint64_t start, uint64_t len, uint32_t index, int place)
{
    if (refs.n > refs.applied && refs.v[refs.n - 1].end > start) /* sorted within a batch */
        die(1, "the image's references to earlier generations are out of order at ", hex(start), " (corrupt image)",
            (char *)0);
    if (refs.n == refs.cap) { /* the zone's allocator frees nothing: grow by doubling */
        uint64_t cap = refs.cap ? refs.cap * 2 : 4096;
        struct mpcr_ref *v = zalloc(cap * sizeof *v);
        if (refs.n) memcpy(v, refs.v, refs.n * sizeof *v);
        refs.v = v, refs.cap = cap;
    }
    refs.v[refs.n++] = (struct mpcr_ref){.start = start, .end = start + len, .index = index, .region = region, .kind = kind,
                                        .place = place};
}

/* DIR/gen-G/NAME for the image DIR/gen-K/NAME. */
static void base_path(char *out, const char *image, uint64_t gen)
{
    size_t len = strlen(image), slash = len, parent = 0;
    while (slash > 0 && image[slash - 1] != '/') slash--;
    if (slash >= 2)
        for (parent = slash - 1; parent > 0 && image[parent - 1] != '/'; parent--) {}
    const char *name = image + slash, *g = dec(gen);
    size_t k = 0;
    if (slash < 2) { /* "NAME" or "/NAME": there is no gen-K directory to go up from */
        out[k++] = '.', out[k++] = '.', out[k++] = '/';
    }
    for (size_t i = 0; i < parent && k < 3900; i++) out[k++] = image[i];
    for (const char *p = "gen-"; *p; p++) out[k++] = *p;
    for (; *g; g++) out[k++] = *g;
    out[k++] = '/';
    for (; *name && k < 4094; name++) out[k++] = *name;
    out[k] = 0;
}

static __attribute__((noreturn)) void refuse(int code, const struct base *b, const char *why, const char *more)
{
    die(code, "the generation this increment refers to, ", b->path, ", ", why, more, ": this generation cannot be restarted",
        (char *)0);
}

static void pread_base(const struct base *b, void *to, uint64_t len, uint64_t off, int code)
{
    char *p = to;
    while (len) {
        long n = sc(pread, b->fd, p, len, off);
        if (n <= 0) refuse(code, b, "is unreadable or truncated", "");
        p += n, off += (uint64_t)n, len -= (uint64_t)n;
    }
}

/* Opens and checks generation chain[i]: the header (magic, version,
 * checksum, length, footer), its binding to the image's job and rank and
 * to generation chain[i], and its region table. */
static struct base *open_base(const struct mpcr_img_header *h, const char *image, uint32_t i, int code)
{
    struct base *b = &base[i];
    if (b->fd > 0) return b;
    base_path(b->path, image, h->chain[i]);
    long fd = sc(openat, AT_FDCWD, b->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) refuse(code, b, "cannot be opened: ", errword(fd));
    b->fd = (int)fd;
    struct kstat st;
    if (sc(fstat, b->fd, &st) < 0 || (st.mode & 0170000) != 0100000) refuse(code, b, "is not a regular file", "");
    b->size = (uint64_t)st.size;
    static unsigned char block[MPCR_IMG_HEADER_SIZE];
    if (b->size < MPCR_IMG_HEADER_SIZE + sizeof(struct mpcr_img_footer)) refuse(code, b, "is truncated", "");
    pread_base(b, block, sizeof block, 0, code);
    memcpy(&b->h, block, sizeof b->h);
    if (memcmp(b->h.magic, MPCR_IMG_MAGIC, 8) || b->h.version != MPCR_IMG_VERSION)
        refuse(code, b, "is not an image of this format version", "");
    uint32_t crc = b->h.header_crc;
    ((struct mpcr_img_header *)block)->header_crc = 0;
    if (mpcr_crc32c(0, block, sizeof block) != crc) refuse(code, b, "is damaged (header checksum mismatch)", "");
    struct mpcr_img_footer f;
    if (b->h.total_len != b->size) refuse(code, b, "is truncated or has trailing data", "");
    pread_base(b, &f, sizeof f, b->size - sizeof f, code);
    if (memcmp(f.magic, MPCR_IMG_FOOTER_MAGIC, 8) || f.total_len != b->size) refuse(code, b, "is damaged (footer)", "");
    if (b->h.job_id != h->job_id || b->h.rank != h->rank || b->h.generation != h->chain[i])
        refuse(code, b, "belongs to another job, rank or generation", "");
    const struct mpcr_img_table *t = &b->h.table[MPCR_T_REGIONS];
    uint64_t end;
    if (t->off < MPCR_IMG_HEADER_SIZE || __builtin_add_overflow(t->off, t->len, &end) ||
        end > b->size - sizeof(struct mpcr_img_footer) || t->len != (uint64_t)t->count * sizeof(struct mpcr_img_region))
        refuse(code, b, "is damaged (region table out of bounds)", "");
    void *regions = zalloc(t->len + 1);
    pread_base(b, regions, t->len, t->off, code);
    if (mpcr_crc32c(0, regions, t->len) != t->crc) refuse(code, b, "is damaged (region table checksum mismatch)", "");
    b->regions = regions;
    return b;
}

/* Whether refs[from, n) of chain index i want anything of [start, end). */
static int wanted(uint64_t from, uint32_t i, uint64_t start, uint64_t end)
{
    for (uint64_t k = from; k < refs.n && refs.v[k].start < end; k++)
        if (refs.v[k].index == i && refs.v[k].end > start) return 1;
    return 0;
}

/* With fill, the anonymous regions the refs fill take their pages through
 * userfaultfd (UFFDIO_COPY), as the image's own do (stream.c); on, 0 after. */
static void use_uffd(const struct mpcr_img_region *r, uint64_t from, int on)
{
    uint32_t last = ~0u;
    int reg = 0;
    for (uint64_t k = from; k < refs.n; k++) {
        struct mpcr_ref *f = &refs.v[k];
        if (f->region == last) {
            f->use_uffd = reg;
            continue;
        }
        last = f->region;
        uint64_t len = r[last].end - r[last].start;
        if (!on && f->use_uffd) mpcr_restore_uffd_unregister(r[last].start, len);
        reg = on && f->place && f->kind == MPCR_R_ANON && mpcr_restore_uffd_register(r[last].start, len);
        if (on) f->use_uffd = reg;
    }
}

void mpcr_chain_apply(const struct mpcr_img_header *h, const struct mpcr_img_region *own, const char *image, int fill,
                      int code)
{
    uint64_t from = refs.applied;
    refs.applied = refs.n;
    if (from == refs.n) return;
    if (fill) use_uffd(own, from, 1);
    for (uint32_t i = 0; i < h->chain_len; i++) {
        int any = 0;
        for (uint64_t k = from; k < refs.n && !any; k++) any = refs.v[k].index == i;
        if (!any) continue;
        struct base *b = open_base(h, image, i, code);
        const struct mpcr_img_region *r = b->regions;
        for (uint32_t j = 0; j < b->h.table[MPCR_T_REGIONS].count; j++) {
            uint64_t end;
            if (r[j].start >= r[j].end || (r[j].start | r[j].end) & (MPCR_PAGE - 1) ||
                __builtin_add_overflow(r[j].data_off, r[j].data_len, &end) || r[j].data_off < MPCR_IMG_HEADER_SIZE ||
                end > b->size)
                refuse(code, b, "is damaged (a region out of bounds)", "");
            /* the first ref that may overlap (sorted): a binary search keeps this linear overall */
            uint64_t lo = from, hi = refs.n;
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (refs.v[mid].end <= r[j].start) lo = mid + 1;
                else hi = mid;
            }
            if (!r[j].data_len || !wanted(lo, i, r[j].start, r[j].end)) continue;
            uint32_t crc = mpcr_restore_stream_refs(b->fd, &r[j], fill, refs.v + from, refs.n - from, i);
            if (crc != r[j].data_crc) refuse(code, b, "is damaged: the data of region ", hex(r[j].start));
        }
        for (uint64_t k = from; k < refs.n; k++)
            if (refs.v[k].index == i && refs.v[k].covered != (refs.v[k].end - refs.v[k].start) / MPCR_PAGE)
                refuse(code, b, "does not hold the pages the increment refers to at ", hex(refs.v[k].start));
    }
    if (fill) use_uffd(own, from, 0);
}

void mpcr_chain_close(void)
{
    for (uint32_t i = 0; i < MPCR_MAX_CHAIN; i++)
        if (base[i].fd > 0) sc(close, base[i].fd), base[i].fd = 0;
}
