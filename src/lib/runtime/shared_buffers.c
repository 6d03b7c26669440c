/* Large messages without copies (docs/pt2pt.md): a buffer the program sends
 * from or receives into, large and contiguous, becomes shared memory. At its
 * first such message the library asks the proxy for a memfd (SHARE), copies
 * the buffer's whole pages into it once and maps it over them; the proxy has
 * it mapped at an offset of its own, so this message and every later one of
 * the same buffer move between the buffer and the real MPI with no copy.
 *
 * A share's memfd holds one page more at each end, the head and tail slots:
 * the message's bytes before the buffer's first whole page and after its
 * last are copied there (less than a page each), so that the proxy sees the
 * message as one contiguous range:
 *
 *   memfd:    [head slot][the program's pages lo .. hi][tail slot]
 *   program:              mapped over [lo, hi)
 *   proxy:    at offset .. offset + PAGE + (hi - lo) + PAGE
 *
 * The program may unmap or replace the memory (free, munmap) without telling
 * MPI, so every use checks first that [lo, hi) is still this memfd's
 * mapping: /proc/self/maps answers that for one address per ioctl
 * (PROCMAP_QUERY, Linux 6.11). Without it nothing is shared. A share found
 * replaced is dropped; the program's pages are never touched again.
 *
 * Checkpoints: the `before` hook (every other thread stopped) turns shares
 * no call uses back into private memory, so that the image holds plain
 * memory; they are made again at their next message. A share a call in
 * progress uses stays, and after a restart is made again from a new memfd
 * with the same contents at the same offset, handed to the new proxy before
 * it serves that call. A fork child gets private copies. The design, and
 * what it costs: docs/pt2pt.md, "Large messages without copies". */
#include "channel.h"
#include "env/errors.h"
#include "runtime.h"
#include "sparse_copy.h"
#include "staging.h"
#include "threads.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mpcr/engine.h"

#define PAGE ((uintptr_t)MPCR_PAGE_SIZE)

/* The kernel's struct procmap_query (linux/fs.h, 6.11), which Debian 12's
 * headers do not have yet. */
struct maps_query {
    uint64_t size, query_flags, query_addr;
    uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
    uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
    uint64_t vma_name_addr, build_id_addr;
};
#define MAPS_QUERY   _IOWR('f', 17, struct maps_query)
#define VMA_READABLE 0x01u
#define VMA_WRITABLE 0x02u
#define VMA_EXECUTABLE 0x04u
#define VMA_SHARED   0x08u

struct share {
    uintptr_t lo, hi; /* the program's pages that are the memfd's */
    uint64_t offset;  /* the proxy's offset of the memfd's start (the head slot) */
    char *mirror;     /* this side's mapping of the whole memfd */
    uint64_t inode;
    uint32_t dev_major, dev_minor;
    unsigned users;  /* calls in progress that name it */
    int dead;        /* found replaced while in use: dropped once unused */
    int detached;    /* in use at a checkpoint: the program's pages are private again, the
                        call in progress goes on in the memfd (the mirror); dropped once unused */
    int gone;        /* no longer a share: no mirror (the entry waits to be removed) */
    int stale_proxy; /* gone, and made before a restart: the proxy never had it */
};
static struct share shares[MPCR_SHARED_MAX];
static unsigned nshares;
static int maps_fd = -1;
static long min_bytes = -1; /* MPCR_SHARE_MIN; 0: off */
static unsigned restarts;   /* bumped by each restart: a SHARE answered before it is void */
static int gone_waiting;    /* entries of forgotten shares wait to be removed (use) */
static int ever_shared;     /* the program's memory may hold a share's pages (mpcr_shares_leave) */
static uintptr_t ever_lo = UINTPTR_MAX, ever_hi; /* ... only inside [ever_lo, ever_hi) */

static uint64_t length_of(const struct share *s)
{
    return (uint64_t)(s->hi - s->lo) + 2 * PAGE;
}

