/* The coordinator's server loop: accepts requests from `mpcr checkpoint` and
 * `mpcr status` and reports from the engine, signals the process, writes the
 * manifest, answers. One checkpoint at a time; an --interval timer asks for
 * checkpoints by itself. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "control.h"
#include "binding.h"
#include "clock.h"
#include "conns.h"
#include "coord.h"
#include "coord_protocol.h"
#include "path.h"
#include "private.h"
#include "proc_stat.h"

static int sock_addr(const char *dir, struct sockaddr_un *a)
{
    memset(a, 0, sizeof *a);
    a->sun_family = AF_UNIX;
    if ((size_t)snprintf(a->sun_path, sizeof a->sun_path, "%s/coord.sock", dir) >= sizeof a->sun_path)
        return -ENAMETOOLONG;
    return 0;
}

/* A checkpoint directory is trusted only when it is this user's and no
 * one else may write in it: anyone who can would plant generations,
 * sockets or links there. */
static int check_dir(const char *dir)
{
    char why[MPCR_WHY_MAX];
    if (!mpcr_check_private(dir, S_IFDIR, why, sizeof why)) return 0;
    fprintf(stderr, "mpcr: refusing the checkpoint directory: %s; use a directory of your own, "
                    "writable by you alone (chmod go-w, or a new one)\n", why);
    return -EPERM;
}

/* What a coordinator killed with SIGKILL left in dir (none answers on its
 * socket any more): the socket, temporaries, generations without a
 * manifest (they never existed). Each said on stderr. */
static void remove_leftovers(const char *dir, const char *sock)
{
    if (!unlink(sock)) fprintf(stderr, "mpcr: removed %s, left by a coordinator that is gone (killed?)\n", sock);
    static const char *const tmps[] = {"coord.secret.tmp", "coord.job.tmp", "coord.sock.tmp"};
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++) {
        if (!mpcr_path_join(path, sizeof path, dir, tmps[i]) && !unlink(path)) fprintf(stderr, "mpcr: removed %s, left by a coordinator that was killed\n", path);
    }
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        unsigned long gen;
        char *end;
        if (strncmp(e->d_name, "gen-", 4) || !(gen = strtoul(e->d_name + 4, &end, 10)) || *end) continue;
        if (mpcr_path_printf(path, sizeof path, "%s/%s/manifest", dir, e->d_name)) continue;
        if (access(path, F_OK)) {
            mpcr_gen_remove(dir, gen);
            fprintf(stderr, "mpcr: removed %s/%s, a checkpoint that was never completed\n", dir, e->d_name);
            continue;
        }
        mpcr_path_join(path, sizeof path, dir, e->d_name); /* shorter than the manifest's */
        DIR *g = opendir(path);
        struct dirent *f;
        while (g && (f = readdir(g))) {
            size_t n = strlen(f->d_name);
            char tmp[PATH_MAX];
            if (n < 4 || strcmp(f->d_name + n - 4, ".tmp")) continue;
            if (!mpcr_path_join(tmp, sizeof tmp, path, f->d_name) && !unlink(tmp)) fprintf(stderr, "mpcr: removed %s, a temporary file left behind\n", tmp);
        }
        if (g) closedir(g);
    }
    if (d) closedir(d);
}

