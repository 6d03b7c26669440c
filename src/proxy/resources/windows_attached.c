/* See windows_attached.h; the design: docs/one-sided.md, "Dynamic windows".
 *
 * The section `win_attached` (version 1): u32 count, u32 0, then per piece
 * { u64 address, u64 length }, in address order. The memory itself is the
 * program's (in its image, at the same address); a new proxy gets each
 * memfd back from the restarted program (attached_accept) and maps and
 * attaches it again at resume, before the windows' barrier (this kind is
 * before `windows` in resources.c), so that no origin's first operation
 * after a restart finds it missing. Where that address is taken in the new
 * proxy (its own libraries, heap or stack: another layout), the restart is
 * refused by name.
 *
 * The real window's attachments are runs, not pieces: each maximal run of
 * adjacent mapped pieces is one attachment (`runs`), made again whenever a
 * piece joins or leaves it. A region of the program may lie on two pieces
 * (its first page shared already by an earlier region, the next one new);
 * Open MPI checks that an operation lies inside one attachment and refused
 * a Put over two ("RMA access out of window range"), MPICH did not.
 *
 * A run that grows is attached whole before the runs it joins are
 * detached (make before break): meanwhile an origin's operation on a
 * neighbouring region of the program finds it in either (MPICH's
 * linked_list_bench_lock_all attaches list elements while the others read
 * the older ones; detached first, Open MPI refused those reads). Both MPIs
 * take overlapping attachments; a detach names its attachment by address
 * only, so the new one starts a byte after the old one where both would
 * start together (`base`): both MPIs count whole pages anyway (Open MPI
 * checks operations against its page-aligned regions; MPICH does not
 * check). A run that shrinks (a piece given back) is detached first: Open
 * MPI refuses an attachment inside one it has. */
#include "windows_attached.h"
#include "report.h"
#include "resource.h"
#include "shared.h"
#include "windows.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct piece {
    uint64_t at, length;
    int fd;       /* -1: loaded from a state file, not handed over yet */
    int attached; /* mapped at `at` (and, in its run, attached to the real window) */
};
static struct piece *table; /* in address order */
static uint32_t count, cap;

struct run {
    uint64_t at, length;
    uint64_t base; /* the real attachment's address: at, or at + 1 (above) */
};
static struct run *runs; /* the real window's attachments, in address order */
static uint32_t nruns, runs_cap;

static struct piece *find(uint64_t at)
{
    for (uint32_t i = 0; i < count; i++)
        if (table[i].at == at) return &table[i];
    return NULL;
}

static struct piece *add(uint64_t at, uint64_t length, int fd)
{
    if (grow_array(&table, &cap, count, 8, sizeof *table)) return NULL;
    uint32_t i = 0;
    while (i < count && table[i].at < at)
        i++;
    memmove(&table[i + 1], &table[i], (count - i) * sizeof *table);
    table[i] = (struct piece){at, length, fd, 0};
    count++;
    return &table[i];
}

/* Maps p's memfd at its address: 0, or -errno (EEXIST: something of this
 * proxy's is there). */
static int map_piece(struct piece *p)
{
    void *m = mmap((void *)(uintptr_t)p->at, p->length, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_FIXED_NOREPLACE, p->fd, 0);
    if (m == MAP_FAILED) return -errno;
    if (m != (void *)(uintptr_t)p->at) { /* a kernel without NOREPLACE: a hint it did not take */
        munmap(m, p->length);
        return -EEXIST;
    }
    p->attached = 1;
    return 0;
}

/* Detaches every run that touches [*lo, *hi) (adjacent ones too) from the
 * real window, and widens [*lo, *hi) to cover them. */
static void detach_runs(uint64_t *lo, uint64_t *hi)
{
    MPI_Win real = windows_real();
    uint32_t kept = 0;
    for (uint32_t i = 0; i < nruns; i++) {
        struct run r = runs[i];
        if (r.at <= *hi && *lo <= r.at + r.length) {
            if (real != MPI_WIN_NULL) MPI_Win_detach(real, (void *)(uintptr_t)r.base);
            if (r.at < *lo) *lo = r.at;
            if (r.at + r.length > *hi) *hi = r.at + r.length;
        } else {
            runs[kept++] = r;
        }
    }
    nruns = kept;
}

