/* See idup.h. */
#include "idup.h"
#include "creation.h"
#include "entered.h"
#include "ckpt.h"
#include "proxy.h"
#include "record.h"
#include "report.h"
#include "requests.h"
#include "resource.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ID_ENTERED, ID_UNDER_WAY, ID_ENDED };

/* Duplicates of different parents run side by side, in any order (MPI
 * lets a program begin them in different orders on different ranks:
 * MPICH's comm_idup_overlap). Open MPI 4.1 orders its own allocations of
 * communicator ids by the parent's id, so they end. This proxy once made
 * each rank's duplicates wait for all its older ones under Open MPI (for a
 * hang seen with tests/ckpt/ckpt_idup.c when this file was new), and such a
 * program never ended there; without that rule the hang did not come back
 * in 16 checkpointed runs of ckpt_idup on Open MPI's proxy (2026-12-07). */

/* One pending duplicate. Its own allocation: the real MPI writes the new
 * communicators and requests here when they complete. */
struct idup {
    uint32_t state, parent, new_id;
    uint32_t token; /* its request entry; 0: the program let it go */
    uint32_t nparent;
    uint8_t *entered; /* nparent of them (entered.h) */
    MPI_Comm comm, coll;
    MPI_Request real[3];
    uint64_t share, key; /* the creation key's agreement (record.h) */
};

/* In the order the program began them. */
static struct idup **list;
static uint32_t count, cap;

static void destroy(struct idup *e)
{
    free(e->entered);
    free(e);
}

static int append(struct idup *e)
{
    if (grow_array(&list, &cap, count, 8, sizeof *list)) return MPI_ERR_NO_MEM;
    list[count++] = e;
    return MPI_SUCCESS;
}

static struct idup *entry_new(uint32_t parent, uint32_t new_id, uint32_t token, uint32_t n)
{
    struct idup *e = calloc(1, sizeof *e);
    if (!e || !(e->entered = calloc(n ? n : 1, 1))) {
        free(e);
        return NULL;
    }
    e->state = ID_ENTERED, e->parent = parent, e->new_id = new_id, e->token = token;
    e->nparent = n;
    e->comm = e->coll = MPI_COMM_NULL;
    e->real[0] = e->real[1] = e->real[2] = MPI_REQUEST_NULL;
    return e;
}

