/* Rounds of a collective's schedule: the sends and receives of one step
 * go to the proxy in one BATCH call (channel.h: struct mpcr_batch_op), one
 * round trip. The data of all of them and the operation records share one
 * allocation in the staging area, but for large contiguous buffers, which
 * move through shared buffers (shared_buffers.c) as point-to-point
 * messages do. */
#include "channel.h"
#include "coll.h"
#include "coll_task.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "runtime/staging.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN 64u

static void add(struct coll_round *r, int send, int peer, int phase, const void *sbuf, void *rbuf,
                MPI_Count count, const struct mpcr_type *t)
{
    if (r->err) return;
    if (r->n == MPCR_BATCH_MAX && (r->err = round_run(r))) return;
    uint64_t bytes;
    if ((r->err = coll_span(count, (uint64_t)t->size, &bytes))) return;
    r->x[r->n++] = (struct coll_xfer){.send = send,
                                      .peer = peer,
                                      .phase = phase,
                                      .sbuf = sbuf,
                                      .rbuf = rbuf,
                                      .count = count,
                                      .t = t,
                                      .bytes = bytes};
}

void round_send(struct coll_round *r, int peer, int phase, const void *buf, MPI_Count count,
                const struct mpcr_type *t)
{
    add(r, 1, peer, phase, buf, NULL, count, t);
}

void round_recv(struct coll_round *r, int peer, int phase, void *buf, MPI_Count count,
                const struct mpcr_type *t)
{
    add(r, 0, peer, phase, NULL, buf, count, t);
}

static uint64_t aligned(uint64_t n)
{
    return (n + ALIGN - 1) / ALIGN * ALIGN;
}

/* Whether [a, a + n) meets a receive of the round (one whose data is not
 * one range counts as meeting everything). */
static int received_into(const struct coll_round *r, const char *a, uint64_t n)
{
    for (unsigned j = 0; j < r->n; j++) {
        const struct coll_xfer *y = &r->x[j];
        if (y->send || y->bytes == 0) continue;
        const char *b = mpcr_type_flat_data(y->rbuf, y->count, y->t);
        if (!b || (a < b + y->bytes && b < a + n)) return 1;
    }
    return 0;
}

/* Whether x's data moves through a shared buffer (a large contiguous one:
 * shared_buffers.c), named by *offset. A send shares only when no receive
 * of the same round lands on its data: the proxy posts the receives first,
 * and a message arriving could overwrite it before it is sent (with the
 * staging area it is copied first). */
static int shared(const struct coll_round *r, const struct coll_xfer *x, uint64_t *offset)
{
    const char *flat = mpcr_type_flat_data(x->send ? x->sbuf : x->rbuf, x->count, x->t);
    if (!flat) return 0;
    if (!x->send) return mpcr_share_recv((void *)flat, x->bytes, offset);
    return !received_into(r, flat, x->bytes) && mpcr_share_send(flat, x->bytes, offset);
}

