/* Generations on disk: DIR/gen-K/ holds rank-R.img files and, once all are
 * safe, `manifest`. Finding the newest complete one, writing a manifest
 * atomically, removing old or failed generations. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coord.h"
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
    char path[4200];
    snprintf(path, sizeof path, "%s/gen-%lu/manifest", dir, gen);
    return access(path, F_OK) == 0;
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

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags | O_CLOEXEC);
    if (fd < 0) return -errno;
    int rc = fsync(fd) ? -errno : 0;
    close(fd);
    return rc;
}

int mpcr_gen_write_manifest(const char *dir, unsigned long gen, int nranks, const char *mpi,
                            unsigned long long bytes)
{
    char tmp[4300], path[4300], gdir[4200];
    snprintf(gdir, sizeof gdir, "%s/gen-%lu", dir, gen);
    snprintf(tmp, sizeof tmp, "%s/manifest.tmp", gdir);
    snprintf(path, sizeof path, "%s/manifest", gdir);
    int fd = mpcr_create_private(tmp);
    if (fd < 0) return fd;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(tmp);
        return -ENOMEM;
    }
    fprintf(f, "mpcr-manifest 1\ngeneration %lu\nranks %d\n", gen, nranks);
    if (mpi) fprintf(f, "mpi %s\n", mpi);
    fprintf(f, "bytes %llu\n", bytes);
    for (int r = 0; r < nranks; r++)
        fprintf(f, mpi ? "rank %d rank-%d.img rank-%d.state\n" : "rank %d rank-%d.img\n", r, r, r);
    int rc = fflush(f) || fsync(fileno(f)) ? -errno : 0;
    if (fclose(f) && !rc) rc = -errno;
    if (!rc && rename(tmp, path)) rc = -errno;
    if (!rc) rc = fsync_path(gdir, O_RDONLY | O_DIRECTORY);
    if (rc) unlink(tmp);
    return rc;
}

int mpcr_gen_read_manifest(const char *dir, unsigned long gen, int *nranks, char *mpi, size_t cap)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/gen-%lu/manifest", dir, gen);
    FILE *f = fopen(path, "r");
    if (!f) return -errno;
    *nranks = 0;
    if (cap) mpi[0] = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (!strncmp(line, "ranks ", 6)) *nranks = atoi(line + 6);
        if (!strncmp(line, "mpi ", 4)) snprintf(mpi, cap, "%s", line + 4);
    }
    fclose(f);
    return *nranks > 0 ? 0 : -EINVAL;
}

void mpcr_gen_remove(const char *dir, unsigned long gen)
{
    char gdir[4200], path[4500];
    snprintf(gdir, sizeof gdir, "%s/gen-%lu", dir, gen);
    DIR *d = opendir(gdir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", gdir, e->d_name);
            unlink(path);
        }
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
