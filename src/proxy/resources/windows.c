/* See windows.h; the design: docs/one-sided.md.
 *
 * Why one dynamic window and not one real window per program window: a
 * real window is made collectively, and a proxy inside a real collective
 * answers nothing until every member has joined, which a member stopped for
 * a checkpoint never does. Attaching memory to the dynamic window is local.
 *
 * When it is made: at the job's first window, not at the proxy's start
 * (under MPICH it cost every job ~20 ms at start, windows or not). The
 * proxy whose program makes the first window asks the coordinator, which
 * tells every proxy ("windows"); each joins the collective start in its
 * next wait (ckpt_poll), wherever it is, as it would hear a checkpoint.
 * A proxy whose program has ended waits for the others in MPI_Finalize's
 * place (windows_finalize), hearing "windows" meanwhile. A job without a
 * coordinator (nobody to tell) makes it at the start, as before.
 *
 * The section `windows` (version 2): u32 count, u32 started (1: the job's
 * real window was made: a restart makes it again before any program runs),
 * then per window { u32 id, u32 0, u64 offset, u64 length }. The memory
 * itself is the program's (in its image); a new proxy gets each memfd back
 * from the restarted program at its old offset (windows_accept) and
 * attaches it again once all are there (resume). */
#include "windows.h"
#include "ckpt.h"
#include "report.h"
#include "resource.h"
#include "shared.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct wmem {
    uint32_t win;
    uint64_t offset, length;
    int fd;       /* -1: loaded from a state file, not handed over yet */
    int attached; /* to the real window */
};
static struct wmem *table; /* sorted by offset */
static uint32_t count, cap;
static char *reserve;     /* MPCR_WIN_RESERVE bytes, inaccessible where nothing is mapped */
static MPI_Win real = MPI_WIN_NULL;
static MPI_Aint *bases;   /* per world rank */
static MPI_Comm probe_comm = MPI_COMM_NULL; /* windows_progress's own, so it probes no one's messages */
static MPI_Comm sync_comm = MPI_COMM_NULL;  /* a duplicate of the world: the restart's barrier */
static int loaded; /* a restart: resume waits until every proxy has attached its windows */
static int lazy;    /* the real window is made at the job's first window (a coordinator tells) */
static int started; /* the real window was made (or refused by the real MPI) */
static int loaded_started; /* the state file says so: made again before the program runs */

void windows_init(void)
{
    reserve = proxy_reserve(MPCR_WIN_RESERVE, PROXY_RESERVE_WINDOWS);
    bases = calloc((size_t)proxy.size, sizeof *bases);
    /* probe_comm is made at the first window (windows_progress): each
     * communicator costs a context id of the real MPI's, of which MPICH has
     * 2048 for the program's and the proxy's together (the proxy has two
     * for each of the program's: MPICH's comm/cmfree makes 1020) */
    MPI_Comm_dup(MPI_COMM_WORLD, &sync_comm);
    /* the same answer on every rank: the launcher gives all the same environment */
    const char *coord = getenv("MPCR_COORD_SOCK");
    lazy = coord && *coord;
    if (!lazy) windows_start();
}

void windows_start(void)
{
    if (started) return;
    started = 1;
    MPI_Aint mine = reserve == MAP_FAILED ? 0 : (MPI_Aint)reserve;
    /* every proxy takes part in all three, whatever it got: they are collective */
    int ok = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &real) == MPI_SUCCESS;
    if (ok) MPI_Win_set_errhandler(real, MPI_ERRORS_RETURN);
    if (ok && MPI_Win_lock_all(MPI_MODE_NOCHECK, real)) ok = 0;
    if (!bases || MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD)) ok = 0;
    if (!ok || !mine) real = MPI_WIN_NULL; /* (a window made is left to MPI_Finalize) */
}

void windows_start_loaded(void)
{
    if (loaded_started) windows_start();
}

/* A lazy job's proxies all wait here for each other (a barrier they keep
 * hearing the coordinator in): a proxy whose program has ended may still be
 * asked to join the real window's start by one whose program goes on. */
static void wait_for_all(void)
{
    MPI_Request rq;
    if (MPI_Ibarrier(sync_comm, &rq)) return;
    for (int done = 0;;) {
        if (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) || done) return;
        ckpt_poll();
        nanosleep(&(struct timespec){0, 50000}, NULL);
    }
}

