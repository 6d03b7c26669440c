/* The job's profile, as the user reads it: `mpcr run --profile DIR` (and
 * MPCR_PROFILE=DIR in the environment) makes every rank write
 * DIR/rank-R.prof at MPI_Finalize (src/lib/runtime/profile.c); this file
 * sums them into DIR/profile.txt and DIR/profile.json, the table mpiP or
 * IPM users know, and `mpcr profile DIR` prints it again. docs/profile.md
 * describes both formats. */
#include "cli.h"

#include "atomic_file.h"
#include "path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct fn_total {
    char name[64];
    uint64_t calls, ns, bytes;
};

struct rank_row {
    int rank;
    uint64_t wall, mpi_ns, trips, trip_ns, serve_ns, sites_lost;
};

struct site_total {
    char fn[64], symbol[256], object[PATH_MAX], line[512];
    uint64_t offset, calls, ns;
};

struct profile {
    int size; /* the job's ranks, as the ranks said */
    struct fn_total *fns;
    size_t nfns;
    struct rank_row *ranks;
    size_t nranks;
    struct site_total *sites;
    size_t nsites;
};

static void *grow(void *p, size_t n, size_t each)
{
    /* powers of two: n is the count before the one being added */
    if (n & (n - 1) || n == 0) return n == 0 ? calloc(1, each) : p;
    void *q = realloc(p, 2 * n * each);
    if (q) memset((char *)q + n * each, 0, n * each);
    return q;
}

static struct fn_total *fn_named(struct profile *p, const char *name)
{
    for (size_t i = 0; i < p->nfns; i++)
        if (!strcmp(p->fns[i].name, name)) return &p->fns[i];
    struct fn_total *fns = grow(p->fns, p->nfns, sizeof *fns);
    if (!fns) return NULL;
    p->fns = fns;
    snprintf(fns[p->nfns].name, sizeof fns->name, "%s", name);
    return &fns[p->nfns++];
}

static struct site_total *site_of(struct profile *p, const char *fn, const char *symbol, const char *object,
                                  uint64_t offset)
{
    for (size_t i = 0; i < p->nsites; i++) {
        struct site_total *s = &p->sites[i];
        if (s->offset == offset && !strcmp(s->fn, fn) && !strcmp(s->object, object)) return s;
    }
    struct site_total *sites = grow(p->sites, p->nsites, sizeof *sites);
    if (!sites) return NULL;
    p->sites = sites;
    struct site_total *s = &sites[p->nsites++];
    snprintf(s->fn, sizeof s->fn, "%s", fn);
    snprintf(s->symbol, sizeof s->symbol, "%s", symbol);
    snprintf(s->object, sizeof s->object, "%s", object);
    s->offset = offset;
    return s;
}

/* Splits line at tabs into at most max fields; their count. */
static int fields(char *line, char **f, int max)
{
    int n = 0;
    line[strcspn(line, "\n")] = 0;
    while (n < max) {
        f[n++] = line;
        char *tab = strchr(line, '\t');
        if (!tab) break;
        *tab = 0, line = tab + 1;
    }
    return n;
}

static uint64_t u64(const char *s)
{
    return strtoull(s, NULL, 0);
}

/* One rank's file into p; 0, or -1 said (a file not of this format). */
static int read_rank(struct profile *p, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) return mpcr_err("profile: cannot read %s: %s", path, strerror(errno)), -1;
    char line[2 * PATH_MAX], *f[8];
    struct rank_row *rows = grow(p->ranks, p->nranks, sizeof *rows);
    if (!rows) return fclose(in), -1;
    p->ranks = rows;
    struct rank_row *r = &rows[p->nranks++];
    int ok = 0;
    while (fgets(line, sizeof line, in)) {
        int n = fields(line, f, 8);
        if (n == 2 && !strcmp(f[0], "mpcr-profile")) ok = !strcmp(f[1], "1");
        else if (!ok) break;
        else if (n == 2 && !strcmp(f[0], "rank")) r->rank = atoi(f[1]);
        else if (n == 2 && !strcmp(f[0], "size")) p->size = atoi(f[1]);
        else if (n == 2 && !strcmp(f[0], "wall")) r->wall = u64(f[1]);
        else if (n == 2 && !strcmp(f[0], "sites_lost")) r->sites_lost = u64(f[1]);
        else if (n == 4 && !strcmp(f[0], "trips")) r->trips = u64(f[1]), r->trip_ns = u64(f[2]), r->serve_ns = u64(f[3]);
        else if (n == 5 && !strcmp(f[0], "fn")) {
            struct fn_total *t = fn_named(p, f[1]);
            if (!t) break;
            t->calls += u64(f[2]), t->ns += u64(f[3]), t->bytes += u64(f[4]);
            r->mpi_ns += u64(f[3]);
        } else if (n == 7 && !strcmp(f[0], "site")) {
            struct site_total *s = site_of(p, f[1], f[5], f[6], u64(f[4]));
            if (!s) break;
            s->calls += u64(f[2]), s->ns += u64(f[3]);
        }
    }
    fclose(in);
    if (!ok) mpcr_err("profile: %s is not a rank's profile of this mpcr", path);
    return ok ? 0 : -1;
}

