/* The coordinator of an MPI job (docs/mpi-checkpoint.md, "Coordinator
 * protocol"). It lives in `mpcr run` and `mpcr restart`, on the same socket
 * DIR/coord.sock as the single-process coordinator (coord.c), and adds the
 * proxies: each connects once and stays connected. A checkpoint goes
 *   quiesce (every proxy: "quiet K SENT RECEIVED")
 *   -> drain (proxies report "count K RECEIVED" until the job-wide sums of
 *      sent and received are equal: nothing is left in the network)
 *   -> image (each proxy saves its state and signals its program; each
 *      program's engine reports "image K ok BYTES")
 *   -> manifest, then resume (or exit).
 * Any failure or a timeout resumes every rank and removes the generation. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "coord.h"

/* RESUME: the generation is complete; waiting for every rank to say it goes on. */
enum phase { IDLE, QUIESCE, DRAIN, IMAGE, RESUME };
static const char *const phase_name[] = {"idle", "quiesce", "drain", "image", "resume"};

struct rank {
    int fd; /* -1: not connected */
    char buf[1024];
    size_t len;
    int quiet, finalizing, resumed;
    unsigned long long sent, received;
};

struct job {
    struct mpcr_coord *c;
    int nranks, connected, ever_connected;
    struct rank *ranks;
    /* the checkpoint in progress */
    enum phase phase;
    unsigned long gen;
    int client, exit_after;
    int *engines, nimages; /* engine connections waiting for the answer */
    int may_fork;          /* ranks may have forked copies write their images */
    int snapshots, in_place; /* ranks that went on (forked copy) / that wrote in place */
    int resumed_early;     /* the proxies went on before the images were complete */
    int *writer_end, *writer_pid, nwriters; /* forked writers on this host: pidfds */
    unsigned long long bytes, total_sent;
    double started, t_quiet, t_drained, t_images, t_snapshots;
    char done[4400]; /* the client's answer, sent once every rank has resumed */
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void to_all(struct job *j, const char *word)
{
    for (int r = 0; r < j->nranks; r++)
        mpcr_coord_send_line(j->ranks[r].fd, "%s %lu\n", word, j->gen);
}

static void answer_engines(struct job *j, const char *answer)
{
    for (int i = 0; i < j->nimages; i++) {
        mpcr_coord_send_line(j->engines[i], "%s\n", answer);
        close(j->engines[i]);
    }
    j->nimages = 0;
}

static void end_checkpoint(struct job *j)
{
    for (int i = 0; i < j->nwriters; i++) close(j->writer_end[i]);
    j->nwriters = 0;
    if (j->client >= 0) close(j->client);
    j->client = -1;
    j->phase = IDLE;
    for (int r = 0; r < j->nranks; r++)
        j->ranks[r].quiet = j->ranks[r].resumed = 0;
}

/* Gives up on the checkpoint: every rank goes on, the generation goes away. */
static void fail(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct job *j, const char *fmt, ...)
{
    char why[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    answer_engines(j, "continue");
    to_all(j, "resume");
    mpcr_gen_remove(j->c->dir, j->gen);
    mpcr_coord_send_line(j->client, "error %s\n", why);
    end_checkpoint(j);
}

static void start(struct job *j, int client, int exit_after)
{
    if (j->phase != IDLE) {
        mpcr_coord_send_line(client, "error a checkpoint is already in progress\n");
        if (client >= 0) close(client);
        return;
    }
    for (int r = 0; r < j->nranks; r++)
        if (j->ranks[r].finalizing) {
            mpcr_coord_send_line(client,
                                 "error the job is ending (rank %d has called MPI_Finalize)\n", r);
            if (client >= 0) close(client);
            return;
        }
    if (j->connected < j->nranks) {
        mpcr_coord_send_line(client,
                             "error only %d of %d ranks have started; try again in a moment\n",
                             j->connected, j->nranks);
        if (client >= 0) close(client);
        return;
    }
    char gdir[4200];
    j->gen = j->c->next_gen++;
    snprintf(gdir, sizeof gdir, "%s/gen-%lu", j->c->dir, j->gen);
    if (mkdir(gdir, 0700)) {
        mpcr_coord_send_line(client, "error cannot create %s: %s\n", gdir, strerror(errno));
        if (client >= 0) close(client);
        return;
    }
    j->client = client, j->exit_after = exit_after;
    const char *fork_ok = getenv("MPCR_CKPT_FORK");
    j->may_fork = !exit_after && !(fork_ok && !strcmp(fork_ok, "0"));
    j->snapshots = j->in_place = j->resumed_early = 0;
    j->phase = QUIESCE;
    j->bytes = 0, j->nimages = 0;
    j->started = now();
    to_all(j, "quiesce");
}

static void check_drained(struct job *j)
{
    if (j->phase != DRAIN) return;
    unsigned long long received = 0;
    for (int r = 0; r < j->nranks; r++)
        received += j->ranks[r].received;
    if (received != j->total_sent) return;
    j->phase = IMAGE;
    j->t_drained = now();
    if (j->may_fork) /* "image K fork": see on_snapshot() */
        for (int r = 0; r < j->nranks; r++) mpcr_coord_send_line(j->ranks[r].fd, "image %lu fork\n", j->gen);
    else to_all(j, "image");
}

/* Every rank's program goes on, from a forked copy's snapshot or after its
 * image was written in place: the proxies may serve calls again while the
 * copies write (the manifest still waits for every image). */
static void maybe_resume_early(struct job *j)
{
    if (!j->may_fork || j->phase != IMAGE || j->resumed_early || j->snapshots + j->in_place < j->nranks) return;
    j->resumed_early = 1;
    j->t_snapshots = now();
    to_all(j, "resume");
}

/* "snapshot K PID": a rank's program goes on; its forked copy PID writes
 * the image. A copy waits for the coordinator's answer after its report,
 * so one that ends while images are still missing died: a local one (the
 * pid means something only on this host) is watched for that. */
static void on_snapshot(struct job *j, const char *line, int local)
{
    unsigned long gen;
    int pid = 0;
    if (sscanf(line, "snapshot %lu %d", &gen, &pid) < 1 || j->phase != IMAGE || gen != j->gen) return;
    int fd = local && pid > 0 && j->nwriters < j->nranks ? mpcr_process_end_fd(pid) : -1;
    if (fd >= 0) j->writer_pid[j->nwriters] = pid, j->writer_end[j->nwriters++] = fd;
    j->snapshots++;
    maybe_resume_early(j);
}

static void check_writers(struct job *j, const struct pollfd *p, int n)
{
    for (int i = 0; i < n && j->phase == IMAGE; i++)
        if (p[i].revents)
            fail(j, "an image writer (pid %d) ended before its image was complete (killed?)", j->writer_pid[i]);
}

/* Every rank goes on (or the attempt ends): the client hears how long that took. */
static void resumed(struct job *j)
{
    int n = 0;
    for (int r = 0; r < j->nranks; r++)
        n += j->ranks[r].resumed || j->ranks[r].fd < 0;
    if (n < j->nranks) return;
    mpcr_coord_send_line(j->client, "%s resume %.0f\n", j->done, (now() - j->t_images) * 1e3);
    end_checkpoint(j);
}

static void on_rank_line(struct job *j, int r, const char *line)
{
    struct rank *k = &j->ranks[r];
    unsigned long gen;
    unsigned long long a, b;
    int n = 0;
    if (sscanf(line, "quiet %lu %llu %llu", &gen, &a, &b) == 3 && j->phase == QUIESCE &&
        gen == j->gen) {
        k->quiet = 1, k->sent = a, k->received = b;
        for (int i = 0; i < j->nranks; i++)
            n += j->ranks[i].quiet;
        if (n < j->nranks) return;
        j->total_sent = 0;
        for (int i = 0; i < j->nranks; i++)
            j->total_sent += j->ranks[i].sent;
        j->phase = DRAIN;
        j->t_quiet = now();
        check_drained(j);
    } else if (sscanf(line, "resumed %lu", &gen) == 1 && gen == j->gen &&
               (j->phase == RESUME || (j->phase == IMAGE && j->resumed_early))) {
        k->resumed = 1;
        if (j->phase == RESUME) resumed(j);
    } else if (!strncmp(line, "finalizing ", 11)) {
        k->finalizing = 1;
        if (j->phase == RESUME) resumed(j);
        else if (j->phase == IMAGE && j->resumed_early) k->resumed = 1; /* its image is being written */
        else if (j->phase != IDLE) fail(j, "the job is ending (rank %d has called MPI_Finalize)", r);
    } else if (sscanf(line, "count %lu %llu", &gen, &a) == 2 && gen == j->gen) {
        k->received = a;
        check_drained(j);
    } else if (sscanf(line, "busy %lu %n", &gen, &n) == 1 && n && gen == j->gen &&
               j->phase != IDLE) {
        fail(j, "%s; try again in a moment", line + n);
    } else if (sscanf(line, "failed %lu %n", &gen, &n) == 1 && n && gen == j->gen &&
               j->phase != IDLE) {
        fail(j, "%s", line + n);
    }
}

/* An engine's report: "image K ok BYTES" or "image K error WHY". */
static void on_image(struct job *j, int fd, const char *line)
{
    char *end;
    unsigned long gen = strtoul(line + 6, &end, 10);
    if (j->phase != IMAGE || gen != j->gen) {
        mpcr_coord_send_line(fd, "continue\n");
        close(fd);
        return;
    }
    j->engines[j->nimages++] = fd;
    if (strncmp(end, " ok ", 4)) {
        fail(j, "%s", *end ? end + 1 : "an image could not be written");
        return;
    }
    char *rest;
    j->bytes += strtoull(end + 4, &rest, 10);
    if (strncmp(rest, " forked ", 8)) { /* written in place: that program waits for the answer */
        j->in_place++;
        maybe_resume_early(j);
    }
    double s = now() - j->started;
    mpcr_coord_send_line(j->client, "progress %d/%d ranks, %.1f MiB, %.0f MB/s\n", j->nimages,
                         j->nranks, (double)j->bytes / 1048576.0,
                         s > 0 ? (double)j->bytes / 1e6 / s : 0.0);
    if (j->nimages < j->nranks) return;
    j->t_images = now();
    int rc = mpcr_gen_write_manifest(j->c->dir, j->gen, j->nranks, j->c->mpi, j->bytes);
    if (rc) {
        fail(j, "writing the manifest: %s", strerror(-rc));
        return;
    }
    double t0 = j->started;
    int n = snprintf(j->done, sizeof j->done, "ok %s/gen-%lu %llu %.0f stop %.0f drain %.0f images %.0f",
                     j->c->dir, j->gen, j->bytes, (j->t_images - t0) * 1e3, (j->t_quiet - t0) * 1e3,
                     (j->t_drained - j->t_quiet) * 1e3, (j->t_images - j->t_drained) * 1e3);
    if (j->resumed_early && n > 0 && (size_t)n < sizeof j->done) /* before "resume", which resumed() adds */
        snprintf(j->done + n, sizeof j->done - (size_t)n, " snapshots %.0f", (j->t_snapshots - j->t_drained) * 1e3);
    mpcr_gen_prune(j->c->dir, j->c->keep);
    if (j->exit_after) {
        to_all(j, "exit");
        answer_engines(j, "exit");
        mpcr_coord_send_line(j->client, "%s\n", j->done);
        end_checkpoint(j);
        return;
    }
    answer_engines(j, "continue");
    j->phase = RESUME;
    if (j->resumed_early) resumed(j); /* the proxies may all have gone on already */
    else to_all(j, "resume");
}

static void on_client(struct job *j, int fd, const char *line, pid_t launcher, int local)
{
    int version, hello_rank, hello_size, pid;
    if (sscanf(line, "proxy %d %d %d %d", &version, &hello_rank, &hello_size, &pid) == 4) {
        if (version != MPCR_COORD_PROTOCOL) {
            mpcr_coord_send_line(fd, "error this coordinator speaks protocol %d, not %d\n",
                                 MPCR_COORD_PROTOCOL, version);
            close(fd);
            return;
        }
        if (hello_rank < 0 || hello_rank >= j->nranks || hello_size != j->nranks ||
            j->ranks[hello_rank].fd >= 0) {
            mpcr_coord_send_line(fd, "error rank %d of %d does not belong to this job of %d\n",
                                 hello_rank, hello_size, j->nranks);
            close(fd);
            return;
        }
        j->ranks[hello_rank].fd = fd;
        j->connected++;
        j->ever_connected++;
        return;
    }
    if (!strncmp(line, "snapshot ", 9)) {
        on_snapshot(j, line, local);
        close(fd);
        return;
    }
    if (!strncmp(line, "image ", 6)) {
        on_image(j, fd, line);
        return;
    }
    if (!strcmp(line, "checkpoint") || !strcmp(line, "checkpoint exit")) {
        start(j, fd, line[10] != 0);
        return;
    }
    if (!strcmp(line, "status")) {
        unsigned long newest, highest;
        mpcr_gen_scan(j->c->dir, &newest, &highest);
        /* Each rank's state: running, quiet (stopped for the checkpoint),
         * finalizing, or absent (not connected: not started, or ended). */
        static const char *const state_name[] = {"running", "quiet", "finalizing", "absent"};
        int count[4] = {0};
        char odd[200] = "";
        for (int r = 0; r < j->nranks; r++) {
            const struct rank *k = &j->ranks[r];
            int st = k->fd < 0 ? 3 : k->finalizing ? 2 : k->quiet && j->phase != IDLE ? 1 : 0;
            count[st]++;
            size_t len = strlen(odd);
            if (st && len + 32 < sizeof odd)
                snprintf(odd + len, sizeof odd - len, " %d:%s", r, state_name[st]);
        }
        mpcr_coord_send_line(
            fd,
            "running pid %d ranks %d connected %d newest-complete gen-%lu%s%s; ranks running %d, quiet "
            "%d, finalizing %d, absent %d%s%s%s\n",
            (int)(launcher ? launcher : getpid()), j->nranks, j->connected, newest,
            j->phase != IDLE ? " checkpoint-in-progress " : "",
            j->phase != IDLE ? phase_name[j->phase] : "", count[0], count[1], count[2], count[3],
            odd[0] ? " (" : "", odd[0] ? odd + 1 : "", odd[0] ? ")" : "");
    } else if (!strcmp(line, "ping")) {
        mpcr_coord_send_line(fd, "pong\n");
    } else {
        mpcr_coord_send_line(fd, "error unknown request\n");
    }
    close(fd);
}

static int read_first_line(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    while (len + 1 < cap) {
        ssize_t n = read(fd, buf + len, 1);
        if (n <= 0 || buf[len] == '\n') break;
        len++;
    }
    buf[len] = 0;
    return (int)len;
}

/* Reads what a proxy sent; handles its complete lines. */
static void on_rank_readable(struct job *j, int r)
{
    struct rank *k = &j->ranks[r];
    ssize_t n = read(k->fd, k->buf + k->len, sizeof k->buf - 1 - k->len);
    if (n <= 0) { /* the proxy ended (the job is ending) */
        close(k->fd);
        k->fd = -1;
        j->connected--;
        if (j->phase == RESUME) resumed(j);
        else if (j->phase != IDLE) fail(j, "rank %d ended during the checkpoint", r);
        return;
    }
    k->len += (size_t)n;
    char *nl;
    while ((nl = memchr(k->buf, '\n', k->len))) {
        *nl = 0;
        on_rank_line(j, r, k->buf);
        k->len -= (size_t)(nl + 1 - k->buf);
        memmove(k->buf, nl + 1, k->len);
    }
    if (k->len == sizeof k->buf - 1) k->len = 0;
}

int mpcr_job_serve(struct mpcr_coord *c, int nranks, pid_t launcher, int extra_fd,
                   void (*on_extra)(void))
{
    struct job j = {.c = c, .nranks = nranks, .client = -1};
    j.ranks = calloc((size_t)nranks, sizeof *j.ranks);
    j.engines = calloc((size_t)nranks, sizeof *j.engines);
    j.writer_end = calloc((size_t)nranks, sizeof *j.writer_end);
    j.writer_pid = calloc((size_t)nranks, sizeof *j.writer_pid);
    struct pollfd *p = calloc(2 * (size_t)nranks + 4, sizeof *p);
    if (!j.ranks || !j.engines || !j.writer_end || !j.writer_pid || !p) return -ENOMEM;
    for (int r = 0; r < nranks; r++)
        j.ranks[r].fd = -1;
    signal(SIGPIPE, SIG_IGN);
    const char *t = getenv("MPCR_CKPT_TIMEOUT");
    double timeout = t ? atof(t) : 120.0;
    double next_auto = c->interval > 0 ? now() + c->interval : 0;
    int status = 0, launcher_end = mpcr_process_end_fd(launcher);
    for (;;) {
        pid_t w = launcher ? waitpid(launcher, &status, WNOHANG) : 0;
        if (launcher && (w == launcher || (w < 0 && errno != EINTR))) break;
        if (next_auto && now() >= next_auto) {
            int ending = 0;
            for (int r = 0; r < nranks; r++)
                ending |= j.ranks[r].finalizing;
            if (j.phase == IDLE && j.connected == nranks && !ending) start(&j, -1, 0);
            next_auto = now() + c->interval;
        }
        if (j.phase == RESUME && now() - j.t_images > timeout) { /* complete all the same */
            for (int r = 0; r < nranks; r++)
                j.ranks[r].resumed = 1;
            resumed(&j);
        }
        if (j.phase != IDLE && j.phase != RESUME && now() - j.started > timeout) {
            char late[256] = "";
            for (int r = 0, n = 0; r < nranks && n < 8; r++)
                if (j.phase == QUIESCE && !j.ranks[r].quiet)
                    n += snprintf(late + strlen(late), sizeof late - strlen(late), " %d", r) > 0;
            fail(&j, "timed out after %.0f s in the %s stage%s%s", timeout, phase_name[j.phase],
                 late[0] ? "; ranks not at a safe point:" : "", late);
        }
        int n = 0;
        p[n++] = (struct pollfd){c->listen_fd, POLLIN, 0};
        p[n++] = (struct pollfd){extra_fd, POLLIN, 0};
        for (int r = 0; r < nranks; r++)
            p[n++] = (struct pollfd){j.ranks[r].fd, POLLIN, 0};
        p[n++] = (struct pollfd){c->tcp_fd, POLLIN, 0};
        p[n++] = (struct pollfd){launcher_end, POLLIN, 0}; /* the job ended: notice now */
        int writers_at = n, nwriters = j.nwriters;
        for (int i = 0; i < nwriters; i++)
            p[n++] = (struct pollfd){j.writer_end[i], POLLIN, 0};
        if (poll(p, (nfds_t)n, 50) <= 0) continue;
        for (int r = 0; r < nranks; r++)
            if (j.ranks[r].fd >= 0 && p[2 + r].revents) on_rank_readable(&j, r);
        if (extra_fd >= 0 && p[1].revents && on_extra) on_extra();
        for (int l = 0; l < 2; l++) {
            int lfd = l ? c->tcp_fd : c->listen_fd;
            if (lfd < 0 || !(p[l ? 2 + nranks : 0].revents & POLLIN)) continue;
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (fd < 0) continue;
            struct timeval tv = {10, 0};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            char line[1024];
            read_first_line(fd, line, sizeof line);
            /* Over TCP, anyone may connect: only the job's secret opens the door. */
            if (!strncmp(line, "secret ", 7)) {
                if (strcmp(line + 7, c->secret))
                    line[0] = 0;
                else
                    read_first_line(fd, line, sizeof line);
            } else if (l) {
                line[0] = 0;
            }
            if (!line[0]) {
                close(fd);
                continue;
            }
            on_client(&j, fd, line, launcher, l == 0);
        }
        if (j.nwriters >= nwriters) check_writers(&j, p + writers_at, nwriters);
        if (!launcher && j.ever_connected >= nranks && j.connected == 0) break;
    }
    if (j.phase == RESUME) {
        for (int r = 0; r < nranks; r++)
            j.ranks[r].resumed = 1;
        resumed(&j);
    }
    if (j.phase != IDLE) fail(&j, "the job ended before the checkpoint was complete");
    for (int r = 0; r < nranks; r++)
        if (j.ranks[r].fd >= 0) close(j.ranks[r].fd);
    if (launcher_end >= 0) close(launcher_end);
    for (int i = 0; i < j.nwriters; i++) close(j.writer_end[i]);
    free(j.ranks), free(j.engines), free(j.writer_end), free(j.writer_pid), free(p);
    mpcr_coord_close(c);
    return status;
}
