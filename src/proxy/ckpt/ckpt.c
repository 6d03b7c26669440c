/* See ckpt.h. A thread reads the coordinator's lines and rings the
 * channel's doorbell, so that a proxy asleep waiting for a call wakes up;
 * everything else happens on the proxy's one MPI thread, in ckpt_poll. */
#include "ckpt.h"
#include "proxy.h"
#include "report.h"
#include "resource.h"
#include "requests.h"
#include "state.h"
#include "stats.h"
#include "triggers.h"
#include "windows.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "coord_protocol.h"

static int coord_fd = -1;
static enum ckpt_stage stage = CKPT_RUNNING;
static unsigned long gen;
static uint64_t reported_received;
static uint64_t drain_since; /* ckpt_settle_overdue's start: 0 at each quiesce */
static uint64_t idle_since_ns, idle_received; /* drain_pause's: since when nothing came (0 at each quiesce) */
static int image_asked;
static int image_fork; /* "image K fork": the program may have a forked copy write its image */

/* Lines read by the thread, waiting for the MPI thread. q_count counts
 * events: the queued lines, plus one for the end of the connection, which
 * the thread adds after its last line (coord_lost says which it is). */
#define QUEUE 16
static char queue[QUEUE][128];
static unsigned q_head, q_tail;
static _Atomic unsigned q_count;
static _Atomic int coord_lost;
static int coord_said; /* the coordinator's refusal was reported: the loss needs no word more */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
/* Both threads send lines: one send each, under this lock, so that lines
 * never interleave whatever the socket. */
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(const char *) doing_what = "starting", doing_name = "";

void ckpt_doing(const char *what, const char *name)
{
    atomic_store_explicit(&doing_what, what, memory_order_relaxed);
    atomic_store_explicit(&doing_name, name, memory_order_release); /* name may be a buffer just written */
}

enum ckpt_stage ckpt_stage(void)
{
    return stage;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    /* A coordinator that is gone: the reader sees the end of the connection
     * too, and the MPI thread then goes on without one (coordinator_lost). */
    pthread_mutex_lock(&send_lock);
    if (coord_fd >= 0 && send(coord_fd, line, (size_t)n, MSG_NOSIGNAL) != n) shutdown(coord_fd, SHUT_RDWR);
    pthread_mutex_unlock(&send_lock);
}

/* "where K": answered at once by the reader thread (ckpt_doing). */
static int answer_where(const char *line)
{
    struct mpcr_line m;
    if (mpcr_coord_line_parse(line, MPCR_FROM_COORD, &m) || m.kind != MPCR_LINE_WHERE) return 0;
    unsigned long k = (unsigned long)m.num[0];
    const char *what = atomic_load_explicit(&doing_what, memory_order_relaxed);
    const char *name = atomic_load_explicit(&doing_name, memory_order_acquire);
    enum ckpt_stage now = __atomic_load_n(&stage, __ATOMIC_RELAXED); /* the MPI thread's: a hint */
    say("where %lu %d %s%s%s (stage %s)", k, proxy.rank, what, *name ? " " : "", name,
        now == CKPT_RUNNING ? "running" : now == CKPT_QUIESCED ? "quiesced" : "imaging");
    return 1;
}

static void ring_doorbell(void)
{
    if (!proxy.chan) return;
    atomic_fetch_add(&proxy.chan->doorbell, 1);
    mpcr_futex_wake(&proxy.chan->doorbell);
}

static void *reader(void *arg)
{
    (void)arg;
    char buf[512];
    size_t len = 0;
    for (;;) {
        ssize_t n = read(coord_fd, buf + len, sizeof buf - 1 - len);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            /* The coordinator is gone: the MPI thread must hear it even in
             * a checkpoint, where it waits for the coordinator's word. */
            atomic_store(&coord_lost, 1);
            atomic_fetch_add(&q_count, 1);
            ring_doorbell();
            return NULL;
        }
        len += (size_t)n;
        char *nl;
        while ((nl = memchr(buf, '\n', len))) {
            *nl = 0;
            if (answer_where(buf)) goto next;
            pthread_mutex_lock(&q_lock);
            if (q_head - q_tail < QUEUE) {
                size_t k = strnlen(buf, sizeof queue[0] - 1);
                memcpy(queue[q_head % QUEUE], buf, k);
                queue[q_head % QUEUE][k] = 0;
                q_head++;
                atomic_fetch_add(&q_count, 1);
            }
            pthread_mutex_unlock(&q_lock);
            ring_doorbell();
        next:
            len -= (size_t)(nl + 1 - buf);
            memmove(buf, nl + 1, len);
        }
        if (len == sizeof buf - 1) len = 0; /* a line too long: not ours */
    }
}

