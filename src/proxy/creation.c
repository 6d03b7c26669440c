/* See creation.h. */
#include "creation.h"
#include "cache.h"
#include "proxy.h"
#include "record.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tag of "entered" messages, on the parent's collective context, where
 * the library's own collectives use small tags (coll.c). MPI guarantees tags
 * up to 32767 everywhere. */
#define TAG_ENTERED 32766

enum { CR_NONE, CR_ENTERED, CR_DONE };

static struct {
    uint32_t state, op; /* MPCR_OP_COMM_DUP or MPCR_OP_COMM_SPLIT */
    uint32_t parent, new_id;
    int32_t color, key;
    int32_t rc, member, rank, size; /* CR_DONE: the answer (rc in mpcr's ABI) */
    uint32_t nparent;
    uint8_t *entered; /* per rank of the parent: its "entered" message is in (ours: set) */
} cr;

static void clear(void)
{
    free(cr.entered);
    memset(&cr, 0, sizeof cr);
}

static int my_rank_in(uint32_t comm)
{
    int r = -1;
    MPI_Comm_rank(real_comm(comm), &r);
    return r;
}

/* Enters: says so to every other member. The sends complete by themselves
 * (empty messages; a checkpoint's drain receives those still in flight). */
static int enter(const struct mpcr_call *c)
{
    int size = map_comm_size(c->comm), me = my_rank_in(c->comm);
    uint8_t *entered = calloc((size_t)size, 1);
    if (!entered) return MPI_ERR_NO_MEM;
    cr = (typeof(cr)){CR_ENTERED, c->op, c->comm, c->token, c->peer, c->tag, 0, 0, 0, 0,
                      (uint32_t)size, entered};
    cr.entered[me] = 1;
    MPI_Comm coll = real_comm(c->comm | MPCR_COLL_CONTEXT);
    for (int m = 0; m < size; m++) {
        if (m == me) continue;
        MPI_Request req;
        int rc = MPI_Isend(NULL, 0, MPI_BYTE, m, TAG_ENTERED, coll, &req);
        if (rc != MPI_SUCCESS) return rc; /* the job cannot go on consistently: reported */
        MPI_Request_free(&req);
        proxy.sent++;
    }
    return MPI_SUCCESS;
}

/* Takes every "entered" message that is in (drain cache first: it holds
 * what a drain took, and each member's messages arrive in the order sent,
 * so the one taken is this creation's). Returns 1 once all are in. */
static int collect(void)
{
    uint32_t coll_id = cr.parent | MPCR_COLL_CONTEXT, missing = 0;
    MPI_Comm coll = real_comm(coll_id);
    for (uint32_t m = 0; m < cr.nparent; m++) {
        if (cr.entered[m]) continue;
        int k = cache_find(coll_id, (int32_t)m, TAG_ENTERED);
        if (k >= 0) {
            struct req_status s;
            cache_take(k, NULL, 0, &s);
            cr.entered[m] = 1;
            continue;
        }
        int flag = 0;
        MPI_Message msg;
        MPI_Status st;
        if (MPI_Improbe((int)m, TAG_ENTERED, coll, &flag, &msg, &st) == MPI_SUCCESS && flag) {
            MPI_Mrecv(NULL, 0, MPI_BYTE, &msg, &st);
            proxy.received++;
            cr.entered[m] = 1;
            continue;
        }
        missing++;
    }
    return missing == 0;
}

/* Every member has entered: each makes the real call now, so it returns. */
static void create(void)
{
    int rc;
    if (cr.op == MPCR_OP_COMM_DUP) {
        rc = comm_dup(cr.parent, cr.new_id);
        cr.member = rc == MPI_SUCCESS;
    } else {
        int member = 0, rank = 0, size = 0;
        rc = comm_split(cr.parent, cr.color, cr.key, cr.new_id, &member, &rank, &size);
        cr.member = member, cr.rank = rank, cr.size = size;
    }
    cr.rc = error_class(rc);
    cr.state = CR_DONE;
}

static void answer(struct mpcr_reply *r)
{
    r->rc = cr.rc;
    r->flag = cr.member;
    r->value = cr.rank;
    r->source = cr.size;
    clear();
}

int creation_serve(const struct mpcr_call *c, struct mpcr_reply *r)
{
    if (cr.state != CR_NONE && cr.new_id != c->token) {
        /* Another creation was left unanswered: the program cannot have
         * moved on without its answer. */
        mpcr_report("rank %d: a communicator creation (id %u) was left unanswered; ending the job",
                    proxy.rank, cr.new_id);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (cr.state == CR_NONE) {
        int rc = enter(c);
        if (rc != MPI_SUCCESS) {
            clear();
            r->rc = error_class(rc);
            return 0;
        }
    }
    for (;;) {
        if (cr.state == CR_ENTERED && collect()) create();
        if (cr.state == CR_DONE) {
            answer(r);
            return 0;
        }
        if (child_exited) child_ended();
        if (ckpt_poll()) return 1; /* the drain goes on with creation_progress */
    }
}

int creation_is_done(uint32_t id)
{
    return cr.state == CR_DONE && cr.new_id == id;
}

void creation_progress(void)
{
    if (cr.state == CR_ENTERED && collect()) create();
}

/* ---- the state file's part ---- */

struct saved {
    uint32_t state, op, parent, new_id;
    int32_t color, key, rc, member, rank, size;
    uint32_t nparent, zero;
};

static size_t padded(size_t n)
{
    return (n + 7) / 8 * 8;
}

void *creation_save(size_t *len)
{
    size_t n = padded(sizeof(struct saved) + (cr.state ? cr.nparent : 0));
    char *buf = calloc(1, n);
    if (!buf) return NULL;
    struct saved s = {cr.state, cr.op,     cr.parent, cr.new_id, cr.color, cr.key, cr.rc,
                      cr.member, cr.rank,  cr.size,   cr.state ? cr.nparent : 0, 0};
    memcpy(buf, &s, sizeof s);
    if (cr.state) memcpy(buf + sizeof s, cr.entered, cr.nparent);
    *len = n;
    return buf;
}

size_t creation_saved_size(const void *buf, size_t len)
{
    struct saved s;
    if (len < sizeof s) return 0;
    memcpy(&s, buf, sizeof s);
    size_t n = padded(sizeof s + (size_t)s.nparent);
    return s.nparent <= (1u << 24) && n <= len ? n : 0;
}

int creation_load(const void *buf, size_t len, char *err, size_t cap)
{
    struct saved s;
    if (len < sizeof s) return snprintf(err, cap, "its creation record is truncated"), -1;
    memcpy(&s, buf, sizeof s);
    if (s.state == CR_NONE) return 0;
    int size = map_comm_size(s.parent);
    if (s.state > CR_DONE || (s.op != MPCR_OP_COMM_DUP && s.op != MPCR_OP_COMM_SPLIT) ||
        s.nparent != (uint32_t)size || len != padded(sizeof s + s.nparent) || size == 0)
        return snprintf(err, cap, "its creation record is damaged"), -1;
    uint8_t *entered = malloc(s.nparent);
    if (!entered) return snprintf(err, cap, "out of memory"), -1;
    memcpy(entered, (const char *)buf + sizeof s, s.nparent);
    cr = (typeof(cr)){s.state, s.op,     s.parent, s.new_id, s.color, s.key,
                      s.rc,    s.member, s.rank,   s.size,   s.nparent, entered};
    return 0;
}