int round_run(struct coll_round *r)
{
    unsigned n = r->n;
    int err = r->err;
    if (err || n == 0) {
        r->n = 0;
        return err;
    }
    /* The operation records first, then the data of each one that is not
     * in a shared buffer. */
    uint64_t total = (uint64_t)n * sizeof(struct mpcr_batch_op), at[MPCR_BATCH_MAX], off;
    unsigned char in_share[MPCR_BATCH_MAX];
    for (unsigned i = 0; i < n; i++) {
        in_share[i] = (unsigned char)shared(r, &r->x[i], &at[i]);
        if (in_share[i]) continue;
        at[i] = total;
        if (__builtin_add_overflow(total, aligned(r->x[i].bytes), &total)) {
            err = MPI_ERR_COUNT;
            break;
        }
    }
    r->n = 0;
    if (!err) err = mpcr_staging_alloc(total, &off);
    if (err) {
        for (unsigned i = 0; i < n; i++)
            if (in_share[i]) mpcr_staging_free(at[i]);
        return err;
    }
    char *base = mpcr_staging_ptr(off); /* the area may have moved: only now */
    struct mpcr_batch_op *ops = (struct mpcr_batch_op *)base;
    for (unsigned i = 0; i < n; i++) {
        const struct coll_xfer *x = &r->x[i];
        if (x->send && !in_share[i]) mpcr_pack(base + at[i], x->sbuf, x->count, x->t);
        ops[i] = (struct mpcr_batch_op){.op = x->send ? MPCR_OP_SEND : MPCR_OP_RECV,
                                        .comm = r->k->ctx,
                                        .peer = x->peer,
                                        .tag = r->k->tag + x->phase,
                                        .offset = in_share[i] ? at[i] : off + at[i],
                                        .bytes = x->bytes};
    }
    err = mpcr_coll_batch(off, n);
    base = mpcr_staging_ptr(off);
    ops = (struct mpcr_batch_op *)base;
    for (unsigned i = 0; i < n; i++) {
        struct coll_xfer *x = &r->x[i];
        if (!err && ops[i].rc) err = ops[i].rc;
        if (!x->send && ops[i].done && !ops[i].rc) {
            x->got = ops[i].rbytes < x->bytes ? ops[i].rbytes : x->bytes;
            if (in_share[i])
                mpcr_share_received(at[i], x->got);
            else
                mpcr_unpack(x->rbuf, base + at[i], x->got, x->t);
        }
        if (in_share[i]) mpcr_staging_free(at[i]);
    }
    mpcr_staging_free(off);
    return err;
}

int coll_sendrecv(const struct coll *k, int phase, int to, const void *sbuf, MPI_Count scount,
                  const struct mpcr_type *st, int from, void *rbuf, MPI_Count rcount,
                  const struct mpcr_type *rt)
{
    struct coll_round r;
    round_init(&r, k);
    if (from != MPI_PROC_NULL) round_recv(&r, from, phase, rbuf, rcount, rt);
    if (to != MPI_PROC_NULL) round_send(&r, to, phase, sbuf, scount, st);
    return round_run(&r);
}

int coll_copy(const void *src, MPI_Count count, const struct mpcr_type *st, void *dst,
              MPI_Count rcount, const struct mpcr_type *rt)
{
    uint64_t bytes, room;
    if (coll_span(count, (uint64_t)st->size, &bytes) ||
        coll_span(rcount, (uint64_t)rt->size, &room))
        return MPI_ERR_COUNT;
    if (bytes > room) return MPI_ERR_TRUNCATE;
    if (bytes == 0) return MPI_SUCCESS;
    if (bytes > SIZE_MAX - 128) return MPI_ERR_NO_MEM;
    /* Both one range of bytes (the common case): one copy, not two through
     * a temporary (an Allgather's own block, 64 KiB: a sixth of its time) */
    const void *from = mpcr_type_flat_data(src, count, st);
    void *to = (void *)mpcr_type_flat_data(dst, rcount, rt);
    if (from && to) {
        memmove(to, from, (size_t)bytes);
        return MPI_SUCCESS;
    }
    void *tmp = coll_scratch_get((size_t)bytes);
    if (!tmp) return MPI_ERR_NO_MEM;
    mpcr_pack(tmp, src, count, st);
    mpcr_unpack(dst, tmp, bytes, rt);
    coll_scratch_put(tmp);
    return MPI_SUCCESS;
}

int coll_check_used(MPI_Count scount, const struct mpcr_type *st, MPI_Count rcount,
                    const struct mpcr_type *rt, int send_used, int recv_used)
{
    if ((send_used && scount < 0) || (recv_used && rcount < 0)) return MPI_ERR_COUNT;
    if ((send_used && !st) || (recv_used && !rt)) return MPI_ERR_TYPE;
    return MPI_SUCCESS;
}