void ckpt_connect(void)
{
    const char *addr = getenv("MPCR_COORD_SOCK"), *secret = getenv("MPCR_COORD_SECRET");
    if (!addr || !*addr) return;
    int fd = mpcr_ctl_connect(addr);
    if (fd < 0) {
        mpcr_report("rank %d: cannot reach the coordinator at %s (%s); no checkpoints", proxy.rank,
                    addr, strerror(errno));
        return;
    }
    coord_fd = fd;
    if (secret && *secret) say("secret %s", secret);
    /* The program's engine reports its image on connections of its own;
     * the coordinator knows them for this rank's by a credential, "[S] rank
     * R TOKEN", that only this proxy and its program hold: the program
     * (and, after a restart, the restored one: main.c) gets it as its
     * MPCR_COORD_SECRET. The engine keeps 63 characters of it. */
    unsigned char raw[6];
    char token[2 * sizeof raw + 1], cred[64];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) memset(raw, 0, sizeof raw), raw[0] = 1;
    for (size_t i = 0; i < sizeof raw; i++) snprintf(token + 2 * i, 3, "%02x", raw[i]);
    int n = snprintf(cred, sizeof cred, "%s%srank %d %s", secret ? secret : "", secret && *secret ? " " : "",
                     proxy.rank, token);
    if (n < 0 || n >= (int)sizeof cred)
        mpcr_report("rank %d: the coordinator's secret is too long for a rank credential; this rank's "
                    "images will be refused", proxy.rank);
    else
        setenv("MPCR_COORD_SECRET", cred, 1);
    say("proxy %d %d %d %d %s", MPCR_COORD_PROTOCOL, proxy.rank, proxy.size, (int)getpid(), token);
    /* The thread must not take MPI's or the program's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t;
    if (pthread_create(&t, NULL, reader, NULL)) {
        close(coord_fd);
        coord_fd = -1;
    } else {
        pthread_detach(t);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    triggers_catch(); /* signals that ask for a checkpoint go to the coordinator */
}

void ckpt_finalizing(void)
{
    say("finalizing %d", proxy.rank);
}

/* One step of the drain: every resource kind takes its part (the drain
 * cache takes what has arrived, pending requests move, creations whose
 * members have all entered are made). Called over and over while quiesced. */
static void drain_step(void)
{
    resources_drain();
    /* A drain ends in moments unless a member is inside a real creation
     * that another has not joined: say why, before the coordinator's
     * time-out, whose message names only the rank that did not quiesce. */
    if (ckpt_settle_overdue(&drain_since)) resources_report_waiting();
    if (proxy.received != reported_received) {
        reported_received = proxy.received;
        say("count %lu %llu", gen, (unsigned long long)proxy.received);
    }
}

/* The coordinator's connection ended (it died, or refused this rank): a
 * checkpoint in progress is abandoned as if the coordinator had said
 * "resume K", whatever its stage; the job goes on without checkpoints
 * (docs/mpi-checkpoint.md, "When the coordinator dies"). A program writing
 * its image in place, or a forked writer, finds no coordinator to report
 * to and goes on (src/engine/engine.c, report()); no manifest is written. */
static void coordinator_lost(void)
{
    enum ckpt_stage was = stage;
    if (stage == CKPT_IMAGING) resources_resume();
    stage = CKPT_RUNNING, image_asked = 0;
    close(coord_fd);
    coord_fd = -1; /* say() says nothing from now on */
    /* Every rank sees the same end; one line per job is enough. */
    if (proxy.rank == 0 && !coord_said)
        mpcr_report("rank 0: the coordinator has gone (its connection closed)%s; the job goes on "
                    "without checkpoints (a new job needs a new coordinator for them)",
                    was != CKPT_RUNNING ? ", the checkpoint in progress is abandoned" : "");
}

/* A line of the coordinator's (src/common/coord_protocol.h); one it may not
 * send is not ours, and ignored. */
