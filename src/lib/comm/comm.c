/* Communicators. Each keeps its rank, size and error handler here; `vid`
 * is how the proxy names it (the library chooses it, so that a new proxy
 * can be told the same ids): 0 and 1 for MPI_COMM_WORLD and MPI_COMM_SELF,
 * 2 + the handle's slot index for the others, so a freed communicator's id
 * is reused by a later one. Handles: MPICH's for the predefined ones, the
 * handle system's for the others (handle.h). A communicator the program
 * frees while requests on it are pending lives on until they are done; the
 * proxy frees its real communicator only then. */
#include "api_gen.h"
#include "channel.h"
#include "comm.h"
#include "env/attr.h"
#include "env/errors.h"
#include "env/info.h"
#include "pt2pt/request.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "runtime/threads.h"
#include "topo.h"

#include <stdlib.h>
#include <string.h>

static int32_t self_member;
static struct mpcr_comm world = {.vid = 0, .errhandler = MPI_ERRORS_ARE_FATAL};
static struct mpcr_comm self = {
    .vid = 1, .size = 1, .errhandler = MPI_ERRORS_ARE_FATAL, .members = &self_member};

void mpcr_comm_setup(int rank, int size)
{
    world.rank = rank;
    world.size = size;
    self_member = rank;
}

struct mpcr_comm *mpcr_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return &world;
    if (comm == MPI_COMM_SELF) return &self;
    return mpcr_obj_get(MPCR_KIND_COMM, (uint32_t)comm);
}

static int predefined(const struct mpcr_comm *c)
{
    return c == &world || c == &self;
}

static int proxy_free(uint32_t vid)
{
    mpcr_call_begin(MPCR_OP_COMM_FREE)->comm = vid;
    return mpcr_call_finish()->rc;
}

/* The last reference went: the proxy frees its communicator, unless
 * MPI_Comm_free did so already. */
static void comm_destroy(void *obj)
{
    struct mpcr_comm *c = obj;
    if (c->vid) proxy_free(c->vid);
    free(c->members);
    free(c->name);
    mpcr_topo_free(c->topo);
    if (c->inter) mpcr_inter_destroy(c->inter);
    mpcr_partitioned_comm_gone(c);
}

void mpcr_comm_ref(struct mpcr_comm *c)
{
    if (!predefined(c)) mpcr_obj_ref(c);
}

void mpcr_comm_unref(struct mpcr_comm *c)
{
    if (!predefined(c)) mpcr_obj_unref(c);
}

MPI_Comm mpcr_comm_handle(struct mpcr_comm *c)
{
    return (MPI_Comm)mpcr_obj_handle(c);
}

/* A new communicator's object; the proxy knows it as vid once told. Its
 * members array (n entries) is allocated here, filled by the caller. */
static struct mpcr_comm *comm_new(int n)
{
    struct mpcr_comm *c = mpcr_obj_new(MPCR_KIND_COMM, sizeof *c, comm_destroy);
    if (!c) return NULL;
    _Static_assert(2u + MPCR_HANDLE_MAX_INDEX < MPCR_COMM_ID_END, "the proxy refuses such ids (channel.h)");
    c->vid = 2 + mpcr_obj_index(c);
    c->members = malloc(((size_t)n + 1) * sizeof *c->members);
    if (!c->members) {
        c->vid = 0;
        mpcr_obj_drop_handle(c);
        return NULL;
    }
    return c;
}

/* A new communicator the proxy did not create after all. */
static void comm_discard(struct mpcr_comm *c)
{
    c->vid = 0; /* nothing to free at the proxy */
    mpcr_obj_drop_handle(c);
}

void mpcr_comm_release(struct mpcr_comm *c)
{
    mpcr_obj_drop_handle(c); /* the proxy frees it with the last reference */
}

/* A blocking creation (COMM_DUP, COMM_SPLIT(_TYPE), COMM_CREATE_GROUP):
 * publishes `want` and returns the proxy's answer. The proxy waits there
 * until every member has entered (src/proxy/creation.h). Under
 * MPI_THREAD_MULTIPLE that wait would hold the library's lock, so that a
 * member whose entry waits for a message from another thread of this
 * process would never come: the call is polled instead, the lock let go
 * between polls, and other threads of the process may poll creations of
 * their own meanwhile (the proxy makes their real calls in threads). */
