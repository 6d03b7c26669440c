/* mpcr-proxy-<mpi>: started by mpiexec in place of the program. It starts
 * the real MPI, then the program (with mpcr's passive library first on its
 * library path), serves the program's MPI calls, and ends with the
 * program's exit status.
 *
 *   mpcr-proxy-mpich --lib-dir DIR [--] PROGRAM ARGS...  */
#include "creation.h"
#include "ckpt.h"
#include "proxy.h"
#include "shared.h"
#include "report.h"
#include "requests.h"
#include "resource.h"
#include "state.h"
#include "triggers.h"
#include "windows.h"
#include "clock.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct proxy proxy = {.memfd = -1};
volatile sig_atomic_t child_exited;

/* The staging area may grow while the real MPI still holds pointers into it
 * (pending non-blocking calls), so it must never move: it is mapped at the
 * start of a large reservation, and grown in place. Shared buffers are
 * mapped in the reservation's upper part (channel.h: MPCR_SHARED_BASE). */
#define STAGING_RESERVE (MPCR_CHAN_CONTROL + MPCR_SHARED_END)
static void *reserve;

static void on_sigchld(int sig)
{
    (void)sig;
    child_exited = 1;
    if (proxy.chan) {
        atomic_fetch_add(&proxy.chan->doorbell, 1);
        mpcr_futex_wake(&proxy.chan->doorbell);
    }
}

_Noreturn void child_ended(void)
{
    int status;
    while (waitpid(proxy.child, &status, 0) < 0 && errno == EINTR) {
    }
    mpcr_report_end(proxy.rank, status); /* what follows is said here, or nothing is to be said */
    /* A checkpoint with --exit: the engine ends the program (status 0) once
     * its image is safe; the proxies end the job cleanly. */
    if (proxy.ckpt_exit ||
        (ckpt_stage() == CKPT_IMAGING && WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        windows_finalize();
        MPI_Finalize();
        _exit(0);
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        mpcr_report("rank %d: the program was killed by signal %d (%s)", proxy.rank, sig,
                    strsignal(sig));
        /* End the same way, so that mpiexec reports and cleans up as it would natively. */
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig);
    }
    int code = WEXITSTATUS(status);
    /* For the tests: a program that must use MPI, and ended without. A real
     * MPI loaded in its place is the guard's to catch (src/guard), at once;
     * this says what remains: it never called MPI_Init, or did so in an MPI
     * the guard cannot see (linked statically, stripped). */
    int expected_mpi = !proxy.app_connected && getenv("MPCR_EXPECT_MPI");
    if (expected_mpi) {
        mpcr_report("rank %d: the program ended without calling MPI_Init in mpcr's library "
                    "(MPCR_EXPECT_MPI is set): it uses no MPI, or an MPI of its own",
                    proxy.rank);
        code = code ? code : 1;
    }
    if (!proxy.finalized) {
        if (!proxy.app_connected && !expected_mpi && !proxy.restarted && code == 0) {
            /* A program that never used MPI and ended well: its proxy ends
             * cleanly, after the others (windows_finalize waits for all), as
             * such processes do under mpiexec. Not with another status: the
             * others may wait for this rank in MPI (a rank that failed before
             * MPI_Init, a restored image the restorer refused), and waiting
             * for them would hang the job (security.binding_mpi did). Hydra
             * then takes the proxy's exit for a bad termination and kills the
             * others (its status 9); `mpcr run` gives the job the code this
             * rank's end note carries, the first failure's, as natively. */
            windows_finalize();
            MPI_Finalize();
        } else if (proxy.app_connected) {
            mpcr_report_exit(code, "rank %d: the program exited with status %d without calling "
                                   "MPI_Finalize", proxy.rank, code);
        }
    }
    fflush(stderr);
    _exit(code); /* without MPI_Finalize when the program skipped it, as the program did */
}

