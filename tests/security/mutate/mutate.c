/* See mutate.h. */
#include "mutate.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t mutate_next(struct mutate_rng *g)
{
    /* xorshift64*: enough for choosing where to damage, and repeatable */
    g->s ^= g->s >> 12, g->s ^= g->s << 25, g->s ^= g->s >> 27;
    return g->s * 0x2545f4914f6cdd1dull;
}

uint64_t mutate_below(struct mutate_rng *g, uint64_t n)
{
    return mutate_next(g) % n;
}

uint64_t mutate_extreme(struct mutate_rng *g, uint64_t old)
{
    static const uint64_t v[] = {0, 1, ~0ull, 1ull << 31, 0xffffffffull, 1ull << 63,
                                 0x7fffffffffffffffull, 4096, 0xfffffffffffff000ull};
    uint64_t k = mutate_below(g, sizeof v / sizeof v[0] + 3);
    if (k < sizeof v / sizeof v[0]) return v[k];
    if (k == sizeof v / sizeof v[0]) return old + 1 + mutate_below(g, 8);
    if (k == sizeof v / sizeof v[0] + 1) return old - 1 - mutate_below(g, 8);
    return mutate_next(g);
}

void mutate_put(unsigned char *p, int width, uint64_t v)
{
    for (int i = 0; i < width; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t mutate_get(const unsigned char *p, int width)
{
    uint64_t v = 0;
    for (int i = width - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void mutate_flip_bits(struct mutate_rng *g, unsigned char *buf, size_t len)
{
    for (int n = 1 + (int)mutate_below(g, 8); n > 0 && len; n--)
        buf[mutate_below(g, len)] ^= (unsigned char)(1u << mutate_below(g, 8));
}

void mutate_random_bytes(struct mutate_rng *g, unsigned char *buf, size_t len)
{
    if (!len) return;
    size_t at = mutate_below(g, len), n = 1 + mutate_below(g, 64);
    for (size_t i = at; i < len && i < at + n; i++)
        buf[i] = (unsigned char)mutate_next(g);
}

void mutate_truncate(struct mutate_rng *g, unsigned char *buf, size_t len, size_t *size,
                     int may_grow, char *what, size_t cap)
{
    if (!may_grow || mutate_below(g, 4)) *size = mutate_below(g, len);
    else *size = len + 1 + mutate_below(g, 4095), memset(buf + len, 0xa5, *size - len);
    snprintf(what, cap, "%zu of %zu bytes", *size, len);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads the child's stderr until it closes or the limit passes; reaps it. */
static void watch(pid_t pid, int err, double limit_s, struct mutate_outcome *o)
{
    size_t len = 0;
    double deadline = now() + limit_s;
    for (;;) {
        double left = deadline - now();
        struct pollfd p = {err, POLLIN, 0};
        if (left <= 0) {
            o->hung = 1;
            kill(pid, SIGKILL);
            break;
        }
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        char buf[4096];
        ssize_t n = read(err, buf, sizeof buf);
        if (n <= 0) break;
        size_t k = (size_t)n < sizeof o->said - 1 - len ? (size_t)n : sizeof o->said - 1 - len;
        memcpy(o->said + len, buf, k);
        len += k;
    }
    o->said[len] = 0;
    close(err);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (o->hung) return;
    if (WIFSIGNALED(st)) o->signal = WTERMSIG(st);
    else o->status = WEXITSTATUS(st);
}

static pid_t start(int *err)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC)) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1), dup2(p[1], 2);
        return 0;
    }
    close(p[1]);
    *err = p[0];
    return pid;
}

void mutate_run(char *const argv[], double limit_s, struct mutate_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->status = -1;
    int err;
    pid_t pid = start(&err);
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0) return;
    watch(pid, err, limit_s, o);
}

void mutate_run_fn(int (*fn)(void *arg), void *arg, double limit_s, struct mutate_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->status = -1;
    int err;
    fflush(NULL);
    pid_t pid = start(&err);
    if (pid == 0) _exit(fn(arg));
    if (pid < 0) return;
    watch(pid, err, limit_s, o);
}

const char *mutate_judge(const struct mutate_outcome *o, int must_refuse)
{
    if (o->hung) return "hung (killed after the time limit)";
    if (o->signal) return "crashed (ended by a signal)";
    if (o->status == MUTATE_SANITIZER_STATUS) return "a sanitizer reported an error";
    if (o->status == 0) return must_refuse ? "accepted a damaged file" : NULL;
    if (o->status != 1) return "ended with a status other than 0 or 1";
    if (!o->said[0] || strlen(o->said) < 10) return "refused without a message";
    return NULL;
}

long mutate_iterations(long default_count)
{
    const char *v = getenv("MUTATE_ITERATIONS");
    return v && atol(v) > 0 ? atol(v) : default_count;
}

double mutate_seconds(void)
{
    const char *v = getenv("MUTATE_SECONDS");
    return v && atof(v) > 0 ? atof(v) : 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

uint64_t mutate_seed(void)
{
    const char *v = getenv("MUTATE_SEED");
    return v && *v ? strtoull(v, NULL, 0) | 1 : 0x6d7063726675ull;
}

int mutate_write_file(const char *path, const void *buf, size_t len)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) return close(fd), -1;
        p += n, len -= (size_t)n;
    }
    return close(fd);
}

