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

#include "binding.h"
#include "coord.h"
#include "image.h"
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

/* Adds to *needs the generations that generation gen's images refer to
 * (increments: docs/incremental.md). */
static void add_needs(const char *dir, unsigned long gen, uint64_t **needs, size_t *n, size_t *cap)
{
    char gdir[PATH_MAX], path[PATH_MAX], why[MPCR_WHY_MAX];
    if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", dir, gen)) return;
    DIR *d = opendir(gdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "rank-", 5) || len < 4 || strcmp(e->d_name + len - 4, ".img") ||
            mpcr_path_join(path, sizeof path, gdir, e->d_name))
            continue;
        uint64_t chain[MPCR_MAX_CHAIN];
        uint32_t k = 0;
        if (mpcr_image_chain(path, chain, &k, why, sizeof why)) continue;
        for (uint32_t i = 0; i < k; i++) {
            if (*n == *cap) {
                uint64_t *v = realloc(*needs, (*cap = *cap ? 2 * *cap : 64) * sizeof *v);
                if (!v) break;
                *needs = v;
            }
            (*needs)[(*n)++] = chain[i];
        }
    }
    closedir(d);
}

/* Keeps the newest `keep` complete generations and every generation one of
 * them refers to (an increment needs its chain: such a generation is never
 * removed while a kept one needs it); removes the rest. */
void mpcr_gen_prune(const char *dir, int keep)
{
    if (keep <= 0) return;
    unsigned long newest, highest;
    if (mpcr_gen_scan(dir, &newest, &highest)) return;
    uint64_t *needs = NULL;
    size_t nneeds = 0, cap = 0;
    int kept = 0;
    for (unsigned long g = newest; g > 0 && kept < keep; g--)
        if (complete(dir, g)) kept++, add_needs(dir, g, &needs, &nneeds, &cap);
    kept = 0;
    for (unsigned long g = newest; g > 0; g--) {
        if (!complete(dir, g)) {
            if (g < newest) mpcr_gen_remove(dir, g); /* a failed attempt: nothing uses it */
            continue;
        }
        int needed = 0;
        for (size_t i = 0; i < nneeds && !needed; i++) needed = needs[i] == g;
        if (++kept > keep && !needed) mpcr_gen_remove(dir, g);
    }
    free(needs);
}
