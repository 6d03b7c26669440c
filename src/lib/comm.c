/* Communicators. Each keeps its rank, size and error handler here; `vid`
 * is how the proxy names it (the library chooses it, so that a new proxy
 * can be told the same ids): 0 and 1 for MPI_COMM_WORLD and MPI_COMM_SELF,
 * 2 + the handle's slot index for the others, so a freed communicator's id
 * is reused by a later one. Handles: MPICH's for the predefined ones, the
 * handle system's for the others (handle.h). A communicator the program
 * frees while requests on it are pending lives on until they are done; the
 * proxy frees its real communicator only then. */
#include "api_gen.h"

#include <stdlib.h>

static struct mpcr_comm world = {.vid = 0, .errhandler = MPI_ERRORS_ARE_FATAL};
static struct mpcr_comm self = {.vid = 1, .size = 1, .errhandler = MPI_ERRORS_ARE_FATAL};

void mpcr_comm_setup(int rank, int size)
{
    world.rank = rank;
    world.size = size;
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
}

void mpcr_comm_ref(struct mpcr_comm *c)
{
    if (!predefined(c)) mpcr_obj_ref(c);
}

void mpcr_comm_unref(struct mpcr_comm *c)
{
    if (!predefined(c)) mpcr_obj_unref(c);
}

/* A new communicator's object; the proxy knows it as vid once told. */
static struct mpcr_comm *comm_new(void)
{
    struct mpcr_comm *c = mpcr_obj_new(MPCR_KIND_COMM, sizeof *c, comm_destroy);
    if (c) c->vid = 2 + mpcr_obj_index(c);
    return c;
}

/* A new communicator the proxy did not create after all. */
static void comm_discard(struct mpcr_comm *c)
{
    c->vid = 0; /* nothing to free at the proxy */
    mpcr_obj_drop_handle(c);
}

int mpcr_impl_Comm_dup(struct mpcr_comm *c, MPI_Comm *newcomm)
{
    struct mpcr_comm *n = comm_new();
    if (!n) return MPI_ERR_NO_MEM;
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMM_DUP);
    call->comm = c->vid;
    call->token = n->vid;
    int err = mpcr_call_finish()->rc;
    if (err) {
        comm_discard(n);
        return err;
    }
    n->rank = c->rank, n->size = c->size, n->errhandler = c->errhandler;
    *newcomm = (MPI_Comm)mpcr_obj_handle(n);
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_split(struct mpcr_comm *c, int color, int key, MPI_Comm *newcomm)
{
    if (color < 0 && color != MPI_UNDEFINED) return MPI_ERR_ARG;
    struct mpcr_comm *n = comm_new();
    if (!n) return MPI_ERR_NO_MEM;
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMM_SPLIT);
    call->comm = c->vid;
    call->peer = color;
    call->tag = key;
    call->token = n->vid;
    const struct mpcr_reply *r = mpcr_call_finish();
    int err = r->rc;
    if (err || !r->flag) { /* an error, or not a member (color MPI_UNDEFINED) */
        comm_discard(n);
        if (!err) *newcomm = MPI_COMM_NULL;
        return err;
    }
    n->rank = r->value, n->size = r->source, n->errhandler = c->errhandler;
    *newcomm = (MPI_Comm)mpcr_obj_handle(n);
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_free(MPI_Comm *comm, struct mpcr_comm *c)
{
    if (predefined(c)) return MPI_ERR_COMM;
    if (c->h.refs == 1) { /* nothing else uses it: free it at the proxy now, errors reported */
        int err = proxy_free(c->vid);
        if (err) return err;
        c->vid = 0;
    }
    mpcr_obj_drop_handle(c);
    *comm = MPI_COMM_NULL;
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

int mpcr_impl_Errhandler_free(MPI_Errhandler *errhandler)
{
    /* Predefined handlers are never really freed; the handle becomes null. */
    if (!mpcr_errhandler_valid(*errhandler)) return MPI_ERR_ARG;
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* The predefined attributes of MPI_COMM_WORLD. Their values are fixed for
 * the life of the job, kept here so that the pointers handed out stay valid. */
int mpcr_impl_Comm_get_attr(struct mpcr_comm *c, int keyval, void *value, int *flag)
{
    (void)c;
    static int tag_ub, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, universe,
                       appnum = 0;
    tag_ub = mpcr.tag_ub;
    universe = mpcr.size;
    int *v = NULL;
    switch (keyval) {
    case MPI_TAG_UB:
        v = &tag_ub;
        break;
    case MPI_HOST:
        v = &host;
        break;
    case MPI_IO:
        v = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        v = &wtime_global;
        break;
    case MPI_UNIVERSE_SIZE:
        v = &universe;
        break;
    case MPI_APPNUM:
        v = &appnum;
        break;
    default:
        return MPI_ERR_KEYVAL;
    }
    *(int **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}
