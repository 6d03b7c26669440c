/* See requests.h. */
#include "proxy.h"
#include "report.h"
#include "requests.h"
#include "shared.h"
#include "cache.h"
#include "idup.h"
#include "resource.h"
#include "stats.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct req *reqs;
uint32_t nreqs;
/* One past the highest slot that is not free: the scans for active requests
 * stop there, so a table grown by a burst of requests and freed again
 * costs nothing per call (the proxy asks at every wait: main.c). */
static uint32_t top;
static uint64_t posting_clock;

struct req *req_get(uint32_t token)
{
    if (token < 1 || token > nreqs || reqs[token - 1].state == REQ_FREE) return NULL;
    return &reqs[token - 1];
}

static int req_table_reserve(uint32_t n);
static void req_slot_used(uint32_t token);

struct req *req_new(uint32_t *token)
{
    uint32_t i = 0;
    while (i < nreqs && reqs[i].state != REQ_FREE)
        i++;
    if (i == nreqs && req_table_reserve(nreqs ? 2 * nreqs : 64)) return NULL;
    reqs[i] = (struct req){.state = REQ_ACTIVE, .real = MPI_REQUEST_NULL};
    req_slot_used(i + 1);
    *token = i + 1;
    return &reqs[i];
}

static int req_table_reserve(uint32_t n)
{
    if (n <= nreqs) return 0;
    struct req *t = realloc(reqs, n * sizeof *t);
    if (!t) return -1;
    for (uint32_t j = nreqs; j < n; j++)
        t[j] = (struct req){.state = REQ_FREE, .real = MPI_REQUEST_NULL};
    reqs = t, nreqs = n;
    return 0;
}

/* Slot `token` is in use. */
static void req_slot_used(uint32_t token)
{
    if (token > top) top = token;
}

void req_release(struct req *q)
{
    q->state = REQ_FREE;
    q->real = MPI_REQUEST_NULL;
    while (top && reqs[top - 1].state == REQ_FREE)
        top--;
}

void req_status_from(struct req_status *s, int rc, const MPI_Status *st)
{
    s->rc = error_class(rc);
    s->source = neutral_source(st->MPI_SOURCE);
    s->tag = neutral_tag(st->MPI_TAG);
    /* On truncation MPI leaves the buffer's contents undefined (MPICH writes
     * nothing): deliver no bytes rather than stale staging contents. */
    s->bytes = s->rc == MPI_ERR_TRUNCATE ? 0 : status_bytes(st);
}

int req_start_send(struct req *q, int sync)
{
    q->kind = REQ_SEND;
    q->posted = ++posting_clock;
    int rc = real_isend(sync, q->comm, q->peer, q->tag, q->offset, q->bytes, &q->real);
    if (rc == MPI_SUCCESS) proxy.sent++;
    return rc;
}

int req_post_recv(struct req *q)
{
    q->kind = REQ_RECV;
    q->posted = ++posting_clock;
    int i = cache_find(q->comm, q->peer, q->tag);
    if (i >= 0) {
        cache_take(i, staging(q->offset), q->bytes, &q->done);
        q->state = REQ_DONE;
        return MPI_SUCCESS;
    }
    q->state = REQ_ACTIVE;
    return real_irecv(q->comm, q->peer, q->tag, q->offset, q->bytes, &q->real);
}

/* A real request of entry q completed with (rc, st). */
static void finished(struct req *q, int rc, const MPI_Status *st)
{
    req_status_from(&q->done, rc, st);
    if (q->kind == REQ_RECV && took_message(rc)) proxy.received++;
    q->state = REQ_DONE;
    q->real = MPI_REQUEST_NULL;
}

int req_test(struct req *q)
{
    if (q->kind == REQ_IDUP) idup_progress();
    if (q->state != REQ_ACTIVE || q->kind == REQ_IDUP) return MPI_SUCCESS;
    int flag = 0;
    MPI_Status st;
    int rc = MPI_Test(&q->real, &flag, &st);
    if (flag || rc != MPI_SUCCESS) finished(q, rc, &st);
    return MPI_SUCCESS;
}

