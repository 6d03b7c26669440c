/* The engine's control: start-up, the checkpoint signal handler, and the
 * protocol that stops every thread at a resume point before the image is
 * written and lets them go on afterwards (or, after a restart, after each
 * has put back its own kernel state).
 *
 * A checkpoint request is SIGRTMAX sent with sigqueue; its value says who
 * asks (the coordinator, with a generation number, or the program itself
 * through mpcr_engine_checkpoint). The thread that receives it leads: it
 * signals every other thread (SIGRTMAX again, value "follow"), waits until
 * all have saved their resume point and parked on a futex, writes the image,
 * reports to the coordinator and releases them. */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "path.h"
#include "control.h"
#include "crc32c.h"
#include "fmt.h"
#include "internal.h"
#include "mpcr/engine.h"

enum { REQ_COORD = MPCR_CTL_COORD, REQ_API = MPCR_CTL_API, REQ_FOLLOW = MPCR_CTL_FOLLOW };
#define REQ MPCR_CTL_VALUE
#define STOP_TIMEOUT_MS 10000

struct mpcr_thr mpcr_thr[MPCR_MAX_THREADS];
int mpcr_nthr, mpcr_nlive;
struct mpcr_range mpcr_exclude[MPCR_MAX_EXCLUDE];
int mpcr_nexclude;
int mpcr_exclude_fd[MPCR_MAX_EXCLUDE_FDS] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
long mpcr_tid_offset = -1;

static struct mpcr_engine_hooks hooks;
static int initialised;
static char ckpt_dir[4096], coord_sock[108], coord_secret[64], api_path[4096];
static unsigned rank;
static uint64_t job_id; /* $MPCR_JOB_ID (hex), set by `mpcr run`: every image names its job */
static int busy;                       /* a checkpoint is in progress */
static uint32_t epoch;                 /* of the current checkpoint */
static uint32_t arrived, restored;     /* futex words: threads parked / restored */
static uint32_t released;              /* futex word: epoch whose threads may go on */
/* The handler runs in the calling thread. Initial-exec: a plain %fs access,
 * where the default model for a shared object calls __tls_get_addr, which
 * may allocate (not async-signal-safe). */
static __thread int api_result __attribute__((tls_model("initial-exec")));
static uint64_t image_bytes;

static void futex_wait(uint32_t *w, uint32_t val, int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, ms >= 0 ? &ts : NULL, NULL, 0);
}

static void futex_wake(uint32_t *w) { syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0); }

static int64_t now_ms(void)
{
    return (int64_t)(mpcr_now_ns() / 1000000);
}

/* Waits until *w reaches `want`; 0, or -ETIMEDOUT after ms (ms < 0: never). */
static int wait_count(uint32_t *w, uint32_t want, int ms)
{
    int64_t deadline = now_ms() + ms;
    for (;;) {
        uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        if (v >= want) return 0;
        int left = ms < 0 ? 1000 : (int)(deadline - now_ms());
        if (left <= 0) return -ETIMEDOUT;
        futex_wait(w, v, left > 100 ? 100 : left);
    }
}

static void wait_release(uint32_t my_epoch)
{
    for (;;) {
        uint32_t v = __atomic_load_n(&released, __ATOMIC_ACQUIRE);
        if (v == my_epoch) return;
        futex_wait(&released, v, -1);
    }
}

static void release_all(void)
{
    __atomic_store_n(&released, epoch, __ATOMIC_RELEASE);
    futex_wake(&released);
}

static int send_req(int tid, uint64_t value)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGRTMAX;
    si.si_code = SI_QUEUE;
    si.si_pid = getpid();
    si.si_uid = getuid();
    si.si_value.sival_ptr = (void *)value;
    return (int)syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, SIGRTMAX, &si);
}

/* ---- followers ---------------------------------------------------------- */