_Noreturn void end_job_for_mpcr(int code)
{
    fflush(NULL);
    /* MPI_Abort is what ends every rank at once under any launcher; MPICH's
     * adds "application called MPI_Abort", which is not what happened, so
     * its stderr goes nowhere now. (Open MPI's launcher still says
     * MPI_ABORT was invoked: docs/abi-check.md.) */
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) dup2(null, 2);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

/* Sets variable name to value + ":" + its old value (or value alone),
 * keeping the old one in `saved` for the library to put back once the
 * program is connected (runtime/init.c): programs it starts are not ranks. */
static void prepend_env(const char *name, const char *saved, const char *value)
{
    const char *old = getenv(name);
    char *v;
    setenv(saved, old ? old : "", 1);
    if (asprintf(&v, "%s%s%s", value, old && *old ? ":" : "", old ? old : "") < 0) _exit(127);
    setenv(name, v, 1);
}

static _Noreturn void start_program(int sock, const char *lib_dir, char **argv)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Only the channel socket and the standard streams go to the program;
     * MPI's own descriptors (PMI, shared memory) stay with the proxy. */
    if (sock > 3) close_range(3, sock - 1, 0);
    close_range(sock + 1, ~0u, 0);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sock);
    setenv(MPCR_ENV_CHANNEL_FD, fd, 1);
    snprintf(fd, sizeof fd, "%d", proxy.rank);
    setenv("MPCR_RANK", fd, 1); /* the engine names its image rank-R.img */
    prepend_env("LD_LIBRARY_PATH", MPCR_ENV_SAVED_LIBRARY_PATH, lib_dir);
    /* The guard sees every object the program loads, before it runs; one
     * that is an MPI mpcr cannot stand in for ends the job (src/guard). */
    char guard[PATH_MAX];
    if (!mpcr_path_join(guard, sizeof guard, lib_dir, "libmpcr-guard.so") && !access(guard, R_OK))
        prepend_env("LD_AUDIT", MPCR_ENV_SAVED_AUDIT, guard);
    signal(SIGCHLD, SIG_DFL);
    triggers_ignore();
    execvp(argv[0], argv);
    int e = errno;
    mpcr_report("rank %d: cannot start %s: %s", proxy.rank, argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126); /* as shells do: absent, or there but not executable */
}

/* Waits for the program's hello, which carries the channel's memfd. Returns
 * 0, or -1 if the program ended first (child_ended handles that). */
