/* Reads a region's data stream (docs/image-format.md) in one pass: every
 * byte is checksummed right after it is read, while it is still in the
 * cache, and when the region is being placed its pages go to their
 * addresses in the same pass. Reading the image once, not once to verify
 * and again to fill, is what keeps a restart near the speed of reading the
 * file (docs/engine.md, "Measured").
 *
 * Pages go into anonymous memory with userfaultfd's UFFDIO_COPY where the
 * kernel allows it: the kernel then allocates each page and copies into it,
 * instead of taking a page fault, zeroing the page and copying over it.
 * Without userfaultfd (older kernels, seccomp filters), or for other kinds
 * of memory, a plain copy.
 *
 * Putting pages in place costs more than reading and checksumming them (the
 * kernel allocates and charges every page), so where the restorer may use
 * two CPUs a helper thread shares that work: the main thread reads and
 * checksums chunks, in order, into a ring of buffers, and both threads take
 * the oldest filled buffer and put it in place. */
#include <linux/fcntl.h>
#include <linux/futex.h>
#include <linux/ioctl.h> /* before userfaultfd.h, which uses _IOWR */
#include <linux/sched.h>
#include <linux/userfaultfd.h>

#include "crc32c.h"
#include "restore.h"

#define CHUNK (256ul << 10) /* bytes handed on at a time: stays in L2 */
#define BUF_CAP (CHUNK + MPCR_PAGE)
#define SLOTS 8             /* chunks read ahead of the copies */
#define OWN_JOB_MIN (64ul << 10) /* a piece this large is a job of its own; smaller ones are gathered */
#define EAGAIN 11

struct reader {
    int fd;
    unsigned char *buf;
    uint64_t head, tail; /* unconsumed bytes are buf[head, tail) */
    uint64_t off, end;   /* next file offset to read; end of the stream */
    uint32_t crc;        /* of the bytes consumed so far */
};

static int uffd = -2; /* -2: not tried yet, -1: not available */
int mpcr_restore_simple;

/* The ring shared with the helper thread. Job k uses slot k % SLOTS; the
 * main thread publishes it by raising `produced`, either thread claims the
 * oldest unclaimed one by raising `claimed`, and `done` marks it finished.
 * A job is one large piece, or many small ones (scattered pages) gathered
 * into one buffer. */
#define PIECES (CHUNK / MPCR_PAGE)
struct job {
    struct { uint64_t dst, len; } piece[PIECES]; /* their bytes follow each other in buf */
    uint32_t npieces;
    uint64_t used;                                 /* bytes of buf */
    int use_uffd;
    uint32_t done;
    unsigned char *buf;
};
static struct {
    struct job job[SLOTS];
    uint32_t produced, claimed;
    uint32_t news;       /* futex word: raised at each new job and at the end */
    uint32_t quit;
    uint32_t helper_tid; /* cleared by the kernel when the helper has exited */
    int helper;          /* running */
    int tried;           /* start_helper ran (once per restore) */
    struct job *open;    /* gathering small pieces, not published yet */
} ring;

static void futex_wait(uint32_t *word, uint32_t value) { sc(futex, word, FUTEX_WAIT_PRIVATE, value, 0, 0, 0); }
static void futex_wake(uint32_t *word) { sc(futex, word, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0); }

static void put_pages(int use_uffd, uint64_t at, const unsigned char *src, uint64_t bytes)
{
    if (!use_uffd) {
        memcpy((void *)at, src, bytes);
        return;
    }
    while (bytes) {
        struct uffdio_copy c = {.dst = at, .src = (uint64_t)src, .len = bytes};
        long e = sc(ioctl, uffd, UFFDIO_COPY, &c);
        if (c.copy > 0) at += (uint64_t)c.copy, src += c.copy, bytes -= (uint64_t)c.copy;
        else if (e < 0 && e != -EAGAIN)
            die(127, "UFFDIO_COPY to ", hex(at), " failed: ", errword(e), (char *)0);
    }
}

