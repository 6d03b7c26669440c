/* Memory of the process: reads /proc/self/maps once, classifies every
 * mapping (anonymous, shared anonymous, private or shared file map, kernel
 * special mappings), and writes each region's data stream. Which pages are
 * stored comes from /proc/self/pagemap (present or swapped; for a private
 * file map only the copied-on-write pages), contents come from
 * /proc/self/mem so that PROT_NONE and write-only pages need no mprotect.
 * Runs of zero pages are stored as counts. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "crc32c.h"
#include "fmt.h"
#include "internal.h"

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)

int mpcr_mem_read_maps(struct mpcr_scratch *s)
{
    long n = mpcr_read_file("/proc/self/maps", s->maps, sizeof s->maps);
    if (n < 0) return mpcr_fail((int)n, "reading /proc/self/maps: %s", mpcr_strerror((int)-n));
    s->maps_len = (size_t)n;
    return 0;
}

/* The lowest excluded range (the scratch area, or one the layer above named)
 * that overlaps [start, end); 0 if none. */
static int next_excluded(const struct mpcr_scratch *s, uintptr_t start, uintptr_t end, uintptr_t *xs, uintptr_t *xe)
{
    int found = 0;
    uintptr_t ss = (uintptr_t)s, se = ss + ((sizeof *s + MPCR_PAGE - 1) & ~(MPCR_PAGE - 1));
    if (ss < end && se > start) *xs = ss, *xe = se, found = 1;
    uintptr_t hs, he; /* the holder map of incremental images */
    mpcr_incr_area(&hs, &he);
    if (hs < end && he > start && (!found || hs < *xs)) *xs = hs, *xe = he, found = 1;
    for (int i = 0; i < mpcr_nexclude; i++)
        if (mpcr_exclude[i].start < end && mpcr_exclude[i].end > start && (!found || mpcr_exclude[i].start < *xs))
            *xs = mpcr_exclude[i].start, *xe = mpcr_exclude[i].end, found = 1;
    return found;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t k = strlen(suffix);
    return len >= k && !memcmp(s + len - k, suffix, k);
}

/* A mapped file still at its path: records what a restart checks it by
 * (docs/security.md): device, inode, ctime, size, owner, mode, and for a
 * private map, whose pages under the stored ones come from the file, its
 * SHA-256. Opened, not stat()ed by path, so that all of it is of one file.
 * Returns 0 with r filled, 1 when the path no longer holds the mapped file
 * (the caller keeps the pages instead), or a negative errno. */
static int identify_file(struct mpcr_scratch *s, const char *path, uint64_t dmaj, uint64_t dmin, uint64_t ino,
                         int shared, struct mpcr_img_region *r)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return 1;
    if (fstat(fd, &st) || st.st_ino != ino || major(st.st_dev) != dmaj || minor(st.st_dev) != dmin) {
        close(fd);
        return 1;
    }
    r->kind = shared ? MPCR_R_FILE_SHARED : MPCR_R_FILE_PRIVATE;
    r->f_dev = st.st_dev;
    r->f_ino = st.st_ino;
    r->f_size = (uint64_t)st.st_size;
    r->f_ctime_sec = st.st_ctim.tv_sec;
    r->f_ctime_nsec = st.st_ctim.tv_nsec;
    r->f_uid = st.st_uid;
    r->f_mode = st.st_mode;
    int rc = 0;
    if (shared && !S_ISREG(st.st_mode))
        rc = mpcr_fail(-ENOTSUP, "shared mapping of device %s is not supported", path);
    else if (!shared && S_ISREG(st.st_mode) &&
             !(rc = mpcr_file_sha256(fd, &st, path, s->io, sizeof s->io, r->f_sha256)))
        r->flags |= MPCR_RF_HASHED;
    close(fd);
    return rc;
}

/* Sorts one maps line into a region entry; returns 1 to store it, 0 to skip
 * it, or a negative errno for a mapping that cannot be checkpointed. */