void windows_finalize(void)
{
    if (lazy) wait_for_all();
    if (real == MPI_WIN_NULL) return;
    for (uint32_t i = 0; i < count; i++)
        if (table[i].attached) MPI_Win_detach(real, reserve + table[i].offset);
    MPI_Win_unlock_all(real);
    MPI_Win_free(&real);
}

MPI_Win windows_real(void)
{
    return real;
}

MPI_Aint windows_base(int r)
{
    return bases[r];
}

static struct wmem *find(uint64_t offset)
{
    for (uint32_t i = 0; i < count; i++)
        if (table[i].offset == offset) return &table[i];
    return NULL;
}

/* Adds an entry in offset order; NULL when out of memory. */
static struct wmem *add(uint32_t win, uint64_t offset, uint64_t length)
{
    if (grow_array(&table, &cap, count, 8, sizeof *table)) return NULL;
    uint32_t i = 0;
    while (i < count && table[i].offset < offset)
        i++;
    memmove(&table[i + 1], &table[i], (count - i) * sizeof *table);
    table[i] = (struct wmem){win, offset, length, -1, 0};
    count++;
    return &table[i];
}

static void drop(struct wmem *m)
{
    uint32_t i = (uint32_t)(m - table);
    memmove(&table[i], &table[i + 1], (count - i - 1) * sizeof *table);
    count--;
}

/* A free offset for `length` bytes: the first gap that fits. */
static int free_offset(uint64_t length, uint64_t *offset)
{
    uint64_t at = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (table[i].offset - at >= length) break;
        at = table[i].offset + table[i].length;
    }
    if (length > MPCR_WIN_RESERVE - at) return MPI_ERR_NO_MEM;
    *offset = at;
    return MPI_SUCCESS;
}

/* Maps m's memfd in the reservation and attaches it. An MPI error class. */
static int map_attach(struct wmem *m)
{
    if (mmap(reserve + m->offset, m->length, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, m->fd,
             0) == MAP_FAILED)
        return MPI_ERR_NO_MEM;
    if (MPI_Win_attach(real, reserve + m->offset, (MPI_Aint)m->length)) return MPI_ERR_WIN;
    m->attached = 1;
    return MPI_SUCCESS;
}

/* Window win's memory of `length` bytes from `open_fd` (a descriptor of it,
 * or -1 with the error class in *rc), mapped at a free offset and attached:
 * its offset and descriptor. An MPI error class. */
static int take(uint32_t win, uint64_t length, int (*open_fd)(uint64_t, const void *, int *),
                const void *arg, int *fd, uint64_t *offset)
{
    if (real == MPI_WIN_NULL) return MPI_ERR_UNSUPPORTED_OPERATION;
    if (!length || length % MPCR_PAGE_SIZE || length > MPCR_WIN_RESERVE) return MPI_ERR_SIZE;
    uint64_t at;
    int rc = free_offset(length, &at);
    if (rc) return rc;
    int f = open_fd(length, arg, &rc);
    if (f < 0) return rc;
    struct wmem *m = add(win, at, length);
    if (!m) {
        close(f);
        return MPI_ERR_NO_MEM;
    }
    m->fd = f;
    if ((rc = map_attach(m))) {
        windows_release(win, at);
        return rc;
    }
    *fd = f, *offset = at;
    return MPI_SUCCESS;
}

/* A new sealed memfd (take's open_fd). */
static int new_memfd(uint64_t length, const void *arg, int *rc)
{
    (void)arg;
    int f = memfd_create("mpcr-window", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (f < 0 || ftruncate(f, (off_t)length) < 0 || !shared_sealed(f, length)) {
        if (f >= 0) close(f);
        *rc = MPI_ERR_NO_MEM;
        return -1;
    }
    return f;
}

int windows_memory(uint32_t win, uint64_t length, int *fd, uint64_t *offset)
{
    if (!started) {
        ckpt_ask_windows(); /* the others join when they hear it (without a coordinator: none) */
        windows_start();
    }
    return take(win, length, new_memfd, NULL, fd, offset);
}

/* Another proxy's descriptor of a window's memfd, "/proc/PID/fd/FD" in
 * arg (take's open_fd): a sealed memfd of that length, or MPI_ERR_RMA_SHARED
 * (another host's, gone, or something else). */
static int other_memfd(uint64_t length, const void *arg, int *rc)
{
    int f = open(arg, O_RDWR | O_CLOEXEC);
    if (f >= 0 && !shared_sealed(f, length)) close(f), f = -1;
    *rc = MPI_ERR_RMA_SHARED;
    return f;
}

int windows_memory_of(uint32_t win, int32_t pid, int32_t fd, uint64_t length, uint64_t *offset)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)pid, (int)fd);
    int mine;
    return take(win, length, other_memfd, path, &mine, offset);
}

