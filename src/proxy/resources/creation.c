/* See creation.h. */
#include "creation.h"
#include "entered.h"
#include "idup.h"
#include "ckpt.h"
#include "proxy.h"
#include "record.h"
#include "report.h"
#include "resource.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CR_NONE, CR_ENTERED, CR_DONE, CR_RUNNING };
enum { ABI_COMM_TYPE_SHARED = 1 }; /* MPICH's value, mpcr's ABI */

struct creation {
    uint32_t state, op; /* MPCR_OP_COMM_DUP, _SPLIT, _SPLIT_TYPE or _CREATE_GROUP */
    uint32_t parent, new_id;
    int32_t color, key; /* SPLIT_TYPE: the type in color; CREATE_GROUP: the tag in key */
    int32_t rc, member, rank, size; /* CR_DONE: the answer (rc in mpcr's ABI) */
    int polled; /* the program asked with `poll` (MPI_THREAD_MULTIPLE) */
    uint32_t nparent;
    uint8_t *entered; /* nparent of them */
    uint32_t ngroup;
    int32_t *group; /* CREATE_GROUP: the group, as ranks of the parent */
    /* CR_RUNNING: the real call, in a thread of its own (see creation.h) */
    pthread_t thread;
    int has_thread;
    _Atomic int finished;
    MPI_Comm real_parent, comm, coll;
    int real_tag; /* CREATE_GROUP: the tag of its real call (unprobed_tag) */
    uint64_t share, agreed; /* the creation key's agreement (record.h) */
    int real_rc;
};

/* In the order the program began them; one unless the program is
 * multi-threaded. */
static struct creation **list;
static uint32_t count, cap;
static int threaded;            /* the real MPI gave MPI_THREAD_MULTIPLE */
static uint32_t running;        /* CR_RUNNING: real calls begun, not yet ended */
static uint64_t last_change_ns; /* when a real call last began or ended */

/* While real calls are under way and none begins or ends, how long one
 * whose members have all entered waits before it begins beside them: when
 * it comes before the first of them (see step), and in any case. */
#define OVERLAP_AFTER_NS     2000000ull
#define OVERLAP_ALL_AFTER_NS 50000000ull

/* Open MPI 4.1 makes MPI_Comm_create_group's agreement with point-to-point
 * messages on the parent, under the program's tag, which a receive of any
 * tag matches: a checkpoint's drain, probing every communicator for any
 * tag while a member's real call sends, took one into its cache, and the
 * creation then waited for ever (the member that drained it had counted a
 * message nobody sent: the drain never ended either). So there the real
 * call is made from a duplicate of MPI_COMM_WORLD that nothing probes: the
 * group is the same processes, the communicator made the same. MPICH
 * sends that agreement on the parent's collective context, which no probe
 * sees. */
static MPI_Comm unprobed_world = MPI_COMM_NULL;

/* Calls on one parent at once are told apart by their tags, which MPI
 * requires to differ when their groups overlap; calls on different parents
 * need not differ at all, and on unprobed_world they would then take each
 * other's messages (threads of a MPI_THREAD_MULTIPLE program creating from
 * two communicators with one tag). So the tag there is the program's
 * moved by an amount drawn from the parent's creation key, the same on
 * every member: one parent's tags stay apart, and two parents' collide only
 * if their amounts differ by exactly the difference of the two tags (about
 * one chance in MPI_TAG_UB for a pair of calls at once, with overlapping
 * groups; such a pair would take each other's messages, a wrong agreement
 * or a hang). MPI_COMM_WORLD and MPI_COMM_SELF share key 0: a creation
 * from MPI_COMM_SELF has one member and sends nothing. Every member moves
 * the tag alike, whether its program polls or not. */
static int unprobed_tag(const struct creation *e)
{
    uint64_t span = (uint64_t)proxy.tag_ub + 1, k = record_key(e->parent) * 0x9e3779b97f4a7c15ull;
    return (int)(((uint64_t)e->key + (k ^ k >> 32) % span) % span);
}