static void follow(uint32_t slot, uint32_t ep)
{
    if (ep != __atomic_load_n(&epoch, __ATOMIC_ACQUIRE) || slot >= MPCR_MAX_THREADS || !busy) return;
    struct mpcr_thr *t = &mpcr_thr[slot];
    if (!mpcr_ctx_save(&t->ctx)) {
        mpcr_thr_capture(t);
        __atomic_store_n(&t->parked, 1, __ATOMIC_RELEASE);
        __atomic_add_fetch(&arrived, 1, __ATOMIC_RELEASE);
        futex_wake(&arrived);
    } else {
        mpcr_thr_restore(t, 0);
        __atomic_add_fetch(&restored, 1, __ATOMIC_RELEASE);
        futex_wake(&restored);
    }
    wait_release(ep);
}

/* ---- leader ------------------------------------------------------------- */

static int slot_of(int tid)
{
    for (int i = 0; i < mpcr_nthr; i++)
        if (mpcr_thr[i].tid == tid && !mpcr_thr[i].gone) return i; /* a gone thread's id may be reused */
    return -1;
}

/* Signals every thread not yet asked; returns how many were new, or <0. */
static int ask_new_threads(void)
{
    int dfd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return mpcr_fail(-errno, "opening /proc/self/task: %s", mpcr_strerror(errno));
    char buf[8192];
    int fresh = 0, rc = 0;
    long n;
    while (!rc && (n = syscall(SYS_getdents64, dfd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < n;) {
            struct dirent64 { uint64_t ino; int64_t off; unsigned short reclen; unsigned char type; char name[]; } *d =
                (void *)(buf + off);
            off += d->reclen;
            if (d->name[0] < '0' || d->name[0] > '9') continue;
            const char *digits = d->name;
            int tid = (int)mpcr_parse_dec(&digits);
            if (slot_of(tid) >= 0) continue;
            if (mpcr_nthr == MPCR_MAX_THREADS) {
                rc = mpcr_fail(-E2BIG, "more than %d threads", MPCR_MAX_THREADS);
                break;
            }
            int slot = mpcr_nthr++;
            memset(&mpcr_thr[slot], 0, sizeof mpcr_thr[slot]);
            mpcr_thr[slot].tid = tid;
            if (send_req(tid, REQ(REQ_FOLLOW, slot, epoch)) == 0) fresh++, mpcr_nlive++;
            else mpcr_nthr--; /* it exited meanwhile */
        }
    }
    close(dfd);
    return rc ? rc : fresh;
}

/* Waits until every asked thread has parked or is gone (exited after it
 * was listed); 0, or -ETIMEDOUT naming a thread that never came. */
static int wait_parked(void)
{
    int64_t deadline = now_ms() + STOP_TIMEOUT_MS;
    pid_t pid = getpid();
    for (;;) {
        uint32_t seen = __atomic_load_n(&arrived, __ATOMIC_ACQUIRE);
        int waiting = -1;
        for (int i = 1; i < mpcr_nthr; i++) {
            struct mpcr_thr *t = &mpcr_thr[i];
            if (t->gone || __atomic_load_n(&t->parked, __ATOMIC_ACQUIRE)) continue;
            if (syscall(SYS_tgkill, pid, t->tid, 0) && errno == ESRCH) {
                t->gone = 1;
                mpcr_nlive--;
                continue;
            }
            waiting = i;
        }
        if (waiting < 0) return 0;
        if (now_ms() > deadline)
            return mpcr_fail(-ETIMEDOUT, "thread %d did not stop within %d s (does it block SIGRTMAX?)",
                             mpcr_thr[waiting].tid, STOP_TIMEOUT_MS / 1000);
        futex_wait(&arrived, seen, 20);
    }
}

static int stop_threads(void)
{
    mpcr_nthr = mpcr_nlive = 1;
    memset(&mpcr_thr[0], 0, sizeof mpcr_thr[0]);
    mpcr_thr_capture(&mpcr_thr[0]);
    for (;;) {
        int fresh = ask_new_threads();
        if (fresh < 0) return fresh;
        if (fresh == 0) return 0;
        int rc = wait_parked();
        if (rc) return rc;
    }
}

static int report(uint64_t gen, int rc, long stopped_ms);
static int64_t stop_started_ms; /* when the leader took the request */
static pid_t own_writer;        /* an MPI rank's forked writer, reaped at the next checkpoint */
/* MPCR_TEST_WRITER_STOP=1 (tests only): a forked writer stops itself (SIGSTOP)
 * before it writes, so that a test can act while it is surely at work. */
static int writer_stops;

/* The image's memory, thread table and tables, then publication. In a
 * forked writer this runs in the copy, with the process's pid passed in. */
static int finish_image(struct mpcr_scratch *s, uint64_t gen, pid_t pid)
{
    int rc = mpcr_mem_dump(s);
    if (!rc) {
        struct mpcr_img_header *h = &s->hdr;
        if (!h->vdso.vdso) rc = mpcr_fail(-ENOTSUP, "no [vdso] in /proc/self/maps");
        else h->vdso.vdso_crc = mpcr_crc32c(0, (void *)h->vdso.vdso, h->vdso.vdso_len);
        h->generation = gen;
        h->rank = rank;
        h->job_id = job_id;
        uint32_t n = 0;
        for (int i = 0; i < mpcr_nthr; i++) {
            if (mpcr_thr[i].gone) continue;
            s->threads[n].ctx = mpcr_thr[i].ctx;
            s->threads[n].fs_base = mpcr_thr[i].fs_base;
            s->threads[n].old_tid = (uint32_t)mpcr_thr[i].tid;
            s->threads[n].is_main = mpcr_thr[i].tid == pid;
            n++;
        }
        h->nthreads = n;
    }
    if (!rc) rc = mpcr_w_image(s);
    if (!rc) image_bytes = s->hdr.total_len;
    return rc;
}

/* The process, right after forking its writer for an MPI proxy: "snapshot K
 * PID" (no answer), so that the job's coordinator may let the proxies go on
 * (and, on the same host, notice if the writer dies before its report). */
static void report_snapshot(uint64_t gen, pid_t writer)
{
    int fd = mpcr_ctl_connect(coord_sock);
    if (fd < 0) return;
    char msg[200];
    size_t n = coord_secret[0] ? mpcr_fmt(msg, sizeof msg, "secret %s\n", coord_secret) : 0;
    n += mpcr_fmt(msg + n, sizeof msg - n, "snapshot %llu %d\n", (unsigned long long)gen, (int)writer);
    if (write(fd, msg, n) < 0) {}
    close(fd);
}

/* The forked writer: a copy of this process made while every thread is
 * stopped, so its memory is the checkpoint's (copy-on-write), while the
 * process itself goes on at once: the pause no longer grows with the
 * memory written. For a single process (MPCR_CTL_MAY_FORK) the copy is its
 * sibling (CLONE_PARENT: the coordinator that asked reaps it; the program
 * never sees a child). Under an MPI proxy (MPCR_CTL_FORK_CHILD) the proxy
 * is the parent and must not see it either: the copy is then this
 * process's own child with no exit signal (invisible to the program's
 * wait() and SIGCHLD), reaped by the engine at the next checkpoint, and
 * the process says "snapshot K" at once. Shared memory is copied before
 * the fork and put in place in the copy. The copy writes the image,
 * reports to the coordinator and exits. Returns the writer's pid in the
 * process, or -1 to write in place. */
static pid_t fork_writer(struct mpcr_scratch *s, uint64_t gen, int how)
{
    pid_t pid = getpid();
    if (!mpcr_mem_forkable(s)) return -1;
    long child = syscall(SYS_clone, how == MPCR_CTL_MAY_FORK ? CLONE_PARENT : 0, NULL, NULL, NULL, NULL);
    if (child != 0) {
        mpcr_mem_drop_snapshots();
        if (child > 0 && how == MPCR_CTL_FORK_CHILD) own_writer = (pid_t)child, report_snapshot(gen, own_writer);
        return child > 0 ? (pid_t)child : -1;
    }
    long stopped_ms = (long)(now_ms() - stop_started_ms); /* the process goes on as the fork returns */
    if (writer_stops) syscall(SYS_kill, syscall(SYS_getpid), SIGSTOP);
    int rc = mpcr_mem_use_snapshots();
    if (!rc) rc = finish_image(s, gen, pid);
    if (rc) mpcr_atomic_abort(&s->out);
    report(gen, rc, stopped_ms); /* the answer is "continue": only such checkpoints fork */
    syscall(SYS_exit_group, rc ? 1 : 0);
    return -1;
}

/* 0: written; 2: a forked writer is writing it (and reports); <0: refused.
 * fork_how: 0, MPCR_CTL_MAY_FORK or MPCR_CTL_FORK_CHILD. */
static int write_image(const char *path, uint64_t gen, int fork_how)
{
    struct mpcr_scratch *s =
        mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED) return mpcr_fail(-errno, "no memory for the checkpoint: %s", mpcr_strerror(errno));
    s->strings_len = 1;
    s->out.fd = -1;
    mpcr_incr_check();
    int rc = mpcr_proc_refuse(s);
    for (int i = 0; !rc && i < mpcr_nthr; i++)
        if (!mpcr_thr[i].gone && !mpcr_thr[i].tid_field_ok)
            rc = mpcr_fail(-ENOTSUP, "thread %d: glibc's thread block has no thread id where expected", mpcr_thr[i].tid);
    if (!rc) rc = mpcr_files_save(s);
    if (!rc) rc = mpcr_signals_save(s);
    if (!rc) rc = mpcr_proc_save(s);
    /* PATH.tmp, 0600, never through a planted link, never into a file
     * already there (one left by a writer that was killed is replaced: this
     * process writes one image at a time) */
    if (!rc && (rc = mpcr_atomic_open(&s->out, path, 0600)))
        rc = mpcr_fail(rc, "creating %s.tmp: %s", path, mpcr_strerror(-rc));
    if (!rc) {
        s->off = MPCR_IMG_HEADER_SIZE;
        if (lseek(s->out.fd, MPCR_IMG_HEADER_SIZE, SEEK_SET) < 0) rc = mpcr_fail(-errno, "seek: %s", mpcr_strerror(errno));
    }
    if (!rc) rc = mpcr_mem_read_maps(s);
    if (!rc) rc = mpcr_mem_plan(s);
    /* Changed pages found and their tracking reset here, with every thread
     * stopped and before the fork: what the process writes from now on is
     * the next checkpoint's (incr.c). */
    if (!rc) rc = mpcr_incr_plan(s, gen, ckpt_dir, rank);
    pid_t writer = !rc && fork_how ? fork_writer(s, gen, fork_how) : -1;
    if (writer > 0) rc = 2;
    else if (!rc) rc = finish_image(s, gen, getpid());
    mpcr_incr_done(s, rc == 0 || rc == 2); /* a forked writer's failure is found at the next checkpoint */
    if (rc < 0) mpcr_atomic_abort(&s->out); /* the temporary, if still open */
    else if (s->out.fd >= 0) close(s->out.fd); /* a forked writer publishes it */
    munmap(s, sizeof *s);
    return rc;
}