int windows_release(uint32_t win, uint64_t offset)
{
    struct wmem *m = find(offset);
    if (!m || m->win != win) return MPI_ERR_ARG;
    if (m->attached) MPI_Win_detach(real, reserve + m->offset);
    mmap(reserve + m->offset, m->length, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (m->fd >= 0) close(m->fd);
    drop(m);
    return MPI_SUCCESS;
}

int windows_accept(int fd, uint64_t offset, uint64_t length)
{
    struct wmem *m = find(offset);
    if (!m || m->fd >= 0 || m->length != length || !shared_sealed(fd, length)) {
        close(fd);
        return -1;
    }
    m->fd = fd;
    return 0;
}

int windows_progress(void)
{
    if (!count) return 0;
    if (probe_comm == MPI_COMM_NULL && MPI_Comm_dup(MPI_COMM_SELF, &probe_comm)) return 0;
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, probe_comm, &flag, MPI_STATUS_IGNORE);
    return 1;
}

/* ---- the resource ---- */

struct saved_wmem {
    uint32_t win, pad;
    uint64_t offset, length;
};

static int save(struct section *out, char *err, size_t cap_)
{
    (void)err, (void)cap_;
    uint32_t head[2] = {count, (uint32_t)started};
    if (section_put(out, head, sizeof head)) return -1;
    for (uint32_t i = 0; i < count; i++) {
        struct saved_wmem s = {table[i].win, 0, table[i].offset, table[i].length};
        if (section_put(out, &s, sizeof s)) return -1;
    }
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap_)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t head[2], n;
    if (section_get(&in, head, sizeof head) || head[1] > 1)
        return snprintf(err, cap_, "%zu bytes, too short for its count, or a bad flag (damaged)", len), -1;
    n = head[0], loaded_started = (int)head[1];
    for (uint32_t i = 0; i < n; i++) {
        struct saved_wmem s;
        if (section_get(&in, &s, sizeof s))
            return snprintf(err, cap_, "it counts %u windows and holds %u (damaged)", n, i), -1;
        /* in the reservation, whole pages, in offset order (as saved) without overlaps */
        const struct wmem *last = count ? &table[count - 1] : NULL;
        if (!s.length || s.length % MPCR_PAGE_SIZE || s.offset % MPCR_PAGE_SIZE ||
            s.length > MPCR_WIN_RESERVE || s.offset > MPCR_WIN_RESERVE - s.length ||
            (last && s.offset < last->offset + last->length))
            return snprintf(err, cap_, "window %u: its memory at %llu (%llu bytes) is out of range "
                                       "or overlaps another (damaged)",
                            i, (unsigned long long)s.offset, (unsigned long long)s.length),
                   -1;
        if (!add(s.win, s.offset, s.length)) return snprintf(err, cap_, "out of memory"), -1;
    }
    if (in.p != in.end) return snprintf(err, cap_, "bytes after its last window (damaged)"), -1;
    loaded = 1;
    return 0;
}

/* In a new proxy, once the program has handed every window's memfd over:
 * attached again (after an image the program survived, nothing to do). A
 * window's memory the program never mapped (a checkpoint between this
 * proxy's answer and the program's mapping: it asks the new proxy again)
 * is not handed over, and forgotten. After a restart no proxy serves a call
 * before every proxy has attached its windows (a barrier of the proxies
 * alone, before any program goes on): a program's first Put after the
 * restart may target a rank whose program is still being restored. */
static void resume(void)
{
    for (uint32_t i = count; i-- > 0;) {
        struct wmem *m = &table[i];
        if (m->attached) continue;
        if (m->fd < 0) {
            windows_release(m->win, m->offset);
            continue;
        }
        if (real == MPI_WIN_NULL || map_attach(m)) {
            mpcr_report("rank %d: window %u's memory (%llu bytes) cannot be attached again after "
                        "the restart%s",
                        proxy.rank, m->win, (unsigned long long)m->length,
                        real == MPI_WIN_NULL ? ": this MPI gives no dynamic window" : "");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (loaded) MPI_Barrier(sync_comm);
    loaded = 0;
}

const struct proxy_resource resource_windows = {
    .name = "windows",
    .version = 2,
    .save = save,
    .load = load,
    .resume = resume,
};