int mpcr_coord_open(struct mpcr_coord *c, const char *dir)
{
    memset(c, 0, sizeof *c);
    c->listen_fd = c->tcp_fd = c->dir_fd = -1;
    c->keep = 2;
    /* A directory made here is 0700 (mkdir's mode less a umask: 0700 at
     * most). One that exists is left as it is when no one else may write in
     * it (check_dir refuses it otherwise): a mode of 0755 lets others list
     * it and read nothing mpcr puts there (files 0600, coord.sock 0600 with
     * each peer's uid checked), and changing the mode of a user's own
     * directory behind their back would surprise more than it protects. */
    if (mkdir(dir, 0700) && errno != EEXIST) return -errno;
    if (!realpath(dir, c->dir)) return -errno;
    int rc = check_dir(c->dir);
    if (rc) return rc;
    unsigned long newest, highest;
    if ((rc = mpcr_gen_scan(c->dir, &newest, &highest))) return rc;
    c->next_gen = highest + 1;
    c->job_id = mpcr_new_job_id();
    struct sockaddr_un a;
    if ((rc = sock_addr(c->dir, &a))) return rc;
    char reply[64];
    if (mpcr_coord_ask(c->dir, "ping", reply, sizeof reply) == 0) return -EADDRINUSE;
    remove_leftovers(c->dir, a.sun_path);
    int fd = mpcr_coord_bind(c->dir);
    if (fd < 0) return fd;
    c->listen_fd = fd;
    return mpcr_coord_hold_place(c);
}

/* The socket is bound and listening under a temporary name first and only
 * then renamed to coord.sock: a client (`mpcr checkpoint` right after the
 * start, a test waiting for the file) that sees coord.sock always finds
 * someone listening, never a bound socket not yet listening
 * (ECONNREFUSED). A connect() finds a socket by its inode, so the rename
 * keeps it reachable. The directory is checked private: the temporary name
 * is ours to unlink. */
int mpcr_coord_bind(const char *dir)
{
    struct sockaddr_un a, tmp;
    int rc = sock_addr(dir, &a);
    if (rc) return rc;
    tmp = a;
    if ((size_t)snprintf(tmp.sun_path, sizeof tmp.sun_path, "%s.tmp", a.sun_path) >= sizeof tmp.sun_path)
        return -ENAMETOOLONG;
    unlink(tmp.sun_path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    /* bind() creates the socket 0777 less the umask: 0600 whatever it is */
    mode_t old_umask = umask(0177);
    rc = bind(fd, (struct sockaddr *)&tmp, sizeof tmp) || listen(fd, 16) || rename(tmp.sun_path, a.sun_path) ? -errno : 0;
    umask(old_umask);
    if (rc) {
        unlink(tmp.sun_path);
        close(fd);
        return rc;
    }
    return fd;
}

static int write_private(const char *dir, const char *name, const char *text);

int mpcr_coord_listen_tcp(struct mpcr_coord *c, const char *addr)
{
    char spec[80];
    if ((size_t)snprintf(spec, sizeof spec, "tcp:%s", addr) >= sizeof spec) return -EINVAL;
    /* The same parser as the clients', on a throw-away connection attempt:
     * a listening socket needs the parsed address, so parse it here too. */
    unsigned a, b, d, e, port;
    char tail;
    if (sscanf(addr, "%u.%u.%u.%u:%u%c", &a, &b, &d, &e, &port, &tail) != 5 || a > 255 || b > 255 ||
        d > 255 || e > 255 || !port || port > 65535)
        return -EINVAL;
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr = {htonl(a << 24 | b << 16 | d << 8 | e)}};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, rc;
    if (fd < 0) return -errno;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&in, sizeof in) || listen(fd, 64)) {
        rc = -errno;
        close(fd);
        return rc;
    }
    unsigned char raw[16];
    FILE *r = fopen("/dev/urandom", "rb");
    if (!r || fread(raw, 1, sizeof raw, r) != sizeof raw) {
        if (r) fclose(r);
        close(fd);
        return -EIO;
    }
    fclose(r);
    for (size_t i = 0; i < sizeof raw; i++) snprintf(c->secret + 2 * i, 3, "%02x", raw[i]);
    /* A restart's coordinator continues the job of the newest generation. */
    unsigned long newest, highest;
    struct mpcr_manifest m;
    char why[MPCR_WHY_MAX], job[32];
    if (!mpcr_gen_scan(c->dir, &newest, &highest) && newest &&
        !mpcr_manifest_read(c->dir, newest, &m, why, sizeof why)) {
        c->job_id = m.job;
        mpcr_manifest_free(&m);
    }
    snprintf(job, sizeof job, "%016" PRIx64 "\n", c->job_id);
    if ((rc = write_private(c->dir, "coord.secret", c->secret)) ||
        (rc = write_private(c->dir, "coord.job", job))) {
        close(fd);
        return rc;
    }
    c->tcp_fd = fd;
    return 0;
}