void creation_init(int provided)
{
    threaded = provided == MPI_THREAD_MULTIPLE;
#ifdef OPEN_MPI
    if (MPI_Comm_dup(MPI_COMM_WORLD, &unprobed_world) != MPI_SUCCESS) unprobed_world = MPI_COMM_NULL;
#endif
}

static struct creation *find(uint32_t new_id)
{
    for (uint32_t i = 0; i < count; i++)
        if (list[i]->new_id == new_id) return list[i];
    return NULL;
}

static void discard(struct creation *e)
{
    for (uint32_t i = 0; i < count; i++)
        if (list[i] == e) {
            memmove(&list[i], &list[i + 1], (count - i - 1) * sizeof *list);
            count--;
            break;
        }
    free(e->entered);
    free(e->group);
    free(e);
}

static int append(struct creation *e)
{
    if (grow_array(&list, &cap, count, 4, sizeof *list)) return MPI_ERR_NO_MEM;
    list[count++] = e;
    return MPI_SUCCESS;
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

/* What its "entered" messages carry (entered.h): MPI_Comm_create_group's
 * tag, which tells apart those that threads make on one parent at once. */
static const int32_t *entered_key(const struct creation *e)
{
    return e->op == MPCR_OP_COMM_CREATE_GROUP ? &e->key : &entered_key_ordered;
}

/* Enters: says so to every other member taking part. The sends complete by
 * themselves (empty messages; a checkpoint's drain receives those still in
 * flight). */
static int enter(const struct mpcr_call *c, struct creation **out)
{
    int size = map_comm_size(c->comm), me = my_rank_in(c->comm);
    int rc = check(c, size, me);
    if (rc != MPI_SUCCESS) return rc;
    struct creation *e = calloc(1, sizeof *e);
    uint8_t *entered = calloc((size_t)size, 1);
    if (!e || !entered || append(e)) {
        free(e), free(entered);
        return MPI_ERR_NO_MEM;
    }
    e->state = CR_ENTERED, e->op = c->op, e->parent = c->comm, e->new_id = c->token;
    e->color = c->peer, e->key = c->tag, e->nparent = (uint32_t)size, e->entered = entered;
    e->polled = c->poll != 0;
    *out = e;
    if (c->op == MPCR_OP_COMM_CREATE_GROUP) {
        e->ngroup = (uint32_t)(c->bytes / sizeof(int32_t));
        if (!(e->group = malloc(c->bytes))) return MPI_ERR_NO_MEM;
        memcpy(e->group, staging(c->offset), c->bytes);
        memset(e->entered, ENTERED_NOT_TAKING_PART, (size_t)size);
        for (uint32_t i = 0; i < e->ngroup; i++)
            e->entered[e->group[i]] = ENTERED_MISSING;
    }
    e->entered[me] = ENTERED_IN;
    return entered_announce(c->comm, ENTERED_TAG_BLOCKING, entered_key(e), e->entered, e->nparent);
}

/* Takes every "entered" message that is in. Returns 1 once all are in and,
 * but for MPI_Comm_create_group, the duplicates the program began on the
 * parent before (idup.h) have ended: each member began them before this
 * creation (MPI orders a communicator's collectives), so they end, and the
 * real calls on the parent are made in one order by all. */
static int collect(struct creation *e)
{
    return entered_collect(e->parent, ENTERED_TAG_BLOCKING, *entered_key(e), e->entered, e->nparent, NULL, NULL) &&
           (e->op == MPCR_OP_COMM_CREATE_GROUP || !idup_pending_on(e->parent));
}

/* The real creation and its key's agreement (record.h): MPI calls only,
 * on communicators no other thread frees meanwhile, and none of the
 * proxy's tables, so that a thread of its own may make them. */
static void real_call(struct creation *e)
{
    MPI_Comm comm = MPI_COMM_NULL;
    int rc;
    switch (e->op) {
    case MPCR_OP_COMM_DUP:
        rc = MPI_Comm_dup(e->real_parent, &comm);
        break;
    case MPCR_OP_COMM_SPLIT:
        rc = MPI_Comm_split(e->real_parent, e->color == ABI_UNDEFINED ? MPI_UNDEFINED : e->color,
                            e->key, &comm);
        break;
    case MPCR_OP_COMM_SPLIT_TYPE:
        rc = MPI_Comm_split_type(e->real_parent,
                                 e->color == ABI_UNDEFINED ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED,
                                 e->key, MPI_INFO_NULL, &comm);
        break;
    default: {
        MPI_Group pg, g;
        rc = MPI_Comm_group(e->real_parent, &pg);
        if (rc != MPI_SUCCESS) break;
        rc = MPI_Group_incl(pg, (int)e->ngroup, e->group, &g); /* int32_t and int: alike here */
        MPI_Group_free(&pg);
        if (rc != MPI_SUCCESS) break;
        if (unprobed_world != MPI_COMM_NULL)
            rc = MPI_Comm_create_group(unprobed_world, g, e->real_tag, &comm);
        else
            rc = MPI_Comm_create_group(e->real_parent, g, e->key, &comm);
        MPI_Group_free(&g);
        break;
    }
    }
    e->comm = comm, e->coll = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS && comm != MPI_COMM_NULL) {
        unsigned long long mine = e->share, key = 0;
        rc = MPI_Allreduce(&mine, &key, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
        if (rc == MPI_SUCCESS) rc = MPI_Comm_dup(comm, &e->coll);
        if (rc != MPI_SUCCESS) MPI_Comm_free(&e->comm);
        e->agreed = key;
    }
    e->real_rc = rc;
}

static void *real_call_thread(void *arg)
{
    struct creation *e = arg;
    real_call(e);
    atomic_store(&e->finished, 1);
    return NULL;
}

/* "MPI_Comm_split making communicator 5 from 0", and MPI_Comm_create_group's
 * tag: what a report of a creation that waits names. */
static void describe(const struct creation *e, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s making communicator %u from %u", mpcr_op_name(e->op), e->new_id,
                     e->parent);
    if (e->op == MPCR_OP_COMM_CREATE_GROUP && n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, " (tag %d)", e->key);
}