static int enabled(void)
{
    if (__builtin_expect(min_bytes < 0, 0)) {
        const char *v = getenv("MPCR_SHARE_MIN");
        /* 256 KiB: below it a copy costs less than the check and, at a
         * buffer's first message, the share's set-up (docs/pt2pt.md) */
        min_bytes = v && *v ? atol(v) : 256 << 10;
        if (min_bytes < 0) min_bytes = 0;
        if (min_bytes && (int)(3 * PAGE) > min_bytes) min_bytes = 3 * PAGE;
    }
    return min_bytes > 0;
}

/* The descriptor PROCMAP_QUERY asks, opened at first need and left out of
 * images (a restart closes it: mpcr_shares_restarted); -1 when the kernel
 * cannot answer, which turns sharing off. */
static int maps(void)
{
    if (maps_fd >= 0) return maps_fd;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    struct maps_query q = {.size = sizeof q, .query_addr = (uintptr_t)&shares};
    if (fd < 0 || ioctl(fd, MAPS_QUERY, &q)) {
        if (fd >= 0) close(fd);
        min_bytes = 0;
        return -1;
    }
    mpcr_engine_exclude_fd(fd);
    return maps_fd = fd;
}

enum standing { REPLACED = -1, PARTLY = 0, INTACT = 1 };

/* Whether the pages [a, b) of share s are still its memfd's mapping. */
static enum standing standing_of(const struct share *s, uintptr_t a, uintptr_t b)
{
    struct maps_query q = {.size = sizeof q, .query_addr = a};
    if (maps() < 0 || ioctl(maps_fd, MAPS_QUERY, &q)) return REPLACED;
    if (q.inode != s->inode || q.dev_major != s->dev_major || q.dev_minor != s->dev_minor ||
        q.vma_offset + (a - q.vma_start) != PAGE + (a - s->lo) ||
        (q.vma_flags & (VMA_SHARED | VMA_WRITABLE)) != (VMA_SHARED | VMA_WRITABLE))
        return REPLACED;
    return q.vma_end >= b ? INTACT : PARTLY;
}

/* Whether the share's pages that hold [d, end) (a message inside the share
 * or its slots) are still its memfd's; INTACT when it lies in the slots. */
static enum standing message_standing(const struct share *s, uintptr_t d, uintptr_t end)
{
    uintptr_t a = d > s->lo ? d & ~(PAGE - 1) : s->lo;
    uintptr_t b = end < s->hi ? (end + PAGE - 1) & ~(PAGE - 1) : s->hi;
    return a < b ? standing_of(s, a, b) : INTACT;
}

/* Whether the program's mapping named `name` is one of a share's memfd
 * (the pages of a share since dropped or replaced, which hold the
 * program's bytes). */
static int share_mapping(const char *name, uint32_t name_size)
{
    return name_size && !strncmp(name, "/memfd:mpcr-shared", 18);
}

/* The mapping covering a (`next`: or the first after it), by PROCMAP_QUERY
 * on maps_fd, its name in name[cap] (a short one is enough: a share's fits
 * in 32 bytes; a longer name, a file's, comes back empty). 0, or -1 when
 * there is none (ENOENT) or the query failed. */
static int query_mapping(uintptr_t a, int next, struct maps_query *q, char *name, size_t cap)
{
    *q = (struct maps_query){.size = sizeof *q,
                             .query_flags = next ? 0x10 /* covering or next */ : 0,
                             .query_addr = a,
                             .vma_name_size = (uint32_t)cap,
                             .vma_name_addr = (uintptr_t)name};
    int failed = ioctl(maps_fd, MAPS_QUERY, q);
    if (failed && errno == ENAMETOOLONG) { /* asked again without the name (both 0, or EINVAL) */
        q->vma_name_size = 0, q->vma_name_addr = 0;
        failed = ioctl(maps_fd, MAPS_QUERY, q);
    }
    return failed ? -1 : 0;
}

/* Whether [lo, hi) is the program's private anonymous memory, writable and
 * not its stack, or left over from earlier shares: what a share may
 * replace with the same bytes unnoticed (a file's pages, read-only or
 * executable ones stay as they are). Without `strict`, any private
 * writable pages: a file's (static data) and the stack too, and a window's
 * pieces given back. */
