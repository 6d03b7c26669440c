/* Start and end of MPI: connecting to the proxy, MPI_Finalize, MPI_Abort
 * and the thread-level queries. */
#include "api/api.h"
#include "channel.h"
#include "coll/coll_task.h"
#include "env/attr.h"
#include "env/errors.h"
#include "pt2pt/request.h"
#include "profile.h"
#include "runtime.h"
#include "staging.h"
#include "threads.h"
#include "report.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct mpcr_lib mpcr;

void mpcr_comm_setup(int rank, int size);


/* Appends v in decimal to p; async-signal-safe (no stdio in a handler). */
static char *put_int(char *p, long v)
{
    char digits[24];
    int n = 0;
    if (v < 0) *p++ = '-', v = -v;
    do digits[n++] = (char)('0' + v % 10); while ((v /= 10) && n < (int)sizeof digits);
    while (n) *p++ = digits[--n];
    return p;
}

/* The proxy died (PR_SET_PDEATHSIG): say which rank lost which proxy, so
 * that `mpcr run` can name it (a proxy killed by hand, the OOM killer, a
 * batch system's limit), and end. */
static void on_proxy_death(int sig)
{
    (void)sig;
    char msg[128], *p = msg;
    static const char a[] = "mpcr: rank ", b[] = ": its proxy (pid ", c[] = ") died; ending the program\n";
    memcpy(p, a, sizeof a - 1), p += sizeof a - 1;
    if (mpcr.size > 0) /* the rank is known once MPI_Init's reply came */
        p = put_int(p, mpcr.rank);
    else
        *p++ = '?';
    memcpy(p, b, sizeof b - 1), p += sizeof b - 1;
    p = put_int(p, (long)mpcr.proxy_pid);
    memcpy(p, c, sizeof c - 1), p += sizeof c - 1;
    mpcr_report_raw(msg, (unsigned)(p - msg));
    _exit(1);
}

static void watch_proxy(void)
{
    struct sigaction sa = {.sa_handler = on_proxy_death};
    sigaction(MPCR_PROXY_DEATH_SIGNAL, &sa, NULL);
    prctl(PR_SET_PDEATHSIG, MPCR_PROXY_DEATH_SIGNAL);
    if (getppid() != mpcr.proxy_pid) on_proxy_death(0); /* died before the prctl */
}

/* Puts back the program's own value of a variable the proxy prepended to
 * (kept in `saved`; none there: the proxy did not touch it). */
static void restore_env(const char *name, const char *saved)
{
    const char *old = getenv(saved);
    if (old && *old)
        setenv(name, old, 1);
    else if (old)
        unsetenv(name);
    unsetenv(saved);
}

