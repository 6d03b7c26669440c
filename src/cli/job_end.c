/* The last word on a job that failed with no rank saying why. Every rank's
 * proxy reports its program's end (killed by a signal, exited without
 * MPI_Finalize, an unsupported function), so silence means something the
 * proxies could not report: a proxy killed outright (kill -9, the OOM
 * killer, a batch system's limit), or the launcher itself crashed or was
 * killed. What is left to go on is the launcher's own status:
 *  - killed by a signal: the launcher itself (a crash, or someone killed it);
 *  - above 128: a process (shells' and launchers' way) killed by signal
 *    status - 128;
 *  - MPICH's mpiexec (hydra) ends with the bare signal number of a process of
 *    the job that a signal killed (9 for SIGKILL): under it, 1-64 is read so.
 * Each message says which of these it is and where the doubt lies. */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "cli.h"

static int crash_signal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGABRT;
}

void mpcr_say_unexplained_end(const char *launcher, int status)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        mpcr_err("run: the launcher %s %s by signal %d (%s)%s; the job ended with it", launcher,
                 crash_signal(sig) ? "crashed: it was killed" : "was killed", sig, strsignal(sig),
                 WCOREDUMP(status) ? ", core dumped" : "");
        return;
    }
    int code = WEXITSTATUS(status);
    if (!code) return;
    const char *base = strrchr(launcher, '/');
    base = base ? base + 1 : launcher;
    int hydra = !strncmp(base, "mpiexec.mpich", 13) || !strncmp(base, "mpiexec.hydra", 13);
    int sig = code > 128 && code <= 128 + 64 ? code - 128 : hydra && code <= 64 ? code : 0;
    if (sig)
        mpcr_err("run: the job ended with status %d from %s and no rank said why: a process of the job was "
                 "killed by signal %d (%s) before it could: a rank's proxy%s (by hand, the OOM killer, a batch "
                 "system's limit)",
                 code, base, sig, strsignal(sig), crash_signal(sig) ? " or the launcher crashed" : " or the launcher");
    else
        mpcr_err("run: the job ended with status %d from %s and no rank said why: the launcher ended it "
                 "(its own messages, if any, are above)",
                 code, base);
}
