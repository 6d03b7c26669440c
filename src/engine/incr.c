/* Incremental images (docs/incremental.md): which pages changed since the
 * previous checkpoint, and which earlier generation holds each page that
 * did not.
 *
 * Changes are found with userfaultfd write-protection in asynchronous mode
 * (UFFD_FEATURE_WP_ASYNC, no fault handler: a write just clears the page's
 * protection) read and reset by PAGEMAP_SCAN on /proc/self/pagemap (Linux
 * 6.7+), without privilege (UFFD_USER_MODE_ONLY). PAGEMAP_SCAN with
 * PM_SCAN_WP_MATCHING reports each page as written or not and protects it
 * again in one step, per page, while every thread is stopped and before
 * the writer is forked: a write made after that step is seen by the next
 * checkpoint, so no change made while the forked writer writes is lost.
 * Soft-dirty bits (/proc/self/clear_refs) would be the other way; this
 * kernel is built without CONFIG_MEM_SOFT_DIRTY, and they lose the mark on
 * MADV_DONTNEED and mremap (docs/incremental.md).
 *
 * A page is referred to an earlier generation only when all of these hold:
 * its mapping was registered before this scan (PAGE_IS_WPALLOWED), it was
 * not written (no PAGE_IS_WRITTEN), it is present or swapped and not the
 * shared zero page, and the holder map (below) says which generation of the
 * chain stored it at this same address. Anything else is stored. A mapping
 * that is new, moved (mremap drops the registration), or could not be
 * registered therefore has all its pages stored.
 *
 * The holder map is one mapping of the process, cut out of every image,
 * with a byte per page of every tracked region: 0 (not stored), or the
 * 1-based position in the chain of the generation whose image holds it. It
 * describes the chain only once that generation's image was written; a
 * forked writer's failure is found at the next checkpoint, which checks
 * that every generation of the chain is complete (its manifest) and
 * otherwise writes a full image. After a restart nothing of this exists
 * (the mapping and the descriptor were never saved): the first checkpoint
 * is full. */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fmt.h"
#include "internal.h"
#include "mpcr/engine.h"

/* Linux 6.7's PAGEMAP_SCAN (the build host's headers may predate it);
 * its struct page_region is struct mpcr_scan_entry (internal.h). */
struct mpcr_pm_scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PM_SCAN_IOCTL _IOWR('f', 16, struct mpcr_pm_scan_arg)
#define PM_SCAN_WP_MATCHING 1ull
#define CAT_WPALLOWED (1ull << 0)
#define CAT_WRITTEN (1ull << 1)
#define CAT_FILE (1ull << 2)
#define CAT_PRESENT (1ull << 3)
#define CAT_SWAPPED (1ull << 4)
#define CAT_PFNZERO (1ull << 5)
#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#define FEATURE_WP_ASYNC (1ull << 15)

struct hold_range {
    uint64_t start, end, off; /* bytes[off ...] for the pages of [start, end) */
};
struct hold {
    size_t map_len;
    uint32_t nranges;
    uint32_t pad;
    struct hold_range r[]; /* then the bytes */
};

static int full_every = 8;       /* MPCR_FULL_EVERY */
static int probed, tracking;     /* tracking: 1 usable, 0 not (MPCR_FULL_NO_TRACKING) */
static int uffd = -1;            /* kept open (its registrations live with it), left out of images */
static uint64_t uffd_dev, uffd_ino; /* to tell it from a descriptor the program opened in its place */
static int pmfd = -1;            /* /proc/self/pagemap, open during one checkpoint only */
static struct hold *hold;        /* NULL: no chain to continue */
static uint32_t chain_len;
static uint64_t chain[MPCR_MAX_CHAIN];

void mpcr_incr_init(int every)
{
    if (every < 1) every = 1;
    if (every > MPCR_MAX_CHAIN) every = MPCR_MAX_CHAIN;
    full_every = every;
}

void mpcr_incr_area(uintptr_t *start, uintptr_t *end)
{
    *start = (uintptr_t)hold;
    *end = hold ? (uintptr_t)hold + hold->map_len : 0;
}

static void drop_hold(void)
{
    if (hold) munmap(hold, hold->map_len);
    hold = NULL;
    chain_len = 0;
}

