/* Process-wide state other than memory, files and signals: the kernel's view
 * of the address space layout (code, data, break, arguments, auxv) that the
 * restorer hands to prctl(PR_SET_MM_MAP); rlimits, umask, working directory
 * and interval timers, restored by the engine after a restart. Also the
 * refusals: state the engine cannot carry (child processes, POSIX timers)
 * stops the checkpoint with a message that names it. */
#include <errno.h>
#include <gnu/libc-version.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fmt.h"
#include "ident.h"
#include "internal.h"

/* gnu_get_libc_version() is glibc's, not a system call: asked once at
 * start-up, outside the signal handler. */
static char libc_version[31];

void mpcr_proc_init(void) { mpcr_fmt(libc_version, sizeof libc_version, "%s", gnu_get_libc_version()); }

int mpcr_proc_refuse(struct mpcr_scratch *s)
{
    char buf[4096];
    for (int i = 0; i < mpcr_nthr; i++) {
        if (mpcr_thr[i].gone) continue;
        char path[64];
        mpcr_fmt(path, sizeof path, "/proc/self/task/%d/children", mpcr_thr[i].tid);
        long n = mpcr_read_file(path, buf, sizeof buf);
        if (n > 0 && buf[0] >= '0' && buf[0] <= '9') {
            buf[strcspn(buf, " \n")] = 0;
            return mpcr_fail(-ENOTSUP, "the process has a child process (pid %s): child processes cannot be "
                                       "checkpointed; wait for them to end first", buf);
        }
    }
    long n = mpcr_read_file("/proc/self/timers", buf, sizeof buf);
    if (n > 0) return mpcr_fail(-ENOTSUP, "the process has POSIX timers (timer_create): they cannot be checkpointed");
    (void)s;
    return 0;
}

/* Fields 26-28 and 45-51 of /proc/self/stat (1-based). */
static int read_stat_layout(struct mpcr_img_mm *mm)
{
    char buf[2048];
    long n = mpcr_read_file("/proc/self/stat", buf, sizeof buf);
    if (n < 0) return mpcr_fail((int)n, "reading /proc/self/stat");
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p) return mpcr_fail(-EINVAL, "unexpected /proc/self/stat");
    p += 2;
    uint64_t field[53] = {0};
    for (int i = 3; i <= 52 && *p; i++) {
        if (*p == '-') p++;
        if (*p >= '0' && *p <= '9') field[i] = mpcr_parse_dec(&p);
        else while (*p && *p != ' ') p++;
        if (*p == ' ') p++;
    }
    mm->start_code = field[26];
    mm->end_code = field[27];
    mm->start_stack = field[28];
    mm->start_data = field[45];
    mm->end_data = field[46];
    mm->start_brk = field[47];
    mm->arg_start = field[48];
    mm->arg_end = field[49];
    mm->env_start = field[50];
    mm->env_end = field[51];
    mm->brk = (uint64_t)syscall(SYS_brk, 0);
    return 0;
}

int mpcr_proc_save(struct mpcr_scratch *s)
{
    struct mpcr_img_header *h = &s->hdr;
    memcpy(h->magic, MPCR_IMG_MAGIC, 8);
    h->version = MPCR_IMG_VERSION;
    h->header_size = MPCR_IMG_HEADER_SIZE;
    struct utsname u;
    uname(&u);
    mpcr_fmt(h->arch, sizeof h->arch, "%.15s", u.machine);
    mpcr_fmt(h->kernel, sizeof h->kernel, "%.64s", u.release);
    mpcr_fmt(h->libc, sizeof h->libc, "%.30s", libc_version);
    h->page_size = MPCR_PAGE;
    mpcr_cpu_ident(&h->cpu);
    int rc = read_stat_layout(&h->mm);
    if (rc) return rc;
    long n = mpcr_read_file("/proc/self/auxv", (char *)h->mm.auxv, sizeof h->mm.auxv);
    if (n < 0) return mpcr_fail((int)n, "reading /proc/self/auxv");
    h->mm.auxv_len = (uint32_t)n;
    for (int r = 0; r < 16; r++) {
        struct rlimit rl;
        if (getrlimit(r, &rl)) continue;
        h->rlimit[r][0] = rl.rlim_cur;
        h->rlimit[r][1] = rl.rlim_max;
    }
    mode_t m = umask(022);
    umask(m);
    h->umask = m;
    for (int t = 0; t < 3; t++) {
        struct itimerval it;
        getitimer(t, &it);
        h->itimer[t][0] = (uint64_t)it.it_interval.tv_sec;
        h->itimer[t][1] = (uint64_t)it.it_interval.tv_usec;
        h->itimer[t][2] = (uint64_t)it.it_value.tv_sec;
        h->itimer[t][3] = (uint64_t)it.it_value.tv_usec;
    }
    char cwd[4096];
    ssize_t k = readlink("/proc/self/cwd", cwd, sizeof cwd - 1);
    if (k < 0) return mpcr_fail(-errno, "reading the working directory: %s", mpcr_strerror(errno));
    h->cwd_str = mpcr_str_add(s, cwd, (uint32_t)k);
    return 0;
}

int mpcr_proc_restore(const struct mpcr_handoff *h)
{
    const struct mpcr_img_header *hdr = h->hdr;
    const char *strings = h->table[MPCR_T_STRINGS];
    if (chdir(strings + hdr->cwd_str))
        return mpcr_fail(-errno, "changing to directory %s: %s", strings + hdr->cwd_str, mpcr_strerror(errno));
    umask(hdr->umask);
    for (int r = 0; r < 16; r++) {
        struct rlimit now, want = {hdr->rlimit[r][0], hdr->rlimit[r][1]};
        if (getrlimit(r, &now)) continue;
        if (want.rlim_max > now.rlim_max) want.rlim_max = now.rlim_max; /* raising needs privilege */
        if (want.rlim_cur > want.rlim_max) want.rlim_cur = want.rlim_max;
        setrlimit(r, &want);
    }
    for (int t = 0; t < 3; t++) {
        struct itimerval it = {{(time_t)hdr->itimer[t][0], (suseconds_t)hdr->itimer[t][1]},
                               {(time_t)hdr->itimer[t][2], (suseconds_t)hdr->itimer[t][3]}};
        if (it.it_value.tv_sec || it.it_value.tv_usec) setitimer(t, &it, NULL);
    }
    return 0;
}
