/* Non-blocking and persistent collectives as tasks: see coll_task.h and
 * docs/collectives.md. A task is the blocking collective's schedule run on
 * a stack of its own; it pauses where its round waits for its sends and
 * receives, and mpcr_coll_progress resumes it when all have completed.
 * Tasks run inside MPI calls, one at a time, holding the library (threads.h):
 * on a program's thread, or on the progress helper's while the program
 * computes (progress.c; tasks with a user op there only under MULTIPLE). */
#include "channel.h"
#include "coll.h"
#include "coll_stack.h"
#include "coll_task.h"
#include "comm/comm.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "op.h"
#include "pt2pt/p2p.h"
#include "pt2pt/request.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "runtime/threads.h"

#include <stdlib.h>
#include <string.h>

struct coll_task {
    struct mpcr_request *q;
    mpcr_coll_run_fn *run;
    const struct mpcr_type **types;
    int ntypes;
    struct mpcr_user_op *op; /* a user op, kept while the request lives */
    int persistent;
    uint32_t seq; /* a persistent collective's sequence number */
    int seq_taken; /* this run has used it */
    /* On an inter-communicator: the sequence numbers reserved on its hidden
     * local communicator for the intra collectives of its schedule
     * (coll_inter.c), taken at the start (a persistent one: at its init), in
     * the order MPI orders the collectives; so a task that pauses between two
     * of them lets no other collective take one of its numbers. */
    struct mpcr_comm *local;
    uint32_t local_base, local_used;
    /* A run: */
    void *stack; /* NULL when not running */
    void *sp;    /* where the task stands while paused */
    int ended;
    struct coll_task *next; /* the list of running tasks */
    /* The round it waits for: tokens (0 once completed) and results. */
    uint32_t *tokens;
    struct mpcr_completion *res;
    unsigned n, left;
    _Alignas(16) unsigned char args[];
};

static struct coll_task *running; /* tasks started and not ended */
static int background; /* the progress helper's turn: user ops wait, but under MULTIPLE */
static struct coll_task *current; /* the task executing now; NULL: the program's stack */
static void *program_sp;          /* where the program's stack stands while a task runs */

int mpcr_coll_in_flight(void)
{
    return current || running;
}

int mpcr_coll_async(void)
{
    /* Under MPI_THREAD_MULTIPLE every wait takes this path too: it tests
     * and lets the lock go between tests (threads.h), so that a thread
     * blocked in a call leaves the others free to make theirs. */
    return current || running || mpcr_threads_shared();
}

int mpcr_coll_wait_at_proxy(void)
{
    return !current && !running && mpcr_threads_shared() && mpcr_lock_wait_alone();
}

/* ---- running a task ---- */

static _Noreturn void task_entry(void)
{
    struct coll_task *t = current;
    struct mpcr_request *q = t->q;
    q->rc = t->run(t->args);
    t->ended = 1;
    mpcr_stack_switch(&t->sp, program_sp);
    __builtin_unreachable();
}

/* Lets t run until it waits for a round or ends; then, if it ended, its
 * request is complete. */
