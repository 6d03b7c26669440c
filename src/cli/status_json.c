/* `mpcr status --json [DIR]`: what `mpcr status` says, for scripts. One
 * JSON object (docs/mpcr.1, "STATUS AS JSON"):
 *   dir              the checkpoint directory, absolute
 *   running          whether a coordinator answers on DIR/coord.sock
 *   job              null, or what the coordinator says: pid (mpiexec's for
 *                    `mpcr run`, the coordinator's otherwise), coordinator_pid
 *                    (the process that takes the signals), nranks,
 *                    connected, ranks [{rank, state}] (running, quiet,
 *                    finalizing, absent), checkpoint (null, or the one in
 *                    progress: generation, phase, then, seconds, images,
 *                    bytes, asked_by)
 *   newest_complete  the generation a restart would take, 0: none
 *   generations      [{generation, complete, bytes, time (UTC, ISO 8601),
 *                    unix_time, nranks, mpi, job}] in ascending order */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binding.h"
#include "ckpt_common.h"
#include "cli.h"
#include "path.h"

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') printf("\\%c", *p);
        else if (*p < 0x20) printf("\\u%04x", *p);
        else putchar(*p);
    }
    putchar('"');
}

static const char *const state_names[] = {"running", "quiet", "finalizing", "absent"};

static void print_ranks(const char *letters)
{
    printf("\"ranks\": [");
    for (size_t r = 0; letters[r] && letters[r] != ' '; r++) {
        const char *name = "unknown";
        for (size_t k = 0; k < sizeof state_names / sizeof state_names[0]; k++)
            if (letters[r] == state_names[k][0]) name = state_names[k];
        printf("%s{\"rank\": %zu, \"state\": \"%s\"}", r ? ", " : "", r, name);
    }
    printf("]");
}

/* An MPI job's coordinator's "detail ..." line (src/coord/job.c, send_detail). */
static int print_detail(const char *line)
{
    int pid, coord, nranks, connected, n = 0;
    if (sscanf(line, "detail pid %d coordinator %d ranks %d connected %d checkpoint %n", &pid,
               &coord, &nranks, &connected, &n) != 4 || !n)
        return -1;
    const char *rest = line + n, *states = strstr(rest, " states ");
    if (!states) return -1;
    printf("{\"pid\": %d, \"coordinator_pid\": %d, \"nranks\": %d, \"connected\": %d, ", pid,
           coord, nranks, connected);
    print_ranks(states + 8);
    unsigned long gen;
    char phase[16], then[16], asker[32];
    double secs;
    int images;
    unsigned long long bytes;
    if (sscanf(rest, "%lu %15s %15s %lf %d %llu %31s", &gen, phase, then, &secs, &images, &bytes,
               asker) == 7)
        printf(", \"checkpoint\": {\"generation\": %lu, \"phase\": \"%s\", \"then\": \"%s\", "
               "\"seconds\": %.3f, \"images\": %d, \"bytes\": %llu, \"asked_by\": \"%s%s\"}}",
               gen, phase, then, secs, images, bytes,
               strcmp(asker, "command") && strcmp(asker, "interval") ? "SIG" : "", asker);
    else
        printf(", \"checkpoint\": null}");
    return 0;
}

/* One process's coordinator (`mpcr run --no-mpi`) has only the plain status:
 * "running pid P newest-complete gen-K[ checkpoint-in-progress]". */
static void print_plain(const char *line)
{
    long pid = strtol(line + (strncmp(line, "running pid ", 12) ? 0 : 12), NULL, 10);
    printf("{\"pid\": %ld, \"coordinator_pid\": null, \"nranks\": 1, \"connected\": 1, ", pid);
    print_ranks("r");
    printf(", \"checkpoint\": %s}",
           strstr(line, "checkpoint-in-progress") ? "{\"generation\": null, \"phase\": null}" : "null");
}

static int by_number(const void *a, const void *b)
{
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return x < y ? -1 : x > y;
}

/* The bytes of the files in gen-K (a generation without manifest). */
static unsigned long long dir_bytes(const char *gdir)
{
    unsigned long long sum = 0;
    DIR *d = opendir(gdir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        struct stat st;
        if (!fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
            sum += (unsigned long long)st.st_size;
    }
    if (d) closedir(d);
    return sum;
}

static void print_generation(const char *dir, unsigned long g)
{
    char gdir[PATH_MAX], path[PATH_MAX], why[512], when[32] = "";
    struct mpcr_manifest m;
    int complete = !mpcr_manifest_read(dir, g, &m, why, sizeof why);
    struct stat st;
    /* its time: the manifest's, or the directory's; none when a name does not fit */
    if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", dir, g) ||
        mpcr_path_join(path, sizeof path, gdir, "manifest") || stat(complete ? path : gdir, &st))
        st.st_mtim = (struct timespec){0, 0};
    struct tm tm;
    if (gmtime_r(&st.st_mtim.tv_sec, &tm)) strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("{\"generation\": %lu, \"complete\": %s, \"bytes\": %llu, \"time\": \"%s\", "
           "\"unix_time\": %ld.%03ld",
           g, complete ? "true" : "false", complete ? m.bytes : dir_bytes(gdir), when,
           (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec / 1000000);
    if (complete) {
        printf(", \"nranks\": %d, \"mpi\": ", m.nranks);
        if (m.mpi[0]) json_string(m.mpi);
        else printf("null");
        printf(", \"job\": \"%016" PRIx64 "\"", m.job);
        mpcr_manifest_free(&m);
    }
    printf("}");
}

static void print_generations(const char *dir)
{
    unsigned long *gens = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "gen-", 4) || e->d_name[4] < '0' || e->d_name[4] > '9') continue;
        unsigned long g = strtoul(e->d_name + 4, &end, 10);
        if (*end) continue;
        if (n == cap) {
            unsigned long *more = realloc(gens, (cap = cap ? 2 * cap : 16) * sizeof *gens);
            if (!more) break;
            gens = more;
        }
        gens[n++] = g;
    }
    if (d) closedir(d);
    qsort(gens, n, sizeof *gens, by_number);
    printf("\"generations\": [");
    for (size_t i = 0; i < n; i++) {
        printf("%s", i ? ", " : "");
        print_generation(dir, gens[i]);
    }
    printf("]");
    free(gens);
}

int mpcr_status_json(const char *dir)
{
    char abs[PATH_MAX];
    unsigned long newest = 0, highest = 0;
    int fd = mpcr_coord_request(dir, "status detail");
    size_t cap = 1 << 22;
    char *line = malloc(cap);
    int running = fd >= 0 && line && mpcr_coord_read_line(fd, line, cap) > 0;
    if (fd >= 0) close(fd);
    int unknown = running && !strncmp(line, "error ", 6); /* a single process's coordinator */
    if (unknown && mpcr_coord_ask(dir, "status", line, cap)) running = 0;
    if (mpcr_gen_scan(dir, &newest, &highest) && !running) {
        mpcr_err("%s is not a checkpoint directory", dir);
        free(line);
        return 1;
    }
    printf("{\"dir\": ");
    json_string(realpath(dir, abs) ? abs : dir);
    printf(", \"running\": %s, \"job\": ", running ? "true" : "false");
    if (!running) printf("null");
    else if (unknown) print_plain(line);
    else if (print_detail(line)) printf("null");
    printf(", \"newest_complete\": %lu, ", newest);
    print_generations(dir);
    printf("}\n");
    free(line);
    return 0;
}