void mpcr_incr_forget(void)
{
    /* A restored process: the map and the descriptor were cut out of the
     * image, so neither is there; the number may be the program's now. */
    if (uffd >= 0) mpcr_engine_include_fd(uffd);
    hold = NULL;
    chain_len = 0;
    uffd = -1;
    probed = 0;
}

void mpcr_incr_check(void)
{
    struct stat st;
    if (uffd < 0 || (!fstat(uffd, &st) && st.st_dev == uffd_dev && st.st_ino == uffd_ino)) return;
    /* The program closed it (closefrom, a daemon's clean-up), maybe opened
     * a file of its own under its number, which must not be left out of
     * the image: the registrations are gone with it, and so is the chain. */
    mpcr_engine_include_fd(uffd);
    uffd = -1;
    probed = 0;
    drop_hold();
}

/* Opens userfaultfd with asynchronous write-protection and the pagemap,
 * once; both are the engine's own (never in an image). */
static int probe(void)
{
    if (probed) return tracking;
    probed = 1;
    tracking = 0;
    long fd = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
    if (fd < 0) return 0;
    struct uffdio_api api = {.api = UFFD_API, .features = FEATURE_WP_ASYNC};
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    uint64_t here = (uint64_t)&api & ~(MPCR_PAGE - 1); /* a page of this stack: the scan wants page bounds */
    struct mpcr_pm_scan_arg arg = {.size = sizeof arg, .start = here, .end = here + MPCR_PAGE};
    struct stat st;
    int ok = !syscall(SYS_ioctl, (int)fd, UFFDIO_API, &api) && pm >= 0 &&
             syscall(SYS_ioctl, pm, PM_SCAN_IOCTL, &arg) >= 0 && !fstat((int)fd, &st) &&
             !mpcr_engine_exclude_fd((int)fd);
    if (pm >= 0) close(pm);
    if (!ok) {
        close((int)fd);
        return 0;
    }
    uffd = (int)fd, uffd_dev = st.st_dev, uffd_ino = st.st_ino;
    return tracking = 1;
}

/* Every generation of the chain is complete: its manifest and this rank's
 * image are there (a forked writer that failed left neither). */
static int chain_intact(const char *dir, unsigned rank)
{
    for (uint32_t i = 0; i < chain_len; i++) {
        char path[4200];
        struct stat st;
        mpcr_fmt(path, sizeof path, "%s/gen-%llu/manifest", dir, (unsigned long long)chain[i]);
        if (stat(path, &st)) return 0;
        mpcr_fmt(path, sizeof path, "%s/gen-%llu/rank-%u.img", dir, (unsigned long long)chain[i], rank);
        if (stat(path, &st)) return 0;
    }
    return 1;
}

static int trackable(const struct mpcr_img_region *r)
{
    return (r->kind == MPCR_R_ANON || r->kind == MPCR_R_FILE_PRIVATE) && !(r->flags & 0x100);
}

/* Adds pages [page, page+n) of the current region as a run of `kind`,
 * joined to the last run where they continue it. */
static int add_run(struct mpcr_scratch *s, uint64_t page, uint64_t n, uint32_t kind)
{
    struct mpcr_run *last = s->nruns > s->run_first[s->cur_region] ? &s->runs[s->nruns - 1] : NULL;
    /* A restart needs the runs in order and apart; a scan that went back
     * costs this image its increment, never its correctness. */
    if (last && page < last->page + last->count)
        return mpcr_fail(-EPROTO, "the page scan went back to page %llu of a region (after %llu)",
                         (unsigned long long)page, (unsigned long long)(last->page + last->count));
    if (last && last->kind == kind && last->page + last->count == page && last->count + n < (1u << 31)) {
        last->count += (uint32_t)n;
        return 0;
    }
    while (n) {
        if (s->nruns == s->runs_cap) return mpcr_fail(-E2BIG, "more than %zu page runs in one checkpoint", s->runs_cap);
        uint64_t k = n < (1u << 30) ? n : (1u << 30);
        s->runs[s->nruns++] = (struct mpcr_run){page, (uint32_t)k, kind};
        page += k, n -= k;
    }
    return 0;
}

/* The holder of the page at addr in the previous chain (1-based), or 0;
 * *cursor walks the ranges forward as addresses grow. */