int mpcr_coord_read_job(const char *dir, uint64_t *job)
{
    char path[PATH_MAX];
    *job = 0;
    int rc = mpcr_path_join(path, sizeof path, dir, "coord.job");
    if (rc) return rc;
    FILE *f = fopen(path, "r");
    if (!f) return -errno;
    int ok = fscanf(f, "%16" SCNx64, job) == 1;
    fclose(f);
    return ok ? 0 : -EINVAL;
}

/* Writes text to DIR/NAME privately (0600) and atomically; 0 or -errno. */
static int write_private(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    int rc = mpcr_path_join(path, sizeof path, dir, name);
    return rc ? rc : mpcr_atomic_write_file(path, text, strlen(text), 0600);
}

int mpcr_coord_read_secret(const char *dir, char *buf, size_t cap)
{
    char path[PATH_MAX];
    int rc = mpcr_path_join(path, sizeof path, dir, "coord.secret");
    if (rc) return rc;
    FILE *f = fopen(path, "r");
    if (!f) return -errno;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    buf[strcspn(buf, "\n")] = 0;
    return ok && buf[0] ? 0 : -EINVAL;
}

void mpcr_coord_close(struct mpcr_coord *c)
{
    if (c->tcp_fd >= 0) close(c->tcp_fd);
    c->tcp_fd = -1;
    if (c->dir_fd >= 0) close(c->dir_fd);
    c->dir_fd = -1;
    if (c->listen_fd < 0) return;
    close(c->listen_fd);
    c->listen_fd = -1;
    struct sockaddr_un a; /* a socket at the path that is not its own is not its to remove */
    if (!c->place_lost && !sock_addr(c->dir, &a)) unlink(a.sun_path);
}

void mpcr_coord_send_line(int fd, const char *fmt, ...)
{
    char buf[MPCR_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 1) n = sizeof buf - 1;
    if (fd >= 0 && send(fd, buf, (size_t)n, MSG_NOSIGNAL) < 0) {}
}

static int read_line(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = read(fd, buf + len, 1);
        if (n <= 0) break;
        if (buf[len] == '\n') break;
        len++;
    }
    buf[len] = 0;
    return (int)len;
}

/* The one checkpoint in progress: asked (active), then, once the process
 * runs the engine, signalled with its generation number. */
struct pending {
    int active, signalled;
    unsigned long gen;
    int client; /* -1 when the interval timer asked */
    int exit_after;
    double started;
    int ended; /* the process has ended: an interval checkpoint's end is no news */
};
#define READY_WAIT_S 10.0 /* how long a request waits for the engine to start */

/* Whether `pid` has a handler for SIGRTMAX, i.e. runs the engine: sent
 * earlier (or to a statically linked program) the signal would kill it. */
static int engine_ready(pid_t pid)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long caught = 0;
    while (fgets(buf, sizeof buf, f))
        if (!strncmp(buf, "SigCgt:", 7)) caught = strtoull(buf + 7, NULL, 16);
    fclose(f);
    return (caught >> (SIGRTMAX - 1)) & 1;
}

