/* See stats.h. */
#include "stats.h"
#include "proxy.h"
#include "report.h"
#include "atomic_file.h"
#include "path.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint64_t counts[STAT_COUNT];
static int fd = -1;
static int off; /* MPCR_PROXY_STATS unset, or its file could not be opened */

/* Opens the file at the first count (the rank is known by then); -1 if none. */
static int stats_fd(void)
{
    if (fd >= 0 || off) return fd;
    const char *prefix = getenv("MPCR_PROXY_STATS");
    if (!prefix || !*prefix) {
        off = 1;
        return -1;
    }
    char path[PATH_MAX];
    /* The prefix may name a shared directory: created as the coordinator's
     * files are (never through a planted link, 0600); the name holds the
     * pid, so a file already there is an earlier proxy's of that pid. */
    int made = mpcr_path_printf(path, sizeof path, "%s.rank-%d.pid-%d", prefix, proxy.rank, (int)getpid());
    if (!made) made = mpcr_create_excl(path, 0600);
    fd = made >= 0 ? made : -1;
    if (fd < 0) {
        errno = -made;
        off = 1;
        mpcr_report("rank %d: cannot write the proxy's counts to %s.rank-%d.pid-%d (%s); "
                    "check MPCR_PROXY_STATS",
                    proxy.rank, prefix, proxy.rank, (int)getpid(),
                    made == -ENAMETOOLONG ? "the name is too long" : strerror(errno));
    }
    return fd;
}

void stats_count(enum proxy_stat which)
{
    counts[which]++;
    if (stats_fd() < 0) return;
    char line[160];
    int n = snprintf(line, sizeof line,
                     "rank %d drained %" PRIu64 " abandoned %" PRIu64 " reposted %" PRIu64 "\n",
                     proxy.rank, counts[STAT_DRAINED], counts[STAT_ABANDONED],
                     counts[STAT_REPOSTED]);
    if (pwrite(fd, line, (size_t)n, 0) != n) {
        mpcr_report("rank %d: cannot write the proxy's counts (%s); no more will be written",
                    proxy.rank, strerror(errno));
        close(fd);
        fd = -1, off = 1;
    }
}