static const struct mpcr_reply *creation_call(const struct mpcr_call *want)
{
    int polled = mpcr_threads_shared();
    for (;;) {
        struct mpcr_call *call = mpcr_call_begin(want->op);
        call->comm = want->comm, call->peer = want->peer, call->tag = want->tag;
        call->token = want->token, call->offset = want->offset, call->bytes = want->bytes;
        call->poll = (uint32_t)polled;
        const struct mpcr_reply *r = mpcr_call_finish();
        if (!polled || r->rc != MPI_SUCCESS || !r->pending) return r;
        mpcr_lock_yield();
    }
}

/* A duplicate's object, not yet known to the proxy: c's rank, size, error
 * handler and members, and an inter-communicator's groups. */
static struct mpcr_comm *dup_object(struct mpcr_comm *c)
{
    struct mpcr_comm *n = comm_new(c->size);
    if (!n) return NULL;
    n->rank = c->rank, n->size = c->size, n->errhandler = c->errhandler;
    for (int r = 0; r < c->size; r++)
        n->members[r] = mpcr_comm_world_rank(c, r);
    if (c->inter && mpcr_inter_dup(c, n)) {
        comm_discard(n);
        return NULL;
    }
    return n;
}

int mpcr_comm_dup(struct mpcr_comm *c, struct mpcr_comm **out)
{
    struct mpcr_comm *n = dup_object(c);
    if (!n) return MPI_ERR_NO_MEM;
    int err = creation_call(&(struct mpcr_call){.op = MPCR_OP_COMM_DUP, .comm = c->vid,
                                                 .token = n->vid})->rc;
    if (err) {
        comm_discard(n);
        return err;
    }
    *out = n;
    return MPI_SUCCESS;
}

/* What a duplicate takes from c beyond its members: the topology, and the
 * attributes (their copy callbacks run). */
static int dup_extras(struct mpcr_comm *c, struct mpcr_comm *n)
{
    if (c->topo && !(n->topo = mpcr_topo_copy(c->topo))) return MPI_ERR_NO_MEM;
    return mpcr_attr_comm_dup(c, n); /* a copy callback's failure (attr.c) */
}

int mpcr_impl_Comm_dup(struct mpcr_comm *c, MPI_Comm *newcomm)
{
    /* Under MPI_THREAD_MULTIPLE a duplicate is a non-blocking one waited
     * for: the proxy makes several at once, so threads duplicating
     * different communicators need no order between them across ranks
     * (the polled creations of creation_call come one at a time). */
    if (mpcr_threads_shared() && !c->inter) {
        MPI_Request q;
        int err = mpcr_comm_idup(c, newcomm, &q);
        return err ? err : mpcr_impl_Wait(&q, MPI_STATUS_IGNORE);
    }
    struct mpcr_comm *n;
    int err = mpcr_comm_dup(c, &n);
    if (err) return err;
    /* A blocking duplicate of an inter-communicator makes its hidden local
     * communicator now, so that a non-blocking first collective need not. */
    if ((n->inter && (err = mpcr_inter_ready(n))) || (err = dup_extras(c, n))) {
        mpcr_impl_Comm_free(&(MPI_Comm){mpcr_comm_handle(n)}, n);
        *newcomm = MPI_COMM_NULL;
        return err;
    }
    *newcomm = mpcr_comm_handle(n);
    return MPI_SUCCESS;
}

/* MPI_Comm_idup behaves as MPI_Comm_dup called at once (MPI 4.0 7.4.2):
 * the new communicator is complete here now, attributes copied; only the
 * proxy's real one comes later (src/proxy/idup.h), and the request (its
 * token there) completes once it is made. Until then the program may not
 * use newcomm, as MPI says. */
