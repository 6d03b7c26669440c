/* Partitioned point-to-point (MPI 4.0 chapter 4), made of mpcr's own
 * persistent point-to-point so that it works on a proxy whose MPI has none
 * (Open MPI 4.1) and restarts on either: a partitioned request is a
 * persistent request whose one message carries the whole buffer. A send
 * started by MPI_Start marks partitions ready (MPI_Pready*) in the
 * program's memory and sends the whole buffer at the last one; a receive
 * is posted whole at MPI_Start, and a partition has arrived when the whole
 * message has. The message travels on the communicator's collective
 * context with a hidden tag (below) that no collective uses, so it
 * matches partitioned receives only. docs/partitioned.md. */
#include <stdio.h>
#include <stdlib.h>

#include "api_gen.h"
#include "channel.h"
#include "comm/comm.h"
#include "datatype/typemap.h"
#include "env/errors.h"
#include "p2p.h"
#include "request.h"
#include "runtime/runtime.h"

/* Above the collectives' tags and the proxy's own (coll.h: below 32768);
 * within 2^16, and every MPI this runs on allows far more (MPICH and Open
 * MPI: 2^31 - 1 or near). */
#define PART_TAG_BASE 32768
#define PART_SEQ_MOD  64

/* MPI 4.0 4.2.3: partitioned operations match in the order of their
 * MPI_Psend_init and MPI_Precv_init calls, whatever the order of the
 * starts. Each side counts its inits per (communicator, direction, peer,
 * tag); the k-th send init and the k-th receive init get the same hidden
 * tag: PART_TAG_BASE + (tag mod 512) * 64 + k mod 64, below 65536. The
 * counts live with the communicator and go with it, so that a new one
 * starts from 0 on every side (a count keyed by the object's address went
 * on from a freed one's where the address was reused on one side only). */
struct init_count {
    int send, peer, tag;
    unsigned n;
};
struct mpcr_part_inits {
    struct init_count *counts;
    size_t n;
};

void mpcr_partitioned_comm_gone(struct mpcr_comm *c)
{
    if (!c->part_inits) return;
    free(c->part_inits->counts);
    free(c->part_inits);
    c->part_inits = NULL;
}

static int next_hidden_tag(struct mpcr_comm *c, int send, int peer, int tag)
{
    if (!c->part_inits && !(c->part_inits = calloc(1, sizeof *c->part_inits))) return -1;
    struct mpcr_part_inits *t = c->part_inits;
    size_t i = 0;
    while (i < t->n && !(t->counts[i].send == send && t->counts[i].peer == peer && t->counts[i].tag == tag))
        i++;
    if (i == t->n) {
        struct init_count *m = realloc(t->counts, (t->n + 1) * sizeof *m);
        if (!m) return -1;
        t->counts = m;
        t->counts[t->n++] = (struct init_count){send, peer, tag, 0};
    }
    unsigned k = t->counts[i].n++;
    return PART_TAG_BASE + (tag % 512) * PART_SEQ_MOD + (int)(k % PART_SEQ_MOD);
}

static int init(enum mpcr_op op, const void *buf, int partitions, MPI_Count count,
                const struct mpcr_type *t, int peer, int tag, struct mpcr_comm *c,
                MPI_Request *request)
{
    MPI_Count total;
    if (partitions < 1 || count < 0) return MPI_ERR_ARG;
    if (__builtin_mul_overflow(count, (MPI_Count)partitions, &total)) return MPI_ERR_COUNT;
    unsigned char *ready = calloc((size_t)partitions, 1);
    int hidden = ready ? next_hidden_tag(c, op != MPCR_OP_IRECV, peer, tag) : -1;
    if (hidden < 0) {
        free(ready);
        return MPI_ERR_NO_MEM;
    }
    struct mpcr_request *q = mpcr_request_new(c, request);
    if (!q) {
        free(ready);
        return MPI_ERR_NO_MEM;
    }
    q->kind = op == MPCR_OP_IRECV ? MPCR_REQ_RECV : MPCR_REQ_SEND;
    q->persistent = 1, q->inactive = 1;
    q->start_op = op;
    q->sbuf = buf, q->count = total, q->peer = peer, q->tag = tag;
    q->type = t;
    mpcr_type_ref((struct mpcr_type *)t);
    q->partitions = partitions, q->ready = ready, q->ctx = MPCR_COLL_CONTEXT;
    q->hidden_tag = hidden;
    return MPI_SUCCESS;
}

int mpcr_impl_Psend_init(const void *buf, int partitions, MPI_Count count,
                         const struct mpcr_type *t, int dest, int tag, struct mpcr_comm *c,
                         struct mpcr_info *info, MPI_Request *request)
{
    (void)info;
    return init(MPCR_OP_ISEND, buf, partitions, count, t, dest, tag, c, request);
}