static void die_after_restart(const char *what)
{
    char msg[700];
    size_t n = mpcr_fmt(msg, sizeof msg, "mpcr: restart failed after the point of no return: %s: %s\n", what, mpcr_errmsg);
    if (write(2, msg, n) < 0) {}
    syscall(SYS_exit_group, 126);
}

/* The leader's path in a restored process: its own thread state, then the
 * process-wide state, then (once every thread has left the restorer) the
 * restorer's zone goes away and pending signals come back. */
static int after_restart(struct mpcr_handoff *h)
{
    mpcr_thr_restore(&mpcr_thr[0], 1);
    mpcr_incr_forget(); /* the holder map and the tracking descriptor were never saved */
    if (h->magic != MPCR_HANDOFF_MAGIC) die_after_restart("bad hand-off block");
    if (mpcr_signals_restore(h)) die_after_restart("signals");
    if (mpcr_files_restore(h)) die_after_restart("files");
    if (mpcr_proc_restore(h)) die_after_restart("process state");
    struct mpcr_img_header hdr = *h->hdr;
    uintptr_t zone = h->zone_start;
    size_t zone_len = h->zone_len;
    wait_count(&restored, (uint32_t)mpcr_nlive - 1, -1);
    mpcr_locks_restore(); /* every thread has its new id now; none runs yet */
    munmap((void *)zone, zone_len);
    mpcr_signals_reraise(&hdr);
    return 1;
}

