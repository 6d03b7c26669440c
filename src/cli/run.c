/* `mpcr run`: starts an MPI job whose every rank runs behind an mpcr proxy.
 *
 *   mpcr run [-n N] [--mpi mpich] [--] PROGRAM ARGS...
 *
 * It launches `mpiexec.mpich -n N mpcr-proxy-mpich --lib-dir L -- PROGRAM
 * ARGS`, passes signals on to it, and exits with its status. The
 * coordinator of later checkpoints will live in this process. */
#include "abi_check.h"
#include "ckpt_common.h"
#include "cli.h"
#include "option_value.h"
#include "path.h"
#include "proxy_watch.h"
#include "report.h"
#include "signal_option.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t launcher;
static volatile sig_atomic_t forwarded; /* the last signal passed on to the job */

static void forward(int sig)
{
    forwarded = sig;
    if (launcher > 0) kill(launcher, sig);
}

/* The socket on which proxies and programs report failures (report.h). */
static char report_dir[PATH_MAX];
static int report_fd = -1;

/* Run directories of this user's `mpcr run`s that were killed (SIGKILL
 * leaves no chance to clean up): no one receives on their socket any more.
 * Only those older than a minute, so that one being set up is left alone. */
static void remove_stale_run_dirs(const char *tmp)
{
    DIR *d = opendir(tmp);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char dir[PATH_MAX], sock[PATH_MAX];
        struct stat st;
        if (strncmp(e->d_name, "mpcr-run-", 9) || mpcr_path_join(dir, sizeof dir, tmp, e->d_name) ||
            lstat(dir, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            time(NULL) - st.st_mtime < 60)
            continue;
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (mpcr_path_join(sock, sizeof sock, dir, "reports") || strlen(sock) >= sizeof a.sun_path)
            continue;
        memcpy(a.sun_path, sock, strlen(sock));
        int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        int alive = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof a);
        if (fd >= 0) close(fd);
        if (alive) continue;
        unlink(sock);
        if (!rmdir(dir))
            fprintf(stderr, "mpcr: removed %s, left by an mpcr run that was killed\n", dir);
    }
    if (d) closedir(d);
}

static void open_reports(void)
{
    const char *tmp = getenv("TMPDIR");
    remove_stale_run_dirs(tmp && *tmp ? tmp : "/tmp");
    snprintf(report_dir, sizeof report_dir, "%s/mpcr-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(report_dir)) return;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(report_dir) + sizeof "/reports" > sizeof a.sun_path) {
        mpcr_err("run: TMPDIR %s is too long for a socket path; failure reports go to stderr",
                 report_dir);
        rmdir(report_dir);
        return;
    }
    memcpy(a.sun_path, report_dir, strlen(report_dir));
    strcat(a.sun_path, "/reports");
    report_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (report_fd < 0 || bind(report_fd, (struct sockaddr *)&a, sizeof a) < 0) {
        mpcr_err("run: cannot create %s (%s); failure reports go to stderr", a.sun_path,
                 strerror(errno));
        if (report_fd >= 0) close(report_fd);
        report_fd = -1;
        rmdir(report_dir);
        return;
    }
    setenv(MPCR_ENV_REPORT_SOCKET, a.sun_path, 1);
}

/* The exit code of the first rank that ended without MPI_Finalize (0: none),
 * from its proxy's report (report.h: mpcr_report_exit). */
static int unfinalized_code;

/* How many reports the ranks sent: a job that failed with none is named by
 * its launcher's status (say_unexplained_end). */
static int reports_seen;
/* Of those, the programs' word that their proxy died (src/lib/runtime/init.c,
 * call.c): a consequence, not a cause. */
static int proxy_gone_reports;
#define PROXY_GONE ": its proxy (pid "
static unsigned char code_noted[256];
/* The first non-zero code a proxy passed on: a program that ended with its
 * own status (one that never used MPI, exiting 1), whose proxy's exit Hydra
 * then answers by killing the others (its status 9). */
