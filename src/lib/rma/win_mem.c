/* A window's memory (docs/one-sided.md, "Where a window's memory lives"):
 * a memfd its proxy makes, maps in its window reservation and attaches to
 * its real window; this side maps it too. For MPI_Win_allocate the mapping
 * is the window; for MPI_Win_create it is the control page only where the
 * program's pages are shared (win_dynamic.c), else also the public copy of
 * the program's memory (separate), made consistent by mpcr_win_merge.
 *
 * The mapping is shared memory in the program, saved with its image like
 * any shared mapping. After a restart, mpcr_wins_restarted makes each a
 * memfd again with the same bytes at the same address and hands it to the
 * new proxy at its old offset, which attaches it again
 * (src/proxy/resources/windows.c). Changes of the list of windows with
 * memory happen with checkpoints held off, so that the restart hook never
 * sees a window half made; the call to the proxy is made before, with them
 * let in (a checkpoint waits for it), and made again if a restart came in
 * between (its answer named the old proxy's descriptor). */
#include "api_gen.h"
#include "datatype/dtype.h"
#include "env/errors.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "win.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct mpcr_win *wins; /* every window with memory */
static unsigned restarts;     /* bumped by each restart */

static uint64_t bytes_of(MPI_Count count, const struct mpcr_type *t)
{
    return t ? (uint64_t)count * (uint64_t)t->size : 0;
}

int mpcr_win_call(struct mpcr_win_call *wc, const struct mpcr_win_io *io)
{
    static const struct mpcr_win_io none;
    if (!io) io = &none;
    uint64_t head = (sizeof *wc + 7) / 8 * 8, in = bytes_of(io->in_count, io->in_type),
             out = bytes_of(io->out_count, io->out_type), in_room = (in + 7) / 8 * 8, off;
    int err = mpcr_staging_alloc(head + in_room + out, &off);
    if (err) return err;
    char *p = mpcr_staging_ptr(off);
    if (in) {
        wc->data = off + head, wc->bytes = in;
        mpcr_pack(p + head, io->in, io->in_count, io->in_type);
    }
    if (out) wc->aux = off + head + in_room, wc->aux_bytes = out;
    memcpy(p, wc, sizeof *wc);
    struct mpcr_call *c = mpcr_call_begin(MPCR_OP_WIN);
    c->offset = off, c->bytes = head + in_room + out;
    err = mpcr_call_finish()->rc;
    p = mpcr_staging_ptr(off); /* by offset again after a call, as everywhere (staging.h) */
    memcpy(wc, p, sizeof *wc);
    if (out && !err) mpcr_unpack(io->out, p + head + in_room, out, io->out_type);
    mpcr_staging_free(off);
    return err;
}

/* The window's pages and its control page (the lock word). */
static uint64_t length_for(uint64_t size)
{
    return (size + MPCR_PAGE_SIZE - 1) / MPCR_PAGE_SIZE * MPCR_PAGE_SIZE + MPCR_PAGE_SIZE;
}

int mpcr_win_mem_make(struct mpcr_win *w, uint64_t size)
{
    uint64_t length = length_for(size);
    for (;;) {
        unsigned before = __atomic_load_n(&restarts, __ATOMIC_ACQUIRE);
        struct mpcr_win_call wc = {.op = MPCR_WIN_MEMORY, .win = mpcr_win_id(w), .bytes = length};
        int err = mpcr_win_call(&wc, NULL);
        if (err == MPI_ERR_UNSUPPORTED_OPERATION)
            mpcr_unsupported_feature("one-sided communication with this proxy's MPI (it "
                                     "gives no dynamic window): MPI_Win_create");
        if (err) return err;
        sigset_t mask;
        mpcr_hold_checkpoints(&mask);
        if (before != __atomic_load_n(&restarts, __ATOMIC_ACQUIRE)) {
            /* The old proxy's answer (the new one forgot memory the program
             * never mapped), or the new proxy's, the call having been served
             * again there: that memory is let go (the proxy checks it is this
             * window's) before asking again, or it would stay unused. */
            mpcr_let_checkpoints_in(&mask);
            struct mpcr_win_call rel = {.op = MPCR_WIN_RELEASE, .win = wc.win, .at = wc.offset};
            mpcr_win_call(&rel, NULL); /* (an error where it was the old proxy's) */
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)mpcr.proxy_pid, wc.fd);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        void *m = fd < 0 ? MAP_FAILED
                         : mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (fd >= 0) close(fd); /* the image must hold no descriptor */
        if (m != MAP_FAILED) {
            w->mem = m, w->mem_len = length, w->offset = wc.offset;
            w->next = wins, wins = w;
        }
        mpcr_let_checkpoints_in(&mask);
        if (m != MAP_FAILED) return MPI_SUCCESS;
        struct mpcr_win_call rel = {.op = MPCR_WIN_RELEASE, .win = wc.win, .at = wc.offset};
        mpcr_win_call(&rel, NULL);
        return MPI_ERR_NO_MEM;
    }
}