static int accept_channel(int sock)
{
    for (;;) {
        if (child_exited) child_ended();
        struct pollfd p = {sock, POLLIN, 0};
        int n = poll(&p, 1, 200);
        if (n < 0 && errno != EINTR) return -1;
        if (n <= 0) continue;
        if (p.revents & (POLLHUP | POLLERR) && !(p.revents & POLLIN)) return -1;
        struct mpcr_hello hello;
        int err = mpcr_recv_fd(sock, &proxy.memfd, &hello, sizeof hello);
        if (err == -ECONNRESET) return -1; /* closed: the program ended */
        /* its guard has said which MPI it loaded; nothing of it runs on */
        if (!err && proxy.memfd < 0 && hello.magic == MPCR_CHAN_MAGIC &&
            hello.version == MPCR_HELLO_REFUSED)
            end_job_for_mpcr(1);
        if (!err && proxy.memfd < 0) err = -EPROTO;
        if (err == -EPROTO ||
            (!err && (hello.magic != MPCR_CHAN_MAGIC || hello.version != MPCR_CHAN_VERSION))) {
            mpcr_report("rank %d: the program's MPI library speaks another channel version; "
                        "rebuild or reinstall mpcr consistently",
                        proxy.rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (err) return -1;
        reserve = proxy_reserve(STAGING_RESERVE, PROXY_RESERVE_STAGING);
        proxy.staging_size = hello.staging_size; /* 0, except after a restart */
        proxy.chan = hello.staging_size > MPCR_SHARED_BASE
                         ? MAP_FAILED
                         : mmap(reserve, MPCR_CHAN_CONTROL + hello.staging_size,
                                PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, proxy.memfd, 0);
        if (reserve == MAP_FAILED || proxy.chan == MAP_FAILED) {
            perror("mpcr-proxy: cannot map the channel");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        proxy.app_connected = 1;
        return 0;
    }
}

/* Extends the memfd and this side's mapping of it, in place (GROW). The
 * size comes from the program: compared so that no sum wraps around. */
int grow_staging(uint64_t size)
{
    if (size > MPCR_SHARED_BASE ||
        ftruncate(proxy.memfd, (off_t)(MPCR_CHAN_CONTROL + size)) < 0 ||
        mmap(reserve, MPCR_CHAN_CONTROL + size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
             proxy.memfd, 0) == MAP_FAILED)
        return MPI_ERR_NO_MEM;
    proxy.staging_size = size;
    return MPI_SUCCESS;
}

/* While the program computes with requests of its own pending (a
 * non-blocking transfer, a collective's round), the proxy drives them
 * between naps instead of sleeping until the next call: MPI moves a large
 * message only when both sides make progress calls, so without this the
 * transfer waited for the program's next MPI call (issue 11, point 3;
 * bench/overlap.c). The naps double from IDLE_NAP_MIN_US while nothing
 * completes, up to IDLE_NAP_MAX_US, and after IDLE_QUIET_US without a
 * completion up to IDLE_NAP_LONG_US: a receive posted long before its
 * message costs about a hundred wake-ups a second. A call wakes the proxy
 * at once, whatever its nap (the program rings the doorbell). */
#define IDLE_NAP_MIN_US 20
#define IDLE_NAP_MAX_US 1000
#define IDLE_QUIET_US 100000
#define IDLE_NAP_LONG_US 10000

/* The next nap: short again after a completion, else twice the last. */
static long next_nap(long nap_us, int completed, uint64_t *quiet_since_ns)
{
    uint64_t now = mpcr_now_ns();
    if (completed || !*quiet_since_ns) *quiet_since_ns = now;
    if (completed) return IDLE_NAP_MIN_US;
    long cap = now - *quiet_since_ns > IDLE_QUIET_US * 1000ull ? IDLE_NAP_LONG_US : IDLE_NAP_MAX_US;
    return nap_us * 2 > cap ? cap : nap_us * 2;
}

/* Whether threads of the program contend for the library's lock (lock_wanted
 * seen in the last CONTENDED_NS). The yield phase below is then left out: its
 * yields hand the core round the program's threads that wait in turn
 * (docs/threads.md), which poll the proxy more, and the next call comes no
 * sooner. t_ckpt_threads 300 4 (4 threads a rank) under Open MPI's proxy,
 * which binds each rank and its proxy to one core, on 2 cores beside two busy
 * loops: 19.0 s with the phase, 3.3-3.8 s without (0.6 s either way idle); a
 * one-thread program never sets lock_wanted and keeps it (2026-12-07). */
#define CONTENDED_NS 100000000u
static int threads_contend(void)
{
    static uint64_t until;
    if (atomic_load_explicit(&proxy.chan->lock_wanted, memory_order_relaxed)) {
        until = mpcr_now_ns() + CONTENDED_NS;
        return 1;
    }
    if (until && mpcr_now_ns() >= until) until = 0;
    return until != 0;
}

/* Waits for the next call: spins a while (or polls with sched_yield, where
 * cores are shared: mpcr_spin), then sleeps on the doorbell, or naps
 * between progress calls while requests are pending.
 * Returns 1 when a call is there, 0 when the coordinator said something. */
static int wait_call(void)
{
    struct mpcr_chan *ch = proxy.chan;
    static unsigned calls;
    if (++calls % 1024 == 0) shared_nudge(ch); /* calls that never let the proxy wait, too */
    if (mpcr_spin(&ch->call.seq, proxy.last_seq, 0, 0)) return 1;
    /* No yield phase while requests are pending: a yield hands the core to
     * a computing program for the rest of its time slice (ms), and their
     * transfers would wait that long for the naps below (bench/overlap). */
    if (mpcr_yield_ns() && !req_pending() && !threads_contend() &&
        mpcr_yield_poll(&ch->call.seq, proxy.last_seq, 0, mpcr_yield_ns()))
        return 1;
    int ready = 1;
    long nap_us = IDLE_NAP_MIN_US / 2;
    uint64_t quiet_since_ns = 0;
    for (;;) {
        atomic_store(&ch->reply.proxy_sleeping, 1);
        uint32_t bell = atomic_load(&ch->doorbell);
        if (atomic_load(&ch->call.seq) != proxy.last_seq) break;
        if (child_exited) child_ended();
        if (ckpt_poll()) {
            ready = 0;
            break;
        }
        shared_nudge(ch);
        int completed = req_progress_idle();
        /* others' one-sided operations on this rank's windows move only
         * when this proxy turns the real MPI's progress (docs/one-sided.md) */
        if (completed < 0 && windows_progress()) completed = 0;
        if (completed > 0 && atomic_load_explicit(&ch->helper_waits, memory_order_relaxed)) {
            /* a round of a collective may have completed: the library's
             * helper advances it while the program computes */
            atomic_fetch_add(&ch->progress_kick, 1);
            mpcr_futex_wake(&ch->progress_kick);
        }
        if (completed < 0) {
            mpcr_futex_wait(&ch->doorbell, bell, 1000);
            continue;
        }
        nap_us = next_nap(nap_us, completed, &quiet_since_ns);
        mpcr_futex_wait_us(&ch->doorbell, bell, nap_us);
    }
    atomic_store_explicit(&ch->reply.proxy_sleeping, 0, memory_order_relaxed);
    return ready;
}

/* Settings of the real MPI that mpcr's use of it needs, as its
 * environment variables, set before MPI_Init (on) and taken away after
 * (off) unless the user had set them. Open MPI's dynamic windows take at
 * most osc_rdma_max_attach (64) attachments, and every window of the
 * program is one or more (docs/one-sided.md): MPICH's rma/window_creation
 * makes 1,000 windows at once. */
static void real_mpi_settings(int on)
{
#ifdef OPEN_MPI
    static const char *const vars[][2] = {{"OMPI_MCA_osc_rdma_max_attach", "8192"}};
    static int set[sizeof vars / sizeof vars[0]];
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (on && !getenv(vars[i][0]))
            set[i] = !setenv(vars[i][0], vars[i][1], 0);
        else if (!on && set[i])
            unsetenv(vars[i][0]);
#else
    (void)on;
#endif
}

static _Noreturn void serve(void)
{
    /* The answer is written here while serving, then into the reply line in
     * one burst (mpcr_line_fill): the program polls that line, and fields
     * stored there one at a time would pull it back and forth. Fields an op
     * leaves alone keep the last answer's, as the line did. */
    static struct mpcr_reply answer;
    memcpy(&answer, &proxy.chan->reply, sizeof answer); /* a restarted proxy: the line's */
    for (;;) {
        if (!wait_call() || ckpt_poll()) {
            ckpt_hold(); /* a checkpoint: no call is served until it is over */
            continue;
        }
        struct mpcr_chan *ch = proxy.chan;
        uint32_t seq = atomic_load_explicit(&ch->call.seq, memory_order_acquire);
        /* A copy: what serve_call checks is what it uses, whatever the
         * program writes meanwhile (it is not trusted). */
        struct mpcr_call c;
        memcpy(&c, &ch->call, sizeof c);
        struct mpcr_reply *r = &ch->reply;
        uint64_t t0 = atomic_load_explicit(&ch->profile, memory_order_relaxed) ? mpcr_ticks() : 0;
        serve_call(&c, &answer);
        if (t0) atomic_fetch_add_explicit(&ch->proxy_serve_ticks, mpcr_ticks() - t0, memory_order_relaxed);
        if (call_abandoned) continue; /* served again once the checkpoint is over */
        proxy.last_seq = seq;
        mpcr_line_fill(r, &answer, offsetof(struct mpcr_reply, proxy_sleeping), sizeof *r);
        atomic_store(&r->seq, seq); /* seq_cst: ordered before the load below */
        if (atomic_load(&ch->call.app_sleeping)) mpcr_futex_wake(&r->seq);
        if (proxy.finalized) child_ended(); /* waits for the program to exit */
    }
}

int progress_wait(MPI_Request *req, MPI_Status *st, int abandonable)
{
    for (;;) {
        int flag = 0, rc = MPI_Test(req, &flag, st);
        if (rc != MPI_SUCCESS || flag) return rc;
        if (child_exited) child_ended();
        if (ckpt_poll() && abandonable) return PROXY_ABANDON;
        progress_pause();
    }
}

/* Where cores are shared, the time a waiting side polls with sched_yield()
 * before it sleeps on a futex (docs/channel.md, "A call"; MPCR_YIELD_NS
 * overrides it, 0 turns it off). A hand-off from the proxy's reply to the
 * program's next call then costs two yields instead of two futex wake-ups
 * (docs/performance.md, "2026-12-05": 8 B 6.0 -> 4.0 us on 2 cores). */
#define SHARED_YIELD_NS 20000

/* Spin only where every application and proxy of this node has a core;
 * where they share cores, poll with sched_yield() a while instead. */
static void choose_spin(void)
{
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    cpu_set_t cpus;
    int ncpus = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
    /* Bound to fewer cores than the node's ranks: the proxy shares its core. */
    int shared = 2 * local > ncpus;
    /* The program learns the yield time from its environment (it inherits
     * the proxy's): MPCR_YIELD_NS, unless the user set it. */
    char ns[32];
    snprintf(ns, sizeof ns, "%d", shared ? SHARED_YIELD_NS : 0);
    setenv("MPCR_YIELD_NS", ns, 0);
    mpcr_set_spin_ns(shared ? 0 : 50000);
    /* Polling MPI in a blocking call the proxy does not yield (unless
     * MPCR_PROGRESS_YIELD=1): its program, waiting for the answer, has
     * nothing to do, and a yield to it costs a switch there and back before
     * the next poll: a message arriving then was seen a microsecond or more
     * late (8 B 5.4 us with these yields against 4.0 without, 2026-12-05). */
    const char *py = getenv("MPCR_PROGRESS_YIELD");
    progress_yield = py && atoi(py) != 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: mpcr-proxy --lib-dir DIR [--] PROGRAM ARGS...\n"
                    "       mpcr-proxy --restore GENERATION-DIR\n"
                    "(started by `mpcr run` and `mpcr restart`, not by hand)\n");
    return 2;
}

/* Restart: the restorer, beside this program, becomes the application again
 * from its image; its library's `restarted` hook finds the set-up socket at
 * MPCR_RESTART_FD and sends the channel, with a call in progress in it. */
static _Noreturn void start_restorer(int sock, const char *gen_dir)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (dup2(sock, MPCR_RESTART_FD) < 0) _exit(127);
    close_range(3, MPCR_RESTART_FD - 1, 0);
    close_range(MPCR_RESTART_FD + 1, ~0u, 0);
    char self[PATH_MAX], restorer[PATH_MAX], image[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) _exit(127);
    self[n] = 0;
    *strrchr(self, '/') = 0;
    if (mpcr_path_join(restorer, sizeof restorer, self, "mpcr-restore") ||
        mpcr_path_printf(image, sizeof image, "%s/rank-%d.img", gen_dir, proxy.rank)) {
        mpcr_report("rank %d: the path of the restorer or of the image is too long (%s)", proxy.rank, gen_dir);
        _exit(127);
    }
    signal(SIGCHLD, SIG_DFL);
    /* until the engine sets the dispositions (the image's, the restart's triggers ignored) */
    triggers_ignore();
    execl(restorer, restorer, image, (char *)NULL);
    mpcr_report("rank %d: cannot start the restorer %s: %s", proxy.rank, restorer, strerror(errno));
    _exit(127);
}

int main(int argc, char **argv)
{
    const char *lib_dir = NULL, *restore = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--lib-dir") && i + 1 < argc)
            lib_dir = argv[++i];
        else if (!strcmp(argv[i], "--restore") && i + 1 < argc)
            restore = argv[++i];
        else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else
            return usage();
    }
    if (restore ? i != argc : !lib_dir || i >= argc) return usage();

    mpcr_report_open();
    int provided;
    real_mpi_settings(1);
    /* MULTIPLE: a communicator creation's real call may run in a thread of
     * its own (creation.h); every other call is made by this thread. */
    MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided);
    real_mpi_settings(0); /* (the program, forked below, gets the environment it was given) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    creation_init(provided); /* after: its duplicate of the world returns errors too */
    MPI_Comm_rank(MPI_COMM_WORLD, &proxy.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &proxy.size);
    mpcr_report_start(proxy.rank);
    map_init();
    windows_init(); /* collective over the proxies, before any program runs */

    choose_spin();
    proxy.restarted = restore != NULL;
    if (restore) {
        char err[512];
        if (state_load(restore, err, sizeof err)) {
            mpcr_report("rank %d: cannot restart: %s", proxy.rank, err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        windows_start_loaded(); /* collective: every proxy's state agrees */
    }
    ckpt_connect();

    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
        perror("mpcr-proxy: socketpair");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    struct sigaction sa = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigaction(SIGCHLD, &sa, NULL);
    fflush(NULL);
    proxy.child = fork();
    if (proxy.child < 0) {
        perror("mpcr-proxy: fork");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (proxy.child == 0) {
        if (fcntl(sv[1], F_SETFD, 0) < 0) _exit(127);
        if (restore) start_restorer(sv[1], restore);
        start_program(sv[1], lib_dir, argv + i);
    }
    close(sv[1]);
    if (accept_channel(sv[0]) < 0) child_ended(); /* the program ended before MPI_Init */
    if (restore) {
        /* Where the restarted program reports now, and how long it spins and
         * yields here: "REPORTS\0COORDINATOR\0SECRET\0DIR\0SPIN_NS\0YIELD_NS\0". */
        char where[4 * 1000 + 64], spin[24], yield[24];
        snprintf(spin, sizeof spin, "%llu", (unsigned long long)mpcr_spin_ns());
        snprintf(yield, sizeof yield, "%llu", (unsigned long long)mpcr_yield_ns());
        const char *v[6] = {getenv(MPCR_ENV_REPORT_SOCKET), getenv("MPCR_COORD_SOCK"),
                            getenv("MPCR_COORD_SECRET"), getenv("MPCR_CKPT_DIR"), spin, yield};
        size_t n = 0;
        for (int k = 0; k < 6; k++) {
            const char *e = v[k] && strlen(v[k]) < 1000 ? v[k] : "";
            memcpy(where + n, e, strlen(e) + 1);
            n += strlen(e) + 1;
        }
        if (send(sv[0], where, n, MSG_NOSIGNAL) < 0) {
        }
        shared_accept(sv[0]);
    }
    close(sv[0]);
    if (restore) {
        /* A call published and not answered before the checkpoint is served again. */
        proxy.last_seq = atomic_load(&proxy.chan->reply.seq);
        resources_resume();
    }
    serve();
}