static int plain_memory(uintptr_t lo, uintptr_t hi, int strict)
{
    for (uintptr_t a = lo; a < hi;) {
        char name[32];
        struct maps_query q;
        if (query_mapping(a, 0, &q, name, sizeof name) || !(q.vma_flags & VMA_WRITABLE)) return 0;
        int plain = !(q.vma_flags & VMA_SHARED) &&
                    (!strict || (!q.inode && !(q.vma_name_size && !strcmp(name, "[stack]"))));
        /* a window's attached pieces given back hold the program's bytes too
         * (src/lib/rma/win_dynamic.c): those still attached are not asked */
        int piece_left = !strict && q.vma_name_size && !strncmp(name, "/memfd:mpcr-attached", 20);
        if (!plain && !piece_left && !share_mapping(name, q.vma_name_size)) return 0;
        a = q.vma_end;
    }
    return 1;
}

int mpcr_private_memory(uintptr_t lo, uintptr_t hi)
{
    return maps() >= 0 && plain_memory(lo, hi, 0);
}

/* Whether every page of [lo, hi) is in memory (pages swapped out count as
 * not there). Where the kernel cannot tell the pages the program never
 * touched (no /proc/self/pagemap), a share is made only of such a range: a
 * buffer not yet touched (a receive's large capacity, say) copied into a
 * memfd whole would get real pages; its message is copied instead. */
static int resident(uintptr_t lo, uintptr_t hi)
{
    unsigned char vec[4096];
    for (uintptr_t a = lo; a < hi;) {
        size_t pages = (hi - a) / PAGE < sizeof vec ? (hi - a) / PAGE : sizeof vec;
        if (mincore((void *)a, pages * PAGE, vec)) return 0;
        for (size_t i = 0; i < pages; i++)
            if (!(vec[i] & 1)) return 0;
        a += pages * PAGE;
    }
    return 1;
}

/* Writes n bytes at offset off of fd, in as many writes as it takes (one
 * write moves at most 2 GiB - 4 KiB): 0, or -1. (A restarted share of more
 * than that was lost with a single pwrite.) */
static int write_all_at(int fd, const char *buf, uint64_t n, uint64_t off)
{
    while (n) {
        ssize_t w = pwrite(fd, buf, n, (off_t)off);
        if (w <= 0) return -1;
        buf += w, off += (uint64_t)w, n -= (uint64_t)w;
    }
    return 0;
}

/* Every change of the table, and every use of an entry from its check to
 * its `users` count, happens with checkpoints held off (SIGRTMAX blocked):
 * the checkpoint's hook forgets the shares no call uses and detaches the
 * others, and must see none half made or about to be used. Calls to the proxy are made
 * with checkpoints let in again (`mask`: the one the program had), since
 * a checkpoint waits for them. */
void mpcr_hold_checkpoints(sigset_t *mask)
{
    sigset_t ckpt;
    sigemptyset(&ckpt);
    sigaddset(&ckpt, SIGRTMAX);
    pthread_sigmask(SIG_BLOCK, &ckpt, mask);
}

void mpcr_let_checkpoints_in(const sigset_t *mask)
{
    pthread_sigmask(SIG_SETMASK, mask, NULL);
}

static void unshare_at_proxy(uint64_t offset, const sigset_t *mask)
{
    sigset_t held;
    mpcr_let_checkpoints_in(mask);
    struct mpcr_call *call = mpcr_call_begin_aside(MPCR_OP_UNSHARE);
    call->offset = offset;
    mpcr_call_finish(); /* a restart in between: the new proxy never had it, MPI_ERR_ARG */
    mpcr_hold_checkpoints(&held);
}

/* Forgets share i: this side's mirror goes, the proxy's mapping too. The
 * program's pages stay as they are (shared memory nobody else maps). */
static void drop(unsigned i, const sigset_t *mask)
{
    uint64_t offset = shares[i].offset;
    int at_proxy = !shares[i].stale_proxy; /* (else its offset may name a newer range there) */
    if (!shares[i].gone) munmap(shares[i].mirror, length_of(&shares[i]));
    memmove(&shares[i], &shares[i + 1], (nshares - i - 1) * sizeof *shares);
    nshares--;
    if (at_proxy) unshare_at_proxy(offset, mask);
}

static void fork_prepare(void);
static void fork_parent(void);
static void fork_child(void);