/* Every member has entered: each makes the real call now, so it returns.
 * In a thread of its own when the program polls (MPI_THREAD_MULTIPLE) and
 * the real MPI allows it: the program's other threads may begin creations
 * on other communicators in another order on another rank, and a proxy
 * blocked in one real call would never enter the other. Else in this
 * thread, also in a checkpoint's drain (`polled` set there): a program
 * that does not poll has one creation at a time, every member begins it
 * wherever it is (serving the call, or draining), and the real MPI is then
 * never used by two threads of the proxy at once (a drain probing every
 * communicator beside a thread's creation slows it, MPICH's lock; and
 * ckpt.comm_jacobi once timed out on the CI machine, a member inside
 * MPI_Comm_create_group for 30 s: cause not established, this a suspect). */
static void begin(struct creation *e, int polled)
{
    e->real_parent = real_comm(e->parent);
    e->real_tag = e->op == MPCR_OP_COMM_CREATE_GROUP ? unprobed_tag(e) : 0;
    e->share = record_key_share();
    running++;
    last_change_ns = mpcr_now_ns();
    if (polled && e->polled && threaded && !pthread_create(&e->thread, NULL, real_call_thread, e)) {
        e->state = CR_RUNNING, e->has_thread = 1;
        return;
    }
    /* The MPI thread blocks here; the reader thread may be reading the text
     * of the call before, so each call has the other buffer. */
    static char doing[2][96];
    static unsigned turn;
    char *text = doing[turn++ % 2];
    describe(e, text, sizeof doing[0]);
    ckpt_doing("inside the real call of a creation:", text);
    real_call(e);
    ckpt_doing("back from the real call of a creation:", mpcr_op_name(e->op));
    atomic_store(&e->finished, 1);
    e->state = CR_RUNNING;
}