static void resume(struct coll_task *t)
{
    /* A user op the program freed since the start is still the collective's:
     * its handle is valid again while the task runs (nothing else can
     * take the slot while the object lives). */
    int released = t->op && t->op->h.released;
    if (released) t->op->h.released = 0;
    current = t;
    mpcr_stack_switch(&program_sp, t->sp);
    current = NULL;
    if (released) t->op->h.released = 1;
    if (!t->ended) return;
    for (struct coll_task **l = &running; *l; l = &(*l)->next)
        if (*l == t) {
            *l = t->next;
            break;
        }
    coll_stack_put(t->stack);
    t->stack = NULL;
    mpcr_status_set(&t->q->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    mpcr_obj_unref(t->q); /* the run's reference: may destroy a request the program freed */
}

/* Pauses the current task until every token of its round has completed. */
static void task_wait(uint32_t *tokens, struct mpcr_completion *res, unsigned n)
{
    struct coll_task *t = current;
    t->tokens = tokens, t->res = res, t->n = n, t->left = 0;
    for (unsigned i = 0; i < n; i++)
        t->left += tokens[i] != 0;
    if (t->left) mpcr_stack_switch(&t->sp, program_sp);
}

static int start(struct mpcr_request *q)
{
    struct coll_task *t = q->task;
    if (!(t->stack = coll_stack_get())) return MPI_ERR_NO_MEM;
    t->sp = coll_stack_prepare(t->stack, task_entry);
    t->ended = 0, t->n = t->left = 0, t->seq_taken = 0, t->local_used = 0;
    q->inactive = 0, q->rc = MPI_SUCCESS;
    mpcr_obj_ref(q); /* the request lives until the run ends, even if the program frees it */
    t->next = running, running = t;
    resume(t);
    if (!t->ended) mpcr_progress_arm();
    return MPI_SUCCESS;
}

/* The most intra collectives an inter-communicator collective's schedule
 * makes on the hidden local communicator (coll_inter.c: MPI_Barrier's two). */
#define INTER_LOCAL_SEQS 4

uint32_t mpcr_coll_seq_take(struct mpcr_comm *c)
{
    if (current && current->persistent && current->q->comm == c && !current->seq_taken++)
        return current->seq;
    if (current && current->local == c) {
        if (current->local_used == INTER_LOCAL_SEQS)
            mpcr_fatal("an inter-communicator collective made more than %d collectives on its "
                       "local group", INTER_LOCAL_SEQS);
        return current->local_base + current->local_used++;
    }
    return c->coll_seq++;
}

int mpcr_coll_task_new(struct mpcr_comm *c, MPI_Request *request, mpcr_coll_run_fn *run,
                       const void *args, size_t size, const struct mpcr_type *const types[],
                       int ntypes, MPI_Op op, int persistent)
{
    struct coll_task *t = calloc(1, sizeof *t + size);
    const struct mpcr_type **held = calloc((size_t)ntypes + 1, sizeof *held);
    struct mpcr_request *q = t && held ? mpcr_request_new(c, request) : NULL;
    if (!q) {
        free(t), free(held);
        return MPI_ERR_NO_MEM;
    }
    memcpy(t->args, args, size);
    t->q = q, t->run = run, t->types = held;
    for (int i = 0; i < ntypes; i++)
        if (types[i]) held[t->ntypes++] = types[i], mpcr_type_ref((struct mpcr_type *)types[i]);
    if ((t->op = (struct mpcr_user_op *)mpcr_user_op_get(op))) mpcr_obj_ref(t->op);
    q->kind = MPCR_REQ_COLL, q->task = t;
    if (c->inter && (t->local = c->inter->local)) {
        t->local_base = t->local->coll_seq;
        t->local->coll_seq += INTER_LOCAL_SEQS;
    }
    if (persistent) {
        q->persistent = 1, q->inactive = 1;
        t->persistent = 1, t->seq = c->coll_seq++;
        return MPI_SUCCESS;
    }
    int err = start(q);
    if (!err && t->ended) err = q->rc; /* failed at once (a wrong argument): no request */
    if (err) mpcr_request_free(request, q);
    return err;
}

int mpcr_coll_task_start(struct mpcr_request *q)
{
    return start(q);
}

int mpcr_coll_task_done(const struct mpcr_request *q)
{
    return !q->task->stack;
}

void mpcr_coll_task_destroy(struct mpcr_request *q)
{
    struct coll_task *t = q->task;
    for (int i = 0; i < t->ntypes; i++)
        mpcr_type_unref((struct mpcr_type *)t->types[i]);
    free(t->types);
    if (t->op) mpcr_obj_unref(t->op);
    free(t);
    q->task = NULL;
}

/* ---- rounds as non-blocking requests ---- */

static int batch_async(uint64_t off, unsigned n)
{
    uint32_t tokens[MPCR_BATCH_MAX];
    struct mpcr_completion res[MPCR_BATCH_MAX];
    int err = mpcr_ibatch(off, n); /* all posted in one round trip */
    if (err) return err; /* a bad operation: none was started */
    const struct mpcr_batch_op *posted = mpcr_staging_ptr(off);
    for (unsigned i = 0; i < n; i++) {
        tokens[i] = posted[i].token;
        res[i] = (struct mpcr_completion){.done = !tokens[i], .rc = posted[i].rc};
        if (posted[i].rc && !err) err = posted[i].rc;
    }
    if (current) {
        task_wait(tokens, res, n);
    } else {
        for (;;) {
            unsigned left = 0;
            for (unsigned i = 0; i < n; i++)
                left += tokens[i] != 0;
            if (!left) break;
            int e = mpcr_coll_progress(1, tokens, res, n);
            if (e) return e; /* the proxy's requests are lost: nothing to unpack */
        }
    }
    struct mpcr_batch_op *ops = mpcr_staging_ptr(off); /* the area may have moved meanwhile */
    for (unsigned i = 0; i < n; i++) {
        ops[i].done = res[i].done, ops[i].rc = res[i].rc;
        ops[i].source = res[i].source, ops[i].rtag = res[i].tag, ops[i].rbytes = res[i].bytes;
    }
    return err;
}

int mpcr_coll_batch(uint64_t off, unsigned n)
{
    if (mpcr_coll_async()) return batch_async(off, n);
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_BATCH);
    call->offset = off;
    call->peer = (int32_t)n;
    return mpcr_call_finish()->rc;
}

