/* Matched probes (MPI 4.0 section 3.8.2). A message MPI_Mprobe matches is
 * taken out of the real MPI at once: the proxy receives it whole into its
 * cache of received messages, under the id of the program's MPI_Message
 * (its handle slot + 1), and MPI_Mrecv asks for it by that id. So no
 * matched message is ever inside the real MPI at a checkpoint: it is in the
 * proxy's cache, which the checkpoint's state file keeps and a restarted
 * proxy loads, and a message handle taken before a checkpoint is received
 * after it (docs/pt2pt.md). */
#include "api_gen.h"
#include "channel.h"
#include "coll/coll_task.h"
#include "comm/comm.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "p2p.h"
#include "request.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "runtime/threads.h"

#include <sched.h>

struct mpcr_message {
    struct mpcr_object h;
    struct mpcr_comm *comm; /* referenced: its error handler, its life */
};

static void destroy(void *obj)
{
    mpcr_comm_unref(((struct mpcr_message *)obj)->comm);
}

static uint32_t id_of(const struct mpcr_message *m)
{
    return mpcr_obj_index(m) + 1;
}

/* MPROBE or IMPROBE; *message is set when a message was matched. */
static int mprobe(enum mpcr_op op, int source, int tag, struct mpcr_comm *c, int *flag,
                  MPI_Message *message, MPI_Status *status)
{
    if (!message) return MPI_ERR_ARG;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    /* An Improbe loop asks the proxy at a pace, as an Iprobe loop (p2p.c) */
    struct mpcr_poll_question question = {op, c->vid, source, tag};
    int paced = op == MPCR_OP_IMPROBE && !mpcr_coll_in_flight() && !mpcr_posts_queued;
    if (paced && mpcr_poll_paced(&question)) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    uint64_t asked_ns = paced ? mpcr_now_ns() : 0;
    struct mpcr_message *m = mpcr_obj_new(MPCR_KIND_MESSAGE, sizeof *m, destroy);
    if (!m) return MPI_ERR_NO_MEM;
    m->comm = c;
    mpcr_comm_ref(c);
    struct mpcr_call *call = mpcr_call_begin(op);
    call->comm = c->vid, call->peer = mpcr_comm_peer_out(c, source), call->tag = tag,
    call->token = id_of(m);
    const struct mpcr_reply *r = mpcr_call_finish();
    *flag = r->flag;
    if (paced && !r->rc) mpcr_poll_answered(&question, r->flag, asked_ns);
    if (!r->flag) {
        int err = r->rc;
        mpcr_obj_drop_handle(m);
        mpcr_orphans_poll(0);
        return err;
    }
    mpcr_status_set(status, mpcr_comm_peer_in(c, r->source), r->tag, r->bytes);
    *message = (MPI_Message)mpcr_obj_handle(m);
    mpcr_orphans_poll(0); /* collectives in flight advance (coll_task.h), as at every call */
    return MPI_SUCCESS;
}

int mpcr_impl_Mprobe(int source, int tag, struct mpcr_comm *c, MPI_Message *message,
                     MPI_Status *status)
{
    int flag;
    /* As MPI_Probe: while collectives run in the library (coll_task.h), a
     * blocking matched probe polls, so that they advance meanwhile (a
     * blocking MPROBE in the proxy would leave them where they are, and a
     * rank that waits for this one's collective would never send). */
    while (mpcr_coll_async()) {
        int err = mprobe(MPCR_OP_IMPROBE, source, tag, c, &flag, message, status);
        if (err || flag) return err;
        mpcr_lock_yield();
    }
    return mprobe(MPCR_OP_MPROBE, source, tag, c, &flag, message, status);
}

int mpcr_impl_Improbe(int source, int tag, struct mpcr_comm *c, int *flag, MPI_Message *message,
                      MPI_Status *status)
{
    if (!flag) return MPI_ERR_ARG;
    return mprobe(MPCR_OP_IMPROBE, source, tag, c, flag, message, status);
}

/* Receives matched message *message into buf. *comm: its communicator,
 * referenced for the caller (whose error handler applies to an error, MPI
 * 4.0 9.3), or left NULL (no valid message: MPI_COMM_WORLD's). */
static int mrecv(void *buf, MPI_Count count, const struct mpcr_type *t, MPI_Message *message,
                 MPI_Status *status, struct mpcr_comm **comm)
{
    if (!message) return MPI_ERR_ARG;
    if (*message == MPI_MESSAGE_NO_PROC) {
        *message = MPI_MESSAGE_NULL;
        mpcr_status_set(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
        return MPI_SUCCESS;
    }
    struct mpcr_message *m = mpcr_obj_get(MPCR_KIND_MESSAGE, (uint32_t)*message);
    if (!m) return MPI_ERR_REQUEST;
    *comm = m->comm;
    mpcr_comm_ref(m->comm); /* the message goes below; the program may have freed the comm */
    uint64_t capacity, off;
    int err = mpcr_bytes_of(count, t, &capacity);
    if (!err) err = mpcr_staging_alloc(capacity, &off);
    if (err) return err;
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_MRECV);
    call->token = id_of(m), call->offset = off, call->bytes = capacity;
    err = mpcr_finish_recv(m->comm, mpcr_call_finish(), buf, capacity, off, t, status);
    mpcr_staging_free(off);
    mpcr_obj_drop_handle(m);
    *message = MPI_MESSAGE_NULL;
    return err;
}

/* Applies the error handler of the message's communicator c (NULL:
 * MPI_COMM_WORLD's) to err, then lets c go (mrecv referenced it). Both
 * functions are `ownerrors` (src/lib/api). */
static int message_error(struct mpcr_comm *c, int err, const char *fn)
{
    err = mpcr_error(c, err, fn);
    if (c) mpcr_comm_unref(c);
    return err;
}

int mpcr_impl_Mrecv(void *buf, MPI_Count count, const struct mpcr_type *t, MPI_Message *message,
                    MPI_Status *status)
{
    struct mpcr_comm *c = NULL;
    int err = mrecv(buf, count, t, message, status, &c);
    return message_error(c, err, "MPI_Mrecv");
}

/* The message is at the proxy already: it is received at once, and the
 * request is complete (its error, if any, is reported by the Wait or Test,
 * through the same communicator's handler). */
int mpcr_impl_Imrecv(void *buf, MPI_Count count, const struct mpcr_type *t, MPI_Message *message,
                     MPI_Request *request)
{
    if (!message || !request) return mpcr_error_world(MPI_ERR_ARG, "MPI_Imrecv");
    struct mpcr_message *m = *message == MPI_MESSAGE_NO_PROC
                                 ? NULL
                                 : mpcr_obj_get(MPCR_KIND_MESSAGE, (uint32_t)*message);
    if (!m && *message != MPI_MESSAGE_NO_PROC) return mpcr_error_world(MPI_ERR_REQUEST, "MPI_Imrecv");
    struct mpcr_comm *c = m ? m->comm : mpcr_comm_get(MPI_COMM_SELF);
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) return mpcr_error(m ? c : NULL, MPI_ERR_NO_MEM, "MPI_Imrecv");
    q->kind = MPCR_REQ_RECV;
    struct mpcr_comm *held = NULL;
    q->rc = mrecv(buf, count, t, message, &q->status, &held);
    return message_error(held, MPI_SUCCESS, "MPI_Imrecv");
}