/* The real call has returned: the outcome recorded, the answer kept. */
static void end(struct creation *e)
{
    if (e->has_thread) pthread_join(e->thread, NULL);
    e->has_thread = 0;
    running--;
    last_change_ns = mpcr_now_ns();
    int rc = e->real_rc, member = rc == MPI_SUCCESS && e->comm != MPI_COMM_NULL, rank = 0, size = 0;
    if (member) {
        MPI_Comm_rank(e->comm, &rank);
        MPI_Comm_size(e->comm, &size);
        rc = record_made(e->new_id, e->comm, e->coll, e->agreed);
        member = rc == MPI_SUCCESS;
    }
    e->member = member, e->rank = rank, e->size = size;
    e->rc = error_class(rc);
    e->state = CR_DONE;
}

/* The order in which creations whose members have all entered begin (see
 * step): the parent's id, then MPI_Comm_create_group's tag (two of those
 * under Open MPI: their moved tags), then the order the program began them
 * here. Ids agree between members where the program
 * made its communicators in one order, as most do; where they do not, the
 * order differs between members, which costs time, not correctness. */
static int before(const struct creation *a, const struct creation *b)
{
    /* On unprobed_world (Open MPI), whose agreements of concurrent
     * creations go lowest (communicator, tag) first: the moved tag. */
    if (unprobed_world != MPI_COMM_NULL && a->op == MPCR_OP_COMM_CREATE_GROUP &&
        b->op == MPCR_OP_COMM_CREATE_GROUP)
        return unprobed_tag(a) < unprobed_tag(b);
    if (a->parent != b->parent) return a->parent < b->parent;
    int32_t ta = a->op == MPCR_OP_COMM_CREATE_GROUP ? a->key : -1;
    int32_t tb = b->op == MPCR_OP_COMM_CREATE_GROUP ? b->key : -1;
    return ta < tb;
}

/* Moves every creation on as far as it goes without waiting. A creation
 * whose members have all entered begins its real call at once where the
 * call is made here (not polled, or no threads), or when `force` says so
 * (a checkpoint's drain, before an image: every member begins it then).
 * Polled ones begin one at a time, in the order of `before`, as long as
 * the one under way goes on: MPICH makes concurrent context ids of one
 * process by agreement rounds that fail until every member's threads are
 * in the same creation, and on busy cores a few such calls at once took
 * seconds each (creation.h). Beside calls under way that neither end nor
 * begin for OVERLAP_AFTER_NS, those that come before the first of them
 * begin (a member that began another first, not having seen this one's
 * members all in yet, waits for it); after OVERLAP_ALL_AFTER_NS, all. So
 * each creation whose members have all entered begins in the end, as
 * before, whatever order each member chose. */
static void step(int polled, int force)
{
    struct creation *low = NULL; /* the first real call under way */
    for (uint32_t i = 0; i < count; i++) {
        struct creation *e = list[i];
        if (e->state == CR_RUNNING && atomic_load(&e->finished)) end(e);
        if (e->state == CR_RUNNING && (!low || before(e, low))) low = e;
    }
    struct creation *next = NULL;
    for (uint32_t i = 0; i < count; i++) {
        struct creation *e = list[i];
        if (e->state != CR_ENTERED || !collect(e)) continue;
        if (!polled || !threaded || force) {
            begin(e, polled);
            if (atomic_load(&e->finished)) end(e); /* made here, or a thread that ended */
        } else if (!next || before(e, next)) {
            next = e;
        }
    }
    if (!next) return;
    if (!running) {
        begin(next, polled);
        return;
    }
    uint64_t idle = mpcr_now_ns() - last_change_ns;
    if (idle < OVERLAP_AFTER_NS) return;
    for (uint32_t i = 0; i < count; i++) {
        struct creation *e = list[i];
        if (e->state == CR_ENTERED && collect(e) &&
            (!low || before(e, low) || idle >= OVERLAP_ALL_AFTER_NS))
            begin(e, polled);
    }
}

