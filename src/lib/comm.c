/* Communicators. Each keeps its rank, size and error handler here; `vid`,
 * its index in the table, is how the proxy names it (the library chooses
 * it, so that a new proxy can be told the same ids). Handles: MPICH's for
 * the predefined ones, 0x84000000 | vid for the others. Ids are not reused:
 * a request may still point at a freed communicator. */
#include "lib.h"

#include <stdlib.h>

#define COMM_PREFIX 0x84000000u

static struct mpcr_comm world = {0, 0, 0, MPI_ERRORS_ARE_FATAL};
static struct mpcr_comm self = {1, 0, 1, MPI_ERRORS_ARE_FATAL};
static struct mpcr_comm **table; /* by vid; NULL once freed */
static uint32_t ncomms, capacity;

void mpcr_comm_setup(int rank, int size)
{
    world.rank = rank;
    world.size = size;
    if (!table) {
        capacity = 16;
        table = calloc(capacity, sizeof *table);
        if (!table) mpcr_fatal("out of memory for communicators");
        table[0] = &world, table[1] = &self;
        ncomms = 2;
    }
}

struct mpcr_comm *mpcr_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD) return &world;
    if (comm == MPI_COMM_SELF) return &self;
    uint32_t u = (uint32_t)comm, vid = u & ~COMM_PREFIX;
    if ((u & 0xfc000000u) != COMM_PREFIX || vid < 2 || vid >= ncomms) return NULL;
    return table[vid];
}

/* A new communicator's entry; its vid is the next id. */
static struct mpcr_comm *comm_new(void)
{
    if (ncomms == capacity) {
        struct mpcr_comm **t = realloc(table, 2 * capacity * sizeof *t);
        if (!t) return NULL;
        table = t, capacity *= 2;
    }
    struct mpcr_comm *c = calloc(1, sizeof *c);
    if (c) c->vid = ncomms;
    return c;
}

static MPI_Comm comm_handle(const struct mpcr_comm *c)
{
    return (MPI_Comm)(COMM_PREFIX | c->vid);
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    MPCR_REQUIRE_INIT("MPI_Comm_dup");
    struct mpcr_comm *c = mpcr_comm_get(comm), *n;
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_dup");
    if (!(n = comm_new())) return mpcr_error(c, MPI_ERR_NO_MEM, "MPI_Comm_dup");
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMM_DUP);
    call->comm = c->vid;
    call->token = n->vid;
    int err = mpcr_call_finish()->rc;
    if (err) {
        free(n);
        return mpcr_error(c, err, "MPI_Comm_dup");
    }
    n->rank = c->rank, n->size = c->size, n->errhandler = c->errhandler;
    table[ncomms++] = n;
    *newcomm = comm_handle(n);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_dup);

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    MPCR_REQUIRE_INIT("MPI_Comm_split");
    struct mpcr_comm *c = mpcr_comm_get(comm), *n;
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_split");
    if (color < 0 && color != MPI_UNDEFINED) return mpcr_error(c, MPI_ERR_ARG, "MPI_Comm_split");
    if (!(n = comm_new())) return mpcr_error(c, MPI_ERR_NO_MEM, "MPI_Comm_split");
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMM_SPLIT);
    call->comm = c->vid;
    call->peer = color;
    call->tag = key;
    call->token = n->vid;
    const struct mpcr_reply *r = mpcr_call_finish();
    int err = r->rc;
    if (err || !r->flag) { /* an error, or not a member (color MPI_UNDEFINED) */
        free(n);
        if (!err) *newcomm = MPI_COMM_NULL;
        return mpcr_error(c, err, "MPI_Comm_split");
    }
    n->rank = r->value, n->size = r->source, n->errhandler = c->errhandler;
    table[ncomms++] = n;
    *newcomm = comm_handle(n);
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_split);

int PMPI_Comm_free(MPI_Comm *comm)
{
    MPCR_REQUIRE_INIT("MPI_Comm_free");
    struct mpcr_comm *c = mpcr_comm_get(*comm);
    if (!c || c == &world || c == &self) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_free");
    struct mpcr_call *call = mpcr_call_begin(MPCR_OP_COMM_FREE);
    call->comm = c->vid;
    int err = mpcr_call_finish()->rc;
    if (err) return mpcr_error(c, err, "MPI_Comm_free");
    table[c->vid] = NULL; /* the entry itself stays: pending requests may point at it */
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_free);

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    MPCR_REQUIRE_INIT("MPI_Comm_size");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_size");
    *size = c->size;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_size);

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    MPCR_REQUIRE_INIT("MPI_Comm_rank");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_rank");
    *rank = c->rank;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_rank);

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPCR_REQUIRE_INIT("MPI_Comm_set_errhandler");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_set_errhandler");
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN &&
        errhandler != MPI_ERRORS_ABORT)
        return mpcr_error(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler");
    c->errhandler = errhandler;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_set_errhandler);

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPCR_REQUIRE_INIT("MPI_Comm_get_errhandler");
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_get_errhandler");
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_get_errhandler);

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    /* Predefined handlers are never really freed; the handle becomes null. */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Errhandler_free);

/* The predefined attributes of MPI_COMM_WORLD. Their values are fixed for
 * the life of the job, kept here so that the pointers handed out stay valid. */
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    MPCR_REQUIRE_INIT("MPI_Comm_get_attr");
    static int tag_ub, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, universe,
                       appnum = 0;
    struct mpcr_comm *c = mpcr_comm_get(comm);
    if (!c) return mpcr_error_world(MPI_ERR_COMM, "MPI_Comm_get_attr");
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
        return mpcr_error(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr");
    }
    *(int **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}
MPCR_ALIAS(Comm_get_attr);