/* The program's bytes of [lo, hi) into a new share's memfd (dst: where lo
 * goes in its mirror): pages of earlier shares whole, the program's private
 * pages except those it never touched, which stay holes of the memfd and
 * read as zeros as before (sparse_copy.c): a receive into a buffer fresh
 * from malloc shares it without making its pages real. */
static void copy_into_share(char *dst, uintptr_t lo, uintptr_t hi)
{
    for (uintptr_t a = lo; a < hi;) {
        char name[32];
        struct maps_query q;
        if (query_mapping(a, 0, &q, name, sizeof name)) { /* (plain_memory found them all) */
            memcpy(dst + (a - lo), (void *)a, hi - a);
            return;
        }
        uintptr_t end = q.vma_end < hi ? q.vma_end : hi;
        if (share_mapping(name, q.vma_name_size))
            memcpy(dst + (a - lo), (void *)a, end - a);
        else
            mpcr_copy_touched(dst + (a - lo), a, end);
        a = end;
    }
}

/* Makes [lo, hi) a share; its index, or -1 (the message is then copied). */
static int create(uintptr_t lo, uintptr_t hi, const sigset_t *mask)
{
    static int atfork;
    if (!atfork) atfork = !pthread_atfork(fork_prepare, fork_parent, fork_child);
    uint64_t length = (uint64_t)(hi - lo) + 2 * PAGE;
    unsigned generation = restarts;
    sigset_t held;
    mpcr_let_checkpoints_in(mask);
    struct mpcr_call *call = mpcr_call_begin_aside(MPCR_OP_SHARE);
    call->bytes = length;
    const struct mpcr_reply *r = mpcr_call_finish();
    mpcr_hold_checkpoints(&held);
    if (r->rc) return -1;
    int proxy_fd = r->value;
    uint64_t offset = r->bytes;
    /* A restart in between: the descriptor is not this proxy's (the range,
     * if this proxy served the SHARE again, goes below). */
    int restarted = generation != restarts;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)mpcr.proxy_pid, proxy_fd);
    int fd = restarted ? -1 : open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    char *mirror = MAP_FAILED;
    if (fd >= 0 && !fstat(fd, &st) && (uint64_t)st.st_size == length)
        mirror = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int made = mirror != MAP_FAILED;
    if (made) {
        copy_into_share(mirror + PAGE, lo, hi);
        made = mmap((void *)lo, hi - lo, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                    PAGE) != MAP_FAILED;
        if (!made) munmap(mirror, length);
    }
    if (fd >= 0) close(fd);
    if (made) {
        __atomic_store_n(&ever_shared, 1, __ATOMIC_RELAXED); /* (the helper reads it) */
        ever_lo = lo < ever_lo ? lo : ever_lo;
        ever_hi = hi > ever_hi ? hi : ever_hi;
    }
    if (!made) {
        if (!restarted) min_bytes = 0; /* the proxy's memfd cannot be opened here: never again */
        unshare_at_proxy(offset, mask);
        return -1;
    }
    shares[nshares] = (struct share){.lo = lo,
                                     .hi = hi,
                                     .offset = offset,
                                     .mirror = mirror,
                                     .inode = st.st_ino,
                                     .dev_major = major(st.st_dev),
                                     .dev_minor = minor(st.st_dev)};
    return (int)nshares++;
}

/* Drops the shares whose buffers the program has given back (freed,
 * unmapped, mapped over): their memfds go, and with them the pages. */
static void drop_given_back(const sigset_t *mask)
{
    for (unsigned i = 0; i < nshares;) {
        struct share *s = &shares[i];
        if (!s->users && standing_of(s, s->lo, s->hi) == REPLACED)
            drop(i, mask);
        else
            i++;
    }
}

int mpcr_shares_made(void)
{
    return __atomic_load_n(&ever_shared, __ATOMIC_RELAXED);
}

void mpcr_shares_sweep(void)
{
    atomic_store_explicit(&mpcr.chan->sweep_shares, 0, memory_order_relaxed);
    if (!nshares) return;
    sigset_t mask;
    mpcr_hold_checkpoints(&mask); /* (before maps() opens its descriptor, which no image may hold) */
    if (maps() >= 0) drop_given_back(&mask);
    mpcr_let_checkpoints_in(&mask);
}