int mpcr_comm_idup(struct mpcr_comm *c, MPI_Comm *newcomm, MPI_Request *request)
{
    struct mpcr_comm *n = dup_object(c);
    if (!n) return MPI_ERR_NO_MEM;
    int err = dup_extras(c, n);
    struct mpcr_request *q = err ? NULL : mpcr_request_new(c, request);
    if (!err && !q) err = MPI_ERR_NO_MEM;
    if (!err) {
        struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMM_IDUP);
        call->comm = c->vid;
        call->token = n->vid;
        const struct mpcr_reply *r = mpcr_call_finish();
        if (!(err = r->rc)) {
            q->kind = MPCR_REQ_COMM, q->token = r->token;
            *newcomm = mpcr_comm_handle(n);
            return MPI_SUCCESS;
        }
    }
    if (q) mpcr_request_free(request, q); /* nothing pending: simply gone */
    mpcr_attr_comm_free(n);                /* the copies' delete callbacks */
    comm_discard(n);
    return err;
}

int mpcr_impl_Comm_idup(struct mpcr_comm *c, MPI_Comm *newcomm, MPI_Request *request)
{
    return mpcr_comm_idup(c, newcomm, request);
}

/* A split-like creation (COMM_SPLIT, COMM_SPLIT_TYPE): the proxy answers
 * membership, rank and size, and writes the members' world ranks into the
 * staging area. */
static int split_call(struct mpcr_comm *c, enum mpcr_op op, int color, int key,
                      struct mpcr_comm **out)
{
    *out = NULL;
    int span = mpcr_comm_proxy_size(c); /* the proxy's communicator's size */
    struct mpcr_comm *n = comm_new(span);
    if (!n) return MPI_ERR_NO_MEM;
    uint64_t bytes = (uint64_t)span * sizeof(int32_t), off;
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) {
        comm_discard(n);
        return err;
    }
    const struct mpcr_reply *r =
        creation_call(&(struct mpcr_call){.op = op, .comm = c->vid, .peer = color, .tag = key,
                                          .token = n->vid, .offset = off, .bytes = bytes});
    err = r->rc;
    if (err || !r->flag) { /* an error, or not a member (color MPI_UNDEFINED) */
        mpcr_staging_free(off);
        comm_discard(n);
        return err;
    }
    n->rank = r->value, n->size = r->source, n->errhandler = c->errhandler;
    memcpy(n->members, mpcr_staging_ptr(off), (size_t)n->size * sizeof(int32_t));
    mpcr_staging_free(off);
    *out = n;
    return MPI_SUCCESS;
}

int mpcr_comm_split(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out)
{
    if (color < 0 && color != MPI_UNDEFINED) return MPI_ERR_ARG;
    if (c->inter) return MPI_ERR_COMM; /* the topology constructors take intra-communicators */
    return split_call(c, MPCR_OP_COMM_SPLIT, color, key, out);
}

/* The proxy's split of an inter-communicator's span (intercomm.c makes an
 * inter-communicator of it, or an intra one for MPI_Intercomm_merge). */
int mpcr_comm_split_span(struct mpcr_comm *c, int color, int key, struct mpcr_comm **out)
{
    return split_call(c, MPCR_OP_COMM_SPLIT, color, key, out);
}

int mpcr_comm_split_type_span(struct mpcr_comm *c, int split_type, int key, struct mpcr_comm **out)
{
    return split_call(c, MPCR_OP_COMM_SPLIT_TYPE, split_type, key, out);
}

static int handle_or_null(int err, struct mpcr_comm *n, MPI_Comm *newcomm)
{
    if (!err) *newcomm = n ? mpcr_comm_handle(n) : MPI_COMM_NULL;
    return err;
}

int mpcr_impl_Comm_split(struct mpcr_comm *c, int color, int key, MPI_Comm *newcomm)
{
    struct mpcr_comm *n;
    int err = c->inter ? mpcr_inter_split(c, color, key, &n) : mpcr_comm_split(c, color, key, &n);
    return handle_or_null(err, n, newcomm);
}

/* MPI_COMM_TYPE_SHARED: the ranks of c on this rank's host, where they run
 * now (docs/communicators.md: a communicator made so keeps its members
 * across a restart; a new split describes the new placement). On an
 * inter-communicator (MPI 4.0 does not exclude one; MPICH splits it as
 * MPI_Comm_split does with the host as color): the inter-communicator
 * between this rank's group and the other group's ranks on its host,
 * MPI_COMM_NULL where the other group has none there. */