/* The answer; a split's members go to the staging area, from the record
 * (so a restarted proxy answers the same). */
static void answer(struct creation *e, const struct mpcr_call *c, struct mpcr_reply *r)
{
    r->rc = e->rc;
    r->flag = e->member;
    r->value = e->rank;
    r->source = e->size;
    if (e->rc == MPI_SUCCESS && e->member &&
        (e->op == MPCR_OP_COMM_SPLIT || e->op == MPCR_OP_COMM_SPLIT_TYPE)) {
        uint32_t n = 0;
        const int32_t *members = record_members(e->new_id, &n);
        if (members && c->bytes >= (uint64_t)n * sizeof *members)
            memcpy(staging(c->offset), members, (size_t)n * sizeof *members);
        else
            r->rc = error_class(MPI_ERR_INTERN);
    }
    discard(e);
}

int creation_serve(const struct mpcr_call *c, struct mpcr_reply *r)
{
    struct creation *e = find(c->token);
    if (!c->poll && count > (e != NULL)) {
        /* Another creation was left unanswered: a program whose calls are
         * serialised cannot have moved on without its answer. */
        mpcr_report("rank %d: a communicator creation (id %u) was left unanswered; ending the job",
                    proxy.rank, list[0]->new_id);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!e) {
        int rc = enter(c, &e);
        if (rc != MPI_SUCCESS) {
            if (e) discard(e);
            r->rc = error_class(rc);
            return 0;
        }
    }
    for (;;) {
        idup_progress();
        step(c->poll, 0);
        if (e->state == CR_DONE) {
            answer(e, c, r);
            return 0;
        }
        if (c->poll) {
            /* A real call's thread waits for MPICH's lock: a thread that
             * takes it back at once, as this one answering polls does,
             * starved it (seen: 100 creations of one thread took 1-2 s
             * natively beside a thread polling MPI_Iprobe, 0.04 s when that
             * thread yields). */
            if (running) sched_yield();
            r->pending = 1; /* the library asks again, letting its other threads call meanwhile */
            return 0;
        }
        if (child_exited) child_ended();
        if (ckpt_poll()) return 1; /* the drain goes on with creation_progress */
    }
}

int creation_is_done(uint32_t id)
{
    struct creation *e = find(id);
    return e && e->state == CR_DONE;
}

void creation_progress(void)
{
    step(1, 1);
}

int creation_running(void)
{
    return running > 0;
}

static void report_waiting(void)
{
    for (uint32_t i = 0; i < count; i++) {
        const struct creation *e = list[i];
        char what[96], who[64];
        describe(e, what, sizeof what);
        entered_missing(e->entered, e->nparent, who, sizeof who);
        if (e->state == CR_ENTERED)
            mpcr_report("rank %d: quiesced for 10 s inside %s; no \"entered\" message yet from "
                        "ranks:%s", proxy.rank, what, *who ? who : " none (waiting for a duplicate)");
        else if (e->state == CR_RUNNING)
            mpcr_report("rank %d: quiesced for 10 s, its real call of %s still under way in a "
                        "thread", proxy.rank, what);
    }
}

static void settle(void)
{
    uint64_t since = 0;
    for (;;) {
        step(1, 1);
        if (!running) return;
        if (ckpt_settle_overdue(&since))
            for (uint32_t i = 0; i < count; i++)
                if (list[i]->state == CR_RUNNING)
                    mpcr_report("rank %d: before its image, still waiting for the real %s making "
                                "communicator %u from %u",
                                proxy.rank, mpcr_op_name(list[i]->op), list[i]->new_id, list[i]->parent);
        if (child_exited) child_ended();
        sched_yield();
    }
}

/* ---- the state file's part: u32 count, 4 bytes of padding, then for each
 * (CR_ENTERED or CR_DONE: settled first) a struct saved, nparent bytes
 * (entered), ngroup int32 (the group), padded to 8 bytes ---- */