static int first_noted_failure; /* the exit codes the proxies passed on (report.h) */

/* Prints a report; one carrying an exit code gives unfinalized_code. Takes
 * fd, the descriptor a start note carries (-1: none). */
static void print_report(const char *msg, unsigned n, int fd)
{
    if (fd >= 0 && (n < 2 || msg[0] != MPCR_REPORT_START_MARK)) close(fd), fd = -1;
    if (n > 1 && msg[0] == MPCR_REPORT_END_MARK) { /* a proxy saw its program end */
        unsigned code = 0;
        for (unsigned k = 1; k < n && k < 5 && msg[k] >= '0' && msg[k] <= '9'; k++) code = code * 10 + (unsigned)(msg[k] - '0');
        code_noted[code & 255] = 1;
        if (code && !first_noted_failure) first_noted_failure = (int)code;
        mpcr_proxy_watch_noted_end(msg, n);
        return;
    }
    if (n > 1 && msg[0] == MPCR_REPORT_START_MARK) {
        mpcr_proxy_watch_started(msg, n, fd);
        return;
    }
    reports_seen++;
    if (memmem(msg, n, PROXY_GONE, sizeof PROXY_GONE - 1)) proxy_gone_reports++;
    int code = mpcr_report_strip_exit(&msg, &n);
    if (!unfinalized_code) unfinalized_code = code;
    fwrite(msg, 1, n, stderr);
}

/* How long a failed job's end waits for a rank's last report. */
#define LATE_REPORT_MS 300

/* One datagram of the report socket, and the first descriptor it carried
 * (a start note's pipe end, report.h) in *fd; any others are closed. */
static ssize_t receive_report(char *msg, size_t size, int *fd)
{
    struct iovec text = {.iov_base = msg, .iov_len = size};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(4 * sizeof(int))];
    } control;
    struct msghdr m = {.msg_iov = &text, .msg_iovlen = 1, .msg_control = control.bytes,
                       .msg_controllen = sizeof control.bytes};
    ssize_t n = recvmsg(report_fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
            int got;
            memcpy(&got, CMSG_DATA(c) + k * sizeof(int), sizeof got);
            if (*fd < 0) *fd = got;
            else close(got);
        }
    }
    if (n <= 0 && *fd >= 0) close(*fd), *fd = -1;
    return n;
}

/* Prints the reports waiting on the socket; waits up to timeout_ms for one,
 * or until end_fd (-1: none) polls readable. */
static void print_reports(int timeout_ms, int end_fd)
{
    struct pollfd p[2] = {{report_fd, POLLIN, 0}, {end_fd, POLLIN, 0}};
    while (report_fd >= 0 && poll(p, 2, timeout_ms) > 0 && (p[0].revents & POLLIN)) {
        char msg[MPCR_REPORT_MAX];
        int fd = -1;
        ssize_t n = receive_report(msg, sizeof msg, &fd);
        if (n <= 0) break;
        print_report(msg, (unsigned)n, fd);
        timeout_ms = 0;
    }
}

/* A failed job's end: a moment for a late report (see mpcr_run_job), then
 * the first proxy to end, if it said nothing. */
static void say_failed_end(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long waited = 0; !reports_seen && waited < LATE_REPORT_MS;) {
        print_reports((int)(LATE_REPORT_MS - waited), -1);
        clock_gettime(CLOCK_MONOTONIC, &t);
        waited = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
    }
    int rank;
    pid_t pid;
    /* not when mpcr passed a signal on: the proxies ended by it, as asked */
    if (!forwarded && reports_seen == proxy_gone_reports && mpcr_proxy_watch_first_silent(&rank, &pid))
        mpcr_err("run: rank %d's proxy (pid %d) was the first process of the job to end, and it said "
                 "nothing: it was killed (by hand, the OOM killer, a batch system's limit) or crashed",
                 rank, (int)pid);
}