const struct mpcr_reply *mpcr_coll_finish_blocking(void)
{
    if (!mpcr_coll_async()) return mpcr_call_finish();
    static struct mpcr_reply done;
    struct mpcr_call *call = &mpcr.draft;
    const struct mpcr_reply *r;
    if (mpcr_coll_wait_at_proxy()) {
        /* MPI_THREAD_MULTIPLE, no other thread waiting: the blocking call
         * itself, answered `pending` with its request's token if another
         * thread wants the lock meanwhile (src/proxy/serve.c polled_p2p) */
        call->poll = 1;
        r = mpcr_call_finish();
        if (r->rc || !r->pending) return r;
    } else {
        call->op = call->op == MPCR_OP_RECV    ? MPCR_OP_IRECV
                   : call->op == MPCR_OP_SSEND ? MPCR_OP_ISSEND
                                               : MPCR_OP_ISEND;
        r = mpcr_call_finish();
        if (r->rc) return r;
    }
    uint32_t token = r->token;
    struct mpcr_completion res = {0};
    while (token) {
        int err = mpcr_coll_progress(1, &token, &res, 1);
        if (err) res.rc = err, token = 0;
    }
    done = (struct mpcr_reply){.rc = res.rc, .source = res.source, .tag = res.tag, .bytes = res.bytes};
    return &done;
}

/* ---- progress ---- */

/* Resumes every task whose round has completed; a resumed one may end (and
 * leave the list) or post its next round. In the helper's turn, tasks with
 * a user op below MULTIPLE stay as they are: their round is complete (no
 * token left) until a program's call comes here. */
static void resume_ready(void)
{
    for (int again = 1; again;) {
        again = 0;
        for (struct coll_task *t = running; t; t = t->next)
            if (!t->left && t->n && !(background && t->op && !mpcr_threads_shared())) {
                t->n = 0;
                resume(t);
                again = 1;
                break;
            }
    }
}

int mpcr_coll_progress(int block, uint32_t *tokens, struct mpcr_completion *res, uint32_t n)
{
    if (current) return MPI_SUCCESS; /* a user op calling MPI from a task: never nested */
    resume_ready(); /* those the helper left */
    uint32_t total = n;
    for (struct coll_task *t = running; t; t = t->next)
        total += t->n;
    if (!total) return MPI_SUCCESS;
    uint64_t off, bytes = mpcr_completion_offset(0, total) +
                          (uint64_t)total * sizeof(struct mpcr_completion);
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) return err;
    uint32_t *all = mpcr_staging_ptr(off), k = 0, pending = 0;
    for (uint32_t i = 0; i < n; i++)
        pending += (all[k++] = tokens[i]) != 0;
    for (struct coll_task *t = running; t; t = t->next)
        for (unsigned i = 0; i < t->n; i++)
            pending += (all[k++] = t->tokens[i]) != 0;
    if (!pending) { /* nothing can complete: do not wait */
        mpcr_staging_free(off);
        if (block) mpcr_lock_yield(); /* the caller tests again after it */
        return MPI_SUCCESS;
    }
    /* Under MPI_THREAD_MULTIPLE a thread that waits alone waits at the
     * proxy until something completes or another thread wants the lock,
     * then lets it go; threads that wait at once test in turn, with a
     * pause without the lock between tests (threads.h). Either way the
     * callers come back until theirs has completed. The token list is
     * made again each time: another thread may have settled the tasks'
     * operations meanwhile. */
    int shared = block && mpcr_threads_shared(), yielding = shared && mpcr_lock_wait_alone();
    int wait = block && (!shared || yielding);
    err = mpcr_complete_call(wait ? MPCR_WAITSOME : MPCR_TESTSOME, total, off, yielding)->rc;
    const struct mpcr_completion *got = mpcr_staging_ptr(mpcr_completion_offset(off, total));
    uint32_t completed = 0;
    k = 0;
    for (uint32_t i = 0; i < n; i++, k++)
        if (!err && tokens[i] && got[k].done) tokens[i] = 0, res[i] = got[k], completed++;
    for (struct coll_task *t = running; t; t = t->next)
        for (unsigned i = 0; i < t->n; i++, k++)
            if (!err && t->tokens[i] && got[k].done)
                t->tokens[i] = 0, t->res[i] = got[k], t->left--, completed++;
    mpcr_staging_free(off);
    if (err) return err;
    if (shared && !completed) {
        if (yielding) mpcr_lock_pass();
        else mpcr_lock_yield();
        return MPI_SUCCESS;
    }
    resume_ready();
    return MPI_SUCCESS;
}

int mpcr_coll_progress_background(void)
{
    if (!running || current) return running != NULL;
    background = 1;
    mpcr_coll_progress(0, NULL, NULL, 0); /* an error: the program's next wait meets it */
    background = 0;
    return running != NULL;
}