static int by_time(const void *a, const void *b)
{
    const struct fn_total *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->name, y->name);
}
static int site_by_time(const void *a, const void *b)
{
    const struct site_total *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->fn, y->fn);
}
static int by_rank(const void *a, const void *b)
{
    return ((const struct rank_row *)a)->rank - ((const struct rank_row *)b)->rank;
}

/* The source lines of the sites shown (the first `shown`), from addr2line
 * when binutils is there and the object has debugging information. */
static void resolve_lines(struct site_total *s, size_t shown)
{
    for (size_t i = 0; i < shown; i++) {
        if (s[i].line[0] || s[i].object[0] != '/') continue;
        char addr[32];
        snprintf(addr, sizeof addr, "%#" PRIx64, s[i].offset);
        int out[2];
        if (pipe(out)) return;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addclose(&fa, out[0]);
        char *argv[] = {"addr2line", "-f", "-C", "-e", s[i].object, addr, NULL};
        pid_t pid;
        int err = posix_spawnp(&pid, "addr2line", &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        close(out[1]);
        if (!err) { /* "FUNCTION\nFILE:LINE\n"; "??" for what it does not know */
            char said[sizeof s[i].line + sizeof s[i].symbol] = "";
            size_t got = 0;
            for (ssize_t n; got < sizeof said - 1 && (n = read(out[0], said + got, sizeof said - 1 - got)) > 0;)
                got += (size_t)n;
            said[got] = 0;
            char *file = strchr(said, '\n');
            if (file) {
                *file++ = 0;
                file[strcspn(file, "\n")] = 0;
                char *note = strstr(file, " (discriminator"); /* the compiler's, not the user's */
                if (note) *note = 0;
                if (said[0] != '?' && !s[i].symbol[0]) snprintf(s[i].symbol, sizeof s[i].symbol, "%s", said);
                if (file[0] != '?') snprintf(s[i].line, sizeof s[i].line, "%s", file);
            }
            waitpid(pid, NULL, 0);
        }
        close(out[0]);
        if (err) return; /* no addr2line: none of them */
    }
}

static double secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

#define TOP_SITES 20

static void write_text(FILE *o, const struct profile *p, uint64_t mpi_ns, uint64_t wall, size_t shown)
{
    uint64_t trips = 0, trip_ns = 0, serve_ns = 0;
    for (size_t i = 0; i < p->nranks; i++)
        trips += p->ranks[i].trips, trip_ns += p->ranks[i].trip_ns, serve_ns += p->ranks[i].serve_ns;
    fprintf(o, "mpcr profile: %zu of %d ranks; time in MPI %.3f s of %.3f s (%.1f %%), summed over the ranks\n",
            p->nranks, p->size, secs(mpi_ns), secs(wall), wall ? 100.0 * (double)mpi_ns / (double)wall : 0.0);
    uint64_t hand = trip_ns > serve_ns ? trip_ns - serve_ns : 0;
    fprintf(o, "round trips to the proxies: %" PRIu64 ", %.3f s; the proxies served them in %.3f s, the "
               "hand-offs took %.3f s (%.2f us a trip)\n\n",
            trips, secs(trip_ns), secs(serve_ns), secs(hand), trips ? (double)hand / 1e3 / (double)trips : 0.0);
    fprintf(o, "%-28s %12s %12s %8s %12s %16s\n", "function", "calls", "time (s)", "% MPI", "mean (us)",
            "bytes sent");
    for (size_t i = 0; i < p->nfns; i++) {
        const struct fn_total *f = &p->fns[i];
        fprintf(o, "%-28s %12" PRIu64 " %12.6f %8.2f %12.3f %16" PRIu64 "\n", f->name, f->calls, secs(f->ns),
                mpi_ns ? 100.0 * (double)f->ns / (double)mpi_ns : 0.0, (double)f->ns / 1e3 / (double)f->calls,
                f->bytes);
    }
    fprintf(o, "\n%-6s %12s %12s %8s %12s %14s\n", "rank", "wall (s)", "MPI (s)", "% wall", "round trips",
            "hand-offs (s)");
    for (size_t i = 0; i < p->nranks; i++) {
        const struct rank_row *r = &p->ranks[i];
        fprintf(o, "%-6d %12.6f %12.6f %8.2f %12" PRIu64 " %14.6f\n", r->rank, secs(r->wall), secs(r->mpi_ns),
                r->wall ? 100.0 * (double)r->mpi_ns / (double)r->wall : 0.0, r->trips,
                secs(r->trip_ns > r->serve_ns ? r->trip_ns - r->serve_ns : 0));
    }
    fprintf(o, "\ncall sites, by time (the first %zu of %zu):\n", shown, p->nsites);
    for (size_t i = 0; i < shown; i++) {
        const struct site_total *s = &p->sites[i];
        const char *base = strrchr(s->object, '/') ? strrchr(s->object, '/') + 1 : s->object;
        fprintf(o, "%3zu %-24s %10" PRIu64 " calls %12.6f s  %s%s%s+%#" PRIx64 "%s%s\n", i + 1, s->fn,
                s->calls, secs(s->ns), s->symbol, s->symbol[0] ? " in " : "", base, s->offset,
                s->line[0] ? " at " : "", s->line);
    }
    uint64_t lost = 0;
    for (size_t i = 0; i < p->nranks; i++)
        lost += p->ranks[i].sites_lost;
    if (lost) fprintf(o, "(%" PRIu64 " calls came from sites beyond the 4096 a rank counts)\n", lost);
}

/* A JSON string (the names here are plain, paths may not be). */
static void json_str(FILE *o, const char *s)
{
    fputc('"', o);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(o, "\\%c", c);
        else if (c < 0x20) fprintf(o, "\\u%04x", c);
        else fputc(c, o);
    }
    fputc('"', o);
}