static int classify(struct mpcr_scratch *s, const char *line, size_t len, struct mpcr_img_region *r)
{
    const char *p = line;
    memset(r, 0, sizeof *r);
    r->start = mpcr_parse_hex(&p);
    p++;
    r->end = mpcr_parse_hex(&p);
    p++;
    const char *perm = p;
    p += 5;
    r->file_off = mpcr_parse_hex(&p);
    p++;
    uint64_t dmaj = mpcr_parse_hex(&p);
    p++;
    uint64_t dmin = mpcr_parse_hex(&p);
    p++;
    uint64_t ino = mpcr_parse_dec(&p);
    while (p < line + len && *p == ' ') p++;
    const char *path = p;
    size_t plen = (size_t)(line + len - p);
    int shared = perm[3] == 's';
    r->prot = (perm[0] == 'r' ? PROT_READ : 0) | (perm[1] == 'w' ? PROT_WRITE : 0) | (perm[2] == 'x' ? PROT_EXEC : 0);

    struct mpcr_img_vdso *v = &s->hdr.vdso;
#define SPECIAL(name, a, l)                                                     \
    if (plen == sizeof name - 1 && !memcmp(path, name, plen)) {                 \
        v->a = r->start;                                                        \
        v->l = r->end - r->start;                                               \
        return 0;                                                               \
    }
    SPECIAL("[vvar]", vvar, vvar_len)
    SPECIAL("[vvar_vclock]", vclock, vclock_len)
    SPECIAL("[vdso]", vdso, vdso_len)
#undef SPECIAL
    if (!memcmp(path, "[vsyscall]", plen < 10 ? plen : 10) && plen == 10) return 0;
    if (plen == 9 && !memcmp(path, "[uprobes]", 9)) return 0;
    if (plen == 7 && !memcmp(path, "[stack]", 7)) r->flags |= MPCR_RF_STACK;
    if (plen == 6 && !memcmp(path, "[heap]", 6)) r->flags |= MPCR_RF_HEAP;

    if (plen == 0 || path[0] == '[') {
        r->kind = shared ? MPCR_R_ANON_SHARED : MPCR_R_ANON;
        return 1;
    }
    if (plen > 0) {
        r->path_str = mpcr_str_add(s, path, (uint32_t)plen);
        r->path_len = (uint32_t)plen;
    }
    int deleted = ends_with(path, plen, " (deleted)");
    if (shared && (!memcmp(path, "/dev/zero", 9) || !memcmp(path, "/memfd:", 7) || !memcmp(path, "/SYSV", 5))) {
        r->kind = MPCR_R_ANON_SHARED;
        return 1;
    }
    char cpath[4096];
    if (path[0] == '/' && !deleted && plen < sizeof cpath) {
        memcpy(cpath, path, plen);
        cpath[plen] = 0;
        int rc = identify_file(s, cpath, dmaj, dmin, ino, shared, r);
        if (rc <= 0) return rc < 0 ? rc : 1;
    }
    if (shared) return mpcr_fail(-ENOTSUP, "shared mapping of %.*s (deleted or replaced) is not supported", (int)plen, path);
    r->kind = MPCR_R_ANON; /* a deleted or replaced file: keep every page's contents */
    r->flags |= 0x100;     /* internal: read all pages, not only present ones */
    return 1;
}

/* Emits one extent header (and, for data, its pages). */
static int put_extent(struct mpcr_scratch *s, uint64_t page, uint32_t count, int zero, const void *data)
{
    struct mpcr_img_extent e = {page, count, (uint32_t)zero};
    int rc = mpcr_w_put(s, &e, sizeof e);
    if (!rc && !zero) rc = mpcr_w_put(s, data, (size_t)count * MPCR_PAGE);
    return rc;
}

static int is_zero_page(const unsigned char *p)
{
    const uint64_t *q = (const uint64_t *)p;
    for (size_t i = 0; i < MPCR_PAGE / 8; i += 4)
        if (q[i] | q[i + 1] | q[i + 2] | q[i + 3]) return 0;
    return 1;
}

/* Whether a page with pagemap entry e is stored: present or swapped; of a
 * private file mapping only pages copied on write (not file-backed). */
