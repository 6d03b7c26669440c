/* The proxy's side of shared buffers (shared.h). A range is created at the
 * program's request (SHARE): a memfd of the asked length, mapped at a free
 * offset of the shared part of the staging reservation; the program opens
 * the memfd through /proc/<proxy>/fd and maps it over its buffer. The
 * proxy keeps the descriptor until UNSHARE (or its end). */
#include "proxy.h"
#include "report.h"
#include "shared.h"
#include "windows.h"
#include "windows_attached.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

struct range {
    uint64_t offset, length;
    int fd;
};
static struct range ranges[MPCR_SHARED_MAX]; /* sorted by offset */
static unsigned nranges;

/* Maps fd over [offset, offset + length) of the reservation and records it. */
static int add_range(int fd, uint64_t offset, uint64_t length)
{
    if (nranges == MPCR_SHARED_MAX) return MPI_ERR_NO_MEM;
    if (mmap(staging(offset), length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED)
        return MPI_ERR_NO_MEM;
    unsigned i = 0;
    while (i < nranges && ranges[i].offset < offset)
        i++;
    memmove(&ranges[i + 1], &ranges[i], (nranges - i) * sizeof *ranges);
    ranges[i] = (struct range){offset, length, fd};
    nranges++;
    return MPI_SUCCESS;
}

int shared_sealed(int fd, uint64_t length)
{
    struct stat st;
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    int seals = fcntl(fd, F_GET_SEALS);
    return seals >= 0 && (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) == (F_SEAL_SHRINK | F_SEAL_GROW) &&
           !fstat(fd, &st) && (uint64_t)st.st_size == length;
}

/* Whether [offset, offset + length) meets a range already mapped. */
static int overlaps(uint64_t offset, uint64_t length)
{
    for (unsigned i = 0; i < nranges; i++)
        if (offset < ranges[i].offset + ranges[i].length && ranges[i].offset < offset + length)
            return 1;
    return 0;
}

/* A free offset for `length` bytes: the first gap that fits. */
static int free_offset(uint64_t length, uint64_t *offset)
{
    uint64_t at = MPCR_SHARED_BASE;
    for (unsigned i = 0; i < nranges; i++) {
        if (ranges[i].offset - at >= length) break;
        at = ranges[i].offset + ranges[i].length;
    }
    if (at > MPCR_SHARED_END || length > MPCR_SHARED_END - at) return MPI_ERR_NO_MEM;
    *offset = at;
    return MPI_SUCCESS;
}

/* bytes: the length (whole pages) -> value: the memfd's descriptor here,
 * bytes: the range's offset. */
void op_share(const struct mpcr_call *c, struct mpcr_reply *r)
{
    uint64_t length = c->bytes, offset;
    r->rc = MPI_ERR_ARG;
    if (!length || length % MPCR_PAGE_SIZE || length > MPCR_SHARED_END - MPCR_SHARED_BASE) return;
    if ((r->rc = free_offset(length, &offset))) return;
    int fd = memfd_create("mpcr-shared", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)length) < 0 || !shared_sealed(fd, length) ||
        (r->rc = add_range(fd, offset, length))) {
        if (fd >= 0) close(fd);
        r->rc = MPI_ERR_NO_MEM;
        return;
    }
    r->value = fd;
    r->bytes = offset;
}

/* offset: a range made by SHARE (or handed over at a restart). */
void op_unshare(const struct mpcr_call *c, struct mpcr_reply *r)
{
    for (unsigned i = 0; i < nranges; i++)
        if (ranges[i].offset == c->offset) {
            /* back to the reservation's inaccessible pages */
            mmap(staging(ranges[i].offset), ranges[i].length, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
            close(ranges[i].fd);
            memmove(&ranges[i], &ranges[i + 1], (nranges - i - 1) * sizeof *ranges);
            nranges--;
            r->rc = MPI_SUCCESS;
            return;
        }
    r->rc = MPI_ERR_ARG;
}

void shared_nudge(struct mpcr_chan *ch)
{
    static uint64_t last_ns;
    if (!nranges) return;
    uint64_t now = mpcr_now_ns();
    if (now - last_ns < 1000000000ull) return;
    last_ns = now;
    if (!atomic_load_explicit(&ch->sweep_shares, memory_order_relaxed))
        atomic_store_explicit(&ch->sweep_shares, 1, memory_order_relaxed);
}

int in_shared(uint64_t offset, uint64_t bytes)
{
    for (unsigned i = 0; i < nranges && ranges[i].offset <= offset; i++)
        if (offset - ranges[i].offset <= ranges[i].length &&
            bytes <= ranges[i].length - (offset - ranges[i].offset))
            return 1;
    return 0;
}

/* A window's memory handed over at a restart (a window's or a dynamic
 * window's attached pieces): 1 when h names one, accepted (else the job
 * ends); 0 when it is a shared buffer. */
static int window_handover(int fd, const struct mpcr_shared_handover *h)
{
    int attached = (h->offset & MPCR_WIN_ATTACHED_HANDOVER) != 0;
    if (!attached && !(h->offset & MPCR_WIN_HANDOVER)) return 0;
    uint64_t at = h->offset & ~(MPCR_WIN_ATTACHED_HANDOVER | MPCR_WIN_HANDOVER);
    if (attached ? attached_accept(fd, at, h->length) : windows_accept(fd, at, h->length)) {
        mpcr_report("rank %d: %s handed over at the restart is not the state file's", proxy.rank,
                    attached ? "memory of a dynamic window" : "a window's memory");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return 1;
}

void shared_accept(int sock)
{
    for (;;) {
        struct mpcr_shared_handover h;
        int fd = -1;
        if (mpcr_recv_fd(sock, &fd, &h, sizeof h) || fd < 0) return; /* closed: all handed over */
        if (window_handover(fd, &h)) continue;
        int ok = h.offset >= MPCR_SHARED_BASE && h.offset <= MPCR_SHARED_END && h.length &&
                 h.length % MPCR_PAGE_SIZE == 0 && h.length <= MPCR_SHARED_END - h.offset &&
                 !overlaps(h.offset, h.length) && shared_sealed(fd, h.length) &&
                 !add_range(fd, h.offset, h.length);
        if (!ok) {
            mpcr_report("rank %d: cannot map a shared buffer handed over at the restart",
                        proxy.rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}