static unsigned holder(uint64_t addr, uint32_t *cursor)
{
    if (!hold) return 0;
    const unsigned char *bytes = (const unsigned char *)&hold->r[hold->nranges];
    while (*cursor < hold->nranges && hold->r[*cursor].end <= addr) ++*cursor;
    if (*cursor == hold->nranges || hold->r[*cursor].start > addr) return 0;
    const struct hold_range *h = &hold->r[*cursor];
    return bytes[h->off + (addr - h->start) / MPCR_PAGE];
}

/* Scans region i: registers it for write-protection (a new mapping, or one
 * moved), reads which pages are there and written, protects them again, and
 * adds its runs. */
static int scan_region(struct mpcr_scratch *s, uint32_t i, int incremental, uint32_t *cursor)
{
    struct mpcr_img_region *r = &s->regions[i];
    struct uffdio_register reg = {.range = {r->start, r->end - r->start}, .mode = UFFDIO_REGISTER_MODE_WP};
    int registered = syscall(SYS_ioctl, uffd, UFFDIO_REGISTER, &reg) == 0;
    uint64_t at = r->start;
    while (at < r->end) {
        struct mpcr_pm_scan_arg arg = {
            .size = sizeof arg, .flags = registered ? PM_SCAN_WP_MATCHING : 0, .start = at, .end = r->end,
            .vec = (uint64_t)s->scan, .vec_len = sizeof s->scan / sizeof s->scan[0],
            .category_anyof_mask = CAT_PRESENT | CAT_SWAPPED,
            .return_mask = CAT_WPALLOWED | CAT_WRITTEN | CAT_FILE | CAT_PRESENT | CAT_SWAPPED | CAT_PFNZERO,
        };
        long n = syscall(SYS_ioctl, pmfd, PM_SCAN_IOCTL, &arg);
        if (n < 0) return mpcr_fail(-errno, "PAGEMAP_SCAN of %#lx-%#lx: %s", (unsigned long)at,
                                    (unsigned long)r->end, mpcr_strerror(errno));
        for (long k = 0; k < n; k++) {
            const struct mpcr_scan_entry *v = &s->scan[k];
            uint64_t c = v->categories;
            int wanted = (c & CAT_SWAPPED) || ((c & CAT_PRESENT) && (r->kind != MPCR_R_FILE_PRIVATE || !(c & CAT_FILE)));
            if (!wanted) continue;
            int changed = !incremental || !registered || !(c & CAT_WPALLOWED) || (c & CAT_WRITTEN) || (c & CAT_PFNZERO);
            for (uint64_t a = v->start; a < v->end;) {
                unsigned h = changed ? 0 : holder(a, cursor);
                uint64_t b = a + MPCR_PAGE;
                while (b < v->end && (changed || holder(b, cursor) == h)) b += MPCR_PAGE;
                int rc = add_run(s, (a - r->start) / MPCR_PAGE, (b - a) / MPCR_PAGE,
                                 h ? MPCR_EXT_REF | (h - 1) << 8 : MPCR_EXT_DATA);
                if (rc) return rc;
                a = b;
            }
        }
        if (n < (long)arg.vec_len) break; /* the walk reached r->end */
        /* The vector is full: go on after its last entry, not from walk_end.
         * When the walk ends just as the vector fills, Linux (6.7 to 6.18 at
         * least) leaves walk_end where its last internal pass began, and the
         * pages from there were reported and protected already: scanned
         * again they would look unwritten and be referred to the chain over
         * the data just planned (engine.incr once refused such an image).
         * The scan protects only pages it reports, so whatever lies between
         * the last entry and the true walk_end is read again unchanged. */
        at = s->scan[n - 1].end;
    }
    return 0;
}