static void give_up(struct pending *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void give_up(struct pending *p, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (p->client >= 0) {
        mpcr_coord_send_line(p->client, "error %s\n", msg);
        close(p->client);
    } else if (p->active && !p->ended) { /* the interval's: no one else to tell */
        fprintf(stderr, "mpcr: coordinator: interval checkpoint gen-%lu failed: %s; the process goes on\n", p->gen, msg);
    }
    p->active = 0;
}

/* Signals the process once it runs the engine (just after a start or a
 * restart it may not yet); gives up after READY_WAIT_S. */
static void try_signal(struct mpcr_coord *c, pid_t child, struct pending *p)
{
    if (!p->active || p->signalled) return;
    if (!engine_ready(child)) {
        if (mpcr_now_s() - p->started > READY_WAIT_S)
            give_up(p, "the process does not run the checkpoint engine (statically linked, or it took SIGRTMAX)");
        return;
    }
    char gdir[PATH_MAX];
    p->gen = c->next_gen++;
    if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", c->dir, p->gen)) {
        give_up(p, "cannot start generation %lu: %s", p->gen, strerror(ENAMETOOLONG));
        return;
    }
    /* A checkpoint the process survives may be written by a forked copy
     * (MPCR_CKPT_FORK=0: never; then the process waits for its image). */
    const char *fork_ok = getenv("MPCR_CKPT_FORK");
    int may_fork = !p->exit_after && !(fork_ok && !strcmp(fork_ok, "0"));
    union sigval v = {.sival_ptr = (void *)(uintptr_t)(may_fork ? MPCR_CTL_REQUEST_CONTINUE(p->gen)
                                                                 : MPCR_CTL_REQUEST(p->gen))};
    if (mkdir(gdir, 0700) || sigqueue(child, SIGRTMAX, v)) {
        give_up(p, "cannot start generation %lu: %s", p->gen, strerror(errno));
        rmdir(gdir);
        return;
    }
    p->signalled = 1;
    p->started = mpcr_now_s();
}

/* The state letter of /proc/PID/stat ('T' stopped, 't' traced), or 0. */
static char process_state(pid_t pid)
{
    char buf[512];
    const char *state = mpcr_proc_stat(pid, buf, sizeof buf);
    return state ? state[0] : 0;
}

/* No checkpoint waits for ever: once the process has been asked, it has
 * MPCR_CKPT_TIMEOUT seconds (120, as an MPI job's checkpoint) to report its
 * image. A stopped process (SIGSTOP, a debugger) cannot even start: said so. */
static void check_answer_time(struct mpcr_coord *c, pid_t child, struct pending *p)
{
    if (!p->active || !p->signalled) return;
    const char *t = getenv("MPCR_CKPT_TIMEOUT");
    double limit = t && atof(t) > 0 ? atof(t) : 120.0;
    if (mpcr_now_s() - p->started <= limit) return;
    char state = process_state(child);
    mpcr_gen_remove(c->dir, p->gen);
    if (state == 'T' || state == 't')
        give_up(p, "the process (pid %d) is stopped (SIGSTOP, or a debugger): it cannot write its image until it "
                   "goes on (kill -CONT %d); gave up after %.0f s (MPCR_CKPT_TIMEOUT)",
                (int)child, (int)child, limit);
    else
        give_up(p, "the process (pid %d) did not report its image within %.0f s (MPCR_CKPT_TIMEOUT)", (int)child,
                limit);
}

static void start_checkpoint(struct mpcr_coord *c, pid_t child, struct pending *p, int client, int exit_after)
{
    if (p->active) {
        if (client >= 0) mpcr_coord_send_line(client, "error a checkpoint is already in progress\n"), close(client);
        return;
    }
    *p = (struct pending){.active = 1, .client = client, .exit_after = exit_after, .started = mpcr_now_s()};
    try_signal(c, child, p);
}