/* Puts r among the runs, in address order (room made by the caller). */
static void insert_run(struct run r)
{
    uint32_t k = 0;
    while (k < nruns && runs[k].at < r.at)
        k++;
    memmove(&runs[k + 1], &runs[k], (nruns - k) * sizeof *runs);
    runs[k] = r;
    nruns++;
}

/* Attaches each maximal run of adjacent mapped pieces inside [lo, hi) as
 * one attachment. 0, or -EINVAL when the real MPI refuses one, -ENOMEM. */
static int attach_runs(uint64_t lo, uint64_t hi)
{
    MPI_Win real = windows_real();
    if (real == MPI_WIN_NULL) return -EINVAL;
    for (uint32_t i = 0; i < count;) {
        if (!table[i].attached || table[i].at < lo || table[i].at >= hi) {
            i++;
            continue;
        }
        struct run r = {table[i].at, table[i].length, table[i].at};
        for (i++; i < count && table[i].attached && table[i].at == r.at + r.length && table[i].at < hi; i++)
            r.length += table[i].length;
        if (grow_array(&runs, &runs_cap, nruns, 8, sizeof *runs)) return -ENOMEM;
        if (MPI_Win_attach(real, (void *)(uintptr_t)r.at, (MPI_Aint)r.length)) return -EINVAL;
        insert_run(r);
    }
    return 0;
}

/* Maps p and attaches the run it makes with the runs beside it, then
 * detaches those (make before break, above): 0, or -errno (EEXIST:
 * something of this proxy's is there), -EINVAL when the real MPI refuses
 * (the runs as they were). */
static int map_attach(struct piece *p)
{
    MPI_Win real = windows_real();
    if (real == MPI_WIN_NULL) return -EINVAL;
    int rc = map_piece(p);
    if (rc) return rc;
    struct run r = {p->at, p->length, p->at};
    for (uint32_t i = 0; i < nruns; i++) /* the runs it joins: adjacent ones */
        if (runs[i].at <= p->at + p->length && p->at <= runs[i].at + runs[i].length) {
            if (runs[i].at < r.at) r.length += r.at - runs[i].at, r.at = r.base = runs[i].at;
            if (runs[i].at + runs[i].length > r.at + r.length) r.length = runs[i].at + runs[i].length - r.at;
        }
    for (uint32_t i = 0; i < nruns; i++)
        if (runs[i].base == r.base) r.base = r.at + 1;
    rc = grow_array(&runs, &runs_cap, nruns, 8, sizeof *runs) ? -ENOMEM
         : MPI_Win_attach(real, (void *)(uintptr_t)r.base, (MPI_Aint)(r.length - (r.base - r.at))) ? -EINVAL
                                                                                                     : 0;
    if (rc) {
        munmap((void *)(uintptr_t)p->at, p->length);
        p->attached = 0;
        return rc;
    }
    uint64_t lo = r.at, hi = r.at + r.length;
    detach_runs(&lo, &hi);
    insert_run(r);
    return 0;
}