int mpcr_incr_plan(struct mpcr_scratch *s, uint64_t gen, const char *dir, unsigned rank)
{
    struct mpcr_img_header *h = &s->hdr;
    h->track = MPCR_TRACK_NONE;
    h->chain_len = 0;
    s->planned = 0;
    if (!gen || !dir || !dir[0] || full_every <= 1) {
        h->why_full = MPCR_FULL_OFF;
        return 0;
    }
    if (!probe()) {
        h->why_full = MPCR_FULL_NO_TRACKING;
        return 0;
    }
    s->incr_touched = 1;
    int incremental = hold && chain_len > 0;
    h->why_full = !incremental ? MPCR_FULL_FIRST : MPCR_FULL_INCREMENT;
    if (incremental && chain_len >= (uint32_t)full_every) incremental = 0, h->why_full = MPCR_FULL_EVERY;
    if (incremental && !chain_intact(dir, rank)) incremental = 0, h->why_full = MPCR_FULL_BASE_GONE;
    /* The runs: at most one per page of the tracked regions, plus one per region. */
    uint64_t pages = 0;
    for (uint32_t i = 0; i < s->nregions; i++)
        if (trackable(&s->regions[i])) pages += (s->regions[i].end - s->regions[i].start) / MPCR_PAGE + 1;
    s->runs_cap = pages;
    s->runs_len = (pages * sizeof(struct mpcr_run) + MPCR_PAGE - 1) & ~(MPCR_PAGE - 1);
    s->runs = s->runs_len ? mmap(NULL, s->runs_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                                 -1, 0)
                          : NULL;
    if (s->runs == MAP_FAILED) {
        s->runs = NULL;
        drop_hold();
        h->why_full = MPCR_FULL_NO_TRACKING;
        return 0;
    }
    s->nruns = 0;
    uint32_t cursor = 0;
    pmfd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC); /* after the descriptors were listed: not in the image */
    for (uint32_t i = 0; i < s->nregions; i++) {
        s->cur_region = i;
        s->run_first[i] = s->nruns;
        s->tracked[i] = trackable(&s->regions[i]);
        if (s->tracked[i] && (pmfd < 0 || scan_region(s, i, incremental, &cursor))) {
            int pmfd_failed = pmfd < 0;
            if (pmfd >= 0) close(pmfd);
            pmfd = -1;
            /* Some pages may be protected again already: the chain cannot go
             * on. This image is written whole, as without tracking. */
            mpcr_incr_done(s, 0);
            s->incr_touched = 0;
            h->why_full = pmfd_failed ? MPCR_FULL_NO_TRACKING : MPCR_FULL_SCAN_FAILED;
            return 0;
        }
    }
    s->run_first[s->nregions] = s->nruns;
    close(pmfd);
    pmfd = -1;
    s->planned = 1;
    h->track = MPCR_TRACK_UFFD_WP;
    if (incremental) {
        h->chain_len = chain_len;
        memcpy(h->chain, chain, sizeof chain[0] * chain_len);
    }
    s->gen = gen;
    return 0;
}

/* The process, once its image is written (ok) or given to a forked writer
 * (ok: checked at the next checkpoint), or failed: the holder map now
 * describes the new chain, or there is none. */
void mpcr_incr_done(struct mpcr_scratch *s, int ok)
{
    if (!s->incr_touched) return; /* not tracked, or an API image: the chain goes on unchanged */
    if (!ok || !s->planned) {
        drop_hold();
        goto out;
    }
    uint32_t nchain = s->hdr.chain_len;
    uint64_t newchain[MPCR_MAX_CHAIN];
    memcpy(newchain, s->hdr.chain, sizeof newchain[0] * nchain);
    newchain[nchain++] = s->gen;
    uint32_t nranges = 0;
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < s->nregions; i++)
        if (s->tracked[i]) nranges++, bytes += (s->regions[i].end - s->regions[i].start) / MPCR_PAGE;
    size_t len = sizeof(struct hold) + sizeof(struct hold_range) * nranges + bytes;
    len = (len + MPCR_PAGE - 1) & ~(MPCR_PAGE - 1);
    struct hold *nh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (nh == MAP_FAILED) {
        drop_hold();
        goto out;
    }
    nh->map_len = len;
    nh->nranges = nranges;
    unsigned char *b = (unsigned char *)&nh->r[nranges];
    uint64_t off = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nregions; i++) {
        if (!s->tracked[i]) continue;
        const struct mpcr_img_region *r = &s->regions[i];
        nh->r[k++] = (struct hold_range){r->start, r->end, off};
        for (uint32_t j = s->run_first[i]; j < s->run_first[i + 1]; j++) {
            const struct mpcr_run *run = &s->runs[j];
            unsigned v = MPCR_EXT_KIND(run->kind) == MPCR_EXT_REF ? MPCR_EXT_INDEX(run->kind) + 1 : nchain;
            memset(b + off + run->page, (int)v, run->count);
        }
        off += (r->end - r->start) / MPCR_PAGE;
    }
    drop_hold();
    hold = nh;
    chain_len = nchain;
    memcpy(chain, newchain, sizeof chain[0] * nchain);
out:
    if (s->runs) munmap(s->runs, s->runs_len);
    s->runs = NULL;
}