/* The share that may carry [d, d + n), made if need be; -1: none. */
static int share_for(uintptr_t d, uint64_t n, const sigset_t *mask)
{
    if (maps() < 0) return -1; /* (use() checked the threshold) */
    uintptr_t end = d + n, lo = (d + PAGE - 1) & ~(PAGE - 1), hi = end & ~(PAGE - 1);
    for (unsigned i = 0; i < nshares; i++) {
        struct share *s = &shares[i];
        if (s->dead || s->detached || s->gone || d < s->lo - PAGE || end > s->hi + PAGE) continue;
        enum standing st = message_standing(s, d, end);
        if (st == INTACT) return (int)i;
        if (st == PARTLY && s->users) return -1;
        if (s->users) {
            s->dead = 1;
            return -1;
        }
        drop(i, mask);
        break;
    }
    /* A new share of the message's whole pages. Shares in its way that the
     * program has replaced are dropped; those inside it are replaced by it
     * (their pages are the message's, which nobody writes meanwhile); any
     * other overlap, or a full table, leaves the message to be copied.
     * Entries of shares that are gone are removed here. */
    if (hi <= lo) return -1;
    for (unsigned i = 0; i < nshares;) {
        struct share *s = &shares[i];
        if (s->gone && !s->users) {
            drop(i, mask);
            continue;
        }
        if (s->hi <= lo || s->lo >= hi) {
            i++;
            continue;
        }
        if (s->users) return -1;
        if (standing_of(s, s->lo, s->hi) == REPLACED || (s->lo >= lo && s->hi <= hi)) {
            drop(i, mask); /* the pages of one inside are copied from the program's view, then
                              mapped over */
            continue;
        }
        return -1;
    }
    drop_given_back(mask);
    if (nshares == MPCR_SHARED_MAX || !plain_memory(lo, hi, 1) ||
        (!mpcr_pagemap_readable() && !resident(lo, hi)))
        return -1;
    return create(lo, hi, mask);
}

/* Where byte x of share s is, as the proxy names it. */
static uint64_t offset_of(const struct share *s, uintptr_t x)
{
    return s->offset + PAGE + (x - s->lo); /* wraps below lo: the head slot */
}

static char *slot_of(const struct share *s, uintptr_t x)
{
    return s->mirror + PAGE + (x - s->lo);
}

/* Copies the bytes of [d, end) that lie outside [lo, hi), into the slots
 * (to_slots) or out of them. */
static void copy_ends(const struct share *s, uintptr_t d, uintptr_t end, int to_slots)
{
    uintptr_t head_end = end < s->lo ? end : s->lo, tail = d > s->hi ? d : s->hi;
    if (d < head_end) {
        if (to_slots)
            memcpy(slot_of(s, d), (void *)d, head_end - d);
        else
            memcpy((void *)d, slot_of(s, d), head_end - d);
    }
    if (tail < end) {
        if (to_slots)
            memcpy(slot_of(s, tail), (void *)tail, end - tail);
        else
            memcpy((void *)tail, slot_of(s, tail), end - tail);
    }
}

/* A send's or a receive's share, counted as used; its data's offset. */
static int use(const void *data, uint64_t bytes, int sending, uint64_t *offset)
{
    if (!enabled() || bytes < (uint64_t)min_bytes) return 0;
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    if (gone_waiting) { /* since a checkpoint: the proxy's mappings of forgotten shares go */
        gone_waiting = 0;
        for (unsigned i = 0; i < nshares;)
            if (shares[i].gone && !shares[i].users)
                drop(i, &mask);
            else
                gone_waiting |= shares[i++].gone;
    }
    int i = share_for((uintptr_t)data, bytes, &mask);
    if (i >= 0) {
        shares[i].users++;
        if (sending) copy_ends(&shares[i], (uintptr_t)data, (uintptr_t)data + bytes, 1);
        *offset = offset_of(&shares[i], (uintptr_t)data);
    }
    mpcr_let_checkpoints_in(&mask);
    /* The progress helper sweeps while the program computes (progress.c);
     * started inside a call of the program only (mpcr_lock_depth: the
     * library held), and not with checkpoints held off, a mask the thread
     * would inherit. */
    if (i >= 0 && !mpcr.progress_helper && mpcr_lock_depth > 0) mpcr_progress_ready();
    return i >= 0;
}

