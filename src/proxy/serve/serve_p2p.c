/* See serve_p2p.h. A matched message (MPI_Mprobe, MPI_Improbe) never stays
 * inside the real MPI: the proxy receives it at once, whole, into the
 * drain cache, marked as matched under the program's id (cache.h:
 * CACHE_MATCHED), where no receive or probe sees it. MRECV delivers it from
 * there. So a checkpoint finds it in the cache, which the state file keeps,
 * and a message matched before a restart is received after it. */
#include "serve_p2p.h"
#include "cache.h"
#include "ckpt.h"
#include "proxy.h"
#include "report.h"
#include "requests.h"

#include <stdlib.h>

static void reply_done(struct mpcr_reply *r, const struct req_status *s)
{
    r->rc = s->rc, r->source = s->source, r->tag = s->tag, r->bytes = s->bytes;
}

void op_issend(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req *q = req_new(&r->token);
    if (!q) {
        r->rc = error_class(MPI_ERR_NO_MEM);
        return;
    }
    q->comm = c->comm, q->peer = c->peer, q->tag = c->tag;
    q->offset = c->offset, q->bytes = c->bytes;
    int rc = req_start_send(q, 1);
    if (rc != MPI_SUCCESS) req_release(q), r->token = 0;
    r->rc = error_class(rc);
}

void op_cancel(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->flag = req_cancel(req_get(c->token));
}

/* ---- matched probes ---- */

int message_find(uint32_t id)
{
    if (id < 1 || id > MESSAGE_ID_MAX) return -1;
    return cache_find(CACHE_MATCHED | id, ABI_ANY_SOURCE, ABI_ANY_TAG);
}

int message_id_free(uint32_t id)
{
    return id >= 1 && id <= MESSAGE_ID_MAX && message_find(id) < 0;
}

/* Cached message i becomes matched message id; its status is the reply. */
static void match_cached(int i, uint32_t id, struct mpcr_reply *r)
{
    struct req_status s;
    cache[i].comm = CACHE_MATCHED | id;
    cache_peek(i, &s);
    reply_done(r, &s);
    r->rc = MPI_SUCCESS; /* a message whose receive failed says so when it is received */
    r->flag = 1;
}

/* Looks for a message the call (comm, peer, tag) matches: in the cache,
 * then in the real MPI, whose message is received at once into the cache.
 * Returns 1 when one was matched (or the real probe failed: r says so). */
static int match_one(const struct mpcr_call *c, struct mpcr_reply *r)
{
    int i = cache_find(c->comm, c->peer, c->tag), flag = 0;
    if (i >= 0) {
        match_cached(i, c->token, r);
        return 1;
    }
    MPI_Message msg;
    MPI_Status st;
    int rc =
        MPI_Improbe(real_source(c->peer), real_tag(c->tag), real_comm(c->comm), &flag, &msg, &st);
    if (rc != MPI_SUCCESS) {
        r->rc = error_class(rc);
        return 1;
    }
    if (!flag) return 0;
    uint64_t bytes = status_bytes(&st);
    int32_t source = neutral_source(st.MPI_SOURCE), tag = neutral_tag(st.MPI_TAG);
    void *data = malloc(bytes ? bytes : 1);
    if (!data) {
        mpcr_report("rank %d: out of memory for a matched message of %llu bytes", proxy.rank,
                    (unsigned long long)bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    rc = real_mrecv(data, bytes, &msg, &st);
    proxy.received++; /* taken off the network, failed or not: the drain's count */
    if (cache_add(c->comm, source, tag, error_class(rc), bytes, data)) {
        mpcr_report("rank %d: out of memory for a matched message", proxy.rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    match_cached((int)ncache - 1, c->token, r);
    return 1;
}

void op_improbe(const struct mpcr_call *c, struct mpcr_reply *r)
{
    match_one(c, r);
}

/* Nothing is matched until a message is there, so a checkpoint may leave
 * the call unanswered and have it served again. */
void op_mprobe(const struct mpcr_call *c, struct mpcr_reply *r)
{
    while (!match_one(c, r)) {
        if (child_exited) child_ended();
        if (ckpt_poll()) {
            abandon();
            return;
        }
    }
}

void op_mrecv(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct req_status s;
    cache_take(message_find(c->token), staging(c->offset), c->bytes, &s);
    reply_done(r, &s);
}