static void close_reports(void)
{
    if (report_fd < 0) return;
    print_reports(0, -1);
    mpcr_proxy_watch_close();
    char path[PATH_MAX];
    if (!mpcr_path_join(path, sizeof path, report_dir, "reports")) unlink(path);
    rmdir(report_dir);
    close(report_fd);
}

/* How each MPI implementation's launcher starts the proxies. */
static const struct launcher {
    const char *mpi, *exe;
    const char *options[4];  /* always passed */
    const char *root_option; /* passed when running as root */
    const char *hint;        /* when its proxy is missing */
} launchers[] = {
    {"mpich", "mpiexec.mpich", {NULL}, NULL, "is mpcr installed completely?"},
    /* Open MPI refuses more processes than cores, and root, unless told. */
    {"openmpi",
     "mpirun.openmpi",
     {"--oversubscribe", NULL},
     "--allow-run-as-root",
     "mpcr was built without Open MPI (install libopenmpi-dev and rebuild)"},
};

static const struct launcher *launcher_of(const char *mpi)
{
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0]; i++)
        if (!strcmp(launchers[i].mpi, mpi)) return &launchers[i];
    return NULL;
}

static int run_usage(void)
{
    fprintf(
        stderr,
        "usage: mpcr run [-n N] [--mpi mpich|openmpi] [--ckpt-dir DIR [--interval T] [--keep K] [--full-every N]]\n"
        "                [--coordinator A.B.C.D:PORT --ckpt-dir DIR]\n"
        "                [--checkpoint-signal SIG] [--exit-signal SIG] [--profile PDIR] [--] PROGRAM ARGS...\n"
        "       mpcr run --no-mpi [--ckpt-dir DIR] [--interval T] [--keep K] [--full-every N] PROGRAM ARGS...\n");
    return 2;
}

/* Parses a positive count; 0 when invalid. */
static long positive(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || *end || v <= 0 || v > INT_MAX ? 0 : v;
}

static struct mpcr_coord *coordinator;
static void on_reports(void)
{
    print_reports(0, -1);
}