static int page_wanted(const struct mpcr_img_region *r, uint64_t e)
{
    if (r->kind == MPCR_R_FILE_SHARED) return 0;
    return (e & PM_SWAPPED) || ((e & PM_PRESENT) && (r->kind != MPCR_R_FILE_PRIVATE || !(e & PM_FILE)));
}

/* Writes pages [first, first+n) of region r, all wanted, as extents. */
static int dump_run(struct mpcr_scratch *s, int memfd, const struct mpcr_img_region *r, uint64_t first, uint64_t n,
                    uint64_t *zero_start, uint64_t *zero_count)
{
    const uint64_t chunk = sizeof s->io / MPCR_PAGE;
    for (uint64_t done = 0; done < n;) {
        uint64_t k = n - done < chunk ? n - done : chunk;
        uint64_t page = first + done;
        ssize_t got = pread(memfd, s->io, k * MPCR_PAGE, (off_t)(r->start + page * MPCR_PAGE));
        if (got < 0) got = 0; /* past the end of a deleted file: what remains reads as zero */
        if ((uint64_t)got < k * MPCR_PAGE) memset(s->io + got, 0, k * MPCR_PAGE - (uint64_t)got);
        uint64_t i = 0;
        while (i < k) {
            if (is_zero_page(s->io + i * MPCR_PAGE)) {
                if (*zero_count && *zero_start + *zero_count != page + i) {
                    int rc = put_extent(s, *zero_start, (uint32_t)*zero_count, 1, 0);
                    if (rc) return rc;
                    *zero_count = 0;
                }
                if (!*zero_count) *zero_start = page + i;
                ++*zero_count;
                i++;
                continue;
            }
            if (*zero_count) {
                int rc = put_extent(s, *zero_start, (uint32_t)*zero_count, 1, 0);
                if (rc) return rc;
                *zero_count = 0;
            }
            uint64_t j = i + 1;
            while (j < k && !is_zero_page(s->io + j * MPCR_PAGE)) j++;
            int rc = put_extent(s, page + i, (uint32_t)(j - i), 0, s->io + i * MPCR_PAGE);
            if (rc) return rc;
            i = j;
        }
        done += k;
    }
    return 0;
}

static int end_stream(struct mpcr_scratch *s, struct mpcr_img_region *r, uint64_t zero_start, uint64_t zero_count)
{
    int rc = 0;
    if (zero_count) rc = put_extent(s, zero_start, (uint32_t)zero_count, 1, 0);
    if (rc) return rc;
    struct mpcr_img_extent end = {~0ull, 0, 0};
    if ((rc = mpcr_w_put(s, &end, sizeof end))) return rc;
    r->data_len = s->off - r->data_off;
    r->data_crc = s->crc;
    return 0;
}

/* Region i as the incremental plan says (incr.c): its stored runs read
 * now, from this copy of the memory, the others referred to the
 * generation that holds them. */
static int dump_planned(struct mpcr_scratch *s, int memfd, uint32_t i)
{
    struct mpcr_img_region *r = &s->regions[i];
    r->data_off = s->off;
    s->crc = 0;
    uint64_t zero_start = 0, zero_count = 0;
    for (uint32_t j = s->run_first[i]; j < s->run_first[i + 1]; j++) {
        const struct mpcr_run *run = &s->runs[j];
        int rc;
        if (run->kind == MPCR_EXT_DATA) {
            rc = dump_run(s, memfd, r, run->page, run->count, &zero_start, &zero_count);
        } else {
            rc = zero_count ? put_extent(s, zero_start, (uint32_t)zero_count, 1, 0) : 0;
            zero_count = 0;
            if (!rc) {
                struct mpcr_img_extent e = {run->page, run->count, run->kind};
                rc = mpcr_w_put(s, &e, sizeof e);
            }
        }
        if (rc) return rc;
    }
    return end_stream(s, r, zero_start, zero_count);
}