static int __attribute__((noinline)) take_image(const char *path, uint64_t gen, int fork_how)
{
    struct mpcr_handoff *h = mpcr_ctx_save(&mpcr_thr[0].ctx);
    if (h) return after_restart(h);
    return write_image(path, gen, fork_how);
}

/* Tells the coordinator how the image went; returns 1 when it answers that
 * this process is to end now (checkpoint --exit), else 0. A forked writer
 * adds how long the process was stopped (stopped_ms >= 0). */
static int report(uint64_t gen, int rc, long stopped_ms)
{
    int fd = mpcr_ctl_connect(coord_sock);
    if (fd < 0) return 0;
    struct timeval tv = {120, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char msg[900], reply[64] = {0};
    size_t n = coord_secret[0] ? mpcr_fmt(msg, sizeof msg, "secret %s\n", coord_secret) : 0;
    n += rc ? mpcr_fmt(msg + n, sizeof msg - n, "image %llu error %s\n", (unsigned long long)gen, mpcr_errmsg)
            : stopped_ms >= 0
                ? mpcr_fmt(msg + n, sizeof msg - n, "image %llu ok %llu forked %ld\n", (unsigned long long)gen,
                           (unsigned long long)image_bytes, stopped_ms)
                : mpcr_fmt(msg + n, sizeof msg - n, "image %llu ok %llu\n", (unsigned long long)gen,
                           (unsigned long long)image_bytes);
    int quit = 0;
    if (write(fd, msg, n) == (ssize_t)n) {
        ssize_t k = 0, r;
        while (k < (ssize_t)sizeof reply - 1 && (r = read(fd, reply + k, sizeof reply - 1 - (size_t)k)) > 0) {
            k += r;
            if (memchr(reply, '\n', (size_t)k)) break;
        }
        quit = !strncmp(reply, "exit", 4);
    }
    close(fd);
    return quit;
}

/* The checkpoint is over: no longer busy, then the other threads go on.
 * In that order: a released thread unblocks SIGRTMAX as it leaves its
 * handler, and a request already pending (the coordinator's next one, sent
 * as soon as a restarted process reconnects) is then delivered to it; were
 * `busy` still set, that request would be refused as "already in progress".
 * Until release_all() every thread of the process has SIGRTMAX blocked (the
 * followers wait inside their handler), so nothing can begin in between. */
static void end_stop(void)
{
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
    release_all();
}

static int checkpoint(int type, uint64_t gen, int fork_how)
{
    int expected = 0;
    if (!__atomic_compare_exchange_n(&busy, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        int rc = mpcr_fail(-EBUSY, "a checkpoint is already in progress");
        if (type == REQ_COORD && coord_sock[0]) report(gen, rc, -1); /* the coordinator waits for an answer */
        return rc;
    }
    mpcr_errmsg[0] = 0;
    if (own_writer > 0) { /* the last one has reported (or the coordinator gave up on it): it ends */
        while (waitpid(own_writer, NULL, __WALL) < 0 && errno == EINTR) {}
        own_writer = 0;
    }
    stop_started_ms = now_ms();
    __atomic_store_n(&arrived, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&restored, 0, __ATOMIC_RELEASE);
    __atomic_add_fetch(&epoch, 1, __ATOMIC_ACQ_REL);
    char path[PATH_MAX], name[64];
    mpcr_fmt(name, sizeof name, "gen-%llu/rank-%u.img", (unsigned long long)gen, rank);
    int rc = type == REQ_COORD ? mpcr_path_join(path, sizeof path, ckpt_dir, name)
                               : mpcr_path_cat(path, sizeof path, api_path, "");
    if (rc) rc = mpcr_fail(rc, "the image's path is too long (%s)", type == REQ_COORD ? ckpt_dir : api_path);
    if (!rc && type == REQ_COORD && !ckpt_dir[0]) rc = mpcr_fail(-EINVAL, "MPCR_CKPT_DIR is not set");
    if (!rc) rc = stop_threads();
    /* With every other thread stopped, as the hook's contract says: what it
     * records is the state the image holds (the MPI library notes which of
     * its shared buffers are intact: a thread still running could replace
     * one after the note). */
    if (!rc && hooks.before && hooks.before(hooks.arg)) rc = mpcr_fail(-ECANCELED, "cancelled by the before-checkpoint hook");
    if (!rc) rc = take_image(path, gen, fork_how);
    if (rc == 2) { /* a forked writer has the image in hand; it reports */
        end_stop();
        if (hooks.resume) hooks.resume(hooks.arg);
        return 0;
    }
    if (rc == 1) {
        /* The hook first, the other threads after it (docs/engine.md): a
         * thread released first could reach what the hook has yet to set up
         * (the MPI library's channel to its new proxy, whose pid it checks). */
        if (hooks.restarted) hooks.restarted(hooks.arg);
        end_stop();
        return 1;
    }
    if (type == REQ_COORD && coord_sock[0] && report(gen, rc, -1)) syscall(SYS_exit_group, 0);
    end_stop();
    if (!rc && hooks.resume) hooks.resume(hooks.arg);
    return rc;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    if (si->si_code != SI_QUEUE) return;
    int saved = errno;
    uint64_t v = (uint64_t)si->si_value.sival_ptr;
    uint32_t num = (uint32_t)(v >> 32), slot = (uint32_t)(v >> 16) & 0xffff;
    switch (v & 0xff) {
    case REQ_FOLLOW: follow(slot, num); break;
    case REQ_COORD: checkpoint(REQ_COORD, num, (int)slot & (MPCR_CTL_MAY_FORK | MPCR_CTL_FORK_CHILD)); break;
    case REQ_API: api_result = checkpoint(REQ_API, 0, 0); break;
    }
    errno = saved;
}

/* ---- public API --------------------------------------------------------- */

/* Where glibc keeps its copy of a thread's id in the thread block (struct
 * pthread's tid). glibc hands that very field to the kernel as the thread's
 * clear-child-tid address (set_tid_address at start-up, CLONE_CHILD_CLEARTID
 * for pthread_create), so the kernel says where it is. Only where it cannot
 * (PR_GET_TID_ADDRESS needs CONFIG_CHECKPOINT_RESTORE) is the block searched
 * for the id's value, and then only a single match is believed: the block
 * holds addresses whose upper halves (0x7fxx, 0x7fff without ASLR) are
 * thread ids too where pid_max is 32768, and taking one of those for the
 * field failed checkpoints of every other thread. */
static void find_tid_offset(void)
{
    const char *tp = (const char *)pthread_self();
    int tid = (int)syscall(SYS_gettid);
    int *field = NULL;
    if (!prctl(PR_GET_TID_ADDRESS, &field) && (const char *)field >= tp && (const char *)field < tp + 4096 &&
        *field == tid) {
        mpcr_tid_offset = (const char *)field - tp;
        return;
    }
    long found = -1;
    for (long off = 0; off < 4096; off += 4)
        if (*(const int *)(tp + off) == tid) {
            if (found >= 0) return; /* two candidates: no knowing which */
            found = off;
        }
    mpcr_tid_offset = found;
}

int mpcr_engine_init(void)
{
    if (__atomic_exchange_n(&initialised, 1, __ATOMIC_ACQ_REL)) return 0;
    const char *d = getenv("MPCR_CKPT_DIR"), *c = getenv("MPCR_COORD_SOCK"), *r = getenv("MPCR_RANK");
    if (d) snprintf(ckpt_dir, sizeof ckpt_dir, "%s", d);
    if (c) snprintf(coord_sock, sizeof coord_sock, "%s", c);
    const char *secret = getenv("MPCR_COORD_SECRET");
    if (secret) snprintf(coord_secret, sizeof coord_secret, "%s", secret);
    if (r) rank = (unsigned)atoi(r);
    const char *job = getenv("MPCR_JOB_ID");
    if (job) job_id = strtoull(job, NULL, 16);
    const char *stop = getenv("MPCR_TEST_WRITER_STOP");
    writer_stops = stop && !strcmp(stop, "1");
    const char *every = getenv("MPCR_FULL_EVERY"), *incr = getenv("MPCR_INCR");
    mpcr_incr_init(incr && !strcmp(incr, "0") ? 1 : every ? atoi(every) : 8);
    find_tid_offset();
    mpcr_proc_init();
    mpcr_locks_init();
    mpcr_signals_init();
    mpcr_thr_affinity_init();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    if (sigaction(SIGRTMAX, &sa, NULL)) return -errno;
    return 0;
}

void mpcr_engine_set_hooks(const struct mpcr_engine_hooks *h)
{
    if (h) hooks = *h;
    else memset(&hooks, 0, sizeof hooks);
}

int mpcr_engine_exclude_region(void *addr, size_t len)
{
    if (mpcr_nexclude == MPCR_MAX_EXCLUDE) return -ENOSPC;
    uintptr_t a = (uintptr_t)addr & ~(MPCR_PAGE - 1);
    mpcr_exclude[mpcr_nexclude].start = a;
    mpcr_exclude[mpcr_nexclude].end = ((uintptr_t)addr + len + MPCR_PAGE - 1) & ~(MPCR_PAGE - 1);
    mpcr_nexclude++;
    return 0;
}

void mpcr_engine_set_coordinator(const char *addr, const char *secret, const char *dir)
{
    if (dir && dir[0]) {
        size_t k = 0;
        while (dir[k] && k < sizeof ckpt_dir - 1) ckpt_dir[k] = dir[k], k++;
        ckpt_dir[k] = 0;
    }
    size_t n = 0;
    while (addr && addr[n] && n < sizeof coord_sock - 1) coord_sock[n] = addr[n], n++;
    coord_sock[n] = 0;
    for (n = 0; secret && secret[n] && n < sizeof coord_secret - 1; n++) coord_secret[n] = secret[n];
    coord_secret[n] = 0;
}

int mpcr_engine_exclude_fd(int fd)
{
    if (fd < 0) return -EBADF;
    for (int i = 0; i < MPCR_MAX_EXCLUDE_FDS; i++)
        if (__sync_bool_compare_and_swap(&mpcr_exclude_fd[i], -1, fd)) return 0;
    return -ENOSPC;
}

void mpcr_engine_include_fd(int fd)
{
    for (int i = 0; i < MPCR_MAX_EXCLUDE_FDS; i++) __sync_bool_compare_and_swap(&mpcr_exclude_fd[i], fd, -1);
}

int mpcr_engine_checkpoint(const char *path)
{
    if (!initialised) mpcr_engine_init();
    sigset_t cur;
    pthread_sigmask(SIG_SETMASK, NULL, &cur);
    if (sigismember(&cur, SIGRTMAX)) return mpcr_fail(-EDEADLK, "SIGRTMAX is blocked in the calling thread");
    if (mpcr_path_cat(api_path, sizeof api_path, path, ""))
        return mpcr_fail(-ENAMETOOLONG, "the image's path is too long: %.200s...", path);
    api_result = -EINPROGRESS;
    if (send_req((int)syscall(SYS_gettid), REQ(REQ_API, 0, 0))) return -errno;
    return __atomic_load_n(&api_result, __ATOMIC_ACQUIRE); /* the handler ran before the system call returned */
}

const char *mpcr_engine_last_error(void) { return mpcr_errmsg; }

__attribute__((constructor)) static void mpcr_engine_ctor(void) { mpcr_engine_init(); }