int mpcr_impl_Precv_init(void *buf, int partitions, MPI_Count count, const struct mpcr_type *t,
                         int source, int tag, struct mpcr_comm *c, struct mpcr_info *info,
                         MPI_Request *request)
{
    (void)info;
    if (source == MPI_ANY_SOURCE) return MPI_ERR_RANK; /* MPI 4.0 4.2.2: no wildcards */
    return init(MPCR_OP_IRECV, buf, partitions, count, t, source, tag, c, request);
}

int mpcr_partitioned_start(struct mpcr_request *q)
{
    q->rc = MPI_SUCCESS;
    if (q->start_op == MPCR_OP_IRECV)
        return mpcr_request_start_recv(q, (void *)q->sbuf, q->count, q->type, q->peer,
                                       q->hidden_tag);
    for (int i = 0; i < q->partitions; i++)
        q->ready[i] = 0;
    q->nready = 0;
    q->part_started = 1;
    return MPI_SUCCESS;
}

/* A partitioned send started and waiting for partitions, or NULL. */
static struct mpcr_request *started_send(MPI_Request handle, struct mpcr_comm **comm)
{
    struct mpcr_request *q = mpcr_request_get(handle);
    *comm = q ? q->comm : NULL;
    return q && q->partitions && q->kind == MPCR_REQ_SEND && q->part_started ? q : NULL;
}

/* Marks partition p of q ready; the last one sends the whole buffer. *why
 * names an erroneous call for the error's message. */
static int ready(struct mpcr_request *q, int p, const char **why)
{
    if (p < 0 || p >= q->partitions) {
        *why = "partition out of range";
        return MPI_ERR_ARG;
    }
    if (q->ready[p]) {
        *why = "partition already marked ready since MPI_Start";
        return MPI_ERR_ARG;
    }
    q->ready[p] = 1;
    if (++q->nready < q->partitions) return MPI_SUCCESS;
    q->part_started = 0;
    return mpcr_request_start_send(q, MPCR_OP_ISEND, q->sbuf, q->count, q->type, q->peer,
                                   q->hidden_tag);
}

static int raise_ready(struct mpcr_comm *c, int err, const char *fn, const char *why)
{
    char what[160];
    if (!err) return MPI_SUCCESS;
    snprintf(what, sizeof what, "%s (%s)", fn, why);
    return mpcr_error(c, err, what);
}

int mpcr_impl_Pready(int partition, MPI_Request request)
{
    struct mpcr_comm *c;
    const char *why = "not an active partitioned send request";
    struct mpcr_request *q = started_send(request, &c);
    int err = q ? ready(q, partition, &why) : MPI_ERR_REQUEST;
    return raise_ready(c, err, "MPI_Pready", why);
}

int mpcr_impl_Pready_range(int low, int high, MPI_Request request)
{
    struct mpcr_comm *c;
    const char *why = "not an active partitioned send request";
    struct mpcr_request *q = started_send(request, &c);
    int err = q ? MPI_SUCCESS : MPI_ERR_REQUEST;
    if (q && (low < 0 || high >= q->partitions || low > high))
        err = MPI_ERR_ARG, why = "partition range out of range";
    for (int p = low; q && !err && p <= high; p++)
        err = ready(q, p, &why);
    return raise_ready(c, err, "MPI_Pready_range", why);
}

int mpcr_impl_Pready_list(int length, int partitions[], MPI_Request request)
{
    struct mpcr_comm *c;
    const char *why = "not an active partitioned send request";
    struct mpcr_request *q = started_send(request, &c);
    int err = q ? MPI_SUCCESS : MPI_ERR_REQUEST;
    if (q && length < 0) err = MPI_ERR_ARG, why = "negative length";
    for (int i = 0; q && !err && i < length; i++)
        err = ready(q, partitions[i], &why);
    return raise_ready(c, err, "MPI_Pready_list", why);
}

/* Whether the whole message has arrived: MPI_Request_get_status's answer,
 * which leaves the request for the program's Wait or Test. An inactive
 * request answers true (MPI 4.0 4.2.2). */
int mpcr_impl_Parrived(MPI_Request request, int partition, int *flag)
{
    struct mpcr_request *q = mpcr_request_get(request);
    struct mpcr_comm *c = q ? q->comm : NULL;
    if (!q || !q->partitions || q->kind != MPCR_REQ_RECV)
        return raise_ready(c, MPI_ERR_REQUEST, "MPI_Parrived", "not a partitioned receive request");
    if (partition < 0 || partition >= q->partitions)
        return raise_ready(c, MPI_ERR_ARG, "MPI_Parrived", "partition out of range");
    if (q->queued) mpcr_posts_flush();
    int err = mpcr_impl_Request_get_status(request, flag, MPI_STATUS_IGNORE);
    return mpcr_error(c, err, "MPI_Parrived");
}