int mpcr_impl_Comm_split_type(struct mpcr_comm *c, int split_type, int key, MPI_Info info,
                              MPI_Comm *newcomm)
{
    if (!mpcr_info_valid_or_null(info)) return MPI_ERR_INFO;
    if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_HW_UNGUIDED)
        return mpcr_comm_split_hw(c, split_type, key, info, newcomm); /* comm_split_hw.c */
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
        if (split_type == MPIX_COMM_TYPE_NEIGHBORHOOD && !c->inter)
            return mpcr_comm_split_neighborhood(c, key, info, newcomm);
        if (split_type == MPIX_COMM_TYPE_NEIGHBORHOOD)
            mpcr_unsupported_feature("MPI_Comm_split_type with MPIX_COMM_TYPE_NEIGHBORHOOD on an "
                                     "inter-communicator");
        return MPI_ERR_ARG;
    }
    struct mpcr_comm *n;
    int err = c->inter ? mpcr_inter_split_type(c, split_type, key, &n)
                       : split_call(c, MPCR_OP_COMM_SPLIT_TYPE, split_type, key, &n);
    return handle_or_null(err, n, newcomm);
}

/* The rank in c of each member of g; MPI_ERR_GROUP when one is not in c. */
static int ranks_in(const struct mpcr_comm *c, const struct mpcr_group *g, int32_t *out)
{
    for (int i = 0; i < g->size; i++) {
        out[i] = -1;
        for (int r = 0; r < c->size && out[i] < 0; r++)
            if (mpcr_comm_world_rank(c, r) == g->ranks[i]) out[i] = r;
        if (out[i] < 0) return MPI_ERR_GROUP;
    }
    return MPI_SUCCESS;
}

/* MPI_Comm_create is a split: the ranks of one group (each group may differ,
 * if disjoint: MPI 4.0 7.4.2) share a color, the smallest rank in c of its
 * members, and are ordered by their rank in it. */
int mpcr_impl_Comm_create(struct mpcr_comm *c, struct mpcr_group *g, MPI_Comm *newcomm)
{
    if (c->inter) return mpcr_inter_create(c, g, newcomm);
    int32_t *ranks = malloc(((size_t)g->size + 1) * sizeof *ranks);
    if (!ranks) return MPI_ERR_NO_MEM;
    int err = ranks_in(c, g, ranks);
    int me = mpcr_group_rank_of(g, mpcr.rank), color = MPI_UNDEFINED;
    for (int i = 0; i < g->size && me != MPI_UNDEFINED; i++)
        if (color == MPI_UNDEFINED || ranks[i] < color) color = ranks[i];
    free(ranks);
    if (err) return err;
    struct mpcr_comm *n;
    err = mpcr_comm_split(c, color, me, &n);
    return handle_or_null(err, n, newcomm);
}

/* COMM_CREATE_GROUP: the group (g, world ranks; n of them, this rank the
 * me-th) is at off in the staging area as ranks of c, and freed here. */
static int create_group(struct mpcr_comm *c, const int32_t *g, int n, int me, int tag, uint64_t off,
                        MPI_Errhandler eh, struct mpcr_comm **out)
{
    struct mpcr_comm *nc = comm_new(n);
    if (!nc) {
        mpcr_staging_free(off);
        return MPI_ERR_NO_MEM;
    }
    int err = creation_call(&(struct mpcr_call){.op = MPCR_OP_COMM_CREATE_GROUP, .comm = c->vid,
                                                 .tag = tag, .token = nc->vid, .offset = off,
                                                 .bytes = (uint64_t)n * sizeof(int32_t)})
                  ->rc;
    mpcr_staging_free(off);
    if (err) {
        comm_discard(nc);
        return err;
    }
    nc->rank = me, nc->size = n, nc->errhandler = eh;
    memcpy(nc->members, g, (size_t)n * sizeof(int32_t));
    *out = nc;
    return MPI_SUCCESS;
}

