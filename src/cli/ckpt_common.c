/* Starting a process under the engine and supervising it with the
 * standalone coordinator: shared by `mpcr run --no-mpi` and `mpcr restart`. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ckpt_common.h"
#include "cli.h"
#include "path.h"

int mpcr_open_coord(struct mpcr_coord *c, const char *dir)
{
    int rc = mpcr_coord_open(c, dir);
    if (rc == -EADDRINUSE)
        mpcr_err(
            "a process is already running with checkpoint directory %s; use another --ckpt-dir",
            dir);
    else if (rc)
        mpcr_err("cannot use checkpoint directory %s: %s", dir, strerror(-rc));
    return rc ? -1 : 0;
}

pid_t mpcr_spawn(char *const argv[], const struct mpcr_coord *c, int preload)
{
    char lib[PATH_MAX], sock[PATH_MAX], preload_var[2 * PATH_MAX];
    if (mpcr_sibling(lib, sizeof lib, "../lib/mpcr/libmpcr-engine.so") ||
        mpcr_path_join(sock, sizeof sock, c->dir, "coord.sock"))
        return -ENAMETOOLONG;
    const char *old = getenv("LD_PRELOAD");
    if (old && *old)
        snprintf(preload_var, sizeof preload_var, "%s:%s", lib, old);
    else
        snprintf(preload_var, sizeof preload_var, "%s", lib);
    if (preload && access(lib, R_OK)) return -ENOENT;
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) return -errno;
    if (pid > 0) return pid;
    /* mpcr killed (even with SIGKILL): the program, which nothing could
     * checkpoint any more, ends too, as an MPI job's ranks do. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1); /* mpcr was gone before that */
    char job[32];
    snprintf(job, sizeof job, "%016" PRIx64, c->job_id);
    setenv("MPCR_CKPT_DIR", c->dir, 1);
    setenv("MPCR_COORD_SOCK", sock, 1);
    setenv("MPCR_JOB_ID", job, 1); /* the engine writes it into every image */
    if (preload) setenv("LD_PRELOAD", preload_var, 1);
    syscall(SYS_close_range, 3, ~0u, 0); /* inherited descriptors could not be checkpointed */
    execvp(argv[0], argv);
    int e = errno;
    fprintf(stderr, "mpcr: cannot run %s: %s\n", argv[0], strerror(e));
    _exit(e == ENOENT ? 127 : 126); /* as shells do */
}

static pid_t supervised;
static volatile sig_atomic_t forwarded; /* the last signal passed on to the process */
static void forward(int sig)
{
    forwarded = sig;
    kill(supervised, sig);
}

int mpcr_supervise(struct mpcr_coord *c, pid_t child, const char *what)
{
    /* `kill mpcr` must not leave the program running without its coordinator */
    supervised = child;
    struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int status = mpcr_coord_serve(c, child);
    if (WIFSIGNALED(status)) {
        mpcr_err("%s ended by signal %d (%s)", what, WTERMSIG(status), strsignal(WTERMSIG(status)));
        return 128 + WTERMSIG(status);
    }
    if (forwarded) { /* it ended as told, but told it was: not a success */
        mpcr_err("%s ended (status %d) after mpcr passed on signal %d (%s)", what,
                 WEXITSTATUS(status), forwarded, strsignal(forwarded));
        return 128 + forwarded;
    }
    return WEXITSTATUS(status);
}

int mpcr_use_coordinator(const char *addr, const char *dir)
{
    char abs[PATH_MAX], secret[64], where[128];
    if (!realpath(dir, abs)) {
        mpcr_err("--coordinator: the checkpoint directory %s: %s (start `mpcr coordinator` first)",
                 dir, strerror(errno));
        return -1;
    }
    int rc = mpcr_coord_read_secret(abs, secret, sizeof secret);
    if (rc) {
        mpcr_err(
            "--coordinator: cannot read %s/coord.secret (%s): is `mpcr coordinator --listen %s "
            "--ckpt-dir %s` running, and the directory shared with this host?",
            abs, strerror(-rc), addr, dir);
        return -1;
    }
    uint64_t job;
    if ((rc = mpcr_coord_read_job(abs, &job))) {
        mpcr_err("--coordinator: cannot read %s/coord.job (%s): is the coordinator of this version "
                 "of mpcr?", abs, strerror(-rc));
        return -1;
    }
    char job_hex[32];
    snprintf(job_hex, sizeof job_hex, "%016" PRIx64, job);
    setenv("MPCR_JOB_ID", job_hex, 1);
    snprintf(where, sizeof where, "tcp:%s", addr);
    setenv("MPCR_COORD_SOCK", where, 1);
    setenv("MPCR_COORD_SECRET", secret, 1);
    setenv("MPCR_CKPT_DIR", abs, 1);
    return 0;
}
