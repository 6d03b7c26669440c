/* Shared-memory windows (MPI 4.0 12.2.3, MPI_Win_allocate_shared and
 * MPI_Win_shared_query; docs/one-sided.md, "Shared-memory windows").
 *
 * The window's memory is one memfd for all members, made by the proxy of
 * the communicator's first rank: the members' parts follow each other in
 * rank order with no gap (MPI's default, contiguous), then one control page
 * per member (its lock word). Every member's program maps the whole memfd
 * (opened as /proc/<first proxy>/fd/<fd>), so loads and stores reach the
 * others' parts directly; every member's proxy maps it too at an offset of
 * its own reservation and attaches it to its real window
 * (MPCR_WIN_MEMORY_OF), so that one-sided calls on a member's part land
 * in the same bytes. The members must all be on this host (in mpcr all
 * ranks of a job on one host are one node): otherwise MPI_ERR_RMA_SHARED.
 *
 * Not carried across a restart yet: each member's image holds its own copy
 * of the pages, and the restarted members would no longer share them, so
 * the restart is refused while such a window exists
 * (mpcr_wins_unrestartable). */
#include "api_gen.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "env/errors.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "win.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Shared windows made or being made: a restart is refused while any is. */
static unsigned shared_windows;

int mpcr_wins_unrestartable(void)
{
    return shared_windows != 0;
}

/* What the first member tells the others. */
struct first {
    int32_t err, pid, fd, pad;
};

static uint64_t page_up(uint64_t a)
{
    return (a + MPCR_PAGE_SIZE - 1) / MPCR_PAGE_SIZE * MPCR_PAGE_SIZE;
}

/* Where member r's part starts in the memfd, from every member's size. */
static uint64_t part_at(const struct mpcr_win *w, int r)
{
    uint64_t at = 0;
    for (int i = 0; i < r; i++)
        at += w->peers[i].size;
    return at;
}

/* Releases what this member got at its proxy and here, on an error. */
static void undo(struct mpcr_win *w, char *m, uint64_t total, int at_proxy, uint64_t offset)
{
    if (m != MAP_FAILED) munmap(m, total);
    if (at_proxy) {
        struct mpcr_win_call rel = {.op = MPCR_WIN_RELEASE, .win = mpcr_win_id(w), .at = offset};
        mpcr_win_call(&rel, NULL);
    }
}

int mpcr_win_shared_make(struct mpcr_win *w, uint64_t size, struct mpcr_comm *comm, int err,
                         struct mpcr_win_peer *mine)
{
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    shared_windows++; /* from here on a restart is refused, half made or not */
    mpcr_let_checkpoints_in(&mask);
    /* every member takes part in the collectives, whatever it got */
    uint64_t *sizes = malloc((size_t)comm->size * sizeof *sizes);
    if (!sizes) mpcr_fatal("out of memory making a shared-memory window");
    int e = mpcr_impl_Allgather(&size, sizeof size, mpcr_type_get(MPI_BYTE), sizes, sizeof size,
                                mpcr_type_get(MPI_BYTE), comm);
    if (!err) err = e;
    uint64_t data = 0, at = 0;
    for (int r = 0; r < comm->size; r++) {
        if (r == comm->rank) at = data;
        data += e ? 0 : sizes[r];
    }
    free(sizes);
    data = page_up(data);
    uint64_t total = data + (uint64_t)comm->size * MPCR_PAGE_SIZE, offset = 0;
    int at_proxy = 0;
    struct first f = {err, 0, -1, 0};
    if (comm->rank == 0 && !err) {
        struct mpcr_win_call wc = {.op = MPCR_WIN_MEMORY, .win = mpcr_win_id(w), .bytes = total};
        f.err = mpcr_win_call(&wc, NULL);
        if (f.err == MPI_ERR_UNSUPPORTED_OPERATION)
            mpcr_unsupported_feature("one-sided communication with this proxy's MPI (it "
                                     "gives no dynamic window): MPI_Win_allocate_shared");
        f.pid = (int32_t)mpcr.proxy_pid, f.fd = wc.fd, offset = wc.offset, at_proxy = !f.err;
    }
    e = mpcr_impl_Bcast(&f, sizeof f, mpcr_type_get(MPI_BYTE), 0, comm);
    if (!err) err = e ? e : f.err;
    if (!err && comm->rank != 0) {
        struct mpcr_win_call wc = {.op = MPCR_WIN_MEMORY_OF, .win = mpcr_win_id(w), .target = f.pid,
                                   .flag = f.fd, .bytes = total};
        err = mpcr_win_call(&wc, NULL);
        offset = wc.offset, at_proxy = !err;
    }
    char *m = MAP_FAILED;
    if (!err) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)f.pid, (int)f.fd);
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd >= 0) m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (fd >= 0) close(fd); /* the image must hold no descriptor */
        if (m == MAP_FAILED) err = MPI_ERR_RMA_SHARED;
    }
    if (err) {
        undo(w, m, total, at_proxy, offset);
        mpcr_win_shared_freed();
        return err;
    }
    /* released by MPI_Win_free (or by make's agreement on another member's
     * error: the first's memfd stays open at its proxy until every member
     * has told it opened it) */
    mpcr_win_mem_adopt(w, m, total, offset);
    w->base = m + at;
    *mine = (struct mpcr_win_peer){offset + at, size, 0,
                                   offset + data + (uint64_t)comm->rank * MPCR_PAGE_SIZE, 0, 0};
    return MPI_SUCCESS;
}

void mpcr_win_shared_freed(void)
{
    sigset_t mask;
    mpcr_hold_checkpoints(&mask);
    shared_windows--;
    mpcr_let_checkpoints_in(&mask);
}

int mpcr_impl_Win_shared_query(struct mpcr_win *w, int rank, MPI_Count *size, MPI_Count *disp_unit,
                               void *baseptr)
{
    if (w->flavor != MPI_WIN_FLAVOR_SHARED) return MPI_ERR_RMA_FLAVOR;
    if (!baseptr) return MPI_ERR_ARG;
    if (rank == MPI_PROC_NULL) { /* the first member with memory (MPI 4.0 12.2.3) */
        rank = 0;
        while (rank < w->nmembers - 1 && !w->peers[rank].size)
            rank++;
    }
    if (rank < 0 || rank >= w->nmembers) return MPI_ERR_RANK;
    *size = (MPI_Count)w->peers[rank].size;
    *disp_unit = (MPI_Count)w->peers[rank].disp_unit;
    /* a part of no bytes has no address (as MPICH and Open MPI answer;
     * MPICH's rma/win_shared_noncontig_put checks it) */
    *(void **)baseptr = *size ? w->mem + part_at(w, rank) : NULL;
    return MPI_SUCCESS;
}
