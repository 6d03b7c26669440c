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
 * Any failure or a timeout resumes every rank and removes the generation,
 * once nothing writes into it any more (abandoned.h).
 * Each image report is the report of one rank, known by the credential its
 * engine opens with (its proxy's token, conns.h): the manifest is written
 * once every rank's own report is in, never by counting reports. */
#include <errno.h>
#include <limits.h>
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
#include "abandoned.h"
#include "binding.h"
#include "clock.h"
#include "conns.h"
#include "coord.h"
#include "coord_protocol.h"
#include "path.h"
#include "fault.h"
#include "private.h"
#include "triggers.h"

/* RESUME: the generation is complete; waiting for every rank to say it goes on. */
enum phase { IDLE, QUIESCE, DRAIN, IMAGE, RESUME };
static const char *const phase_name[] = {"idle", "quiesce", "drain", "image", "resume"};

struct rank {
    int fd; /* -1: not connected */
    char buf[1024];
    size_t len;
    int quiet, finalizing, resumed;
    unsigned long long sent, received;
    char token[32]; /* from its proxy's hello: what its engine's reports must carry */
    /* this rank in the checkpoint in progress */
    int engine; /* its engine's report connection, waiting for the answer; -1 */
    int imaged,
        went_on; /* its image is in / its program goes on (forked copy, or written in place) */
    int signalled; /* its proxy has asked its program for the image */
    unsigned long long bytes;
    int writer_end, writer_pid; /* its forked writer on this host: a pidfd; -1 */
    char where[160]; /* its proxy's answer to "where K": what held it from quiescing */
};

struct job {
    struct mpcr_coord *c;
    pid_t launcher;          /* mpiexec; 0 for a standalone coordinator */
    struct mpcr_conns conns; /* new connections, until they say what they want */
    int nranks, connected, ever_connected;
    struct rank *ranks;
    /* the checkpoint in progress */
    enum phase phase;
    unsigned long gen;
    int client, exit_after;
    int nimages, nwent_on; /* ranks whose image is in / whose program goes on */
    int may_fork;          /* ranks may have forked copies write their images */
    int resumed_early;     /* the proxies went on before the images were complete */
    unsigned long long bytes, total_sent;
    double started, t_quiet, t_drained, t_images, t_snapshots;
    int where_asked; /* the late ranks' proxies were asked what they are doing */
    char done[MPCR_LINE_MAX]; /* the client's answer, sent once every rank has resumed */
    struct mpcr_triggers trig; /* checkpoints asked for by signals */
    int trigger;               /* the kind of signal that asked for the one in progress; -1 */
    struct mpcr_abandons abandoned; /* failed generations that writers may still write into */
    int windows; /* a proxy asked for the real windows: every proxy was told (docs/one-sided.md) */
};

static void to_all(struct job *j, const char *word)
{
    for (int r = 0; r < j->nranks; r++)
        mpcr_coord_send_line(j->ranks[r].fd, "%s %lu\n", word, j->gen);
}

static void answer_engines(struct job *j, const char *answer)
{
    for (int r = 0; r < j->nranks; r++)
        if (j->ranks[r].engine >= 0) {
            mpcr_coord_send_line(j->ranks[r].engine, "%s\n", answer);
            close(j->ranks[r].engine);
            j->ranks[r].engine = -1;
        }
}

static const char *trigger_signal(const struct job *j, char *buf, unsigned cap)
{
    return mpcr_signal_name(j->trig.signo[j->trigger], buf, cap);
}

static void end_checkpoint(struct job *j)
{
    if (j->trigger >= 0) mpcr_triggers_done(&j->trig, j->trigger, mpcr_now_s());
    j->trigger = -1;
    if (j->client >= 0) close(j->client);
    j->client = -1;
    j->phase = IDLE;
    for (int r = 0; r < j->nranks; r++) {
        struct rank *k = &j->ranks[r];
        if (k->writer_end >= 0) close(k->writer_end);
        k->writer_end = -1;
        k->quiet = k->resumed = k->imaged = k->went_on = k->signalled = 0;
        k->bytes = 0;
        k->where[0] = 0;
    }
    j->nimages = j->nwent_on = 0;
    j->where_asked = 0;
}

/* The generation of a checkpoint given up: removed at once if nothing can be
 * writing into it (no image was asked for yet), else once every rank's
 * proxy and image writer have finished with it (abandoned.h). */
static void give_up_generation(struct job *j)
{
    struct mpcr_abandoned_rank *a =
        j->phase == IMAGE ? mpcr_abandoned_add(&j->abandoned, j->gen, mpcr_now_s()) : NULL;
    if (!a) {
        mpcr_gen_remove(j->c->dir, j->gen);
        return;
    }
    for (int r = 0; r < j->nranks; r++) {
        struct rank *k = &j->ranks[r];
        a[r].reported = k->imaged || k->engine >= 0;
        a[r].went_on = (unsigned char)k->went_on;
        a[r].state = k->fd >= 0 && !k->resumed; /* "resumed K" is its last word on K */
        a[r].image = !a[r].reported && k->signalled && (k->fd >= 0 || k->went_on);
        if (!a[r].reported) a[r].writer_end = k->writer_end, k->writer_end = -1;
    }
    mpcr_abandoned_settle(&j->abandoned, mpcr_now_s(), 1e30); /* nothing pending: removed now */
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
    give_up_generation(j);
    mpcr_coord_send_line(j->client, "error %s\n", why);
    char sig[16];
    if (j->trigger >= 0) /* no client to tell: the job's stderr */
        fprintf(stderr, "mpcr: coordinator: the checkpoint asked for by SIG%s failed: %s; the job goes on\n",
                trigger_signal(j, sig, sizeof sig), why);
    else if (j->client < 0)
        fprintf(stderr, "mpcr: coordinator: interval checkpoint gen-%lu failed: %s; the job goes on\n", j->gen, why);
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
    char gdir[PATH_MAX];
    j->gen = j->c->next_gen++;
    int rc = mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", j->c->dir, j->gen);
    if (!rc && mkdir(gdir, 0700)) rc = -errno;
    if (rc) {
        mpcr_coord_send_line(client, "error cannot create %s/gen-%lu: %s\n", j->c->dir, j->gen,
                             strerror(-rc));
        if (client >= 0) close(client);
        else /* the interval's or a signal's: no one else to tell */
            fprintf(stderr, "mpcr: coordinator: checkpoint gen-%lu cannot begin: cannot create %s/gen-%lu: %s\n",
                    j->gen, j->c->dir, j->gen, strerror(-rc));
        return;
    }
    j->client = client, j->exit_after = exit_after;
    const char *fork_ok = getenv("MPCR_CKPT_FORK");
    j->may_fork = !exit_after && !(fork_ok && !strcmp(fork_ok, "0"));
    j->resumed_early = 0;
    j->phase = QUIESCE;
    j->bytes = 0;
    j->started = mpcr_now_s();
    to_all(j, "quiesce");
    mpcr_fault_point(MPCR_FAULT_QUIESCE);
}

static void check_drained(struct job *j)
{
    if (j->phase != DRAIN) return;
    unsigned long long received = 0;
    for (int r = 0; r < j->nranks; r++)
        received += j->ranks[r].received;
    if (received != j->total_sent) return;
    j->phase = IMAGE;
    j->t_drained = mpcr_now_s();
    if (j->may_fork) /* "image K fork": see on_snapshot() */
        for (int r = 0; r < j->nranks; r++)
            mpcr_coord_send_line(j->ranks[r].fd, "image %lu fork\n", j->gen);
    else
        to_all(j, "image");
    mpcr_fault_point(MPCR_FAULT_IMAGE);
}

/* Every rank's program goes on, from a forked copy's snapshot or after its
 * image was written in place: the proxies may serve calls again while the
 * copies write (the manifest still waits for every image). */
static void maybe_resume_early(struct job *j)
{
    if (!j->may_fork || j->phase != IMAGE || j->resumed_early || j->nwent_on < j->nranks) return;
    j->resumed_early = 1;
    j->t_snapshots = mpcr_now_s();
    to_all(j, "resume");
}

/* The rank whose engine sent this request (its credential carries the
 * token its proxy gave it), or -1. */
static int engine_rank(const struct job *j, const struct mpcr_request *rq)
{
    if (rq->rank < 0 || rq->rank >= j->nranks) return -1;
    const struct rank *k = &j->ranks[rq->rank];
    return k->token[0] && mpcr_secret_equal(rq->token, k->token) ? rq->rank : -1;
}

/* "snapshot K PID" from rank r's program: it goes on; its forked copy PID
 * writes the image. A copy waits for the coordinator's answer after its
 * report, so one that ends while images are still missing died: a local
 * one (the pid means something only on this host) is watched for that. */
static void on_snapshot(struct job *j, int r, const struct mpcr_line *m, const char *line,
                        int local)
{
    unsigned long gen = m->num[0];
    int pid = m->num[1] <= INT_MAX ? (int)m->num[1] : 0;
    struct mpcr_abandoned_rank *a = mpcr_abandoned_rank(&j->abandoned, gen, r);
    if (a) { /* a checkpoint given up: its copy is watched until it ends */
        a->went_on = 1;
        if (local && pid > 0 && a->writer_end < 0 && !a->reported)
            a->writer_end = mpcr_process_end_fd(pid);
        return;
    }
    if (j->phase != IMAGE || gen != j->gen) return;
    if (r >= 0 && j->ranks[r].went_on && j->ranks[r].imaged) return; /* its copy reported first */
    if (r < 0 || j->ranks[r].went_on) {
        fprintf(stderr, "mpcr: coordinator: ignored \"%s\" from %s\n", line,
                r < 0 ? "a connection that is no rank's engine" : "a rank that went on already");
        return;
    }
    struct rank *k = &j->ranks[r];
    k->writer_end = local && pid > 0 ? mpcr_process_end_fd(pid) : -1;
    k->writer_pid = pid;
    k->went_on = 1, j->nwent_on++;
    mpcr_fault_point(MPCR_FAULT_SNAPSHOT);
    maybe_resume_early(j);
}

static void check_writers(struct job *j, const struct pollfd *p)
{
    for (int r = 0; r < j->nranks && j->phase == IMAGE; r++)
        if (p[r].fd >= 0 && p[r].fd == j->ranks[r].writer_end && p[r].revents &&
            !j->ranks[r].imaged)
            fail(j, "rank %d's image writer (pid %d) ended before its image was complete (killed?)",
                 r, j->ranks[r].writer_pid);
}

/* Every rank goes on (or the attempt ends): the client hears how long that took. */
static void resumed(struct job *j)
{
    int n = 0;
    for (int r = 0; r < j->nranks; r++)
        n += j->ranks[r].resumed || j->ranks[r].fd < 0;
    if (n < j->nranks) return;
    mpcr_coord_send_line(j->client, "%s resume %.0f\n", j->done, (mpcr_now_s() - j->t_images) * 1e3);
    end_checkpoint(j);
}

/* A proxy's word on a generation given up (abandoned.h); 1 if it was one. */
static int on_abandoned_line(struct job *j, int r, const struct mpcr_line *m)
{
    if (m->kind != MPCR_LINE_SIGNALLED && m->kind != MPCR_LINE_RESUMED &&
        m->kind != MPCR_LINE_FAILED && m->kind != MPCR_LINE_COUNT)
        return 0;
    struct mpcr_abandoned_rank *a = mpcr_abandoned_rank(&j->abandoned, m->num[0], r);
    if (!a) return 0;
    if (m->kind == MPCR_LINE_SIGNALLED) {
        if (!a->reported) a->image = 1; /* its program writes an image, and will report */
    } else if (m->kind == MPCR_LINE_RESUMED) {
        a->state = 0;
    } /* failed, count: nothing to do */
    return 1;
}

/* Every rank is quiet: the drain begins. */
static void all_quiet(struct job *j)
{
    j->total_sent = 0;
    for (int i = 0; i < j->nranks; i++)
        j->total_sent += j->ranks[i].sent;
    j->phase = DRAIN;
    j->t_quiet = mpcr_now_s();
    check_drained(j);
}

/* A line of rank r's proxy (coord_protocol.h); one that is no proxy's
 * line, or not of the checkpoint in progress, changes nothing. */
static void on_rank_line(struct job *j, int r, const char *line)
{
    struct rank *k = &j->ranks[r];
    struct mpcr_line m;
    if (mpcr_coord_line_parse(line, MPCR_FROM_PROXY, &m) || on_abandoned_line(j, r, &m)) return;
    /* the generation, first in every line about a checkpoint */
    int now_gen = m.nnum && m.num[0] == j->gen && j->phase != IDLE;
    switch (m.kind) {
    case MPCR_LINE_WHERE_AT:
        if (now_gen) snprintf(k->where, sizeof k->where, "%s", m.text);
        break;
    case MPCR_LINE_SIGNALLED:
        if (now_gen && j->phase == IMAGE) k->signalled = 1;
        break;
    case MPCR_LINE_QUIET:
        if (!now_gen || j->phase != QUIESCE) break;
        k->quiet = 1, k->sent = m.num[1], k->received = m.num[2];
        int quiet = 0;
        for (int i = 0; i < j->nranks; i++)
            quiet += j->ranks[i].quiet;
        if (quiet == j->nranks) all_quiet(j);
        break;
    case MPCR_LINE_RESUMED:
        if (!now_gen || !(j->phase == RESUME || (j->phase == IMAGE && j->resumed_early))) break;
        k->resumed = 1;
        if (j->phase == RESUME) resumed(j);
        break;
    case MPCR_LINE_FINALIZING:
        k->finalizing = 1;
        if (j->phase == RESUME)
            resumed(j);
        else if (j->phase == IMAGE && j->resumed_early)
            k->resumed = 1; /* its image is being written */
        else if (j->phase != IDLE)
            fail(j, "the job is ending (rank %d has called MPI_Finalize)", r);
        break;
    case MPCR_LINE_WINDOWS: /* the job's first window: every proxy joins the real one's start */
        if (!j->windows)
            for (int i = 0; i < j->nranks; i++)
                mpcr_coord_send_line(j->ranks[i].fd, "windows\n");
        j->windows = 1;
        break;
    case MPCR_LINE_SIGNAL: { /* its proxy had a signal that asks for one */
        char from[32];
        snprintf(from, sizeof from, "rank %d's proxy", r);
        for (int kind = 0; kind < MPCR_TRIGGER_KINDS; kind++)
            if (!strcmp(m.word, mpcr_trigger_word[kind]))
                mpcr_triggers_note(&j->trig, (enum mpcr_trigger_kind)kind, from, mpcr_now_s());
        break;
    }
    case MPCR_LINE_COUNT:
        if (m.num[0] != j->gen) break;
        k->received = m.num[1];
        check_drained(j);
        break;
    case MPCR_LINE_BUSY:
        if (now_gen) fail(j, "%s; try again in a moment", m.text);
        break;
    case MPCR_LINE_FAILED:
        if (now_gen) fail(j, "%s", m.text);
        break;
    default:
        break;
    }
}

/* Every rank's report is in: the files it names must be there too, for a
 * manifest promises them. Returns the first rank with one missing, or -1. */
static int missing_file(const struct job *j, char *which, size_t cap)
{
    for (int r = 0; r < j->nranks; r++)
        for (int f = 0; f < 2; f++) {
            if (mpcr_path_printf(which, cap, "%s/gen-%lu/rank-%d.%s", j->c->dir, j->gen, r,
                                 f ? "state" : "img")) {
                snprintf(which, cap, "its file (a path under %.200s... too long)", j->c->dir);
                return r;
            }
            if (access(which, F_OK)) return r;
        }
    return -1;
}

/* Answers a report that does not count, says why on stderr, and closes it;
 * an engine goes on whatever the answer is, unless it is "exit". */
static void refuse_report(int fd, const char *line, const char *why)
{
    fprintf(stderr, "mpcr: coordinator: refused \"%.80s\": %s\n", line, why);
    mpcr_coord_send_line(fd, "error %s\n", why);
    close(fd);
}

static void complete(struct job *j);

/* Rank r's engine's report (r < 0: from a connection that is no rank's
 * engine): "image K ok BYTES [forked MS]" or "image K error WHY". */
static void on_image(struct job *j, int r, int fd, const char *line, const struct mpcr_line *m)
{
    char why[160];
    unsigned long gen = m->num[0];
    if (r < 0) {
        refuse_report(
            fd, line,
            "an image report must come from a rank's engine (no or wrong rank credential)");
        return;
    }
    struct mpcr_abandoned_rank *late = mpcr_abandoned_rank(&j->abandoned, gen, r);
    if (late && !late->reported) { /* expected: the checkpoint was given up while it wrote */
        late->reported = 1, late->image = 0;
        mpcr_coord_send_line(fd, "continue\n");
        close(fd);
        return;
    }
    if (j->phase != IMAGE || gen != j->gen) {
        snprintf(why, sizeof why, "rank %d: no checkpoint of generation %lu waits for images", r,
                 gen);
        refuse_report(fd, line, why);
        return;
    }
    struct rank *k = &j->ranks[r];
    if (k->imaged || k->engine >= 0) {
        snprintf(why, sizeof why, "rank %d has reported its image of generation %lu already", r,
                 gen);
        refuse_report(fd, line, why);
        return;
    }
    k->engine = fd;
    mpcr_fault_point(MPCR_FAULT_REPORT);
    if (m->kind == MPCR_LINE_IMAGE_ERROR) {
        fail(j, "rank %d: %s", r, m->text);
        return;
    }
    k->bytes = m->num[1];
    j->bytes += k->bytes;
    k->imaged = 1, j->nimages++;
    /* Written in place (that program waits for the answer), or by a forked
     * copy whose program's "snapshot" line has not come yet (on a busy
     * machine the copy can write and report first): either way the rank's
     * part is done. Before, the second case left the proxies waiting for
     * every image, and the client was told the ranks had waited (a CI run
     * of ckpt.comms_continue). */
    if (!k->went_on) {
        k->went_on = 1, j->nwent_on++;
        maybe_resume_early(j);
    }
    double s = mpcr_now_s() - j->started;
    mpcr_coord_send_line(j->client, "progress %d/%d ranks, %.1f MiB, %.0f MB/s\n", j->nimages,
                         j->nranks, (double)j->bytes / 1048576.0,
                         s > 0 ? (double)j->bytes / 1e6 / s : 0.0);
    if (j->nimages == j->nranks) complete(j);
}

/* Every rank's image is in: the manifest, then resume (or exit). */
static void complete(struct job *j)
{
    j->t_images = mpcr_now_s();
    char which[PATH_MAX];
    int r = missing_file(j, which, sizeof which);
    if (r >= 0) {
        fail(j, "rank %d reported its image, but %s is missing", r, which);
        return;
    }
    char why[MPCR_WHY_MAX];
    if (mpcr_manifest_write(j->c->dir, j->c->job_id, j->gen, j->nranks, j->c->mpi, why, sizeof why)) {
        fail(j, "no manifest: %s", why);
        return;
    }
    double t0 = j->started;
    int n = snprintf(j->done, sizeof j->done,
                     "ok %s/gen-%lu %llu %.0f stop %.0f drain %.0f images %.0f", j->c->dir, j->gen,
                     j->bytes, (j->t_images - t0) * 1e3, (j->t_quiet - t0) * 1e3,
                     (j->t_drained - j->t_quiet) * 1e3, (j->t_images - j->t_drained) * 1e3);
    if (j->resumed_early && n > 0 &&
        (size_t)n < sizeof j->done) /* before "resume", which resumed() adds */
        snprintf(j->done + n, sizeof j->done - (size_t)n, " snapshots %.0f",
                 (j->t_snapshots - j->t_drained) * 1e3);
    mpcr_gen_prune(j->c->dir, j->c->keep);
    char sig[16];
    if (j->trigger >= 0)
        fprintf(stderr, "mpcr: coordinator: checkpoint %s/gen-%lu complete (SIG%s)%s\n", j->c->dir,
                j->gen, trigger_signal(j, sig, sizeof sig),
                j->exit_after ? "; the job ends" : "");
    if (j->exit_after) {
        to_all(j, "exit");
        answer_engines(j, "exit");
        mpcr_coord_send_line(j->client, "%s\n", j->done);
        end_checkpoint(j);
        return;
    }
    answer_engines(j, "continue");
    j->phase = RESUME;
    if (j->resumed_early)
        resumed(j); /* the proxies may all have gone on already */
    else
        to_all(j, "resume");
}

static void take_rank_lines(struct job *j, int r);

/* "proxy PROTOCOL RANK SIZE PID TOKEN": a rank's proxy comes, and stays
 * connected; TOKEN is what its engine's reports will carry. m: the hello
 * parsed, or NULL for a line "proxy ..." of another shape (PROTOCOL comes
 * first in every version). */
static void on_hello(struct job *j, const struct mpcr_request *rq, const struct mpcr_line *m)
{
    int fd = rq->fd;
    unsigned long long version = m ? m->num[0] : strtoull(rq->line + 6, NULL, 10);
    if (version != MPCR_COORD_PROTOCOL || !m) {
        if (version != MPCR_COORD_PROTOCOL)
            mpcr_coord_send_line(fd, "error this coordinator speaks protocol %d, not %llu\n",
                                 MPCR_COORD_PROTOCOL, version);
        else
            mpcr_coord_send_line(fd, "error not a proxy's hello: proxy %s\n",
                                 mpcr_coord_lines[MPCR_LINE_HELLO].args);
        close(fd);
        return;
    }
    unsigned long long r = m->num[1], size = m->num[2];
    if (r >= (unsigned)j->nranks || size != (unsigned)j->nranks || j->ranks[r].fd >= 0) {
        mpcr_coord_send_line(fd, "error rank %llu of %llu does not belong to this job of %d\n", r,
                             size, j->nranks);
        close(fd);
        return;
    }
    struct rank *k = &j->ranks[r];
    k->fd = fd;
    snprintf(k->token, sizeof k->token, "%s", m->word);
    j->connected++;
    j->ever_connected++;
    /* What it sent after its hello is its first lines. */
    k->len = rq->rest_len < sizeof k->buf - 1 ? rq->rest_len : 0;
    memcpy(k->buf, rq->rest, k->len);
    if (j->windows) mpcr_coord_send_line(fd, "windows\n"); /* a late proxy joins the start too */
    take_rank_lines(j, (int)r);
}

/* Each rank's state: running, quiet (stopped for the checkpoint),
 * finalizing, or absent (not connected: not started, or ended). */
enum rank_state { RANK_RUNNING, RANK_QUIET, RANK_FINALIZING, RANK_ABSENT };
static const char *const state_name[] = {"running", "quiet", "finalizing", "absent"};

static enum rank_state rank_state(const struct job *j, int r)
{
    const struct rank *k = &j->ranks[r];
    return k->fd < 0 ? RANK_ABSENT : k->finalizing ? RANK_FINALIZING
           : k->quiet && j->phase != IDLE ? RANK_QUIET : RANK_RUNNING;
}

/* "status detail", for `mpcr status --json` (src/cli/status_json.c):
 *   detail pid P coordinator Q ranks N connected C checkpoint none
 *   detail pid P coordinator Q ranks N connected C checkpoint GEN PHASE exit|continue
 *          SECONDS IMAGES BYTES ASKER
 * then " states S": one letter per rank, the first of its state's name;
 * ASKER is "command" (mpcr checkpoint), "interval", or the signal's name. */
static void send_detail(const struct job *j, int fd)
{
    char *text = NULL, sig[16];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return;
    fprintf(f, "detail pid %d coordinator %d ranks %d connected %d checkpoint ",
            (int)(j->launcher ? j->launcher : getpid()), (int)getpid(), j->nranks, j->connected);
    if (j->phase == IDLE)
        fprintf(f, "none");
    else
        fprintf(f, "%lu %s %s %.3f %d %llu %s", j->gen, phase_name[j->phase],
                j->exit_after ? "exit" : "continue", mpcr_now_s() - j->started, j->nimages, j->bytes,
                j->trigger >= 0 ? trigger_signal(j, sig, sizeof sig)
                : j->client >= 0 ? "command" : "interval");
    fprintf(f, " states ");
    for (int r = 0; r < j->nranks; r++)
        fputc(state_name[rank_state(j, r)][0], f);
    fputc('\n', f);
    fclose(f);
    /* The socket does not block; a reply longer than its buffer (many
     * ranks) waits for the client a little. */
    for (size_t sent = 0; text && sent < len;) {
        ssize_t n = send(fd, text + sent, len - sent, MSG_NOSIGNAL);
        struct pollfd p = {fd, POLLOUT, 0};
        if (n > 0) sent += (size_t)n;
        else if (n < 0 && errno == EAGAIN && poll(&p, 1, 1000) > 0) continue;
        else break;
    }
    free(text);
}

/* A new connection's request (conns.c has read it without blocking). */
static void on_request(void *arg, const struct mpcr_request *rq)
{
    struct job *j = arg;
    int fd = rq->fd;
    const char *line = rq->line;
    struct mpcr_line m;
    if (mpcr_coord_line_parse(line, MPCR_FROM_CLIENT | MPCR_FROM_PROXY | MPCR_FROM_ENGINE, &m)) {
        if (!strncmp(line, "proxy ", 6)) {
            on_hello(j, rq, NULL); /* another protocol's hello: said so */
            return;
        }
        m.kind = MPCR_LINE_KINDS; /* unknown */
    }
    if (m.kind == MPCR_LINE_HELLO) {
        on_hello(j, rq, &m);
        return;
    }
    if (m.kind == MPCR_LINE_SNAPSHOT) {
        on_snapshot(j, engine_rank(j, rq), &m, line, rq->local);
        close(fd);
        return;
    }
    if (m.kind == MPCR_LINE_IMAGE_OK || m.kind == MPCR_LINE_IMAGE_ERROR) {
        on_image(j, engine_rank(j, rq), fd, line, &m);
        return;
    }
    if (m.kind == MPCR_LINE_CHECKPOINT) {
        start(j, fd, m.opt);
        return;
    }
    if (m.kind == MPCR_LINE_STATUS && !m.opt) {
        unsigned long newest, highest;
        mpcr_gen_scan(j->c->dir, &newest, &highest);
        int count[4] = {0};
        char odd[200] = "";
        for (int r = 0; r < j->nranks; r++) {
            enum rank_state st = rank_state(j, r);
            count[st]++;
            size_t len = strlen(odd);
            if (st && len + 32 < sizeof odd)
                snprintf(odd + len, sizeof odd - len, " %d:%s", r, state_name[st]);
        }
        mpcr_coord_send_line(fd,
                             "running pid %d ranks %d connected %d newest-complete gen-%lu%s%s; "
                             "ranks running %d, quiet "
                             "%d, finalizing %d, absent %d%s%s%s\n",
                             (int)(j->launcher ? j->launcher : getpid()), j->nranks, j->connected,
                             newest, j->phase != IDLE ? " checkpoint-in-progress " : "",
                             j->phase != IDLE ? phase_name[j->phase] : "", count[0], count[1],
                             count[2], count[3], odd[0] ? " (" : "", odd[0] ? odd + 1 : "",
                             odd[0] ? ")" : "");
    } else if (m.kind == MPCR_LINE_STATUS) {
        send_detail(j, fd);
    } else if (m.kind == MPCR_LINE_PING) {
        mpcr_coord_send_line(fd, "pong\n");
    } else {
        mpcr_coord_send_line(fd, "error unknown request\n");
    }
    close(fd);
}

/* Handles the complete lines in rank r's buffer. */
static void take_rank_lines(struct job *j, int r)
{
    struct rank *k = &j->ranks[r];
    char *nl;
    while ((nl = memchr(k->buf, '\n', k->len))) {
        *nl = 0;
        on_rank_line(j, r, k->buf);
        k->len -= (size_t)(nl + 1 - k->buf);
        memmove(k->buf, nl + 1, k->len);
    }
    if (k->len == sizeof k->buf - 1) k->len = 0; /* a line too long: no line of ours */
}

/* Reads what a proxy sent (its socket does not block); handles its complete lines. */
static void on_rank_readable(struct job *j, int r)
{
    struct rank *k = &j->ranks[r];
    ssize_t n = read(k->fd, k->buf + k->len, sizeof k->buf - 1 - k->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) { /* the proxy ended (the job is ending) */
        close(k->fd);
        k->fd = -1;
        j->connected--;
        mpcr_abandoned_proxy_gone(&j->abandoned, r);
        if (j->phase == RESUME)
            resumed(j);
        else if (j->phase != IDLE)
            fail(j, "rank %d ended during the checkpoint", r);
        return;
    }
    k->len += (size_t)n;
    take_rank_lines(j, r);
}

/* Fills the poll set: listening sockets, extra_fd, proxies, the launcher,
 * forked writers (one slot per rank), new connections. Returns its size;
 * *at says where each group starts. */
struct slots {
    int listen, tcp, extra, launcher, ranks, writers, conns;
};
static int fill(const struct job *j, int extra_fd, int launcher_end, struct pollfd *p,
                struct slots *at)
{
    int n = 0;
    at->listen = n, p[n++] = (struct pollfd){j->c->listen_fd, POLLIN, 0};
    at->tcp = n, p[n++] = (struct pollfd){j->c->tcp_fd, POLLIN, 0};
    at->extra = n, p[n++] = (struct pollfd){extra_fd, POLLIN, 0};
    at->launcher = n,
    p[n++] = (struct pollfd){launcher_end, POLLIN, 0}; /* the job ended: notice now */
    at->ranks = n;
    for (int r = 0; r < j->nranks; r++)
        p[n++] = (struct pollfd){j->ranks[r].fd, POLLIN, 0};
    at->writers = n;
    for (int r = 0; r < j->nranks; r++)
        p[n++] = (struct pollfd){j->phase == IMAGE ? j->ranks[r].writer_end : -1, POLLIN, 0};
    at->conns = n;
    return n + mpcr_conns_pollfds(&j->conns, p + n);
}

/* The checkpoint in progress has lasted too long: it ends, and the job goes on.
 * Half-way through, every proxy is asked what it is doing ("where K",
 * answered by a thread of theirs that does not wait for MPI): the failure
 * then says what held the ranks not yet at a safe point, and which quiesced
 * ones are inside a real MPI call (a communicator creation begun in the
 * drain: the partner a late rank waits for). */
static void check_timeouts(struct job *j, double timeout)
{
    if (j->phase == RESUME && mpcr_now_s() - j->t_images > timeout) { /* complete all the same */
        for (int r = 0; r < j->nranks; r++)
            j->ranks[r].resumed = 1;
        resumed(j);
    }
    if (j->phase == QUIESCE && !j->where_asked && mpcr_now_s() - j->started > timeout / 2) {
        j->where_asked = 1;
        for (int r = 0; r < j->nranks; r++)
            mpcr_coord_send_line(j->ranks[r].fd, "where %lu\n", j->gen);
    }
    if (j->phase != IDLE && j->phase != RESUME && mpcr_now_s() - j->started > timeout) {
        char late[256] = "", where[400] = "";
        for (int r = 0, n = 0; r < j->nranks && n < 8; r++)
            if (j->phase == QUIESCE && !j->ranks[r].quiet) {
                n += snprintf(late + strlen(late), sizeof late - strlen(late), " %d", r) > 0;
                if (j->ranks[r].where[0] && strlen(where) < sizeof where - 1)
                    snprintf(where + strlen(where), sizeof where - strlen(where), "; rank %d's proxy: %s", r,
                             j->ranks[r].where);
            }
        for (int r = 0; r < j->nranks && j->phase == QUIESCE; r++)
            if (j->ranks[r].quiet && !strncmp(j->ranks[r].where, "inside ", 7) && strlen(where) < sizeof where - 1)
                snprintf(where + strlen(where), sizeof where - strlen(where), "; rank %d's proxy (quiesced): %s", r,
                         j->ranks[r].where);
        fail(j, "timed out after %.0f s in the %s stage%s%s%s", timeout, phase_name[j->phase],
             late[0] ? "; ranks not at a safe point:" : "", late, where);
    }
}

/* The job has ended: a checkpoint still in progress ends with it. */
static void job_ended(struct job *j)
{
    if (j->phase == RESUME) {
        for (int r = 0; r < j->nranks; r++)
            j->ranks[r].resumed = 1;
        resumed(j);
    }
    if (j->phase != IDLE) fail(j, "the job ended before the checkpoint was complete");
}

/* After the job, how long the coordinator still waits for the writers of a
 * failed checkpoint (their reports answered), so as to remove its
 * generation only once nothing writes into it. */
#define ENDED_WAIT_S 10.0

/* A checkpoint asked for by a signal (triggers.h), once the job can take one. */
static void act_on_triggers(struct job *j)
{
    mpcr_triggers_poll(&j->trig, mpcr_now_s());
    if (!j->trig.pending[MPCR_TRIGGER_CONTINUE] && !j->trig.pending[MPCR_TRIGGER_EXIT]) return;
    if (j->phase != IDLE) {
        if (j->exit_after) mpcr_triggers_drop(&j->trig); /* the job ends after this one */
        return;
    }
    int ending = j->ever_connected >= j->nranks && j->connected < j->nranks;
    for (int r = 0; r < j->nranks; r++)
        ending |= j->ranks[r].finalizing;
    if (ending) {
        fprintf(stderr, "mpcr: coordinator: no checkpoint for the signal: the job is ending\n");
        mpcr_triggers_drop(&j->trig);
        return;
    }
    if (j->connected < j->nranks) return; /* asked before every rank came: taken once they have */
    int kind = mpcr_triggers_take(&j->trig);
    char sig[16];
    const char *name = mpcr_signal_name(j->trig.signo[kind], sig, sizeof sig);
    start(j, -1, kind == MPCR_TRIGGER_EXIT);
    if (j->phase == IDLE) { /* start() could not even begin */
        fprintf(stderr, "mpcr: coordinator: SIG%s: the checkpoint could not begin\n", name);
        mpcr_triggers_done(&j->trig, kind, mpcr_now_s());
        return;
    }
    j->trigger = kind;
    fprintf(stderr, "mpcr: coordinator: SIG%s (from %s): checkpoint gen-%lu%s\n", name,
            j->trig.from[kind], j->gen, kind == MPCR_TRIGGER_EXIT ? ", then the job ends" : "");
}

int mpcr_job_serve(struct mpcr_coord *c, int nranks, pid_t launcher, int extra_fd,
                   void (*on_extra)(void))
{
    struct job j = {.c = c, .nranks = nranks, .client = -1, .launcher = launcher, .trigger = -1};
    mpcr_triggers_install(&j.trig, c->checkpoint_signal, c->exit_signal);
    j.ranks = calloc((size_t)nranks, sizeof *j.ranks);
    struct pollfd *p = calloc(2 * (size_t)nranks + 4 + MPCR_CONN_MAX, sizeof *p);
    if (!j.ranks || !p) return -ENOMEM;
    for (int r = 0; r < nranks; r++)
        j.ranks[r].fd = j.ranks[r].engine = j.ranks[r].writer_end = -1;
    j.abandoned = (struct mpcr_abandons){.dir = c->dir, .nranks = nranks};
    signal(SIGPIPE, SIG_IGN);
    const char *t = getenv("MPCR_CKPT_TIMEOUT");
    double timeout = t ? atof(t) : 120.0;
    double next_auto = c->interval > 0 ? mpcr_now_s() + c->interval : 0;
    int status = 0, launcher_end = mpcr_process_end_fd(launcher);
    double ended = 0; /* when the job ended */
    for (;;) {
        pid_t w = launcher && !ended ? waitpid(launcher, &status, WNOHANG) : 0;
        if (launcher && !ended && (w == launcher || (w < 0 && errno != EINTR))) {
            ended = mpcr_now_s();
            if (launcher_end >= 0) close(launcher_end);
            launcher_end = -1;
            job_ended(&j);
        }
        mpcr_abandoned_settle(&j.abandoned, mpcr_now_s(), timeout);
        if (ended && (!mpcr_abandoned_count(&j.abandoned) || mpcr_now_s() - ended > ENDED_WAIT_S)) break;
        if (next_auto && c->interval > 0 && !ended && mpcr_now_s() >= next_auto)
            c->next_place_check = 0; /* at each interval tick: is the place still the coordinator's? */
        if (!ended) mpcr_coord_watch_place(c, mpcr_now_s());
        if (next_auto && c->interval > 0 && !ended && mpcr_now_s() >= next_auto) {
            int ending = 0;
            for (int r = 0; r < nranks; r++)
                ending |= j.ranks[r].finalizing;
            if (j.phase == IDLE && j.connected == nranks && !ending) start(&j, -1, 0);
            next_auto = mpcr_now_s() + c->interval;
        }
        check_timeouts(&j, timeout);
        if (!ended) act_on_triggers(&j);
        struct slots at;
        int n = fill(&j, extra_fd, launcher_end, p, &at);
        int ready = poll(p, (nfds_t)n, 50);
        /* Silent connections time out even when nothing else happens. */
        mpcr_conns_serve(&j.conns, p + at.conns, ready > 0 ? n - at.conns : 0, c->secret, mpcr_now_s(),
                         on_request, &j);
        if (ready <= 0) continue;
        for (int r = 0; r < nranks; r++)
            if (j.ranks[r].fd >= 0 && p[at.ranks + r].fd == j.ranks[r].fd &&
                p[at.ranks + r].revents)
                on_rank_readable(&j, r);
        if (extra_fd >= 0 && p[at.extra].revents && on_extra) on_extra();
        if (c->listen_fd >= 0 && p[at.listen].revents & POLLIN)
            mpcr_conns_accept(&j.conns, c->listen_fd, 1, mpcr_now_s());
        if (c->tcp_fd >= 0 && p[at.tcp].revents & POLLIN)
            mpcr_conns_accept(&j.conns, c->tcp_fd, 0, mpcr_now_s());
        check_writers(&j, p + at.writers);
        if (!launcher && !ended && j.ever_connected >= nranks && j.connected == 0) {
            ended = mpcr_now_s();
            job_ended(&j);
        }
    }
    job_ended(&j); /* (a coordinator that could not wait for its launcher) */
    mpcr_abandoned_remove_all(&j.abandoned);
    for (int r = 0; r < nranks; r++)
        if (j.ranks[r].fd >= 0) close(j.ranks[r].fd);
    if (launcher_end >= 0) close(launcher_end);
    mpcr_conns_farewell(&j.conns, c->listen_fd,
                        "error the job ended before the checkpoint began; none was taken\n", mpcr_now_s());
    free(j.ranks), free(p);
    mpcr_coord_close(c);
    return status;
}
