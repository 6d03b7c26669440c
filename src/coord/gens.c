/* Generations on disk: DIR/gen-K/ holds rank-R.img files and, once all are
 * safe, `manifest`. Finding the newest complete one, writing a manifest
 * atomically, removing old or failed generations. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord.h"
#include "path.h"
#include "private.h"

static int gen_number(const char *name, unsigned long *gen)
{
    char *end;
    if (strncmp(name, "gen-", 4) || name[4] < '0' || name[4] > '9') return 0;
    *gen = strtoul(name + 4, &end, 10);
    return *end == 0;
}

static int complete(const char *dir, unsigned long gen)
{
    char path[PATH_MAX];
    return !mpcr_path_printf(path, sizeof path, "%s/gen-%lu/manifest", dir, gen) &&
           access(path, F_OK) == 0;
}

int mpcr_gen_scan(const char *dir, unsigned long *newest_complete, unsigned long *highest)
{
    DIR *d = opendir(dir);
    if (!d) return -errno;
    *newest_complete = *highest = 0;
    struct dirent *e;
    unsigned long g;
    while ((e = readdir(d)))
        if (gen_number(e->d_name, &g)) {
            if (g > *highest) *highest = g;
            if (g > *newest_complete && complete(dir, g)) *newest_complete = g;
        }
    closedir(d);
    return 0;
}

void mpcr_gen_remove(const char *dir, unsigned long gen)
{
    char gdir[PATH_MAX], path[PATH_MAX];
    if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", dir, gen)) return;
    DIR *d = opendir(gdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && !mpcr_path_join(path, sizeof path, gdir, e->d_name))
            unlink(path);
    closedir(d);
    rmdir(gdir);
}

void mpcr_gen_prune(const char *dir, int keep)
{
    if (keep <= 0) return;
    unsigned long newest, highest;
    if (mpcr_gen_scan(dir, &newest, &highest)) return;
    int kept = 0;
    for (unsigned long g = newest; g > 0; g--) {
        if (!complete(dir, g)) {
            if (g < newest) mpcr_gen_remove(dir, g); /* a failed attempt: nothing uses it */
            continue;
        }
        if (++kept > keep) mpcr_gen_remove(dir, g);
    }
}
