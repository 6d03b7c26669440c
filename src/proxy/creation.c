/* See creation.h. */
#include "creation.h"
#include "entered.h"
#include "idup.h"
#include "proxy.h"
#include "record.h"
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CR_NONE, CR_ENTERED, CR_DONE };
enum { ABI_COMM_TYPE_SHARED = 1 }; /* MPICH's value, mpcr's ABI */

static struct {
    uint32_t state, op; /* MPCR_OP_COMM_DUP, _SPLIT, _SPLIT_TYPE or _CREATE_GROUP */
    uint32_t parent, new_id;
    int32_t color, key; /* SPLIT_TYPE: the type in color; CREATE_GROUP: the tag in key */
    int32_t rc, member, rank, size; /* CR_DONE: the answer (rc in mpcr's ABI) */
    uint32_t nparent;
    uint8_t *entered; /* nparent of them */
    uint32_t ngroup;
    int32_t *group; /* CREATE_GROUP: the group, as ranks of the parent */
} cr;

static void clear(void)
{
    free(cr.entered);
    free(cr.group);
    memset(&cr, 0, sizeof cr);
}

static int my_rank_in(uint32_t comm)
{
    int r = -1;
    MPI_Comm_rank(real_comm(comm), &r);
    return r;
}

/* The arguments a creation reads beyond the call line's checked fields:
 * MPI_SUCCESS, or the error class every member finds alike. */
static int check(const struct mpcr_call *c, int size, int me)
{
    if ((c->op == MPCR_OP_COMM_SPLIT || c->op == MPCR_OP_COMM_SPLIT_TYPE) &&
        c->bytes < (uint64_t)size * sizeof(int32_t))
        return MPI_ERR_ARG; /* no room for the members */
    if (c->op == MPCR_OP_COMM_SPLIT_TYPE && c->peer != ABI_COMM_TYPE_SHARED &&
        c->peer != ABI_UNDEFINED)
        return MPI_ERR_ARG;
    if (c->op != MPCR_OP_COMM_CREATE_GROUP) return MPI_SUCCESS;
    uint64_t n = c->bytes / sizeof(int32_t);
    if (c->bytes % sizeof(int32_t) || n == 0 || n > (uint64_t)size) return MPI_ERR_GROUP;
    const int32_t *g = staging(c->offset);
    int found = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (g[i] < 0 || g[i] >= size) return MPI_ERR_GROUP;
        for (uint64_t k = 0; k < i; k++)
            if (g[k] == g[i]) return MPI_ERR_GROUP;
        found |= g[i] == me;
    }
    return found ? MPI_SUCCESS : MPI_ERR_GROUP;
}

/* Enters: says so to every other member taking part. The sends complete by
 * themselves (empty messages; a checkpoint's drain receives those still in
 * flight). */
static int enter(const struct mpcr_call *c)
{
    int size = map_comm_size(c->comm), me = my_rank_in(c->comm);
    int rc = check(c, size, me);
    if (rc != MPI_SUCCESS) return rc;
    uint8_t *entered = calloc((size_t)size, 1);
    if (!entered) return MPI_ERR_NO_MEM;
    cr = (typeof(cr)){CR_ENTERED, c->op, c->comm, c->token,       c->peer, c->tag, 0,
                      0,          0,     0,       (uint32_t)size, entered, 0,      NULL};
    if (c->op == MPCR_OP_COMM_CREATE_GROUP) {
        cr.ngroup = (uint32_t)(c->bytes / sizeof(int32_t));
        if (!(cr.group = malloc(c->bytes))) return MPI_ERR_NO_MEM;
        memcpy(cr.group, staging(c->offset), c->bytes);
        memset(cr.entered, ENTERED_NOT_TAKING_PART, (size_t)size);
        for (uint32_t i = 0; i < cr.ngroup; i++)
            cr.entered[cr.group[i]] = ENTERED_MISSING;
    }
    cr.entered[me] = ENTERED_IN;
    return entered_announce(c->comm, ENTERED_TAG_BLOCKING, cr.entered, cr.nparent);
}

/* Takes every "entered" message that is in. Returns 1 once all are in and,
 * but for MPI_Comm_create_group, the duplicates the program began on the
 * parent before (idup.h) have ended: each member began them before this
 * creation (MPI orders a communicator's collectives), so they end, and the
 * real calls on the parent are made in one order by all. */
static int collect(void)
{
    return entered_collect(cr.parent, ENTERED_TAG_BLOCKING, cr.entered, cr.nparent, NULL, NULL) &&
           (cr.op == MPCR_OP_COMM_CREATE_GROUP || !idup_pending_on(cr.parent));
}

