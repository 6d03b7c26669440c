/* Dynamic windows (MPI 4.0 12.2.4; docs/one-sided.md, "Dynamic windows"):
 * MPI_Win_attach and MPI_Win_detach of the program's own memory, wherever
 * it is (heap, stack, static data); and the memory of a window made by
 * MPI_Win_create, shared the same way where it is private memory (win.c).
 *
 * A dynamic window's target displacement is an address in the target
 * program. The program's pages that hold attached memory become shared
 * with the proxy: the proxy makes a memfd, maps it at the same address in
 * itself and attaches it to its real window; this side copies its pages'
 * bytes into it and maps it over them. The program sees the same bytes at
 * the same addresses, and an origin's proxy uses the program's address as
 * it is. The pages are the unit: a page shared once serves every region on
 * it (a *piece* is a run of pages shared together; it counts the regions
 * on it, and is given back when none is left).
 *
 * After a restart the memory is restored at the same addresses (the
 * image), each piece is made a memfd again and handed to the new proxy,
 * which maps it at the same address again (src/proxy/resources/
 * windows_attached.c). As win_mem.c does, the list of pieces changes with
 * checkpoints held off, and the call to the proxy is made before with
 * them let in, asked again if a restart came in between. */
#include "api_gen.h"
#include "env/errors.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "win.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* What the program attached to one window (MPI_Win_detach names it by base). */
struct mpcr_win_region {
    char *base;
    uint64_t size;
    struct mpcr_win_region *next;
};

/* Pages shared with the proxy, in address order. */
struct piece {
    char *at;
    uint64_t len;
    unsigned regions; /* regions of any window on its pages */
    struct piece *next;
};
static struct piece *pieces;

static uintptr_t page_down(uintptr_t a)
{
    return a / MPCR_PAGE_SIZE * MPCR_PAGE_SIZE;
}
static uintptr_t page_up(uintptr_t a)
{
    return (a + MPCR_PAGE_SIZE - 1) / MPCR_PAGE_SIZE * MPCR_PAGE_SIZE;
}

/* The pages of a region: [*lo, *hi). */
static void pages_of(const char *base, uint64_t size, uintptr_t *lo, uintptr_t *hi)
{
    *lo = page_down((uintptr_t)base), *hi = page_up((uintptr_t)base + size);
}

/* The first piece that ends after a (NULL: none). */
static struct piece *piece_after(uintptr_t a)
{
    struct piece *p = pieces;
    while (p && (uintptr_t)p->at + p->len <= a)
        p = p->next;
    return p;
}

/* The pages [a, a + len) shared with the proxy: an MPI error class. */
static int share(uintptr_t a, uint64_t len)
{
    for (;;) {
        unsigned before = mpcr_win_restarts();
        struct mpcr_win_call wc = {.op = MPCR_WIN_ATTACH, .at = a, .bytes = len};
        int err = mpcr_win_call(&wc, NULL);
        if (err) return err; /* MPI_ERR_UNSUPPORTED_OPERATION: the proxy cannot map it there */
        sigset_t mask;
        mpcr_hold_checkpoints(&mask);
        if (before != mpcr_win_restarts()) {
            /* The answer is the old proxy's (its memfd is gone; the new one
             * forgot pages the program never mapped), or the new proxy's, if
             * the call was left unanswered at the checkpoint and served again
             * there: then the new proxy holds these pages, and asking again
             * would overlap them (MPI_ERR_BASE). Nothing else of the program's
             * can be at a (no piece covered it), so they are let go first. */
            mpcr_let_checkpoints_in(&mask);
            struct mpcr_win_call rel = {.op = MPCR_WIN_DETACH, .at = a};
            mpcr_win_call(&rel, NULL); /* (an error where it was the old proxy's) */
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)mpcr.proxy_pid, wc.fd);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        char *copy = fd < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        struct piece *p = copy == MAP_FAILED ? NULL : malloc(sizeof *p);
        int ok = p != NULL;
        if (ok) {
            memcpy(copy, (void *)a, len); /* the program's bytes, then its pages are the memfd's */
            ok = mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) !=
                 MAP_FAILED;
        }
        if (copy != MAP_FAILED) munmap(copy, len);
        if (fd >= 0) close(fd); /* the image must hold no descriptor */
        if (ok) {
            struct piece **at = &pieces;
            while (*at && (*at)->at < (char *)a)
                at = &(*at)->next;
            *p = (struct piece){(char *)a, len, 0, *at};
            *at = p;
        } else
            free(p);
        mpcr_let_checkpoints_in(&mask);
        if (ok) return MPI_SUCCESS;
        struct mpcr_win_call rel = {.op = MPCR_WIN_DETACH, .at = a};
        mpcr_win_call(&rel, NULL);
        return MPI_ERR_NO_MEM;
    }
}

/* Adds d (+1 or -1) to the count of every piece on [lo, hi); the pieces
 * left without a region come off the list (returned, for the proxy). */