static int dump_region(struct mpcr_scratch *s, int memfd, int pmfd, struct mpcr_img_region *r)
{
    uint64_t npages = (r->end - r->start) / MPCR_PAGE;
    int all = (r->flags & 0x100) != 0;
    r->flags &= ~0x100u;
    r->data_off = s->off;
    s->crc = 0;
    uint64_t zero_start = 0, zero_count = 0;
    const uint64_t batch = sizeof s->pagemap / sizeof s->pagemap[0];
    for (uint64_t base = 0; base < npages; base += batch) {
        uint64_t k = npages - base < batch ? npages - base : batch;
        if (r->kind == MPCR_R_ANON_SHARED) {
            /* Another process (the MPI proxy) may have written pages this one
             * never touched: they are in the shared memory object but not in
             * our page tables, so pagemap misses them. mincore asks the
             * object itself. The byte vector is widened in place, last first. */
            unsigned char *vec = (unsigned char *)s->pagemap;
            if (mincore((void *)(r->start + base * MPCR_PAGE), k * MPCR_PAGE, vec))
                return mpcr_fail(-errno, "mincore on shared memory: %s", mpcr_strerror(errno));
            for (uint64_t i = k; i-- > 0;)
                s->pagemap[i] = (vec[i] & 1) ? PM_PRESENT : 0;
        } else if (!all) {
            off_t at = (off_t)((r->start / MPCR_PAGE + base) * 8);
            if (pread(pmfd, s->pagemap, k * 8, at) != (ssize_t)(k * 8))
                return mpcr_fail(-EIO, "reading /proc/self/pagemap: %s", mpcr_strerror(errno));
        }
        uint64_t i = 0;
        while (i < k) {
            if (!page_wanted(r, all ? PM_PRESENT : s->pagemap[i])) {
                i++;
                continue;
            }
            uint64_t j = i + 1;
            while (j < k && page_wanted(r, all ? PM_PRESENT : s->pagemap[j])) j++;
            int rc = dump_run(s, memfd, r, base + i, j - i, &zero_start, &zero_count);
            if (rc) return rc;
            i = j;
        }
    }
    return end_stream(s, r, zero_start, zero_count);
}

int mpcr_mem_plan(struct mpcr_scratch *s)
{
    s->nregions = 0;
    for (const char *line = s->maps; *line;) {
        const char *nl = memchr(line, '\n', s->maps_len - (size_t)(line - s->maps));
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (s->nregions == MPCR_MAX_REGIONS) return mpcr_fail(-E2BIG, "more than %d memory regions", MPCR_MAX_REGIONS);
        struct mpcr_img_region *r = &s->regions[s->nregions];
        int rc = classify(s, line, len, r);
        if (rc < 0) return rc;
        line += len + (nl ? 1 : 0);
        if (!rc) continue;
        /* Cut excluded ranges out; the kernel may have merged one with a neighbour. */
        struct mpcr_img_region whole = *r;
        uintptr_t cur = whole.start, xs = 0, xe = 0;
        while (cur < whole.end) {
            uintptr_t piece_end = whole.end;
            int ex = next_excluded(s, cur, whole.end, &xs, &xe);
            if (ex && xs <= cur) {
                cur = xe;
                continue;
            }
            if (ex) piece_end = xs;
            if (s->nregions == MPCR_MAX_REGIONS) return mpcr_fail(-E2BIG, "more than %d memory regions", MPCR_MAX_REGIONS);
            r = &s->regions[s->nregions++];
            *r = whole;
            r->start = cur;
            r->end = piece_end;
            if (whole.kind == MPCR_R_FILE_PRIVATE || whole.kind == MPCR_R_FILE_SHARED) r->file_off += cur - whole.start;
            cur = piece_end;
        }
    }
    return 0;
}

/* Shared memory would go on changing under a forked copy (the MPI proxy
 * writes the channel): its pages are copied now into private memory, which
 * the copy puts in its place (mpcr_mem_use_snapshots). */
#define SNAPSHOT_MAX (256ul << 20)
static struct {
    void *copy;
    uintptr_t start;
    size_t len;
} snap[64];
static int nsnap;

/* The cap counts the pages the shared objects hold, which is what the
 * copies cost, not the mappings' lengths: a staging area mapped at 256 MiB
 * that holds 128 MiB of messages is copied. */