static void write_json(FILE *o, const struct profile *p, uint64_t mpi_ns, uint64_t wall)
{
    fprintf(o, "{\n  \"ranks\": %d,\n  \"ranks_reported\": %zu,\n  \"wall_s\": %.9f,\n  \"mpi_s\": %.9f,\n",
            p->size, p->nranks, secs(wall), secs(mpi_ns));
    fprintf(o, "  \"functions\": [");
    for (size_t i = 0; i < p->nfns; i++) {
        const struct fn_total *f = &p->fns[i];
        fprintf(o, "%s\n    {\"name\": ", i ? "," : "");
        json_str(o, f->name);
        fprintf(o, ", \"calls\": %" PRIu64 ", \"time_s\": %.9f, \"bytes_sent\": %" PRIu64 "}", f->calls,
                secs(f->ns), f->bytes);
    }
    fprintf(o, "\n  ],\n  \"per_rank\": [");
    for (size_t i = 0; i < p->nranks; i++) {
        const struct rank_row *r = &p->ranks[i];
        fprintf(o,
                "%s\n    {\"rank\": %d, \"wall_s\": %.9f, \"mpi_s\": %.9f, \"round_trips\": %" PRIu64
                ", \"round_trip_s\": %.9f, \"proxy_serve_s\": %.9f}",
                i ? "," : "", r->rank, secs(r->wall), secs(r->mpi_ns), r->trips, secs(r->trip_ns),
                secs(r->serve_ns));
    }
    fprintf(o, "\n  ],\n  \"sites\": [");
    for (size_t i = 0; i < p->nsites; i++) {
        const struct site_total *s = &p->sites[i];
        fprintf(o, "%s\n    {\"function\": ", i ? "," : "");
        json_str(o, s->fn);
        fprintf(o, ", \"calls\": %" PRIu64 ", \"time_s\": %.9f, \"symbol\": ", s->calls, secs(s->ns));
        json_str(o, s->symbol);
        fprintf(o, ", \"object\": ");
        json_str(o, s->object);
        fprintf(o, ", \"offset\": \"%#" PRIx64 "\", \"line\": ", s->offset);
        json_str(o, s->line);
        fputc('}', o);
    }
    fprintf(o, "\n  ]\n}\n");
}