int mpcr_share_send(const void *data, uint64_t bytes, uint64_t *offset)
{
    return use(data, bytes, 1, offset);
}

int mpcr_share_recv(void *data, uint64_t bytes, uint64_t *offset)
{
    return use(data, bytes, 0, offset);
}

/* The share that offset names for a call in progress: a live one, else one
 * a restart could not make again (whose offset the new proxy may since
 * have given to a live one). */
static int share_at(uint64_t offset)
{
    for (int gone = 0; gone < 2; gone++)
        for (unsigned i = 0; i < nshares; i++)
            if (shares[i].gone == gone && (!gone || shares[i].users) &&
                offset - shares[i].offset < length_of(&shares[i]))
                return (int)i;
    mpcr_fatal("internal error: offset %llu names no shared buffer", (unsigned long long)offset);
}

void mpcr_share_received(uint64_t offset, uint64_t got)
{
    const struct share *s = &shares[share_at(offset)];
    uintptr_t d = s->lo + (offset - s->offset) - PAGE;
    if (s->gone) return; /* not made again at a restart: the call failed (MPI_ERR_BUFFER) */
    uintptr_t end = d + got;
    /* The message is in the memfd only when the share is detached, or when
     * the program made the pages its own meanwhile (an mremap or madvise
     * while the receive was pending: memory_calls.c); the bytes then go
     * where MPI would have written them. */
    if (s->detached || message_standing(s, d, end) != INTACT)
        memcpy((void *)d, slot_of(s, d), got);
    else
        copy_ends(s, d, end, 0);
}

void mpcr_share_release(uint64_t offset)
{
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    struct share *s = &shares[share_at(offset)];
    /* No call to the proxy here: this may run inside another call's
     * completion (a carried post's, post_queue.c). A share done with is
     * forgotten now and its proxy's mapping dropped at the next use. */
    if (!--s->users && (s->dead || s->detached) && !s->gone) {
        munmap(s->mirror, length_of(s));
        s->gone = gone_waiting = 1;
    }
    mpcr_let_checkpoints_in(&mask);
}

/* ---- checkpoints and fork ---- */

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4 /* Linux 5.7; for shared mappings 5.13 */
#endif

/* Whether [lo, lo + n) is part of a larger mapping. */
static int merged(uintptr_t lo, size_t n)
{
    struct maps_query q = {.size = sizeof q, .query_addr = lo};
    return maps_fd >= 0 && !ioctl(maps_fd, MAPS_QUERY, &q) && (q.vma_start < lo || q.vma_end > lo + n);
}

/* Fresh private zero pages at [lo, lo + n), merged with the program's
 * private mapping around them where there is one: that mapping was made
 * with or without MAP_NORESERVE (which the kernel keeps as a flag of the
 * mapping and does not tell), so the other is tried when the first does
 * not merge. */
static int fresh_pages(uintptr_t lo, size_t n)
{
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
    for (int attempt = 0; attempt < 2; attempt++, flags |= MAP_NORESERVE)
        if (mmap((void *)lo, n, PROT_READ | PROT_WRITE, flags, -1, 0) == MAP_FAILED ||
            merged(lo, n))
            break;
    struct maps_query q = {.size = sizeof q, .query_addr = lo};
    return maps_fd >= 0 && !ioctl(maps_fd, MAPS_QUERY, &q) && !q.inode &&
           !(q.vma_flags & VMA_SHARED);
}

/* Makes [lo, lo + n), pages of a share's memfd, private memory again with
 * the same bytes (or zeros, with zeroed). The memfd's pages are moved
 * aside (no copy; MREMAP_DONTUNMAP leaves [lo, lo + n) mapped meanwhile,
 * so no other mapping can take the place), fresh private pages replace
 * them in one mmap and get their bytes back. Fresh pages are numbered as
 * the program's private mapping around them: the kernel merges them with
 * it, one mapping as before the share (which the program may mremap as
 * one). Between the replacement and the copy the pages read as zeros:
 * only while no other thread of the program uses them (a checkpoint's
 * hook, a fork child, the program's own mremap or madvise of them). 1:
 * done, 0: nothing changed (no memory). */