int req_progress(const uint32_t *tokens, uint32_t ntokens)
{
    static MPI_Request *real;
    static uint32_t *which;
    static int *idx;
    static MPI_Status *sts;
    static uint32_t cap;
    if (cap < nreqs) {
        free(real), free(which), free(idx), free(sts);
        real = malloc(nreqs * sizeof *real), which = malloc(nreqs * sizeof *which);
        idx = malloc(nreqs * sizeof *idx), sts = malloc(nreqs * sizeof *sts);
        if (!real || !which || !idx || !sts) {
            mpcr_report("rank %d: the proxy is out of memory", proxy.rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        cap = nreqs;
    }
    idup_progress();
    int n = 0, got = 0;
    for (uint32_t k = 0, all = !tokens, end = all ? top : ntokens; k < end; k++) {
        uint32_t i = all ? k : tokens[k] - 1; /* token 0 (none) wraps past nreqs */
        if (i < nreqs && reqs[i].state == REQ_ACTIVE && reqs[i].kind != REQ_IDUP && n < (int)nreqs)
            real[n] = reqs[i].real, which[n++] = i;
    }
    if (!n) return MPI_SUCCESS;
    int rc = MPI_Testsome(n, real, &got, idx, sts);
    if (got == MPI_UNDEFINED) got = 0;
    for (int k = 0; k < got; k++) {
        int err = rc == MPI_ERR_IN_STATUS ? sts[k].MPI_ERROR : rc;
        finished(&reqs[which[idx[k]]], err, &sts[k]);
    }
    return rc == MPI_ERR_IN_STATUS ? MPI_SUCCESS : rc;
}

static uint32_t count_active(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < top; i++)
        n += reqs[i].state == REQ_ACTIVE && reqs[i].kind != REQ_IDUP;
    return n;
}

int req_progress_idle(void)
{
    uint32_t before = count_active();
    if (!before) return -1;
    req_progress(NULL, 0);
    return (int)(before - count_active());
}

/* Whether an active request is of `kind` (or, with `other_than`, of any
 * other kind). */
static int any_active(enum req_kind kind, int other_than)
{
    for (uint32_t i = 0; i < top; i++)
        if (reqs[i].state == REQ_ACTIVE && (reqs[i].kind == kind) != other_than) return 1;
    return 0;
}

int req_sending(void)
{
    return any_active(REQ_SEND, 0);
}

int req_pending(void)
{
    return any_active(REQ_IDUP, 1);
}

static int cancel_active(struct req *q);

static void settle(void)
{
    for (;;) { /* sends: every message has been received, so each completes */
        req_progress(NULL, 0);
        if (!req_sending()) break;
        if (child_exited) child_ended();
    }
    for (uint32_t i = 0; i < nreqs; i++) {
        struct req *q = &reqs[i];
        if (q->state == REQ_ACTIVE && q->kind != REQ_IDUP && cancel_active(q)) {
            q->state = REQ_REPOST;
            q->real = MPI_REQUEST_NULL;
        }
    }
}

/* Cancels the real request of an active entry. Returns 1 when it was
 * cancelled; otherwise it completed (a receive matched meanwhile) and the
 * entry is REQ_DONE with the real call's result, as any completion. */
static int cancel_active(struct req *q)
{
    MPI_Status st;
    int cancelled = 0;
    MPI_Cancel(&q->real);
    int rc = MPI_Wait(&q->real, &st);
    if (rc == MPI_SUCCESS) MPI_Test_cancelled(&st, &cancelled);
    if (!cancelled) finished(q, rc, &st);
    return cancelled;
}

int req_cancel(struct req *q)
{
    if (q->kind != REQ_RECV || q->state != REQ_ACTIVE || !cancel_active(q)) return 0;
    req_release(q);
    return 1;
}

void req_withdraw(struct req *q)
{
    if (q->kind == REQ_IDUP) idup_forget((uint32_t)(q - reqs) + 1);
    else if (q->state == REQ_ACTIVE) cancel_active(q);
    req_release(q);
}

/* Receives go back in the order they were first posted: two that match the
 * same message must see it go to the earlier one, as before. */
static int by_posting(const void *a, const void *b)
{
    const struct req *x = &reqs[*(const uint32_t *)a], *y = &reqs[*(const uint32_t *)b];
    return x->posted < y->posted ? -1 : x->posted > y->posted;
}

static void repost_all(void)
{
    uint32_t n = 0, *order = malloc((nreqs + 1) * sizeof *order);
    if (!order) {
        mpcr_report("rank %d: the proxy is out of memory", proxy.rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (uint32_t i = 0; i < nreqs; i++)
        if (reqs[i].state == REQ_REPOST) order[n++] = i;
    qsort(order, n, sizeof *order, by_posting);
    for (uint32_t k = 0; k < n; k++) {
        struct req *q = &reqs[order[k]];
        uint64_t keep = q->posted;
        /* its data's place: a shared buffer the restarted program could not
         * hand over (src/lib/runtime/shared_buffers.c) is none */
        int rc = in_staging(q->offset, q->bytes) || in_shared(q->offset, q->bytes) ? req_post_recv(q)
                                                                                   : MPI_ERR_BUFFER;
        stats_count(STAT_REPOSTED);
        q->posted = keep;
        if (rc != MPI_SUCCESS) {
            MPI_Status st = {0};
            st.MPI_SOURCE = MPI_ANY_SOURCE, st.MPI_TAG = MPI_ANY_TAG;
            req_status_from(&q->done, rc, &st);
            q->state = REQ_DONE;
        }
    }
    for (uint32_t i = 0; i < nreqs; i++)
        if (reqs[i].posted > posting_clock) posting_clock = reqs[i].posted;
    free(order);
}

/* ---- the state file's section: u32 count, u32 0, then count x struct
 * saved_req (the slots that are not free, with their token) ---- */

struct saved_req {
    uint32_t token;
    uint8_t state, kind, pad[2];
    uint32_t comm;
    int32_t peer, tag;
    uint64_t offset, bytes, posted;
    struct req_status done;
};
_Static_assert(sizeof(struct saved_req) == 72, "a saved request's layout changed: bump its section's version");

/* Tokens index the table, sized by the largest one on a restart: a bound
 * keeps a hostile token from asking for gigabytes. One million requests
 * pending at once in one rank is far beyond real programs; a checkpoint
 * above it is refused, so that what is written is read. */
#define MAX_TOKEN (1u << 20)

static int save(struct section *out, char *err, size_t cap)
{
    uint32_t used = 0;
    for (uint32_t i = 0; i < nreqs; i++) {
        if (reqs[i].state == REQ_FREE) continue;
        if (i >= MAX_TOKEN)
            return snprintf(err, cap, "request %u is pending, beyond the %u pending requests a "
                            "checkpoint can hold", i + 1, MAX_TOKEN), -1;
        used++;
    }
    if (section_put_count(out, used)) return -1;
    for (uint32_t i = 0; i < nreqs; i++) {
        const struct req *q = &reqs[i];
        if (q->state == REQ_FREE) continue;
        struct saved_req s = {i + 1,  q->state,  q->kind,  {0},       q->comm, q->peer,
                              q->tag, q->offset, q->bytes, q->posted, q->done};
        if (section_put(out, &s, sizeof s)) return -1;
    }
    return 0;
}

/* One saved request into its slot. 0, or -1 with a reason in err. */
static int load_one(const struct saved_req *s, char *err, size_t cap)
{
    if (s->token == 0 || s->token > MAX_TOKEN)
        return snprintf(err, cap, "request token %u is outside 1..%u", s->token, MAX_TOKEN), -1;
    if (req_table_reserve(s->token) || reqs[s->token - 1].state != REQ_FREE)
        return snprintf(err, cap, "request token %u %s", s->token,
                        s->token <= nreqs ? "appears twice (damaged)" : "cannot be reserved (out of memory)"),
               -1;
    /* Sends complete and receives are cancelled before an image; only a
     * duplicate not yet entered by all its members is still active. */
    if (s->kind > REQ_IDUP || s->state == REQ_FREE || s->state > REQ_REPOST ||
        (s->state == REQ_ACTIVE && (s->kind != REQ_IDUP || !idup_requested(s->token))))
        return snprintf(err, cap, "request token %u: a request in state %u of kind %u cannot have "
                        "been saved (damaged)", s->token, s->state, s->kind),
               -1;
    reqs[s->token - 1] = (struct req){s->state,  s->kind,  s->comm,   s->peer, s->tag,
                                      s->offset, s->bytes, s->posted, s->done, MPI_REQUEST_NULL};
    req_slot_used(s->token);
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t n;
    if (section_get_count(&in, &n)) return snprintf(err, cap, "%zu bytes, too short for its count (damaged)", len), -1;
    if (n > MAX_TOKEN || (size_t)(in.end - in.p) != (size_t)n * sizeof(struct saved_req))
        return snprintf(err, cap, "it counts %u requests in %zu bytes (damaged)", n, len), -1;
    for (uint32_t i = 0; i < n; i++) {
        struct saved_req s;
        if (section_get(&in, &s, sizeof s) || load_one(&s, err, cap)) return -1;
    }
    return 0;
}

static void progress_all(void)
{
    req_progress(NULL, 0);
}

const struct proxy_resource resource_requests = {
    .name = "requests",
    .version = 1,
    .drain = progress_all, /* sends complete as their receivers drain */
    .settle = settle,
    .save = save,
    .load = load,
    .resume = repost_all,
};
