/* The library's side of a checkpoint: the engine (linked into this library)
 * saves the whole process, channel included, so a call in progress is in the
 * image. After a restart the proxy is a new process: the `restarted` hook
 * moves the channel's contents into a new memfd at the same address (code
 * may hold pointers into it), hands that to the new proxy, which serves an
 * unanswered call again. Everything here runs inside the engine's signal
 * handler with the other threads stopped: system calls only. */
#include "channel.h"
#include "profile.h"
#include "runtime.h"
#include "staging.h"
#include "report.h"
#include "rma/win.h"

#include <errno.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpcr/engine.h"
#include "../../engine/parse.h" /* libc-free: this runs in the engine's signal context */

static _Noreturn void restart_failed(const char *why)
{
    static const char head[] = "mpcr: the restarted program cannot reach its new proxy: ";
    mpcr_report_raw(head, sizeof head - 1);
    mpcr_report_raw(why, (unsigned)__builtin_strlen(why));
    mpcr_report_raw("\n", 1);
    _exit(1);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) restart_failed("cannot copy the channel");
        p += w, n -= (size_t)w;
    }
}

/* The new channel is as large as the image's, or as the staging area being
 * grown when the checkpoint came (between the proxy's reply to GROW and the
 * mremap: staging.c), so that the mremap the program resumes into finds the
 * memfd large enough and the new proxy maps all of it. Only what the image
 * had mapped is mapped here; the mremap does the rest. */
static void on_restarted(void *arg)
{
    (void)arg;
    size_t mapped = MPCR_CHAN_CONTROL + mpcr.staging_size;
    uint64_t staging = mpcr.staging_growing > mpcr.staging_size ? mpcr.staging_growing : mpcr.staging_size;
    int fd = memfd_create("mpcr-channel", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)(MPCR_CHAN_CONTROL + staging)) < 0) restart_failed("cannot create a channel");
    write_all(fd, (const char *)mpcr.chan, mapped);
    if (mmap(mpcr.chan, mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)
        restart_failed("cannot map the new channel");
    __atomic_store_n(&mpcr.staging_growing, 0, __ATOMIC_RELEASE); /* the new channel has room for it */
    struct mpcr_hello hello = {MPCR_CHAN_MAGIC, MPCR_CHAN_VERSION, staging};
    if (mpcr_send_fd(MPCR_RESTART_FD, fd, &hello, sizeof hello))
        restart_failed("the set-up socket is missing (was it started by mpcr restart?)");
    /* The proxy answers with where failure reports, checkpoint reports and
     * images go now, and how long to spin and yield on this placement:
     * "REPORTS\0COORDINATOR\0SECRET\0DIRECTORY\0SPIN_NS\0YIELD_NS\0" (the
     * last two absent from an older proxy: the image's times stay). */
    char where[4 * 1000 + 64 + 1] = {0};
    ssize_t n = recv(MPCR_RESTART_FD, where, sizeof where - 1, 0);
    mpcr_shares_restarted(MPCR_RESTART_FD); /* before the new proxy serves a call that names them */
    mpcr_wins_restarted(MPCR_RESTART_FD);   /* windows' memory, attached again there */
    close(fd);
    close(MPCR_RESTART_FD);
    /* the fields, each "" where the answer ended before it */
    enum { REPORTS, COORD, SECRET, DIR, SPIN, YIELD, FIELDS };
    const char *end = where + (n > 0 ? n : 0), *f[FIELDS];
    for (int k = 0; k < FIELDS; k++)
        f[k] = k == 0 ? where : f[k - 1] < end ? f[k - 1] + __builtin_strlen(f[k - 1]) + 1 : end;
    for (int k = 0; k < FIELDS; k++)
        if (f[k] >= end) f[k] = "";
    if (*f[YIELD]) {
        const char *spin = f[SPIN], *yield = f[YIELD];
        mpcr_set_wait_ns(mpcr_parse_dec(&spin), mpcr_parse_dec(&yield));
    }
    const char *reports = f[REPORTS], *coord = f[COORD], *secret = f[SECRET], *dir = f[DIR];
    mpcr_engine_include_fd(mpcr_report_fd());
    mpcr_report_reopen(n > 0 && *reports ? reports : NULL);
    mpcr_engine_exclude_fd(mpcr_report_fd());
    if (*coord) mpcr_engine_set_coordinator(coord, secret, dir);
    mpcr.proxy_pid = getppid();
    prctl(PR_SET_PDEATHSIG, MPCR_PROXY_DEATH_SIGNAL);
    mpcr_prof_restarted();
}

static int before_checkpoint(void *arg)
{
    (void)arg;
    mpcr_shares_before_checkpoint();
    mpcr_prof_before_checkpoint();
    return 0;
}

void mpcr_checkpoint_setup(void)
{
    mpcr_engine_init();
    mpcr_engine_exclude_fd(mpcr_report_fd()); /* re-created after a restart */
    mpcr_engine_set_hooks(&(struct mpcr_engine_hooks){before_checkpoint, NULL, on_restarted, NULL});
}
