/* Checked numbers of the command line (option_value.h). */
#include "option_value.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "cli.h"

int mpcr_opt_seconds(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || !(v > 0) || v > MPCR_MAX_INTERVAL_S) {
        mpcr_err("%s: %s needs a number of seconds above 0 and at most %.0f (a year), not '%s'", cmd, opt,
                 MPCR_MAX_INTERVAL_S, s);
        return -1;
    }
    *out = v;
    return 0;
}

int mpcr_opt_count(const char *cmd, const char *opt, const char *s, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < 1 || v > max) {
        mpcr_err("%s: %s needs a whole number from 1 to %ld, not '%s'", cmd, opt, max, s);
        return -1;
    }
    *out = v;
    return 0;
}

long mpcr_max_local_ranks(void)
{
    struct rlimit files, procs;
    if (getrlimit(RLIMIT_NOFILE, &files)) files.rlim_cur = 1024;
    if (getrlimit(RLIMIT_NPROC, &procs)) procs.rlim_cur = RLIM_INFINITY;
    rlim_t cap = (rlim_t)1 << 30;
    rlim_t fds = files.rlim_cur > cap ? cap : files.rlim_cur, np = procs.rlim_cur > cap ? cap : procs.rlim_cur;
    long by_files = fds > 64 ? (long)((fds - 64) / MPCR_LAUNCHER_FDS_PER_RANK) : 1;
    long by_procs = np > 64 ? (long)((np - 64) / MPCR_PROCESSES_PER_RANK) : 1;
    long n = by_files < by_procs ? by_files : by_procs;
    return n < 1 ? 1 : n;
}

int mpcr_opt_full_every(const char *cmd, const char *value)
{
    long n;
    if (mpcr_opt_count(cmd, "--full-every", value, MPCR_MAX_FULL_EVERY, &n)) return -1;
    char buf[16];
    snprintf(buf, sizeof buf, "%ld", n);
    return setenv("MPCR_FULL_EVERY", buf, 1); /* the program's engine reads it */
}