int attached_memory(uint64_t at, uint64_t length, int *fd)
{
    if (windows_real() == MPI_WIN_NULL) return MPI_ERR_UNSUPPORTED_OPERATION;
    if (!length || length % MPCR_PAGE_SIZE || at % MPCR_PAGE_SIZE || at + length < at) return MPI_ERR_SIZE;
    for (uint32_t i = 0; i < count; i++)
        if (at < table[i].at + table[i].length && table[i].at < at + length) return MPI_ERR_BASE;
    int f = memfd_create("mpcr-attached", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (f < 0 || ftruncate(f, (off_t)length) < 0 || !shared_sealed(f, length)) {
        if (f >= 0) close(f);
        return MPI_ERR_NO_MEM;
    }
    struct piece *p = add(at, length, f);
    if (!p) {
        close(f);
        return MPI_ERR_NO_MEM;
    }
    int rc = map_attach(p);
    if (rc) {
        close(f);
        memmove(p, p + 1, (size_t)(table + count - p - 1) * sizeof *p);
        count--;
        /* EEXIST: the program's address is this proxy's own (the library says so) */
        return rc == -EEXIST ? MPI_ERR_UNSUPPORTED_OPERATION : rc == -EINVAL ? MPI_ERR_WIN : MPI_ERR_NO_MEM;
    }
    *fd = f;
    return MPI_SUCCESS;
}

int attached_release(uint64_t at)
{
    struct piece *p = find(at);
    if (!p) return MPI_ERR_BASE;
    uint64_t lo = p->at, hi = p->at + p->length;
    int mapped = p->attached;
    if (mapped) {
        detach_runs(&lo, &hi);
        munmap((void *)(uintptr_t)p->at, p->length);
    }
    if (p->fd >= 0) close(p->fd);
    memmove(p, p + 1, (size_t)(table + count - p - 1) * sizeof *p);
    count--;
    if (mapped) attach_runs(lo, hi); /* its neighbours, without it */
    return MPI_SUCCESS;
}

int attached_accept(int fd, uint64_t at, uint64_t length)
{
    struct piece *p = find(at);
    if (!p || p->fd >= 0 || p->length != length || !shared_sealed(fd, length)) {
        close(fd);
        return -1;
    }
    p->fd = fd;
    return 0;
}

/* ---- the resource ---- */

struct saved_piece {
    uint64_t at, length;
};

static int save(struct section *out, char *err, size_t cap_)
{
    (void)err, (void)cap_;
    if (section_put_count(out, count)) return -1;
    for (uint32_t i = 0; i < count; i++) {
        struct saved_piece s = {table[i].at, table[i].length};
        if (section_put(out, &s, sizeof s)) return -1;
    }
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap_)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t n;
    if (section_get_count(&in, &n))
        return snprintf(err, cap_, "%zu bytes, too short for its count (damaged)", len), -1;
    for (uint32_t i = 0; i < n; i++) {
        struct saved_piece s;
        if (section_get(&in, &s, sizeof s))
            return snprintf(err, cap_, "it counts %u pieces and holds %u (damaged)", n, i), -1;
        /* whole pages of user space, in address order, without overlaps */
        const struct piece *last = count ? &table[count - 1] : NULL;
        if (!s.length || s.length % MPCR_PAGE_SIZE || s.at % MPCR_PAGE_SIZE ||
            s.at >= (1ull << 47) || s.length > (1ull << 47) - s.at ||
            (last && s.at < last->at + last->length))
            return snprintf(err, cap_, "piece %u: %llu bytes at %#llx are out of range or overlap "
                                       "another (damaged)",
                            i, (unsigned long long)s.length, (unsigned long long)s.at),
                   -1;
        if (!add(s.at, s.length, -1)) return snprintf(err, cap_, "out of memory"), -1;
    }
    if (in.p != in.end) return snprintf(err, cap_, "bytes after its last piece (damaged)"), -1;
    return 0;
}

/* In a new proxy, once the program has handed every piece over: mapped and
 * attached again (after an image the program survived, nothing to do). A
 * piece not handed over (the program's mapping was never made: a checkpoint
 * between this proxy's answer and the program's mapping) is forgotten. */
static void resume(void)
{
    for (uint32_t i = count; i-- > 0;) {
        struct piece *p = &table[i];
        if (p->attached) continue;
        if (p->fd < 0) {
            attached_release(p->at);
            continue;
        }
        int rc = map_attach(p);
        if (rc) {
            mpcr_report("rank %d: memory a dynamic window attached (%llu bytes at %#llx) cannot be "
                        "attached again after the restart: %s",
                        proxy.rank, (unsigned long long)p->length, (unsigned long long)p->at,
                        rc == -EEXIST ? "the new proxy holds that address itself (another memory "
                                        "layout); try the restart again"
                                      : strerror(-rc));
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

const struct proxy_resource resource_win_attached = {
    .name = "win_attached",
    .version = 1,
    .save = save,
    .load = load,
    .resume = resume,
};
