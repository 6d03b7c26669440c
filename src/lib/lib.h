/* Internal state and helpers of mpcr's passive MPI library.
 *
 * Everything here lives in the application's memory, so it is part of the
 * application's checkpoint image (DESIGN section 2); the proxy holds nothing
 * that must survive. Names: MPI_/PMPI_ are the public ABI, mpcr_ internal. */
#ifndef MPCR_LIB_H
#define MPCR_LIB_H

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "channel.h"

struct mpcr_lib {
    int initialized, finalized;
    int thread_level;
    pthread_t main_thread;
    int rank, size, tag_ub;
    pid_t proxy_pid;
    struct mpcr_chan *chan; /* its mapping */
    uint64_t staging_size;  /* bytes of staging area mapped after the control page */
    uint32_t seq;           /* last call published */
    char processor_name[MPI_MAX_PROCESSOR_NAME];
    char proxy_version[256];
};
extern struct mpcr_lib mpcr;

/* The proxy is our parent; the kernel sends this signal when it dies. */
#define MPCR_PROXY_DEATH_SIGNAL (SIGRTMAX - 1)

/* Hooks the checkpoint engine into this library (restart.c). */
void mpcr_checkpoint_setup(void);

/* ---- calls to the proxy (call.c) ---- */

/* Starts a call: returns the call line with op filled in, others stale. */
static inline struct mpcr_call *mpcr_call_begin(enum mpcr_op op)
{
    struct mpcr_call *c = &mpcr.chan->call;
    c->op = op;
    return c;
}
/* Publishes the call begun with mpcr_call_begin and waits for the reply. */
const struct mpcr_reply *mpcr_call_finish(void);
static inline const struct mpcr_reply *mpcr_call_finish_op(enum mpcr_op op)
{
    mpcr_call_begin(op);
    return mpcr_call_finish();
}
/* Ends the program when the proxy is gone (called from waits). */
_Noreturn void mpcr_proxy_lost(void);

/* ---- staging area (staging.c) ---- */
int mpcr_staging_alloc(uint64_t bytes, uint64_t *offset); /* 0 or MPI error class */
void mpcr_staging_free(uint64_t offset);
static inline void *mpcr_staging_ptr(uint64_t offset)
{
    return mpcr_staging(mpcr.chan, offset);
}

/* ---- datatypes (datatype.c; struct mpcr_type and pack/unpack: typemap.h) ---- */
#include "typemap.h"
/* NULL when the handle is not a valid datatype. */
const struct mpcr_type *mpcr_type_get(MPI_Datatype type);
void mpcr_pack(void *dst, const void *src, int count, const struct mpcr_type *t);
void mpcr_unpack(void *dst, const void *src, uint64_t bytes, const struct mpcr_type *t);

/* ---- communicators (comm.c) ---- */
struct mpcr_comm {
    uint32_t vid; /* the proxy's id of it */
    int rank, size;
    MPI_Errhandler errhandler;
};
struct mpcr_comm *mpcr_comm_get(MPI_Comm comm); /* NULL when invalid */

/* A point-to-point call on communicator id `vid` (with MPCR_COLL_CONTEXT for
 * the library's own collective traffic); arguments are not checked. */
const struct mpcr_reply *mpcr_p2p_call(enum mpcr_op op, uint32_t vid, int peer, int tag,
                                       uint64_t offset, uint64_t bytes);

/* Completes a receive: unpacks what the proxy's reply r says arrived in the
 * staging area at offset into buf, fills status; returns r's error class. */
int mpcr_finish_recv(const struct mpcr_reply *r, void *buf, uint64_t capacity, uint64_t offset,
                     const struct mpcr_type *t, MPI_Status *status);

/* ---- requests (request.c) ---- */
enum mpcr_req_kind { MPCR_REQ_SEND = 1, MPCR_REQ_RECV };
struct mpcr_request {
    enum mpcr_req_kind kind;
    uint32_t token;  /* the proxy's slot; 0 when nothing is pending there */
    uint64_t offset; /* staging area used */
    int has_staging;
    void *buf; /* receive: where to unpack */
    uint64_t capacity;
    const struct mpcr_type *type;
    struct mpcr_comm *comm;
    MPI_Status status; /* for requests completed locally (PROC_NULL) */
};
struct mpcr_request *mpcr_request_new(MPI_Request *handle);
struct mpcr_request *mpcr_request_get(MPI_Request handle);
void mpcr_request_free(MPI_Request *handle);

/* ---- errors (errors.c) ---- */
/* Applies comm's error handler to error class `err` raised by function `fn`:
 * returns err (MPI_ERRORS_RETURN) or ends the job (MPI_ERRORS_ARE_FATAL).
 * comm NULL (the call had no valid communicator): MPI_COMM_WORLD's handler. */
int mpcr_error(struct mpcr_comm *comm, int err, const char *fn);
/* Errors where no communicator is involved use MPI_COMM_WORLD's handler. */
int mpcr_error_world(int err, const char *fn);
_Noreturn void mpcr_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Ends the job with "mpcr: WHAT is not supported" (a use of a function that
 * mpcr implements only in part). */
_Noreturn void mpcr_unsupported_feature(const char *what);

/* ---- status ---- */
void mpcr_status_set(MPI_Status *st, int source, int tag, uint64_t bytes);
static inline uint64_t mpcr_status_bytes(const MPI_Status *st)
{
    return (uint32_t)st->count_lo | ((uint64_t)((uint32_t)st->count_hi_and_cancelled >> 1) << 32);
}

/* Every MPI function except a few must be called between Init and Finalize. */
#define MPCR_REQUIRE_INIT(fn)                                                                      \
    do {                                                                                           \
        if (__builtin_expect(!mpcr.initialized || mpcr.finalized, 0))                              \
            mpcr_fatal("%s called %s", fn,                                                         \
                       mpcr.finalized ? "after MPI_Finalize" : "before MPI_Init");                 \
    } while (0)

/* Defines MPI_name as a weak alias of PMPI_name, as MPICH does, so that
 * profiling tools can interpose MPI_ and still reach PMPI_. */
#define MPCR_ALIAS(name)                                                                           \
    extern __typeof__(PMPI_##name) MPI_##name __attribute__((weak, alias("PMPI_" #name)))

#endif