static int snapshot_shared(struct mpcr_scratch *s)
{
    size_t held = 0;
    nsnap = 0;
    for (uint32_t i = 0; i < s->nregions; i++) {
        const struct mpcr_img_region *r = &s->regions[i];
        if (r->kind != MPCR_R_ANON_SHARED) continue;
        size_t len = r->end - r->start;
        if (nsnap == 64) return 0;
        void *copy = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (copy == MAP_FAILED) return 0;
        snap[nsnap].copy = copy, snap[nsnap].start = r->start, snap[nsnap++].len = len;
        /* Only the pages the shared object holds, so that the copy stores what an image written in place would. */
        unsigned char *vec = s->io;
        for (size_t base = 0; base < len / MPCR_PAGE;) {
            size_t k = len / MPCR_PAGE - base < sizeof s->io ? len / MPCR_PAGE - base : sizeof s->io;
            int readable = (r->prot & PROT_READ) != 0;
            if (!readable || mincore((void *)(r->start + base * MPCR_PAGE), k * MPCR_PAGE, vec)) return 0;
            for (size_t j = 0; j < k; j++) {
                if (!(vec[j] & 1)) continue;
                if ((held += MPCR_PAGE) > SNAPSHOT_MAX) return 0;
                memcpy((char *)copy + (base + j) * MPCR_PAGE, (const char *)r->start + (base + j) * MPCR_PAGE, MPCR_PAGE);
            }
            base += k;
        }
    }
    return 1;
}

void mpcr_mem_drop_snapshots(void)
{
    for (int i = 0; i < nsnap; i++) munmap(snap[i].copy, snap[i].len);
    nsnap = 0;
}

int mpcr_mem_use_snapshots(void)
{
    for (int i = 0; i < nsnap; i++)
        /* the system call itself: the forked copy must not run a program's (or a library's) mremap */
        if ((void *)syscall(SYS_mremap, snap[i].copy, snap[i].len, snap[i].len, MREMAP_MAYMOVE | MREMAP_FIXED,
                            (void *)snap[i].start) == MAP_FAILED)
            return mpcr_fail(-errno, "putting the copy of shared memory at %#lx: %s", (unsigned long)snap[i].start,
                             mpcr_strerror(errno));
    nsnap = 0;
    return 0;
}

/* Whether a forked copy of this process can see its memory as it is now:
 * shared memory is copied first (above; up to SNAPSHOT_MAX), and the
 * kernel must not leave memory out of a child or wipe it there
 * (MADV_DONTFORK, MADV_WIPEONFORK: flags dc and wf in smaps). */
int mpcr_mem_forkable(struct mpcr_scratch *s)
{
    int fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    int ok = 1;
    size_t have = 0;
    char *buf = (char *)s->io;
    for (;;) {
        ssize_t n = read(fd, buf + have, sizeof s->io - 1 - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
        buf[have] = 0;
        char *line = buf, *nl;
        while ((nl = strchr(line, '\n'))) {
            *nl = 0;
            if (!strncmp(line, "VmFlags:", 8) && (strstr(line, " dc") || strstr(line, " wf"))) ok = 0;
            line = nl + 1;
        }
        have = strlen(line);
        memmove(buf, line, have);
    }
    close(fd);
    if (ok && !snapshot_shared(s)) mpcr_mem_drop_snapshots(), ok = 0;
    return ok;
}

int mpcr_mem_dump(struct mpcr_scratch *s)
{
    int memfd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    int pmfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    int rc = 0;
    if (memfd < 0 || pmfd < 0) rc = mpcr_fail(-errno, "opening /proc/self/mem or pagemap: %s", mpcr_strerror(errno));
    for (uint32_t i = 0; !rc && i < s->nregions; i++)
        rc = s->planned && s->tracked[i] ? dump_planned(s, memfd, i) : dump_region(s, memfd, pmfd, &s->regions[i]);
    if (memfd >= 0) close(memfd);
    if (pmfd >= 0) close(pmfd);
    return rc;
}