static struct piece *count_regions(uintptr_t lo, uintptr_t hi, int d)
{
    struct piece *gone = NULL;
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    for (struct piece **pp = &pieces; *pp;) {
        struct piece *p = *pp;
        if ((uintptr_t)p->at < hi && lo < (uintptr_t)p->at + p->len) {
            p->regions += (unsigned)d;
            if (!p->regions) {
                *pp = p->next, p->next = gone, gone = p;
                continue;
            }
        }
        pp = &p->next;
    }
    mpcr_let_checkpoints_in(&mask);
    return gone;
}

static int given_back; /* a piece was: its pages are left as the memfd's */

int mpcr_win_piece_attached(uintptr_t lo, uintptr_t hi)
{
    for (const struct piece *p = pieces; p; p = p->next)
        if ((uintptr_t)p->at < hi && lo < (uintptr_t)p->at + p->len) return 1;
    return 0;
}

int mpcr_win_pieces_given_back(void)
{
    return given_back;
}

/* The proxy lets go of pieces no region is on (the program keeps its
 * mapping: its bytes are the program's, now shared with nobody, until the
 * next checkpoint makes it private memory again). */
static void give_back(struct piece *gone)
{
    if (gone) given_back = 1;
    while (gone) {
        struct piece *next = gone->next;
        struct mpcr_win_call wc = {.op = MPCR_WIN_DETACH, .at = (uint64_t)(uintptr_t)gone->at};
        /* a restart in between: the new proxy never had it (an error, ignored) */
        if (mpcr.initialized && !mpcr.finalized) mpcr_win_call(&wc, NULL);
        free(gone);
        gone = next;
    }
}

int mpcr_win_region_add(struct mpcr_win *w, void *base, uint64_t size, int private_only)
{
    struct mpcr_win_region *r = malloc(sizeof *r);
    if (!r) return MPI_ERR_NO_MEM;
    *r = (struct mpcr_win_region){base, size, NULL};
    uintptr_t lo, hi;
    pages_of(base, size, &lo, &hi);
    /* the runs of its pages that no piece covers yet */
    for (uintptr_t a = size ? lo : hi; a < hi;) {
        struct piece *p = piece_after(a);
        if (p && (uintptr_t)p->at <= a) {
            a = (uintptr_t)p->at + p->len;
            continue;
        }
        uintptr_t b = p && (uintptr_t)p->at < hi ? (uintptr_t)p->at : hi;
        int err = private_only && !mpcr_private_memory(a, b) ? MPI_ERR_UNSUPPORTED_OPERATION
                                                          : share(a, b - a);
        if (err) {
            give_back(count_regions(lo, a, 0)); /* the pieces made for it, on no region */
            free(r);
            return err;
        }
        a = b;
    }
    if (size) count_regions(lo, hi, +1);
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    r->next = w->regions, w->regions = r;
    mpcr_let_checkpoints_in(&mask);
    return MPI_SUCCESS;
}

int mpcr_impl_Win_attach(struct mpcr_win *w, void *base, MPI_Count size)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return MPI_ERR_RMA_FLAVOR;
    if (size < 0) return MPI_ERR_SIZE;
    if (!base && size) return MPI_ERR_BASE;
    int err = mpcr_win_region_add(w, base, (uint64_t)size, 0);
    if (err == MPI_ERR_UNSUPPORTED_OPERATION)
        mpcr_unsupported_feature("MPI_Win_attach of this memory: its address is one mpcr's "
                                 "proxy uses itself, or the proxy's MPI gives no dynamic window");
    return err;
}

/* Takes the region at base off w and lets its pieces go: whether it was there. */
static int detach(struct mpcr_win *w, const void *base)
{
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    struct mpcr_win_region **rp = &w->regions;
    while (*rp && (*rp)->base != base)
        rp = &(*rp)->next;
    struct mpcr_win_region *r = *rp;
    if (r) *rp = r->next;
    mpcr_let_checkpoints_in(&mask);
    if (!r) return 0;
    if (r->size) {
        uintptr_t lo, hi;
        pages_of(r->base, r->size, &lo, &hi);
        give_back(count_regions(lo, hi, -1));
    }
    free(r);
    return 1;
}

int mpcr_impl_Win_detach(struct mpcr_win *w, const void *base)
{
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) return MPI_ERR_RMA_FLAVOR;
    return detach(w, base) ? MPI_SUCCESS : MPI_ERR_BASE;
}

void mpcr_win_detach_all(struct mpcr_win *w)
{
    while (w->regions)
        detach(w, w->regions->base);
}

void mpcr_attached_restarted(int sock)
{
    for (struct piece *p = pieces; p; p = p->next)
        mpcr_win_hand_over(sock, p->at, p->len,
                           (uint64_t)(uintptr_t)p->at | MPCR_WIN_ATTACHED_HANDOVER);
}