static void on_line(const char *line)
{
    struct mpcr_line m;
    if (mpcr_coord_line_parse(line, MPCR_FROM_COORD, &m)) return;
    unsigned long k = m.nnum ? (unsigned long)m.num[0] : 0;
    switch (m.kind) {
    case MPCR_LINE_ERROR: /* a refusal of this rank's hello; the connection ends next */
        mpcr_report("rank %d: the coordinator refused this rank: %s; no checkpoints", proxy.rank, m.text);
        coord_said = 1;
        break;
    case MPCR_LINE_QUIESCE:
        if (stage != CKPT_RUNNING) break;
        if (!proxy.app_connected || proxy.finalized) {
            say("busy %lu rank %d %s", k, proxy.rank,
                proxy.finalized ? "has called MPI_Finalize" : "has not called MPI_Init yet");
            break;
        }
        stage = CKPT_QUIESCED, gen = k, image_asked = 0, drain_since = 0, idle_since_ns = 0;
        reported_received = proxy.received;
        say("quiet %lu %llu %llu", k, (unsigned long long)proxy.sent,
            (unsigned long long)proxy.received);
        break;
    case MPCR_LINE_IMAGE:
        if (stage != CKPT_QUIESCED || k != gen) break;
        image_asked = 1; /* taken in ckpt_hold, outside any call */
        image_fork = m.opt;
        break;
    case MPCR_LINE_RESUME:
        if (k != gen || stage == CKPT_RUNNING) break;
        if (stage == CKPT_IMAGING) resources_resume();
        stage = CKPT_RUNNING;
        say("resumed %lu", k);
        break;
    case MPCR_LINE_WINDOWS: /* collective over the proxies: each comes here in its next wait */
        windows_start();
        break;
    case MPCR_LINE_EXIT:
        if (m.nnum && k == gen && stage == CKPT_IMAGING) proxy.ckpt_exit = 1; /* the program ends now; so does the job */
        break;
    default:
        break;
    }
}

int ckpt_ask_windows(void)
{
    if (coord_fd < 0) return -1;
    say("windows");
    return 0;
}

int ckpt_poll(void)
{
    /* Every wait of the proxy, and the idle proxy, come here: pending
     * MPI_Comm_idup duplicates advance with them (idup.h). */
    if (stage != CKPT_IMAGING) resources_poll();
    for (const char *word; (word = triggers_take());)
        say("signal %s", word);
    while (atomic_load_explicit(&q_count, memory_order_acquire)) {
        char line[128];
        pthread_mutex_lock(&q_lock);
        int is_line = q_tail != q_head; /* else the event is the end of the connection */
        if (is_line) snprintf(line, sizeof line, "%s", queue[q_tail % QUEUE]), q_tail++;
        atomic_fetch_sub(&q_count, 1);
        pthread_mutex_unlock(&q_lock);
        if (is_line) on_line(line);
        else if (atomic_load(&coord_lost)) coordinator_lost();
    }
    if (stage == CKPT_QUIESCED) drain_step();
    return stage != CKPT_RUNNING;
}

int ckpt_settle_overdue(uint64_t *start_ns)
{
    uint64_t now = mpcr_now_ns();
    if (!*start_ns) *start_ns = now;
    if (*start_ns == UINT64_MAX || now - *start_ns < 10000000000ull) return 0;
    *start_ns = UINT64_MAX;
    return 1;
}

/* Every message is in its receiver's cache: settle every resource kind,
 * save this proxy's part, and have the program write its image. */
static void take_image(void)
{
    resources_settle();
    char err[256] = "";
    if (state_save(gen, err, sizeof err)) {
        say("failed %lu rank %d: %s", gen, proxy.rank, err);
        stage = CKPT_IMAGING; /* the coordinator answers with resume */
        return;
    }
    union sigval v = {.sival_ptr = (void *)(uintptr_t)(image_fork ? MPCR_CTL_REQUEST_RANK_CONTINUE(gen)
                                                                  : MPCR_CTL_REQUEST(gen))};
    stage = CKPT_IMAGING;
    if (sigqueue(proxy.child, SIGRTMAX, v)) {
        say("failed %lu rank %d: cannot signal the program: %s", gen, proxy.rank, strerror(errno));
        return;
    }
    say("signalled %lu", gen);
}

/* Between two drain steps of the quiesced proxy. A creation's real call
 * in a thread of its own waits for MPICH's lock, which the drain's probes
 * take back at once (creation.h): the core goes to it. And a drain ends
 * within milliseconds unless a rank is late (its proxy inside a real call,
 * its program between two calls): once nothing has come for 2 ms and no
 * send of its own is under way, the proxy naps 100 us between steps rather
 * than take a core the late rank may need (seen: three quiesced proxies
 * spinning for the 30 s of a time-out on the 2-core CI machine). */
static void drain_pause(void)
{
    if (creation_running()) {
        sched_yield();
        return;
    }
    uint64_t now = mpcr_now_ns();
    if (!idle_since_ns || proxy.received != idle_received) {
        idle_since_ns = now, idle_received = proxy.received;
        return;
    }
    if (now - idle_since_ns > 2000000 && !req_sending()) usleep(100);
}

void ckpt_hold(void)
{
    while (ckpt_poll()) {
        if (stage == CKPT_QUIESCED && image_asked) {
            image_asked = 0;
            take_image();
        }
        if (child_exited) child_ended();
        if (stage == CKPT_QUIESCED) drain_pause();
        if (stage == CKPT_IMAGING) {
            /* Nothing of ours to drive; but the real MPI's progress goes on,
             * for peers still finishing their MPI_Comm_idup (idup.h): this
             * rank's part of one may have ended before its messages left. */
            int flag = 0;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            usleep(200);
        }
    }
}