void idup_start(const struct mpcr_call *c, struct mpcr_reply *r)
{
    int size = map_comm_size(c->comm), me = -1;
    MPI_Comm_rank(real_comm(c->comm), &me);
    struct req *q = req_new(&r->token);
    struct idup *e = q ? entry_new(c->comm, c->token, r->token, (uint32_t)size) : NULL;
    if (!e || append(e) != MPI_SUCCESS) {
        if (e) destroy(e);
        if (q) req_release(q);
        r->token = 0;
        r->rc = error_class(MPI_ERR_NO_MEM);
        return;
    }
    q->kind = REQ_IDUP, q->comm = c->comm;
    e->entered[me] = ENTERED_IN;
    int rc = entered_announce(c->comm, ENTERED_TAG_IDUP, &entered_key_ordered, e->entered, e->nparent);
    if (rc != MPI_SUCCESS) { /* the other members cannot go on consistently */
        mpcr_report("rank %d: MPI_Comm_idup could not tell the other members (MPI error %d); "
                    "ending the job", proxy.rank, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    r->rc = MPI_SUCCESS;
}

/* Whether a duplicate on parent older than self still waits for rank m's
 * "entered" message (entered.h's entered_older_fn). */
static int idup_waits_for(uint32_t parent, uint32_t m, const void *self)
{
    for (uint32_t i = 0; i < count && list[i] != self; i++)
        if (list[i]->parent == parent && list[i]->state == ID_ENTERED &&
            list[i]->entered[m] == ENTERED_MISSING)
            return 1;
    return 0;
}

int idup_pending_on(uint32_t parent)
{
    for (uint32_t i = 0; i < count; i++)
        if (list[i]->parent == parent && list[i]->state != ID_ENDED) return 1;
    return 0;
}

int idup_holds(uint32_t id)
{
    for (uint32_t i = 0; i < count; i++)
        if (list[i]->new_id == id) return 1;
    return 0;
}

int idup_requested(uint32_t token)
{
    for (uint32_t i = 0; token && i < count; i++)
        if (list[i]->token == token) return 1;
    return 0;
}

void idup_forget(uint32_t token)
{
    for (uint32_t i = 0; i < count; i++)
        if (list[i]->token == token) list[i]->token = 0;
}

/* The duplicate ended (made and recorded, or failed with rc): its request
 * completes with an empty status. The entry leaves the list afterwards
 * (idup_progress). Returns 1. */
static int finish(struct idup *e, int rc)
{
    struct req *q = e->token ? req_get(e->token) : NULL;
    if (q && q->kind == REQ_IDUP) {
        MPI_Status st = {0};
        st.MPI_SOURCE = MPI_ANY_SOURCE, st.MPI_TAG = MPI_ANY_TAG;
        req_status_from(&q->done, rc, &st);
        q->done.bytes = 0;
        q->state = REQ_DONE;
    }
    if (rc != MPI_SUCCESS) {
        if (e->coll != MPI_COMM_NULL) MPI_Comm_free(&e->coll);
        if (e->comm != MPI_COMM_NULL) MPI_Comm_free(&e->comm);
    }
    e->state = ID_ENDED;
    return 1;
}

/* One look at e; 1 when it has ended. Once every member has entered, three
 * non-blocking collectives on the parent at once: its duplicate, the
 * duplicate's collective context, and the agreement on its creation key.
 * One duplicate of a parent at a time, in the program's order (an older one
 * has ended first), so every member begins the same collectives on it in
 * the same order, and each at the same point of the others': Open MPI 4.1
 * aborts non-blocking duplicates of one communicator whose progress
 * interleaves differently on two ranks (seen natively: "NBC_Progress: an
 * error 15"), and so would a duplicate of the new communicator begun when
 * each rank saw it complete. */
static int step(struct idup *e)
{
    int flag = 0, rc;
    MPI_Status st[3];
    switch (e->state) {
    case ID_ENTERED:
        if (!entered_collect(e->parent, ENTERED_TAG_IDUP, ENTERED_KEY_ORDERED, e->entered, e->nparent, idup_waits_for, e))
            return 0;
        for (uint32_t i = 0; i < count && list[i] != e; i++)
            if (list[i]->parent == e->parent && list[i]->state != ID_ENDED)
                return 0;
        /* Not beside a blocking creation's real call in a thread of its own
         * (creation.h): MPICH 4.0.2's MPI_Comm_idup, while another thread of
         * the process is inside a context id's allocation, retried its own
         * agreement round after round inside the call, holding MPICH's lock
         * that the other thread needed to end, and allocating each round
         * (MPICH's threads/comm/comm_create_group_threads, whose
         * MPI_Comm_dup of MPI_COMM_SELF is a duplicate waited for here: a
         * proxy grew by 1 GB/s until the kernel killed it). That call only
         * needs its members to have entered, so it ends, and this begins. */
        if (creation_running()) return 0;
        MPI_Comm parent = real_comm(e->parent);
        e->share = record_key_share();
        rc = MPI_Comm_idup(parent, &e->comm, &e->real[0]);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_idup(parent, &e->coll, &e->real[1]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Iallreduce(&e->share, &e->key, 1, MPI_UINT64_T, MPI_MAX, parent, &e->real[2]);
        if (rc != MPI_SUCCESS) return finish(e, rc); /* a member's failure: the job's end (MPI) */
        e->state = ID_UNDER_WAY;
        return 0;
    case ID_UNDER_WAY:
        rc = MPI_Testall(3, e->real, &flag, st);
        if (rc != MPI_SUCCESS) return finish(e, rc);
        if (!flag) return 0;
        rc = record_made(e->new_id, e->comm, e->coll, e->key);
        e->comm = e->coll = MPI_COMM_NULL; /* the record's now, or freed by it */
        return finish(e, rc);
    default:
        return 1;
    }
}

void idup_progress(void)
{
    if (!count) return;
    int ended = 0;
    for (uint32_t i = 0; i < count; i++)
        ended |= step(list[i]);
    if (!ended) return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++)
        if (list[i]->state == ID_ENDED)
            destroy(list[i]);
        else
            list[kept++] = list[i];
    count = kept;
}

/* Whether e has every member's "entered" message (then all members finish it). */
static int all_in(struct idup *e)
{
    return e->state != ID_ENTERED ||
           entered_collect(e->parent, ENTERED_TAG_IDUP, ENTERED_KEY_ORDERED, e->entered, e->nparent, idup_waits_for, e);
}

/* Whether list[i] will end before the image: it is under way, or every
 * member has entered it and each older one it waits for (step) will end
 * too. One that waits for an older duplicate of its parent a member has
 * not entered yet stays as it is, although all members have entered it;
 * every member of it makes the same choice (each began its duplicates of
 * one parent in the program's order). */
static int will_end(uint32_t i, const uint8_t *ends)
{
    struct idup *e = list[i];
    if (e->state == ID_ENDED) return 0;
    if (e->state == ID_UNDER_WAY) return 1;
    if (!all_in(e)) return 0;
    for (uint32_t k = 0; k < i; k++)
        if (list[k]->parent == e->parent && list[k]->state != ID_ENDED && !ends[k])
            return 0;
    return 1;
}

/* What the settling waits for, said once when it lasts (settle_overdue). */
static void report_waiting(const uint8_t *ends)
{
    for (uint32_t i = 0; i < count; i++) {
        const struct idup *e = list[i];
        if (!ends[i]) continue;
        char who[64];
        entered_missing(e->entered, e->nparent, who, sizeof who);
        mpcr_report("rank %d: before its image, still waiting for MPI_Comm_idup of communicator %u "
                    "(%s; members missing:%s)",
                    proxy.rank, e->parent, e->state == ID_UNDER_WAY ? "under way in the real MPI" : "begun",
                    *who ? who : " none");
    }
}

static void settle(void)
{
    uint64_t since = 0;
    for (;;) {
        /* Blocking creations whose members have all entered begin here
         * too: a duplicate waits for this rank's real creation calls to
         * end (step), and one of them for a member that would otherwise
         * begin its own only after its duplicates have settled. */
        creation_progress();
        idup_progress();
        uint8_t ends[count ? count : 1];
        int busy = 0;
        for (uint32_t i = 0; i < count; i++)
            busy |= ends[i] = (uint8_t)will_end(i, ends);
        if (!busy) return;
        if (ckpt_settle_overdue(&since)) report_waiting(ends);
        if (child_exited) child_ended();
    }
}

/* ---- the state file's part: u32 count, then for each (all ID_ENTERED)
 * { u32 parent, new_id, token, nparent; nparent bytes (entered) } padded to 8 ---- */

struct saved {
    uint32_t parent, new_id, token, nparent;
};

static int save(struct section *out, char *err, size_t cap)
{
    (void)err, (void)cap; /* only memory can fail: the caller's reason */
    if (section_put_count(out, count)) return -1;
    for (uint32_t i = 0; i < count; i++) {
        const struct idup *e = list[i];
        struct saved s = {e->parent, e->new_id, e->token, e->nparent};
        if (section_put(out, &s, sizeof s) || section_put(out, e->entered, e->nparent) ||
            section_align(out))
            return -1;
    }
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t n;
    if (section_get_count(&in, &n)) goto damaged;
    for (uint32_t i = 0; i < n; i++) {
        struct saved s;
        const void *entered;
        if (section_get(&in, &s, sizeof s) || s.nparent > (1u << 24) ||
            !(entered = section_take(&in, s.nparent)) || section_skip_align(&in))
            goto damaged;
        int size = map_comm_size(s.parent);
        if (!size || (uint32_t)size != s.nparent || (s.parent & MPCR_COLL_CONTEXT) ||
            !map_comm_id_free(s.new_id) || idup_holds(s.new_id))
            goto damaged;
        struct idup *e = entry_new(s.parent, s.new_id, s.token, s.nparent);
        if (!e || append(e) != MPI_SUCCESS) {
            if (e) destroy(e);
            return snprintf(err, cap, "out of memory"), -1;
        }
        memcpy(e->entered, entered, s.nparent);
        for (uint32_t m = 0; m < s.nparent; m++)
            if (e->entered[m] > ENTERED_NOT_TAKING_PART) goto damaged;
    }
    if (in.p == in.end) return 0;
damaged:
    return snprintf(err, cap, "its pending MPI_Comm_idup record is damaged"), -1;
}

const struct proxy_resource resource_idups = {
    .name = "idups",
    .version = 1,
    .poll = idup_progress,
    .settle = settle,
    .save = save,
    .load = load,
};