static int private_again(uintptr_t lo, size_t n, int prot, int zeroed)
{
    void *aside = MAP_FAILED;
    if (!zeroed) {
        void *room = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (room == MAP_FAILED) return 0;
        aside = (void *)syscall(SYS_mremap, lo, n, n,
                                MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, room);
        if (aside == MAP_FAILED) {
            munmap(room, n);
            return 0;
        }
    }
    if (!fresh_pages(lo, n)) {
        if (aside != MAP_FAILED) munmap(aside, n);
        return 0;
    }
    if (aside != MAP_FAILED) {
        if (!(prot & PROT_READ)) mprotect(aside, n, PROT_READ); /* the program made it so */
        mpcr_copy_filled((void *)lo, aside, n); /* (the memfd's holes stay untouched pages) */
        munmap(aside, n);
    }
    if (prot != (PROT_READ | PROT_WRITE)) mprotect((void *)lo, n, prot);
    return 1;
}

/* The protection of a mapping PROCMAP_QUERY described. */
static int prot_of(const struct maps_query *q)
{
    return (q->vma_flags & VMA_READABLE ? PROT_READ : 0) |
           (q->vma_flags & VMA_WRITABLE ? PROT_WRITE : 0) |
           (q->vma_flags & VMA_EXECUTABLE ? PROT_EXEC : 0);
}

/* Whether [start, end) overlaps the mirror of a share still in the table. */
static int mirror_at(uintptr_t start, uintptr_t end)
{
    for (unsigned i = 0; i < nshares; i++) {
        const struct share *s = &shares[i];
        uintptr_t m = (uintptr_t)s->mirror;
        if (!s->gone && start < m + length_of(s) && end > m) return 1;
    }
    return 0;
}

/* Every mapping of a share's memfd in the program's memory, except the
 * mirrors still in the table, becomes private memory with the same bytes:
 * the pages of shares, of shares dropped while the program kept their
 * pages, pieces of a share it partly replaced (what it replaced is not a
 * share's, and stays as it is). So do a window's attached pieces given
 * back (src/lib/rma/win_dynamic.c), and in a fork child those still
 * attached too (`child`). Found by name, mapping by mapping. */
static void sweep_leftovers(int child)
{
    char name[32];
    for (uintptr_t a = 0;;) {
        struct maps_query q;
        if (maps() < 0 || query_mapping(a, 1, &q, name, sizeof name)) return; /* ENOENT: no more */
        a = q.vma_end;
        int left = share_mapping(name, q.vma_name_size) ? !mirror_at(q.vma_start, q.vma_end)
                   : q.vma_name_size && !strncmp(name, "/memfd:mpcr-attached", 20)
                       ? child || !mpcr_win_piece_attached(q.vma_start, q.vma_end)
                       : 0;
        if (left) private_again(q.vma_start, q.vma_end - q.vma_start, prot_of(&q), 0);
    }
}

int mpcr_shares_leave(uintptr_t lo, uintptr_t hi, int discard)
{
    /* No share made yet, none there, or none since a restart or in a fork
     * child (whose memory holds none: maps_fd is -1 until the next share
     * is made). */
    if (!ever_shared || maps_fd < 0 || hi <= ever_lo || lo >= ever_hi || hi <= lo) return 0;
    lo &= ~(PAGE - 1);
    hi = (hi + PAGE - 1) & ~(PAGE - 1);
    sigset_t mask;
    mpcr_hold_checkpoints(&mask); /* the hook must not privatize a piece half done */
    int rc = 0;
    char name[32]; /* "/memfd:mpcr-shared (deleted)" fits */
    for (uintptr_t a = lo; a < hi && !rc;) {
        struct maps_query q;
        if (query_mapping(a, 1, &q, name, sizeof name) || q.vma_start >= hi) break;
        uintptr_t from = q.vma_start > a ? q.vma_start : a, to = q.vma_end < hi ? q.vma_end : hi;
        a = q.vma_end;
        if (!share_mapping(name, q.vma_name_size)) continue;
        /* A discard the kernel refuses for the share's pages (locked ones,
         * without MADV_DONTNEED_LOCKED) it refuses for private pages too:
         * its answer, nothing changed. On the share it only drops page
         * table entries. */
        if (discard && syscall(SYS_madvise, from, to - from, discard)) {
            rc = -1;
            break;
        }
        if (!private_again(from, to - from, prot_of(&q), discard != 0)) rc = -1;
    }
    mpcr_let_checkpoints_in(&mask);
    return rc;
}