void mpcr_win_mem_release(struct mpcr_win *w)
{
    if (!w->mem) return;
    struct mpcr_win_call wc = {.op = MPCR_WIN_RELEASE, .win = mpcr_win_id(w), .at = w->offset};
    if (mpcr.initialized && !mpcr.finalized) mpcr_win_call(&wc, NULL);
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    for (struct mpcr_win **p = &wins; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    munmap(w->mem, w->mem_len);
    w->mem = NULL;
    mpcr_let_checkpoints_in(&mask);
}

void mpcr_win_merge(struct mpcr_win *w)
{
    if (!w->snap) return;
    unsigned char *priv = w->base, *pub = (unsigned char *)w->mem, *snap = (unsigned char *)w->snap;
    size_t n = (size_t)w->size;
    for (size_t at = 0; at < n; at += 64) {
        size_t k = n - at < 64 ? n - at : 64;
        /* most blocks: nobody changed them */
        if (!memcmp(priv + at, snap + at, k) && !memcmp(pub + at, snap + at, k)) continue;
        for (size_t i = at; i < at + k; i++) {
            if (priv[i] != snap[i])
                pub[i] = priv[i]; /* the program's store since */
            else if (pub[i] != priv[i])
                priv[i] = pub[i]; /* another rank's put or accumulate */
            snap[i] = priv[i];
        }
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

int mpcr_win_target(const struct mpcr_win *w, int r, MPI_Aint disp, uint64_t *at, int *absolute)
{
    if (r < 0 || r >= w->nmembers) return MPI_ERR_RANK;
    const struct mpcr_win_peer *p = &w->peers[r];
    *absolute = p->absolute != 0;
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) { /* an address at the target (win_dynamic.c) */
        *at = (uint64_t)disp;
        return MPI_SUCCESS;
    }
    /* a created window's pages at their address (no reservation to stay
     * in: its own bytes are the bound), another's in the reservation */
    uint64_t bound = p->absolute ? p->size : MPCR_WIN_RESERVE;
    if (disp < 0 || (uint64_t)disp > bound / (uint64_t)p->disp_unit) return MPI_ERR_DISP;
    *at = p->offset + (uint64_t)disp * (uint64_t)p->disp_unit;
    return MPI_SUCCESS;
}

uint64_t mpcr_win_lock_word(const struct mpcr_win *w, int r)
{
    return w->peers[r].lock;
}

uint64_t mpcr_win_mem_lock_word(const struct mpcr_win *w)
{
    return w->offset + w->mem_len - MPCR_PAGE_SIZE;
}

int mpcr_win_mem_within(const void *base, uint64_t size, uint64_t *offset)
{
    const char *b = base;
    for (const struct mpcr_win *w = wins; w; w = w->next) {
        if (w->flavor != MPI_WIN_FLAVOR_ALLOCATE && w->flavor != MPI_WIN_FLAVOR_SHARED) continue;
        if (b >= w->mem && b + size <= w->mem + w->mem_len) {
            *offset = w->offset + (uint64_t)(b - w->mem);
            return 1;
        }
    }
    return 0;
}

void mpcr_win_mem_adopt(struct mpcr_win *w, char *m, uint64_t len, uint64_t offset)
{
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    w->mem = m, w->mem_len = len, w->offset = offset;
    w->next = wins, wins = w;
    mpcr_let_checkpoints_in(&mask);
}

/* Writes n bytes at p to fd from its start: whether all were written. */
static int write_all(int fd, const char *p, uint64_t n)
{
    for (uint64_t done = 0; done < n;) {
        ssize_t k = pwrite(fd, p + done, n - done, (off_t)done);
        if (k <= 0) return 0;
        done += (uint64_t)k;
    }
    return 1;
}

int mpcr_win_hand_over(int sock, void *addr, uint64_t len, uint64_t tag)
{
    /* the name tells an attached piece from a window's memory (mpcr_private_memory) */
    int fd = memfd_create(tag & MPCR_WIN_ATTACHED_HANDOVER ? "mpcr-attached" : "mpcr-window",
                          MFD_CLOEXEC | MFD_ALLOW_SEALING);
    int made = fd >= 0 && !ftruncate(fd, (off_t)len) && write_all(fd, addr, len) &&
               mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) != MAP_FAILED;
    struct mpcr_shared_handover h = {tag, len};
    if (made) made = !mpcr_send_fd(sock, fd, &h, sizeof h);
    if (fd >= 0) close(fd);
    return made;
}

unsigned mpcr_win_restarts(void)
{
    return __atomic_load_n(&restarts, __ATOMIC_ACQUIRE);
}

void mpcr_wins_restarted(int sock)
{
    restarts++;
    /* not handed over: the new proxy forgets that memory, and the next
     * operation on it fails there (the restart's report says why) */
    for (struct mpcr_win *w = wins; w; w = w->next)
        mpcr_win_hand_over(sock, w->mem, w->mem_len, w->offset | MPCR_WIN_HANDOVER);
    mpcr_attached_restarted(sock);
}
