/* Signal state: the 64 dispositions (read and set with the raw rt_sigaction,
 * which keeps each handler's SA_RESTORER trampoline), the signals pending on
 * the process and on each thread (raised again after a restart; their
 * siginfo is not kept). Per-thread masks need no code: they are in each
 * thread's signal frame and rt_sigreturn puts them back.
 *
 * The signals that ask an MPI job for checkpoints (MPCR_ENV_*_SIGNAL in
 * image.h) are ignored in the program because its launcher, the proxy, set
 * them so, not because the program asked for it; a restart may use others.
 * So a restart sets each signal of the restart's pair that the image leaves
 * at SIG_DFL to SIG_IGN (as a start does), and each signal of the pair of
 * the run that took the image that the restart does not use, and that the
 * image ignores, to what the restarted process was started with (SIG_DFL,
 * unless the launcher ignores it). A handler of the program's own stays
 * (docs/batch-systems.md, "Signals"). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fmt.h"
#include "internal.h"

/* Reads the hex mask of field `key` ("SigPnd:") from a /proc status file. */
static uint64_t status_mask(const char *path, const char *key)
{
    char buf[4096];
    if (mpcr_read_file(path, buf, sizeof buf) < 0) return 0;
    const char *p = strstr(buf, key);
    if (!p) return 0;
    p += strlen(key);
    while (*p == ' ' || *p == '\t') p++;
    return mpcr_parse_hex(&p);
}

/* The pair of the run this process belongs to: its start's, or its last
 * restart's. In the process's memory, so an image carries its own. */
static uint64_t run_triggers;

static uint64_t env_signal_bit(const char *name)
{
    const char *v = getenv(name);
    int sig = v ? atoi(v) : 0;
    return sig > 0 && sig <= 64 ? 1ull << (sig - 1) : 0;
}

void mpcr_signals_init(void)
{
    run_triggers = env_signal_bit(MPCR_ENV_CHECKPOINT_SIGNAL) | env_signal_bit(MPCR_ENV_EXIT_SIGNAL);
}

int mpcr_signals_save(struct mpcr_scratch *s)
{
    for (int sig = 1; sig <= 64; sig++) {
        struct mpcr_img_sigact *a = &s->sigact[sig - 1];
        memset(a, 0, sizeof *a);
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        if (syscall(SYS_rt_sigaction, sig, NULL, a, 8))
            return mpcr_fail(-errno, "reading the action of signal %d: %s", sig, mpcr_strerror(errno));
    }
    uint64_t ours = 1ull << (SIGRTMAX - 1);
    s->hdr.sig_pending = status_mask("/proc/self/status", "ShdPnd:") & ~ours;
    for (int i = 0; i < mpcr_nthr; i++) {
        if (mpcr_thr[i].gone) continue;
        char path[64];
        mpcr_fmt(path, sizeof path, "/proc/self/task/%d/status", mpcr_thr[i].tid);
        mpcr_thr[i].pending = status_mask(path, "SigPnd:") & ~ours;
    }
    return 0;
}

int mpcr_signals_restore(const struct mpcr_handoff *h)
{
    const struct mpcr_img_sigact *acts = h->table[MPCR_T_SIGACT];
    for (int sig = 1; sig <= 64; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        struct mpcr_img_sigact a = acts[sig - 1], started;
        uint64_t bit = 1ull << (sig - 1);
        /* What the restorer was started with: SIG_DFL or SIG_IGN (exec). */
        if (syscall(SYS_rt_sigaction, sig, NULL, &started, 8))
            return mpcr_fail(-errno, "reading the action of signal %d: %s", sig, mpcr_strerror(errno));
        const uint64_t dfl = (uintptr_t)SIG_DFL, ign = (uintptr_t)SIG_IGN;
        if ((h->triggers & bit) && a.handler == dfl) a.handler = ign;
        else if (!(h->triggers & bit) && (run_triggers & bit) && a.handler == ign) a = started;
        if (syscall(SYS_rt_sigaction, sig, &a, NULL, 8))
            return mpcr_fail(-errno, "restoring the action of signal %d: %s", sig, mpcr_strerror(errno));
    }
    run_triggers = h->triggers;
    return 0;
}

void mpcr_signals_reraise(const struct mpcr_img_header *hdr)
{
    pid_t pid = getpid();
    for (int sig = 1; sig <= 64; sig++) {
        uint64_t bit = 1ull << (sig - 1);
        if (hdr->sig_pending & bit) kill(pid, sig);
        for (int i = 0; i < mpcr_nthr; i++)
            if (!mpcr_thr[i].gone && (mpcr_thr[i].pending & bit)) syscall(SYS_tgkill, pid, mpcr_thr[i].new_tid, sig);
    }
}