/* Writes name in dir with what `write` prints; 0 or -1 said. */
static int publish(const char *dir, const char *name, const struct profile *p, uint64_t mpi_ns, uint64_t wall,
                   size_t shown)
{
    char path[PATH_MAX], *text = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&text, &len);
    if (!o) return -1;
    if (!strcmp(name, "profile.json")) write_json(o, p, mpi_ns, wall);
    else write_text(o, p, mpi_ns, wall, shown);
    fclose(o);
    int err = mpcr_path_join(path, sizeof path, dir, name);
    if (!err) err = mpcr_atomic_write_file(path, text, len, 0644);
    free(text);
    if (err) mpcr_err("profile: cannot write %s/%s: %s", dir, name, strerror(-err));
    return err ? -1 : 0;
}

static int is_rank_file(const struct dirent *d)
{
    int rank, end = 0;
    return sscanf(d->d_name, "rank-%d.prof%n", &rank, &end) == 1 && d->d_name[end] == 0;
}

int mpcr_profile_report(const char *dir, FILE *print)
{
    struct dirent **names;
    int n = scandir(dir, &names, is_rank_file, alphasort);
    if (n < 0) return mpcr_err("profile: cannot read %s: %s", dir, strerror(errno)), 1;
    if (n == 0) {
        free(names);
        mpcr_err("profile: no rank wrote a profile into %s (ranks write theirs at MPI_Finalize)", dir);
        return 1;
    }
    struct profile p = {0};
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (!rc && (mpcr_path_join(path, sizeof path, dir, names[i]->d_name) || read_rank(&p, path))) rc = 1;
        free(names[i]);
    }
    free(names);
    if (!rc && p.nranks) {
        qsort(p.fns, p.nfns, sizeof *p.fns, by_time);
        qsort(p.sites, p.nsites, sizeof *p.sites, site_by_time);
        qsort(p.ranks, p.nranks, sizeof *p.ranks, by_rank);
        uint64_t mpi_ns = 0, wall = 0;
        for (size_t i = 0; i < p.nranks; i++)
            mpi_ns += p.ranks[i].mpi_ns, wall += p.ranks[i].wall;
        size_t shown = p.nsites < TOP_SITES ? p.nsites : TOP_SITES;
        resolve_lines(p.sites, shown);
        if (publish(dir, "profile.txt", &p, mpi_ns, wall, shown) ||
            publish(dir, "profile.json", &p, mpi_ns, wall, shown))
            rc = 1;
        if (print) write_text(print, &p, mpi_ns, wall, shown);
    }
    free(p.fns), free(p.ranks), free(p.sites);
    return rc;
}

int mpcr_profile_prepare_rank(const char *cmd, const char *dir)
{
    if (mkdir(dir, 0755) && errno != EEXIST) {
        mpcr_err("%s: --profile: cannot make the directory %s: %s", cmd, dir, strerror(errno));
        return 1;
    }
    char abs[PATH_MAX];
    if (!realpath(dir, abs)) {
        mpcr_err("%s: --profile: %s: %s", cmd, dir, strerror(errno));
        return 1;
    }
    setenv("MPCR_PROFILE", abs, 1); /* the ranks' library reads it (the launcher passes it on) */
    return 0;
}

int mpcr_profile_prepare(const char *cmd, const char *dir)
{
    if (mpcr_profile_prepare_rank(cmd, dir)) return 1;
    /* a profile left there by an earlier job would be summed with this one's */
    const char *abs = getenv("MPCR_PROFILE");
    struct dirent **names;
    int n = scandir(abs, &names, is_rank_file, alphasort);
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        if (!mpcr_path_join(path, sizeof path, abs, names[i]->d_name)) unlink(path);
        free(names[i]);
    }
    if (n >= 0) free(names);
    return 0;
}

int cmd_profile(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: mpcr profile DIR\n");
        return MPCR_EXIT_USAGE;
    }
    return mpcr_profile_report(argv[1], stdout);
}