int mpcr_run_job(const char *mpi, int nranks, char *const proxy_args[], struct mpcr_coord *c)
{
    const struct launcher *l = launcher_of(mpi);
    if (!l) {
        mpcr_err("--mpi %s is not supported (mpich or openmpi)", mpi);
        return 2;
    }
    char proxy[PATH_MAX], nprocs[16], rel[64];
    snprintf(rel, sizeof rel, "../libexec/mpcr/mpcr-proxy-%s", mpi);
    if (mpcr_sibling(proxy, sizeof proxy, rel)) return 1;
    snprintf(nprocs, sizeof nprocs, "%d", nranks);
    if (access(proxy, X_OK) < 0) {
        mpcr_err("cannot find the proxy %s: %s; %s", proxy, strerror(errno), l->hint);
        return 1;
    }
    const char *mpiexec = getenv("MPCR_MPIEXEC");
    if (!mpiexec) mpiexec = l->exe;

    int nargs = 0;
    while (proxy_args[nargs])
        nargs++;
    char **args = calloc((size_t)nargs + 12, sizeof *args);
    int k = 0;
    args[k++] = (char *)mpiexec;
    for (const char *const *o = l->options; *o; o++)
        args[k++] = (char *)*o;
    if (l->root_option && geteuid() == 0) args[k++] = (char *)l->root_option;
    args[k++] = "-n";
    args[k++] = nprocs;
    args[k++] = proxy;
    for (int j = 0; j < nargs; j++)
        args[k++] = proxy_args[j];

    if (c) { /* the proxies and the programs' engines find the coordinator here */
        char sock[PATH_MAX];
        if (mpcr_path_join(sock, sizeof sock, c->dir, "coord.sock")) {
            mpcr_err("the checkpoint directory's path is too long: %s", c->dir);
            return 1;
        }
        setenv("MPCR_CKPT_DIR", c->dir, 1);
        setenv("MPCR_COORD_SOCK", sock, 1);
        char job[32]; /* the engines and proxies write it into every image and state file */
        snprintf(job, sizeof job, "%016" PRIx64, c->job_id);
        setenv("MPCR_JOB_ID", job, 1);
        c->mpi = mpi;
        coordinator = c;
    }
    struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    open_reports();
    launcher = fork();
    if (launcher < 0) {
        mpcr_err("fork: %s", strerror(errno));
        return 1;
    }
    if (launcher == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* mpcr run killed: the job ends too */
        execvp(args[0], args);
        mpcr_err("cannot start %s: %s; install MPICH (scripts/setup.sh does)", args[0],
                 strerror(errno));
        _exit(127);
    }
    int status;
    if (coordinator) {
        status = mpcr_job_serve(coordinator, nranks, launcher, report_fd, on_reports);
    } else {
        int launcher_end = mpcr_process_end_fd(launcher);
        for (;;) {
            pid_t w = waitpid(launcher, &status, WNOHANG);
            if (w == launcher) break;
            if (w < 0 && errno != EINTR) return 1;
            print_reports(100, launcher_end);
        }
        if (launcher_end >= 0) close(launcher_end);
    }
    /* A rank whose proxy died says so from its death signal's handler, which
     * may run just after the launcher ended (it ends as soon as it has seen
     * the proxy go): a failed job gets a moment for such a late word. */
    if (WIFSIGNALED(status) || WEXITSTATUS(status)) say_failed_end();
    close_reports();
    free(args);
    /* a status that neither a rank's report nor the code a proxy passed on explains */
    if (!forwarded && !reports_seen &&
        (WIFSIGNALED(status) || (WEXITSTATUS(status) && !code_noted[WEXITSTATUS(status)] && !first_noted_failure)))
        mpcr_say_unexplained_end(mpiexec, status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    if (forwarded) { /* mpiexec may end with 0 after passing a signal on: not a success */
        mpcr_err("run: the job ended (%s status %d) after mpcr passed on signal %d (%s)",
                 mpiexec, WEXITSTATUS(status), forwarded, strsignal(forwarded));
        return 128 + forwarded;
    }
    /* Hydra's clean-up may report a process it killed instead (report.h). */
    if (WEXITSTATUS(status) && unfinalized_code) return unfinalized_code;
    if (WEXITSTATUS(status) && first_noted_failure) return first_noted_failure;
    return WEXITSTATUS(status);
}

int cmd_run(int argc, char **argv)
{
    const char *nprocs = "1", *mpi = "mpich", *ckpt_dir = NULL, *coord_addr = NULL;
    const char *profile = getenv("MPCR_PROFILE"); /* a batch script's */
    double interval = 0;
    int keep = 2, i = 1;
    struct mpcr_signals sigs;
    mpcr_signals_init(&sigs);
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--no-mpi")) return cmd_run_no_mpi(argc, argv);
        if (!strcmp(o, "--")) {
            i++;
            break;
        }
        int taken = mpcr_signal_option(&sigs, o, i + 1 < argc ? argv[i + 1] : NULL);
        if (taken < 0) return run_usage();
        if (taken) {
            i++;
            continue;
        }
        if ((!strcmp(o, "-n") || !strcmp(o, "-np")) && i + 1 < argc) {
            nprocs = argv[++i];
            long n, most = mpcr_max_local_ranks();
            if (mpcr_opt_count("run", "-n", nprocs, INT_MAX, &n)) return run_usage();
            if (n > most) {
                mpcr_err("run: -n %ld is more ranks than the launcher can start on this host: at most %ld, "
                         "as each rank takes %d of its open files and %d processes (`ulimit -n` and `ulimit -u` "
                         "are the limits)",
                         n, most, MPCR_LAUNCHER_FDS_PER_RANK, MPCR_PROCESSES_PER_RANK);
                return MPCR_EXIT_FAILURE;
            }
        } else if (!strcmp(o, "--mpi") && i + 1 < argc) {
            mpi = argv[++i];
        } else if (!strcmp(o, "--coordinator") && i + 1 < argc) {
            coord_addr = argv[++i];
        } else if (!strcmp(o, "--ckpt-dir") && i + 1 < argc) {
            ckpt_dir = argv[++i];
        } else if (!strcmp(o, "--profile") && i + 1 < argc) {
            profile = argv[++i];
        } else if (!strcmp(o, "--interval") && i + 1 < argc) {
            if (mpcr_opt_seconds("run", "--interval", argv[++i], &interval)) return run_usage();
        } else if (!strcmp(o, "--keep") && i + 1 < argc) {
            long k;
            if (mpcr_opt_count("run", "--keep", argv[++i], MPCR_MAX_KEEP, &k)) return run_usage();
            keep = (int)k;
        } else if (!strcmp(o, "--full-every") && i + 1 < argc) {
            if (mpcr_opt_full_every("run", argv[++i])) return run_usage();
        } else {
            mpcr_err("run: unknown or incomplete option '%s'", o);
            return run_usage();
        }
    }
    if (i >= argc) {
        mpcr_err("run: no program given");
        return run_usage();
    }
    if (!launcher_of(mpi)) {
        mpcr_err("run: --mpi %s is not supported (mpich or openmpi)", mpi);
        return 2;
    }
    if (interval > 0 && !ckpt_dir) ckpt_dir = MPCR_DEFAULT_CKPT_DIR;
    if (coord_addr && (interval > 0 || !ckpt_dir)) {
        mpcr_err("run: --coordinator needs --ckpt-dir (the coordinator's, shared); --interval "
                 "belongs to `mpcr coordinator`");
        return run_usage();
    }
    if (mpcr_signals_check(&sigs)) return run_usage();
    if (!ckpt_dir && sigs.given) {
        mpcr_err("run: --checkpoint-signal and --exit-signal need --ckpt-dir (a job without one "
                 "cannot be checkpointed)");
        return run_usage();
    }
    char lib_dir[PATH_MAX];
    if (mpcr_sibling(lib_dir, sizeof lib_dir, "../lib/mpcr")) return 1;
    /* before anything starts: a program that cannot be executed, or built for another MPI, is refused */
    int runnable = mpcr_program_runnable("run", argv[i]);
    if (runnable) return runnable;
    if (mpcr_abi_check(argv[i], lib_dir, 0)) return MPCR_EXIT_FAILURE;
    if (coord_addr && mpcr_use_coordinator(coord_addr, ckpt_dir)) return 1;
    if (profile && *profile && mpcr_profile_prepare("run", profile)) return 1;
    struct mpcr_coord c;
    if (ckpt_dir && !coord_addr) {
        if (mpcr_open_coord(&c, ckpt_dir)) return 1;
        c.interval = interval;
        c.keep = keep;
        c.checkpoint_signal = sigs.checkpoint, c.exit_signal = sigs.exit;
    }
    if (ckpt_dir) mpcr_signals_export(&sigs); /* the proxies pass them on to the coordinator */
    char **proxy_args = calloc((size_t)(argc - i) + 4, sizeof *proxy_args);
    int k = 0;
    proxy_args[k++] = "--lib-dir";
    proxy_args[k++] = lib_dir;
    proxy_args[k++] = "--";
    for (int j = i; j < argc; j++)
        proxy_args[k++] = argv[j];
    int rc =
        mpcr_run_job(mpi, (int)positive(nprocs), proxy_args, ckpt_dir && !coord_addr ? &c : NULL);
    free(proxy_args);
    if (profile && *profile) { /* what the ranks that reached MPI_Finalize wrote; none: said */
        const char *dir = getenv("MPCR_PROFILE");
        if (!mpcr_profile_report(dir, NULL))
            mpcr_err("run: the job's profile: %s/profile.txt (and profile.json)", dir);
    }
    return rc;
}