int mpcr_comm_create_world(const int32_t *world_ranks, int n, int tag, MPI_Errhandler eh,
                           struct mpcr_comm **out)
{
    int me = -1;
    for (int i = 0; i < n; i++)
        if (world_ranks[i] == mpcr.rank) me = i;
    uint64_t off;
    int err = mpcr_staging_alloc((uint64_t)n * sizeof(int32_t), &off);
    if (err) return err;
    memcpy(mpcr_staging_ptr(off), world_ranks, (size_t)n * sizeof(int32_t));
    return create_group(&world, world_ranks, n, me, tag, off, eh, out);
}

/* Collective over the members of g only. */
int mpcr_impl_Comm_create_group(struct mpcr_comm *c, struct mpcr_group *g, int tag,
                                MPI_Comm *newcomm)
{
    if (c->inter) return MPI_ERR_COMM; /* an intra-communicator's (MPI 4.0 7.4.2) */
    int me = mpcr_group_rank_of(g, mpcr.rank);
    uint64_t bytes = (uint64_t)g->size * sizeof(int32_t), off;
    int err = mpcr_staging_alloc(bytes, &off);
    if (err) return err;
    err = ranks_in(c, g, mpcr_staging_ptr(off));
    if (err || me == MPI_UNDEFINED) { /* not a member: MPI_COMM_NULL, as MPICH answers */
        mpcr_staging_free(off);
        if (!err) *newcomm = MPI_COMM_NULL;
        return err;
    }
    struct mpcr_comm *n;
    err = create_group(c, g->ranks, g->size, me, tag, off, c->errhandler, &n);
    if (!err) *newcomm = mpcr_comm_handle(n);
    return err;
}

int mpcr_impl_Comm_free(MPI_Comm *comm, struct mpcr_comm *c)
{
    if (predefined(c)) return MPI_ERR_COMM;
    int aerr = mpcr_attr_comm_free(c); /* delete callbacks (attr.c); one failing stops the free */
    if (aerr) return aerr;
    if (c->h.refs == 1) { /* nothing else uses it: free it at the proxy now, errors reported */
        int err = proxy_free(c->vid);
        if (err) return err;
        c->vid = 0;
    }
    mpcr_obj_drop_handle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_compare(struct mpcr_comm *a, struct mpcr_comm *b, int *result)
{
    if (!result) return MPI_ERR_ARG;
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (a->inter || b->inter) {
        *result = mpcr_inter_compare(a, b);
        return MPI_SUCCESS;
    }
    int same_order = a->size == b->size, same_set = same_order;
    for (int r = 0; r < a->size && same_set; r++) {
        int32_t w = mpcr_comm_world_rank(a, r);
        if (mpcr_comm_world_rank(b, r) != w) same_order = 0;
        int found = 0;
        for (int s = 0; s < b->size && !found; s++)
            found = mpcr_comm_world_rank(b, s) == w;
        same_set = found;
    }
    *result = same_order ? MPI_CONGRUENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_test_inter(struct mpcr_comm *c, int *flag)
{
    if (!flag) return MPI_ERR_ARG;
    *flag = c->inter != NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_set_name(struct mpcr_comm *c, const char *comm_name)
{
    if (!comm_name) return MPI_ERR_ARG;
    size_t len = strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1);
    char *name = malloc(len + 1);
    if (!name) return MPI_ERR_NO_MEM;
    memcpy(name, comm_name, len);
    name[len] = 0;
    free(c->name);
    c->name = name;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_get_name(struct mpcr_comm *c, char *comm_name, int *resultlen)
{
    if (!comm_name || !resultlen) return MPI_ERR_ARG;
    const char *name = c->name       ? c->name
                       : c == &world ? "MPI_COMM_WORLD"
                       : c == &self  ? "MPI_COMM_SELF"
                                     : "";
    size_t len = strlen(name);
    memcpy(comm_name, name, len + 1);
    *resultlen = (int)len;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_size(struct mpcr_comm *c, int *size)
{
    *size = c->size;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_rank(struct mpcr_comm *c, int *rank)
{
    *rank = c->rank;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_set_errhandler(struct mpcr_comm *c, MPI_Errhandler errhandler)
{
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_get_errhandler(struct mpcr_comm *c, MPI_Errhandler *errhandler)
{
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