/* The checkpoint's `before` hook, every other thread stopped. The program's
 * pages of every share become private memory again, so that the image
 * holds plain memory and a forked writer can copy it on write (shared
 * memory would be copied while the program waits: src/engine/memory.c).
 * Shares no call uses are forgotten (made again at their next message);
 * one a call in progress uses is detached: the call goes on in its memfd,
 * which then holds the message as the staging area would (a receive's is
 * copied out whole when it completes), and after a restart the new proxy
 * gets a new memfd with the same bytes (mpcr_shares_restarted). */
void mpcr_shares_before_checkpoint(void)
{
    for (unsigned i = 0; i < nshares; i++) {
        struct share *s = &shares[i];
        if (s->gone) continue;
        if (s->users) {
            s->detached = 1;
        } else {
            munmap(s->mirror, length_of(s));
            s->gone = gone_waiting = 1;
        }
    }
    /* (dropped shares may have left pages, the table empty) */
    if (ever_shared || mpcr_win_pieces_given_back()) sweep_leftovers(0);
}

/* In the restarted process (engine's signal handler, system calls only):
 * the image restored each detached share's mirror as memory of its own; it
 * becomes a new memfd with the same bytes, mapped at the same place and
 * handed to the new proxy over sock (the call in progress names it). */
void mpcr_shares_restarted(int sock)
{
    restarts++;
    maps_fd = -1; /* the engine closed it */
    for (unsigned i = 0; i < nshares; i++) {
        struct share *s = &shares[i];
        uint64_t length = length_of(s);
        int fd = s->detached && !s->gone
                     ? memfd_create("mpcr-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING)
                     : -1;
        int made = fd >= 0 && !ftruncate(fd, (off_t)length) &&
                   !write_all_at(fd, s->mirror, length, 0) &&
                   mmap(s->mirror, length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) !=
                       MAP_FAILED;
        struct mpcr_shared_handover h = {s->offset, length};
        if (made) made = !mpcr_send_fd(sock, fd, &h, sizeof h);
        if (fd >= 0) close(fd);
        if (made) continue;
        /* Forgotten at the checkpoint (or no memory now: the call in
         * progress then fails, its offset unknown to the new proxy). The
         * entry stays where it is (a thread stopped in the middle of a call
         * may hold its index) and is removed later (share_for). */
        if (!s->gone) munmap(s->mirror, length);
        s->gone = s->stale_proxy = gone_waiting = 1;
    }
}

/* A fork by a thread outside MPI while the progress helper changes the
 * table (its sweeps) would leave the child a table half changed: the
 * library is taken around the fork, as by a call. */
static int fork_took_library;

static void fork_prepare(void)
{
    fork_took_library = mpcr.progress_helper == 1 && mpcr_lock_depth == 0 && mpcr.initialized &&
                        !mpcr.finalized;
    if (fork_took_library) mpcr_lock_take();
}

static void fork_parent(void)
{
    if (fork_took_library) mpcr_lock_drop();
}

/* A fork child has no proxy of its own: every share's pages become its
 * private memory, and the table is emptied. Only the forking thread runs
 * in the child. */
static void forget_all_in_child(void)
{
    if (maps_fd >= 0) close(maps_fd); /* it reads the parent's maps */
    maps_fd = -1;
    for (unsigned i = 0; i < nshares; i++)
        if (!shares[i].gone) munmap(shares[i].mirror, length_of(&shares[i]));
    nshares = 0;
    sweep_leftovers(1);
    if (maps_fd >= 0) close(maps_fd);
    maps_fd = -1;
}

static void fork_child(void)
{
    forget_all_in_child();
    if (fork_took_library) mpcr_lock_drop(); /* (held by this thread's original) */
}