/* Claims and runs the oldest published job; 0 when there is none. */
static int run_one(void)
{
    uint32_t c = __atomic_load_n(&ring.claimed, __ATOMIC_RELAXED);
    while (c < __atomic_load_n(&ring.produced, __ATOMIC_ACQUIRE))
        if (__atomic_compare_exchange_n(&ring.claimed, &c, c + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            struct job *j = &ring.job[c % SLOTS];
            const unsigned char *src = j->buf;
            for (uint32_t i = 0; i < j->npieces; src += j->piece[i].len, i++)
                put_pages(j->use_uffd, j->piece[i].dst, src, j->piece[i].len);
            __atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
            return 1;
        }
    return 0;
}

/* Waits until job k is finished, helping with the others meanwhile. */
static void finish_job(uint32_t k)
{
    while (!__atomic_load_n(&ring.job[k % SLOTS].done, __ATOMIC_ACQUIRE))
        if (!run_one()) __builtin_ia32_pause(); /* the helper is on it: a copy takes microseconds */
}

static void publish(void)
{
    if (!ring.open) return;
    ring.open = 0;
    __atomic_store_n(&ring.produced, ring.produced + 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&ring.news, 1, __ATOMIC_RELEASE);
    futex_wake(&ring.news);
}

static void drain(void)
{
    publish();
    for (uint32_t k = ring.produced >= SLOTS ? ring.produced - SLOTS : 0; k < ring.produced; k++) finish_job(k);
}

static void helper_main(void)
{
    for (;;) {
        uint32_t seen = __atomic_load_n(&ring.news, __ATOMIC_ACQUIRE);
        if (run_one()) continue;
        if (__atomic_load_n(&ring.quit, __ATOMIC_ACQUIRE)) return;
        futex_wait(&ring.news, seen);
    }
}

static void start_helper(void)
{
    ring.tried = 1;
    if (mpcr_restore_simple) return;
    uint64_t cpus[16] = {0};
    long n = sc(sched_getaffinity, 0, sizeof cpus, cpus);
    int count = 0;
    for (long i = 0; i < n / 8; i++)
        for (uint64_t m = cpus[i]; m; m &= m - 1) count++; /* no libgcc: no __builtin_popcount */
    if (count < 2) return;
    for (int s = 0; s < SLOTS; s++) ring.job[s].buf = zalloc(CHUNK), ring.job[s].done = 1;
    char *stack = zalloc(64 << 10);
    const unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
                                CLONE_CHILD_CLEARTID;
    ring.helper_tid = 1;
    long tid = mpcr_clone_call(flags, stack + (64 << 10), &ring.helper_tid, helper_main);
    ring.helper = tid > 0;
    if (!ring.helper) ring.helper_tid = 0;
}

void mpcr_restore_stream_done(void)
{
    ring.tried = 1; /* no helper from now on */
    if (ring.helper) {
        __atomic_store_n(&ring.quit, 1, __ATOMIC_RELEASE);
        __atomic_add_fetch(&ring.news, 1, __ATOMIC_RELEASE);
        futex_wake(&ring.news);
        /* The kernel's wake-up at a thread's exit is a shared-futex one. */
        for (uint32_t t; (t = __atomic_load_n(&ring.helper_tid, __ATOMIC_ACQUIRE));)
            sc(futex, &ring.helper_tid, FUTEX_WAIT, t, 0, 0, 0);
        ring.helper = 0;
    }
    if (uffd >= 0) sc(close, uffd);
    uffd = -2;
}

static int uffd_open(void)
{
    if (uffd != -2) return uffd;
    uffd = -1;
    if (mpcr_restore_simple) return uffd;
    /* User-mode-only faults: allowed to unprivileged users (Linux 5.11+). */
    long fd = sc(userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
    if (fd < 0) return uffd;
    struct uffdio_api api = {.api = UFFD_API};
    if (sc(ioctl, fd, UFFDIO_API, &api) < 0) {
        sc(close, fd);
        return uffd;
    }
    return uffd = (int)fd;
}

static __attribute__((noreturn)) void ends_early(const struct mpcr_img_region *r)
{
    die(1, "the data of region ", hex(r->start), " ends early (corrupt image)", (char *)0);
}

static void read_at(struct reader *rd, unsigned char *to, uint64_t n, const struct mpcr_img_region *r)
{
    if (n > rd->end - rd->off) ends_early(r);
    while (n) {
        long got = sc(pread, rd->fd, to, n, rd->off);
        if (got <= 0) die(1, "the image is unreadable or truncated (reading region data)", (char *)0);
        to += got, n -= (uint64_t)got, rd->off += (uint64_t)got;
    }
}

/* Makes n (at most BUF_CAP) bytes of the stream available at buf + head. */
static const unsigned char *need(struct reader *rd, uint64_t n, const struct mpcr_img_region *r)
{
    if (rd->tail - rd->head >= n) return rd->buf + rd->head;
    memcpy(rd->buf, rd->buf + rd->head, rd->tail - rd->head);
    rd->tail -= rd->head;
    rd->head = 0;
    uint64_t more = BUF_CAP - rd->tail;
    if (more > rd->end - rd->off) more = rd->end - rd->off;
    if (rd->tail + more < n) ends_early(r);
    read_at(rd, rd->buf + rd->tail, more, r);
    rd->tail += more;
    return rd->buf;
}

static const unsigned char *take(struct reader *rd, uint64_t n, const struct mpcr_img_region *r)
{
    const unsigned char *p = need(rd, n, r);
    rd->crc = mpcr_crc32c(rd->crc, p, n);
    rd->head += n;
    return p;
}

/* The next n bytes of the stream into `to`: what is buffered, then the rest
 * straight from the file. */
static void take_into(struct reader *rd, unsigned char *to, uint64_t n, const struct mpcr_img_region *r)
{
    uint64_t have = rd->tail - rd->head < n ? rd->tail - rd->head : n;
    memcpy(to, rd->buf + rd->head, have);
    rd->head += have;
    read_at(rd, to + have, n - have, r);
    rd->crc = mpcr_crc32c(rd->crc, to, n);
}

/* Puts n bytes (at most CHUNK) of the stream at `at`, through the ring when
 * there is a helper: a large piece as a job of its own, small ones gathered. */
static void place(struct reader *rd, int use_uffd, uint64_t at, uint64_t n, const struct mpcr_img_region *r)
{
    if (!ring.tried) start_helper();
    if (!ring.helper) {
        put_pages(use_uffd, at, take(rd, n, r), n);
        return;
    }
    struct job *j = ring.open;
    if (!j || n >= OWN_JOB_MIN || j->used + n > CHUNK || j->npieces == PIECES) {
        publish();
        uint32_t k = ring.produced;
        if (k >= SLOTS) finish_job(k - SLOTS);
        j = ring.open = &ring.job[k % SLOTS];
        j->npieces = 0, j->used = 0, j->use_uffd = use_uffd, j->done = 0;
    }
    take_into(rd, j->buf + j->used, n, r);
    j->piece[j->npieces].dst = at, j->piece[j->npieces++].len = n;
    j->used += n;
    if (n >= OWN_JOB_MIN) publish();
}

int mpcr_restore_uffd_register(uint64_t start, uint64_t len)
{
    if (uffd_open() < 0) return 0;
    struct uffdio_register reg = {.range = {.start = start, .len = len}, .mode = UFFDIO_REGISTER_MODE_MISSING};
    return sc(ioctl, uffd, UFFDIO_REGISTER, &reg) == 0;
}

void mpcr_restore_uffd_unregister(uint64_t start, uint64_t len)
{
    drain();
    struct uffdio_range range = {.start = start, .len = len};
    if (uffd >= 0) sc(ioctl, uffd, UFFDIO_UNREGISTER, &range);
}

static struct reader open_stream(int img, const struct mpcr_img_region *r)
{
    static unsigned char *buf;
    if (!buf) {
        buf = zalloc(BUF_CAP);
        mpcr_crc32c_init();
    }
    return (struct reader){.fd = img, .buf = buf, .off = r->data_off, .end = r->data_off + r->data_len};
}

/* An extent within its region, after the one before it (*next: the page
 * where that one ended): one that went back would put older pages over
 * newer ones, or a ref over data, without a word. */
static void check_extent(const struct mpcr_img_extent *e, const struct mpcr_img_region *r, uint64_t *next)
{
    uint64_t len = r->end - r->start, bytes = (uint64_t)e->count * MPCR_PAGE;
    if (e->page >= len / MPCR_PAGE || bytes > len - e->page * MPCR_PAGE)
        die(1, "an extent lies outside region ", hex(r->start), " (corrupt image)", (char *)0);
    if (e->page < *next)
        die(1, "the extents of region ", hex(r->start), " overlap or are out of order (corrupt image)", (char *)0);
    *next = e->page + e->count;
}

/* Reads and checksums n bytes of the stream without keeping them. */
static void skip(struct reader *rd, uint64_t n, const struct mpcr_img_region *r)
{
    for (uint64_t k; n; n -= k) {
        k = n < CHUNK ? n : CHUNK;
        take(rd, k, r);
    }
}

uint32_t mpcr_restore_stream_refs(int img, const struct mpcr_img_region *src, int fill, struct mpcr_ref *refs,
                                  uint64_t nrefs, uint32_t index)
{
    struct reader rd = open_stream(img, src);
    uint64_t next = 0;
    while (rd.off < rd.end || rd.head < rd.tail) {
        struct mpcr_img_extent e;
        memcpy(&e, take(&rd, sizeof e, src), sizeof e);
        if (e.page == ~0ull) break;
        check_extent(&e, src, &next);
        uint32_t kind = MPCR_EXT_KIND(e.zero);
        if (kind > MPCR_EXT_REF || (kind != MPCR_EXT_REF && MPCR_EXT_INDEX(e.zero)))
            die(1, "an extent of region ", hex(src->start), " is of an unknown kind (corrupt image)", (char *)0);
        uint64_t a = src->start + e.page * MPCR_PAGE, b = a + (uint64_t)e.count * MPCR_PAGE, pos = a;
        if (kind == MPCR_EXT_REF) continue; /* an older generation's: nothing here for a newer one */
        /* the first ref that ends after a (refs are sorted and apart) */
        uint64_t lo = 0, hi = nrefs;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (refs[mid].end <= a) lo = mid + 1;
            else hi = mid;
        }
        for (uint64_t k = lo; k < nrefs && refs[k].start < b; k++) {
            struct mpcr_ref *f = &refs[k];
            if (f->index != index) continue;
            uint64_t from = f->start > a ? f->start : a, to = f->end < b ? f->end : b;
            f->covered += (to - from) / MPCR_PAGE;
            if (kind == MPCR_EXT_ZERO) {
                if (fill && f->place && f->kind == MPCR_R_FILE_PRIVATE) memset((void *)from, 0, to - from);
                continue;
            }
            skip(&rd, from - pos, src);
            for (uint64_t at = from, n; at < to; at += n) {
                n = to - at < CHUNK ? to - at : CHUNK;
                if (fill && f->place) place(&rd, f->use_uffd, at, n, src);
                else take(&rd, n, src);
            }
            pos = to;
        }
        if (kind == MPCR_EXT_DATA) skip(&rd, b - pos, src);
    }
    drain();
    if (rd.head != rd.tail || rd.off != rd.end)
        die(1, "the data of region ", hex(src->start), " has bytes after its end mark (corrupt image)", (char *)0);
    return rd.crc;
}

uint32_t mpcr_restore_stream(int img, const struct mpcr_img_region *r, uint32_t index, int fill)
{
    struct reader rd = open_stream(img, r);
    uint64_t len = r->end - r->start, next = 0;
    int use_uffd = 0;
    struct uffdio_range range = {.start = r->start, .len = len};
    if (fill && r->kind == MPCR_R_ANON && uffd_open() >= 0) {
        struct uffdio_register reg = {.range = range, .mode = UFFDIO_REGISTER_MODE_MISSING};
        use_uffd = sc(ioctl, uffd, UFFDIO_REGISTER, &reg) == 0;
    }
    while (rd.off < rd.end || rd.head < rd.tail) {
        struct mpcr_img_extent e;
        memcpy(&e, take(&rd, sizeof e, r), sizeof e);
        if (e.page == ~0ull) break;
        uint64_t bytes = (uint64_t)e.count * MPCR_PAGE;
        check_extent(&e, r, &next);
        uint64_t at = r->start + e.page * MPCR_PAGE;
        uint32_t kind = MPCR_EXT_KIND(e.zero);
        if (kind == MPCR_EXT_REF) { /* an increment's: the pages are in an earlier generation (chain.c) */
            if (MPCR_EXT_INDEX(e.zero) >= mpcr_chain_len)
                die(1, "an extent of region ", hex(r->start), " refers to generation ", dec(MPCR_EXT_INDEX(e.zero)),
                    " of a chain of ", dec(mpcr_chain_len), " (corrupt image)", (char *)0);
            mpcr_chain_ref(index, r->kind, at, bytes, MPCR_EXT_INDEX(e.zero), fill);
            continue;
        }
        if (kind > MPCR_EXT_ZERO || MPCR_EXT_INDEX(e.zero))
            die(1, "an extent of region ", hex(r->start), " is of an unknown kind (corrupt image)", (char *)0);
        if (kind == MPCR_EXT_ZERO) {
            /* Fresh anonymous memory is zero already; a file's page is not. */
            if (fill && r->kind == MPCR_R_FILE_PRIVATE) memset((void *)at, 0, bytes);
            continue;
        }
        for (uint64_t n; bytes; at += n, bytes -= n) {
            n = bytes < CHUNK ? bytes : CHUNK;
            if (fill) place(&rd, use_uffd, at, n, r);
            else take(&rd, n, r);
        }
    }
    drain(); /* every page in place before the region is protected or unregistered */
    if (use_uffd) sc(ioctl, uffd, UFFDIO_UNREGISTER, &range);
    if (rd.head != rd.tail || rd.off != rd.end)
        die(1, "the data of region ", hex(r->start), " has bytes after its end mark (corrupt image)", (char *)0);
    return rd.crc;
}