unsigned char *mutate_read_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || st.st_size <= 0) {
        if (fd >= 0) close(fd);
        return NULL;
    }
    unsigned char *buf = malloc((size_t)st.st_size);
    size_t done = 0;
    while (buf && done < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fd);
    if (buf && done != (size_t)st.st_size) free(buf), buf = NULL;
    *len = done;
    return buf;
}

void mutate_set_field(struct mutate_rng *g, unsigned char *at, const struct mutate_field *f,
                      char *what, size_t cap, const char *where)
{
    uint64_t old = mutate_get(at + f->off, f->width), v = mutate_extreme(g, old);
    mutate_put(at + f->off, f->width, v);
    v = mutate_get(at + f->off, f->width); /* what of it fits */
    snprintf(what, cap, "%s%s = %#llx (was %#llx)", where, f->name, (unsigned long long)v,
             (unsigned long long)old);
}

struct tally {
    long runs, refused, accepted, failed;
    long by_kind[16];
};

static void count(struct tally *t, int kind, const struct mutate_outcome *o, const char *verdict,
                  const char *what, const void *input, size_t len, const char *faildir)
{
    t->runs++;
    if (kind >= 0 && kind < 16) t->by_kind[kind]++;
    if (!verdict) {
        if (o->status == 0) t->accepted++;
        else t->refused++;
        if (getenv("MUTATE_VERBOSE"))
            printf("run %ld (%s): %s%s", t->runs, what, o->status ? "refused: " : "accepted\n",
                   o->status ? o->said : "");
        return;
    }
    char path[4200] = "";
    if (faildir) {
        snprintf(path, sizeof path, "%s/fail-%ld", faildir, t->failed);
        if (mutate_write_file(path, input, len)) path[0] = 0;
    }
    t->failed++;
    char said[300];
    size_t n = strcspn(o->said, "\n");
    if (n >= sizeof said) n = sizeof said - 1;
    memcpy(said, o->said, n);
    said[n] = 0;
    printf("FAIL run %ld (%s): %s; status %d, signal %d; said: %s%s%s\n", t->runs, what, verdict,
           o->status, o->signal, said[0] ? said : "(nothing)", path[0] ? "; input kept as " : "",
           path);
}

int mutate_drive(const struct mutate_driver *d, const unsigned char *orig, size_t len,
                 const char *faildir)
{
    unsigned char *buf = malloc(len + 4096);
    if (!buf) return printf("%s: out of memory\n", d->reader), 1;
    struct mutate_outcome o;
    d->run(orig, len, &o); /* the intact file must pass, or no refusal below means anything */
    if (o.status != 0) {
        printf("%s: the intact file is refused (status %d, signal %d): %s\n", d->reader,
               o.status, o.signal, o.said);
        free(buf);
        return 1;
    }
    /* The pinned cases: damage found before, checksums made right, must be refused. */
    struct tally p = {0};
    for (int i = 0; i < d->npinned; i++) {
        memcpy(buf, orig, len);
        size_t size = len;
        char what[300];
        int n = snprintf(what, sizeof what, "pinned case %d: ", i + 1);
        if (d->pin(i, buf, len, &size, what + n, sizeof what - (size_t)n)) {
            p.runs++, p.failed++;
            printf("FAIL pinned case %d: the valid file has nothing it applies to (%s)\n", i + 1,
                   what + n);
            continue;
        }
        d->fix(buf, size);
        d->run(buf, size, &o);
        count(&p, -1, &o, mutate_judge(&o, 1), what, buf, size, faildir);
    }
    uint64_t seed = mutate_seed();
    struct mutate_rng g = {seed};
    struct tally t = {.failed = p.failed}; /* (a failing input's name goes on from there) */
    double budget = mutate_seconds(), until = now_s() + budget;
    for (long it = mutate_iterations(d->default_iterations); budget ? now_s() < until : it > 0;
         it--) {
        memcpy(buf, orig, len);
        size_t size = len;
        int kind = (int)mutate_below(&g, (uint64_t)d->nkinds), fixed = kind >= d->first_fixed;
        char what[300];
        snprintf(what, sizeof what, "%s", d->kind_name[kind]);
        d->damage(&g, kind, buf, len, &size, what, sizeof what);
        if (fixed) d->fix(buf, size);
        int changed = size != len || memcmp(buf, orig, len);
        d->run(buf, size, &o);
        count(&t, kind, &o, mutate_judge(&o, changed && !fixed), what, buf, size, faildir);
    }
    free(buf);
    if (d->npinned)
        printf("%s: %ld pinned cases: refused %ld, failed %ld\n", d->reader, p.runs, p.refused,
               p.failed);
    t.failed -= p.failed;
    printf("%s: %ld damaged inputs (seed %#llx):", d->reader, t.runs, (unsigned long long)seed);
    for (int k = 0; k < d->nkinds; k++)
        printf(" %s %ld%s", d->kind_name[k], t.by_kind[k], k + 1 < d->nkinds ? "," : ";");
    printf(" refused %ld, accepted %ld (checksums made right: a harmless change), failed %ld\n",
           t.refused, t.accepted, t.failed);
    return t.failed || p.failed ? 1 : 0;
}