/* Every member has entered: each makes the real call now, so it returns. */
static void create(void)
{
    int rc, member = 0, rank = 0, size = 0;
    switch (cr.op) {
    case MPCR_OP_COMM_DUP:
        rc = comm_dup(cr.parent, cr.new_id);
        member = rc == MPI_SUCCESS;
        break;
    case MPCR_OP_COMM_SPLIT:
        rc = comm_split(cr.parent, cr.color, cr.key, cr.new_id, &member, &rank, &size);
        break;
    case MPCR_OP_COMM_SPLIT_TYPE:
        rc = comm_split_shared(cr.parent, cr.color == ABI_UNDEFINED, cr.key, cr.new_id, &member,
                               &rank, &size);
        break;
    default:
        rc = comm_create_group(cr.parent, (int)cr.ngroup, cr.group, cr.key, cr.new_id);
        member = rc == MPI_SUCCESS;
        break;
    }
    cr.member = member, cr.rank = rank, cr.size = size;
    cr.rc = error_class(rc);
    cr.state = CR_DONE;
}

/* The answer; a split's members go to the staging area, from the record
 * (so a restarted proxy answers the same). */
static void answer(const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = cr.rc;
    r->flag = cr.member;
    r->value = cr.rank;
    r->source = cr.size;
    if (cr.rc == MPI_SUCCESS && cr.member &&
        (cr.op == MPCR_OP_COMM_SPLIT || cr.op == MPCR_OP_COMM_SPLIT_TYPE)) {
        uint32_t n = 0;
        const int32_t *members = record_members(cr.new_id, &n);
        if (members && c->bytes >= (uint64_t)n * sizeof *members)
            memcpy(staging(c->offset), members, (size_t)n * sizeof *members);
        else
            r->rc = error_class(MPI_ERR_INTERN);
    }
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
        idup_progress();
        if (cr.state == CR_ENTERED && collect()) create();
        if (cr.state == CR_DONE) {
            answer(c, r);
            return 0;
        }
        if (c->poll) {
            r->pending = 1; /* the library asks again, letting its other threads call meanwhile */
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

/* Followed by nparent bytes (entered), then ngroup int32 (the group),
 * padded to 8 bytes. */
struct saved {
    uint32_t state, op, parent, new_id;
    int32_t color, key, rc, member, rank, size;
    uint32_t nparent, ngroup;
};

static size_t padded(size_t n)
{
    return (n + 7) / 8 * 8;
}

static size_t saved_bytes(uint32_t nparent, uint32_t ngroup)
{
    return padded(sizeof(struct saved) + nparent + (size_t)ngroup * sizeof(int32_t));
}

void *creation_save(size_t *len)
{
    uint32_t np = cr.state ? cr.nparent : 0, ng = cr.state ? cr.ngroup : 0;
    size_t n = saved_bytes(np, ng);
    char *buf = calloc(1, n);
    if (!buf) return NULL;
    struct saved s = {cr.state, cr.op,     cr.parent, cr.new_id, cr.color, cr.key,
                      cr.rc,    cr.member, cr.rank,   cr.size,   np,       ng};
    memcpy(buf, &s, sizeof s);
    if (np) memcpy(buf + sizeof s, cr.entered, np);
    if (ng) memcpy(buf + sizeof s + np, cr.group, ng * sizeof(int32_t));
    *len = n;
    return buf;
}

size_t creation_saved_size(const void *buf, size_t len)
{
    struct saved s;
    if (len < sizeof s) return 0;
    memcpy(&s, buf, sizeof s);
    if (s.nparent > (1u << 24) || s.ngroup > s.nparent) return 0;
    size_t n = saved_bytes(s.nparent, s.ngroup);
    return n <= len ? n : 0;
}

int creation_load(const void *buf, size_t len, char *err, size_t cap)
{
    struct saved s;
    if (len < sizeof s) return snprintf(err, cap, "its creation record is truncated"), -1;
    memcpy(&s, buf, sizeof s);
    if (s.state == CR_NONE) return 0;
    int size = map_comm_size(s.parent);
    int op_known = s.op == MPCR_OP_COMM_DUP || s.op == MPCR_OP_COMM_SPLIT ||
                   s.op == MPCR_OP_COMM_SPLIT_TYPE || s.op == MPCR_OP_COMM_CREATE_GROUP;
    if (s.state > CR_DONE || !op_known || s.nparent != (uint32_t)size || size == 0 ||
        s.ngroup > s.nparent || (s.op == MPCR_OP_COMM_CREATE_GROUP) != (s.ngroup > 0) ||
        len != saved_bytes(s.nparent, s.ngroup))
        return snprintf(err, cap, "its creation record is damaged"), -1;
    uint8_t *entered = malloc(s.nparent);
    int32_t *group = s.ngroup ? malloc(s.ngroup * sizeof *group) : NULL;
    if (!entered || (s.ngroup && !group)) {
        free(entered), free(group);
        return snprintf(err, cap, "out of memory"), -1;
    }
    memcpy(entered, (const char *)buf + sizeof s, s.nparent);
    if (s.ngroup) memcpy(group, (const char *)buf + sizeof s + s.nparent, s.ngroup * sizeof *group);
    for (uint32_t i = 0; i < s.ngroup; i++)
        if (group[i] < 0 || group[i] >= size) {
            free(entered), free(group);
            return snprintf(err, cap, "its creation record is damaged"), -1;
        }
    cr = (typeof(cr)){s.state,  s.op,   s.parent, s.new_id,  s.color, s.key,    s.rc,
                      s.member, s.rank, s.size,   s.nparent, entered, s.ngroup, group};
    return 0;
}