/* The engine's report, m: "image GEN ok BYTES [forked MS]" or "image GEN error WHY". */
static void finish_checkpoint(struct mpcr_coord *c, struct pending *p, int engine, const char *line,
                              const struct mpcr_line *m)
{
    unsigned long gen = m->num[0];
    if (!p->active || !p->signalled || gen != p->gen) {
        /* a stray or repeated report (the process's own, by its pid): it
         * goes on, and the report is logged, never counted */
        fprintf(stderr, "mpcr: coordinator: refused \"%.80s\": %s\n", line,
                !p->active || !p->signalled ? "no checkpoint is in progress"
                                            : "not the generation being written");
        mpcr_coord_send_line(engine, "continue\n");
        return;
    }
    double ms = (mpcr_now_s() - p->started) * 1e3;
    int ok = m->kind == MPCR_LINE_IMAGE_OK;
    unsigned long long bytes = ok ? m->num[1] : 0;
    /* "forked MS": a forked copy wrote it; the process was stopped MS */
    long stopped = ok && m->opt && m->num[2] <= LONG_MAX ? (long)m->num[2] : -1;
    char why[MPCR_WHY_MAX] = "";
    int rc = ok ? mpcr_manifest_write(c->dir, c->job_id, gen, 1, NULL, why, sizeof why) : 0;
    if (ok && !rc) {
        mpcr_coord_send_line(engine, p->exit_after ? "exit\n" : "continue\n");
        mpcr_gen_prune(c->dir, c->keep);
        if (p->client >= 0 && stopped >= 0)
            mpcr_coord_send_line(p->client, "ok %s/gen-%lu %llu %.0f forked %ld\n", c->dir, gen, bytes, ms, stopped);
        else if (p->client >= 0) mpcr_coord_send_line(p->client, "ok %s/gen-%lu %llu %.0f\n", c->dir, gen, bytes, ms);
    } else {
        mpcr_coord_send_line(engine, "continue\n");
        mpcr_gen_remove(c->dir, gen);
        if (p->client >= 0) {
            if (ok) mpcr_coord_send_line(p->client, "error %s\n", why);
            else mpcr_coord_send_line(p->client, "error %s\n", m->text);
        }
    }
    if (p->client >= 0) close(p->client);
    p->active = 0;
}

int mpcr_process_end_fd(pid_t pid)
{
    return pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
}

/* Whether a report connection comes from the supervised process or an
 * image writer it forked (they are the coordinator's children too): an
 * image report from anything else of this user's is no report of it. */
static int from_the_process(pid_t peer, pid_t child)
{
    if (peer == child) return 1;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)peer);
    FILE *f = peer > 0 ? fopen(path, "r") : NULL;
    if (!f) return 0;
    int parent = 0;
    char *close_paren = fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
    if (close_paren) sscanf(close_paren + 1, " %*c %d", &parent);
    fclose(f);
    return parent == (int)getpid() || parent == (int)child;
}

struct serving {
    struct mpcr_coord *c;
    pid_t child;
    struct pending *p;
};

/* A connection's request (conns.c read it without blocking). */
static void on_request(void *arg, const struct mpcr_request *rq)
{
    struct serving *sv = arg;
    int fd = rq->fd;
    const char *line = rq->line;
    struct mpcr_line m;
    if (mpcr_coord_line_parse(line, MPCR_FROM_CLIENT | MPCR_FROM_ENGINE, &m))
        m.kind = MPCR_LINE_KINDS; /* unknown */
    if (m.kind == MPCR_LINE_CHECKPOINT) {
        start_checkpoint(sv->c, sv->child, sv->p, fd, m.opt);
        return; /* the client waits for the engine's report */
    }
    if (m.kind == MPCR_LINE_IMAGE_OK || m.kind == MPCR_LINE_IMAGE_ERROR) {
        if (from_the_process(rq->pid, sv->child)) {
            finish_checkpoint(sv->c, sv->p, fd, line, &m); /* answers the engine; closed below */
        } else {
            fprintf(stderr, "mpcr: coordinator: refused \"%.80s\" from pid %d: not the process "
                            "(pid %d) or its image writer\n", line, (int)rq->pid, (int)sv->child);
            mpcr_coord_send_line(fd, "error an image report must come from the process\n");
        }
    } else if (m.kind == MPCR_LINE_STATUS && !m.opt) { /* "status detail": an MPI job's */
        unsigned long newest, highest;
        mpcr_gen_scan(sv->c->dir, &newest, &highest);
        mpcr_coord_send_line(fd, "running pid %d newest-complete gen-%lu%s\n", (int)sv->child,
                             newest, sv->p->active ? " checkpoint-in-progress" : "");
    } else if (m.kind == MPCR_LINE_PING)
        mpcr_coord_send_line(fd, "pong\n");
    else
        mpcr_coord_send_line(fd, "error unknown request\n");
    close(fd);
}