/* Creates the channel and hands it to the proxy over the set-up socket. */
static void connect_proxy(void)
{
    const char *fd_env = getenv(MPCR_ENV_CHANNEL_FD);
    if (!fd_env) {
        mpcr_report("this program is linked with mpcr's MPI library but was not started by "
                    "`mpcr run`; start it with `mpcr run -n N PROGRAM`");
        exit(1);
    }
    mpcr_report_open();
    int sock = atoi(fd_env);
    mpcr.proxy_pid = getppid();
    int memfd = memfd_create("mpcr-channel", MFD_CLOEXEC);
    if (memfd < 0 || ftruncate(memfd, MPCR_CHAN_CONTROL) < 0) {
        perror("mpcr: cannot create the channel to the proxy");
        exit(1);
    }
    mpcr.chan = mmap(NULL, MPCR_CHAN_CONTROL, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (mpcr.chan == MAP_FAILED) {
        perror("mpcr: cannot map the channel to the proxy");
        exit(1);
    }
    mpcr.chan->magic = MPCR_CHAN_MAGIC;
    mpcr.chan->version = MPCR_CHAN_VERSION;
    struct mpcr_hello hello = {MPCR_CHAN_MAGIC, MPCR_CHAN_VERSION, 0};
    int err = mpcr_send_fd(sock, memfd, &hello, sizeof hello);
    if (err) {
        mpcr_report("cannot reach the proxy: %s", strerror(-err));
        exit(1);
    }
    /* The socket served only this; programs this one starts must not see
     * it, nor mpcr's library path (they are not ranks of this job). */
    close(sock);
    close(memfd); /* the mapping stays; the proxy extends the file (GROW) */
    unsetenv(MPCR_ENV_CHANNEL_FD);
    restore_env("LD_LIBRARY_PATH", MPCR_ENV_SAVED_LIBRARY_PATH);
    restore_env("LD_AUDIT", MPCR_ENV_SAVED_AUDIT);
    watch_proxy();
    mpcr_checkpoint_setup();
}

/* A program outside the world model (it never called MPI_Init, or called
 * MPI_Finalize while sessions were open) ends its connection when it exits:
 * until then it may open sessions again (MPI 4.0 11.3.1). Sessions still
 * open then end with it, as natively (MPICH says nothing of them). After
 * MPI_Init without MPI_Finalize the proxy reports the missing finalize. */
static int exit_ends_mpi(void)
{
    /* getppid: not in a child the program forked, whose exit is not the program's */
    return mpcr.initialized && !mpcr.finalized && mpcr.world != MPCR_WORLD_ON &&
           getppid() == mpcr.proxy_pid;
}

static void stop_at_exit(void)
{
    if (!exit_ends_mpi()) return;
    MPCR_SERIALIZED_CALL();
    if (exit_ends_mpi()) mpcr_stop();
}

/* Connects to the proxy and learns this rank's place in the job. */
static int connect_and_learn(void)
{
    /* The engine takes checkpoints from the program's start (its
     * constructor): one that came while the channel is made would find the
     * set-up socket still open and the report socket not yet left out of
     * images, and fail. It waits (the checkpoint signal held) until then. */
    sigset_t ckpt, mask;
    sigemptyset(&ckpt);
    sigaddset(&ckpt, SIGRTMAX);
    pthread_sigmask(SIG_BLOCK, &ckpt, &mask);
    connect_proxy();
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    mpcr.initialized = 1;
    /* As MPICH's MPI_Init does: output reaches mpiexec as it is printed, and
     * is not lost in a buffer when a rank dies. */
    setbuf(stdout, NULL);
    mpcr.main_thread = pthread_self();

    uint64_t off;
    if (mpcr_staging_alloc(MPCR_INIT_NAME_MAX + MPCR_INIT_VERSION_MAX, &off))
        mpcr_fatal("cannot allocate the channel's staging area");
    struct mpcr_call *c = mpcr_call_begin(MPCR_OP_INIT);
    c->offset = off;
    c->bytes = MPCR_INIT_NAME_MAX + MPCR_INIT_VERSION_MAX;
    const struct mpcr_reply *r = mpcr_call_finish();
    if (r->rc) mpcr_fatal("the proxy failed to start MPI (error class %d)", r->rc);
    mpcr.rank = r->value;
    mpcr.size = r->source;
    mpcr.tag_ub = r->tag; /* the proxy's: MPCR_TAG_UB_PORTABLE at most (channel.h) */
    mpcr_set_spin_ns(r->bytes);
    const char *s = mpcr_staging_ptr(off);
    snprintf(mpcr.processor_name, sizeof mpcr.processor_name, "%s", s);
    snprintf(mpcr.proxy_version, sizeof mpcr.proxy_version, "%s", s + MPCR_INIT_NAME_MAX);
    mpcr_staging_free(off);
    mpcr_comm_setup(mpcr.rank, mpcr.size);
    mpcr_prof_init();
    atexit(stop_at_exit);
    return MPI_SUCCESS;
}

int mpcr_start(int thread_level)
{
    /* The proxy's MPI ended with the world model and the last session:
     * nothing can start it again (MPICH 4.0.2 itself crashes there). */
    if (mpcr.finalized)
        mpcr_unsupported_feature("MPI_Session_init after MPI_Finalize ended MPI (no session was "
                                 "open)");
    if (!mpcr.initialized) connect_and_learn();
    /* The level asked for (MULTIPLE: threads.h serialises the calls); a
     * session or the world model may raise it, never lower it. */
    if (thread_level > MPI_THREAD_MULTIPLE) thread_level = MPI_THREAD_MULTIPLE;
    if (thread_level > mpcr.thread_level) mpcr.thread_level = thread_level;
    return MPI_SUCCESS;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc, (void)argv;
    static const char fn[] = "MPI_Init or MPI_Init_thread";
    if (mpcr.world != MPCR_WORLD_NONE)
        return mpcr_error_world(MPI_ERR_OTHER, mpcr.world == MPCR_WORLD_ON
                                                   ? "MPI_Init or MPI_Init_thread (a second time)"
                                                   : "MPI_Init or MPI_Init_thread (after MPI_Finalize)");
    int err = mpcr_start(required);
    if (err) return mpcr_error_world(err, fn);
    mpcr.world = MPCR_WORLD_ON;
    mpcr.main_thread = pthread_self(); /* MPI_Is_thread_main: the thread of MPI_Init */
    if (provided) *provided = mpcr.thread_level;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Init_thread);

int PMPI_Init(int *argc, char ***argv)
{
    int provided; /* not PMPI_Init_thread: the Open MPI front end's would answer (api.h) */
    return mpcr_mpich_PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
MPCR_ALIAS(Init);

/* The world model's state (MPI 4.0 11.4.1): sessions change neither. */
int PMPI_Initialized(int *flag)
{
    *flag = mpcr.world != MPCR_WORLD_NONE;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Initialized);

int PMPI_Finalized(int *flag)
{
    *flag = mpcr.world == MPCR_WORLD_ENDED;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Finalized);

int mpcr_stop(void)
{
    /* Requests the program freed while active (and buffered sends) are
     * completed here: a freed send is delivered, a freed receive's data
     * lands in its buffer (MPI 4.0 11.2.2; MPICH's rqfreeb). */
    mpcr_orphans_finish();
    mpcr_progress_stop();
    mpcr_prof_finalize();
    const struct mpcr_reply *r = mpcr_call_finish_op(MPCR_OP_FINALIZE);
    mpcr.finalized = 1;
    return r->rc;
}

int PMPI_Finalize(void)
{
    MPCR_REQUIRE_INIT("MPI_Finalize");
    MPCR_SERIALIZED_CALL();
    if (mpcr.world != MPCR_WORLD_ON)
        mpcr_fatal("MPI_Finalize called %s", mpcr.world == MPCR_WORLD_NONE ? "before MPI_Init"
                                                                         : "a second time");
    /* MPI 4.0 section 11.2.2: first, as if MPI_COMM_SELF were freed, its
     * attributes' delete callbacks run (the last set first); they may
     * still call MPI. Programs use this as an at-exit hook. */
    int self_rc = mpcr_attr_delete_all(MPCR_ATTR_COMM, (uint32_t)MPI_COMM_SELF);
    mpcr.world = MPCR_WORLD_ENDED;
    /* Sessions still open keep the connection (MPI 4.0 11.3: they outlive
     * the world model); the last one's MPI_Session_finalize ends it. */
    int rc = mpcr.sessions ? MPI_SUCCESS : mpcr_stop();
    return mpcr_error_world(rc ? rc : self_rc, "MPI_Finalize");
}
MPCR_ALIAS(Finalize);

/* Asks the proxy to end the job (ABORT), as the program (by_mpcr 0) or
 * as mpcr (MPCR_ABORT_BY_MPCR: the reason has been reported). */
static _Noreturn void abort_job(int errorcode, int by_mpcr)
{
    fflush(stdout);
    fflush(stderr);
    if (!mpcr.chan || mpcr.finalized) _exit(errorcode ? errorcode : 1);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the proxy's end is expected now: no message */
    struct mpcr_call *c = mpcr_call_begin(MPCR_OP_ABORT);
    c->tag = errorcode;
    c->peer = by_mpcr;
    mpcr_call_finish(); /* the proxy ends the job; the reply never comes */
    _exit(errorcode ? errorcode : 1);
}

_Noreturn void mpcr_end_job(int code)
{
    abort_job(code, MPCR_ABORT_BY_MPCR);
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm; /* MPICH, too, ends the whole job whatever the communicator */
    abort_job(errorcode, 0);
}
MPCR_ALIAS(Abort);

int PMPI_Query_thread(int *provided)
{
    *provided = mpcr.thread_level;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Query_thread);

int PMPI_Is_thread_main(int *flag)
{
    *flag = pthread_equal(pthread_self(), mpcr.main_thread);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Is_thread_main);