struct saved {
    uint32_t state, op, parent, new_id;
    int32_t color, key, rc, member, rank, size;
    uint32_t nparent, ngroup;
    uint32_t polled, unused;
};
_Static_assert(sizeof(struct saved) == 56, "a saved creation's layout changed: bump its section's version");

static int save(struct section *out, char *err, size_t cap)
{
    (void)err, (void)cap; /* only memory can fail: the caller's reason */
    if (section_put_count(out, count)) return -1;
    for (uint32_t i = 0; i < count; i++) {
        const struct creation *e = list[i];
        struct saved s = {e->state,  e->op,     e->parent,  e->new_id,          e->color,
                          e->key,    e->rc,     e->member,  e->rank,            e->size,
                          e->nparent, e->ngroup, (uint32_t)e->polled, 0};
        if (section_put(out, &s, sizeof s) || section_put(out, e->entered, e->nparent) ||
            section_put(out, e->group, e->ngroup * sizeof(int32_t)) || section_align(out))
            return -1;
    }
    return 0;
}

/* One saved creation, its arrays in place in the section. */
static int load_one(const struct saved *sv, const void *entered_at, const void *group_at, char *err,
                    size_t cap)
{
    struct saved s = *sv;
    int size = map_comm_size(s.parent);
    int op_known = s.op == MPCR_OP_COMM_DUP || s.op == MPCR_OP_COMM_SPLIT ||
                   s.op == MPCR_OP_COMM_SPLIT_TYPE || s.op == MPCR_OP_COMM_CREATE_GROUP;
    if ((s.state != CR_ENTERED && s.state != CR_DONE) || !op_known || s.polled > 1 ||
        s.nparent != (uint32_t)size || size == 0 ||
        (s.op == MPCR_OP_COMM_CREATE_GROUP) != (s.ngroup > 0))
        return snprintf(err, cap, "its creation record is damaged"), -1;
    struct creation *e = calloc(1, sizeof *e);
    uint8_t *entered = malloc(s.nparent);
    int32_t *group = s.ngroup ? malloc(s.ngroup * sizeof *group) : NULL;
    if (!e || !entered || (s.ngroup && !group) || append(e)) {
        free(e), free(entered), free(group);
        return snprintf(err, cap, "out of memory"), -1;
    }
    memcpy(entered, entered_at, s.nparent);
    if (s.ngroup) memcpy(group, group_at, s.ngroup * sizeof *group);
    e->state = s.state, e->op = s.op, e->parent = s.parent, e->new_id = s.new_id;
    e->color = s.color, e->key = s.key, e->rc = s.rc, e->member = s.member;
    e->rank = s.rank, e->size = s.size, e->nparent = s.nparent, e->entered = entered;
    e->ngroup = s.ngroup, e->group = group;
    e->polled = s.polled != 0;
    for (uint32_t i = 0; i < s.ngroup; i++)
        if (group[i] < 0 || group[i] >= size)
            return snprintf(err, cap, "its creation record is damaged"), -1;
    return 0;
}

static int load(const void *buf, size_t len, char *err, size_t cap)
{
    struct section_in in = section_cursor(buf, len);
    uint32_t n;
    if (section_get_count(&in, &n)) goto damaged;
    for (uint32_t i = 0; i < n; i++) {
        struct saved s;
        const void *entered, *group;
        if (section_get(&in, &s, sizeof s) || s.nparent > (1u << 24) || s.ngroup > s.nparent ||
            !(entered = section_take(&in, s.nparent)) ||
            !(group = section_take(&in, (size_t)s.ngroup * sizeof(int32_t))) || section_skip_align(&in))
            goto damaged;
        if (load_one(&s, entered, group, err, cap)) return -1;
    }
    if (in.p == in.end) return 0;
damaged:
    return snprintf(err, cap, "its creation record is damaged"), -1;
}

const struct proxy_resource resource_creations = {
    .name = "creations",
    .version = 1,
    .drain = creation_progress, /* may make a communicator: every member will */
    .report_waiting = report_waiting,
    .settle = settle,
    .save = save,
    .load = load,
};