int mpcr_coord_serve(struct mpcr_coord *c, pid_t child)
{
    int child_end = mpcr_process_end_fd(child);
    struct pending p = {0};
    struct serving sv = {c, child, &p};
    struct mpcr_conns conns = {0};
    struct pollfd *pfd = calloc(2 + MPCR_CONN_MAX, sizeof *pfd);
    if (!pfd) return -ENOMEM;
    signal(SIGPIPE, SIG_IGN); /* a client that went away must not end the coordinator */
    double next_auto = c->interval > 0 ? mpcr_now_s() + c->interval : 0;
    int status = 0;
    int ended = 0;
    for (;;) {
        /* The process, and the image writers it forked (its siblings, our
         * children: reaped when done; while one still writes, its image is
         * good even if the process has ended). */
        pid_t w;
        int st;
        while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
            if (w == child) status = st, ended = p.ended = 1;
            else if (WIFSIGNALED(st) && p.active && p.signalled) { /* a writer that could not report */
                mpcr_gen_remove(c->dir, p.gen);
                give_up(&p, "the image writer was killed by signal %d", WTERMSIG(st));
            }
        }
        if (ended && !(p.active && p.signalled && w == 0)) break;
        if (!ended && next_auto && c->interval > 0 && !p.active && mpcr_now_s() >= next_auto)
            c->next_place_check = 0; /* at each interval tick: is the place still the coordinator's? */
        mpcr_coord_watch_place(c, mpcr_now_s());
        if (!ended && next_auto && c->interval > 0 && !p.active && mpcr_now_s() >= next_auto) {
            start_checkpoint(c, child, &p, -1, 0);
            next_auto = mpcr_now_s() + c->interval;
        }
        if (ended && p.active && !p.signalled) give_up(&p, "the process has ended");
        else try_signal(c, child, &p), check_answer_time(c, child, &p);
        /* Every connection is read as part of this one poll(): none that
         * says nothing, or half a line, holds the others up (conns.h). */
        pfd[0] = (struct pollfd){c->listen_fd, POLLIN, 0};
        pfd[1] = (struct pollfd){ended ? -1 : child_end, POLLIN, 0};
        int n = 2 + mpcr_conns_pollfds(&conns, pfd + 2);
        int ready = poll(pfd, (nfds_t)n, 50);
        mpcr_conns_serve(&conns, pfd + 2, ready > 0 ? n - 2 : 0, "", mpcr_now_s(), on_request, &sv);
        if (ready > 0 && (pfd[0].revents & POLLIN)) mpcr_conns_accept(&conns, c->listen_fd, 1, mpcr_now_s());
    }
    if (child_end >= 0) close(child_end);
    if (p.active && p.signalled) mpcr_gen_remove(c->dir, p.gen);
    if (p.active) give_up(&p, "the process ended before its image was complete");
    mpcr_conns_close_all(&conns);
    free(pfd);
    mpcr_coord_close(c);
    return status;
}

int mpcr_coord_request(const char *dir, const char *request)
{
    struct sockaddr_un a;
    int rc = sock_addr(dir, &a);
    if (rc) return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    if (connect(fd, (struct sockaddr *)&a, sizeof a)) {
        rc = -errno;
        close(fd);
        return rc;
    }
    mpcr_coord_send_line(fd, "%s\n", request);
    return fd;
}

int mpcr_coord_read_line(int fd, char *buf, size_t cap)
{
    return read_line(fd, buf, cap);
}

int mpcr_coord_ask(const char *dir, const char *request, char *reply, size_t cap)
{
    int fd = mpcr_coord_request(dir, request), rc = 0;
    if (fd < 0) return fd;
    if (read_line(fd, reply, cap) == 0) rc = -ECONNRESET;
    close(fd);
    return rc;
}
